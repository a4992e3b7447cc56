"""The veto rule (§2.4, §8 A-4, A-5, A-34): one vote per voter, the author excluded, withdrawals erase a
veto, 2 or more active vetoes at close invalidate. Shared by creation answers, communal-pool takes and
progress picks; narrations reuse it per phase (§4).

Time is not read here: the caller closes a window at its deadline, when everyone eligible has voted
(:attr:`VetoWindow.everyone_voted`) or when the GM closes it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from enum import StrEnum

from systems.errors import RulesError
from systems.event.ladder import VETO_THRESHOLD


class VoteKind(StrEnum):
    VETO = "VETO"
    NO_VETO = "NO_VETO"  # "I do not object": lets the window close early


class Verdict(StrEnum):
    PENDING = "PENDING"
    ACCEPTED = "ACCEPTED"
    INVALID = "INVALID"


class CloseReason(StrEnum):
    DEADLINE = "DEADLINE"
    ALL_VOTED = "ALL_VOTED"
    GM = "GM"


@dataclass(frozen=True, slots=True)
class VetoWindow:
    """One open-then-closed window of votes on one target (an answer, a take, a narration phase)."""

    author: str
    eligible: frozenset[str]
    votes: tuple[tuple[str, VoteKind], ...] = ()  # active votes, one per voter, in casting order
    closed: bool = False
    verdict: Verdict = Verdict.PENDING
    close_reason: CloseReason | None = None

    @property
    def vetoes(self) -> frozenset[str]:
        return frozenset(v for v, kind in self.votes if kind is VoteKind.VETO and v != self.author)

    @property
    def veto_count(self) -> int:
        return len(self.vetoes)

    @property
    def everyone_voted(self) -> bool:
        voted = {v for v, _ in self.votes}
        return bool(self.eligible) and self.eligible <= voted


def open_window(author: str, voters: Iterable[str]) -> VetoWindow:
    """Eligible voters: everyone given (the GM and the players) except the author (§8 A-4)."""
    return VetoWindow(author=author, eligible=frozenset(v for v in voters if v != author))


def _check_open(window: VetoWindow) -> None:
    if window.closed:
        raise RulesError(
            "WINDOW_CLOSED",
            "La votación ya está cerrada.",
            "The veto window is already closed.",
        )


def cast(window: VetoWindow, voter: str, kind: VoteKind = VoteKind.VETO) -> VetoWindow:
    """Cast or change a vote. A second veto from the same voter is the same veto (CV10)."""
    _check_open(window)
    if voter == window.author:
        raise RulesError(
            "AUTHOR_CANNOT_VOTE",
            "No puedes vetar tu propia respuesta.",
            "You cannot veto your own answer.",
        )
    if voter not in window.eligible:
        raise RulesError(
            "NOT_ELIGIBLE",
            "No puedes votar en esta votación.",
            "You are not an eligible voter here.",
        )
    others = tuple(v for v in window.votes if v[0] != voter)
    return replace(window, votes=(*others, (voter, VoteKind(kind))))


def withdraw(window: VetoWindow, voter: str) -> VetoWindow:
    """A withdrawn vote counts as if it had never been cast [SRC]."""
    _check_open(window)
    if all(v != voter for v, _ in window.votes):
        raise RulesError(
            "NO_VOTE",
            "No tienes ningún voto que retirar.",
            "You have no vote to withdraw.",
        )
    return replace(window, votes=tuple(v for v in window.votes if v[0] != voter))


def close(window: VetoWindow, reason: CloseReason = CloseReason.DEADLINE) -> VetoWindow:
    """Decide the status once, at close (§8 A-5); it is final afterwards."""
    _check_open(window)
    if reason is CloseReason.ALL_VOTED and not window.everyone_voted:
        raise RulesError(
            "VOTES_MISSING",
            "Aún faltan votos: la votación no puede cerrarse antes de tiempo.",
            "Votes are still missing: the window cannot close early.",
        )
    verdict = Verdict.INVALID if window.veto_count >= VETO_THRESHOLD else Verdict.ACCEPTED
    return replace(window, closed=True, verdict=verdict, close_reason=reason)


def close_if_everyone_voted(window: VetoWindow) -> VetoWindow:
    """Call after each vote: closes early when every eligible voter has an active vote (§2.4 b)."""
    return close(window, CloseReason.ALL_VOTED) if window.everyone_voted and not window.closed else window
