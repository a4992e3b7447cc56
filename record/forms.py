"""The search form (the filters of ``record.selectors.SearchCriteria``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from record.selectors import SearchCriteria


class SearchForm(forms.Form):
    q = forms.CharField(label=_("Buscar"), max_length=200, strip=True)
    campaign = forms.TypedChoiceField(label=_("Partida"), coerce=int, required=False, empty_value=None)
    scene = forms.TypedChoiceField(label=_("Escena"), coerce=int, required=False, empty_value=None)
    character = forms.TypedChoiceField(label=_("Personaje"), coerce=int, required=False, empty_value=None)
    author = forms.CharField(label=_("Autor (nombre de usuario)"), max_length=150, required=False, strip=True)
    voice = forms.ChoiceField(
        label=_("Voz"),
        required=False,
        choices=[("", _("Cualquiera")), ("ic", _("En personaje")), ("ooc", _("Fuera de personaje"))],
    )
    part = forms.ChoiceField(
        label=_("Buscar en"),
        required=False,
        choices=[
            ("", _("Texto y notas de juego")),
            ("body", _("Solo el texto")),
            ("notes", _("Solo las notas de juego")),
        ],
    )
    with_rolls = forms.BooleanField(label=_("Solo mensajes con tiradas"), required=False)
    since = forms.DateField(label=_("Desde"), required=False, widget=forms.DateInput(attrs={"type": "date"}))
    until = forms.DateField(label=_("Hasta"), required=False, widget=forms.DateInput(attrs={"type": "date"}))

    def __init__(
        self,
        *args: Any,
        campaigns: Sequence[tuple[int, str]] = (),
        scenes: Sequence[tuple[int, str]] = (),
        characters: Sequence[tuple[int, str]] = (),
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        everything = [("", _("Todas"))]
        self.fields["campaign"].choices = [*everything, *campaigns]  # type: ignore[attr-defined]
        self.fields["scene"].choices = [*everything, *scenes]  # type: ignore[attr-defined]
        self.fields["character"].choices = [("", _("Cualquiera")), *characters]  # type: ignore[attr-defined]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        since, until = cleaned.get("since"), cleaned.get("until")
        if since and until and since > until:
            self.add_error("until", _("La fecha final es anterior a la inicial."))
        return cleaned

    def criteria(self) -> SearchCriteria:
        data = self.cleaned_data
        return SearchCriteria(
            text=data["q"],
            campaign_id=data.get("campaign"),
            scene_id=data.get("scene"),
            author=data.get("author") or "",
            character_id=data.get("character"),
            voice=data.get("voice") or "",
            part=data.get("part") or "",
            with_rolls=bool(data.get("with_rolls")),
            since=data.get("since"),
            until=data.get("until"),
        )


class ImportForm(forms.Form):
    archive = forms.FileField(
        label=_("Archivo de partida (JSON)"),
        help_text=_("Un archivo descargado de Tintero con «Descargar la partida». Serás su máster."),
    )
    invite = forms.CharField(
        label=_("Invitar a"),
        required=False,
        max_length=5000,
        help_text=_(
            "Nombres de usuario de miembros del archivo, separados por espacios o comas: se les invita con su papel "
            "(nunca como máster). A nadie más se le invita."
        ),
    )

    def clean_invite(self) -> list[str]:
        text = self.cleaned_data.get("invite") or ""
        return sorted({handle.lstrip("@") for handle in text.replace(",", " ").split() if handle.lstrip("@")})


class ArchiveForm(forms.Form):
    reveal_whispers = forms.BooleanField(
        label=_("Revelar los susurros a toda la mesa"),
        required=False,
        help_text=_("Cada miembro podrá leer todos los susurros de la partida, como en las partidas de foro clásicas."),
    )
