"""Challenges (retos, spec §3.2 and §5.1): the roll resolver and the forum state machine.

The difficulty is sealed: it lives in the flow for the server's comparison but is never part of a
result or of ``public()``; only "Éxito" or "Fallo" is announced.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field, replace
from enum import StrEnum

from systems.dice import DiceSource
from systems.presagios.damage import DamageOutcome, apply_damage, challenge_damage
from systems.presagios.dice import CoreRoll, check_tool_dice, pool_size, roll_pool
from systems.presagios.outcome import outcome_label
from systems.presagios.points import Use, pay
from systems.presagios.qualities import Force, QualityActivation, pay_for_force
from systems.presagios.rejections import reject
from systems.presagios.settings import DEFAULT_SETTINGS, PresagiosSettings, ProtectionCheckTime
from systems.presagios.sheet import CharKey
from systems.presagios.table import Table
from systems.presagios.threat import danger_cost, omen_check_hits
from systems.presagios.traits import NamedTrait, chosen_trait

MIN_DIFFICULTY, MAX_DIFFICULTY = 1, 20  # A-AMB-22


def check_difficulty(difficulty: int) -> int:
    if not MIN_DIFFICULTY <= difficulty <= MAX_DIFFICULTY:
        raise reject("DIFFICULTY_RANGE", difficulty=difficulty)
    return difficulty


# --- the roll kind: one challenge roll, dice only ----------------------------------------------


@dataclass(frozen=True, slots=True)
class ChallengeResult:
    roll: CoreRoll
    success: bool

    def public(self, language: str = "es") -> dict[str, object]:
        return {**self.roll.public(), "success": self.success, "outcome": outcome_label(self.success, language)}


def resolve_challenge(
    source: DiceSource,
    current: int,
    difficulty: int,
    tool_dice: int = 0,
    trait_bonus: int = 0,
    settings: PresagiosSettings = DEFAULT_SETTINGS,
) -> ChallengeResult:
    """(S) roll current + tools d6; success when total ≥ the secret difficulty."""
    roll = roll_pool(source, pool_size(current, tool_dice), trait_bonus, settings)
    return ChallengeResult(roll, roll.total >= difficulty)


# --- the state machine --------------------------------------------------------------------------


class ChallengeStage(StrEnum):
    DRAFT = "draft"
    AWAITING_ROLL = "awaiting_roll"
    ROLLED = "rolled"  # dice shown, a named trait awaits the GM
    RESPONSE = "response"  # outcome published; retry / force / finalize
    DAMAGE_PENDING = "damage_pending"
    CLOSED = "closed"
    CANCELLED = "cancelled"


@dataclass(frozen=True)
class Attempt:
    """One roll of the challenge, kept in the log even when a retry replaces it."""

    roll: CoreRoll | None  # None: an automatic failure of a locked challenge, no dice
    threat_at_roll: int  # threat before this roll's consequences (A-AMB-03)
    natural_success: bool | None = None  # None until the outcome is published
    omen_hit: bool = False
    forced: Force | None = None
    damage_settled: bool = False

    @property
    def success(self) -> bool | None:
        if self.forced is not None:
            return self.forced is Force.SUCCESS  # (S) whatever the total
        return self.natural_success

    @property
    def omens(self) -> int:
        return 0 if self.roll is None else self.roll.omens


@dataclass(frozen=True)
class ChallengeFlow:
    challenge_id: str
    character_id: str
    characteristic: CharKey
    difficulty: int = field(repr=False)  # sealed
    tool_dice: int = 0
    stage: ChallengeStage = ChallengeStage.DRAFT
    dangerous: bool = False
    danger_paid: bool = False
    retry_paid: bool = False
    attempts: tuple[Attempt, ...] = ()
    proposed_traits: tuple[NamedTrait, ...] = ()
    damage: tuple[DamageOutcome, ...] = ()

    @property
    def last(self) -> Attempt:
        if not self.attempts:
            raise reject("WRONG_STEP", stage=self.stage)
        return self.attempts[-1]

    @property
    def success(self) -> bool | None:
        """The outcome once the flow is past the response window."""
        if self.stage in (ChallengeStage.DAMAGE_PENDING, ChallengeStage.CLOSED) and self.attempts:
            return self.last.success
        return None

    def public(self, language: str = "es") -> dict[str, object]:
        """What players may see: never the difficulty (A-AMB-22)."""
        attempts = []
        for a in self.attempts:
            item: dict[str, object] = {"automatic": a.roll is None}
            if a.roll is not None:
                item.update(a.roll.public())
            if a.success is not None:
                item["success"] = a.success
                item["outcome"] = outcome_label(a.success, language)
                item["forced"] = a.forced is not None
            attempts.append(item)
        return {
            "challenge_id": self.challenge_id,
            "character_id": self.character_id,
            "characteristic": self.characteristic,
            "tool_dice": self.tool_dice,
            "stage": str(self.stage),
            "dangerous": self.dangerous,
            "attempts": attempts,
        }


def _require(flow: ChallengeFlow, *stages: ChallengeStage) -> None:
    if flow.stage not in stages:
        raise reject("WRONG_STEP", stage=str(flow.stage))


def _with_last(flow: ChallengeFlow, attempt: Attempt, **changes: object) -> ChallengeFlow:
    return replace(flow, attempts=(*flow.attempts[:-1], attempt), **changes)  # type: ignore[arg-type]


def open_challenge(
    challenge_id: str, character_id: str, characteristic: CharKey, difficulty: int, tool_dice: int = 0
) -> ChallengeFlow:
    """GM: open a challenge on a player's post (DRAFT). Difficulty and tools are fixed before rolling."""
    return ChallengeFlow(
        challenge_id, character_id, characteristic, check_difficulty(difficulty), check_tool_dice(tool_dice)
    )


