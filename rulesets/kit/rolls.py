"""How a ruleset's roll kinds meet posts: one roll binding per ruleset.

The binding builds the pure request from what the player chose plus the character's sheet (an approach
rating, a discipline), splits what must stay secret (a secret difficulty), resolves with injected dice,
and says how to draw the faces and the result in words. No queries here: the rolls service loads rows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import BaseModel

from systems.dice import DiceSource

JSON = dict[str, Any]


@dataclass(frozen=True)
class RollSpec:
    """One roll asked for in the composer, the API or a procedure step: a kind of the campaign's ruleset,
    or ``notation``, with what the roller chose (``data``)."""

    kind: str
    data: JSON = field(default_factory=dict)
    character_id: int | None = None
    label: str = ""
    gm_only: bool = False
    # A procedure's roll for a character the step's actor may not speak for (the other side of a conflict,
    # rolled together with theirs): stored as rolled by whoever controls the character (its player; for
    # an NPC the acting GM, else the procedure's opener). Ignored outside procedures.
    for_controller: bool = False


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

    # What a post's roll ``data`` accepts for ``kind``, exactly: the core validates with it before
    # ``prepare`` and /api/rulesets/ publishes its JSON schema. (Transitional: optional until every binding
    # declares it.)
    # def input_model(self, kind: str) -> type[BaseModel]: ...

    def kind_allowed(self, kind: str, *, is_gm: bool) -> bool:
        """Whether this roll kind may be attached to a post by a player (or only by a GM)."""
        ...

    def prepare(self, kind: str, data: JSON, sheet: JSON | None, settings: BaseModel | None) -> Prepared:
        """Build the pure request from the chosen options and the sheet. Raises RulesError or
        pydantic.ValidationError for a request the rules refuse."""
        ...

    def resolve(self, kind: str, prepared: Prepared, dice: DiceSource, settings: BaseModel | None) -> Resolved: ...

    def faces(self, kind: str, result: JSON) -> list[DieFace]: ...


class RollBuilder(Protocol):
    """The composer's roll section of a game: a Django form (prefix ``roll``) the composer renders under the
    post's text. Built as ``Builder(data, *, prefix="roll", characters=[...], powers=RollPowers,
    settings=..., default_character=id_or_None)``:

    - ``characters``: the characters the writer may roll for (their own; every one for a GM);
    - ``powers``: what the policy lets this writer choose (``campaigns.policy.RollPowers``): GM-only roll
      kinds, secret rolls and difficulties, NPC dice. A builder never reads roles itself, and never offers a
      player a field the rules give to the GM (a player cannot set pain dice);
    - ``default_character``: preselected when the writer has exactly one character;
    - ``kind_field`` and ``fields_by_kind``: the field that chooses the roll type, and for each roll type the
      fields it uses; the composer shows only those of the chosen type (the rest stay hidden).
    """

    kind_field: str
    fields_by_kind: Mapping[str, Sequence[str]]

    def is_valid(self) -> bool: ...

    def roll_specs(self) -> list[RollSpec]:
        """The rolls to make with the post (empty when the writer asked for none)."""
        ...
