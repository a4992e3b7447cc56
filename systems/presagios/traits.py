"""Which trait applies to a roll (spec §3.1, A-AMB-06): one only, the highest the GM accepts."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from systems.presagios.rejections import reject
from systems.presagios.sheet import TRAIT_MAX, TRAIT_MIN, PresagiosSheet


@dataclass(frozen=True)
class NamedTrait:
    """A trait the player names for a roll; it may belong to any characteristic (A-AMB-06)."""

    name: str
    value: int
    supernatural: bool = False

    def __post_init__(self) -> None:
        if not TRAIT_MIN <= self.value <= TRAIT_MAX:
            raise reject("TRAIT_RANGE", value=self.value)

    @classmethod
    def from_sheet(cls, sheet: PresagiosSheet, name: str) -> NamedTrait:
        for trait in sheet.traits:
            if trait.name == name:
                return cls(trait.name, trait.value, trait.supernatural)
        raise reject("NO_TRAIT", trait=name)


def chosen_trait(proposed: Collection[NamedTrait], accepted: Collection[str]) -> NamedTrait | None:
    """The highest-valued proposed trait whose name the GM accepted as appropriate, or None."""
    names = {t.name for t in proposed}
    unknown = set(accepted) - names
    if unknown:
        raise reject("NO_TRAIT", trait=sorted(unknown)[0])
    candidates = [t for t in proposed if t.name in accepted]
    # ties between equal values: prefer a mundane trait, so nobody pays for a supernatural one in vain
    return max(candidates, key=lambda t: (t.value, not t.supernatural), default=None)


def trait_bonus(proposed: Collection[NamedTrait], accepted: Collection[str]) -> int:
    chosen = chosen_trait(proposed, accepted)
    return 0 if chosen is None else chosen.value