def declare_dangerous(
    flow: ChallengeFlow, table: Table, settings: PresagiosSettings = DEFAULT_SETTINGS
) -> tuple[ChallengeFlow, Table]:
    """GM: make the challenge dangerous, paying 1 threat unless threat ≥ 8 (S)."""
    if flow.attempts or flow.stage not in (ChallengeStage.DRAFT, ChallengeStage.AWAITING_ROLL):
        raise reject("DANGER_AFTER_ROLL")  # (S) only before the dice are rolled
    if flow.dangerous:
        raise reject("ALREADY_DANGEROUS")
    cost = danger_cost(table.threat, settings)
    return replace(flow, dangerous=True, danger_paid=cost > 0), table.with_threat(table.threat - cost)


def confirm_setup(flow: ChallengeFlow) -> ChallengeFlow:
    _require(flow, ChallengeStage.DRAFT)
    return replace(flow, stage=ChallengeStage.AWAITING_ROLL)


def roll_challenge(
    flow: ChallengeFlow,
    table: Table,
    dice: DiceSource,
    settings: PresagiosSettings = DEFAULT_SETTINGS,
    traits: tuple[NamedTrait, ...] = (),
) -> tuple[ChallengeFlow, Table]:
    """Player: roll. A locked character without a paid retry fails automatically: no dice, no omen check."""
    _require(flow, ChallengeStage.AWAITING_ROLL)
    sheet = table.character(flow.character_id)
    if not sheet.in_story:
        raise reject("NOT_IN_STORY", character_id=flow.character_id)
    if flow.challenge_id in sheet.challenge_locks and not flow.retry_paid:
        attempt = Attempt(roll=None, threat_at_roll=table.threat, natural_success=False)
        flow = replace(flow, attempts=(*flow.attempts, attempt), stage=ChallengeStage.RESPONSE)
        return finalize(flow, table)
    roll = roll_pool(dice, pool_size(sheet.current_of(flow.characteristic), flow.tool_dice), 0, settings)
    attempt = Attempt(roll=roll, threat_at_roll=table.threat)
    flow = replace(flow, attempts=(*flow.attempts, attempt), retry_paid=False, proposed_traits=traits)
    if traits:
        return replace(flow, stage=ChallengeStage.ROLLED), table  # the outcome waits for the GM
    return _publish(flow, table, settings, 0)


def judge_traits(
    flow: ChallengeFlow,
    table: Table,
    accepted: Collection[str],
    settings: PresagiosSettings = DEFAULT_SETTINGS,
) -> tuple[ChallengeFlow, Table]:
    """GM: accept the named traits that fit; the highest accepted one applies (A-AMB-06)."""
    _require(flow, ChallengeStage.ROLLED)
    chosen = chosen_trait(flow.proposed_traits, accepted)
    if chosen is not None and chosen.supernatural:
        table = pay(table, flow.character_id, Use.SUPERNATURAL_TRAIT, settings)  # (S) 1 point per use
    return _publish(flow, table, settings, 0 if chosen is None else chosen.value)


def _publish(flow: ChallengeFlow, table: Table, settings: PresagiosSettings, bonus: int) -> tuple[ChallengeFlow, Table]:
    attempt = flow.last
    assert attempt.roll is not None
    roll = attempt.roll.with_trait(bonus)
    hit = omen_check_hits(roll.omens, attempt.threat_at_roll, settings)  # once per roll (§3.4)
    attempt = replace(attempt, roll=roll, natural_success=roll.total >= flow.difficulty, omen_hit=hit)
    flow = _with_last(flow, attempt, stage=ChallengeStage.RESPONSE)
    return flow, table.with_threat(table.threat + 1) if hit else table


