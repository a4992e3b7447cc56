"""Conflicts (conflictos, spec §3.3 and §5.2): two opposed rolls, tie rules by kind, rerolls.

The omen check runs once per conflict, after any rerolls, on the combined omens of both sides.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Literal, TypeVar

from systems.dice import DiceSource
from systems.presagios.damage import DamageOutcome, apply_damage, conflict_damage
from systems.presagios.dice import CoreRoll, check_tool_dice, pool_size, roll_pool
from systems.presagios.points import Use, pay
from systems.presagios.qualities import Force, QualityActivation, pay_for_force
from systems.presagios.rejections import reject
from systems.presagios.settings import (
    DEFAULT_SETTINGS,
    ConflictTieOmens,
    PresagiosSettings,
    ProtectionCheckTime,
)
from systems.presagios.sheet import CharKey, Kind
from systems.presagios.table import Table
from systems.presagios.threat import danger_cost, omen_check_hits
from systems.presagios.traits import NamedTrait, chosen_trait

SideKey = Literal["a", "b"]
T = TypeVar("T")
MAX_ROUNDS = 1000  # ties end with probability 1; this only guards against a broken dice source


def other(side: SideKey) -> SideKey:
    return "b" if side == "a" else "a"


def decide(total_a: int, kind_a: Kind, total_b: int, kind_b: Kind) -> SideKey | None:
    """The winner, or None when the tie must be rerolled (S)."""
    if total_a != total_b:
        return "a" if total_a > total_b else "b"
    a_main, b_main = kind_a is Kind.PRINCIPAL, kind_b is Kind.PRINCIPAL
    if a_main != b_main:
        return "a" if a_main else "b"  # main characters win ties against secondaries and monsters
    return None  # principal vs principal, or non-principal vs non-principal: reroll both


Pair = tuple[CoreRoll, CoreRoll]


def counted_omens(pairs: tuple[Pair, ...], settings: PresagiosSettings) -> tuple[int, int]:
    """Omens of side a and side b that count for the check and damage (A-AMB-17)."""
    counted = pairs[-1:] if settings.conflict_tie_omens is ConflictTieOmens.FINAL_PAIR else pairs
    return sum(p[0].omens for p in counted), sum(p[1].omens for p in counted)


# --- the roll kind: a whole conflict at once, dice only -------------------------------------------


@dataclass(frozen=True, slots=True)
class SideRoll:
    kind: Kind
    current: int
    tool_dice: int = 0
    trait_bonus: int = 0


@dataclass(frozen=True, slots=True)
class ConflictResult:
    pairs: tuple[Pair, ...]  # every pair is posted; the last one decided
    winner: SideKey
    omens_a: int  # counted omens per side (final pair by default)
    omens_b: int

    @property
    def combined_omens(self) -> int:
        return self.omens_a + self.omens_b

    @property
    def loser_damage(self) -> int:
        """(S) if dangerous: 1 + the winner's omens."""
        return conflict_damage(self.omens_a if self.winner == "a" else self.omens_b)

    def public(self) -> dict[str, object]:
        return {
            "pairs": [{"a": a.public(), "b": b.public()} for a, b in self.pairs],
            "winner": self.winner,
            "combined_omens": self.combined_omens,
        }


def resolve_conflict(
    source: DiceSource, a: SideRoll, b: SideRoll, settings: PresagiosSettings = DEFAULT_SETTINGS
) -> ConflictResult:
    pool_a, pool_b = pool_size(a.current, a.tool_dice), pool_size(b.current, b.tool_dice)
    if pool_a == pool_b == 0 and decide(a.trait_bonus, a.kind, b.trait_bonus, b.kind) is None:
        # no dice on either side: a reroll can never break the tie, so a person must (not in the spec)
        raise reject("UNBREAKABLE_TIE")
    pairs: list[Pair] = []
    for _ in range(MAX_ROUNDS):
        ra = roll_pool(source, pool_a, a.trait_bonus, settings)
        rb = roll_pool(source, pool_b, b.trait_bonus, settings)
        pairs.append((ra, rb))
        winner = decide(ra.total, a.kind, rb.total, b.kind)
        if winner is not None:
            done = tuple(pairs)
            omens_a, omens_b = counted_omens(done, settings)
            return ConflictResult(done, winner, omens_a, omens_b)
    raise reject("TOO_MANY_TIES")


