"""The adjustment window (§3.5, §3.6, §5.2): the leader's player lights the way with hope ("Iluminar"),
proposes a minor talent use or invokes a scar (the GM confirms either); the GM shades with despair; both
pass, or the GM closes the window ("Resolver") once the player could answer the last shading."""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Literal

from django.utils import timezone
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _
from pydantic import BaseModel, ConfigDict, Field

from rulesets.dont_rest_your_head.procedures import words
from rulesets.dont_rest_your_head.procedures.conflict_state import (
    AnyPool,
    ConflictFlowState,
    PendingScar,
    PlayerPool,
    conflict_of,
    faces,
    in_play,
    name,
    outcome_record,
    pure_table,
    settings,
    step_outcome,
)
from rulesets.dont_rest_your_head.rolls import outcome_json
from rulesets.dont_rest_your_head.sheet import dump_conflict
from rulesets.kit.procedures import FollowUp, LedgerOp, NoParams, Outcome, RecordLine, StepInput
from rulesets.kit.refusals import refuse
from rulesets.kit.rolls import RollSpec
from rulesets.kit.table import Table as Loaded
from rulesets.kit.table import in_both
from systems.dice import ScriptedDice
from systems.dont_rest_your_head import conflict as rules
from systems.dont_rest_your_head.conflict import Conflict, ConflictState, Table
from systems.registry import Names

_PARAMS = ConfigDict(extra="forbid")


class HopeParams(BaseModel):
    model_config = _PARAMS

    coins: int = Field(1, ge=1, le=20)


class ScarParams(BaseModel):
    """Which of the leader's scars (as the picker offered it) and which of their pools to reroll."""

    model_config = _PARAMS

    scar: int = Field(ge=0, le=99)
    pool: PlayerPool


class ShadeParams(BaseModel):
    model_config = _PARAMS

    kind: Literal["add6", "remove6"]
    pool: AnyPool


def _follow_up(
    state: ConflictFlowState, kind: str, line: Names, conflict: Conflict, pool: str = "discipline"
) -> list[FollowUp]:
    """A linked record under the roll the change touched (the pain roll, or the leader's)."""
    roll_id = state.rolls.pain if pool == "pain" else state.rolls.leader
    if roll_id is None:
        return []
    result = rules.outcome(conflict)
    summary = in_both(lambda: f"{line.get(get_language())} {words.outcome_line(result)}")
    return [FollowUp(roll_id, kind, Names(summary.es[:300], summary.en[:300]), result=outcome_json(result))]


def _changed(state: ConflictFlowState, **changes: Any) -> dict[str, Any]:
    return {"last_change_at": timezone.now(), **changes}


def _no_pending_scar(state: ConflictFlowState) -> None:
    """A proposed scar waits for the GM's answer: no second proposal, no shading, no closing the window
    under it (the player acted first, and a shading would forbid the scar, B-AMB-20)."""
    if state.pending_scar is not None:
        raise refuse(
            "scar_pending", "Hay una cicatriz esperando la respuesta del DJ.", "A scar is waiting for the GM's answer."
        )


def hope(given: StepInput[ConflictFlowState, HopeParams]) -> Outcome[ConflictFlowState]:
    """ "Iluminar" / "Mejorar los éxitos" (§3.5): a die showing 1 in discipline per coin of the hope chest."""
    state, n = given.state, given.params.coins
    c = conflict_of(state, given.secret)
    assert c.leader is not None
    table = rules.spend_hope(pure_table(given.table, c), c.leader, n)
    op = LedgerOp(
        "conflict_hope_spent",
        {"flow": given.procedure_id, "conflict": dump_conflict(c), "coins": n},
        int(c.leader),
        _("Conflicto %(n)s") % {"n": given.procedure_number},
        by_rules=True,
    )
    who = name(state, c.leader)
    line = in_both(
        lambda: (
            ngettext(
                "%(name)s ilumina: gasta %(n)s moneda de esperanza y añade %(n)s dado con un 1 a su disciplina.",
                "%(name)s ilumina: gasta %(n)s monedas de esperanza y añade %(n)s dados con un 1 a su disciplina.",
                n,
            )
            % {"name": who, "n": n}
        )
    )
    record = [RecordLine(line), outcome_record(table.conflict)]
    follow_ups = _follow_up(state, "hope", line, table.conflict)
    return step_outcome(state, table, given.table, record, ledger=[op], follow_ups=follow_ups, changes=_changed(state))


