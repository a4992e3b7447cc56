"""The conflict until the dice are revealed (§3.10 steps 1-5, §5.1): the opening (a leader and helpers, or
an unclear-leader group action), the GM's opposition and pain dice, the rolls in any order (a pain roll
made first stays sealed, B-AMB-30), dropping a helper, the automatic reveal, the GM's pick on a tie for
leader, and voiding the conflict."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from pydantic import BaseModel, ConfigDict, Field

from campaigns import policy
from rulesets.dont_rest_your_head.procedures import words
from rulesets.dont_rest_your_head.procedures.conflict_state import (
    ConflictFlowState,
    Person,
    conflict_of,
    faces,
    name,
    outcome_record,
    pure_table,
    settings,
    step_outcome,
    stored,
)
from rulesets.dont_rest_your_head.rolls import pain_dice
from rulesets.dont_rest_your_head.sheet import is_opposition, load_sheet
from rulesets.kit.procedures import LedgerOp, NoParams, OpeningInput, Outcome, RecordLine, StepInput
from rulesets.kit.refusals import refuse
from rulesets.kit.rolls import RollSpec
from rulesets.kit.table import CharacterFacts, in_both
from rulesets.kit.table import Table as Loaded
from systems.dice import ScriptedDice
from systems.dont_rest_your_head import conflict as rules
from systems.dont_rest_your_head.coins import Chest
from systems.dont_rest_your_head.conflict import Conflict, ConflictState, Table
from systems.dont_rest_your_head.refusals import refuse as rules_refuse
from systems.dont_rest_your_head.roll import HelperRollRequest, LeaderRollRequest, prepare_leader_roll
from systems.registry import Names

_PARAMS = ConfigDict(extra="forbid")


class OpenParams(BaseModel):
    """A conflict with a leader (and helpers), or a group action naming ``participants`` (§5.1). The pain
    dice are the GM's: a player's opening that names them is refused."""

    model_config = _PARAMS

    leader: int | None = None
    helpers: list[int] = Field(default_factory=list, max_length=6)
    participants: list[int] = Field(default_factory=list, max_length=7)
    pain: int | None = Field(None, ge=1, le=30)
    opponents: list[int] = Field(default_factory=list, max_length=20)
    madness_price: int | None = Field(None, ge=1, le=6)


class OpposeParams(BaseModel):
    """ "Fijar" (``pain``) or "calcular" from each opponent's pain score (``opponents``), §2.3."""

    model_config = _PARAMS

    pain: int | None = Field(None, ge=1, le=30)
    opponents: list[int] = Field(default_factory=list, max_length=20)
    madness_price: int | None = Field(None, ge=1, le=6)


class LeaderParams(BaseModel):
    model_config = _PARAMS

    pc: int | None = None  # a group action: which of the player's participants rolls
    voluntary_increase: bool = False
    temp_madness: int = Field(0, ge=-99, le=99)  # 0..6, refused by the rules as MADNESS_RANGE
    talent_use: bool = False  # the major use of the exhaustion talent (the minor one comes after the dice)
    madness_talent: bool = False


class PcParams(BaseModel):
    model_config = _PARAMS

    pc: int | None = None


# --- the opening ------------------------------------------------------------------------------------------


def protagonist(loaded: Loaded, character_id: int) -> CharacterFacts:
    character = loaded.characters.get(int(character_id))
    if character is None or not character.approved or character.is_npc or is_opposition(character.sheet):
        raise refuse(
            "not_a_protagonist",
            "En un conflicto tiran protagonistas aprobados de esta partida.",
            "A conflict is rolled by approved protagonists of this campaign.",
        )
    load_sheet(character.sheet, settings(loaded))
    return character


