"""The readable book of a campaign: one self-contained HTML file (inline CSS, images as data: URIs) or an EPUB
(a zip built here: no extra package). Scenes are chapters; posts carry their dice; game notes are set apart.
Only what the exporter may read, through the same Exporter as the archive; posts are rendered in batches."""

from __future__ import annotations

import html
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from io import BytesIO
from typing import Any

from django.template.loader import render_to_string
from django.utils import timezone

from campaigns.models import Post, PostKind
from record.export import BATCH, Exporter, data_uri
from rolls.selectors import record_views, rolls_for_posts


@dataclass(frozen=True)
class Chapter:
    number: int
    scene: dict[str, Any]


def _portraits(exporter: Exporter) -> dict[int, str]:
    """Character id -> data: URI of its portrait, for the characters the exporter may see."""
    portraits = {}
    for character in exporter.characters():
        uri = data_uri(character.portrait)
        if uri:
            portraits[character.pk] = uri
    return portraits


def _decorated(exporter: Exporter, posts: list[Post], language: str) -> list[Post]:
    """Each post with the rolls and the procedure record the exporter may see (constant queries a batch)."""
    ids = [post.pk for post in posts]
    rolls = rolls_for_posts(exporter.viewer, ids, language)
    records = record_views(exporter.viewer, [p.pk for p in posts if p.kind == PostKind.PROCEDURE], language)
    for post in posts:
        post.roll_views = rolls.get(post.pk, [])  # type: ignore[attr-defined]
        post.record = records.get(post.pk)  # type: ignore[attr-defined]
    return posts


def _scene_posts(exporter: Exporter, scene_id: int, language: str) -> Iterator[list[Post]]:
    batch: list[Post] = []
    for post in exporter.posts().filter(scene_id=scene_id).iterator(chunk_size=BATCH):
        batch.append(post)
        if len(batch) == BATCH:
            yield _decorated(exporter, batch, language)
            batch = []
    if batch:
        yield _decorated(exporter, batch, language)


def _chapters(exporter: Exporter) -> list[Chapter]:
    return [Chapter(number, scene) for number, scene in enumerate(exporter.scenes(), start=1)]


def _context(exporter: Exporter, language: str) -> dict[str, Any]:
    return {
        "campaign": exporter.campaign,
        "members": exporter.members(),
        "language": language,
        "exported_at": timezone.now(),
        "css": render_to_string("record/book.css"),
    }


def html_book(exporter: Exporter, language: str) -> Iterator[str]:
    """The HTML book, chunk by chunk: the head, then each chapter's posts in batches."""
    portraits = _portraits(exporter)
    chapters = _chapters(exporter)
    context = {**_context(exporter, language), "portraits": portraits, "chapters": chapters}
    yield render_to_string("record/book_head.html", context)
    for chapter in chapters:
        yield render_to_string("record/_book_chapter.html", {"chapter": chapter})
        for posts in _scene_posts(exporter, chapter.scene["id"], language):
            yield render_to_string("record/_book_posts.html", {"posts": posts, "portraits": portraits})
        yield "</section>\n"
    yield "</main></body></html>\n"


# --- EPUB ---------------------------------------------------------------------------------------------------

_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class _Xhtml(HTMLParser):
    """Re-serialize sanitized HTML as well-formed XHTML (EPUB readers parse chapters as XML)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.open: list[str] = []

    def _attrs(self, attrs: list[tuple[str, str | None]]) -> str:
        return "".join(f' {name}="{html.escape(value or name, quote=True)}"' for name, value in attrs)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _VOID:
            self.out.append(f"<{tag}{self._attrs(attrs)}/>")
        else:
            self.out.append(f"<{tag}{self._attrs(attrs)}>")
            self.open.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.out.append(f"<{tag}{self._attrs(attrs)}/>")

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID or tag not in self.open:
            return
        while self.open:  # close whatever was left open inside it
            top = self.open.pop()
            self.out.append(f"</{top}>")
            if top == tag:
                break

    def handle_data(self, data: str) -> None:
        self.out.append(html.escape(data, quote=False))

    def result(self) -> str:
        self.close()
        return "".join(self.out) + "".join(f"</{tag}>" for tag in reversed(self.open))


def as_xhtml(fragment: str) -> str:
    parser = _Xhtml()
    parser.feed(fragment)
    return parser.result()


def epub_book(exporter: Exporter, language: str) -> bytes:
    """The EPUB 3 book: mimetype first and stored, then the container, the package, the navigation and one
    XHTML chapter per scene (portraits as data: URIs inside)."""
    portraits = _portraits(exporter)
    chapters = _chapters(exporter)
    context = {**_context(exporter, language), "portraits": portraits, "chapters": chapters}
    buffer = BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as epub:
        epub.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        epub.writestr("META-INF/container.xml", render_to_string("record/epub/container.xml"))
        epub.writestr("OEBPS/content.opf", render_to_string("record/epub/content.opf", context))
        epub.writestr("OEBPS/nav.xhtml", render_to_string("record/epub/nav.xhtml", context))
        epub.writestr("OEBPS/style.css", context["css"])
        epub.writestr("OEBPS/title.xhtml", render_to_string("record/epub/title.xhtml", context))
        for chapter in chapters:
            parts = [
                render_to_string("record/_book_posts.html", {"posts": posts, "portraits": portraits})
                for posts in _scene_posts(exporter, chapter.scene["id"], language)
            ]
            page = render_to_string(
                "record/epub/chapter.xhtml", {**context, "chapter": chapter, "body": as_xhtml("".join(parts))}
            )
            epub.writestr(f"OEBPS/chapter-{chapter.number}.xhtml", page)
    return buffer.getvalue()
