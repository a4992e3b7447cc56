"""An action (*acción*) from locked pool to final outcome (§3.4–§3.10, §6.2, §6.9, §6.10).

An explicit state machine: :func:`start_action` applies the automatic-outcome gate; :func:`choose`
takes the offered outcome or rolls; :func:`talent_reroll` / :func:`decline_talent` settle the talent
decision; :func:`reckless_roll` / :func:`finish` settle the optional reckless roll. Every step returns
a new :class:`ActionState` or refuses an out-of-order step with a RulesError.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from systems.dice import DiceSource
from systems.errors import RulesError
from systems.event.bets import Bet, BetKind, require_agreement
from systems.event.ladder import (
    FAILURES,
    Narrator,
    Outcome,
    Scale,
    difficulty_out_of_range,
    evaluate,
    level_of,
    narrator_for,
)
from systems.event.pool import PoolBreakdown
from systems.event.rolling import DiceRules, reroll_one, roll_pool
from systems.event.settings import DEFAULT_SETTINGS, EventSettings


class Gate(StrEnum):
    AUTO_ABSOLUTE = "AUTO_ABSOLUTE"
    CHOOSE_PARTIAL_OR_ROLL = "CHOOSE_PARTIAL_OR_ROLL"
    CHOOSE_FAILURE_OR_ROLL = "CHOOSE_FAILURE_OR_ROLL"
    FORCED_ROLL = "FORCED_ROLL"  # a wild die with forces_roll skips the gate (§6.10, §8 A-31)


class Choice(StrEnum):
    ROLL = "ROLL"
    TAKE_PARTIAL = "TAKE_PARTIAL"
    TAKE_FAILURE = "TAKE_FAILURE"


OFFERED: dict[Gate, tuple[Choice, ...]] = {
    Gate.AUTO_ABSOLUTE: (),
    Gate.CHOOSE_PARTIAL_OR_ROLL: (Choice.TAKE_PARTIAL, Choice.ROLL),
    Gate.CHOOSE_FAILURE_OR_ROLL: (Choice.TAKE_FAILURE, Choice.ROLL),
    Gate.FORCED_ROLL: (Choice.ROLL,),
}


class ActionStage(StrEnum):
    AWAITING_CHOICE = "AWAITING_CHOICE"
    TALENT_DECISION = "TALENT_DECISION"
    EVALUATED = "EVALUATED"  # the player may still ask for a reckless roll
    RESOLVED = "RESOLVED"


def gate_for(pool: int, gate_against: int, forced_roll: bool = False) -> Gate:
    """§3.4: more dice than the difficulty wins automatically; equal offers a partial; fewer a failure."""
    if forced_roll:
        return Gate.FORCED_ROLL
    if pool > gate_against:
        return Gate.AUTO_ABSOLUTE
    if pool == gate_against:
        return Gate.CHOOSE_PARTIAL_OR_ROLL
    return Gate.CHOOSE_FAILURE_OR_ROLL


@dataclass(frozen=True, slots=True)
class Throw:
    """A throw kept as evidence once a reckless roll superseded it (§3.9, §6.9)."""

    rolled: tuple[int, ...]  # after explosions, before the talent reroll
    final: tuple[int, ...]
    rerolled_index: int | None = None


@dataclass(frozen=True)  # no slots: roll_action fills __dict__ directly (see _fast_state)
class ActionState:
    pool: PoolBreakdown
    difficulty: int
    gate: Gate
    stage: ActionStage
    rules: DiceRules
    talent_eligible: bool = False
    reckless_allowed: bool = False
    choice: Choice | None = None
    outcome: Outcome | None = None
    thrown: tuple[int, ...] = ()  # the current throw after explosions, before any talent reroll
    dice: tuple[int, ...] = ()  # the final dice that decide the outcome
    rerolled_index: int | None = None  # the die the talent rerolled in the current throw
    superseded: tuple[Throw, ...] = ()  # earlier throws replaced by a reckless roll: the roll is evidence
    reckless_bet: Bet | None = None

    @property
    def rolled(self) -> bool:
        return bool(self.dice)

    @property
    def talent_used(self) -> bool:
        return self.rerolled_index is not None

    @property
    def throws(self) -> tuple[Throw, ...]:
        """Every throw in order: superseded ones first, then the current one."""
        if not self.dice:
            return self.superseded
        return (*self.superseded, Throw(self.thrown, self.dice, self.rerolled_index))

    @property
    def reckless_used(self) -> bool:
        return self.reckless_bet is not None

    @property
    def narrator(self) -> Narrator | None:
        return narrator_for(self.outcome) if self.outcome is not None else None

    @property
    def offered(self) -> tuple[Choice, ...]:
        return OFFERED[self.gate] if self.stage is ActionStage.AWAITING_CHOICE else ()

    @property
    def reckless_bet_triggered(self) -> bool:
        return self.reckless_used and self.outcome in FAILURES

    @property
    def wild_bet_triggered(self) -> bool:
        """§6.10: a wild die's bet triggers on a rolled failure or critical failure."""
        return bool(self.pool.wild) and self.rolled and self.outcome in FAILURES

    @property
    def bet_triggered(self) -> bool:
        return self.reckless_bet_triggered or self.wild_bet_triggered


