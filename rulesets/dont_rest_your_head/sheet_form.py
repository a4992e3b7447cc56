"""No te Duermas: the protagonist's sheet as its player writes it (talents and the questions of the sheet).

Creation fixes the numbers (discipline 3, exhaustion 0, response boxes clear, no permanent madness, no
scars), so the form asks only what the player chooses. An NPC of the opposition is a pain score.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _
from pydantic import ValidationError as PydanticValidationError

from rulesets.dont_rest_your_head.sheet import QUESTION_KEYS, QUESTION_MAX, is_opposition
from systems.dont_rest_your_head.sheet import PriceRule

QUESTION_LABELS = {
    "awake": _("¿Qué te ha mantenido despierto?"),
    "just_happened": _("¿Qué te acaba de pasar?"),
    "surface": _("¿Qué hay en la superficie?"),
    "beneath": _("¿Qué hay debajo?"),
    "path": _("¿Cuál es tu camino?"),
}
QUESTION_HELP = {
    "awake": _("Por qué no duermes: lo que te quita el sueño desde hace días."),
    "just_happened": _("Qué acaba de ocurrirte para que despiertes a la Ciudad de la Locura."),
    "surface": _("Lo que cualquiera ve de ti a primera vista."),
    "beneath": _("Lo que escondes bajo esa superficie."),
    "path": _("Hacia dónde vas: lo que buscas o lo que quieres cambiar."),
}
PRICE_CHOICES = [
    ("gm_sets", _("Lo fija el DJ en cada uso (de 1 a 6 dados)")),
    ("fixed", _("Fijo: siempre N dados")),
    ("at_least", _("Al menos N dados")),
    ("range", _("Entre un mínimo y un máximo de dados")),
    ("player_sets", _("Lo decide el jugador según la gravedad")),
]
CREATION_RULES = _(
    "Al crear el protagonista: disciplina 3, agotamiento 0, casillas de lucha y huida sin marcar, sin locura "
    "permanente y sin cicatrices. Eliges un talento de agotamiento, un talento de locura y respondes a las "
    "preguntas de la hoja; todo es obligatorio para enviar la hoja al DJ."
)


def _dice(label: Any, help_text: Any = "") -> forms.IntegerField:
    return forms.IntegerField(label=label, required=False, min_value=1, max_value=6, help_text=help_text)


class SheetForm(forms.Form):
    creation_rules = CREATION_RULES

    exhaustion_talent_name = forms.CharField(
        label=_("Talento de agotamiento"),
        max_length=120,
        required=False,
        help_text=_(
            "Obligatorio para enviar la hoja. Algo mundano que haces de forma sobrenatural (Apostar, Atleta, "
            "Vista de Lince, Pistolero…). Uso menor: tu grado es al menos tu agotamiento. Uso mayor: +1 de "
            "agotamiento antes de tirar y sumas tu agotamiento en éxitos."
        ),
    )
    exhaustion_talent_description = forms.CharField(
        label=_("Descripción del talento de agotamiento"),
        max_length=2000,
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
    )
    madness_talent_name = forms.CharField(
        label=_("Talento de locura"),
        max_length=120,
        required=False,
        help_text=_(
            "Obligatorio para enviar la hoja. Un poder imposible (Teletransporte, Piel de Piedra, Preparación…). "
            "Cada uso cuesta dados de locura temporal; los de locura permanente no cuentan."
        ),
    )
    madness_talent_description = forms.CharField(
        label=_("Descripción del talento de locura"),
        max_length=2000,
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
    )
    madness_price_kind = forms.ChoiceField(
        label=_("Precio del talento de locura"),
        choices=PRICE_CHOICES,
        initial="gm_sets",
        help_text=_("En dados de locura temporal. Por defecto lo fija el DJ en cada uso."),
    )
    madness_price_n = _dice(_("N dados"), _("Para «fijo» y «al menos»."))
    madness_price_min = _dice(_("Mínimo de dados"), _("Para «entre un mínimo y un máximo»."))
    madness_price_max = _dice(_("Máximo de dados"))

    def __init__(
        self, data: Any = None, *, sheet: dict[str, Any] | None = None, settings: Any = None, is_npc: bool = False
    ) -> None:
        self.sheet = dict(sheet or {})
        self.is_npc = is_npc
        # An NPC is opposition (a pain score) unless its sheet is a protagonist's (a former PC).
        self.opposition = is_npc and (not self.sheet or is_opposition(self.sheet))
        super().__init__(data, initial=self._initial())
        if self.opposition:
            for name in list(self.fields):
                del self.fields[name]
            self.fields["pain"] = forms.IntegerField(
                label=_("Puntuación de dolor"),
                min_value=1,
                max_value=30,
                initial=1,
                help_text=_(
                    "Los dados de dolor que tira esta oposición. Multa de tráfico ≈ 1; el dragón del sótano "
                    "de la morgue ≈ 10. Varios a la vez: el más alto, +1 por cada otro (+2 si empata con él)."
                ),
            )
            return
        for key in QUESTION_KEYS:
            self.fields[f"question_{key}"] = forms.CharField(
                label=QUESTION_LABELS[key],
                max_length=QUESTION_MAX,
                required=False,
                help_text=QUESTION_HELP[key],
                widget=forms.Textarea(attrs={"rows": 2}),
            )

    def _initial(self) -> dict[str, Any]:
        if self.opposition:
            return {"pain": self.sheet.get("pain", 1)}
        exhaustion = self.sheet.get("exhaustion_talent") or {}
        madness = self.sheet.get("madness_talent") or {}
        price = madness.get("price_rule") or {}
        initial: dict[str, Any] = {
            "exhaustion_talent_name": exhaustion.get("name", ""),
            "exhaustion_talent_description": exhaustion.get("description", ""),
            "madness_talent_name": madness.get("name", ""),
            "madness_talent_description": madness.get("description", ""),
            "madness_price_kind": price.get("kind", "gm_sets"),
            "madness_price_n": price.get("n"),
            "madness_price_min": price.get("min"),
            "madness_price_max": price.get("max"),
        }
        questions = self.sheet.get("questions") or {}
        for key in QUESTION_KEYS:
            initial[f"question_{key}"] = questions.get(key, "")
        return initial

    @property
    def question_fields(self) -> list[forms.BoundField]:
        return [self[f"question_{key}"] for key in QUESTION_KEYS if f"question_{key}" in self.fields]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if self.opposition or "madness_price_kind" not in cleaned:
            return cleaned
        kind = cleaned["madness_price_kind"]
        try:
            PriceRule.model_validate(self._price(cleaned))
        except PydanticValidationError:
            if kind in ("fixed", "at_least"):
                self.add_error("madness_price_n", _("Indica cuántos dados (de 1 a 6)."))
            else:
                self.add_error("madness_price_max", _("Indica un mínimo y un máximo, con el mínimo no mayor."))
        return cleaned

    @staticmethod
    def _price(cleaned: dict[str, Any]) -> dict[str, Any]:
        kind = cleaned["madness_price_kind"]
        return {
            "kind": kind,
            "n": cleaned.get("madness_price_n") if kind in ("fixed", "at_least") else None,
            "min": cleaned.get("madness_price_min") if kind == "range" else None,
            "max": cleaned.get("madness_price_max") if kind == "range" else None,
        }

    def to_sheet(self) -> dict[str, Any]:
        """The sheet to store: what the form edits on top of what it does not (tracks, scars...)."""
        data = self.cleaned_data
        if self.opposition:
            return {**self.sheet, "pain": data["pain"]}
        return {
            **self.sheet,
            "exhaustion_talent": {
                "name": data["exhaustion_talent_name"],
                "description": data["exhaustion_talent_description"],
            },
            "madness_talent": {
                "name": data["madness_talent_name"],
                "description": data["madness_talent_description"],
                "price_rule": self._price(data),
            },
            "questions": {key: data[f"question_{key}"] for key in QUESTION_KEYS},
        }
