"""The composer's Fate Accelerated roll: action, character, approach (rating from the sheet), stunts,
help, and a difficulty (empty: active opposition, a Defend comes later). GMs may keep the difficulty
secret (players see the outcome only) or make the whole roll secret, and roll bare 4dF for a mook.

It follows the ``RollBuilder`` contract (``rulesets.kit.rolls``): what the writer may choose comes from the
policy's ``RollPowers``, the character starts at the writer's only character, and ``fields_by_kind`` says
which fields each roll type uses (the composer shows only those)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django import forms
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from campaigns.policy import RollPowers
from characters.models import Character
from rulesets.fate_accelerated.rolls import stunt_sentence
from rulesets.kit.rolls import RollSpec
from systems.fate_accelerated.actions import Approach
from systems.fate_accelerated.roll_kinds import FATE_DICE
from systems.fate_accelerated.stunts import Stunt

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


ACTION_FIELDS = ("character", "approach", "stunts", "helpers", "difficulty", "difficulty_secret", "gm_only", "label")
FIELDS_BY_KIND: dict[str, tuple[str, ...]] = {
    "": (),
    "overcome": ACTION_FIELDS,
    "create_advantage": ACTION_FIELDS,
    "attack": ACTION_FIELDS,
    "defend": ("character", "approach", "stunts", "helpers", "gm_only", "label"),  # a reaction: no difficulty
    FATE_DICE: ("modifier", "difficulty", "difficulty_secret", "gm_only", "label"),
}


def _rating(character: Character, approach: str) -> int | None:
    value = (character.sheet or {}).get("approaches", {}).get(approach)
    return int(value) if isinstance(value, int) else None


class RollBuilderForm(forms.Form):
    kind_field = "kind"
    fields_by_kind = FIELDS_BY_KIND

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
        powers: RollPowers | None = None,
        settings: Any = None,
        default_character: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(data, prefix=prefix, **kwargs)
        self.powers = powers or RollPowers(gm_kinds=False, secret_rolls=False, secret_difficulty=False, npc_dice=False)
        self.characters = {c.pk: c for c in characters}
        character: Any = self.fields["character"]
        character.choices = [("", "—")] + [(c.pk, c.name) for c in self.characters.values()]
        if default_character in self.characters:
            character.initial = default_character
        approach_choices = []
        for value, label in APPROACHES:
            ratings = [f"{c.name} {r:+d}" for c in self.characters.values() if (r := _rating(c, value)) is not None]
            approach_choices.append((value, f"{label} ({', '.join(ratings)})" if ratings else label))
        approach: Any = self.fields["approach"]
        approach.choices = approach_choices
        stunt_choices = []
        for c in self.characters.values():
            for stunt in (c.sheet or {}).get("stunts", []):
                if stunt.get("template") == "bonus" and stunt.get("key"):
                    try:  # the stunt by its words, never its key («S1»)
                        text = stunt_sentence(Stunt.model_validate(stunt), get_language() or "es")
                    except ValueError:
                        text = stunt.get("circumstance") or stunt.get("because") or ""
                    stunt_choices.append((f"{c.pk}:{stunt['key']}", f"{c.name} · {text}"[:200]))
        stunts: Any = self.fields["stunts"]
        stunts.choices = stunt_choices
        kind: Any = self.fields["kind"]
        if self.powers.gm_kinds:
            kind.choices = [*KINDS, (FATE_DICE, _("Dados Fate (4dF)"))]
        else:
            del self.fields["modifier"]
        if not self.powers.secret_difficulty:
            del self.fields["difficulty_secret"]
        if not self.powers.secret_rolls:
            del self.fields["gm_only"]

    @property
    def marked_fields(self) -> list[tuple[Any, str | None]]:
        """Each visible field with the roll types that use it, space-separated (None: the roll type itself,
        always shown); the template marks each field with them and the composer hides the others."""
        return [
            (field, None if field.name == self.kind_field else self.kinds_of(field.name))
            for field in self.visible_fields()
        ]

    def kinds_of(self, field: str) -> str:
        return " ".join(kind for kind, fields in self.fields_by_kind.items() if kind and field in fields)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
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
