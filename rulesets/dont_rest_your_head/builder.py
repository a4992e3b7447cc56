"""The composer's No te Duermas roll: the protagonist's pools (discipline, exhaustion and permanent madness
from the sheet, temporary madness chosen), a helper's discipline dice, a whole conflict against pain dice,
or the GM's pain dice (a count, or the opponents' pain scores). GMs may make the roll secret.

The voluntary +1 exhaustion and the adjustments (hope, shading) belong to a conflict: the builder points
there (``Procedimientos``), since they change the sheet and the chests through the ledger."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from characters.models import Character
from rolls.services import RollSpec
from rulesets.dont_rest_your_head.sheet import is_opposition

KINDS = [
    ("", _("Sin tirada")),
    ("leader", _("Tirada del protagonista")),
    ("helper", _("Tirada de ayuda (disciplina)")),
    ("conflict", _("Conflicto completo contra dolor")),
]
GM_KINDS = [("pain", _("Tirada de dolor"))]
NEEDS_CHARACTER = frozenset({"leader", "helper"})
NEEDS_PAIN = frozenset({"conflict", "pain"})


def _opponents(text: str) -> list[int]:
    return [int(part) for part in text.replace(";", ",").replace(" ", ",").split(",") if part.strip()]


def _pools_label(character: Character) -> str:
    sheet = character.sheet or {}
    if is_opposition(sheet):
        return f"{character.name} (dolor {sheet.get('pain')})"
    return (
        f"{character.name} (disciplina {sheet.get('discipline', 3)}, agotamiento {sheet.get('exhaustion', 0)}, "
        f"locura permanente {sheet.get('permanent_madness', 0)})"
    )


class RollBuilderForm(forms.Form):
    kind = forms.ChoiceField(label=_("Tirada"), choices=KINDS, required=False)
    character = forms.TypedChoiceField(label=_("Protagonista"), coerce=int, required=False, empty_value=None)
    temp_madness = forms.IntegerField(
        label=_("Locura temporal"),
        min_value=0,
        max_value=6,
        initial=0,
        required=False,
        help_text=_("0 a 6 dados rojos para esta tirada; los de locura permanente se tiran siempre."),
    )
    minor_use = forms.BooleanField(
        label=_("Uso menor del talento de agotamiento"),
        required=False,
        help_text=_("Éxito mínimo igual al agotamiento."),
    )
    pain = forms.IntegerField(label=_("Dados de dolor"), min_value=1, max_value=30, required=False)
    opponents = forms.CharField(
        label=_("o dolor de cada oponente"),
        max_length=80,
        required=False,
        help_text=_("Calcular: el mayor, +1 por oponente (+2 si empata con el mayor). Ej.: 2,2"),
    )
    gm_only = forms.BooleanField(label=_("Tirada secreta"), required=False)
    label = forms.CharField(label=_("Etiqueta"), max_length=120, required=False)

    def __init__(
        self,
        data: Any = None,
        *,
        prefix: str = "roll",
        characters: Iterable[Character] = (),
        is_gm: bool = False,
        settings: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(data, prefix=prefix, **kwargs)
        self.is_gm = is_gm
        self.characters = {c.pk: c for c in characters if not is_opposition(c.sheet or {})}
        self.fields["character"].choices = [("", "—")] + [(c.pk, _pools_label(c)) for c in self.characters.values()]
        if is_gm:
            self.fields["kind"].choices = [*KINDS, *GM_KINDS]
        else:
            del self.fields["gm_only"]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        kind = data.get("kind")
        if not kind:
            return data
        needs_character = kind in NEEDS_CHARACTER or (kind == "conflict" and not self.is_gm)
        if needs_character and self.characters.get(data.get("character") or 0) is None:
            self.add_error("character", _("Elige el protagonista que tira."))
        if kind in NEEDS_PAIN:
            try:
                opponents = _opponents(data.get("opponents") or "")
            except ValueError:
                self.add_error("opponents", _("Escribe el dolor de cada oponente separado por comas."))
                return data
            if any(n < 1 for n in opponents):
                self.add_error("opponents", _("El dolor debe ser de al menos 1 dado."))
            if data.get("pain") is None and not opponents:
                self.add_error("pain", _("Indica los dados de dolor o el dolor de cada oponente."))
            data["opponent_list"] = opponents
        return data

    def roll_specs(self) -> list[RollSpec]:
        data = self.cleaned_data
        kind = data.get("kind")
        if not kind:
            return []
        label = data.get("label") or ""
        gm_only = bool(data.get("gm_only"))
        character_id = data.get("character") if data.get("character") in self.characters else None
        pain = {"pain": data["pain"]} if data.get("pain") is not None else {}
        if data.get("opponent_list"):
            pain = {"opponents": data["opponent_list"]}
        if kind == "pain":
            return [RollSpec(kind="pain", data=pain, label=label, gm_only=gm_only)]
        if kind == "helper":
            return [RollSpec(kind="helper", data={}, character_id=character_id, label=label, gm_only=gm_only)]
        if kind == "leader":
            payload = {"temp_madness": data.get("temp_madness") or 0}
            return [RollSpec(kind="leader", data=payload, character_id=character_id, label=label, gm_only=gm_only)]
        payload = {"temp_madness": data.get("temp_madness") or 0, **pain}
        if data.get("minor_use"):
            payload["talent_use"] = "minor"
        return [RollSpec(kind="conflict", data=payload, character_id=character_id, label=label, gm_only=gm_only)]
