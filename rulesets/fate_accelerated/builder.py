"""The composer's Fate Accelerated roll: action, character, approach (rating from the sheet), stunts,
help, and a difficulty (empty: active opposition, a Defend comes later). GMs may keep the difficulty
secret (players see the outcome only) or make the whole roll secret, and roll bare 4dF for a mook."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from characters.models import Character
from rolls.services import RollSpec
from systems.fate_accelerated.actions import Approach
from systems.fate_accelerated.roll_kinds import FATE_DICE

KINDS = [
    ("", _("Sin tirada")),
    ("overcome", _("Superar")),
    ("create_advantage", _("Crear una ventaja")),
    ("attack", _("Atacar")),
    ("defend", _("Defender")),
]
APPROACHES = [
    (Approach.CAREFUL.value, _("Cauto")),
    (Approach.CLEVER.value, _("Ingenioso")),
    (Approach.SNEAKY.value, _("Furtivo")),
    (Approach.FLASHY.value, _("Llamativo")),
    (Approach.QUICK.value, _("Rápido")),
    (Approach.FORCEFUL.value, _("Vigoroso")),
]


def _rating(character: Character, approach: str) -> int | None:
    value = (character.sheet or {}).get("approaches", {}).get(approach)
    return int(value) if isinstance(value, int) else None


class RollBuilderForm(forms.Form):
    kind = forms.ChoiceField(label=_("Acción"), choices=KINDS, required=False)
    character = forms.TypedChoiceField(label=_("Personaje"), coerce=int, required=False, empty_value=None)
    approach = forms.ChoiceField(label=_("Estilo"), choices=APPROACHES, required=False)
    stunts = forms.MultipleChoiceField(
        label=_("Proezas"),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("+2 cada una si se aplica."),
    )
    helpers = forms.IntegerField(label=_("Aliados que ayudan"), min_value=0, max_value=10, initial=0, required=False)
    difficulty = forms.IntegerField(
        label=_("Dificultad"),
        min_value=-10,
        max_value=30,
        required=False,
        help_text=_("Vacía: oposición activa (el oponente tira Defender)."),
    )
    modifier = forms.IntegerField(label=_("Modificador (4dF)"), min_value=-10, max_value=20, required=False)
    difficulty_secret = forms.BooleanField(
        label=_("Dificultad secreta"), required=False, help_text=_("Los jugadores ven el resultado, nunca el número.")
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
        self.characters = {c.pk: c for c in characters}
        self.fields["character"].choices = [("", "—")] + [(c.pk, c.name) for c in self.characters.values()]
        approach_choices = []
        for value, label in APPROACHES:
            ratings = [f"{c.name} {r:+d}" for c in self.characters.values() if (r := _rating(c, value)) is not None]
            approach_choices.append((value, f"{label} ({', '.join(ratings)})" if ratings else label))
        self.fields["approach"].choices = approach_choices
        stunt_choices = []
        for c in self.characters.values():
            for stunt in (c.sheet or {}).get("stunts", []):
                if stunt.get("template") == "bonus" and stunt.get("key"):
                    text = stunt.get("circumstance") or stunt.get("because") or ""
                    stunt_choices.append((f"{c.pk}:{stunt['key']}", f"{c.name} · {stunt['key']}: {text}"[:150]))
        self.fields["stunts"].choices = stunt_choices
        if is_gm:
            self.fields["kind"].choices = [*KINDS, (FATE_DICE, _("Dados Fate (4dF)"))]
        else:
            for name in ("difficulty_secret", "gm_only", "modifier"):
                del self.fields[name]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        kind = data.get("kind")
        if not kind:
            return data
        if kind == FATE_DICE:
            return data
        character = self.characters.get(data.get("character") or 0)
        if character is None:
            self.add_error("character", _("Elige el personaje que tira."))
        if not data.get("approach"):
            self.add_error("approach", _("Elige el estilo."))
        if kind == "defend" and data.get("difficulty") is not None:
            self.add_error("difficulty", _("Defender es una reacción: no lleva dificultad."))
        if character is not None:
            wrong = [s for s in data.get("stunts", []) if not s.startswith(f"{character.pk}:")]
            if wrong:
                self.add_error("stunts", _("Esas proezas son de otro personaje."))
        if data.get("difficulty_secret") and data.get("difficulty") is None:
            self.add_error("difficulty", _("Una dificultad secreta necesita un número."))
        return data

    def roll_specs(self) -> list[RollSpec]:
        data = self.cleaned_data
        kind = data.get("kind")
        if not kind:
            return []
        secret = {"difficulty_secret": True} if data.get("difficulty_secret") else {}
        difficulty = {"difficulty": data["difficulty"]} if data.get("difficulty") is not None else {}
        label = data.get("label") or ""
        gm_only = bool(data.get("gm_only"))
        if kind == FATE_DICE:
            payload = {"modifier": data.get("modifier") or 0, **difficulty, **(secret if difficulty else {})}
            return [RollSpec(kind=kind, data=payload, label=label, gm_only=gm_only)]
        payload = {
            "approach": data["approach"],
            "stunts": [s.split(":", 1)[1] for s in data.get("stunts", [])],
            "helpers": data.get("helpers") or 0,
            **difficulty,
            **(secret if difficulty else {}),
        }
        return [RollSpec(kind=kind, data=payload, character_id=data["character"], label=label, gm_only=gm_only)]
