"""Dice sources. Always injected, never global: the server uses SystemDice, tests use ScriptedDice."""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from typing import Protocol, runtime_checkable

from systems.errors import RulesError


@runtime_checkable
class DiceSource(Protocol):
    """Anything that rolls one die with ``sides`` faces, returning 1..sides."""

    def roll(self, sides: int) -> int: ...


class SystemDice:
    """Cryptographically strong dice for the server: nobody can predict or fake a roll."""

    def __init__(self) -> None:
        self._random = secrets.SystemRandom()

    def roll(self, sides: int) -> int:
        return self._random.randint(1, sides)


class SeededDice:
    """Deterministic pseudo-random dice for statistical tests and benchmarks (never for play)."""

    def __init__(self, seed: int) -> None:
        import random

        self._random = random.Random(seed)

    def roll(self, sides: int) -> int:
        return self._random.randint(1, sides)


class ScriptedDice:
    """Returns the given faces in order; used by tests to reproduce a spec's vector exactly.

    Running out of faces, or a face outside 1..sides, is a test bug and raises loudly.
    """

    def __init__(self, faces: Iterable[int]) -> None:
        self._faces = list(faces)
        self._next = 0

    def roll(self, sides: int) -> int:
        if self._next >= len(self._faces):
            raise RulesError(
                "dice_exhausted",
                "No quedan dados en la secuencia de prueba.",
                "The scripted dice ran out of faces.",
            )
        face = self._faces[self._next]
        if not 1 <= face <= sides:
            raise RulesError(
                "invalid_face",
                f"Cara {face} imposible en un dado de {sides} caras.",
                f"Face {face} is impossible on a d{sides}.",
            )
        self._next += 1
        return face

    @property
    def remaining(self) -> int:
        return len(self._faces) - self._next


def roll_many(source: DiceSource, count: int, sides: int) -> tuple[int, ...]:
    """Roll ``count`` dice of ``sides`` faces from ``source``, in order."""
    return tuple(source.roll(sides) for _ in range(count))
