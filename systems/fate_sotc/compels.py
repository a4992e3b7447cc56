"""Compels (*forzar aspectos*, spec §4.9, A6): an offer the target accepts or buys off.

State machine: OFFERED -> (accept) ACCEPTED | (decline) DECLINED -> (GM escalates) OFFERED at stake+1
| (GM stands) BOUGHT_OFF. ACCEPTED and BOUGHT_OFF are settled: any further step is refused.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from systems.fate_sotc.errors import fate_error
from systems.fate_sotc.fate_points import FpKind, Wallet, credit, spend
from systems.fate_sotc.settings import DEFAULT_SETTINGS, EscalationTrigger, FateSotcSettings


class CompelStatus(StrEnum):
    OFFERED = "offered"
    DECLINED = "declined"
    ACCEPTED = "accepted"
    BOUGHT_OFF = "bought_off"


class CompelKind(StrEnum):
    GM = "gm"  # the GM offers a complication (or a player points at their own aspect)
    OFFSCREEN = "offscreen"  # trouble outside the scene: cannot be refused
    FORESHADOW = "foreshadow"  # an unexplained PD from the GM
    TAG_FOR_EFFECT = "tag_for_effect"  # set up by another character's invoke for effect (A9)


_EARN = {
    CompelKind.GM: FpKind.COMPEL_ACCEPTED,
    CompelKind.OFFSCREEN: FpKind.OFFSCREEN_COMPEL,
    CompelKind.FORESHADOW: FpKind.GM_FORESHADOW_GIFT,
    CompelKind.TAG_FOR_EFFECT: FpKind.COMPEL_ACCEPTED,
}
_PAY = {
    CompelKind.GM: FpKind.COMPEL_BUY_OFF,
    CompelKind.FORESHADOW: FpKind.REFUSE_GM_GIFT,
    CompelKind.TAG_FOR_EFFECT: FpKind.COMPEL_BUY_OFF,
}
SETTLED = (CompelStatus.ACCEPTED, CompelStatus.BOUGHT_OFF)


@dataclass(frozen=True)
class Compel:
    kind: CompelKind = CompelKind.GM
    stake: int = 1
    status: CompelStatus = CompelStatus.OFFERED
    credited: int = 0  # PD already paid out (escalation after an acceptance, ``after_accept``)

    @property
    def refusable(self) -> bool:
        return self.kind is not CompelKind.OFFSCREEN

    def can_refuse(self, wallet: Wallet) -> bool:
        """The UI offers "refuse" only when this is true (a target who cannot pay must accept)."""
        return self.refusable and wallet.fate_points >= self.stake


def offer_compel(kind: CompelKind = CompelKind.GM) -> Compel:
    return Compel(kind)


def _require(compel: Compel, status: CompelStatus) -> None:
    if compel.status in SETTLED:
        raise fate_error("already_settled", status=compel.status.value)
    if compel.status is not status:
        raise fate_error("out_of_order", status=compel.status.value)


def accept_compel(compel: Compel, wallet: Wallet) -> tuple[Compel, Wallet]:
    """Accepting makes the compel official: the target gains the stake."""
    _require(compel, CompelStatus.OFFERED)
    wallet = credit(wallet, compel.stake - compel.credited, _EARN[compel.kind])
    return replace(compel, status=CompelStatus.ACCEPTED, credited=compel.stake), wallet


def decline_compel(compel: Compel, wallet: Wallet) -> Compel:
    """The target says no at this stake; nothing is paid until the GM stands (A6)."""
    _require(compel, CompelStatus.OFFERED)
    if not compel.can_refuse(wallet):
        raise fate_error("compel_not_refusable", stake=compel.stake, have=wallet.fate_points)
    return replace(compel, status=CompelStatus.DECLINED)


def escalate_compel(compel: Compel, settings: FateSotcSettings = DEFAULT_SETTINGS) -> Compel:
    """ "Are you sure?": the GM raises the stake by one, up to ``compel_escalation_max``."""
    if not settings.compel_escalation_enabled:
        raise fate_error("compel_escalation_disabled")
    if settings.compel_escalation_trigger is EscalationTrigger.AFTER_ACCEPT:
        # Literal reading of the source: raise only once the first point was accepted.
        if compel.status is not CompelStatus.ACCEPTED:
            raise fate_error("out_of_order", status=compel.status.value)
    else:
        _require(compel, CompelStatus.DECLINED)
    if compel.stake >= settings.compel_escalation_max:
        raise fate_error("compel_escalation_limit", stake=compel.stake)
    return replace(compel, stake=compel.stake + 1, status=CompelStatus.OFFERED)


def buy_off_compel(compel: Compel, wallet: Wallet) -> tuple[Compel, Wallet]:
    """The GM does not escalate further: the declining target pays the stake to the bank."""
    _require(compel, CompelStatus.DECLINED)
    if compel.kind not in _PAY or wallet.fate_points < compel.stake:
        raise fate_error("compel_not_refusable", stake=compel.stake, have=wallet.fate_points)
    return replace(compel, status=CompelStatus.BOUGHT_OFF), spend(wallet, compel.stake, _PAY[compel.kind])