def open_conflict(given: OpeningInput[OpenParams]) -> Outcome[ConflictFlowState]:
    p, loaded = given.params, given.table
    flow_id, scene_id = str(given.procedure_id), str(loaded.scene_id)
    if p.participants:
        pcs = _group(given)
        conflict = rules.declare_group(flow_id, [str(c.id) for c in pcs], scene_id)
        everyone = ", ".join(c.name for c in pcs)
        opening = in_both(lambda: _("Acción de grupo: %(names)s; dirige quien saque más éxitos.") % {"names": everyone})
    else:
        if p.leader is None:
            raise refuse(
                "leader_required",
                "Elige al protagonista principal, o a los participantes de una acción de grupo.",
                "Choose the leader, or the participants of a group action.",
            )
        leader = protagonist(loaded, p.leader)
        if not policy.may_open_character_procedure(given.viewer, leader):
            raise PermissionDenied(_("Solo el jugador del protagonista o un máster abre su conflicto."))
        helpers = [protagonist(loaded, h) for h in dict.fromkeys(p.helpers) if h != p.leader]
        pcs = [leader, *helpers]
        conflict = rules.declare(flow_id, str(leader.id), [str(h.id) for h in helpers], scene_id)
        opening = _declared(leader.name, [h.name for h in helpers])
    record = [RecordLine(opening)]
    if p.pain is not None or p.opponents:
        if not policy.may_run_gm_procedure(given.viewer):
            raise PermissionDenied(_("Los dados de dolor los fija el máster."))
        conflict = rules.start_rolls(rules.oppose(conflict, pain_dice(p.pain, tuple(p.opponents)), p.madness_price))
        record.append(_opposition_line(conflict))
    people = {str(c.id): Person(name=c.name, actor=c.actor) for c in pcs}
    state = ConflictFlowState(conflict=conflict, phase=conflict.state.value, people=people)
    state, secret = stored(state, Table(conflict=conflict, chest=_no_chest()))
    opened = LedgerOp(
        "conflict_opened",
        {"flow": given.procedure_id, "involved": [c.id for c in pcs]},
        pcs[0].id,
        _reason(given.procedure_number),
        by_rules=True,
    )
    return Outcome(state=state, secret=secret, ledger=[opened], record=record)


def _declared(leader: str, helpers: list[str]) -> Names:
    if helpers:
        joined = ", ".join(helpers)
        return in_both(
            lambda: _("%(leader)s entra en conflicto; ayudan: %(helpers)s.") % {"leader": leader, "helpers": joined}
        )
    return in_both(lambda: _("%(leader)s entra en conflicto.") % {"leader": leader})


def _no_chest() -> Chest:
    return Chest()


def _reason(number: int) -> str:
    """The conflict as its ledger reasons name it: by its place in the scene, never its id."""
    return _("Conflicto %(n)s") % {"n": number}


def _group(given: OpeningInput[OpenParams]) -> list[CharacterFacts]:
    p = given.params
    if p.leader is not None or p.helpers:
        raise refuse(
            "group_or_leader",
            "Una acción de grupo no tiene protagonista principal ni ayudantes fijados: lo deciden las tiradas.",
            "A group action names no leader nor helpers: the rolls decide.",
        )
    pcs = [protagonist(given.table, pk) for pk in dict.fromkeys(p.participants)]
    if len(pcs) < 2:
        raise refuse(
            "group_needs_two",
            "Una acción de grupo necesita al menos dos protagonistas.",
            "A group action needs at least two protagonists.",
        )
    if not any(policy.may_open_character_procedure(given.viewer, pc) for pc in pcs):
        raise PermissionDenied(_("Solo el jugador de un participante o un máster abre la acción de grupo."))
    return pcs


def _opposition_line(conflict: Conflict) -> RecordLine:
    n, price = conflict.pain or 0, conflict.madness_price

    def render() -> str:
        line = ngettext(
            "El DJ fija la oposición: %(n)s dado de dolor.", "El DJ fija la oposición: %(n)s dados de dolor.", n
        ) % {"n": n}
        if price:
            line += " " + _("Precio del talento de locura: %(n)s dados de locura temporal.") % {"n": price}
        return line

    return RecordLine(in_both(render))


