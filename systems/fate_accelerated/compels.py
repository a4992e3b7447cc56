"""Compels (Forzar aspectos, spec §4.5, A-09): offered → negotiating → accepted | refused | withdrawn.

Each step returns the new compel and the ledger rows to write; a settled compel refuses any further step.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from systems.errors import RulesError
from systems.fate_accelerated.aspects import GM
from systems.fate_accelerated.fate_points import FatePointChange, LedgerReason
from systems.fate_accelerated.settings import FaeSettings, settings_or_default


class CompelKind(StrEnum):
    DECISION = "decision"  # forzado de decisión
    EVENT = "event"  # forzado de situación


class CompelStatus(StrEnum):
    OFFERED = "offered"
    NEGOTIATING = "negotiating"
    ACCEPTED = "accepted"
    REFUSED = "refused"
    WITHDRAWN = "withdrawn"


_OPEN = (CompelStatus.OFFERED, CompelStatus.NEGOTIATING)


@dataclass(frozen=True, slots=True)
class Compel:
    target: str
    aspect_key: str
    kind: CompelKind
    compeller: str  # a character id or "gm"
    proposal: str
    fp_source: str  # who pays the offered FP on acceptance
    status: CompelStatus = CompelStatus.OFFERED

    @property
    def is_self_compel(self) -> bool:
        return self.compeller == self.target


@dataclass(frozen=True, slots=True)
class CompelStep:
    compel: Compel
    ledger: tuple[FatePointChange, ...] = ()


def offer_compel(
    target: str,
    aspect_key: str,
    kind: CompelKind,
    compeller: str,
    proposal: str,
    *,
    compeller_fate_points: int | None = None,
    settings: FaeSettings | None = None,
) -> Compel:
    """The compeller offers 1 FP. GM and self-compels are funded by the GM; a player compelling
    another character pays from their own pool and needs at least 1 FP to offer (A-09)."""
    s = settings_or_default(settings)
    if not proposal.strip():
        raise RulesError(
            "compel_proposal_required",
            "Describe la decisión o la situación que propone el forzado.",
            "Describe the decision or event the compel proposes.",
        )
    source = GM
    if compeller not in (GM, target) and s.player_compel_paid_by_compeller:
        if compeller_fate_points is None or compeller_fate_points < 1:
            raise RulesError(
                "compeller_cannot_pay",
                "Para forzar un aspecto ajeno necesitas un punto de destino que ofrecer.",
                "To compel someone else's aspect you need a fate point to offer.",
            )
        source = compeller
    return Compel(target, aspect_key, kind, compeller, proposal.strip(), source)


def negotiate_compel(compel: Compel, new_proposal: str) -> Compel:
    _require_open(compel)
    if not new_proposal.strip():
        raise RulesError(
            "compel_proposal_required",
            "Describe la decisión o la situación que propone el forzado.",
            "Describe the decision or event the compel proposes.",
        )
    return replace(compel, proposal=new_proposal.strip(), status=CompelStatus.NEGOTIATING)


def accept_compel(compel: Compel) -> CompelStep:
    """The target takes the offered FP; the decision is made or the event happens."""
    _require_open(compel)
    ledger = [FatePointChange(compel.target, 1, LedgerReason.COMPEL_ACCEPT)]
    if compel.fp_source != GM:  # the GM funds compels without limit, never from a GM pool (§6.7.4)
        ledger.insert(0, FatePointChange(compel.fp_source, -1, LedgerReason.COMPEL_OFFER))
    return CompelStep(replace(compel, status=CompelStatus.ACCEPTED), tuple(ledger))


def refuse_compel(compel: Compel, target_fate_points: int) -> CompelStep:
    """Refusing costs the target 1 FP (to the GM); with 0 FP a compel cannot be refused.
    The offered FP stays with whoever offered it."""
    _require_open(compel)
    if target_fate_points < 1:
        raise RulesError(
            "cannot_refuse_compel",
            "Sin puntos de destino no puedes rechazar un forzado.",
            "With no fate points you cannot refuse a compel.",
        )
    ledger = (
        FatePointChange(compel.target, -1, LedgerReason.COMPEL_REFUSE),
        FatePointChange(GM, 1, LedgerReason.COMPEL_REFUSE),
    )
    return CompelStep(replace(compel, status=CompelStatus.REFUSED), ledger)


def withdraw_compel(compel: Compel) -> CompelStep:
    _require_open(compel)
    return CompelStep(replace(compel, status=CompelStatus.WITHDRAWN))


def _require_open(compel: Compel) -> None:
    if compel.status not in _OPEN:
        raise RulesError(
            "compel_settled",
            f"Este forzado ya está cerrado ({compel.status.value}).",
            f"This compel is already settled ({compel.status.value}).",
        )