def minor_use(given: StepInput[ConflictFlowState, NoParams]) -> Outcome[ConflictFlowState]:
    state = given.state
    c = conflict_of(state, given.secret)
    assert c.leader is not None
    table = pure_table(given.table, c)
    rules.declare_minor_use(table, c.leader, gm_confirms=True)  # refuses what the rules refuse
    who = name(state, c.leader)
    line = in_both(lambda: _("%(name)s propone un uso menor de su talento de agotamiento.") % {"name": who})
    return step_outcome(state, table, given.table, [RecordLine(line)], changes={"pending_minor": True})


def confirm_minor(given: StepInput[ConflictFlowState, NoParams]) -> Outcome[ConflictFlowState]:
    state = given.state
    c = conflict_of(state, given.secret)
    assert c.leader is not None
    table = rules.declare_minor_use(pure_table(given.table, c), c.leader, gm_confirms=True)
    floor = table.conflict.leader_roll.exhaustion_at_roll if table.conflict.leader_roll else 0
    who = name(state, c.leader)
    line = in_both(
        lambda: (
            _("El DJ acepta el uso menor del talento de %(name)s: como mínimo %(n)s éxitos.")
            % {"name": who, "n": floor}
        )
    )
    record = [RecordLine(line), outcome_record(table.conflict)]
    follow_ups = _follow_up(state, "minor_use", line, table.conflict)
    changes = _changed(state, pending_minor=False)
    return step_outcome(state, table, given.table, record, follow_ups=follow_ups, changes=changes)


def refuse_minor(given: StepInput[ConflictFlowState, NoParams]) -> Outcome[ConflictFlowState]:
    state = given.state
    c = conflict_of(state, given.secret)
    who = name(state, c.leader)
    line = in_both(lambda: _("El DJ no acepta el uso menor del talento de %(name)s.") % {"name": who})
    table = pure_table(given.table, c)
    return step_outcome(state, table, given.table, [RecordLine(line)], changes={"pending_minor": False})


def scar(given: StepInput[ConflictFlowState, ScarParams]) -> Outcome[ConflictFlowState]:
    """The leader's player invokes a scar (§3.6): refused as the rules refuse it, then the GM confirms the
    connection; nothing is rolled or marked before that."""
    state, p = given.state, given.params
    _no_pending_scar(state)
    offered = {s.index: s.text for s in state.leader_scars}
    c = conflict_of(state, given.secret)
    table = pure_table(given.table, c)
    size = c.rolled_size(p.pool) if c.leader_roll is not None else 0
    # A dry run of the rules (SCAR_AFTER_SHADING, SCAR_ALREADY_INVOKED, POOL_NOT_IN_PLAY...): the real dice
    # are rolled on the GM's word.
    rules.invoke_scar(table, c.leader or "", p.scar, p.pool, True, ScriptedDice([1] * max(size, 1)))
    if p.scar not in offered:
        raise refuse(
            "choice_not_offered", "Esa cicatriz no se puede invocar.", "That scar can't be invoked.", field="scar"
        )
    pending = PendingScar(scar=p.scar, pool=p.pool, text=offered[p.scar])
    who = name(state, c.leader)
    line = in_both(
        lambda: (
            _("%(name)s invoca la cicatriz «%(text)s» para volver a tirar %(pool)s; espera la respuesta del DJ.")
            % {"name": who, "text": pending.text, "pool": words.pool_name(p.pool)}
        )
    )
    return step_outcome(state, table, given.table, [RecordLine(line)], changes={"pending_scar": pending})


def confirm_scar(given: StepInput[ConflictFlowState, NoParams]) -> Outcome[ConflictFlowState]:
    state = given.state
    pending = state.pending_scar
    assert pending is not None
    c = conflict_of(state, given.secret)
    assert c.leader is not None
    table = pure_table(given.table, c)
    # The sheet may have changed since the proposal (a GM's transform): the rules check again, dry.
    dry = ScriptedDice([1] * c.rolled_size(pending.pool))
    rules.invoke_scar(table, c.leader, pending.scar, pending.pool, True, dry)
    who = name(state, c.leader)
    roll = given.roll(
        RollSpec(
            kind="scar_reroll",
            data={"pool": pending.pool, "dice": c.rolled_size(pending.pool), "flow": given.procedure_id},
            character_id=int(c.leader),
            label=_("Conflicto %(n)s: cicatriz de %(name)s") % {"n": given.procedure_number, "name": who},
        )
    )
    drawn = faces(roll, pending.pool)
    table = rules.invoke_scar(table, c.leader, pending.scar, pending.pool, True, ScriptedDice(drawn))
    op = LedgerOp(
        "conflict_scar_invoked",
        {"flow": given.procedure_id, "conflict": dump_conflict(c), "scar_index": pending.scar}
        | {"pool": pending.pool, "dice": drawn},
        int(c.leader),
        (_("Conflicto %(n)s") % {"n": given.procedure_number} + f": {pending.text}")[:300],
        by_rules=True,
    )
    before = c.dice(pending.pool)
    line = in_both(
        lambda: (
            _("El DJ acepta la cicatriz «%(text)s»: %(pool)s de %(name)s pasa de %(before)s a %(after)s.")
            % {
                "text": pending.text,
                "pool": words.pool_name(pending.pool),
                "name": who,
                "before": words.dice(before),
                "after": words.dice(drawn),
            }
        )
    )
    record = [RecordLine(line, rolls=(roll.id,)), outcome_record(table.conflict)]
    follow_ups = _follow_up(state, "scar", line, table.conflict)
    changes = _changed(state, pending_scar=None)
    return step_outcome(state, table, given.table, record, ledger=[op], follow_ups=follow_ups, changes=changes)


