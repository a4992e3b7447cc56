"""The Markdown pipeline against an XSS corpus: whatever goes in, only safe HTML comes out."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campaigns.markdown import MAX_SOURCE_LENGTH, render_markdown

XSS_CORPUS = [
    "<script>alert(1)</script>",
    "<SCRIPT SRC=//evil.example/x.js></SCRIPT>",
    "<img src=x onerror=alert(1)>",
    '<svg onload="alert(1)">',
    "<body onload=alert(1)>",
    '<a href="javascript:alert(1)">x</a>',
    "[click](javascript:alert(1))",
    "[click](JaVaScRiPt:alert(1))",
    "[click](java\tscript:alert(1))",
    "[click](&#106;avascript:alert(1))",
    "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "![img](javascript:alert(1))",
    "![img](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)",
    '![img](x" onerror="alert(1))',
    '[x](http://a.example "title" onmouseover=alert(1))',
    "<iframe src=//evil.example></iframe>",
    "<style>body{display:none}</style>",
    '<div style="background:url(javascript:alert(1))">x</div>',
    "<<script>script>alert(1)<</script>/script>",
    "<scr<script>ipt>alert(1)</script>",
    "<img src=`x`onerror=alert(1)>",
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
    '<form action="javascript:alert(1)"><button>x</button></form>',
    "<input autofocus onfocus=alert(1)>",
    '<object data="javascript:alert(1)">',
    "<meta http-equiv=refresh content='0;url=javascript:alert(1)'>",
    "[x]: javascript:alert(1)\n\n[link][x]",
    "<a href='vbscript:msgbox(1)'>x</a>",
    "::: spoiler <img src=x onerror=alert(1)>\nhidden\n:::",
    "[spoiler=<script>alert(1)</script>]\nx\n[/spoiler]",
    "```\n<script>alert(1)</script>\n```",
    "`<script>alert(1)</script>`",
    "<!-- <script>alert(1)</script> -->",
    "<details open ontoggle=alert(1)>",
    "\x00<script>alert(1)</script>",
]

SAFE_TAGS = {
    "p", "br", "hr", "strong", "em", "b", "i", "s", "del", "code", "pre", "blockquote", "ul", "ol", "li",
    "h1", "h2", "h3", "h4", "h5", "h6", "a", "img", "table", "thead", "tbody", "tr", "th", "td",
    "details", "summary",
}  # fmt: skip
SAFE_SCHEMES = ("http://", "https://", "mailto:")


class _Inspector(HTMLParser):
    """Parses the output as a browser would and records every tag and attribute it would act on."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in SAFE_TAGS:
            self.problems.append(f"tag <{tag}>")
        for name, value in attrs:
            value = (value or "").strip()
            if name.startswith("on") or (name in {"style", "srcdoc", "formaction"} and tag not in {"th", "td"}):
                self.problems.append(f"attribute {name} on <{tag}>")
            if name in {"href", "src"}:
                lowered = "".join(value.split()).lower()
                if ":" in lowered.split("/")[0] and not lowered.startswith(SAFE_SCHEMES):
                    self.problems.append(f"{name}={value!r}")


def assert_safe(html: str) -> None:
    inspector = _Inspector()
    inspector.feed(html)
    inspector.close()
    assert not inspector.problems, f"{inspector.problems} in {html!r}"


@pytest.mark.parametrize("source", XSS_CORPUS)
def test_xss_corpus_renders_safe(source: str) -> None:
    assert_safe(render_markdown(source))


def test_external_links_get_nofollow_noopener() -> None:
    html = render_markdown("[mapa](https://example.org/mapa)")
    assert 'href="https://example.org/mapa"' in html
    assert 'rel="nofollow noopener noreferrer"' in html


def test_ordinary_markdown_survives() -> None:
    html = render_markdown("# Título\n\n**negrita**, *cursiva*, ~~tachado~~\n\n> cita\n\n- uno\n- dos")
    for fragment in ("<h1>", "<strong>negrita</strong>", "<em>cursiva</em>", "<s>tachado</s>", "<blockquote>", "<li>"):
        assert fragment in html


def test_spoiler_blocks_become_details() -> None:
    html = render_markdown("antes\n\n::: spoiler El final\nel mayordomo\n:::\n\ndespués")
    assert '<details class="spoiler"><summary>El final</summary>' in html
    assert "el mayordomo" in html
    assert html.index("antes") < html.index("<details") < html.index("después")


def test_forum_style_spoiler_and_nesting() -> None:
    html = render_markdown("[spoiler]\nuno\n[spoiler=dos]\ntres\n[/spoiler]\n[/spoiler]")
    assert html.count("<details") == 2
    assert "<summary>dos</summary>" in html


def test_unclosed_spoiler_closes_at_end() -> None:
    html = render_markdown("::: spoiler\nsin cerrar")
    assert html.count("<details") == html.count("</details>") == 1


def test_oversize_source_is_refused() -> None:
    with pytest.raises(ValueError):
        render_markdown("x" * (MAX_SOURCE_LENGTH + 1))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("<>\"'=/:;() []!&#*_`~-\nascriptjvonerrorimgdatahref")), max_size=200))
def test_random_markup_never_yields_active_content(source: str) -> None:
    assert_safe(render_markdown(source))


@pytest.mark.parametrize(
    "html",
    [
        "<script>x</script>",
        '<img src="x" onerror="alert(1)">',
        '<a href="javascript:alert(1)">x</a>',
        '<a href=" JaVa script:alert(1)">x</a>',
        '<img src="data:image/svg+xml,x">',
        '<p style="color:red">x</p>',
    ],
)
def test_the_inspector_itself_catches_active_content(html: str) -> None:
    with pytest.raises(AssertionError):
        assert_safe(html)
