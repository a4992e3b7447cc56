"""The composer's No te Duermas roll: the protagonist's pools (discipline, exhaustion and permanent madness
from the sheet, temporary madness chosen) or a helper's discipline dice; for the GM also the pain dice (a
count, or the opponents' pain scores) and a whole conflict against pain in one post. The pain dice are the
GM's (§3.10): a player's builder never offers them. The composer shows only the fields of the chosen roll
type (``kind_field``/``fields_by_kind``) and preselects the writer's only protagonist.

The voluntary +1 exhaustion and the adjustments (hope, shading) belong to a conflict: the builder points
there ("Procedimientos"), since they change the sheet and the chests through the ledger."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from campaigns.policy import RollPowers
from characters.models import Character
from rulesets.dont_rest_your_head.sheet import is_opposition
from rulesets.kit.rolls import RollSpec

KINDS = [
    ("", _("Sin tirada")),
    ("leader", _("Tirada del protagonista")),
    ("helper", _("Tirada de ayuda (disciplina)")),
]
GM_KINDS = [("pain", _("Tirada de dolor")), ("conflict", _("Conflicto completo contra dolor"))]
NEEDS_CHARACTER = frozenset({"leader", "helper", "conflict"})
NEEDS_PAIN = frozenset({"conflict", "pain"})
NO_POWERS = RollPowers(gm_kinds=False, secret_rolls=False, secret_difficulty=False, npc_dice=False)


def _opponents(text: str) -> list[int]:
    return [int(part) for part in text.replace(";", ",").replace(" ", ",").split(",") if part.strip()]


def _pools_label(character: Character) -> str:
    sheet = character.sheet or {}
    return str(
        _("%(name)s (disciplina %(d)s, agotamiento %(e)s, locura permanente %(m)s)")
        % {
            "name": character.name,
            "d": sheet.get("discipline", 3),
            "e": sheet.get("exhaustion", 0),
            "m": sheet.get("permanent_madness", 0),
        }
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

    kind_field = "kind"
    fields_by_kind: dict[str, tuple[str, ...]] = {
        "": (),
        "leader": ("character", "temp_madness", "label", "gm_only"),
        "helper": ("character", "label", "gm_only"),
        "pain": ("pain", "opponents", "label", "gm_only"),
        "conflict": ("character", "temp_madness", "minor_use", "pain", "opponents", "label", "gm_only"),
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
        self.powers = powers or NO_POWERS
        self.characters = {c.pk: c for c in characters if not is_opposition(c.sheet or {})}
        character: Any = self.fields["character"]
        character.choices = [("", "—")] + [(c.pk, _pools_label(c)) for c in self.characters.values()]
        if default_character in self.characters:
            character.initial = default_character
        kind: Any = self.fields["kind"]
        kind.choices = [*KINDS, *GM_KINDS] if self.powers.gm_kinds else KINDS
        if not self.powers.gm_kinds:  # the pain dice are the GM's: a player never sets them
            for name in ("pain", "opponents", "minor_use"):
                del self.fields[name]
        if not self.powers.secret_rolls:
            del self.fields["gm_only"]

    def shown_fields(self) -> list[tuple[forms.BoundField, dict[str, str]]]:
        """Each field after the roll type with the roll types that use it (``names`` for the site script's
        data-roll-kinds, ``classes`` for the no-script CSS): the composer shows only the chosen type's."""
        shown = []
        for bound in self.visible_fields():
            if bound.name == self.kind_field:
                continue
            kinds = [k for k in self.offered_kinds() if bound.name in self.fields_by_kind[k]]
            shown.append((bound, {"names": " ".join(kinds), "classes": " ".join(f"for-{k}" for k in kinds)}))
        return shown

    def offered_kinds(self) -> list[str]:
        return [k for k, _label in self.fields["kind"].choices if k]  # type: ignore[attr-defined]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        kind = data.get("kind")
        if not kind:
            return data
        if kind in NEEDS_CHARACTER and self.characters.get(data.get("character") or 0) is None:
            self.add_error("character", _("Elige el protagonista que tira."))
        if kind in NEEDS_PAIN:
            self._clean_pain(data)
        return data

    def _clean_pain(self, data: dict[str, Any]) -> None:
        try:
            opponents = _opponents(data.get("opponents") or "")
        except ValueError:
            self.add_error("opponents", _("Escribe el dolor de cada oponente separado por comas."))
            return
        if any(n < 1 for n in opponents):
            self.add_error("opponents", _("El dolor debe ser de al menos 1 dado."))
        if data.get("pain") is None and not opponents:
            self.add_error("pain", _("Indica los dados de dolor o el dolor de cada oponente."))
        data["opponent_list"] = opponents

    def roll_specs(self) -> list[RollSpec]:
        data = self.cleaned_data
        kind = data.get("kind")
        if not kind:
            return []
        label = data.get("label") or ""
        gm_only = bool(data.get("gm_only"))
        character_id = data.get("character") if data.get("character") in self.characters else None
        pain: dict[str, Any] = {"pain": data["pain"]} if data.get("pain") is not None else {}
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
