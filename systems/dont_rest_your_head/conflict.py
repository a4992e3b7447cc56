"""The forum conflict as an explicit state machine (§3.10, §5.1, §5.2).

A ``Table`` bundles what one conflict step may change: the conflict, the campaign chest and the
sheets of the PCs involved. Every step is a pure function ``Table -> Table`` that refuses an
out-of-order call with a RulesError; nothing is mutated.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Literal

from systems.dice import DiceSource, roll_many
from systems.dont_rest_your_head.coins import Chest
from systems.dont_rest_your_head.outcome import Outcome, Shade, compute_outcome
from systems.dont_rest_your_head.refusals import refuse
from systems.dont_rest_your_head.roll import (
    HelperRoll,
    HelperRollRequest,
    LeaderRoll,
    LeaderRollRequest,
    PainRoll,
    build_helper_roll,
    build_leader_roll,
    build_pain_roll,
)
from systems.dont_rest_your_head.scars import check_invocable, mark_invoked
from systems.dont_rest_your_head.settings import DEFAULT_SETTINGS, Settings
from systems.dont_rest_your_head.sheet import Sheet

PlayerPool = Literal["discipline", "exhaustion", "madness"]
AnyPool = Literal["discipline", "exhaustion", "madness", "pain"]
Side = Literal["player", "gm"]


class ConflictState(StrEnum):
    DECLARED = "DECLARED"
    OPPOSED = "OPPOSED"
    AWAITING_ROLLS = "AWAITING_ROLLS"
    REVEALED = "REVEALED"
    ADJUSTING = "ADJUSTING"
    SETTLING = "SETTLING"
    CLOSED = "CLOSED"
    VOID = "VOID"


BEFORE_REVEAL = (ConflictState.DECLARED, ConflictState.OPPOSED, ConflictState.AWAITING_ROLLS)
FINISHED = (ConflictState.CLOSED, ConflictState.VOID)


@dataclass(frozen=True)
class Settlement:
    """What settling did, for the post and the ledger: effects in the order applied."""

    outcome: Outcome
    effects: tuple[tuple[str, str], ...]  # (pc or "campaign", effect code)
    despair_gained: int
    hope_from_shading: int
    nightmares: Mapping[str, int]  # pc -> the Nightmare's pain score


@dataclass(frozen=True)
class Conflict:
    id: str
    state: ConflictState = ConflictState.DECLARED
    scene_id: str | None = None
    leader: str | None = None
    helpers: tuple[str, ...] = ()
    unclear_leader: bool = False
    participants: tuple[str, ...] = ()  # unclear-leader mode: everyone rolls full pools
    pain: int | None = None
    madness_price: int | None = None
    leader_roll: LeaderRoll | None = None
    participant_rolls: tuple[LeaderRoll, ...] = ()  # unclear-leader mode, in posting order
    helper_rolls: tuple[HelperRoll, ...] = ()
    dropped: tuple[str, ...] = ()
    pain_roll: PainRoll | None = None
    rerolls: tuple[tuple[PlayerPool, tuple[int, ...]], ...] = ()  # scar rerolls, in order
    hope_ones: int = 0
    minor_use: bool = False
    shading: tuple[Shade, ...] = ()
    despair_spent: int = 0  # "pendientes": reaches the hope chest only at close (S)
    last_change_by: Literal["none", "player", "gm"] = "none"
    passed: tuple[Side, ...] = ()
    settlement: Settlement | None = None

    @property
    def involved(self) -> tuple[str, ...]:
        """The leader and the live helpers (or every participant before a leader is picked)."""
        if self.unclear_leader and self.leader is None:
            return self.participants
        live = tuple(h for h in self.helpers if h not in self.dropped)
        return ((self.leader,) if self.leader else ()) + live

    @property
    def pending_hope(self) -> int:
        return self.despair_spent

    def dice(self, pool: PlayerPool) -> tuple[int, ...]:
        """The leader's dice of ``pool`` now: a scar reroll replaces the rolled dice."""
        assert self.leader_roll is not None
        current: tuple[int, ...] = getattr(self.leader_roll, pool)
        for rerolled_pool, dice in self.rerolls:
            if rerolled_pool == pool:
                current = dice
        return current

    def rolled_size(self, pool: AnyPool) -> int:
        """Dice the pool rolled in this conflict, checked against the original roll (R, B-AMB-19)."""
        if pool == "pain":
            return len(self.pain_roll.dice) if self.pain_roll else 0
        return len(getattr(self.leader_roll, pool)) if self.leader_roll else 0


