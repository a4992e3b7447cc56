"""Acción (§3, with §6.7 the communal die, §6.8 reactions, §6.9 the reckless roll, §6.10 the wild die).

The GM calls an action on a character with a public difficulty and the one related skill. The pool comes from
the sheet; a player's pool first stays open for a communal die (vetoable by the table when ``veto_on_take``)
and a wild die (won with a bet the GM accepts, rejects or counters). At the lock the communal die is consumed
through the ledger and the automatic-outcome gate applies (more dice than the difficulty: an automatic
absolute success), unless a wild die forces the roll; otherwise the character's controller rolls or takes the
outcome offered. A talent-built pool may reroll one die; a player unhappy with a real roll may bet for one
reckless roll. Each agreed bet triggers on a rolled failure. Then the narration: an absolute success is the
player's, anything else the GM's, with the table's vetoes when the campaign switched them on.

The record in the thread tells each of these in words, with the dice, the outcome and the narration.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Literal

from django.core.exceptions import PermissionDenied
from django.utils import timezone
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _
from pydantic import BaseModel, ConfigDict, Field

from campaigns import policy
from rulesets.event.procedures import narration as talk
from rulesets.event.procedures.common import by_the_rules, reactions_off, rules_of, sheet_of
from rulesets.event.procedures.reaction import KEY as REACTION
from rulesets.event.procedures.reaction import used_state
from rulesets.event.rolls import ACTION, FlowExtras, action_extras, action_summary, dice_text, level_label
from rulesets.event.sheet import communal
from rulesets.kit.procedures import (
    Choice,
    FollowUp,
    LedgerOp,
    NoParams,
    Opening,
    OpeningInput,
    OtherProcedure,
    Outcome,
    Procedure,
    RecordLine,
    Step,
    StepInput,
)
from rulesets.kit.refusals import refuse
from rulesets.kit.rolls import RollSpec
from rulesets.kit.table import GM, Actor, Reads, StoredRoll, Table, in_both
from systems.errors import RulesError
from systems.event import narration as narr
from systems.event.action import ActionStage, Gate, decline_talent, start_action, talent_reroll
from systems.event.action import ActionState as PureAction
from systems.event.action import Choice as GateChoice
from systems.event.bets import (
    Bet,
    BetKind,
    BetStatus,
    gm_accept,
    gm_counter,
    gm_reject,
    player_accept_counter,
    player_reject_counter,
    propose_bet,
)
from systems.event.communal import one_communal_die
from systems.event.ladder import OUTCOME_NAMES
from systems.event.ladder import Outcome as Result
from systems.event.pool import PoolBreakdown
from systems.event.rolling import DiceRules
from systems.event.sheet import is_talent, unknown_skill
from systems.event.veto import CloseReason, VetoWindow, VoteKind, close_if_everyone_voted, open_window
from systems.event.veto import Verdict as VetoVerdict
from systems.event.veto import cast as veto_cast
from systems.event.veto import close as veto_close
from systems.registry import Names

KEY = "action"
Stage = Literal["pool", "choice", "talent", "reckless", "narration", "done", "cancelled"]
PENDING_BET = (BetStatus.PROPOSED, BetStatus.COUNTERED)


class Extras(BaseModel):
    """The optional extras a player's pool is open to (the campaign's rules when the action opened)."""

    model_config = ConfigDict(extra="forbid")

    communal: bool = False
    wild: bool = False


class AgreedBet(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: BetKind
    terms: str
    triggered: bool = False


class ActionState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    stage: Stage
    character: int
    character_name: str
    controller: Actor
    npc: bool
    difficulty: int
    skill: str | None = None
    skill_dice: int = 0
    talent_built: bool = False
    communal: int = 0
    wild: int = 0
    reaction_flow: int | None = None
    reaction_dice: int = 0
    pool: int
    extras_on: Extras = Field(default_factory=Extras)
    communal_take: VetoWindow | None = None
    bet: Bet | None = None
    bets: list[AgreedBet] = Field(default_factory=list)
    gate: Gate | None = None
    offered: list[GateChoice] = Field(default_factory=list)
    roll: int | None = None
    outcome: Result | None = None
    dice: list[int] = Field(default_factory=list)
    rolled: bool = False
    reckless_used: bool = False
    superseded_rolls: list[int] = Field(default_factory=list)
    voters: list[str] = Field(default_factory=list)  # who may veto (§4.2): the GM's voice and the players
    narration_pending: str | None = None
    narration: narr.Narration | None = None
    contested_at: str | None = None
    bets_triggered: int = 0

    def voice_name(self, voice: str) -> str:
        return self.character_name  # the one player who narrates an action plays its character


class ActionOpen(BaseModel):
    model_config = ConfigDict(extra="forbid")

    character: int
    difficulty: int = Field(ge=1, le=1000)
    skill: str | None = Field(None, max_length=80)
    reaction_flow: int | None = None  # a valued, unused reaction of the acting character: its extra dice


class ChooseParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    choice: GateChoice


class TalentParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    index: int | None = Field(None, ge=0, le=100)  # None: decline


class BetParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str = Field(min_length=1, max_length=500)


# --- Words ------------------------------------------------------------------------------------------


def _lang() -> str:
    return get_language() or "es"


def _level(state: ActionState, table: Table) -> str:
    return level_label(state.difficulty, rules_of(table), _lang())


def _outcome_words(outcome: Result | None) -> str:
    return OUTCOME_NAMES[outcome].get(_lang()).lower() if outcome else ""


def _bet_name(kind: BetKind) -> str:
    return str(_("el dado alocado")) if kind is BetKind.WILD_DIE else str(_("una tirada temeraria"))


def _rolled_line(state: ActionState, table: Table, roll: StoredRoll) -> RecordLine:
    rules = rules_of(table)
    words = in_both(
        lambda: (
            _("%(name)s: %(summary)s")
            % {"name": state.character_name, "summary": action_summary(roll.result, rules, _lang())}
        )
    )
    return RecordLine(words, rolls=(roll.id,))


# --- Refusals ---------------------------------------------------------------------------------------


def _bet_pending() -> RulesError:
    return refuse(
        "bet_pending",
        "Hay una apuesta sin cerrar: el máster (o el jugador, ante una contraoferta) debe responder antes.",
        "A bet is still being negotiated: it must be answered first.",
    )


def _communal_empty() -> RulesError:
    return refuse("communal_empty", "La reserva comunal está vacía.", "The communal pool is empty.")


# --- Opening ----------------------------------------------------------------------------------------


def _take_reaction(table: Table, reaction_id: int, character: int, action_id: int) -> tuple[int, OtherProcedure]:
    """A valued, unused reaction of the acting character: its dice, and the reaction closed as used."""
    if not rules_of(table).optional.reactions.enabled:
        raise reactions_off()
    found = next((p for p in table.procedures if p.id == reaction_id and p.kind == REACTION), None)
    if found is None or int(found.state.get("character", 0)) != character:
        raise refuse(
            "reaction_not_found",
            "Esa reacción no es de este personaje en esta partida.",
            "That reaction is not this character's in this campaign.",
        )
    used = used_state(found.state, action_id)
    words = in_both(
        lambda: (
            _("La reacción de %(name)s suma %(n)d dados a su acción.")
            % {"name": used.character_name, "n": used.value or 0}
        )
    )
    change = OtherProcedure(
        reaction_id, used.model_dump(mode="json"), step="use", closes="settled", record=[RecordLine(words)]
    )
    return used.value or 0, change


def _open(given: OpeningInput[ActionOpen]) -> Outcome[ActionState]:
    if not policy.may_run_gm_procedure(given.viewer):  # the GM calls the action and its difficulty (§3.1)
        raise PermissionDenied(_("Solo un máster puede hacer esto."))
    table, params = given.table, given.params
    rules = rules_of(table)
    character = table.character(params.character)
    if character.is_npc and params.reaction_flow:
        raise refuse("npc_not_allowed", "Los PNJ no usan reacciones.", "NPCs do not use reactions.")
    sheet = sheet_of(character, rules)
    pool = PoolBreakdown(npc=character.is_npc)
    if params.skill:
        skill = sheet.skill(params.skill)
        if skill is None:  # a name the sheet does not have is refused, never rolled as no skill
            raise by_the_rules(lambda: _raise(unknown_skill(params.skill or "")))
        talent = rules.talent_enabled and is_talent(sheet, skill.name)
        pool = PoolBreakdown(skill=skill.display, skill_dice=skill.dice, npc=character.is_npc, talent_built=talent)
    others: list[OtherProcedure] = []
    if params.reaction_flow:
        dice, change = _take_reaction(table, params.reaction_flow, character.id, given.procedure_id)
        pool, others = replace(pool, reaction=dice), [change]
    by_the_rules(lambda: start_action(pool, params.difficulty, rules))  # a difficulty out of range, refused now
    optional = rules.optional
    state = ActionState(
        stage="pool",
        character=character.id,
        character_name=character.name,
        controller=character.actor,
        npc=character.is_npc,
        difficulty=params.difficulty,
        skill=params.skill,
        skill_dice=pool.skill_dice,
        talent_built=pool.talent_built,
        reaction_flow=params.reaction_flow,
        reaction_dice=pool.reaction,
        pool=pool.total,
        extras_on=Extras(communal=optional.communal_pool.enabled, wild=optional.wild_die.enabled),
        voters=[talk.VOICE_GM, *(str(uid) for uid in table.player_ids())],
    )
    opened = in_both(
        lambda: (
            _("El máster pide una acción a %(name)s: %(skill)s contra %(level)s.")
            % {
                "name": character.name,
                "skill": pool.skill or _("sin habilidad relacionada"),
                "level": _level(state, table),
            }
        )
    )
    if character.actor != GM and (state.extras_on.communal or state.extras_on.wild):
        return Outcome(state=state, record=[RecordLine(opened)], others=others)  # the pool stays open (§3.10)
    locked = _lock(table, given.roll, state.model_copy(update={"extras_on": Extras()}))
    return replace(locked, record=[RecordLine(opened), *locked.record], others=others)


def _raise(error: RulesError) -> Any:
    raise error


# --- Pool, lock and roll ----------------------------------------------------------------------------


def _pool(state: ActionState) -> PoolBreakdown:
    return PoolBreakdown(
        skill=state.skill,
        skill_dice=state.skill_dice,
        communal=state.communal,
        reaction=state.reaction_dice,
        wild=state.wild,
        npc=state.npc,
        talent_built=state.talent_built,
    )


def _extras(state: ActionState, reckless: bool = False) -> FlowExtras:
    return FlowExtras(
        reaction=state.reaction_dice, communal=bool(state.communal), wild=bool(state.wild), reckless=reckless
    )


def _spec(state: ActionState, choice: GateChoice | None) -> RollSpec:
    data: dict[str, Any] = {"difficulty": state.difficulty}
    if choice is not None:
        data["choice"] = choice.value
    if state.skill:
        data["skill"] = state.skill
    return RollSpec(kind=ACTION, data=data, character_id=state.character)


def _lock(table: Table, roll: Any, state: ActionState) -> Outcome[ActionState]:
    """§6.11 step 3: lock the pool, consume the communal die, apply the gate unless a wild die forces a roll."""
    rules = rules_of(table)
    if state.bet is not None and state.bet.status in PENDING_BET:
        raise _bet_pending()
    if state.communal_take is not None and not state.communal_take.closed:
        raise refuse(
            "window_open",
            "La votación sobre el dado comunal sigue abierta.",
            "The veto window on the communal take is still open.",
        )
    pool = _pool(state)
    gate = by_the_rules(lambda: start_action(pool, state.difficulty, rules))
    state = state.model_copy(
        update={"stage": "choice", "pool": pool.total, "gate": gate.gate, "offered": list(gate.offered)}
    )
    ledger: list[LedgerOp] = []
    if pool.communal:
        if communal(table.rules_state) <= 0:
            raise _communal_empty()
        take: dict[str, Any] = {}
        if rules.optional.communal_pool.veto_on_take and state.communal_take is not None:
            take["veto_verdict"] = state.communal_take.verdict.value  # the pure rule checks the vote again
        reason = str(_("Dado comunal para una acción de %(name)s") % {"name": state.character_name})
        ledger.append(LedgerOp("take_communal_die", take, state.character, reason, by_rules=True))
    if gate.gate not in (Gate.AUTO_ABSOLUTE, Gate.FORCED_ROLL):
        return Outcome(state=state, ledger=ledger)
    # Automatic: recorded without dice (nothing to choose). Forced by the wild die: rolled now (§6.10, A-31).
    with action_extras(_extras(state)):
        stored = roll(_spec(state, None if gate.gate is Gate.AUTO_ABSOLUTE else GateChoice.ROLL))
    after = _after_roll(table, state, stored)
    return replace(after, ledger=[*ledger, *after.ledger])


def _after_roll(table: Table, state: ActionState, stored: StoredRoll) -> Outcome[ActionState]:
    result = stored.result
    state = state.model_copy(
        update={
            "roll": stored.id,
            "outcome": Result(result["outcome"]) if result.get("outcome") else None,
            "dice": list(result.get("dice", [])),
            "rolled": not result.get("automatic") and result.get("choice") == GateChoice.ROLL,
        }
    )
    line = _rolled_line(state, table, stored)
    if result.get("stage") == ActionStage.TALENT_DECISION:
        return Outcome(state=state.model_copy(update={"stage": "talent"}), record=[line])
    after = _evaluated(table, state)
    return replace(after, record=[line, *after.record])


def _evaluated(table: Table, state: ActionState) -> Outcome[ActionState]:
    """§6.11 step 7: a player unhappy with a real roll may ask for one reckless roll (§3.10 EVALUATED)."""
    reckless_open = (
        rules_of(table).reckless_allowed("action_roll")
        and not state.npc
        and state.controller != GM
        and state.rolled
        and not state.reckless_used
    )
    if reckless_open:
        return Outcome(state=state.model_copy(update={"stage": "reckless", "bet": None}))
    return _to_narration(state)


def _triggered_words(bet: AgreedBet) -> Names:
    def words() -> str:
        kind = _("dado alocado") if bet.kind is BetKind.WILD_DIE else _("tirada temeraria")
        return _("Apuesta activada (%(bet)s): %(terms)s") % {"bet": kind, "terms": bet.terms}

    return in_both(words)


def _to_narration(state: ActionState) -> Outcome[ActionState]:
    """§6.11 step 8: whether each agreed bet triggered (a rolled failure), then who narrates: the player an
    absolute success (§3.6), the GM anything else (working a triggered bet into the narration)."""
    failed = state.rolled and state.outcome in (Result.FAILURE, Result.CRITICAL_FAILURE)
    bets = [bet.model_copy(update={"triggered": failed}) for bet in state.bets]
    follow_ups, lines = [], []
    for bet in bets:
        if not (bet.triggered and state.roll):
            continue
        words = _triggered_words(bet)
        follow_ups.append(FollowUp(state.roll, "bet", words, {"bet": bet.model_dump(mode="json")}, {}, state.character))
        lines.append(RecordLine(words))
    player_narrates = state.outcome is Result.ABSOLUTE_SUCCESS and state.controller != GM
    state = state.model_copy(
        update={
            "stage": "narration",
            "narration_pending": str(state.controller) if player_narrates else talk.VOICE_GM,
            "narration": None,
            "bets": bets,
            "bets_triggered": sum(1 for b in bets if b.triggered),
        }
    )
    return Outcome(state=state, follow_ups=follow_ups, record=lines)


# --- The pool's extras: the communal die (§6.7) and the wild die's bet (§6.10) ---------------------------


def _take_communal(given: StepInput[ActionState, NoParams]) -> Outcome[ActionState]:
    state, table = given.state, given.table
    if state.communal or state.communal_take is not None:
        raise by_the_rules(lambda: _raise(one_communal_die()))
    if communal(table.rules_state) <= 0:
        raise _communal_empty()  # checked again under the ledger's row lock when the pool locks
    if rules_of(table).optional.communal_pool.veto_on_take:
        window = open_window(str(state.controller), state.voters)
        words = in_both(
            lambda: _("%(name)s pide un dado comunal; la mesa puede vetarlo.") % {"name": state.character_name}
        )
        return Outcome(state=state.model_copy(update={"communal_take": window}), record=[RecordLine(words)])
    words = in_both(lambda: _("%(name)s coge un dado comunal.") % {"name": state.character_name})
    return Outcome(state=state.model_copy(update={"communal": 1, "pool": state.pool + 1}), record=[RecordLine(words)])


def _vote_on_take(given: StepInput[ActionState, NoParams], kind: VoteKind | None) -> Outcome[ActionState]:
    state = given.state
    opened = state.communal_take
    assert opened is not None  # who() offers these steps only while the vote is open
    if kind is None:
        window = veto_close(opened, CloseReason.GM)
    else:
        voice = talk.voice_of(given.viewer)
        window = close_if_everyone_voted(by_the_rules(lambda: veto_cast(opened, voice, kind)))
    state = state.model_copy(update={"communal_take": window})
    if not window.closed:
        return Outcome(state=state)
    if window.verdict is VetoVerdict.ACCEPTED:
        words = in_both(lambda: _("La mesa acepta el dado comunal de %(name)s.") % {"name": state.character_name})
        return Outcome(
            state=state.model_copy(update={"communal": 1, "pool": state.pool + 1}), record=[RecordLine(words)]
        )
    words = in_both(lambda: _("La mesa veta el dado comunal de %(name)s.") % {"name": state.character_name})
    return Outcome(state=state, record=[RecordLine(words)])


def _bet_step(given: StepInput[ActionState, Any], answer: str) -> Outcome[ActionState]:
    """Propose, accept, reject or counter a bet (one negotiation at a time, §6.10)."""
    state = given.state
    kind = BetKind.WILD_DIE if state.stage == "pool" else BetKind.RECKLESS
    bet = by_the_rules(lambda: _answer_bet(state.bet, kind, answer, getattr(given.params, "text", "")))
    state = state.model_copy(update={"bet": bet})
    lines = [RecordLine(_bet_words(state, bet, answer))]
    if not bet.agreed:
        return Outcome(state=state, record=lines)
    agreed = AgreedBet(kind=bet.kind, terms=bet.terms)
    state = state.model_copy(update={"bet": None, "bets": [*state.bets, agreed]})
    if kind is BetKind.WILD_DIE:  # +1 die, at most one per pool (§6.10)
        return Outcome(state=state.model_copy(update={"wild": 1, "pool": state.pool + 1}), record=lines)
    after = _reckless_roll(given.table, given.roll, state)
    return replace(after, record=[*lines, *after.record])


def _answer_bet(current: Bet | None, kind: BetKind, answer: str, text: str) -> Bet:
    if answer == "propose":
        return propose_bet(kind, text, current)
    if current is None:
        raise refuse("no_bet", "No hay ninguna apuesta que responder.", "There is no bet to answer.")
    answers = {
        "accept": gm_accept,
        "reject": gm_reject,
        "accept_counter": player_accept_counter,
        "reject_counter": player_reject_counter,
    }
    return gm_counter(current, text) if answer == "counter" else answers[answer](current)


def _bet_words(state: ActionState, bet: Bet, answer: str) -> Names:
    name, what = state.character_name, bet.kind
    said = {
        "propose": lambda: (
            _("%(name)s apuesta por %(bet)s: «%(text)s»")
            % {"name": name, "bet": _bet_name(what), "text": bet.player_text}
        ),
        "accept": lambda: _("El máster acepta la apuesta de %(name)s.") % {"name": name},
        "reject": lambda: _("El máster rechaza la apuesta de %(name)s.") % {"name": name},
        "counter": lambda: _("El máster contraoferta: «%(text)s»") % {"text": bet.gm_counter_text or ""},
        "accept_counter": lambda: _("%(name)s acepta la contraoferta.") % {"name": name},
        "reject_counter": lambda: _("%(name)s rechaza la contraoferta.") % {"name": name},
    }
    return in_both(said[answer])


def _lock_pool(given: StepInput[ActionState, NoParams]) -> Outcome[ActionState]:
    state = given.state
    words = in_both(
        lambda: (
            _("Reserva de %(name)s cerrada: %(n)d dados contra %(level)s.")
            % {"name": state.character_name, "n": _pool(state).total, "level": _level(state, given.table)}
        )
    )
    locked = _lock(given.table, given.roll, state)
    return replace(locked, record=[RecordLine(words), *locked.record])


# --- The choice, the talent and the reckless roll -----------------------------------------------------


def _choose(given: StepInput[ActionState, ChooseParams]) -> Outcome[ActionState]:
    state, choice = given.state, given.params.choice
    if choice not in state.offered:
        raise refuse(
            "choice_not_offered",
            "Esa opción no se ofrece con esta reserva y esta dificultad.",
            "That choice is not offered with this pool and difficulty.",
        )
    with action_extras(_extras(state)):
        stored = given.roll(_spec(state, choice))
    return _after_roll(given.table, state, stored)


def _talent(given: StepInput[ActionState, TalentParams]) -> Outcome[ActionState]:
    state, table, index = given.state, given.table, given.params.index
    rules = rules_of(table)
    assert state.roll is not None  # the talent stage follows a roll
    stored = table.roll(state.roll)
    pure = _pure_action(stored.result, rules)
    if index is None:
        pure = by_the_rules(lambda: decline_talent(pure))
        said = in_both(lambda: _("%(name)s renuncia al talento.") % {"name": state.character_name})
        follow = FollowUp(stored.id, "talent", said, character_id=state.character)
    else:
        pure = by_the_rules(lambda: talent_reroll(pure, index, given.dice))
        outcome = pure.outcome.value if pure.outcome else None
        new = {**stored.result, "dice": list(pure.dice), "rerolled_index": index, "outcome": outcome}
        new["narrator"] = pure.narrator.value if pure.narrator else None
        old = stored.result["dice"]
        said = in_both(
            lambda: (
                _("Talento: repite el dado %(old)s → %(dice)s; %(summary)s")
                % {"old": old[index], "dice": dice_text(pure.dice), "summary": action_summary(new, rules, _lang())}
            )
        )
        follow = FollowUp(stored.id, "talent", said, {"index": index, "before": old}, new, state.character)
    state = state.model_copy(update={"outcome": pure.outcome, "dice": list(pure.dice)})
    after = _evaluated(table, state)
    return replace(after, follow_ups=[follow, *after.follow_ups], record=[RecordLine(said), *after.record])


def _pure_action(result: Mapping[str, Any], rules: Any) -> PureAction:
    """The pure action rebuilt from its stored roll (the roll is the evidence; the binding wrote it)."""
    b = result["breakdown"]
    pool = PoolBreakdown(
        skill=result.get("skill"),
        skill_dice=b["skill"],
        communal=b["communal"],
        reaction=b["reaction"],
        wild=b["wild"],
        npc=result.get("npc", False),
        talent_built=result.get("talent_built", False),
    )
    return PureAction(
        pool=pool,
        difficulty=int(result["difficulty"]),
        gate=Gate(result["gate"]),
        stage=ActionStage(result["stage"]),
        rules=DiceRules.for_scope(rules, "actions"),
        talent_eligible=bool(result.get("talent_eligible")),
        reckless_allowed=False,  # the procedure runs the reckless roll itself (a new roll after the bet)
        choice=GateChoice(result["choice"]) if result.get("choice") else None,
        outcome=Result(result["outcome"]) if result.get("outcome") else None,
        thrown=tuple(result.get("thrown", [])),
        dice=tuple(result.get("dice", [])),
        rerolled_index=result.get("rerolled_index"),
    )


def _reckless_roll(table: Table, roll: Any, state: ActionState) -> Outcome[ActionState]:
    """§6.9: the same pool from scratch; the new roll replaces the old one even if worse (the old one stays
    as evidence, with a follow-up pointing at its replacement)."""
    assert state.roll is not None
    old = state.roll
    with action_extras(_extras(state, reckless=True)):
        stored = roll(_spec(state, GateChoice.ROLL))
    state = state.model_copy(update={"reckless_used": True, "superseded_rolls": [*state.superseded_rolls, old]})
    said = in_both(
        lambda: (
            _("Sustituida por una tirada temeraria: %(dice)s → %(outcome)s")
            % {"dice": dice_text(stored.result["dice"]), "outcome": _outcome_words(Result(stored.result["outcome"]))}
        )
    )
    follow = FollowUp(old, "reckless", said, {"replaced_by": stored.id}, {}, state.character)
    after = _after_roll(table, state, stored)
    return replace(after, follow_ups=[follow, *after.follow_ups])


def _keep_result(given: StepInput[ActionState, NoParams]) -> Outcome[ActionState]:
    if given.state.bet is not None and given.state.bet.status in PENDING_BET:
        raise _bet_pending()
    return _to_narration(given.state.model_copy(update={"bet": None}))


def _cancel(given: StepInput[ActionState, NoParams]) -> Outcome[ActionState]:
    words = in_both(lambda: _("El máster cancela la acción de %(name)s.") % {"name": given.state.character_name})
    return Outcome(
        state=given.state.model_copy(update={"stage": "cancelled"}), closes="cancelled", record=[RecordLine(words)]
    )


# --- The narration ----------------------------------------------------------------------------------


def _narrated(given: StepInput[ActionState, Any], after: narr.Narration) -> Outcome[ActionState]:
    """Store a narration step: the outcome an overruled narration downgrades, the record, a follow-up under
    the roll when the narration's status changes, and the close when it is final."""
    state, before = given.state, given.state.narration
    update: dict[str, Any] = {"narration": after}
    if after.outcome is not None and after.outcome != state.outcome:
        update["outcome"] = after.outcome  # overruled: the absolute success became a partial success
    if after.status is narr.NarrationStatus.CONTESTED and (before is None or before.status is not after.status):
        update["contested_at"] = timezone.now().isoformat()
    state = state.model_copy(update=update)
    lines = talk.changed_lines(state, before, after)
    follow_ups = []
    said = talk.status_words(after) if before is not None and before.status is not after.status else None
    if said is not None and state.roll is not None:
        follow_ups.append(FollowUp(state.roll, "narration", said, {"status": after.status.value}))
    if talk.is_final(after):
        return Outcome(
            state=state.model_copy(update={"stage": "done"}), closes="settled", record=lines, follow_ups=follow_ups
        )
    return Outcome(state=state, record=lines, follow_ups=follow_ups)


