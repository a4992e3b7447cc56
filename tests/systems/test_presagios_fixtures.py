"""Builders shared by the Presagios tests (no tests here)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from systems.presagios.sheet import CHAR_KEYS, Kind, PresagiosSheet, Trait, trait_splits
from systems.presagios.table import Table


def traits_for(base: tuple[int, int, int]) -> list[dict[str, Any]]:
    """A legal trait split for each characteristic (the first listed by ``trait_splits``)."""
    return [
        {"name": f"{key}-{i}", "characteristic": key, "value": value}
        for key, rating in zip(CHAR_KEYS, base, strict=True)
        for i, value in enumerate(next(trait_splits(rating)))
    ]


def sheet_data(base: tuple[int, int, int] = (3, 3, 3), **changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": "Ana",
        "kind": "principal",
        "concept": "Periodista curiosa",
        "base": base,
        "traits": traits_for(base),
        "hitos": ["Sobrevivió al incendio", "Conoce al párroco"],
        "complication": "Insomnio",
    }
    data.update(changes)
    return data


def principal(
    base: tuple[int, int, int] = (3, 3, 3),
    *,
    current: tuple[int, int, int] | None = None,
    overcome: int = 5,
    locks: Iterable[str] = (),
    traits: Iterable[Trait] = (),
) -> PresagiosSheet:
    """A valid main character (creation rules checked), then the given play state."""
    chosen = tuple(traits)
    data = sheet_data(base, traits=[t.model_dump() for t in chosen]) if chosen else sheet_data(base)
    sheet = PresagiosSheet.model_validate(data)
    update: dict[str, Any] = {"overcome": overcome, "challenge_locks": frozenset(locks)}
    if current is not None:
        update["current"] = current
    return sheet.model_copy(update=update)


def npc(kind: Kind, base: tuple[int, int, int] = (3, 3, 3), *, traits: Iterable[Trait] = ()) -> PresagiosSheet:
    return PresagiosSheet(name=f"{kind}", kind=kind, base=base, traits=tuple(traits))


def table(threat: int, **characters: PresagiosSheet) -> Table:
    return Table(threat, characters)


def with_c1(sheet: PresagiosSheet, value: int) -> PresagiosSheet:
    """The sheet with c1's current set (the characteristic most vectors roll)."""
    return sheet.with_current("c1", value)