# --- opposition and rolls -------------------------------------------------------------------------------


def oppose(given: StepInput[ConflictFlowState, OpposeParams]) -> Outcome[ConflictFlowState]:
    p = given.params
    conflict = conflict_of(given.state, given.secret)
    conflict = rules.start_rolls(rules.oppose(conflict, pain_dice(p.pain, tuple(p.opponents)), p.madness_price))
    table = Table(conflict=conflict, chest=_no_chest())
    return step_outcome(given.state, table, given.table, [_opposition_line(conflict)])


def roll_leader(given: StepInput[ConflictFlowState, LeaderParams]) -> Outcome[ConflictFlowState]:
    p, state, loaded = given.params, given.state, given.table
    conflict = conflict_of(state, given.secret)
    s = settings(loaded)
    pc = _roller(given, conflict)
    request = LeaderRollRequest(
        voluntary_increase=p.voluntary_increase,
        temp_madness=p.temp_madness,
        talent_use="major" if p.talent_use else None,
        madness_talent=p.madness_talent,
    )
    table = pure_table(loaded, conflict)
    # Refused before any die is rolled (EXHAUSTION_CAP, MADNESS_PRICE, CANNOT_ROLL...).
    prepare_leader_roll(table.sheet(pc), request, s, conflict.madness_price, conflict.scene_id)
    data = {**request.model_dump(mode="json"), "madness_price": conflict.madness_price, "scene_id": conflict.scene_id}
    roll = given.roll(
        RollSpec(
            kind="leader",
            data=data | {"flow": given.procedure_id},
            character_id=int(pc),
            label=_("Conflicto %(n)s: %(name)s") % {"n": given.procedure_number, "name": name(state, pc)},
        )
    )
    drawn = faces(roll, "discipline", "exhaustion", "madness")
    table = rules.roll_leader(table, pc, request, ScriptedDice(drawn), s)
    made = table.conflict.participant_rolls[-1] if conflict.unclear_leader else table.conflict.leader_roll
    assert made is not None
    ledger = []
    record = []
    if made.voluntary_increase:
        ledger.append(
            LedgerOp(
                "conflict_voluntary_exhaustion",
                {"flow": given.procedure_id, "request": request.model_dump(mode="json")}
                | {"madness_price": conflict.madness_price, "scene_id": conflict.scene_id},
                int(pc),
                _reason(given.procedure_number),
                by_rules=True,
            )
        )
        record.append(
            RecordLine(
                in_both(
                    lambda: (
                        _("%(name)s sube voluntariamente su agotamiento a %(n)s antes de tirar.")
                        % {"name": name(state, pc), "n": made.exhaustion_at_roll}
                    )
                )
            )
        )
    record.append(
        RecordLine(
            in_both(
                lambda: (
                    _("%(name)s tira: disciplina %(d)s; agotamiento %(e)s; locura %(m)s.")
                    % {
                        "name": name(state, pc),
                        "d": words.dice(made.discipline),
                        "e": words.dice(made.exhaustion),
                        "m": words.dice(made.madness),
                    }
                )
            ),
            rolls=(roll.id,),
        )
    )
    rolls = state.rolls.model_copy()
    if conflict.unclear_leader:
        rolls.participants = {**rolls.participants, pc: roll.id}
    else:
        rolls.leader = roll.id
    return _after_roll(given, state.model_copy(update={"rolls": rolls}), table, ledger, record)


def _roller(given: StepInput[ConflictFlowState, LeaderParams], c: Conflict) -> str:
    """Who rolls full pools: the leader, or in a group action the viewer's participant yet to roll."""
    if not c.unclear_leader:
        if c.leader_roll is not None:
            rules_refuse("DUPLICATE_ROLL", pc=c.leader)
        assert c.leader is not None
        return c.leader
    rolled = {r.pc for r in c.participant_rolls}
    mine = [pc for pc in c.participants if pc not in rolled and given.state.people[pc].actor == given.viewer.user_id]
    pc = str(given.params.pc) if given.params.pc is not None else (mine[0] if len(mine) == 1 else "")
    if pc not in mine:
        raise _not_offered("pc")
    return pc