# --- the state machine --------------------------------------------------------------------------


class ConflictStage(StrEnum):
    DRAFT = "draft"
    AWAITING_ROLLS = "awaiting_rolls"  # the first roll stays sealed until the second is in
    REVEALED = "revealed"  # both shown; named traits await the GM
    TIE_REROLL = "tie_reroll"
    RESPONSE = "response"
    DAMAGE_PENDING = "damage_pending"
    CLOSED = "closed"
    CANCELLED = "cancelled"


@dataclass(frozen=True)
class Participant:
    character_id: str
    kind: Kind
    characteristic: CharKey
    tool_dice: int = 0

    @classmethod
    def of(cls, table: Table, character_id: str, characteristic: CharKey, tool_dice: int = 0) -> Participant:
        kind = table.character(character_id).kind
        return cls(character_id, kind, characteristic, check_tool_dice(tool_dice))


@dataclass(frozen=True)
class ConflictFlow:
    conflict_id: str
    a: Participant
    b: Participant
    stage: ConflictStage = ConflictStage.DRAFT
    dangerous: bool = False
    danger_paid: bool = False
    pending: tuple[CoreRoll | None, CoreRoll | None] = (None, None)  # this round, before scoring
    proposed: tuple[tuple[NamedTrait, ...], tuple[NamedTrait, ...]] = ((), ())
    bonus: tuple[int | None, int | None] = (None, None)  # None: not judged yet; kept for rerolls
    pairs: tuple[Pair, ...] = ()
    threat_at_roll: int | None = None
    natural_winner: SideKey | None = None
    forced_winner: SideKey | None = None
    omen_hit: bool = False
    damage: tuple[DamageOutcome, ...] = ()

    def participant(self, side: SideKey) -> Participant:
        return self.a if side == "a" else self.b

    @property
    def winner(self) -> SideKey | None:
        return self.forced_winner if self.forced_winner is not None else self.natural_winner

    @property
    def loser(self) -> SideKey | None:
        return None if self.winner is None else other(self.winner)

    def counted_omens(self, settings: PresagiosSettings = DEFAULT_SETTINGS) -> tuple[int, int]:
        return counted_omens(self.pairs, settings) if self.pairs else (0, 0)

    def public(self) -> dict[str, object]:
        """What players see: the first roll stays sealed until the second is posted (A-AMB-22)."""
        both_in = all(r is not None for r in self.pending)
        pending = [None if r is None else (r.public() if both_in else {"sealed": True}) for r in self.pending]
        return {
            "conflict_id": self.conflict_id,
            "stage": str(self.stage),
            "dangerous": self.dangerous,
            "pending": pending,
            "pairs": [{"a": a.public(), "b": b.public()} for a, b in self.pairs],
            "winner": self.winner,
        }


def _require(flow: ConflictFlow, *stages: ConflictStage) -> None:
    if flow.stage not in stages:
        raise reject("WRONG_STEP", stage=str(flow.stage))


def _set(pair: tuple[T, T], side: SideKey, value: T) -> tuple[T, T]:
    return (value, pair[1]) if side == "a" else (pair[0], value)


def open_conflict(conflict_id: str, a: Participant, b: Participant) -> ConflictFlow:
    """GM: open a conflict between two participants (DRAFT)."""
    return ConflictFlow(conflict_id, a, b)


def declare_dangerous(
    flow: ConflictFlow, table: Table, settings: PresagiosSettings = DEFAULT_SETTINGS
) -> tuple[ConflictFlow, Table]:
    """GM: free at threat ≥ 8 or against any monstruo (A-AMB-27), else 1 threat."""
    rolled = bool(flow.pairs) or any(r is not None for r in flow.pending)
    if rolled or flow.stage not in (ConflictStage.DRAFT, ConflictStage.AWAITING_ROLLS):
        raise reject("DANGER_AFTER_ROLL")  # (S) only before the dice are rolled
    if flow.dangerous:
        raise reject("ALREADY_DANGEROUS")
    against_monster = Kind.MONSTRUO in (flow.a.kind, flow.b.kind)
    cost = danger_cost(table.threat, settings, against_monster=against_monster)
    return replace(flow, dangerous=True, danger_paid=cost > 0), table.with_threat(table.threat - cost)