@dataclass(frozen=True)
class Table:
    """The state one conflict step reads and returns."""

    conflict: Conflict
    chest: Chest
    sheets: Mapping[str, Sheet] = field(default_factory=dict)

    def sheet(self, pc: str) -> Sheet:
        try:
            return self.sheets[pc]
        except KeyError:
            refuse("NOT_INVOLVED", pc=pc)

    def with_sheet(self, pc: str, sheet: Sheet) -> Table:
        return replace(self, sheets={**self.sheets, pc: sheet})


def in_unsettled_conflict(conflict: Conflict, pc: str) -> bool:
    """For breathers and recovery (S: only when not involved in a conflict)."""
    return conflict.state not in FINISHED and pc in conflict.involved


def is_sealed(conflict: Conflict, settings: Settings = DEFAULT_SETTINGS) -> bool:
    """(R, B-AMB-30) rolls stay hidden ("tirada sellada") until the reveal."""
    return settings.seal_rolls and conflict.state in BEFORE_REVEAL


def require_state(conflict: Conflict, *states: ConflictState) -> None:
    if conflict.state in states:
        return
    if ConflictState.ADJUSTING in states:  # an adjustment out of its window (§3.9)
        refuse("WINDOW_CLOSED", state=conflict.state.value)
    if conflict.state == ConflictState.CLOSED:
        refuse("ALREADY_SETTLED", state=conflict.state.value)
    refuse("WRONG_STATE", state=conflict.state.value, expected=[s.value for s in states])


# --- setup -------------------------------------------------------------------------------------


def declare(conflict_id: str, leader: str, helpers: Sequence[str] = (), scene_id: str | None = None) -> Conflict:
    """Step 1, intent: the player names the leader and any helpers."""
    return Conflict(id=conflict_id, leader=leader, helpers=tuple(h for h in helpers if h != leader), scene_id=scene_id)


def declare_group(conflict_id: str, participants: Sequence[str], scene_id: str | None = None) -> Conflict:
    """Step 1 for an unclear-leader group action: everyone rolls full pools (§5.1)."""
    if len(participants) < 1:
        refuse("CHOICE_REQUIRED", choice="participants")
    return Conflict(id=conflict_id, unclear_leader=True, participants=tuple(participants), scene_id=scene_id)


def oppose(conflict: Conflict, pain: int, madness_price: int | None = None) -> Conflict:
    """Step 2: the GM states the (public) pain dice and any madness price; may be repeated to edit."""
    require_state(conflict, ConflictState.DECLARED, ConflictState.OPPOSED)
    if pain < 1:
        refuse("PAIN_RANGE", pain=pain)  # (R, B-AMB-26)
    if madness_price is not None and not 1 <= madness_price <= 6:
        refuse("MADNESS_RANGE", madness_price=madness_price)
    return replace(conflict, state=ConflictState.OPPOSED, pain=pain, madness_price=madness_price)


def start_rolls(conflict: Conflict) -> Conflict:
    require_state(conflict, ConflictState.OPPOSED)
    return replace(conflict, state=ConflictState.AWAITING_ROLLS)


def _after_roll(conflict: Conflict) -> Conflict:
    """Reveal automatically once every expected roll is in (§3.10 step 5)."""
    if conflict.pain_roll is None:
        return conflict
    if conflict.unclear_leader:
        if {r.pc for r in conflict.participant_rolls} >= set(conflict.participants):
            return replace(conflict, state=ConflictState.REVEALED)
        return conflict
    if conflict.leader_roll is None:
        return conflict
    rolled = {h.pc for h in conflict.helper_rolls}
    if all(h in rolled or h in conflict.dropped for h in conflict.helpers):
        return replace(conflict, state=ConflictState.ADJUSTING)  # REVEALED passes immediately
    return conflict


def roll_leader(
    table: Table,
    pc: str,
    request: LeaderRollRequest,
    dice: DiceSource,
    settings: Settings = DEFAULT_SETTINGS,
) -> Table:
    """Step 3: the voluntary increase is applied to the sheet at once, then the dice are rolled."""
    c = table.conflict
    require_state(c, ConflictState.AWAITING_ROLLS)
    if c.unclear_leader:
        if pc not in c.participants:
            refuse("NOT_INVOLVED", pc=pc)
        if any(r.pc == pc for r in c.participant_rolls):
            refuse("DUPLICATE_ROLL", pc=pc)
    else:
        if pc != c.leader:
            refuse("NOT_LEADER", pc=pc)
        if c.leader_roll is not None:
            refuse("DUPLICATE_ROLL", pc=pc)
    sheet, roll = build_leader_roll(pc, table.sheet(pc), request, dice, settings, c.madness_price, c.scene_id)
    c = replace(c, participant_rolls=(*c.participant_rolls, roll)) if c.unclear_leader else replace(c, leader_roll=roll)
    return replace(table.with_sheet(pc, sheet), conflict=_after_roll(c))


