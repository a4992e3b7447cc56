"""Settlement and close (§3.7): domination effects for everyone involved, then the GM's optional
failure consequence (R, B-AMB-12), then spent despair moves to the hope chest."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Literal

from pydantic import BaseModel, ConfigDict

from systems.dont_rest_your_head.conflict import (
    ConflictState,
    Settlement,
    Table,
    outcome,
    require_state,
)
from systems.dont_rest_your_head.crash import lower_exhaustion, raise_exhaustion
from systems.dont_rest_your_head.refusals import refuse
from systems.dont_rest_your_head.settings import (
    DEFAULT_SETTINGS,
    ConsequenceTargets,
    DespairPerPain,
    Settings,
)
from systems.dont_rest_your_head.sheet import Sheet, Status
from systems.dont_rest_your_head.snap import BoxKind, check_response, clear_box, free_boxes, must_snap

DisciplineBenefit = Literal["nothing", "exhaustion-1", "clear_fight", "clear_flight"]
Consequence = Literal["none", "exhaustion+1", "check_box"]


class SettlementChoices(BaseModel):
    """The human choices settlement needs (validated from untrusted input).

    A missing discipline benefit means "nothing" (it is optional, S). A missing box kind is filled
    in when only one kind is free; otherwise it is required.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    discipline_benefits: dict[str, DisciplineBenefit] = {}
    madness_boxes: dict[str, BoxKind] = {}
    consequence: Consequence = "none"
    consequence_boxes: dict[str, BoxKind] = {}


@dataclass(frozen=True)
class SettlementOptions:
    """What to ask before settling: only the allowed options are offered (§3.10 step 7)."""

    dominant_pool: str | None
    success: bool
    discipline_benefits: Mapping[str, tuple[DisciplineBenefit, ...]]
    madness_boxes: Mapping[str, tuple[BoxKind, ...]]  # empty tuple: no free box, the PC will snap
    consequences: tuple[Consequence, ...]


def discipline_benefit_options(sheet: Sheet) -> tuple[DisciplineBenefit, ...]:
    opts: list[DisciplineBenefit] = ["nothing"]  # (S) optional; B-AMB-33 with nothing to remove
    if sheet.exhaustion > 0:
        opts.append("exhaustion-1")
    if sheet.fight > 0:
        opts.append("clear_fight")
    if sheet.flight > 0:
        opts.append("clear_flight")
    return tuple(opts)


def box_options(sheet: Sheet, settings: Settings = DEFAULT_SETTINGS) -> tuple[BoxKind, ...]:
    free = free_boxes(sheet, settings)
    return tuple(k for k in ("fight", "flight") if free[k] > 0)


def consequence_options(success: bool, dominant_pool: str | None) -> tuple[Consequence, ...]:
    """(S) only on a failure, and never repeating the dominating effect."""
    if success:
        return ("none",)
    opts: list[Consequence] = ["none"]
    if dominant_pool != "exhaustion":
        opts.append("exhaustion+1")
    if dominant_pool != "madness":
        opts.append("check_box")
    return tuple(opts)


def settlement_options(table: Table, settings: Settings = DEFAULT_SETTINGS) -> SettlementOptions:
    c = table.conflict
    if c.state not in (ConflictState.ADJUSTING, ConflictState.SETTLING):
        refuse("WRONG_STATE", state=c.state.value)
    res = outcome(c)
    involved = c.involved
    return SettlementOptions(
        dominant_pool=res.dominant_pool,
        success=res.success,
        discipline_benefits=(
            {pc: discipline_benefit_options(table.sheet(pc)) for pc in involved}
            if res.dominant_pool == "discipline"
            else {}
        ),
        madness_boxes=(
            {pc: box_options(table.sheet(pc), settings) for pc in involved} if res.dominant_pool == "madness" else {}
        ),
        consequences=consequence_options(res.success, res.dominant_pool),
    )


def _mark_box(sheet: Sheet, chosen: BoxKind | None, pool_size: int, settings: Settings) -> Sheet:
    if chosen is None and not must_snap(sheet, settings):
        free = box_options(sheet, settings)
        if len(free) == 1:
            chosen = free[0]  # only one kind has room: that is the choice
    return check_response(sheet, chosen, pool_size, settings)