def refuse_scar(given: StepInput[ConflictFlowState, NoParams]) -> Outcome[ConflictFlowState]:
    state = given.state
    pending = state.pending_scar
    assert pending is not None
    c = conflict_of(state, given.secret)
    who = name(state, c.leader)
    line = in_both(
        lambda: _("El DJ no acepta la cicatriz «%(text)s» de %(name)s.") % {"text": pending.text, "name": who}
    )
    return step_outcome(
        state, pure_table(given.table, c), given.table, [RecordLine(line)], changes={"pending_scar": None}
    )


def shade(given: StepInput[ConflictFlowState, ShadeParams]) -> Outcome[ConflictFlowState]:
    """ "Ensombrecer" (§3.5): the GM spends a despair coin to add or remove a 6 in a pool in play."""
    state, p = given.state, given.params
    _no_pending_scar(state)
    c = conflict_of(state, given.secret)
    table = rules.shade(pure_table(given.table, c), p.kind, p.pool)
    op = LedgerOp(
        "conflict_despair_spent",
        {"flow": given.procedure_id, "conflict": dump_conflict(c), "kind": p.kind, "pool": p.pool},
        None,
        _("Conflicto %(n)s") % {"n": given.procedure_number},
    )
    if p.kind == "add6":
        line = in_both(lambda: _("El DJ ensombrece %(pool)s: añade un 6.") % {"pool": words.pool_name(p.pool)})
    else:
        line = in_both(lambda: _("El DJ ensombrece %(pool)s: quita un 6.") % {"pool": words.pool_name(p.pool)})
    record = [RecordLine(line), outcome_record(table.conflict)]
    follow_ups = _follow_up(state, "shade", line, table.conflict, p.pool)
    return step_outcome(state, table, given.table, record, ledger=[op], follow_ups=follow_ups, changes=_changed(state))


def _passed(given: StepInput[ConflictFlowState, NoParams], side: Literal["player", "gm"]) -> Outcome[ConflictFlowState]:
    state = given.state
    _no_pending_scar(state)
    c = conflict_of(state, given.secret)
    table = rules.pass_turn(pure_table(given.table, c), side)
    if side == "gm":
        record = [RecordLine(in_both(lambda: _("El DJ pasa.")))]
    else:
        who = name(state, c.leader)
        record = [RecordLine(in_both(lambda: _("%(name)s pasa.") % {"name": who}))]
    return step_outcome(state, table, given.table, record + _closed(c, table))


def player_pass(given: StepInput[ConflictFlowState, NoParams]) -> Outcome[ConflictFlowState]:
    return _passed(given, "player")


def gm_pass(given: StepInput[ConflictFlowState, NoParams]) -> Outcome[ConflictFlowState]:
    return _passed(given, "gm")


def _closed(before: Conflict, table: Table) -> list[RecordLine]:
    """The window closed: the result is final (§3.10 step 7)."""
    if before.state == ConflictState.ADJUSTING and table.conflict.state == ConflictState.SETTLING:
        return [
            RecordLine(in_both(lambda: _("Se cierra la ventana de ajustes."))),
            outcome_record(table.conflict, final=True),
        ]
    return []


def timed_out(state: ConflictFlowState, loaded: Loaded) -> bool:
    """Whether the campaign's timeout has passed since the last change (the GM may then force the close)."""
    since = state.last_change_at
    timeout = timedelta(hours=settings(loaded).adjustment_timeout_hours)
    return since is not None and timezone.now() - since >= timeout


def resolve(given: StepInput[ConflictFlowState, NoParams]) -> Outcome[ConflictFlowState]:
    state = given.state
    _no_pending_scar(state)
    c = conflict_of(state, given.secret)
    table = rules.gm_resolve(pure_table(given.table, c), timed_out(state, given.table))
    return step_outcome(state, table, given.table, _closed(c, table))


def pools_in_play(state: ConflictFlowState) -> list[AnyPool]:
    return in_play(state.conflict) if state.conflict.leader_roll else []
