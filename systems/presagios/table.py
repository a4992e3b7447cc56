"""The shared state the transitions work on: campaign threat plus the characters involved.

Presagios moves points between a sheet and the campaign (an overcome point becomes threat), so every
operation takes and returns a whole ``Table``. The service layer builds one from the rows it locked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from systems.presagios.rejections import reject
from systems.presagios.sheet import PresagiosSheet


@dataclass(frozen=True, eq=False)
class Table:
    threat: int = 0
    characters: Mapping[str, PresagiosSheet] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.threat < 0:
            raise reject("NEGATIVE_THREAT", threat=self.threat)  # A-AMB-23: never below 0
        # a read-only copy, so nobody can mutate a table behind the ledger's back
        object.__setattr__(self, "characters", MappingProxyType(dict(self.characters)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Table):
            return NotImplemented
        return self.threat == other.threat and dict(self.characters) == dict(other.characters)

    __hash__ = None  # type: ignore[assignment]

    def character(self, character_id: str) -> PresagiosSheet:
        try:
            return self.characters[character_id]
        except KeyError:
            raise reject("UNKNOWN_CHARACTER", character_id=character_id) from None

    def with_threat(self, threat: int) -> Table:
        return Table(threat, self.characters)

    def with_character(self, character_id: str, sheet: PresagiosSheet) -> Table:
        return Table(self.threat, {**self.characters, character_id: sheet})

    def overcome(self, character_id: str) -> int:
        return self.character(character_id).overcome
