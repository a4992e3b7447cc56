"""Several characters resolving at once (§3.7, §8 A-13): narrate from the worst result to the best;
equal outcomes by seat (PCs from seat 1, NPCs after) or by submission order."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from systems.errors import RulesError
from systems.event.ladder import OUTCOME_RANK, Narrator, Outcome, narrator_for


@dataclass(frozen=True, slots=True)
class BatchEntry:
    character: str
    outcome: Outcome | None  # None while that action is still unresolved
    seat: int | None = None  # None for an NPC
    submitted: int = 0
    player: str | None = None  # who narrates an absolute success


@dataclass(frozen=True, slots=True)
class NarrationSlot:
    character: str
    outcome: Outcome
    narrator: Narrator
    player: str | None


def narration_order(entries: Iterable[BatchEntry], same_outcome_order: str = "seat") -> tuple[NarrationSlot, ...]:
    """The queue opens only when every action in the batch has an outcome."""
    entries = list(entries)
    if any(e.outcome is None for e in entries):
        raise RulesError(
            "BATCH_PENDING",
            "Aún hay acciones del grupo sin resultado.",
            "Some actions in the batch have no outcome yet.",
        )

    def key(e: BatchEntry) -> tuple[int, ...]:
        rank = OUTCOME_RANK[e.outcome]  # type: ignore[index]
        if same_outcome_order == "submission":
            return (rank, e.submitted)
        return (rank, e.seat is None, e.seat or 0, e.submitted)

    ordered = sorted(entries, key=key)
    return tuple(
        NarrationSlot(e.character, e.outcome, narrator_for(e.outcome), e.player)  # type: ignore[arg-type]
        for e in ordered
    )
