"""Models whose Markdown texts keep their sanitized HTML beside them, rendered when the row is saved.

A page shows ``<field>_html`` and never renders Markdown while it serves: a text that is slow to render
costs its author once, at write time, not every reader on every view. A text the renderer refuses (too
long, nested too deeply) is a ValidationError on that field, which forms and the API show as such.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, ClassVar, Self

from django.core.exceptions import ValidationError
from django.db import models
from django.utils.html import linebreaks

from campaigns.markdown import RENDERER_VERSION, MarkdownRefused, render_markdown


def render_field(field: str, source: str) -> str:
    """One field's stored HTML, or a ValidationError naming the field with the renderer's reason."""
    try:
        return render_markdown(source) if source else ""
    except MarkdownRefused as refused:
        raise ValidationError({field: str(refused)}) from None


class StoredMarkdown(models.Model):
    """Abstract base: each name in ``markdown_fields`` has a ``<name>_html`` text field on the model."""

    markdown_fields: ClassVar[tuple[str, ...]] = ()
    markdown_version = models.PositiveSmallIntegerField(default=0, editable=False)

    class Meta:
        abstract = True

    def save(self, *args: Any, **kwargs: Any) -> None:
        changed = self.render_markdown_fields()
        if kwargs.get("update_fields") is not None and changed:
            kwargs["update_fields"] = {*kwargs["update_fields"], *changed}
        super().save(*args, **kwargs)

    @classmethod
    def from_db(cls, db: str | None, field_names: Collection[str], values: Collection[Any], **kwargs: Any) -> Self:
        instance = super().from_db(db, field_names, values, **kwargs)
        # What the stored HTML was rendered from: saves that do not change a text do not re-render it.
        instance._markdown_rendered = {
            name: getattr(instance, name) for name in cls.markdown_fields if name in instance.__dict__
        }
        return instance

    def render_markdown_fields(self) -> list[str]:
        """Render every loaded text that changed (or every one, after a renderer upgrade); the fields set."""
        rendered: dict[str, str] = getattr(self, "_markdown_rendered", {})
        current = self.markdown_version == RENDERER_VERSION
        deferred = self.get_deferred_fields()
        changed: list[str] = []
        for name in self.markdown_fields:
            if name in deferred:
                continue
            source = getattr(self, name) or ""
            if current and name in rendered and rendered[name] == source:
                continue
            setattr(self, f"{name}_html", render_field(name, source))
            rendered[name] = source
            changed.append(f"{name}_html")
        self._markdown_rendered = rendered
        if changed and not deferred & set(self.markdown_fields):
            self.markdown_version = RENDERER_VERSION
            changed.append("markdown_version")
        return changed


def backfill_rendered_html(model: Any, fields: tuple[str, ...], batch_size: int = 500) -> None:
    """Render the stored HTML of rows saved before the renderer's current version (data migrations use
    it with their historical model). A text the renderer now refuses (stored before the limits existed)
    keeps its words as escaped paragraphs instead of failing the migration."""
    stale = model.objects.exclude(markdown_version=RENDERER_VERSION).only("pk", *fields).order_by("pk")
    batch: list[Any] = []
    for row in stale.iterator(chunk_size=batch_size):
        for name in fields:
            source = getattr(row, name) or ""
            try:
                html = render_markdown(source) if source else ""
            except MarkdownRefused:
                html = linebreaks(source, autoescape=True)
            setattr(row, f"{name}_html", html)
        row.markdown_version = RENDERER_VERSION
        batch.append(row)
        if len(batch) >= batch_size:
            model.objects.bulk_update(batch, [*(f"{name}_html" for name in fields), "markdown_version"])
            batch = []
    if batch:
        model.objects.bulk_update(batch, [*(f"{name}_html" for name in fields), "markdown_version"])
