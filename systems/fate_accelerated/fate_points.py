"""Fate points: the ledger entries, refresh and concession (spec §2.7, §4.8, §5.6)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from systems.errors import RulesError
from systems.fate_accelerated.sheet import FaeSheet, SceneStatus


class LedgerReason(StrEnum):
    INVOKE = "invoke"
    COMPEL_ACCEPT = "compel_accept"
    COMPEL_REFUSE = "compel_refuse"
    COMPEL_OFFER = "compel_offer"
    CONCESSION = "concession"
    REFRESH = "refresh"
    GM_ADJUST = "gm_adjust"


@dataclass(frozen=True, slots=True)
class FatePointChange:
    """One ledger row to write: ``party`` is a character id or ``"gm"``."""

    party: str
    delta: int
    reason: LedgerReason
    at_scene_end: bool = False  # §6.7.4: PvP invocation FP reach the target at the end of the scene


def fate_points_at_session_start(fp_at_end_of_previous_session: int, refresh: int) -> int:
    """Leftover FP above refresh carry over; otherwise the character starts at refresh."""
    return max(fp_at_end_of_previous_session, refresh)


def refresh_fate_points(sheet: FaeSheet) -> FaeSheet:
    return sheet.with_changes(fate_points=fate_points_at_session_start(sheet.fate_points, sheet.refresh))


def concession_fate_points(consequences_taken_this_conflict: int) -> int:
    """1 FP for conceding plus 1 per consequence received in this conflict."""
    return 1 + consequences_taken_this_conflict


def spend_fate_point(sheet: FaeSheet, amount: int = 1) -> FaeSheet:
    if amount < 1:
        raise RulesError("invalid_amount", "La cantidad debe ser positiva.", "The amount must be positive.")
    if sheet.fate_points < amount:
        raise RulesError(
            "not_enough_fate_points",
            f"{sheet.name} no tiene puntos de destino suficientes.",
            f"{sheet.name} does not have enough fate points.",
            have=sheet.fate_points,
            need=amount,
        )
    return sheet.with_changes(fate_points=sheet.fate_points - amount)


def gain_fate_points(sheet: FaeSheet, amount: int = 1) -> FaeSheet:
    if amount < 1:
        raise RulesError("invalid_amount", "La cantidad debe ser positiva.", "The amount must be positive.")
    return sheet.with_changes(fate_points=sheet.fate_points + amount)


def adjust_fate_points(sheet: FaeSheet, delta: int) -> FaeSheet:
    """A GM correction; fate points never go below zero."""
    if sheet.fate_points + delta < 0:
        raise RulesError(
            "fate_points_negative",
            "Los puntos de destino no pueden quedar por debajo de cero.",
            "Fate points cannot go below zero.",
        )
    return sheet.with_changes(fate_points=sheet.fate_points + delta)


@dataclass(frozen=True, slots=True)
class ConcessionResult:
    sheet: FaeSheet
    awarded: int
    ledger: tuple[FatePointChange, ...]


def concede(
    sheet: FaeSheet, character: str, conflict: str, *, opposing_rolls_pending: Iterable[bool] = ()
) -> ConcessionResult:
    """Concede before the opponent rolls (A-08).

    ``opposing_rolls_pending`` holds, per opposing roll aimed at this character, whether its dice are on
    the table and unresolved (see ``rolls.blocks_concession``); any such roll must be resolved first.
    """
    if sheet.scene_status is not SceneStatus.ACTIVE:
        raise RulesError(
            "not_in_conflict",
            f"{sheet.name} ya no participa en el conflicto.",
            f"{sheet.name} is no longer in the conflict.",
        )
    if any(opposing_rolls_pending):
        raise RulesError(
            "concession_too_late",
            "Hay que rendirse antes de que el oponente tire: primero se resuelve la tirada pendiente.",
            "You must concede before your opponent rolls: resolve the pending roll first.",
        )
    taken = sum(1 for a in sheet.consequences.filled() if a.taken is not None and a.taken.conflict == conflict)
    awarded = concession_fate_points(taken)
    new = sheet.with_changes(fate_points=sheet.fate_points + awarded, scene_status=SceneStatus.CONCEDED)
    return ConcessionResult(new, awarded, (FatePointChange(character, awarded, LedgerReason.CONCESSION),))