@dataclass(frozen=True, slots=True)
class _ActionProfile:
    """The settings an action needs, resolved once per (frozen) settings object."""

    sides: int
    rank_scale: Scale | None  # set when the gate compares the pool with the level rank
    forces_roll: bool
    talent: bool
    reckless: bool
    rules: DiceRules


def _profile(settings: EventSettings) -> _ActionProfile:
    cache = settings.derived_cache
    profile = cache.get("action_profile")
    if profile is None:
        profile = cache["action_profile"] = _ActionProfile(
            sides=settings.sides,
            rank_scale=settings.scale if settings.gate_basis == "rank" else None,
            forces_roll=settings.optional.wild_die.forces_roll,
            talent=settings.optional.talent.enabled,
            reckless=settings.reckless_allowed("action_roll"),
            rules=DiceRules.for_scope(settings, "actions"),
        )
    return profile


def _begin(pool: PoolBreakdown, difficulty: int, settings: EventSettings) -> tuple[Gate, DiceRules, bool, bool]:
    """What every action needs once the pool is locked: the gate, the dice and the options open to it."""
    p = _profile(settings)
    if not 1 <= difficulty <= p.sides:
        raise difficulty_out_of_range(difficulty, p.sides)
    against = difficulty if p.rank_scale is None else int(level_of(difficulty, p.rank_scale))
    gate = gate_for(pool.total, against, p.forces_roll and bool(pool.wild))
    return gate, p.rules, p.talent and pool.talent_built and not pool.npc, p.reckless and not pool.npc


def start_action(pool: PoolBreakdown, difficulty: int, settings: EventSettings | None = None) -> ActionState:
    """Lock the pool against a public difficulty and apply the gate (the communal die is already taken)."""
    settings = settings or DEFAULT_SETTINGS
    gate, rules, talent, reckless = _begin(pool, difficulty, settings)
    if gate is Gate.AUTO_ABSOLUTE:  # automatic: nothing is rolled, nothing explodes (§8)
        return ActionState(
            pool, difficulty, gate, ActionStage.RESOLVED, rules, talent, reckless, outcome=Outcome.ABSOLUTE_SUCCESS
        )
    return ActionState(pool, difficulty, gate, ActionStage.AWAITING_CHOICE, rules, talent, reckless)


def _next_stage(talent_open: bool, reckless_open: bool) -> ActionStage:
    if talent_open:
        return ActionStage.TALENT_DECISION
    return ActionStage.EVALUATED if reckless_open else ActionStage.RESOLVED