def settle(table: Table, choices: SettlementChoices, settings: Settings = DEFAULT_SETTINGS) -> Table:
    """Apply every effect and close the conflict. A second settlement is refused."""
    c = table.conflict
    require_state(c, ConflictState.SETTLING)
    res = outcome(c)
    assert c.leader is not None and c.leader_roll is not None
    sizes = {c.leader: c.leader_roll.pool_size}
    sizes.update({h.pc: h.pool_size for h in c.helper_rolls if h.pc not in c.dropped})
    involved = c.involved
    sheets = dict(table.sheets)
    effects: list[tuple[str, str]] = []
    despair_gained = 0

    def living(pc: str) -> bool:
        return sheets[pc].status not in (Status.NIGHTMARE, Status.REMOVED)

    for pc in involved:
        if pc not in sheets:
            refuse("NOT_INVOLVED", pc=pc)

    # 1. domination effects, for every involved PC (S)
    dom = res.dominant_pool
    if dom == "discipline":
        for pc in involved:
            benefit = choices.discipline_benefits.get(pc, "nothing")
            if benefit not in discipline_benefit_options(sheets[pc]):
                refuse("CHOICE_NOT_ALLOWED", pc=pc, choice=benefit)
            if benefit == "exhaustion-1":
                sheets[pc] = lower_exhaustion(sheets[pc], settings)
            elif benefit in ("clear_fight", "clear_flight"):
                sheets[pc] = clear_box(sheets[pc], "fight" if benefit == "clear_fight" else "flight")
            effects.append((pc, f"discipline:{benefit}"))
    elif dom == "exhaustion":
        for pc in involved:
            sheets[pc] = raise_exhaustion(sheets[pc], settings)  # (S) even after a voluntary +1
            effects.append((pc, "exhaustion+1"))
    elif dom == "madness":
        for pc in involved:
            before = sheets[pc]
            sheets[pc] = _mark_box(before, choices.madness_boxes.get(pc), sizes[pc], settings)
            effects.append((pc, _box_effect(before, sheets[pc])))
    elif dom == "pain" and res.despair_gain:
        per_pc = settings.despair_per_pain_domination == DespairPerPain.ONE_PER_INVOLVED_PC
        despair_gained = len(involved) if per_pc else 1  # (R, B-AMB-10)
        effects.append(("campaign", f"despair+{despair_gained}"))

    # 2. the GM's optional failure consequence (S)
    if choices.consequence not in consequence_options(res.success, dom):
        refuse("CONSEQUENCE_NOT_ALLOWED", choice=choices.consequence)
    if choices.consequence != "none":
        targets = involved if settings.consequence_targets == ConsequenceTargets.ALL_INVOLVED else (c.leader,)
        for pc in targets:
            if not living(pc):
                continue
            before = sheets[pc]
            if choices.consequence == "exhaustion+1":
                sheets[pc] = raise_exhaustion(before, settings)
                effects.append((pc, "consequence:exhaustion+1"))
            else:
                sheets[pc] = _mark_box(before, choices.consequence_boxes.get(pc), sizes[pc], settings)
                effects.append((pc, "consequence:" + _box_effect(before, sheets[pc])))

    # The breakdown is played out for at least the rest of this scene (S).
    for pc in involved:
        if sheets[pc].permanent_madness > table.sheets[pc].permanent_madness:
            sheets[pc] = sheets[pc].model_copy(update={"snap_scene_id": c.scene_id})

    # 3. close: spent despair becomes hope (S)
    hope_gain = c.despair_spent
    chest = table.chest.model_copy(
        update={"despair": table.chest.despair + despair_gained, "hope": table.chest.hope + hope_gain}
    )
    nightmares = {
        pc: sheets[pc].nightmare_pain or 1
        for pc in involved
        if sheets[pc].status == Status.NIGHTMARE and table.sheets[pc].status != Status.NIGHTMARE
    }
    record = Settlement(
        outcome=res,
        effects=tuple(effects),
        despair_gained=despair_gained,
        hope_from_shading=hope_gain,
        nightmares=nightmares,
    )
    conflict = replace(c, state=ConflictState.CLOSED, despair_spent=0, settlement=record)
    return Table(conflict=conflict, chest=chest, sheets=sheets)


def _box_effect(before: Sheet, after: Sheet) -> str:
    if after.permanent_madness > before.permanent_madness:
        return "nightmare" if after.status == Status.NIGHTMARE else "snap"
    return "check_fight" if after.fight > before.fight else "check_flight"
