"""The one way a FATE procedure names an aspect (see the package docstring for the grammar)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any, Final

from pydantic import PlainSerializer, PlainValidator, WithJsonSchema

from campaigns import policy
from rulesets.kit.refusals import refuse
from rulesets.kit.table import BoardAspect, CharacterFacts, Table
from systems.errors import RulesError

if TYPE_CHECKING:
    from campaigns.policy import Viewer

BOOST_PREFIX: Final = "Impulso: "  # a boost lives on the board as a one-use aspect with this prefix
MAX_REF_LENGTH: Final = 250


class AspectPlace(StrEnum):
    SCENE = "scene"  # an aspect on the scene board
    BOOST = "boost"  # a boost on the scene board
    CHARACTER = "character"  # an aspect on a character's sheet
    CONSEQUENCE = "consequence"  # a consequence on a character's sheet (its key: the severity)


ON_BOARD: Final = frozenset({AspectPlace.SCENE, AspectPlace.BOOST})


def _invalid(text: str) -> RulesError:
    return refuse(
        "aspect_ref_invalid",
        f"«{text[:60]}» no nombra ningún aspecto.",
        f"'{text[:60]}' does not name an aspect.",
    )


@dataclass(frozen=True, order=True)
class AspectRef:
    """Which aspect: ``place`` and ``id`` (the board aspect's, or the character's), and for a sheet the
    game's key of the aspect (``trouble``, ``aspect:1``; a consequence's severity)."""

    place: AspectPlace
    id: int
    key: str = ""

    def __post_init__(self) -> None:
        on_board = self.place in ON_BOARD
        if self.id < 1 or on_board == bool(self.key) or self.key != self.key.strip() or len(str(self)) > MAX_REF_LENGTH:
            raise _invalid(f"{self.place}:{self.id}:{self.key}")

    def __str__(self) -> str:
        return f"{self.place.value}:{self.id}" + (f":{self.key}" if self.key else "")

    @property
    def on_board(self) -> bool:
        return self.place in ON_BOARD

    @property
    def character_id(self) -> int | None:
        """The character whose sheet holds the aspect (None: it is on the scene board)."""
        return None if self.on_board else self.id

    @classmethod
    def scene(cls, aspect_id: int) -> AspectRef:
        return cls(AspectPlace.SCENE, aspect_id)

    @classmethod
    def boost(cls, aspect_id: int) -> AspectRef:
        return cls(AspectPlace.BOOST, aspect_id)

    @classmethod
    def character(cls, character_id: int, key: str) -> AspectRef:
        return cls(AspectPlace.CHARACTER, character_id, key)

    @classmethod
    def consequence(cls, character_id: int, severity: str) -> AspectRef:
        return cls(AspectPlace.CONSEQUENCE, character_id, severity)

    @classmethod
    def parse(cls, text: str) -> AspectRef:
        """Read a serialized reference; anything else is refused (``aspect_ref_invalid``)."""
        if not isinstance(text, str) or len(text) > MAX_REF_LENGTH:
            raise _invalid(str(text))
        head, _sep, rest = text.strip().partition(":")
        ident, _sep, key = rest.partition(":")
        try:
            place = AspectPlace(head)
        except ValueError:
            raise _invalid(text) from None
        if not ident.isdigit() or ident != str(int(ident)):
            raise _invalid(text)
        return cls(place, int(ident), key)


def _coerce(value: Any) -> AspectRef:
    if isinstance(value, AspectRef):
        return value
    try:
        return AspectRef.parse(value)
    except RulesError as exc:  # a pydantic field reports a ValueError: the params' ValidationError
        raise ValueError(exc.message_es) from None


AspectRefField = Annotated[
    AspectRef,
    PlainValidator(_coerce),
    PlainSerializer(str, return_type=str),
    WithJsonSchema({"type": "string", "maxLength": MAX_REF_LENGTH}),
]


@dataclass(frozen=True)
class SheetAspect:
    """One aspect of a character's sheet as a game describes it to the shared pickers.

    ``known_by``: the characters (ids) who discovered a hidden one; ``free_invocations``: how many are on it
    now and ``holders``: whose they are, by name (for the label); ``severity``: a consequence's severity in
    words (for the label)."""

    ref: AspectRef
    text: str
    hidden: bool = False
    known_by: frozenset[int] = frozenset()
    free_invocations: int = 0
    severity: str = ""
    holders: tuple[str, ...] = ()


SheetAspects = Callable[[CharacterFacts, Table], Sequence[SheetAspect]]


def is_boost(aspect: BoardAspect) -> bool:
    return aspect.text.startswith(BOOST_PREFIX)


def boost_text(text: str) -> str:
    """A boost's words on the board."""
    return BOOST_PREFIX + text.strip()


def ref_of(aspect: BoardAspect) -> AspectRef:
    """The reference of a board aspect (a boost is named as one)."""
    return AspectRef.boost(aspect.id) if is_boost(aspect) else AspectRef.scene(aspect.id)


def _unknown() -> RulesError:
    return refuse("aspect_unknown", "No conoces ese aspecto.", "You do not know that aspect.")


def board_aspect(table: Table, ref: AspectRef, viewer: Viewer | None) -> BoardAspect:
    """The board aspect ``ref`` names. A hidden one only for a viewer the policy lets see it (``viewer``
    None: the rules themselves read it, e.g. when a window closes)."""
    aspect = table.board.get(ref.id) if ref.on_board else None
    if aspect is None or (ref.place is AspectPlace.BOOST) != is_boost(aspect):
        raise _unknown()
    if aspect.hidden and viewer is not None and not policy.may_see_hidden_aspect(viewer):
        raise _unknown()
    return aspect


def may_know(viewer: Viewer | None, table: Table, owner: CharacterFacts, aspect: SheetAspect) -> bool:
    """Whether ``viewer`` knows a sheet aspect: a public one, or a hidden one for whoever may see hidden
    aspects, controls its character, or controls a character who discovered it."""
    if viewer is None or not aspect.hidden or policy.may_see_hidden_aspect(viewer):
        return True
    if policy.controls_character(viewer, owner):
        return True
    return any(policy.controls_character(viewer, table.characters[c]) for c in aspect.known_by if c in table.characters)


def sheet_aspect(table: Table, ref: AspectRef, aspects_of: SheetAspects, viewer: Viewer | None) -> SheetAspect:
    """The sheet aspect (or consequence) ``ref`` names, as the viewer may know it."""
    owner = table.characters.get(ref.id) if not ref.on_board else None
    if owner is None or not owner.approved:
        raise _unknown()
    for aspect in aspects_of(owner, table):
        if aspect.ref == ref:
            if not may_know(viewer, table, owner, aspect):
                break
            return aspect
    raise _unknown()


def aspect_text(table: Table, ref: AspectRef, aspects_of: SheetAspects) -> str:
    """The words of the aspect ``ref`` names (for a record line); refused when it is gone."""
    if ref.on_board:
        return board_aspect(table, ref, None).text
    return sheet_aspect(table, ref, aspects_of, None).text