def roll_action(
    pool: PoolBreakdown, difficulty: int, dice: DiceSource, settings: EventSettings | None = None
) -> ActionState:
    """``start_action`` then ``choose(ROLL)`` in one step: the hot path of the ``action`` roll kind.

    Builds the state once (no intermediate copies); refuses exactly what ``choose`` refuses."""
    settings = settings or DEFAULT_SETTINGS
    gate, rules, talent, reckless = _begin(pool, difficulty, settings)
    if gate is Gate.AUTO_ABSOLUTE:
        raise _automatic()
    thrown = roll_pool(dice, pool.total, rules)
    return _fast_state(
        {
            "pool": pool,
            "difficulty": difficulty,
            "gate": gate,
            "stage": _next_stage(talent, reckless),
            "rules": rules,
            "talent_eligible": talent,
            "reckless_allowed": reckless,
            "choice": Choice.ROLL,
            "outcome": evaluate(thrown, difficulty),
            "thrown": thrown,
            "dice": thrown,
            "rerolled_index": None,
            "superseded": (),
            "reckless_bet": None,
        }
    )


def _fast_state(values: dict[str, object]) -> ActionState:
    """Build a frozen ActionState without the per-field ``object.__setattr__`` of a frozen __init__: the
    hot path's single biggest cost after the dice. Every field must be given (a test compares it with the slow path)."""
    state = object.__new__(ActionState)
    state.__dict__.update(values)
    return state


def _automatic() -> RulesError:
    return RulesError(
        "AUTOMATIC_OUTCOME",
        "El éxito absoluto es automático: no hay tirada.",
        "The absolute success is automatic: there is no roll.",
    )


def _out_of_order(state: ActionState, step_es: str, step_en: str) -> RulesError:
    return RulesError(
        "STEP_OUT_OF_ORDER",
        f"La acción está en {state.stage.value}: ahora no se puede {step_es}.",
        f"The action is {state.stage.value}: cannot {step_en} now.",
    )


def choose(state: ActionState, choice: Choice, dice: DiceSource) -> ActionState:
    """Take the offered outcome without rolling, or roll. Decided before any die, never changed."""
    if state.gate is Gate.AUTO_ABSOLUTE:
        raise _automatic()
    if state.stage is not ActionStage.AWAITING_CHOICE:
        raise _out_of_order(state, "elegir", "choose")
    choice = Choice(choice)
    if choice not in OFFERED[state.gate]:
        offered = ", ".join(c.value for c in OFFERED[state.gate])
        raise RulesError(
            "CHOICE_NOT_OFFERED",
            f"Esa opción no se ofrece; puedes elegir: {offered}.",
            f"That choice is not offered; you may choose: {offered}.",
        )
    if choice is Choice.TAKE_PARTIAL:
        return replace(state, choice=choice, stage=ActionStage.RESOLVED, outcome=Outcome.PARTIAL_SUCCESS)
    if choice is Choice.TAKE_FAILURE:
        return replace(state, choice=choice, stage=ActionStage.RESOLVED, outcome=Outcome.FAILURE)
    return _with_throw(state, roll_pool(dice, state.pool.total, state.rules), choice=choice)


def _with_throw(state: ActionState, thrown: tuple[int, ...], **changes: object) -> ActionState:
    """A new throw becomes the current one (a reckless roll keeps the old one as evidence)."""
    reckless_open = state.reckless_allowed and not state.reckless_used and "reckless_bet" not in changes
    return replace(
        state,
        thrown=thrown,
        dice=thrown,
        rerolled_index=None,  # a reckless roll is a new roll: the talent may be used again [INT]
        outcome=evaluate(thrown, state.difficulty),
        stage=_next_stage(state.talent_eligible, reckless_open),
        **changes,  # type: ignore[arg-type]
    )


def _evaluated(state: ActionState) -> ActionState:
    return replace(state, stage=_next_stage(False, state.reckless_allowed and not state.reckless_used))