def confirm_setup(flow: ConflictFlow) -> ConflictFlow:
    _require(flow, ConflictStage.DRAFT)
    return replace(flow, stage=ConflictStage.AWAITING_ROLLS)


def _roll_side(
    flow: ConflictFlow, table: Table, side: SideKey, dice: DiceSource, settings: PresagiosSettings
) -> CoreRoll:
    p = flow.participant(side)
    sheet = table.character(p.character_id)
    if not sheet.in_story:
        raise reject("NOT_IN_STORY", character_id=p.character_id)
    return roll_pool(dice, pool_size(sheet.current_of(p.characteristic), p.tool_dice), 0, settings)


def post_roll(
    flow: ConflictFlow,
    table: Table,
    side: SideKey,
    dice: DiceSource,
    settings: PresagiosSettings = DEFAULT_SETTINGS,
    traits: tuple[NamedTrait, ...] = (),
) -> tuple[ConflictFlow, Table]:
    """One side posts its roll (a player for a principal, the GM for an NPC)."""
    _require(flow, ConflictStage.AWAITING_ROLLS)
    if flow.pending[0 if side == "a" else 1] is not None:
        raise reject("WRONG_STEP", stage=str(flow.stage))
    roll = _roll_side(flow, table, side, dice, settings)
    flow = replace(
        flow,
        pending=_set(flow.pending, side, roll),
        proposed=_set(flow.proposed, side, traits),
        bonus=_set(flow.bonus, side, None if traits else 0),
        threat_at_roll=table.threat if flow.threat_at_roll is None else flow.threat_at_roll,
    )
    if all(r is not None for r in flow.pending):
        return _compare(replace(flow, stage=ConflictStage.REVEALED), table, settings)
    return flow, table


def judge_traits(
    flow: ConflictFlow,
    table: Table,
    side: SideKey,
    accepted: Collection[str],
    settings: PresagiosSettings = DEFAULT_SETTINGS,
) -> tuple[ConflictFlow, Table]:
    """GM: accept the named traits of one side; the highest accepted applies (A-AMB-06)."""
    _require(flow, ConflictStage.AWAITING_ROLLS, ConflictStage.REVEALED)
    index = 0 if side == "a" else 1
    if flow.pending[index] is None or flow.bonus[index] is not None:
        raise reject("WRONG_STEP", stage=str(flow.stage))
    chosen = chosen_trait(flow.proposed[index], accepted)
    if chosen is not None and chosen.supernatural:
        table = pay(table, flow.participant(side).character_id, Use.SUPERNATURAL_TRAIT, settings)
    flow = replace(flow, bonus=_set(flow.bonus, side, 0 if chosen is None else chosen.value))
    if flow.stage is ConflictStage.REVEALED:
        return _compare(flow, table, settings)
    return flow, table


def _compare(flow: ConflictFlow, table: Table, settings: PresagiosSettings) -> tuple[ConflictFlow, Table]:
    bonus_a, bonus_b = flow.bonus
    roll_a, roll_b = flow.pending
    if bonus_a is None or bonus_b is None or roll_a is None or roll_b is None:
        return flow, table  # a trait still awaits the GM
    pair = (roll_a.with_trait(bonus_a), roll_b.with_trait(bonus_b))
    pairs = (*flow.pairs, pair)
    flow = replace(flow, pairs=pairs, pending=(None, None))
    winner = decide(pair[0].total, flow.a.kind, pair[1].total, flow.b.kind)
    if winner is None:
        return replace(flow, stage=ConflictStage.TIE_REROLL), table
    return _decided(flow, table, settings, winner)


def _decided(
    flow: ConflictFlow, table: Table, settings: PresagiosSettings, winner: SideKey
) -> tuple[ConflictFlow, Table]:
    omens_a, omens_b = counted_omens(flow.pairs, settings)
    assert flow.threat_at_roll is not None
    hit = omen_check_hits(omens_a + omens_b, flow.threat_at_roll, settings)  # once per conflict (S)
    flow = replace(flow, natural_winner=winner, omen_hit=hit, stage=ConflictStage.RESPONSE)
    return flow, table.with_threat(table.threat + 1) if hit else table