def _summary(state: ActionState, table: Table) -> Sequence[RecordLine]:
    if state.stage != "done" or state.outcome is None:
        return []
    words = in_both(
        lambda: (
            _("Resultado de la acción de %(name)s: %(outcome)s.")
            % {"name": state.character_name, "outcome": _outcome_words(state.outcome)}
        )
    )
    return [RecordLine(words)]


# --- Who may take each step now (the rules, by the state) ---------------------------------------------


def _controller_in(*stages: str) -> Any:
    def who(state: ActionState) -> set[Actor]:
        return {state.controller} if state.stage in stages else set()

    return who


def _no_pending_bet(state: ActionState) -> bool:
    return state.bet is None or state.bet.status not in PENDING_BET


def _may_take_communal(state: ActionState) -> set[Actor]:
    free = not state.communal and state.communal_take is None
    return {state.controller} if state.stage == "pool" and state.extras_on.communal and free else set()


def _take_voters(state: ActionState) -> set[Actor]:
    window = state.communal_take
    if state.stage != "pool" or window is None or window.closed:
        return set()
    voted = {voter for voter, _kind in window.votes}
    return {talk.actor_of(v) for v in window.eligible if v not in voted}


def _gm_while_take_vote(state: ActionState) -> set[Actor]:
    window = state.communal_take
    return {GM} if state.stage == "pool" and window is not None and not window.closed else set()


