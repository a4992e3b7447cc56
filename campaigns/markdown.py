"""Markdown for every stored text (posts, campaign and scene texts, character stories), rendered once at
write time to sanitized HTML. Pages show the stored HTML; nothing renders Markdown while serving a page.

Two layers, on purpose: markdown-it renders with raw HTML disabled, then nh3 (ammonia) keeps only an
allow-list of tags, attributes and URL schemes. Either alone would stop most attacks; together a bug in
one is not a hole. Bump RENDERER_VERSION whenever the output for the same source may change, so stored
HTML can be re-rendered.

Spoilers: a block fenced by ``::: spoiler [title]`` ... ``:::`` (or ``[spoiler]...[/spoiler]`` lines, as
on the forums our users come from) becomes ``<details class="spoiler"><summary>``. It is a markdown-it
block rule, so a spoiler is parsed once with the rest of the text and nests like a blockquote.

Limits: a text longer than MAX_SOURCE_LENGTH, or nesting blocks (spoilers, quotes, lists) deeper than
MAX_NESTING, is refused with MarkdownRefused (a ValueError whose message is for the user): markdown-it
would otherwise drop what lies past its own nesting limit without a word.
"""

from __future__ import annotations

import re
from functools import lru_cache
from html import escape
from operator import attrgetter
from typing import Any

import nh3
from django.utils.translation import gettext as _
from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.token import Token

RENDERER_VERSION = 2
MAX_SOURCE_LENGTH = 60_000
# Block levels (each spoiler, quote or list item opens one or two): far beyond any real post, well
# inside markdown-it's own limit (_PARSER_NESTING), past which it drops the rest of the text.
MAX_NESTING = 32
_PARSER_NESTING = MAX_NESTING + 8

_ALLOWED_TAGS = {
    "p", "br", "hr", "strong", "em", "b", "i", "s", "del", "code", "pre", "blockquote",
    "ul", "ol", "li", "h1", "h2", "h3", "h4", "h5", "h6", "a", "img",
    "table", "thead", "tbody", "tr", "th", "td", "details", "summary",
}  # fmt: skip
_ALLOWED_ATTRIBUTES = {
    "a": {"href", "title"},
    "img": {"src", "alt", "title"},
    "details": {"class"},
    "ol": {"start"},
    "th": {"style"},
    "td": {"style"},
}
_URL_SCHEMES = {"http", "https", "mailto"}
_SPOILER_OPEN = re.compile(r"(?:::: ?spoiler\b(?P<title>.*)|\[spoiler(?:=(?P<title2>[^\]]*))?\])\s*$", re.I)
_SPOILER_CLOSE = re.compile(r"(?::::|\[/spoiler\])\s*$", re.I)
# NULs and other C0 controls (but tab and newline) have no place in a text; \r goes too (CRLF -> LF).
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f]")
_level = attrgetter("level")


class MarkdownRefused(ValueError):
    """A text that cannot be stored as it is: too long or nested too deeply. Its message is for the user."""


def _spoiler_line(state: StateBlock, line: int) -> str | None:
    """The text of a line if it could be a spoiler fence (cheap first-character test), else None."""
    start = state.bMarks[line] + state.tShift[line]
    if state.src[start : start + 1] not in (":", "["):
        return None
    return state.src[start : state.eMarks[line]]


def _spoiler_rule(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    # Called for every block start and (as a paragraph terminator) every paragraph line: cheapest test first.
    text = _spoiler_line(state, start_line)
    if text is None or state.is_code_block(start_line):
        return False
    opened = _SPOILER_OPEN.match(text)
    if opened is None:
        return False
    if silent:
        return True
    if state.level >= MAX_NESTING:
        raise MarkdownRefused(_too_deep())
    # The matching close: nested fences open and close in pairs; an unclosed spoiler ends with its parent.
    close_line, depth, line = end_line, 0, start_line + 1
    while line < end_line:
        if state.sCount[line] < state.blkIndent and not state.isEmpty(line):
            close_line = line
            break
        candidate = _spoiler_line(state, line)
        if candidate is not None:
            if _SPOILER_OPEN.match(candidate):
                depth += 1
            elif _SPOILER_CLOSE.match(candidate):
                if depth == 0:
                    close_line = line
                    break
                depth -= 1
        line += 1
    closed = close_line < end_line and _spoiler_line(state, close_line) is not None
    saved = state.parentType, state.lineMax
    state.parentType, state.lineMax = "spoiler", close_line
    token = state.push("spoiler_open", "details", 1)
    token.info = (opened.group("title") or opened.group("title2") or "").strip()
    token.map = [start_line, close_line]
    state.md.block.tokenize(state, start_line + 1, close_line)
    state.push("spoiler_close", "details", -1)
    state.parentType, state.lineMax = saved
    state.line = close_line + 1 if closed else close_line
    return True


def _render_spoiler_open(self: Any, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
    title = tokens[idx].info
    return f'<details class="spoiler"><summary>{escape(title) if title else "Spoiler"}</summary>'


def _render_spoiler_close(self: Any, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
    return "</details>\n"


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    # commonmark with raw HTML off; tables and strikethrough are what forum users expect.
    md = MarkdownIt(
        "commonmark", {"html": False, "linkify": False, "typographer": False, "maxNesting": _PARSER_NESTING}
    ).enable(["table", "strikethrough"])
    md.block.ruler.before("fence", "spoiler", _spoiler_rule, {"alt": ["paragraph", "reference", "blockquote", "list"]})
    md.add_render_rule("spoiler_open", _render_spoiler_open)
    md.add_render_rule("spoiler_close", _render_spoiler_close)
    return md


def _sanitize(html: str) -> str:
    return nh3.clean(
        html,
        tags=_ALLOWED_TAGS,
        attributes=_ALLOWED_ATTRIBUTES,
        url_schemes=_URL_SCHEMES,
        link_rel="nofollow noopener noreferrer",
        strip_comments=True,
        # Inline styles are limited to table alignment, which markdown-it emits.
        filter_style_properties={"text-align"},
    )


def _too_long(length: int) -> str:
    return _("Como mucho %(max)d caracteres (tiene %(n)d).") % {"max": MAX_SOURCE_LENGTH, "n": length}


def _too_deep() -> str:
    return _("El texto anida demasiados niveles de spoilers, citas o listas (como mucho %(max)d).") % {
        "max": MAX_NESTING
    }


def render_markdown(source: str) -> str:
    """Markdown source to safe HTML. Raises MarkdownRefused (a ValueError) when the text is too long or
    nested too deeply; any other input renders."""
    if len(source) > MAX_SOURCE_LENGTH:
        raise MarkdownRefused(_too_long(len(source)))
    md = _parser()
    tokens = md.parse(_CONTROLS.sub("", source))
    # Quotes and lists past the limit: markdown-it would have dropped the rest of the text silently.
    if tokens and max(map(_level, tokens)) >= MAX_NESTING:
        raise MarkdownRefused(_too_deep())
    return _sanitize(md.renderer.render(tokens, md.options, {}))