def reroll(
    flow: ConflictFlow, table: Table, dice: DiceSource, settings: PresagiosSettings = DEFAULT_SETTINGS
) -> tuple[ConflictFlow, Table]:
    """Server: reroll both sides after a tie, same characteristic, tools and trait (S)."""
    _require(flow, ConflictStage.TIE_REROLL)
    if _tie_unbreakable(flow, table):
        raise reject("UNBREAKABLE_TIE")
    roll_a = _roll_side(flow, table, "a", dice, settings)
    roll_b = _roll_side(flow, table, "b", dice, settings)
    return _compare(replace(flow, pending=(roll_a, roll_b), stage=ConflictStage.REVEALED), table, settings)


def _tie_unbreakable(flow: ConflictFlow, table: Table) -> bool:
    pools = [
        pool_size(table.character(p.character_id).current_of(p.characteristic), p.tool_dice) for p in (flow.a, flow.b)
    ]
    return pools == [0, 0]  # both totals are only their traits: every reroll ties again


def break_tie(
    flow: ConflictFlow, table: Table, winner: SideKey, settings: PresagiosSettings = DEFAULT_SETTINGS
) -> tuple[ConflictFlow, Table]:
    """GM: pick the winner of a tie that no reroll can break (neither side has dice; not in the spec)."""
    _require(flow, ConflictStage.TIE_REROLL)
    if not _tie_unbreakable(flow, table):
        raise reject("WRONG_STEP", stage=str(flow.stage))
    return _decided(flow, table, settings, winner)


def force_outcome(
    flow: ConflictFlow, table: Table, side: SideKey, force: Force, activation: QualityActivation
) -> tuple[ConflictFlow, Table]:
    """Anyone: force ``side`` to win (success) or lose (failure), once per conflict (A-AMB-18)."""
    _require(flow, ConflictStage.RESPONSE)
    if flow.forced_winner is not None:
        raise reject("ALREADY_FORCED")
    table = pay_for_force(table, activation, force)
    return replace(flow, forced_winner=side if force is Force.SUCCESS else other(side)), table


def finalize(flow: ConflictFlow, table: Table) -> tuple[ConflictFlow, Table]:
    _require(flow, ConflictStage.RESPONSE)
    return replace(flow, stage=ConflictStage.DAMAGE_PENDING if flow.dangerous else ConflictStage.CLOSED), table


def settle_damage(
    flow: ConflictFlow,
    table: Table,
    settings: PresagiosSettings = DEFAULT_SETTINGS,
    *,
    protect: bool = False,
    characteristic: CharKey | None = None,
) -> tuple[ConflictFlow, Table]:
    """Damage the loser by 1 + the winner's omens; protection per kind (§3.5).

    ``characteristic`` lets the GM redirect the damage; by default it hits the one the loser rolled
    (A-AMB-16).
    """
    _require(flow, ConflictStage.DAMAGE_PENDING)
    winner, loser = flow.winner, flow.loser
    assert winner is not None and loser is not None
    omens_a, omens_b = flow.counted_omens(settings)
    amount = conflict_damage(omens_a if winner == "a" else omens_b)
    target = flow.participant(loser)
    at_roll = settings.protection_check_time is ProtectionCheckTime.AT_ROLL
    table, outcome = apply_damage(
        table,
        target.character_id,
        characteristic or target.characteristic,
        amount,
        settings,
        protect=protect,
        protection_threat=flow.threat_at_roll if at_roll else None,
    )
    return replace(flow, stage=ConflictStage.CLOSED, damage=(outcome,)), table


def cancel(flow: ConflictFlow, table: Table) -> tuple[ConflictFlow, Table]:
    """GM: cancel before both rolls are in; a paid danger declaration is refunded before any dice."""
    _require(flow, ConflictStage.DRAFT, ConflictStage.AWAITING_ROLLS)
    refund = 1 if flow.danger_paid and all(r is None for r in flow.pending) else 0
    return replace(flow, stage=ConflictStage.CANCELLED), table.with_threat(table.threat + refund)
