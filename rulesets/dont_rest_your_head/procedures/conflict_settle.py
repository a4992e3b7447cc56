"""Settlement (§3.7, §3.10 steps 7-8): each involved player chooses their discipline benefit or the box to
check when their pool dominates; then the GM applies the optional failure consequence (only the allowed
ones). Exhaustion, boxes, crash, snap, Nightmare, the despair coin and the spent despair becoming hope happen
at once, through the ledger; the record keeps the whole result in words."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from django.utils.translation import gettext as _
from pydantic import BaseModel, ConfigDict

from rulesets.dont_rest_your_head.procedures import words
from rulesets.dont_rest_your_head.procedures.conflict_state import (
    ConflictFlowState,
    conflict_of,
    name,
    outcome_record,
    pure_table,
    settings,
    stored,
)
from rulesets.dont_rest_your_head.rolls import outcome_json
from rulesets.dont_rest_your_head.sheet import dump_conflict
from rulesets.kit.procedures import FollowUp, LedgerOp, Outcome, RecordLine, StepInput
from rulesets.kit.refusals import refuse
from rulesets.kit.table import in_both
from systems.dont_rest_your_head import conflict as rules
from systems.dont_rest_your_head.conflict import Settlement, Table
from systems.dont_rest_your_head.settlement import SettlementChoices, settle
from systems.dont_rest_your_head.sheet import Status
from systems.registry import Names

_PARAMS = ConfigDict(extra="forbid")


class ChooseParams(BaseModel):
    model_config = _PARAMS

    pc: int | None = None
    benefit: Literal["nothing", "exhaustion-1", "clear_fight", "clear_flight"] | None = None
    box: Literal["fight", "flight"] | None = None


class SettleParams(BaseModel):
    model_config = _PARAMS

    consequence: Literal["none", "exhaustion+1", "check_box"] = "none"
    consequence_box: Literal["fight", "flight"] | None = None


def pending_choices(state: ConflictFlowState) -> list[str]:
    """The protagonists whose player still has to choose."""
    return [pc for pc, ask in state.asks.items() if ask.needed and ask.chosen is None]


def choose(given: StepInput[ConflictFlowState, ChooseParams]) -> Outcome[ConflictFlowState]:
    state, p = given.state, given.params
    mine = [pc for pc in pending_choices(state) if state.people[pc].actor == given.viewer.user_id]
    if p.pc is not None:
        mine = [pc for pc in mine if pc == str(p.pc)]
    if len(mine) != 1:
        raise _not_offered("pc")
    pc = mine[0]
    ask = state.asks[pc]
    choice = p.benefit if ask.benefits else p.box
    if choice is None or choice not in (ask.benefits or ask.boxes):
        raise _not_offered("benefit" if ask.benefits else "box")
    who = name(state, pc)
    if ask.benefits:
        line = in_both(
            lambda: (
                _("%(name)s elige el beneficio de la disciplina: %(choice)s.")
                % {"name": who, "choice": words.benefit_words(choice)}
            )
        )
    else:
        line = in_both(
            lambda: _("%(name)s elige marcar una casilla de %(box)s.") % {"name": who, "box": words.box_words(choice)}
        )
    asks = {**state.asks, pc: ask.model_copy(update={"chosen": choice})}
    c = conflict_of(state, given.secret)
    new, secret = stored(state, pure_table(given.table, c), given.table, asks=asks)
    return Outcome(state=new, secret=secret, record=[RecordLine(line)])


def _not_offered(field: str) -> Exception:
    return refuse(
        "choice_not_offered",
        "Ese valor no está entre las opciones que se ofrecen.",
        "That value is not among the options offered.",
        field=field,
    )


def settle_conflict(given: StepInput[ConflictFlowState, SettleParams]) -> Outcome[ConflictFlowState]:
    state, p = given.state, given.params
    c = conflict_of(state, given.secret)
    assert c.leader is not None
    table = pure_table(given.table, c)
    if p.consequence not in state.consequences:
        raise _not_offered("consequence")
    chosen = {pc: ask.chosen for pc, ask in state.asks.items() if ask.chosen is not None}
    choices = SettlementChoices(
        discipline_benefits={pc: v for pc, v in chosen.items() if state.asks[pc].benefits},  # type: ignore[misc]
        madness_boxes={pc: v for pc, v in chosen.items() if state.asks[pc].boxes},  # type: ignore[misc]
        consequence=p.consequence,
        consequence_boxes={c.leader: p.consequence_box} if p.consequence_box else {},
    )
    done = settle(table, choices, settings(given.table))
    record = done.conflict.settlement
    assert record is not None
    # The final result is already in the record (the window's close); settling adds what it changed.
    effects = _effects(state, table, done, record)
    lines = [RecordLine(in_both(lambda: _("El DJ resuelve el conflicto."))), *effects]
    op = LedgerOp(
        "conflict_settled",
        {"flow": given.procedure_id, "conflict": dump_conflict(c), "choices": choices.model_dump(mode="json")},
        int(c.leader),
        _("Conflicto %(n)s") % {"n": given.procedure_number},
    )
    result = rules.outcome(c)
    follow_ups = []
    if state.rolls.leader is not None:
        told = [outcome_record(c, final=True), *effects]
        summary = Names(" ".join(x.words.es for x in told)[:300], " ".join(x.words.en for x in told)[:300])
        follow_ups.append(
            FollowUp(
                state.rolls.leader,
                "settle",
                summary,
                data={"choices": choices.model_dump(mode="json"), "effects": [list(e) for e in record.effects]},
                result=outcome_json(result),
            )
        )
    settlement = {
        "effects": [list(e) for e in record.effects],
        "despair_gained": record.despair_gained,
        "hope_from_shading": record.hope_from_shading,
        "nightmares": dict(record.nightmares),
    }
    new, secret = stored(state, done, settlement=settlement)
    return Outcome(state=new, secret=secret, closes="settled", ledger=[op], follow_ups=follow_ups, record=lines)


def _effects(state: ConflictFlowState, before: Table, after: Table, record: Settlement) -> list[RecordLine]:
    """Every change the settlement made, one line each: exhaustion, boxes, snaps, crashes, coins."""
    lines = [_line(words.effect_words, name(state, who), code) for who, code in record.effects if who != "campaign"]
    for pc, sheet in after.sheets.items():
        was = before.sheets.get(pc)
        if sheet.status == Status.CRASH_PENDING and (was is None or was.status != Status.CRASH_PENDING):
            lines.append(_line(_crashes, name(state, pc)))
    for pc, pain in record.nightmares.items():
        lines.append(_line(_nightmare, name(state, pc), pain))
    if record.despair_gained:
        lines.append(_line(words.despair_gained, record.despair_gained))
    if record.hope_from_shading:
        lines.append(_line(words.hope_from_shading, record.hope_from_shading))
    return lines


def _line(render: Callable[..., str], *args: Any) -> RecordLine:
    return RecordLine(in_both(lambda: render(*args)))


def _crashes(pc_name: str) -> str:
    return _("%(name)s colapsa: se dormirá al final de la escena.") % {"name": pc_name}


def _nightmare(pc_name: str, pain: int) -> str:
    return _("%(name)s es ahora una Pesadilla con %(n)s dados de dolor.") % {"name": pc_name, "n": pain}
