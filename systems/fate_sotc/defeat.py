"""Taken out, concession and tenacity (spec §5.5-§5.7)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from systems.fate_sotc.errors import fate_error
from systems.fate_sotc.fate_points import FpKind, Wallet, credit, spend, spend_up_to
from systems.fate_sotc.settings import DEFAULT_SETTINGS, ConcessionFpRule, FateSotcSettings


class Status(StrEnum):
    ACTIVE = "active"
    TAKEN_OUT = "taken_out"
    CONCEDED = "conceded"


def demand_alternative_defeat(status: Status, wallet: Wallet) -> Wallet:
    """A taken-out player spends all their PD (at least 1) to demand another manner of defeat."""
    if status is not Status.TAKEN_OUT:
        raise fate_error("not_taken_out")
    if wallet.fate_points < 1:
        raise fate_error("insufficient_fate_points", have=0, need=1)
    return spend(wallet, wallet.fate_points, FpKind.DEFEAT_OUTCOME_DEMAND)


@dataclass(frozen=True)
class ConcessionOutcome:
    conceder_status: Status
    conceder: Wallet
    opponent: Wallet
    conflict_continues: bool


def resolve_concession(
    conceder: Wallet,
    opponent: Wallet,
    accepted: bool,
    gm_reasonable: bool,
    settings: FateSotcSettings = DEFAULT_SETTINGS,
) -> ConcessionOutcome:
    """A5: by default the PD move only when a reasonable offer is refused; never below zero."""
    rewards = gm_reasonable and (not accepted or settings.concession_fp_rule is ConcessionFpRule.ALWAYS_IF_REASONABLE)
    if rewards:
        conceder = credit(conceder, 1, FpKind.CONCESSION_REWARD)
        opponent = spend_up_to(opponent, 1, FpKind.CONCESSION_REFUSED_PENALTY)
    if accepted:
        return ConcessionOutcome(Status.CONCEDED, conceder, opponent, False)
    return ConcessionOutcome(Status.ACTIVE, conceder, opponent, True)


class TenacityContext(StrEnum):
    NORMAL = "normal"
    VITAL = "vital"
    TRIVIAL = "trivial"


def effective_tenacity(base: int, context: TenacityContext = TenacityContext.NORMAL) -> int:
    """+1 when the conflict is vital to the NPC, -1 when trivial; range 0..3."""
    shift = {TenacityContext.NORMAL: 0, TenacityContext.VITAL: 1, TenacityContext.TRIVIAL: -1}[context]
    return max(0, min(3, base + shift))


def concession_prompt(
    effective: int, consequences_recorded: int, settings: FateSotcSettings = DEFAULT_SETTINGS
) -> bool:
    """Advisory GM prompt "offer concession?" once the NPC has taken its t-th consequence.

    With t = 0 it fires before the first one; with t = 3 the NPC fights on until taken out.
    """
    if not settings.tenacity_enabled or effective >= 3:
        return False
    return consequences_recorded >= effective