def _may_propose_wild(state: ActionState) -> set[Actor]:
    open_to = state.stage == "pool" and state.extras_on.wild and not state.wild and _no_pending_bet(state)
    return {state.controller} if open_to else set()


def _may_propose_reckless(state: ActionState) -> set[Actor]:
    return {state.controller} if state.stage == "reckless" and _no_pending_bet(state) else set()


def _gm_answers_bet(state: ActionState) -> set[Actor]:
    return {GM} if state.bet is not None and state.bet.status is BetStatus.PROPOSED else set()


def _player_answers_counter(state: ActionState) -> set[Actor]:
    return {state.controller} if state.bet is not None and state.bet.status is BetStatus.COUNTERED else set()


def _may_lock(state: ActionState) -> set[Actor]:
    take_open = state.communal_take is not None and not state.communal_take.closed
    ready = state.stage == "pool" and _no_pending_bet(state) and not take_open
    return {state.controller, GM} if ready else set()


def _gm_before_the_roll(state: ActionState) -> set[Actor]:
    return {GM} if state.stage in ("pool", "choice") else set()


# --- Pickers ----------------------------------------------------------------------------------------

CHOICE_WORDS = {
    GateChoice.ROLL: gettext_lazy("Tirar los dados"),
    GateChoice.TAKE_PARTIAL: gettext_lazy("Tomar el éxito parcial sin tirar"),
    GateChoice.TAKE_FAILURE: gettext_lazy("Tomar el fallo sin tirar"),
}


