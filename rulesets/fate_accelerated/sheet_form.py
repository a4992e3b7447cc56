"""Fate Accelerated: the creation/edit form of a draft sheet (aspects, approaches, stunts).

The form checks types and ranges only, so a half-written sheet can be saved; the creation rules (the
approach array, the required aspects, refresh from the stunts) are checked when the sheet is sent for
approval, and the help texts say them.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from systems.fate_accelerated.settings import FaeSettings, settings_or_default

APPROACHES = (
    ("careful", _("Cauto"), _("Prestas atención a los detalles y te tomas tu tiempo para hacerlo bien.")),
    ("clever", _("Ingenioso"), _("Piensas rápido, resuelves problemas o sopesas variables complejas.")),
    ("sneaky", _("Furtivo"), _("Engañas, pasas desapercibido o despistas.")),
    ("flashy", _("Llamativo"), _("Llamas la atención con estilo y audacia.")),
    ("quick", _("Rápido"), _("Te mueves deprisa y con agilidad.")),
    ("forceful", _("Vigoroso"), _("Usas la fuerza bruta, sin sutilezas.")),
)
LADDER_CONTEXT = "escalera de Fate Acelerado"  # FAE's ladder words (spec §6.7.3) are not SotC's
LADDER = {
    8: pgettext_lazy(LADDER_CONTEXT, "Legendario"),
    7: pgettext_lazy(LADDER_CONTEXT, "Épico"),
    6: pgettext_lazy(LADDER_CONTEXT, "Fantástico"),
    5: pgettext_lazy(LADDER_CONTEXT, "Excelente"),
    4: pgettext_lazy(LADDER_CONTEXT, "Enorme"),
    3: pgettext_lazy(LADDER_CONTEXT, "Grande"),
    2: pgettext_lazy(LADDER_CONTEXT, "Bueno"),
    1: pgettext_lazy(LADDER_CONTEXT, "Normal"),
    0: pgettext_lazy(LADDER_CONTEXT, "Mediocre"),
    -1: pgettext_lazy(LADDER_CONTEXT, "Malo"),
    -2: pgettext_lazy(LADDER_CONTEXT, "Terrible"),
}
TEMPLATES = (
    ("", "—"),
    ("bonus", _("+2 (Debido a que… recibo un +2 para… cuando…)")),
    ("once_per_session", _("Una vez por partida (Debido a que… una vez por partida puedo…)")),
    ("custom", _("Libre (necesita la aprobación del DJ)")),
)
TWO_ACTIONS = "create_advantage+overcome"
ACTIONS = (
    ("", "—"),
    ("create_advantage", _("Crear una ventaja")),
    ("overcome", _("Superar")),
    ("attack", _("Atacar")),
    ("defend", _("Defender")),
    (TWO_ACTIONS, _("Crear una ventaja y Superar (circunstancia muy restringida)")),
)
NPC_KINDS = (
    ("npc_main", _("PNJ principal")),
    ("npc_mook", _("Esbirro")),
    ("npc_group", _("Grupo de esbirros")),
)
STUNT_FIELDS = ("template", "because", "actions", "approach", "circumstance", "effect", "text")


def ladder_label(value: int) -> str:
    name = LADDER.get(value)
    return f"{name} ({value:+d})" if name is not None else f"{value:+d}"


class SheetForm(forms.Form):
    high_concept = forms.CharField(
        label=_("Concepto principal"),
        max_length=200,
        required=False,
        help_text=_("Obligatorio. Quién es tu personaje en una frase, p. ej. «Espía de la Corona»."),
    )
    trouble = forms.CharField(
        label=_("Complicación"),
        max_length=200,
        required=False,
        help_text=_("Obligatoria. Lo que le complica la vida, p. ej. «Debo proteger a mi hermano»."),
    )

    def __init__(
        self, data: Any = None, *, sheet: dict[str, Any] | None = None, settings: Any = None, is_npc: bool = False
    ) -> None:
        self.sheet: dict[str, Any] = dict(sheet or {})
        self.settings: FaeSettings = settings if isinstance(settings, FaeSettings) else settings_or_default(None)
        self.is_npc = is_npc
        super().__init__(data, initial=self._initial())
        s = self.settings
        if is_npc:
            self.fields["kind"] = forms.ChoiceField(
                label=_("Tipo de PNJ"), choices=NPC_KINDS, initial="npc_main", required=True
            )
        for i in range(1, s.other_aspects_max + 1):
            self.fields[f"aspect_{i}"] = forms.CharField(
                label=_("Aspecto %(n)d") % {"n": i},
                max_length=200,
                required=False,
                help_text=_("Hasta %(max)d aspectos más; puedes dejarlos en blanco y escribirlos jugando.")
                % {"max": s.other_aspects_max}
                if i == 1
                else "",
            )
            if is_npc:
                self.fields[f"aspect_{i}_hidden"] = forms.BooleanField(label=_("Oculto"), required=False)
        top = s.approach_max_after_advancement if self.sheet.get("approach_raises") else s.approach_max
        array = ", ".join(f"{v:+d}" for v in sorted(s.approach_creation_array, reverse=True))
        for key, label, hint in APPROACHES:
            self.fields[key] = forms.TypedChoiceField(
                label=label,
                coerce=int,
                empty_value=None,
                required=False,
                choices=[("", "—"), *((v, ladder_label(v)) for v in range(top, s.approach_min - 1, -1))],
                help_text=hint
                if is_npc
                else _("%(hint)s Reparte %(array)s entre los seis estilos.") % {"hint": hint, "array": array},
            )
        for i in range(1, s.stunts_max + 1):
            self.fields[f"stunt_{i}_template"] = forms.ChoiceField(
                label=_("Proeza %(n)d") % {"n": i},
                choices=TEMPLATES,
                required=False,
                help_text=_(
                    "Hasta %(free)d proezas sin coste; cada una más baja la recuperación en 1 "
                    "(máximo %(max)d, recuperación mínima %(min)d). Se sugiere empezar con %(start)d."
                )
                % {"free": s.stunts_free, "max": s.stunts_max, "min": s.refresh_min, "start": s.stunts_suggested_start}
                if i == 1
                else "",
            )
            self.fields[f"stunt_{i}_because"] = forms.CharField(
                label=_("Debido a que soy/tengo…"), max_length=500, required=False
            )
            self.fields[f"stunt_{i}_actions"] = forms.ChoiceField(
                label=_("Acción (+2)"), choices=ACTIONS, required=False
            )
            self.fields[f"stunt_{i}_approach"] = forms.ChoiceField(
                label=_("Estilo"), choices=[("", "—"), *((k, label) for k, label, _h in APPROACHES)], required=False
            )
            self.fields[f"stunt_{i}_circumstance"] = forms.CharField(label=_("Cuando…"), max_length=500, required=False)
            self.fields[f"stunt_{i}_effect"] = forms.CharField(
                label=_("Una vez por partida puedo…"), max_length=500, required=False
            )
            self.fields[f"stunt_{i}_text"] = forms.CharField(
                label=_("Texto de la proeza libre"), max_length=1000, required=False
            )

    # --- initial values from the stored sheet ------------------------------------------------------
    def _initial(self) -> dict[str, Any]:
        sheet = self.sheet
        initial: dict[str, Any] = {
            "high_concept": sheet.get("high_concept", ""),
            "trouble": sheet.get("trouble", ""),
            "kind": sheet.get("kind") if sheet.get("kind") not in (None, "pc") else "npc_main",
        }
        for key, value in (sheet.get("approaches") or {}).items():
            initial[key] = value
        for i, aspect in enumerate(sheet.get("other_aspects") or (), start=1):
            aspect = {"text": aspect} if isinstance(aspect, str) else aspect
            initial[f"aspect_{i}"] = aspect.get("text", "")
            initial[f"aspect_{i}_hidden"] = bool(aspect.get("hidden"))
        for i, stunt in enumerate(sheet.get("stunts") or (), start=1):
            actions = sorted(stunt.get("actions") or ())
            initial[f"stunt_{i}_template"] = stunt.get("template") or ""
            initial[f"stunt_{i}_actions"] = TWO_ACTIONS if len(actions) == 2 else (actions[0] if actions else "")
            initial[f"stunt_{i}_approach"] = stunt.get("approach") or ""
            for name in ("because", "circumstance", "effect", "text"):
                initial[f"stunt_{i}_{name}"] = stunt.get(name, "")
        return initial

    # --- groups for the template -----------------------------------------------------------------
    def approach_fields(self) -> list[forms.BoundField]:
        return [self[key] for key, _l, _h in APPROACHES]

    def aspect_rows(self) -> list[tuple[forms.BoundField, forms.BoundField | None]]:
        return [
            (self[f"aspect_{i}"], self[f"aspect_{i}_hidden"] if self.is_npc else None)
            for i in range(1, self.settings.other_aspects_max + 1)
        ]

    def stunt_rows(self) -> list[dict[str, forms.BoundField]]:
        return [
            {name: self[f"stunt_{i}_{name}"] for name in STUNT_FIELDS} for i in range(1, self.settings.stunts_max + 1)
        ]

    # --- validation and output -------------------------------------------------------------------
    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        for i in range(1, self.settings.stunts_max + 1):
            template = cleaned.get(f"stunt_{i}_template") or ""
            filled = any(cleaned.get(f"stunt_{i}_{name}") for name in STUNT_FIELDS[1:])
            if filled and not template:
                self.add_error(f"stunt_{i}_template", _("Elige la plantilla de la proeza."))
            if (
                template
                and template != "bonus"
                and (cleaned.get(f"stunt_{i}_actions") or cleaned.get(f"stunt_{i}_approach"))
            ):
                self.add_error(f"stunt_{i}_actions", _("Solo las proezas de +2 nombran una acción y un estilo."))
        return cleaned

    def to_sheet(self) -> dict[str, Any]:
        data = self.cleaned_data
        sheet = dict(self.sheet)
        sheet["high_concept"] = data["high_concept"].strip()
        sheet["trouble"] = data["trouble"].strip()
        if self.is_npc:
            sheet["kind"] = data["kind"]
        sheet["approaches"] = {key: data[key] for key, _l, _h in APPROACHES if data.get(key) is not None}
        old_aspects = list(sheet.get("other_aspects") or ())
        aspects: list[dict[str, Any]] = []
        for i in range(1, self.settings.other_aspects_max + 1):
            text = data[f"aspect_{i}"].strip()
            if not text:
                continue
            old = old_aspects[i - 1] if i <= len(old_aspects) else {}
            aspect = {**({"text": old} if isinstance(old, str) else old), "text": text}
            if self.is_npc:
                aspect["hidden"] = bool(data.get(f"aspect_{i}_hidden"))
            aspects.append(aspect)
        sheet["other_aspects"] = aspects
        old_stunts = list(sheet.get("stunts") or ())
        used_keys = {s.get("key") for s in old_stunts if s.get("key")}
        stunts: list[dict[str, Any]] = []
        for i in range(1, self.settings.stunts_max + 1):
            template = data[f"stunt_{i}_template"]
            if not template:
                continue
            stunt = dict(old_stunts[i - 1]) if i <= len(old_stunts) else {}
            if not stunt.get("key"):
                n = i
                while f"S{n}" in used_keys:
                    n += 1
                stunt["key"] = f"S{n}"
                used_keys.add(stunt["key"])
            chosen = data[f"stunt_{i}_actions"]
            actions = sorted(chosen.split("+")) if chosen else []
            stunt.update(
                template=template,
                because=data[f"stunt_{i}_because"].strip(),
                actions=actions,
                restrictive_circumstance=len(actions) == 2,
                approach=data[f"stunt_{i}_approach"] or None,
                circumstance=data[f"stunt_{i}_circumstance"].strip(),
                effect=data[f"stunt_{i}_effect"].strip(),
                text=data[f"stunt_{i}_text"].strip(),
            )
            stunts.append(stunt)
        sheet["stunts"] = stunts
        return sheet
