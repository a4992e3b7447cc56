"""The composer's Presagios roll: a character, the characteristic (its current rating from the sheet),
tool dice 0..3 and a trait of the sheet. GMs may also roll a challenge against a secret difficulty (players
only ever read «Éxito» or «Fallo»), a quick conflict between two characters, and make any roll secret.
Challenges and conflicts with points, danger and damage are opened as procedures («Reto», «Conflicto»)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django import forms
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from campaigns.policy import RollPowers
from characters.models import Character
from rulesets.kit.rolls import RollSpec
from rulesets.presagios.rolls import CHALLENGE, CONFLICT, ROLL, characteristic_label
from systems.presagios.dice import MAX_TOOL_DICE
from systems.presagios.sheet import CHAR_KEYS

KINDS = [("", _("Sin tirada")), (ROLL, _("Tirada"))]
GM_KINDS = [(CHALLENGE, _("Reto (dificultad secreta)")), (CONFLICT, _("Conflicto rápido"))]


def _current(character: Character, key: str) -> int:
    sheet = character.sheet or {}
    values = sheet.get("current") or sheet.get("base") or [0, 0, 0]
    return int(values[CHAR_KEYS.index(key)])


def _trait_value(character: Character, name: str) -> int:
    for trait in (character.sheet or {}).get("traits", []):
        if trait.get("name") == name:
            return int(trait.get("value", 0))
    return 0


class RollBuilderForm(forms.Form):
    kind = forms.ChoiceField(label=_("Tirada"), choices=KINDS, required=False)
    character = forms.TypedChoiceField(label=_("Personaje"), coerce=int, required=False, empty_value=None)
    characteristic = forms.ChoiceField(label=_("Característica"), required=False)
    tool_dice = forms.IntegerField(
        label=_("Herramientas"),
        min_value=0,
        max_value=MAX_TOOL_DICE,
        initial=0,
        required=False,
        help_text=_("Dados de herramientas u objetos útiles: de 0 a 3."),
    )
    trait = forms.ChoiceField(label=_("Rasgo"), required=False)
    difficulty = forms.IntegerField(
        label=_("Dificultad"),
        min_value=1,
        max_value=20,
        required=False,
        help_text=_("Siempre secreta: los jugadores solo ven Éxito o Fallo."),
    )
    opponent = forms.TypedChoiceField(label=_("Oponente"), coerce=int, required=False, empty_value=None)
    opponent_characteristic = forms.ChoiceField(label=_("Característica del oponente"), required=False)
    opponent_tool_dice = forms.IntegerField(
        label=_("Herramientas del oponente"), min_value=0, max_value=MAX_TOOL_DICE, initial=0, required=False
    )
    opponent_trait = forms.ChoiceField(label=_("Rasgo del oponente"), required=False)
    gm_only = forms.BooleanField(label=_("Tirada secreta"), required=False)
    label = forms.CharField(label=_("Etiqueta"), max_length=120, required=False)

    kind_field = "kind"
    # The composer shows only the fields of the chosen roll type (the rest stay hidden).
    fields_by_kind: dict[str, tuple[str, ...]] = {
        ROLL: ("character", "characteristic", "tool_dice", "trait", "gm_only", "label"),
        CHALLENGE: ("character", "characteristic", "tool_dice", "trait", "difficulty", "gm_only", "label"),
        CONFLICT: (
            "character",
            "characteristic",
            "tool_dice",
            "trait",
            "opponent",
            "opponent_characteristic",
            "opponent_tool_dice",
            "opponent_trait",
            "gm_only",
            "label",
        ),
    }

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
        people = [("", "—")] + [(c.pk, c.name) for c in self.characters.values()]
        self._choices("character", people)
        self._choices("opponent", people)
        if default_character in self.characters:
            self.fields["character"].initial = default_character
        characteristic_choices = []
        for key in CHAR_KEYS:
            label = characteristic_label(key, settings, get_language() or "es")
            # One character: its rating beside the name; several: the name alone (a phone-wide select).
            ratings = [f"{c.name} {_current(c, key)}" for c in self.characters.values() if c.sheet.get("base")]
            characteristic_choices.append((key, f"{label} ({ratings[0]})" if len(ratings) == 1 else label))
        self._choices("characteristic", characteristic_choices)
        self._choices("opponent_characteristic", characteristic_choices)
        traits = [("", "—")]
        for c in self.characters.values():
            for trait in (c.sheet or {}).get("traits", []):
                if trait.get("supernatural"):
                    continue  # it costs a point: named in a challenge or conflict procedure
                traits.append((f"{c.pk}:{trait['name']}", f"{c.name} · {trait['name']} +{trait.get('value', 0)}"))
        self._choices("trait", traits)
        self._choices("opponent_trait", traits)
        self._offer(self.powers)

    def shown_fields(self) -> list[tuple[Any, str]]:
        """Each visible field with its roll types (``data-roll-kinds``); "" for the roll type's own field."""
        kinds = self.kinds_of_field
        return [(field, kinds.get(field.name, "")) for field in self.visible_fields()]

    def _offer(self, powers: RollPowers) -> None:
        """Only what the policy lets this writer choose: a player never sets a difficulty or the other side."""
        if powers.gm_kinds:
            self._choices("kind", [*KINDS, *GM_KINDS])
        else:
            for name in ("opponent", "opponent_characteristic", "opponent_tool_dice", "opponent_trait"):
                del self.fields[name]
        if not powers.secret_difficulty:
            del self.fields["difficulty"]
        if not powers.secret_rolls:
            del self.fields["gm_only"]

    @property
    def kinds_of_field(self) -> dict[str, str]:
        """For the template: each field's roll types, space-separated (``data-roll-kinds``)."""
        kinds: dict[str, list[str]] = {}
        for kind, names in self.fields_by_kind.items():
            for name in names:
                kinds.setdefault(name, []).append(kind)
        return {name: " ".join(values) for name, values in kinds.items()}

    def _choices(self, name: str, choices: Any) -> None:
        field: Any = self.fields[name]
        field.choices = choices

    def _trait_of(self, value: str, character: Character | None, field: str) -> str:
        if not value:
            return ""
        owner, _sep, name = value.partition(":")
        if character is None or owner != str(character.pk):
            self.add_error(field, _("Ese rasgo es de otro personaje."))
            return ""
        return name

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        kind = data.get("kind")
        if not kind:
            return data
        character = self.characters.get(data.get("character") or 0)
        if character is None:
            self.add_error("character", _("Elige el personaje que tira."))
        if not data.get("characteristic"):
            self.add_error("characteristic", _("Elige la característica."))
        data["trait_name"] = self._trait_of(data.get("trait") or "", character, "trait")
        if kind == CHALLENGE and data.get("difficulty") is None:
            self.add_error("difficulty", _("Un reto necesita su dificultad secreta."))
        if kind == CONFLICT:
            opponent = self.characters.get(data.get("opponent") or 0)
            if opponent is None or opponent == character:
                self.add_error("opponent", _("Elige otro personaje como oponente."))
            if not data.get("opponent_characteristic"):
                self.add_error("opponent_characteristic", _("Elige la característica del oponente."))
            data["opponent_trait_name"] = self._trait_of(data.get("opponent_trait") or "", opponent, "opponent_trait")
        return data

    def _side(self, character: Character, key: str, tools: int, trait: str) -> dict[str, Any]:
        return {
            "name": character.name,
            "kind": (character.sheet or {}).get("kind", "principal"),
            "current": _current(character, key),
            "tool_dice": tools,
            "trait_bonus": _trait_value(character, trait) if trait else 0,
        }

    def roll_specs(self) -> list[RollSpec]:
        if not self.is_valid():  # the composer validates first; an invalid builder asks for no roll
            return []
        data = self.cleaned_data
        kind = data.get("kind")
        if not kind:
            return []
        label = data.get("label") or ""
        gm_only = bool(data.get("gm_only"))  # the field exists only for who may roll in secret
        character = self.characters[data["character"]]
        tools = data.get("tool_dice") or 0
        if kind == CONFLICT:
            opponent = self.characters[data["opponent"]]
            sides = {
                "a": self._side(character, data["characteristic"], tools, data.get("trait_name", "")),
                "b": self._side(
                    opponent,
                    data["opponent_characteristic"],
                    data.get("opponent_tool_dice") or 0,
                    data.get("opponent_trait_name", ""),
                ),
            }
            return [RollSpec(kind=kind, data=sides, label=label, gm_only=gm_only)]
        payload: dict[str, Any] = {
            "characteristic": data["characteristic"],
            "tool_dice": tools,
            "trait": data.get("trait_name", ""),
        }
        if kind == CHALLENGE:
            payload["difficulty"] = data["difficulty"]
        return [RollSpec(kind=kind, data=payload, character_id=character.pk, label=label, gm_only=gm_only)]
