"""Fate points (*puntos de Destino*, spec §2.6, §2.12, §4.1): a wallet that never goes negative.

Every change appends a ledger entry; ``fate_points == sum(applied deltas)`` and
``pending == sum(pending deltas)`` hold for any wallet built from :meth:`Wallet.opening`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from systems.fate_sotc.errors import fate_error


class FpKind(StrEnum):
    CREATION = "creation"
    # Spend rows S1-S15
    FP_ADVANTAGE = "fp_advantage"
    INVOKE_OWN = "invoke_own"
    INVOKE_OTHER = "invoke_other"
    INVOKE_EFFECT_OWN = "invoke_effect_own"
    INVOKE_EFFECT_OTHER = "invoke_effect_other"
    DECLARATION = "declaration"
    STUNT_ACTIVATION = "stunt_activation"
    COMPEL_BUY_OFF = "compel_buy_off"
    REFUSE_GM_GIFT = "refuse_gm_gift"
    AVOID_MANEUVER_ASPECT = "avoid_maneuver_aspect"
    GUESS = "guess"
    USE_ENVIRONMENT = "use_environment"
    DEFEAT_OUTCOME_DEMAND = "defeat_outcome_demand"
    CONCESSION_REFUSED_PENALTY = "concession_refused_penalty"
    GM_BLIND_GUESS_CHARGE = "gm_blind_guess_charge"
    # Earn rows E1-E9
    COMPEL_ACCEPTED = "compel_accepted"
    OFFSCREEN_COMPEL = "offscreen_compel"
    ACCIDENTAL_COMPEL = "accidental_compel"
    GM_FORESHADOW_GIFT = "gm_foreshadow_gift"
    TAG_COMPENSATION = "tag_compensation"
    CONCESSION_REWARD = "concession_reward"
    REFRESH = "refresh"
    GUESS_REFUND = "guess_refund"
    DECEIVER_RETURNS_POINT = "deceiver_returns_point"


BANK = "bank"


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    kind: FpKind
    delta: int
    status: str = "applied"  # applied, pending
    counterparty: str = BANK


@dataclass(frozen=True, slots=True)
class Wallet:
    """A character's PD: ``pending`` is tag compensation not usable before the exchange ends (§4.4)."""

    fate_points: int
    pending: int = 0
    entries: tuple[LedgerEntry, ...] = ()

    @classmethod
    def opening(cls, fate_points: int, pending: int = 0) -> Wallet:
        if fate_points < 0 or pending < 0:
            raise fate_error("invalid_value", fate_points=fate_points, pending=pending)
        entries: tuple[LedgerEntry, ...] = (LedgerEntry(FpKind.CREATION, fate_points),)
        if pending:
            entries += (LedgerEntry(FpKind.TAG_COMPENSATION, pending, "pending"),)
        return cls(fate_points, pending, entries)

    def applied_sum(self) -> int:
        return sum(e.delta for e in self.entries if e.status == "applied")

    def pending_sum(self) -> int:
        return sum(e.delta for e in self.entries if e.status == "pending")


def spend(wallet: Wallet, amount: int, kind: FpKind, counterparty: str = BANK) -> Wallet:
    """Pay ``amount`` PD; pending points cannot be spent; never below zero."""
    if amount < 0:
        raise fate_error("invalid_value", amount=amount)
    if wallet.fate_points < amount:
        raise fate_error("insufficient_fate_points", have=wallet.fate_points, need=amount)
    if amount == 0:
        return wallet
    return replace(
        wallet,
        fate_points=wallet.fate_points - amount,
        entries=(*wallet.entries, LedgerEntry(kind, -amount, "applied", counterparty)),
    )


def spend_up_to(wallet: Wallet, amount: int, kind: FpKind, counterparty: str = BANK) -> Wallet:
    """Take up to ``amount`` without going below zero (concession penalty, §5.6)."""
    return spend(wallet, min(amount, wallet.fate_points), kind, counterparty)


def credit(wallet: Wallet, amount: int, kind: FpKind, counterparty: str = BANK) -> Wallet:
    if amount < 0:
        raise fate_error("invalid_value", amount=amount)
    if amount == 0:
        return wallet
    return replace(
        wallet,
        fate_points=wallet.fate_points + amount,
        entries=(*wallet.entries, LedgerEntry(kind, amount, "applied", counterparty)),
    )


def credit_pending(wallet: Wallet, amount: int, kind: FpKind, counterparty: str = BANK) -> Wallet:
    if amount <= 0:
        raise fate_error("invalid_value", amount=amount)
    return replace(
        wallet,
        pending=wallet.pending + amount,
        entries=(*wallet.entries, LedgerEntry(kind, amount, "pending", counterparty)),
    )


def release_pending(wallet: Wallet) -> Wallet:
    """End of the exchange (or of the roll's window outside conflicts): pending PD become usable."""
    if wallet.pending == 0:
        return wallet
    entries = tuple(replace(e, status="applied") if e.status == "pending" else e for e in wallet.entries)
    return replace(wallet, fate_points=wallet.fate_points + wallet.pending, pending=0, entries=entries)


def refresh_rate(aspect_count: int, refresh_override: int | None = None) -> int:
    """Normally the number of aspects; the GM may override it."""
    return refresh_override if refresh_override is not None else aspect_count


def refresh(wallet: Wallet, rate: int) -> Wallet:
    """Top up to the refresh rate; a surplus is kept (§4.10)."""
    return credit(wallet, max(0, rate - wallet.fate_points), FpKind.REFRESH)


def activate_stunt(wallet: Wallet, fp_cost: int, approved: bool = True) -> Wallet:
    """Charge a stunt's activation cost (§4.8); only GM-approved stunts can be used."""
    if not approved:
        raise fate_error("gm_approval_required")
    return spend(wallet, fp_cost, FpKind.STUNT_ACTIVATION)


def award_accidental_compel(wallet: Wallet) -> Wallet:
    return credit(wallet, 1, FpKind.ACCIDENTAL_COMPEL)


def charge_blind_guessing(wallet: Wallet, amount: int) -> Wallet:
    """S15: the GM charges blind guessers what seems fair (never below zero)."""
    return spend_up_to(wallet, amount, FpKind.GM_BLIND_GUESS_CHARGE)


# --- Requests the GM approves or vetoes: the PD moves only on approval (A34) ---


@dataclass(frozen=True, slots=True)
class FpRequest:
    """A declaration, an invoke-for-effect or a use of the environment awaiting the GM."""

    kind: FpKind
    cost: int = 1
    status: str = "pending"  # pending, approved, vetoed


def request_spend(kind: FpKind, wallet: Wallet, cost: int = 1) -> FpRequest:
    if wallet.fate_points < cost:
        raise fate_error("insufficient_fate_points", have=wallet.fate_points, need=cost)
    return FpRequest(kind, cost)


def approve_request(request: FpRequest, wallet: Wallet) -> tuple[FpRequest, Wallet]:
    if request.status != "pending":
        raise fate_error("already_settled", status=request.status)
    return replace(request, status="approved"), spend(wallet, request.cost, request.kind)


def veto_request(request: FpRequest) -> FpRequest:
    if request.status != "pending":
        raise fate_error("already_settled", status=request.status)
    return replace(request, status="vetoed")