def _not_offered(field: str) -> Exception:
    return refuse(
        "choice_not_offered",
        "Ese valor no está entre las opciones que se ofrecen.",
        "That value is not among the options offered.",
        field=field,
    )


def roll_pain(given: StepInput[ConflictFlowState, NoParams]) -> Outcome[ConflictFlowState]:
    state = given.state
    c = conflict_of(state, given.secret)
    everyone = (
        {r.pc for r in c.participant_rolls} >= set(c.participants) if c.unclear_leader else c.leader_roll is not None
    )
    sealed = settings(given.table).seal_rolls and not everyone  # (R, B-AMB-30)
    roll = given.roll(
        RollSpec(
            kind="pain",
            data={"pain": c.pain, "flow": given.procedure_id},
            gm_only=sealed,
            label=_("Conflicto %(n)s: dolor") % {"n": given.procedure_number},
        )
    )
    drawn = faces(roll, "pain")
    table = rules.roll_pain(pure_table(given.table, c), ScriptedDice(drawn))
    n = len(drawn)
    shown = in_both(
        lambda: (
            ngettext("El DJ tira %(n)s dado de dolor: %(dice)s.", "El DJ tira %(n)s dados de dolor: %(dice)s.", n)
            % {"n": n, "dice": words.dice(drawn)}
        )
    )
    if sealed:
        record = [
            RecordLine(
                in_both(
                    lambda: (
                        ngettext(
                            "El DJ tira %(n)s dado de dolor: tirada sellada hasta que tire el protagonista.",
                            "El DJ tira %(n)s dados de dolor: tirada sellada hasta que tire el protagonista.",
                            n,
                        )
                        % {"n": n}
                    )
                )
            ),
            RecordLine(shown, gm_only=True, rolls=(roll.id,)),
        ]
    else:
        record = [RecordLine(shown, rolls=(roll.id,))]
    new = state.model_copy(update={"rolls": state.rolls.model_copy(update={"pain": roll.id}), "pain_sealed": sealed})
    return _after_roll(given, new, table, [], record)


def roll_helper(given: StepInput[ConflictFlowState, PcParams]) -> Outcome[ConflictFlowState]:
    state = given.state
    c = conflict_of(state, given.secret)
    mine = [h for h in dropable(c) if state.people[h].actor == given.viewer.user_id]
    pc = str(given.params.pc) if given.params.pc is not None else (mine[0] if len(mine) == 1 else "")
    if pc not in mine:
        raise _not_offered("pc")
    roll = given.roll(
        RollSpec(
            kind="helper",
            data={},
            character_id=int(pc),
            label=_("Conflicto %(n)s: ayuda de %(name)s") % {"n": given.procedure_number, "name": name(state, pc)},
        )
    )
    drawn = faces(roll, "discipline")
    table = rules.roll_helper(pure_table(given.table, c), pc, HelperRollRequest(), ScriptedDice(drawn))
    record = [
        RecordLine(
            in_both(lambda: _("%(name)s ayuda: disciplina %(d)s.") % {"name": name(state, pc), "d": words.dice(drawn)}),
            rolls=(roll.id,),
        )
    ]
    rolls = state.rolls.model_copy(update={"helpers": {**state.rolls.helpers, pc: roll.id}})
    return _after_roll(given, state.model_copy(update={"rolls": rolls}), table, [], record)


def drop_helper(given: StepInput[ConflictFlowState, PcParams]) -> Outcome[ConflictFlowState]:
    state = given.state
    c = conflict_of(state, given.secret)
    pc = str(given.params.pc)
    if pc not in dropable(c):
        raise _not_offered("pc")
    table = rules.drop_helper(pure_table(given.table, c), pc)
    record = [RecordLine(in_both(lambda: _("El DJ retira a %(name)s del conflicto.") % {"name": name(state, pc)}))]
    return _after_roll(given, state, table, [], record)