def talent_reroll(state: ActionState, index: int, dice: DiceSource) -> ActionState:
    """§6.2: reroll one die once per roll; the new value replaces the old even if lower, and may explode."""
    if not state.rolled:
        raise RulesError(
            "NO_ROLL",
            "No hubo tirada: no hay dados que repetir.",
            "There was no roll: there are no dice to reroll.",
        )
    if not state.talent_eligible:
        raise RulesError(
            "TALENT_NOT_USED",
            "La reserva no se formó con tu talento: no puedes repetir un dado.",
            "The pool was not built with your talent: no reroll.",
        )
    if state.talent_used:
        raise RulesError(
            "TALENT_ALREADY_USED",
            "Ya repetiste un dado con tu talento en esta tirada.",
            "You already rerolled a die with your talent on this roll.",
        )
    if state.stage is not ActionStage.TALENT_DECISION:
        raise _out_of_order(state, "repetir un dado", "reroll")
    final = reroll_one(state.dice, index, state.pool.total, dice, state.rules)
    reckless_open = state.reckless_allowed and not state.reckless_used
    return replace(
        state,
        dice=final,
        rerolled_index=index,
        outcome=evaluate(final, state.difficulty),
        stage=_next_stage(False, reckless_open),
    )


def decline_talent(state: ActionState) -> ActionState:
    if state.stage is not ActionStage.TALENT_DECISION:
        raise _out_of_order(state, "renunciar al talento", "decline the talent")
    return _evaluated(state)


def reckless_roll(state: ActionState, bet: Bet | None, dice: DiceSource) -> ActionState:
    """§6.9: with an agreed bet, roll the same pool from scratch; the new result replaces the old."""
    if not state.rolled:
        raise RulesError(
            "NO_ROLL",
            "Un resultado automático no admite tirada temeraria.",
            "An automatic outcome allows no reckless roll.",
        )
    if state.reckless_used:
        raise RulesError(
            "RECKLESS_ALREADY_USED",
            "Ya hiciste una tirada temeraria en esta acción.",
            "You already made a reckless roll on this action.",
        )
    if not state.reckless_allowed:
        raise RulesError(
            "RECKLESS_DISABLED",
            "La tirada temeraria no está disponible aquí.",
            "The reckless roll is not available here.",
        )
    if state.stage is not ActionStage.EVALUATED:
        raise _out_of_order(state, "hacer una tirada temeraria", "make a reckless roll")
    agreed = require_agreement(bet, BetKind.RECKLESS)
    earlier = state.throws
    return _with_throw(state, roll_pool(dice, state.pool.total, state.rules), reckless_bet=agreed, superseded=earlier)


def finish(state: ActionState) -> ActionState:
    """No reckless roll (none asked, or no agreement on the bet): the evaluated result stands."""
    if state.stage is not ActionStage.EVALUATED:
        raise _out_of_order(state, "cerrar la acción", "finish")
    return replace(state, stage=ActionStage.RESOLVED)


def downgrade_overruled(state: ActionState) -> ActionState:
    """§4: an absolute success overruled by vetoes becomes a partial success narrated by the GM."""
    if state.outcome is not Outcome.ABSOLUTE_SUCCESS or state.stage is not ActionStage.RESOLVED:
        raise RulesError(
            "NOT_ABSOLUTE",
            "Solo un éxito absoluto resuelto puede anularse.",
            "Only a resolved absolute success can be overruled.",
        )
    return replace(state, outcome=Outcome.PARTIAL_SUCCESS)


@dataclass(frozen=True, slots=True)
class NarrativeResolution:
    """A diceless resolution (§8 A-14): the GM narrates unless she records an outcome."""

    outcome: Outcome | None
    narrator: Narrator


def resolve_narratively(outcome: Outcome | None = None) -> NarrativeResolution:
    return NarrativeResolution(outcome, narrator_for(outcome) if outcome is not None else Narrator.GM)
