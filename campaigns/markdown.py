"""Markdown for posts, rendered once at write time to sanitized HTML.

Two layers, on purpose: markdown-it renders with raw HTML disabled, then nh3 (ammonia) keeps only an
allow-list of tags, attributes and URL schemes. Either alone would stop most attacks; together a bug in
one is not a hole. Bump RENDERER_VERSION whenever the output for the same source may change, so stored
HTML can be re-rendered.

Spoilers: a block fenced by ``::: spoiler [title]`` ... ``:::`` (or ``[spoiler]...[/spoiler]`` lines, as
on the forums our users come from) becomes ``<details class="spoiler"><summary>``.
"""

from __future__ import annotations

import re
import secrets
from functools import lru_cache
from html import escape

import nh3
from markdown_it import MarkdownIt

RENDERER_VERSION = 1
MAX_SOURCE_LENGTH = 60_000

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
_SPOILER_OPEN = re.compile(r"^\s*(?:::: ?spoiler\b(?P<title>.*)|\[spoiler(?:=(?P<title2>[^\]]*))?\])\s*$", re.I)
_SPOILER_CLOSE = re.compile(r"^\s*(?::::|\[/spoiler\])\s*$", re.I)


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    # commonmark with raw HTML off; tables and strikethrough are what forum users expect.
    return MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable(
        ["table", "strikethrough"]
    )


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


def _render_blocks(source: str) -> str:
    """Render, turning spoiler fences into <details>. Spoilers nest; an unclosed one closes at the end."""
    # A per-render random marker stands where each spoiler goes; users cannot guess it to inject HTML.
    mark = f"tintero-spoiler-{secrets.token_hex(8)}-{{}}"
    pieces: list[str] = []
    chunks: list[str] = []  # rendered spoilers, put back after markdown-it has run
    captured: list[str] = []
    title = ""
    depth = 0
    for line in source.splitlines():
        opened = _SPOILER_OPEN.match(line)
        closing = bool(_SPOILER_CLOSE.match(line))
        if depth == 0:
            if opened:
                title = (opened.group("title") or opened.group("title2") or "").strip()
                captured, depth = [], 1
            else:
                pieces.append(line)
            continue
        if opened:
            depth += 1
        elif closing:
            depth -= 1
            if depth == 0:
                pieces.extend(["", mark.format(len(chunks)), ""])
                chunks.append(_spoiler_html(title, "\n".join(captured)))
                continue
        captured.append(line)
    if depth > 0:
        pieces.extend(["", mark.format(len(chunks)), ""])
        chunks.append(_spoiler_html(title, "\n".join(captured)))
    html = _parser().render("\n".join(pieces))
    for index, chunk in enumerate(chunks):
        marker = mark.format(index)
        html = html.replace(f"<p>{marker}</p>", chunk).replace(marker, chunk)
    return html


def _spoiler_html(title: str, inner_source: str) -> str:
    summary = escape(title) if title else "Spoiler"
    return f'<details class="spoiler"><summary>{summary}</summary>{_render_blocks(inner_source)}</details>'


def render_markdown(source: str) -> str:
    """Markdown source to safe HTML. Never raises on odd input; refuses nothing but oversize text."""
    if len(source) > MAX_SOURCE_LENGTH:
        raise ValueError(f"text longer than {MAX_SOURCE_LENGTH} characters")
    # NULs and other C0 controls have no place in a post.
    cleaned = "".join(ch for ch in source if ch in "\n\t" or ch >= " ")
    return _sanitize(_render_blocks(cleaned))