def dropable(c: Conflict) -> list[str]:
    """The helpers still to roll (the GM may drop them so the conflict need not wait)."""
    rolled = {r.pc for r in c.helper_rolls}
    return [h for h in c.helpers if h not in rolled and h not in c.dropped]


def _after_roll(
    given: StepInput[ConflictFlowState, Any],
    state: ConflictFlowState,
    table: Table,
    ledger: list[LedgerOp],
    record: list[RecordLine],
) -> Outcome[ConflictFlowState]:
    """Every roll in: the reveal (§3.10 step 5). A sealed pain roll is shown; a group action's leader is
    the most successes (a tie waits for the GM)."""
    c = table.conflict
    reveal: list[int] = []
    if c.state in (ConflictState.REVEALED, ConflictState.ADJUSTING) and state.pain_sealed:
        if state.rolls.pain is not None:
            reveal.append(state.rolls.pain)
        pain = c.pain_roll.dice if c.pain_roll else ()
        record.append(RecordLine(in_both(lambda: _("Se revela el dolor: %(dice)s.") % {"dice": words.dice(pain)})))
        state = state.model_copy(update={"pain_sealed": False})
    if c.state == ConflictState.REVEALED:
        best = max(r.all_successes() for r in c.participant_rolls)
        if len([r for r in c.participant_rolls if r.all_successes() == best]) == 1:
            table = rules.pick_leader(table)
            state, more = _led(state, table.conflict)
            record += more
        else:
            record.append(
                RecordLine(
                    in_both(lambda: _("Empate a éxitos: el DJ elige al protagonista principal entre los empatados."))
                )
            )
    if table.conflict.state == ConflictState.ADJUSTING:
        record.append(outcome_record(table.conflict))
        state = state.model_copy(update={"last_change_at": timezone.now()})
    return step_outcome(state, table, given.table, record, ledger=ledger, reveal=reveal)


def _led(state: ConflictFlowState, c: Conflict) -> tuple[ConflictFlowState, list[RecordLine]]:
    assert c.leader is not None
    rolls = state.rolls.model_copy(update={"leader": state.rolls.participants[c.leader]})
    line = RecordLine(
        in_both(
            lambda: (
                _("Protagonista principal: %(name)s; los demás ayudan con sus éxitos de disciplina.")
                % {"name": name(state, c.leader)}
            )
        )
    )
    return state.model_copy(update={"rolls": rolls}), [line]


def tied(c: Conflict) -> list[str]:
    if not c.participant_rolls:
        return []
    best = max(r.all_successes() for r in c.participant_rolls)
    return [r.pc for r in c.participant_rolls if r.all_successes() == best]


def pick_leader(given: StepInput[ConflictFlowState, PcParams]) -> Outcome[ConflictFlowState]:
    """(R, B-AMB-31) a tie for the most successes: the GM picks among the tied (by default the first)."""
    state = given.state
    c = conflict_of(state, given.secret)
    choice = None if given.params.pc is None else str(given.params.pc)
    if choice is not None and choice not in tied(c):
        raise _not_offered("pc")
    table = rules.pick_leader(pure_table(given.table, c), choice)
    state, record = _led(state, table.conflict)
    record.append(outcome_record(table.conflict))
    state = state.model_copy(update={"last_change_at": timezone.now()})
    return step_outcome(state, table, given.table, record)


def void(given: StepInput[ConflictFlowState, NoParams]) -> Outcome[ConflictFlowState]:
    c = conflict_of(given.state, given.secret)
    table = rules.void(pure_table(given.table, c))
    op = LedgerOp("conflict_voided", {"flow": given.procedure_id}, None, _reason(given.procedure_number))
    record = [RecordLine(in_both(lambda: _("El DJ anula el conflicto; no se mueve ninguna moneda.")))]
    new, secret = stored(given.state, table)
    return Outcome(state=new, secret=secret, closes="cancelled", ledger=[op], record=record)
