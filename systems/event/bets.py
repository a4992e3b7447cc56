"""Bet negotiation for a reckless roll or a wild die (§6.9, §6.10): the player proposes, the GM accepts,
rejects or counters, and the player accepts or rejects a counter. Agreement is what the roll needs."""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from systems.errors import RulesError


class BetKind(StrEnum):
    RECKLESS = "RECKLESS"  # tirada temeraria
    WILD_DIE = "WILD_DIE"  # dado alocado


class BetStatus(StrEnum):
    PROPOSED = "PROPOSED"
    COUNTERED = "COUNTERED"
    ACCEPTED = "ACCEPTED"
    REJECTED = "REJECTED"


@dataclass(frozen=True, slots=True)
class Bet:
    kind: BetKind
    player_text: str
    status: BetStatus = BetStatus.PROPOSED
    gm_counter_text: str | None = None

    @property
    def agreed(self) -> bool:
        return self.status is BetStatus.ACCEPTED

    @property
    def terms(self) -> str:
        """What was agreed: the GM's counter when the player accepted it, else the player's bet."""
        return self.gm_counter_text if self.gm_counter_text is not None else self.player_text


def _refuse(expected: str, bet: Bet) -> RulesError:
    return RulesError(
        "BET_STEP_OUT_OF_ORDER",
        f"La apuesta está en estado {bet.status.value}; este paso necesita {expected}.",
        f"The bet is {bet.status.value}; this step needs {expected}.",
    )


def propose_bet(kind: BetKind, text: str, previous: Bet | None = None) -> Bet:
    """The player proposes a bet; after a rejection they may propose a different one [INT]."""
    if previous is not None and previous.status is not BetStatus.REJECTED:
        raise _refuse("REJECTED", previous)
    if not text.strip():
        raise RulesError("EMPTY_BET", "Describe qué te apuestas.", "Describe what you are betting.")
    return Bet(kind, text.strip())


def gm_accept(bet: Bet) -> Bet:
    if bet.status is not BetStatus.PROPOSED:
        raise _refuse("PROPOSED", bet)
    return replace(bet, status=BetStatus.ACCEPTED)


def gm_reject(bet: Bet) -> Bet:
    if bet.status is not BetStatus.PROPOSED:
        raise _refuse("PROPOSED", bet)
    return replace(bet, status=BetStatus.REJECTED)


def gm_counter(bet: Bet, counter_text: str) -> Bet:
    if bet.status is not BetStatus.PROPOSED:
        raise _refuse("PROPOSED", bet)
    return replace(bet, status=BetStatus.COUNTERED, gm_counter_text=counter_text.strip())


def player_accept_counter(bet: Bet) -> Bet:
    if bet.status is not BetStatus.COUNTERED:
        raise _refuse("COUNTERED", bet)
    return replace(bet, status=BetStatus.ACCEPTED)


def player_reject_counter(bet: Bet) -> Bet:
    if bet.status is not BetStatus.COUNTERED:
        raise _refuse("COUNTERED", bet)
    return replace(bet, status=BetStatus.REJECTED)


def require_agreement(bet: Bet | None, kind: BetKind) -> Bet:
    if bet is None or bet.kind is not kind or not bet.agreed:
        raise RulesError(
            "BET_NOT_AGREED",
            "Hace falta una apuesta aceptada por ambas partes.",
            "An agreed bet is required.",
        )
    return bet
