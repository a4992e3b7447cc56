"""FATE 3.0 — Spirit of the Century: the creation/edit form of a draft sheet.

Laid out like the paper sheet: aspects, skills on the adjective ladder, stunts (*virtudes*). The stress
tracks follow Vigor and Coraje and the starting fate points follow the aspects, so nobody types them.
Creation rules (pyramid, counts) are checked when the sheet is submitted (binding ``new_sheet``); this
form checks what a half-written sheet can already get wrong.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from rulesets.fate_sotc.sheet import sotc_settings
from systems.fate_sotc.ladder import ladder_label
from systems.fate_sotc.settings import FateSotcSettings
from systems.fate_sotc.sheet import CharacterKind

ASPECT_MAX = 120
STUNT_NAME_MAX = 100
STUNT_DESCRIPTION_MAX = 4000
NPC_LADDER = range(8, -3, -1)  # Legendario (+8) .. Terrible (-2)


def _lang() -> str:
    return get_language() or "es"


def _pyramid_text(cfg: FateSotcSettings) -> str:
    tiers = sorted(((int(r), n) for r, n in cfg.skill_pyramid.items() if n > 0), reverse=True)
    return ", ".join(f"{n} × {ladder_label(r, _lang())}" for r, n in tiers)


class SheetForm(forms.Form):
    def __init__(
        self, data: Any = None, *, sheet: dict[str, Any] | None = None, settings: Any = None, is_npc: bool = False
    ) -> None:
        self.sheet = dict(sheet or {})
        self.cfg = sotc_settings(settings)
        self.is_npc = is_npc
        cfg = self.cfg
        lang = _lang()
        skills: dict[str, int] = dict(self.sheet.get("skills") or {})
        aspects: list[dict[str, Any]] = list(self.sheet.get("aspects") or [])
        stunts: list[dict[str, Any]] = list(self.sheet.get("stunts") or [])
        super().__init__(data)
        initial: Any = self.initial

        # Skills: one line per skill of the campaign's catalogue, rated on the ladder.
        self.skill_keys = [s.key for s in sorted(cfg.skill_catalogue, key=lambda s: cfg.skill_label(s.key, lang))]
        top = max(1, cfg.max_skill_at_creation)
        values = list(NPC_LADDER) if is_npc else list(range(top, 0, -1))
        pyramid = _pyramid_text(cfg)
        for i, key in enumerate(self.skill_keys):
            current = skills.get(key)
            choices_values = [v for v in values if v != 0]
            if current is not None and current not in choices_values:
                choices_values = sorted({*choices_values, current}, reverse=True)
            choices = [("", _("— Mediocre (+0), sin apuntar"))] + [
                (str(v), ladder_label(v, lang)) for v in choices_values
            ]
            help_text = ""
            if i == 0:
                help_text = (
                    _("Reparte las habilidades en pirámide: %(pyramid)s. Las demás quedan en Mediocre (+0).")
                    % {"pyramid": pyramid}
                    if not is_npc
                    else _("Los PNJ pueden tener cualquier nivel de la escala; las que no apuntes son Mediocre (+0).")
                )
            if key == cfg.stress_skill.health:
                help_text = _(
                    "Vigor alarga el medidor de Salud: +1 casilla con Normal, +2 con Bueno, +3 con Excelente."
                )
            elif key == cfg.stress_skill.composure:
                help_text = _(
                    "Coraje alarga el medidor de Serenidad: +1 casilla con Normal, +2 con Bueno, +3 con Excelente."
                )
            self.fields[f"skill_{key}"] = forms.TypedChoiceField(
                label=cfg.skill_label(key, lang),
                choices=choices,
                coerce=int,
                empty_value=None,
                required=False,
                help_text=help_text,
            )
            initial[f"skill_{key}"] = "" if current is None else str(current)

        # Aspects: the campaign's number of lines (more if the sheet already has more).
        self.aspect_count = max(cfg.aspects_per_character, len(aspects))
        for i in range(1, self.aspect_count + 1):
            self.fields[f"aspect_{i}"] = forms.CharField(
                label=_("Aspecto %(n)d") % {"n": i},
                max_length=ASPECT_MAX,
                required=False,
                help_text=(
                    _(
                        "Escribe %(n)d aspectos: frases, personas o ayudas que digan quién es tu personaje. "
                        "Cada aspecto funciona a favor y en contra; no repitas ninguno. Empiezas cada sesión con "
                        "tantos puntos de Destino como aspectos."
                    )
                    % {"n": cfg.aspects_per_character}
                    if i == 1
                    else ""
                ),
            )
            initial[f"aspect_{i}"] = str(aspects[i - 1].get("text", "")) if i <= len(aspects) else ""

        # Stunts (virtudes): name, linked skill, cost per activation, rules text.
        self.stunt_count = max(cfg.stunts_per_character, len(stunts))
        skill_choices = [("", _("— ninguna"))] + [(k, cfg.skill_label(k, lang)) for k in self.skill_keys]
        cost_choices = [("0", _("Gratis")), ("1", _("1 PD")), ("2", _("2 PD")), ("3", _("3 PD"))]
        for j in range(1, self.stunt_count + 1):
            stunt = stunts[j - 1] if j <= len(stunts) else {}
            self.fields[f"stunt_{j}_name"] = forms.CharField(
                label=_("Virtud %(n)d") % {"n": j},
                max_length=STUNT_NAME_MAX,
                required=False,
                help_text=(
                    _(
                        "Elige %(n)d virtudes: cada una dobla o rompe una regla. Algunas cuestan 1 PD cada vez "
                        "que se activan. El DJ las aprueba con el personaje."
                    )
                    % {"n": cfg.stunts_per_character}
                    if j == 1
                    else ""
                ),
            )
            self.fields[f"stunt_{j}_skill"] = forms.ChoiceField(
                label=_("Habilidad vinculada"), choices=skill_choices, required=False
            )
            self.fields[f"stunt_{j}_fp_cost"] = forms.TypedChoiceField(
                label=_("Coste al activarla"),
                choices=cost_choices,
                coerce=int,
                required=False,
                empty_value=0,  # type: ignore[arg-type]  # stubs: str
            )
            self.fields[f"stunt_{j}_description"] = forms.CharField(
                label=_("Descripción"),
                max_length=STUNT_DESCRIPTION_MAX,
                required=False,
                widget=forms.Textarea(attrs={"rows": 2}),
            )
            linked = stunt.get("linked_skill") or ""
            if linked and linked not in self.skill_keys:
                self.fields[f"stunt_{j}_skill"].choices = [*skill_choices, (linked, linked)]  # type: ignore[attr-defined]
            initial[f"stunt_{j}_name"] = stunt.get("name", "")
            initial[f"stunt_{j}_skill"] = linked
            initial[f"stunt_{j}_fp_cost"] = str(stunt.get("fp_cost", 0))
            initial[f"stunt_{j}_description"] = stunt.get("description", "")

        # NPCs only: the GM sets what a player character gets from the rules.
        if is_npc:
            self.fields["npc_kind"] = forms.ChoiceField(
                label=_("Tipo"),
                choices=[
                    (CharacterKind.NPC.value, _("PNJ")),
                    (CharacterKind.MINION_GROUP.value, _("Grupo de esbirros")),
                ],
                required=False,
            )
            self.fields["npc_fate_points"] = forms.IntegerField(
                label=_("Puntos de Destino"),
                min_value=0,
                max_value=99,
                required=False,
                help_text=_("Los PNJ pueden tener PD; lo que gastan va a la banca."),
            )
            self.fields["npc_tenacity"] = forms.TypedChoiceField(
                label=_("Tenacidad"),
                choices=[("", _("— sin tenacidad")), ("1", _("De primer grado (1)")), ("2", _("De segundo grado (2)"))],
                coerce=int,
                empty_value=None,
                required=False,
                help_text=_("Cuántas consecuencias aguanta antes de ofrecer su rendición (regla opcional)."),
            )
            kind = self.sheet.get("kind")
            initial["npc_kind"] = kind if kind == CharacterKind.MINION_GROUP.value else CharacterKind.NPC.value
            initial["npc_fate_points"] = self.sheet.get("fate_points", 0)
            tenacity = self.sheet.get("tenacity")
            initial["npc_tenacity"] = "" if tenacity is None else str(tenacity)

    # --- Groups for the paper-sheet layout ---

    def skill_fields(self) -> list[forms.BoundField]:
        return [self[f"skill_{key}"] for key in self.skill_keys]

    def aspect_fields(self) -> list[forms.BoundField]:
        return [self[f"aspect_{i}"] for i in range(1, self.aspect_count + 1)]

    def stunt_rows(self) -> list[dict[str, forms.BoundField]]:
        return [
            {
                "name": self[f"stunt_{j}_name"],
                "skill": self[f"stunt_{j}_skill"],
                "fp_cost": self[f"stunt_{j}_fp_cost"],
                "description": self[f"stunt_{j}_description"],
            }
            for j in range(1, self.stunt_count + 1)
        ]

    def npc_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in ("npc_kind", "npc_fate_points", "npc_tenacity") if name in self.fields]

    def pyramid_help(self) -> str:
        return _pyramid_text(self.cfg)

    # --- Validation ---

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        seen: dict[str, str] = {}
        for i in range(1, self.aspect_count + 1):
            name = f"aspect_{i}"
            text = (cleaned.get(name) or "").strip()
            if not text:
                continue
            folded = text.casefold()
            if folded in seen:
                self.add_error(name, _("Este aspecto repite el %(other)s.") % {"other": seen[folded]})
            else:
                seen[folded] = str(self.fields[name].label)
        for j in range(1, self.stunt_count + 1):
            has_text = (cleaned.get(f"stunt_{j}_description") or "").strip() or cleaned.get(f"stunt_{j}_skill")
            if has_text and not (cleaned.get(f"stunt_{j}_name") or "").strip():
                self.add_error(f"stunt_{j}_name", _("Ponle nombre a la virtud."))
        return cleaned

    def to_sheet(self) -> dict[str, Any]:
        """The draft sheet to store: what the form edits, on top of everything else the sheet holds."""
        data = self.cleaned_data
        sheet = dict(self.sheet)
        catalogue = set(self.skill_keys)
        skills = {k: v for k, v in (self.sheet.get("skills") or {}).items() if k not in catalogue}
        for key in self.skill_keys:
            value = data.get(f"skill_{key}")
            if value is not None:
                skills[key] = value
        sheet["skills"] = skills

        old_aspects: list[dict[str, Any]] = list(self.sheet.get("aspects") or [])
        used_ids = {str(a.get("id")) for a in old_aspects}
        aspects: list[dict[str, Any]] = []
        for i in range(1, self.aspect_count + 1):
            text = (data.get(f"aspect_{i}") or "").strip()
            if not text:
                continue
            if i <= len(old_aspects):
                aspects.append({**old_aspects[i - 1], "text": text})
                continue
            n = i
            while f"aspecto-{n}" in used_ids:
                n += 1
            used_ids.add(f"aspecto-{n}")
            aspects.append({"id": f"aspecto-{n}", "text": text})
        sheet["aspects"] = aspects

        old_stunts: list[dict[str, Any]] = list(self.sheet.get("stunts") or [])
        stunts: list[dict[str, Any]] = []
        for j in range(1, self.stunt_count + 1):
            name = (data.get(f"stunt_{j}_name") or "").strip()
            if not name:
                continue
            base = dict(old_stunts[j - 1]) if j <= len(old_stunts) else {}
            edited = {
                "name": name,
                "description": (data.get(f"stunt_{j}_description") or "").strip(),
                "fp_cost": data.get(f"stunt_{j}_fp_cost") or 0,
                "linked_skill": data.get(f"stunt_{j}_skill") or None,
            }
            if base and any(base.get(k) != v for k, v in edited.items()):
                base["approved"] = False  # a changed stunt needs the GM's eye again
            stunts.append({**base, **edited})
        sheet["stunts"] = stunts

        if self.is_npc:
            sheet["kind"] = data.get("npc_kind") or CharacterKind.NPC.value
            sheet["fate_points"] = data.get("npc_fate_points") or 0
            sheet["tenacity"] = data.get("npc_tenacity")
        return sheet


__all__ = ["SheetForm"]
