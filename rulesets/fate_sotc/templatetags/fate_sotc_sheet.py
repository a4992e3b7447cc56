"""What the FATE SotC sheet page shows, built from the stored sheet: ladder labels, boxes, slots, coins.

``{% fate_sotc_sheet sheet settings owner_ops gm_ops as view %}`` gives the template one object to read,
so the template never recomputes a rule (track sizes, refresh rate, the ladder).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django import template
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from pydantic import ValidationError as PydanticValidationError

from rulesets.fate_sotc.sheet import load_sheet, sotc_settings
from systems.fate_sotc import RULESET
from systems.fate_sotc.consequences import ORDER, DurationGrade
from systems.fate_sotc.defeat import Status
from systems.fate_sotc.errors import MESSAGES
from systems.fate_sotc.ladder import ladder_label
from systems.fate_sotc.resolution import Track
from systems.fate_sotc.sheet import CharacterKind, FateSotcSheet, creation_problems

register = template.Library()

MAX_COINS_DRAWN = 20

# Buttons by who presses them. Spends the owner asks for; GM awards; spends the GM records once approved.
OWNER_SPENDS = (
    "fp_advantage",
    "refuse_gm_gift",
    "avoid_maneuver_aspect",
    "guess",
    "compel_buy_off",
    "defeat_outcome_demand",
)
GM_APPROVED_SPENDS = (
    "invoke_own",
    "invoke_other",
    "invoke_effect_own",
    "invoke_effect_other",
    "declaration",
    "use_environment",
)
GM_AWARDS = (
    "compel_accepted",
    "offscreen_compel",
    "accidental_compel",
    "gm_foreshadow_gift",
    "concession_reward",
    "guess_refund",
    "deceiver_returns_point",
    "tag_compensation",
    "concession_refused_penalty",
    "gm_blind_guess_charge",
)
WITH_AMOUNT = frozenset({"compel_buy_off", "compel_accepted", "gm_blind_guess_charge"})


@dataclass
class Box:
    number: int
    marked: bool


@dataclass
class TrackView:
    key: str
    label: str
    skill_label: str
    boxes: list[Box]

    @property
    def marked(self) -> int:
        return sum(1 for box in self.boxes if box.marked)


@dataclass
class ConsequenceSlot:
    severity: str
    label: str
    text: str = ""
    track_label: str = ""
    grade_label: str = ""

    @property
    def taken(self) -> bool:
        return bool(self.text)


@dataclass
class SkillLine:
    key: str
    label: str
    rating: int
    ladder: str

    @property
    def line(self) -> str:
        return f"{self.label}: {self.ladder}"


@dataclass
class OpButton:
    key: str
    label: str
    amount: bool = False
    gm_approved: bool = False


@dataclass
class SheetView:
    valid: bool
    kind_label: str = ""
    status: str = Status.ACTIVE.value
    status_label: str = ""
    fate_points: int = 0
    pending: int = 0
    refresh_rate: int = 0
    coins: list[int] = field(default_factory=list)
    coins_more: int = 0
    aspects: list[dict[str, Any]] = field(default_factory=list)
    temporary_aspects: list[dict[str, Any]] = field(default_factory=list)
    skills: list[SkillLine] = field(default_factory=list)
    stunts: list[dict[str, Any]] = field(default_factory=list)
    tracks: list[TrackView] = field(default_factory=list)
    consequences: list[ConsequenceSlot] = field(default_factory=list)
    tenacity: int | None = None
    warnings: list[str] = field(default_factory=list)
    may: dict[str, bool] = field(default_factory=dict)
    owner_spends: list[OpButton] = field(default_factory=list)
    gm_spends: list[OpButton] = field(default_factory=list)
    gm_awards: list[OpButton] = field(default_factory=list)
    skill_choices: list[tuple[str, str]] = field(default_factory=list)
    ladder_choices: list[tuple[int, str]] = field(default_factory=list)
    taken_severities: list[tuple[str, str]] = field(default_factory=list)
    track_choices: list[tuple[str, str]] = field(default_factory=list)
    status_choices: list[tuple[str, str]] = field(default_factory=list)

    @property
    def is_taken_out(self) -> bool:
        return self.status == Status.TAKEN_OUT.value

    @property
    def any_gm_control(self) -> bool:
        return any(self.may.get(key) for key in ("refresh", "close_scene", "start_session", "set_status"))


def _lang() -> str:
    return get_language() or "es"


def track_label(track: str) -> str:
    return _("Salud") if track == Track.HEALTH.value else _("Serenidad")


def severity_label(severity: str) -> str:
    return {"leve": _("Leve"), "moderada": _("Moderada"), "severa": _("Severa"), "none": _("Ninguna")}.get(
        severity, severity
    )


def status_label(status: str) -> str:
    return {"active": _("Activo"), "taken_out": _("Derrotado"), "conceded": _("Rendido")}.get(status, status)


def kind_label(kind: str) -> str:
    return {"pc": _("Personaje jugador"), "npc": _("PNJ"), "minion_group": _("Grupo de esbirros")}.get(kind, kind)


def _problem_message(code: str) -> str:
    es, en = MESSAGES.get(code, (code, code))
    return en if _lang().startswith("en") else es


def _buttons(
    keys: Iterable[str], allowed: set[str], names: Mapping[str, str], approved: bool = False
) -> list[OpButton]:
    return [OpButton(k, names.get(k, k), k in WITH_AMOUNT, approved) for k in keys if k in allowed]


def build_view(
    sheet_data: Mapping[str, Any] | None,
    settings: Any = None,
    owner_ops: Iterable[str] | None = None,
    gm_ops: Iterable[str] | None = None,
    is_npc: bool | None = None,
) -> SheetView:
    cfg = sotc_settings(settings)
    lang = _lang()
    try:
        data = dict(sheet_data or {})
        if is_npc is not None and "kind" not in data:  # a draft's kind is fixed on submission
            data["kind"] = (CharacterKind.NPC if is_npc else CharacterKind.PC).value
        sheet: FateSotcSheet = load_sheet(data)
    except PydanticValidationError:
        return SheetView(valid=False)
    allowed = set(owner_ops or ()) | set(gm_ops or ())
    ruleset = RULESET
    names = {op.key: op.names.get(lang) for op in ruleset.operations}

    skills = [
        SkillLine(key, cfg.skill_label(key, lang), rating, ladder_label(rating, lang))
        for key, rating in sorted(sheet.skills.items(), key=lambda kv: (-kv[1], cfg.skill_label(kv[0], lang)))
    ]
    tracks = []
    for track in (Track.HEALTH, Track.COMPOSURE):
        marks = sheet.stress.get(track)
        skill_key = getattr(cfg.stress_skill, track.value)
        tracks.append(
            TrackView(
                track.value,
                track_label(track.value),
                cfg.skill_label(skill_key, lang),
                [Box(i + 1, bool(m)) for i, m in enumerate(marks)],
            )
        )
    held = {c.severity.value: c for c in sheet.consequences}
    slots = []
    for severity in ORDER[: cfg.max_consequences]:
        c = held.get(severity.value)
        slot = ConsequenceSlot(severity.value, severity_label(severity.value))
        if c is not None:
            slot.text = c.text
            slot.track_label = track_label(c.track.value)
            if c.grade is not DurationGrade(c.severity.value):
                slot.grade_label = severity_label(c.grade.value)
        slots.append(slot)
    for c in sheet.consequences:  # beyond the campaign's slots (settings lowered later): never hide a mark
        if c.severity not in ORDER[: cfg.max_consequences]:
            slots.append(
                ConsequenceSlot(c.severity.value, severity_label(c.severity.value), c.text, track_label(c.track.value))
            )
    stunts = [
        {
            "index": i,
            "name": s.name,
            "description": s.description,
            "fp_cost": s.fp_cost,
            "skill_label": cfg.skill_label(s.linked_skill, lang) if s.linked_skill else "",
            "approved": s.approved,
            "affordable": sheet.fate_points >= s.fp_cost,
        }
        for i, s in enumerate(sheet.stunts)
    ]
    temporary = [
        {
            "id": a.id,
            "text": a.text,
            "active": a.active,
            "persistence": {"fragile": _("efímero"), "sticky": _("duradero"), "permanent": _("permanente")}.get(
                a.persistence.value, a.persistence.value
            ),
            "free_invocations": sum(1 for fi in a.free_invocations if not fi.used),
        }
        for a in sheet.temporary_aspects
    ]
    warnings = []
    if sheet.kind is CharacterKind.PC:
        warnings = [_problem_message(code) for code in creation_problems(sheet, cfg)]
    ladder_values = range(-2, 9)
    return SheetView(
        valid=True,
        kind_label=kind_label(sheet.kind.value),
        status=sheet.status.value,
        status_label=status_label(sheet.status.value),
        fate_points=sheet.fate_points,
        pending=sheet.fate_points_pending,
        refresh_rate=sheet.refresh_rate,
        coins=list(range(1, min(sheet.fate_points, MAX_COINS_DRAWN) + 1)),
        coins_more=max(0, sheet.fate_points - MAX_COINS_DRAWN),
        aspects=[{"id": a.id, "text": a.text} for a in sheet.aspects],
        temporary_aspects=temporary,
        skills=skills,
        stunts=stunts,
        tracks=tracks,
        consequences=slots,
        tenacity=sheet.tenacity,
        warnings=warnings,
        may={key: True for key in allowed},
        owner_spends=_buttons(OWNER_SPENDS, allowed, names),
        gm_spends=_buttons(GM_APPROVED_SPENDS, allowed, names, approved=True),
        gm_awards=_buttons(GM_AWARDS, allowed, names),
        skill_choices=sorted(
            ((s.key, cfg.skill_label(s.key, lang)) for s in cfg.skill_catalogue), key=lambda kv: kv[1]
        ),
        ladder_choices=[(v, ladder_label(v, lang)) for v in reversed(ladder_values)],
        taken_severities=[(s.value, severity_label(s.value)) for s in ORDER if s.value in held],
        track_choices=[(t.value, track_label(t.value)) for t in Track],
        status_choices=[(s.value, status_label(s.value)) for s in Status],
    )


@register.simple_tag
def fate_sotc_sheet(
    sheet: Mapping[str, Any] | None,
    settings: Any = None,
    owner_ops: Iterable[str] | None = None,
    gm_ops: Iterable[str] | None = None,
    is_npc: bool | None = None,
) -> SheetView:
    return build_view(sheet, settings, owner_ops, gm_ops, is_npc)


@register.filter
def fate_ladder(value: Any) -> str:
    """``3|fate_ladder`` → ``Bueno (+3)``."""
    try:
        return ladder_label(int(value), _lang())
    except (TypeError, ValueError):
        return ""


__all__ = ["SheetView", "build_view", "register"]


@register.filter
def sotc_ladder(value: Any) -> str:
    """An effort or a rating in the ladder's words, in the page's language: "Bueno (+3)"."""
    try:
        return ladder_label(int(value), get_language() or "es")
    except (TypeError, ValueError):
        return ""
