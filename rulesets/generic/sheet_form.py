"""Generic games: the sheet is free-form notes."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _


class SheetForm(forms.Form):
    notes = forms.CharField(
        label=_("Hoja"),
        required=False,
        max_length=20_000,
        widget=forms.Textarea(attrs={"rows": 12}),
        help_text=_("Este sistema no tiene hoja fija: escribe aquí características, habilidades y equipo."),
    )

    def __init__(
        self, data: Any = None, *, sheet: dict[str, Any] | None = None, settings: Any = None, is_npc: bool = False
    ) -> None:
        super().__init__(data, initial=dict(sheet or {}))

    def to_sheet(self) -> dict[str, Any]:
        return {"notes": self.cleaned_data["notes"]}