def roll_helper(table: Table, pc: str, request: HelperRollRequest, dice: DiceSource) -> Table:
    """Step 4: a declared helper's discipline dice."""
    c = table.conflict
    if request.talent_use or request.madness_talent:
        refuse("HELPER_NO_TALENTS")
    require_state(c, ConflictState.AWAITING_ROLLS)
    if pc not in c.helpers or pc in c.dropped:
        refuse("NOT_INVOLVED", pc=pc)
    if any(h.pc == pc for h in c.helper_rolls):
        refuse("DUPLICATE_ROLL", pc=pc)
    roll = build_helper_roll(pc, table.sheet(pc), request, dice)
    return replace(table, conflict=_after_roll(replace(c, helper_rolls=(*c.helper_rolls, roll))))


def roll_pain(table: Table, dice: DiceSource) -> Table:
    """Step 4: the GM's pain dice (the count fixed in step 2)."""
    c = table.conflict
    require_state(c, ConflictState.AWAITING_ROLLS)
    if c.pain_roll is not None:
        refuse("DUPLICATE_ROLL", pc="gm")
    assert c.pain is not None  # set by oppose()
    return replace(table, conflict=_after_roll(replace(c, pain_roll=build_pain_roll(c.pain, dice))))


def drop_helper(table: Table, pc: str) -> Table:
    """The GM drops a helper who never posted, so the reveal isn't blocked."""
    c = table.conflict
    require_state(c, ConflictState.AWAITING_ROLLS)
    if pc not in c.helpers or any(h.pc == pc for h in c.helper_rolls):
        refuse("NOT_INVOLVED", pc=pc)
    return replace(table, conflict=_after_roll(replace(c, dropped=(*c.dropped, pc))))


def void(table: Table) -> Table:
    """The GM cancels before the reveal. Voluntary increases stay (S); no coins move."""
    require_state(table.conflict, *BEFORE_REVEAL)
    return replace(table, conflict=replace(table.conflict, state=ConflictState.VOID))


def pick_leader(table: Table, gm_choice: str | None = None) -> Table:
    """Unclear-leader mode (§5.1): most successes counting all own dice leads; on a tie the GM picks,
    by default the first to post (R, B-AMB-31). The others help with discipline successes only."""
    c = table.conflict
    require_state(c, ConflictState.REVEALED)
    best = max(r.all_successes() for r in c.participant_rolls)
    tied = [r for r in c.participant_rolls if r.all_successes() == best]
    if gm_choice is None:
        chosen = tied[0]
    else:
        matches = [r for r in tied if r.pc == gm_choice]
        if not matches:
            refuse("CHOICE_NOT_ALLOWED", choice=gm_choice)
        chosen = matches[0]
    helpers = tuple(
        HelperRoll(pc=r.pc, discipline=r.discipline, full_pool_size=r.pool_size)
        for r in c.participant_rolls
        if r.pc != chosen.pc
    )
    return replace(
        table,
        conflict=replace(
            c,
            state=ConflictState.ADJUSTING,
            leader=chosen.pc,
            leader_roll=chosen,
            helpers=tuple(h.pc for h in helpers),
            helper_rolls=helpers,
        ),
    )


# --- the result ---------------------------------------------------------------------------------


def outcome(conflict: Conflict) -> Outcome:
    """The provisional result (final once the window closes)."""
    if conflict.leader_roll is None or conflict.pain_roll is None or conflict.state in BEFORE_REVEAL:
        refuse("WRONG_STATE", state=conflict.state.value)
    r = conflict.leader_roll
    talent_use = "minor" if conflict.minor_use else r.talent_use
    return compute_outcome(
        conflict.dice("discipline"),
        conflict.dice("exhaustion"),
        conflict.dice("madness"),
        conflict.pain_roll.dice,
        helpers=[h.discipline for h in conflict.helper_rolls if h.pc not in conflict.dropped],
        talent_use=talent_use,
        exhaustion_at_roll=r.exhaustion_at_roll,
        hope_ones=conflict.hope_ones,
        shading=conflict.shading,
    )


# --- the adjustment window (§3.5, §5.2) -----------------------------------------------------------


def _player_changed(c: Conflict, **changes: object) -> Conflict:
    return replace(c, last_change_by="player", passed=(), **changes)  # type: ignore[arg-type]


def _require_leader_player(c: Conflict, by_pc: str) -> None:
    if by_pc != c.leader:
        refuse("NOT_LEADER", pc=by_pc)  # (R, B-AMB-18)