def _choose_choices(state: ActionState, table: Table, viewer: policy.Viewer) -> Mapping[str, Sequence[Choice]]:
    return {"choice": [Choice(c.value, str(CHOICE_WORDS[c])) for c in state.offered]}


def _talent_choices(state: ActionState, table: Table, viewer: policy.Viewer) -> Mapping[str, Sequence[Choice]]:
    dice = [Choice(str(i), _("Repetir el %(face)d") % {"face": d}) for i, d in enumerate(state.dice)]
    return {"index": [Choice("", str(_("Renunciar al talento"))), *dice]}


def _opening_choices(table: Table, viewer: policy.Viewer) -> Mapping[str, Sequence[Choice]]:
    """The GM's form: characters by name, difficulties by their level's name, skills by their name."""
    if not policy.may_run_gm_procedure(viewer):
        return {}
    rules = rules_of(table)
    approved = [c for c in table.characters.values() if c.approved]
    skills: dict[str, Choice] = {}
    for character in approved:
        try:
            sheet = sheet_of(character, rules)
        except RulesError:  # a sheet that no longer validates offers no skills
            continue
        for skill in sheet.skills:
            label = f"{character.name}: {skill.display} ({1 + skill.dice})"
            skills.setdefault(f"{character.id}:{skill.name}", Choice(skill.name, label))
    return {
        "character": [Choice(str(c.id), c.name) for c in approved],
        "difficulty": [Choice(str(n), level_label(n, rules, _lang())) for n in range(1, rules.sides + 1)],
        "skill": list(skills.values()),
    }


