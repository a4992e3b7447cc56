"""Presagios: the creation sheet, laid out like the paper one.

Concept, three characteristics with the traits that split each rating, two milestones, one complication
(and, optionally, descriptors and weaknesses). A draft may be saved half written: this form checks types
and ranges; the creation rules (9 points, traits that add up, 2 milestones, 1 complication) are checked
when the sheet is sent for approval, and ``creation_checks`` shows how far the sheet is from them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django import forms
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from rulesets.presagios.rolls import characteristic_label
from systems.presagios.settings import DEFAULT_SETTINGS, PresagiosSettings
from systems.presagios.sheet import (
    CHAR_KEYS,
    CHAR_MAX,
    CHAR_MIN,
    CREATION_POINTS,
    HITOS_AT_CREATION,
    NPC_CHAR_MAX,
    TRAIT_MAX,
    TRAIT_MIN,
    Kind,
)

PC_TRAIT_ROWS = CHAR_MAX  # a rating of 5 splits into at most five +1 traits
TEXT_MAX = 200
TRAIT_VALUE_CHOICES = [("", "—"), *((str(v), f"+{v}") for v in range(TRAIT_MIN, TRAIT_MAX + 1))]
NPC_KIND_CHOICES = [
    (Kind.SECUNDARIO.value, _("Personaje secundario")),
    (Kind.MONSTRUO.value, _("Monstruo")),
]


@dataclass(frozen=True)
class TraitRow:
    name: forms.BoundField
    value: forms.BoundField
    supernatural: forms.BoundField


@dataclass(frozen=True)
class CharacteristicGroup:
    key: str
    label: str
    damage_kind: str
    base: forms.BoundField
    rows: list[TraitRow]


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def _lines_field(label: Any, help_text: Any) -> forms.CharField:
    return forms.CharField(
        label=label,
        required=False,
        max_length=4000,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=help_text,
    )


class SheetForm(forms.Form):
    concept = forms.CharField(
        label=_("Concepto"),
        required=False,
        max_length=TEXT_MAX,
        help_text=_("Una línea que dice quién es el personaje. Es una cualidad."),
    )

    def __init__(
        self,
        data: Any = None,
        *,
        sheet: dict[str, Any] | None = None,
        settings: Any = None,
        is_npc: bool = False,
    ) -> None:
        self.sheet = dict(sheet or {})
        self.rules: PresagiosSettings = settings if isinstance(settings, PresagiosSettings) else DEFAULT_SETTINGS
        self.is_npc = is_npc
        super().__init__(data, initial=self._initial(self.sheet))
        self._build_fields()

    # --- fields -------------------------------------------------------------------------------------

    def _rows_for(self, key: str) -> int:
        existing = sum(1 for t in self.sheet.get("traits", ()) if t.get("characteristic") == key)
        if self.is_npc:
            return max(PC_TRAIT_ROWS, existing + 2)
        return max(PC_TRAIT_ROWS, existing)

    def _build_fields(self) -> None:
        if self.is_npc:
            self.fields["kind"] = forms.ChoiceField(
                label=_("Tipo"),
                choices=NPC_KIND_CHOICES,
                help_text=_(
                    "Los secundarios no tienen protección de guión; el director la paga con amenaza para los monstruos."
                ),
            )
            self.order_fields(["kind", "concept"])
        low, high = (0, NPC_CHAR_MAX) if self.is_npc else (CHAR_MIN, CHAR_MAX)
        for key in CHAR_KEYS:
            if self.is_npc:
                rule = _("De %(low)d a %(high)d; los PNJ no tienen suma fija.") % {"low": low, "high": high}
            else:
                rule = _(
                    "De %(low)d a %(high)d. Las tres características suman %(points)d: es el número de dados que tiras."
                ) % {"low": low, "high": high, "points": CREATION_POINTS}
            self.fields[f"base_{key}"] = forms.IntegerField(
                label=characteristic_label(key, self.rules, get_language() or "es"),
                min_value=low,
                max_value=high,
                help_text=rule,
            )
            for row in range(self._rows_for(key)):
                prefix = f"{key}_trait_{row}"
                self.fields[f"{prefix}_name"] = forms.CharField(label=_("Rasgo"), required=False, max_length=80)
                self.fields[f"{prefix}_value"] = forms.TypedChoiceField(
                    label=_("Valor"), choices=TRAIT_VALUE_CHOICES, required=False, coerce=int, empty_value=None
                )
                self.fields[f"{prefix}_supernatural"] = forms.BooleanField(
                    label=_("Rasgo sobrenatural"), required=False
                )
        if self.is_npc:
            self.fields["hitos"] = _lines_field(_("Hitos"), _("Uno por línea. Opcionales para los PNJ."))
            self.fields["complications"] = _lines_field(_("Complicaciones"), _("Una por línea."))
        else:
            for number in range(1, HITOS_AT_CREATION + 1):
                self.fields[f"hito_{number}"] = forms.CharField(
                    label=_("Hito %(n)d") % {"n": number},
                    required=False,
                    max_length=TEXT_MAX,
                    help_text=_("Un hecho que define al personaje. Hacen falta exactamente 2; son cualidades."),
                )
            self.fields["complication"] = forms.CharField(
                label=_("Complicación"),
                required=False,
                max_length=TEXT_MAX,
                help_text=_("Un problema del personaje: exactamente 1. Si otro la activa contra ti, ganas el punto."),
            )
        self.fields["descriptors"] = _lines_field(_("Descriptores"), _("Opcionales, uno por línea. Son cualidades."))
        self.fields["weaknesses"] = _lines_field(
            _("Debilidades"), _("Opcionales, una por línea (sobre todo de los monstruos). Son cualidades.")
        )

    def _initial(self, sheet: dict[str, Any]) -> dict[str, Any]:
        initial: dict[str, Any] = {"concept": sheet.get("concept", ""), "kind": sheet.get("kind")}
        base = sheet.get("base") or ((2, 2, 2) if self.is_npc else (3, 3, 3))
        rows: dict[str, int] = {}
        for key, value in zip(CHAR_KEYS, base, strict=False):
            initial[f"base_{key}"] = value
        for trait in sheet.get("traits", ()):
            key = trait.get("characteristic")
            if key not in CHAR_KEYS:
                continue
            row = rows.get(key, 0)
            rows[key] = row + 1
            prefix = f"{key}_trait_{row}"
            initial[f"{prefix}_name"] = trait.get("name", "")
            initial[f"{prefix}_value"] = str(trait.get("value", ""))
            initial[f"{prefix}_supernatural"] = bool(trait.get("supernatural"))
        hitos = list(sheet.get("hitos", ()))
        complications = list(sheet.get("complications", ()))
        if "complication" in sheet and not complications and sheet["complication"]:
            complications = [sheet["complication"]]
        if self.is_npc:
            initial["hitos"] = "\n".join(hitos)
            initial["complications"] = "\n".join(complications)
        else:
            for number, text in enumerate(hitos[:HITOS_AT_CREATION], start=1):
                initial[f"hito_{number}"] = text
            initial["complication"] = complications[0] if complications else ""
        initial["descriptors"] = "\n".join(sheet.get("descriptors", ()))
        initial["weaknesses"] = "\n".join(sheet.get("weaknesses", ()))
        return initial

    # --- validation and output ------------------------------------------------------------------------

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        for key in CHAR_KEYS:
            for row in range(self._rows_for(key)):
                prefix = f"{key}_trait_{row}"
                name = (cleaned.get(f"{prefix}_name") or "").strip()
                value = cleaned.get(f"{prefix}_value")
                supernatural = cleaned.get(f"{prefix}_supernatural")
                if name and value is None:
                    self.add_error(f"{prefix}_value", _("Dale un valor de +1 a +3."))
                elif not name and (value is not None or supernatural):
                    self.add_error(f"{prefix}_name", _("El rasgo necesita un nombre."))
        return cleaned

    def to_sheet(self) -> dict[str, Any]:
        data = self.cleaned_data
        traits = []
        for key in CHAR_KEYS:
            for row in range(self._rows_for(key)):
                prefix = f"{key}_trait_{row}"
                name = (data.get(f"{prefix}_name") or "").strip()
                if not name:
                    continue
                traits.append(
                    {
                        "name": name,
                        "characteristic": key,
                        "value": data[f"{prefix}_value"],
                        "supernatural": bool(data.get(f"{prefix}_supernatural")),
                    }
                )
        if self.is_npc:
            kind = data["kind"]
            hitos = _lines(data.get("hitos", ""))
            complications = _lines(data.get("complications", ""))
        else:
            kind = Kind.PRINCIPAL.value
            hitos = [text for text in (data.get(f"hito_{n}", "").strip() for n in (1, 2)) if text]
            complication = data.get("complication", "").strip()
            complications = [complication] if complication else []
        return {
            "kind": kind,
            "concept": data.get("concept", "").strip(),
            "base": [data[f"base_{key}"] for key in CHAR_KEYS],
            "traits": traits,
            "hitos": hitos,
            "complications": complications,
            "descriptors": _lines(data.get("descriptors", "")),
            "weaknesses": _lines(data.get("weaknesses", "")),
        }

    # --- for the paper-sheet layout -----------------------------------------------------------------

    def characteristic_groups(self) -> list[CharacteristicGroup]:
        groups = []
        for index, key in enumerate(CHAR_KEYS):
            rows = [
                TraitRow(
                    self[f"{key}_trait_{row}_name"],
                    self[f"{key}_trait_{row}_value"],
                    self[f"{key}_trait_{row}_supernatural"],
                )
                for row in range(self._rows_for(key))
            ]
            groups.append(
                CharacteristicGroup(
                    key=key,
                    label=characteristic_label(key, self.rules, get_language() or "es"),
                    damage_kind=str(self.rules.characteristic_damage_kind[index]),
                    base=self[f"base_{key}"],
                    rows=rows,
                )
            )
        return groups

    def quality_fields(self) -> list[forms.BoundField]:
        names = ["hitos", "complications"] if self.is_npc else ["hito_1", "hito_2", "complication"]
        return [self[name] for name in (*names, "descriptors", "weaknesses")]

    def creation_checks(self) -> list[tuple[str, bool]]:
        """The creation rules of a main character and whether the sheet meets each (for a checklist)."""
        if self.is_npc:
            return []
        sheet = self.to_sheet() if self.is_bound and self.is_valid() else self._sheet_for_checks()
        base = sheet.get("base") or []
        traits = sheet.get("traits") or []
        sums_ok = len(base) == len(CHAR_KEYS) and all(
            sum(t["value"] for t in traits if t["characteristic"] == key) == rating
            for key, rating in zip(CHAR_KEYS, base, strict=True)
        )
        return [
            (str(_("Concepto escrito")), bool(sheet.get("concept"))),
            (
                str(_("%(points)d puntos repartidos (llevas %(used)d), de 1 a 5 cada característica"))
                % {"points": CREATION_POINTS, "used": sum(base)},
                sum(base) == CREATION_POINTS and all(CHAR_MIN <= b <= CHAR_MAX for b in base),
            ),
            (str(_("Los rasgos de cada característica suman su puntuación")), sums_ok),
            (str(_("2 hitos")), len(sheet.get("hitos") or []) == HITOS_AT_CREATION),
            (str(_("1 complicación")), len(sheet.get("complications") or []) == 1),
        ]

    def _sheet_for_checks(self) -> dict[str, Any]:
        sheet = dict(self.sheet)
        if not sheet.get("base"):
            sheet["base"] = [self.initial.get(f"base_{key}", 0) for key in CHAR_KEYS]
        return sheet
