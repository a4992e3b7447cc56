"""Event's roll builder in the composer: an action roll (*acción*) filled from the writer's characters.

The writer picks the character and the one related skill from its sheet (the pool is 1 base die plus
1 + improvements), the complexity level the GM announced, and the choice at the automatic-outcome gate
(roll, or take the partial success or the failure offered). More dice than the difficulty is an automatic
absolute success: the server records it without rolling. GMs may also roll an NPC's pool by size and
make the roll secret.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

from django import forms
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _
from pydantic import BaseModel

from campaigns.policy import RollPowers
from characters.models import Character
from rolls.services import RollSpec
from rulesets.event.rolls import ACTION, level_label, settings_of
from systems.event.action import Choice
from systems.event.sheet import EventSheet

SEPARATOR = "|"


def _skills(character: Character, settings: Any) -> list[tuple[str, str]]:
    try:
        sheet = EventSheet.model_validate(character.sheet or {}, context={"settings": settings})
    except Exception:  # a sheet that no longer validates offers no skills (the roll falls back to 1 die)
        return []
    return [
        (
            f"{character.pk}{SEPARATOR}{s.name}",
            _("%(who)s: %(skill)s (%(n)d dados)") % {"who": character.name, "skill": s.display, "n": 1 + s.dice},
        )
        for s in sheet.skills
    ]


class RollBuilderForm(forms.Form):
    """The composer's Event roll section (the ``RollBuilder`` contract of ``rulesets.kit.rolls``)."""

    kind_field = "kind"
    # The composer shows only the chosen kind's fields ("Sin tirada": none of them).
    fields_by_kind = {ACTION: ("character", "skill", "difficulty", "choice", "dice", "label", "secret")}

    kind = forms.ChoiceField(
        label=_("Tirada de Event"), required=False, choices=[("", _("Sin tirada")), (ACTION, _("Acción"))]
    )
    character = forms.TypedChoiceField(label=_("Personaje"), coerce=int, required=False, empty_value=None)
    skill = forms.ChoiceField(
        label=_("Habilidad relacionada"),
        required=False,
        help_text=_("Solo cuenta una habilidad: 1 dado base, más 1 y uno por cada mejora (+)."),
    )
    difficulty = forms.TypedChoiceField(label=_("Nivel de complejidad"), coerce=int, required=False, empty_value=None)
    choice = forms.ChoiceField(
        label=_("Si no es un éxito automático"),
        required=False,
        initial=Choice.ROLL,
        choices=[
            (Choice.ROLL, _("Tirar los dados")),
            (Choice.TAKE_PARTIAL, _("Tomar el éxito parcial sin tirar (reserva igual a la dificultad)")),
            (Choice.TAKE_FAILURE, _("Tomar el fallo sin tirar (reserva menor que la dificultad)")),
        ],
    )
    dice = forms.IntegerField(
        label=_("Reserva del PNJ (dados)"), required=False, min_value=1, max_value=30, help_text=_("Sin personaje.")
    )
    label = forms.CharField(label=_("Etiqueta"), required=False, max_length=120)
    secret = forms.BooleanField(label=_("Tirada secreta"), required=False, help_text=_("Solo la ven los másters."))

    def __init__(
        self,
        data: Any = None,
        *,
        prefix: str = "roll",
        characters: Iterable[Character] = (),
        powers: RollPowers | None = None,
        settings: BaseModel | None = None,
        default_character: int | None = None,
    ) -> None:
        super().__init__(data, prefix=prefix)
        self.powers = powers or RollPowers(gm_kinds=False, secret_rolls=False, secret_difficulty=False, npc_dice=False)
        self.rules = settings_of(settings)
        self.characters = {c.pk: c for c in characters}
        character = cast(forms.ChoiceField, self.fields["character"])
        character.choices = [("", _("Ninguno")), *((c.pk, c.name) for c in self.characters.values())]
        if default_character in self.characters:
            character.initial = default_character
        skills: list[tuple[str, Any]] = [("", _("Ninguna (1 dado)"))]
        for each in self.characters.values():
            skills += _skills(each, self.rules)
        cast(forms.ChoiceField, self.fields["skill"]).choices = skills
        language = get_language() or "es"
        cast(forms.ChoiceField, self.fields["difficulty"]).choices = [("", "—")] + [
            (n, level_label(n, self.rules, language)) for n in range(1, self.rules.sides + 1)
        ]
        if not self.powers.npc_dice:  # an NPC's pool by size: the GM's
            del self.fields["dice"]
        if not self.powers.secret_rolls:
            del self.fields["secret"]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("kind") != ACTION:
            return data
        if data.get("difficulty") is None:
            self.add_error("difficulty", _("Indica la dificultad que anunció el máster."))
        character_id = data.get("character")
        skill = data.get("skill") or ""
        if skill:
            owner, _sep, _name = skill.partition(SEPARATOR)
            if character_id is None:
                data["character"] = character_id = int(owner)
            elif int(owner) != character_id:
                self.add_error("skill", _("Esa habilidad no es de ese personaje."))
        if character_id is None and not self.powers.npc_dice and len(self.characters) == 1:
            data["character"] = next(iter(self.characters))
        if data.get("dice") and data.get("character") is not None:
            self.add_error("dice", _("La reserva de un personaje sale de su ficha."))
        return data

    def roll_specs(self) -> list[RollSpec]:
        data = self.cleaned_data
        if data.get("kind") != ACTION:
            return []
        skill = (data.get("skill") or "").partition(SEPARATOR)[2] or None
        payload: dict[str, Any] = {"difficulty": data["difficulty"]}
        if data.get("choice") and data["choice"] != Choice.ROLL:
            # "Roll" is what happens unless the success is automatic: sent only to take an offered outcome.
            payload["choice"] = data["choice"]
        if skill:
            payload["skill"] = skill
        if data.get("dice") and data.get("character") is None:
            payload["dice"] = data["dice"]
        return [
            RollSpec(
                kind=ACTION,
                data=payload,
                character_id=data.get("character"),
                label=data.get("label", ""),
                gm_only=bool(data.get("secret")),
            )
        ]
