"""The composer's roll builder for FATE 3.0 (Spirit of the Century): the roll kind, the character, the skill
from its sheet (unlisted skills are Mediocre), the difficulty or the opposition, and the GM's options
(a secret difficulty, a secret roll)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from django import forms
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from campaigns.policy import RollPowers
from characters.models import Character, CharacterStatus
from rulesets.fate_sotc.rolls import KIND_NAMES, sotc_settings
from rulesets.kit.rolls import RollSpec
from systems.fate_sotc.ladder import ladder_label

OPPOSED = ("opposed", "attack", "maneuver")
COMMON = ("character", "skill", "rating", "modifier", "label", "gm_only")


class RollBuilderForm(forms.Form):
    kind = forms.ChoiceField(label=_("Tirada"), required=False)
    character = forms.TypedChoiceField(label=_("Personaje"), required=False, coerce=int, empty_value=None)
    skill = forms.ChoiceField(label=_("Habilidad"), required=False)
    rating = forms.IntegerField(
        label=_("Nivel"),
        required=False,
        min_value=-10,
        max_value=20,
        help_text=_("Solo sin personaje: el nivel en la escala (Normal es +1)."),
    )
    modifier = forms.IntegerField(label=_("Modificador"), required=False, min_value=-10, max_value=10)
    difficulty = forms.IntegerField(label=_("Dificultad"), required=False, min_value=-10, max_value=20)
    secret = forms.BooleanField(
        label=_("Dificultad secreta"),
        required=False,
        help_text=_("Los jugadores ven solo Éxito o Fallo, nunca el número."),
    )
    opposition = forms.IntegerField(
        label=_("Oposición"), required=False, min_value=-10, max_value=20, help_text=_("Nivel de la habilidad rival.")
    )
    opposition_skill = forms.ChoiceField(label=_("Habilidad rival"), required=False)
    opposition_name = forms.CharField(label=_("Rival"), required=False, max_length=100)
    track = forms.ChoiceField(
        label=_("Medidor"), required=False, choices=[("health", _("Salud")), ("composure", _("Serenidad"))]
    )
    full_defense = forms.BooleanField(label=_("Defensa completa (+2)"), required=False)
    label = forms.CharField(label=_("Etiqueta"), required=False, max_length=120)
    gm_only = forms.BooleanField(
        label=_("Tirada secreta"), required=False, help_text=_("Solo la ven los másters hasta que la revelen.")
    )

    kind_field = "kind"
    # The fields each roll type uses; the composer shows only those of the chosen type.
    fields_by_kind: Mapping[str, Sequence[str]] = {
        kind: (
            *COMMON,
            *(("difficulty", "secret") if kind == "simple" else ()),
            *(("opposition", "opposition_skill", "opposition_name") if kind in OPPOSED else ()),
            *(("track",) if kind == "attack" else ()),
            *(("full_defense",) if kind in ("attack", "maneuver") else ()),
        )
        for kind in KIND_NAMES
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
        self.settings = sotc_settings(settings)
        self.characters = {c.pk: c for c in characters if c.status == CharacterStatus.APPROVED}
        english = (get_language() or "es").startswith("en")  # the page's language names kinds and skills
        self.choice_field("kind").choices = [("", _("Sin tirada del sistema"))] + [
            (key, names[1] if english else names[0]) for key, names in KIND_NAMES.items()
        ]
        self.choice_field("character").choices = [("", _("Sin personaje"))] + [
            (c.pk, c.name) for c in self.characters.values()
        ]
        default = self.characters.get(default_character) if default_character is not None else None
        if default is None and len(self.characters) == 1:
            default = next(iter(self.characters.values()))
        skills = [(s.key, s.label_en if english else s.label_es) for s in self.settings.skill_catalogue]
        if default is not None:  # the preselected character: each skill's rating from its sheet, best first
            ratings = default.sheet.get("skills") or {}
            lang = "en" if english else "es"
            skills = [(key, f"{label}: {ladder_label(int(ratings.get(key, 0)), lang)}") for key, label in skills]
            skills.sort(key=lambda kv: -int(ratings.get(kv[0], 0)))
            self.fields["character"].initial = default.pk
        self.choice_field("skill").choices = [("", "—"), *skills]
        self.choice_field("opposition_skill").choices = [("", "—")] + [
            (s.key, s.label_en if english else s.label_es) for s in self.settings.skill_catalogue
        ]
        self.fields["difficulty"].initial = self.settings.default_simple_difficulty
        if not self.powers.secret_difficulty:
            del self.fields["secret"]
        if not self.powers.secret_rolls:
            del self.fields["gm_only"]
        if not self.powers.npc_dice:  # a rating without a character: the GM's extras only
            del self.fields["rating"]

    def choice_field(self, name: str) -> forms.ChoiceField:
        field = self.fields[name]
        assert isinstance(field, forms.ChoiceField)
        return field

    def kinds_of(self) -> list[tuple[Any, str]]:
        """Each visible field with the roll types that use it ("" for the roll type picker itself)."""
        uses: dict[str, list[str]] = {}
        for kind, names in self.fields_by_kind.items():
            for name in names:
                uses.setdefault(name, []).append(kind)
        return [(field, " ".join(uses.get(field.name, ()))) for field in self.visible_fields()]

    def character_lines(self) -> list[tuple[str, list[str]]]:
        """Each character's skills as the sheet shows them ("Piloto: Grande (+4)"), for the help text."""
        lang = get_language() or "es"
        lines = []
        for character in self.characters.values():
            ratings = character.sheet.get("skills") or {}
            ordered = sorted(ratings.items(), key=lambda kv: (-int(kv[1]), kv[0]))
            lines.append(
                (
                    character.name,
                    [f"{self.settings.skill_label(k, lang)}: {ladder_label(int(v), lang)}" for k, v in ordered],
                )
            )
        return lines

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        kind = data.get("kind")
        if not kind:
            return data
        if data.get("character") is None and self.characters and not self.powers.npc_dice:
            self.add_error("character", _("Elige con qué personaje tiras."))
        if data.get("character") is not None and not data.get("skill"):
            self.add_error("skill", _("Elige la habilidad."))
        if kind in OPPOSED and data.get("opposition") is None:
            self.add_error("opposition", _("Indica el nivel de la oposición."))
        if kind == "simple" and data.get("difficulty") is None:
            self.add_error("difficulty", _("Indica la dificultad."))
        return data

    def roll_specs(self) -> list[RollSpec]:
        if not self.is_valid():
            return []
        data = self.cleaned_data
        kind = data.get("kind")
        if not kind:
            return []
        roll: dict[str, Any] = {"skill": data.get("skill") or None}
        if data.get("character") is None:
            roll["skill_rating"] = data.get("rating") or 0
        if data.get("modifier"):
            roll["modifier"] = data["modifier"]
        if kind == "simple":
            roll["difficulty"] = data["difficulty"]
            roll["secret"] = bool(data.get("secret"))
        if kind in OPPOSED:
            roll["opposition"] = data["opposition"]
            if data.get("opposition_skill"):
                roll["opposition_skill"] = data["opposition_skill"]
            if data.get("opposition_name"):
                roll["opposition_name"] = data["opposition_name"]
        if kind in ("attack", "maneuver"):
            roll["full_defense"] = bool(data.get("full_defense"))
        if kind == "attack":
            roll["track"] = data.get("track") or "health"
        return [
            RollSpec(
                kind=kind,
                data=roll,
                character_id=data.get("character"),
                label=data.get("label", ""),
                gm_only=bool(data.get("gm_only")),
            )
        ]