def declare_minor_use(table: Table, by_pc: str, gm_confirms: bool) -> Table:
    """Minor use (uso menor), declared after seeing the dice (S, B-AMB-08)."""
    c = table.conflict
    require_state(c, ConflictState.ADJUSTING)
    _require_leader_player(c, by_pc)
    assert c.leader_roll is not None
    if not table.sheet(by_pc).talents_available:
        refuse("TALENTS_UNAVAILABLE")
    if c.leader_roll.talent_use == "major" or c.minor_use:
        refuse("TALENT_USE_EXCLUSIVE")  # (R, B-AMB-07)
    if c.leader_roll.exhaustion_at_roll < 1:
        refuse("MINOR_NEEDS_EXHAUSTION")
    if not gm_confirms:
        refuse("GM_NOT_CONFIRMED")
    return replace(table, conflict=_player_changed(c, minor_use=True))


def spend_hope(table: Table, by_pc: str, coins: int = 1) -> Table:
    """ "Mejorar los éxitos" (S): each coin adds a die showing 1 to the leader's discipline pool.
    Only coins already in the chest count, never this conflict's pending ones."""
    c = table.conflict
    require_state(c, ConflictState.ADJUSTING)
    _require_leader_player(c, by_pc)
    if coins < 1:
        refuse("CHOICE_REQUIRED", choice="coins")
    if table.chest.hope < coins:
        refuse("NO_HOPE", needed=coins, hope=table.chest.hope, pending=c.despair_spent)
    chest = table.chest.model_copy(update={"hope": table.chest.hope - coins})
    return replace(table, chest=chest, conflict=_player_changed(c, hope_ones=c.hope_ones + coins))


def shade(table: Table, kind: Literal["add6", "remove6"], pool: AnyPool) -> Table:
    """ "Ensombrecer" (S): the GM spends 1 despair to add or remove a 6 in a pool in play."""
    c = table.conflict
    require_state(c, ConflictState.ADJUSTING)
    if table.chest.despair < 1:
        refuse("NO_DESPAIR")
    if pool not in ("discipline", "exhaustion", "madness", "pain") or c.rolled_size(pool) < 1:
        refuse("POOL_NOT_IN_PLAY", pool=pool)  # helper dice are never shaded (R, B-AMB-19)
    if kind == "remove6" and 6 not in outcome(c).pools.as_dict()[pool]:
        refuse("NO_SIX_IN_POOL", pool=pool)
    chest = table.chest.model_copy(update={"despair": table.chest.despair - 1})
    conflict = replace(
        c,
        shading=(*c.shading, Shade(kind, pool)),
        despair_spent=c.despair_spent + 1,
        last_change_by="gm",
        passed=(),
    )
    return replace(table, chest=chest, conflict=conflict)


def invoke_scar(
    table: Table,
    by_pc: str,
    scar_index: int,
    pool: PlayerPool,
    gm_confirms: bool,
    dice: DiceSource,
) -> Table:
    """(S) reroll one of the leader's pools; hope 1s are kept; only before the first shading
    (R, B-AMB-20)."""
    c = table.conflict
    require_state(c, ConflictState.ADJUSTING)
    _require_leader_player(c, by_pc)
    if c.shading:
        refuse("SCAR_AFTER_SHADING")
    sheet = table.sheet(by_pc)
    check_invocable(sheet, scar_index)
    if pool not in ("discipline", "exhaustion", "madness") or c.rolled_size(pool) < 1:
        refuse("POOL_NOT_IN_PLAY", pool=pool)
    if not gm_confirms:
        refuse("GM_NOT_CONFIRMED")
    new_dice = roll_many(dice, c.rolled_size(pool), 6)
    conflict = _player_changed(c, rerolls=(*c.rerolls, (pool, new_dice)))
    return replace(table.with_sheet(by_pc, mark_invoked(sheet, scar_index)), conflict=conflict)


def pass_turn(table: Table, side: Side) -> Table:
    """A side passes; when both have passed since the last change, the window closes."""
    c = table.conflict
    require_state(c, ConflictState.ADJUSTING)
    passed = tuple(sorted({*c.passed, side}))
    state = ConflictState.SETTLING if set(passed) == {"player", "gm"} else c.state
    return replace(table, conflict=replace(c, passed=passed, state=state))


def gm_resolve(table: Table, player_notified_and_timed_out: bool = False) -> Table:
    """The GM's "resolver": allowed unless the GM made the last change and the player hasn't passed
    since; then the player must have been notified and the campaign timeout must have passed (§5.2;
    the clock is the caller's)."""
    c = table.conflict
    require_state(c, ConflictState.ADJUSTING)
    # The player answered the last shading by passing: they have had their chance.
    if c.last_change_by == "gm" and "player" not in c.passed and not player_notified_and_timed_out:
        refuse("RESOLVE_TOO_SOON")
    return replace(table, conflict=replace(c, state=ConflictState.SETTLING))