def pay_retry(
    flow: ChallengeFlow, table: Table, settings: PresagiosSettings = DEFAULT_SETTINGS
) -> tuple[ChallengeFlow, Table]:
    """Player: pay 1 point to roll a failed challenge again (S). A new roll replaces the failed one."""
    if flow.stage is ChallengeStage.AWAITING_ROLL:
        sheet = table.character(flow.character_id)
        if flow.challenge_id not in sheet.challenge_locks or flow.retry_paid:
            raise reject("RETRY_NOT_FAILED")
    elif flow.stage is ChallengeStage.RESPONSE:
        attempt = flow.last
        if attempt.success:
            raise reject("RETRY_NOT_FAILED")
        if attempt.forced is not None:
            raise reject("ALREADY_FORCED")  # a quality fixed this outcome; a retry would undo it
        if flow.dangerous and not settings.retry_discards_pending_damage and not attempt.damage_settled:
            raise reject("DAMAGE_NOT_SETTLED")  # alternative rule: every failed roll hurts
    else:
        raise reject("RETRY_NOT_FAILED" if flow.stage is ChallengeStage.ROLLED else "WRONG_STEP")
    table = pay(table, flow.character_id, Use.RETRY, settings)
    # (R, A-AMB-14) the pending damage of the failed roll is discarded: the new roll decides
    return replace(flow, stage=ChallengeStage.AWAITING_ROLL, retry_paid=True, proposed_traits=()), table


def force_outcome(
    flow: ChallengeFlow,
    table: Table,
    force: Force,
    activation: QualityActivation,
) -> tuple[ChallengeFlow, Table]:
    """Anyone: activate a quality to force success or failure, once per roll (A-AMB-18)."""
    _require(flow, ChallengeStage.RESPONSE)
    attempt = flow.last
    if attempt.forced is not None:
        raise reject("ALREADY_FORCED")  # checked before any point moves
    table = pay_for_force(table, activation, force)
    return _with_last(flow, replace(attempt, forced=force)), table


def finalize(flow: ChallengeFlow, table: Table) -> tuple[ChallengeFlow, Table]:
    """GM: close the response window. A failure locks the challenge for this character (S)."""
    _require(flow, ChallengeStage.RESPONSE)
    attempt = flow.last
    if attempt.success:
        return replace(flow, stage=ChallengeStage.CLOSED), table
    sheet = table.character(flow.character_id)
    locks = sheet.challenge_locks | {flow.challenge_id}
    table = table.with_character(flow.character_id, sheet.model_copy(update={"challenge_locks": locks}))
    pending = flow.dangerous and not attempt.damage_settled
    return replace(flow, stage=ChallengeStage.DAMAGE_PENDING if pending else ChallengeStage.CLOSED), table


def settle_damage(
    flow: ChallengeFlow,
    table: Table,
    settings: PresagiosSettings = DEFAULT_SETTINGS,
    *,
    protect: bool = False,
) -> tuple[ChallengeFlow, Table]:
    """Apply 1 + the failed roll's omens to the rolled characteristic, or protect (§3.5).

    Normally in DAMAGE_PENDING; with ``retry_discards_pending_damage = false`` also in the response
    window after each failed roll.
    """
    attempt = flow.last if flow.attempts else None
    early = (
        flow.stage is ChallengeStage.RESPONSE
        and not settings.retry_discards_pending_damage
        and flow.dangerous
        and attempt is not None
        and attempt.success is False
        and not attempt.damage_settled
    )
    if not early:
        _require(flow, ChallengeStage.DAMAGE_PENDING)
    assert attempt is not None
    at_roll = settings.protection_check_time is ProtectionCheckTime.AT_ROLL
    table, outcome = apply_damage(
        table,
        flow.character_id,
        flow.characteristic,
        challenge_damage(attempt.omens),
        settings,
        protect=protect,
        protection_threat=attempt.threat_at_roll if at_roll else None,
    )
    flow = _with_last(flow, replace(attempt, damage_settled=True), damage=(*flow.damage, outcome))
    return (flow if early else replace(flow, stage=ChallengeStage.CLOSED)), table


def cancel(flow: ChallengeFlow, table: Table) -> tuple[ChallengeFlow, Table]:
    """GM: cancel before a roll is made; a paid danger declaration is refunded (R, §5.1)."""
    _require(flow, ChallengeStage.DRAFT, ChallengeStage.AWAITING_ROLL)
    # a refund once dice exist would let the GM undo danger after seeing them, so only before
    refund = 1 if flow.danger_paid and not flow.attempts else 0
    return replace(flow, stage=ChallengeStage.CANCELLED), table.with_threat(table.threat + refund)