def _step(key: str, label: str, params: type[BaseModel], who: Any, run: Any, **more: Any) -> Step[ActionState, Any]:
    return Step(key=key, label=gettext_lazy(label), params=params, who=who, run=run, **more)


def _waiting_in_words(render: Any) -> Any:
    return lambda state, table: in_both(lambda: render(state))


ACTION_PROCEDURE: Procedure[ActionState] = Procedure(
    key=KEY,
    title=gettext_lazy("Acción"),
    state=ActionState,
    reads=Reads(rules_state=True, procedures=(REACTION,)),
    opening=Opening(params=ActionOpen, run=_open, choices=_opening_choices),
    summary=_summary,
    steps=(
        # The pool (a player's, when the campaign switched the communal pool or the wild die on).
        Step(
            key="take_communal",
            label=gettext_lazy("Coger un dado comunal"),
            params=NoParams,
            who=_may_take_communal,
            run=_take_communal,
            awaited=False,
        ),
        Step(
            key="veto_take",
            label=gettext_lazy("¡Veto!"),
            params=NoParams,
            who=_take_voters,
            run=lambda g: _vote_on_take(g, VoteKind.VETO),
            waiting=_waiting_in_words(
                lambda s: (
                    _("Votos sobre el dado comunal de %(name)s (¡Veto! o sin objeción); el máster puede cerrar")
                    % {"name": s.character_name}
                )
            ),
        ),
        Step(
            key="no_veto_take",
            label=gettext_lazy("Sin objeción"),
            params=NoParams,
            who=_take_voters,
            run=lambda g: _vote_on_take(g, VoteKind.NO_VETO),
            awaited=False,
        ),
        Step(
            key="close_take_votes",
            label=gettext_lazy("Cerrar la votación"),
            params=NoParams,
            who=_gm_while_take_vote,
            run=lambda g: _vote_on_take(g, None),
            awaited=False,
        ),
        Step(
            key="propose_wild",
            label=gettext_lazy("Pedir el dado alocado"),
            params=BetParams,
            who=_may_propose_wild,
            run=lambda g: _bet_step(g, "propose"),
            awaited=False,
            form="event/procedures/bet_fields.html",
        ),
        Step(
            key="accept_bet",
            label=gettext_lazy("Aceptar la apuesta"),
            params=NoParams,
            who=_gm_answers_bet,
            run=lambda g: _bet_step(g, "accept"),
            waiting=_waiting_in_words(
                lambda s: _("Apuesta de %(name)s: aceptar, rechazar o contraofertar") % {"name": s.character_name}
            ),
        ),
        Step(
            key="reject_bet",
            label=gettext_lazy("Rechazar la apuesta"),
            params=NoParams,
            who=_gm_answers_bet,
            run=lambda g: _bet_step(g, "reject"),
            awaited=False,
        ),
        Step(
            key="counter_bet",
            label=gettext_lazy("Contraofertar"),
            params=BetParams,
            who=_gm_answers_bet,
            run=lambda g: _bet_step(g, "counter"),
            awaited=False,
            form="event/procedures/bet_fields.html",
        ),
        Step(
            key="accept_counter",
            label=gettext_lazy("Aceptar la contraoferta"),
            params=NoParams,
            who=_player_answers_counter,
            run=lambda g: _bet_step(g, "accept_counter"),
            waiting=_waiting_in_words(
                lambda s: _("%(name)s: aceptar o rechazar la contraoferta del máster") % {"name": s.character_name}
            ),
        ),
        Step(
            key="reject_counter",
            label=gettext_lazy("Rechazar la contraoferta"),
            params=NoParams,
            who=_player_answers_counter,
            run=lambda g: _bet_step(g, "reject_counter"),
            awaited=False,
        ),
        Step(
            key="lock_pool",
            label=gettext_lazy("Cerrar la reserva"),
            params=NoParams,
            who=_may_lock,
            run=_lock_pool,
            waiting=_waiting_in_words(
                lambda s: (
                    _("%(name)s: coger un dado comunal o pedir el dado alocado, y cerrar la reserva")
                    % {"name": s.character_name}
                )
            ),
        ),
        # The gate's choice, the talent, the reckless roll.
        Step(
            key="choose",
            label=gettext_lazy("Elegir"),
            params=ChooseParams,
            who=_controller_in("choice"),
            run=_choose,
            form="event/procedures/choose_fields.html",
            choices=_choose_choices,
            waiting=_waiting_in_words(
                lambda s: _("%(name)s: tirar o tomar el resultado ofrecido") % {"name": s.character_name}
            ),
        ),
        Step(
            key="talent",
            label=gettext_lazy("Talento destacado"),
            params=TalentParams,
            who=_controller_in("talent"),
            run=_talent,
            form="event/procedures/talent_fields.html",
            choices=_talent_choices,
            waiting=_waiting_in_words(lambda s: _("Talento destacado: repetir un dado o renunciar")),
        ),
        Step(
            key="propose_reckless",
            label=gettext_lazy("Proponer una tirada temeraria"),
            params=BetParams,
            who=_may_propose_reckless,
            run=lambda g: _bet_step(g, "propose"),
            awaited=False,
            form="event/procedures/bet_fields.html",
        ),
        Step(
            key="keep_result",
            label=gettext_lazy("Quedarse con el resultado"),
            params=NoParams,
            who=lambda s: {s.controller} if s.stage == "reckless" and _no_pending_bet(s) else set(),
            run=_keep_result,
            waiting=_waiting_in_words(
                lambda s: (
                    _("%(name)s: proponer una apuesta para una tirada temeraria, o quedarse con el resultado")
                    % {"name": s.character_name}
                )
            ),
        ),
        Step(
            key="cancel",
            label=gettext_lazy("Cancelar"),
            params=NoParams,
            who=_gm_before_the_roll,
            run=_cancel,
            awaited=False,
        ),
        # The narration and its vetoes (§3.6, §4).
        *talk.narration_steps(_narrated, narr.NarrationKind.ACTION_ABSOLUTE),
    ),
)
