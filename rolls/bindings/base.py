"""How a ruleset's roll kinds meet posts: one roll binding per ruleset.

The binding builds the pure request from what the player chose plus the character's sheet (an approach
rating, a discipline), splits what must stay secret (a secret difficulty), resolves with injected dice,
and says how to draw the faces and the result in words. No queries here: the rolls service loads rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import BaseModel

from systems.dice import DiceSource

JSON = dict[str, Any]


@dataclass(frozen=True)
class Prepared:
    """A request ready to resolve: ``public`` is stored for all to see, ``secret`` only for GMs."""

    request: BaseModel
    public: JSON
    secret: JSON = field(default_factory=dict)


@dataclass(frozen=True)
class Resolved:
    """What a roll stores: the public result (every face), the GM-only parts, the result in words."""

    result: JSON
    secret: JSON
    summary_es: str
    summary_en: str


@dataclass(frozen=True)
class DieFace:
    """One die as drawn in the thread."""

    pool: str  # a CSS-friendly pool name: "fudge", "d6", "discipline", "pain", "omen"...
    face: int
    glyph: str  # what is printed on the die: "+", "−", "6", "☠"...
    counts: bool = True  # dropped/rerolled dice are drawn struck through
    note: str = ""  # e.g. "exploded", "rerolled"


class RollBinding(Protocol):
    key: str

    def kind_allowed(self, kind: str, *, is_gm: bool) -> bool:
        """Whether this roll kind may be attached to a post by a player (or only by a GM)."""
        ...

    def prepare(self, kind: str, data: JSON, sheet: JSON | None, settings: BaseModel | None) -> Prepared:
        """Build the pure request from the chosen options and the sheet. Raises RulesError or
        pydantic.ValidationError for a request the rules refuse."""
        ...

    def resolve(self, kind: str, prepared: Prepared, dice: DiceSource, settings: BaseModel | None) -> Resolved: ...

    def faces(self, kind: str, result: JSON) -> list[DieFace]: ...
