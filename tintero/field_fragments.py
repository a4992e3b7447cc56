"""Form fields rendered once and kept: the composer's fields cost more than the rest of a thread page.

Django renders each field through its form templates (about 0.7 ms a field here). An unbound form shows
the same HTML for the same inputs, so it is kept (tintero.fragments) under a digest of everything
the field templates read from the form: each field's names, label, help text, initial value, choices,
widget attributes and flags, and the language. A bound form (one with the user's input and its errors)
is always rendered afresh.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from django import forms
from django.utils import translation
from django.utils.html import format_html_join
from django.utils.safestring import SafeString, mark_safe

from tintero.fragments import KeptFragments, digest


def _words(value: object) -> object:
    """Lazy translations and nested choices as plain, comparable values."""
    if isinstance(value, list | tuple):
        return tuple(_words(item) for item in value)
    if isinstance(value, dict):
        return tuple(sorted((str(key), _words(item)) for key, item in value.items()))
    if value is None or isinstance(value, bool | int | float):
        return value
    return str(value)


def _field_inputs(field: forms.BoundField) -> tuple[object, ...]:
    widget = field.field.widget
    return (
        field.name,
        field.html_name,
        field.auto_id,
        type(field.field).__qualname__,
        type(widget).__qualname__,
        _words(field.label),
        _words(field.help_text),
        _words(field.value()),
        _words(list(getattr(field.field, "choices", ()))),
        _words(widget.attrs),
        field.field.required,
        field.field.disabled,
        field.field.show_hidden_initial,
    )


def _render(fields: Iterable[forms.BoundField]) -> SafeString:
    return format_html_join(
        "",
        '<div class="field field-{}{}">{}</div>',
        ((field.name, " has-error" if field.errors else "", field.as_field_group()) for field in fields),
    )


def field_groups(form: forms.BaseForm, fields: Sequence[forms.BoundField]) -> SafeString:
    """``fields`` of ``form``, each in its ``<div class="field field-<name>">``: kept when the form is unbound."""
    if form.is_bound or not fields:
        return _render(fields)
    inputs = (type(form).__qualname__, form.prefix, translation.get_language(), [_field_inputs(f) for f in fields])
    key = f"fields:{digest(inputs)}"
    fragments = KeptFragments([key])
    html = fragments.make(key, lambda: str(_render(fields)))
    fragments.store()
    return mark_safe(html)  # rendered by Django's form templates above


__all__ = ["field_groups"]
