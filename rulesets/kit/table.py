"""What a procedure step may read: facts the runner loaded for it, never ORM rows.

The runner (``rolls.runner``) loads these once per step, in one fixed order, inside the step's transaction
(the procedure's row is already locked); a handler reads them and returns an :class:`Outcome`. Nothing here
queries the database.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal, Protocol

from django.utils import translation

from rulesets.kit.refusals import unknown_character
from systems.registry import Names

JSON = dict[str, Any]

GM: Final = "gm"
# Who may take a step: the campaign's GMs (``"gm"``) or one user (their id).
Actor = Literal["gm"] | int


class ControlledCharacter(Protocol):
    @property
    def is_npc(self) -> bool: ...

    @property
    def owner_id(self) -> int | None: ...


def acts_for(character: ControlledCharacter) -> Actor:
    """Who acts for a character: its player, or the GMs for an NPC (or a character without an owner)."""
    if character.is_npc or character.owner_id is None:
        return GM
    return int(character.owner_id)


@dataclass(frozen=True)
class CharacterFacts:
    """A character of the campaign as a step sees it (its sheet as stored)."""

    id: int
    name: str
    owner_id: int | None
    is_npc: bool
    approved: bool
    sheet: JSON

    @property
    def actor(self) -> Actor:
        return acts_for(self)


@dataclass(frozen=True)
class StoredRoll:
    """A roll as stored: the evidence a step may read (faces, request, GM-only parts)."""

    id: int
    kind: str
    ruleset: str
    character_id: int | None
    roller_id: int
    post_id: int | None
    procedure_id: int | None
    request: JSON
    result: JSON
    secret: JSON
    gm_only: bool
    label: str = ""
    revealed: bool = False  # a GM revealed this secret roll (loaded for the scene's open rolls)
    # The number of its post in the scene's thread (what people call it: «mensaje n.º 3»), never its id.
    post_number: int | None = None


@dataclass(frozen=True)
class BoardAspect:
    """An aspect on the scene board (hidden ones too: who may see them is the policy's question)."""

    id: int
    text: str
    hidden: bool
    free_invocations: int


@dataclass(frozen=True)
class EarlierProcedure:
    """A procedure opened earlier in the scene, as a step sees it (its public state only): some rules reach
    back one action (FATE SotC's spin helps the very next action)."""

    id: int
    kind: str
    status: str
    state: JSON


@dataclass(frozen=True)
class Reads:
    """What a procedure's steps read besides the characters and the procedure's own rolls (always loaded).

    ``board``: the scene's aspects; ``rules_state``: the campaign's rules state (pools such as threat or the
    hope chest), locked; ``open_rolls``: the scene's rolls that belong to no procedure yet (to adopt one).
    """

    board: bool = False
    rules_state: bool = False
    open_rolls: bool = False
    earlier_procedures: bool = False  # the scene's procedures opened before this one
    # Kinds of the campaign's other procedures the steps read, locked (an Event action takes a reaction).
    procedures: tuple[str, ...] = ()


@dataclass(frozen=True)
class ProcedureFacts:
    """Another procedure of the campaign, as stored, for a step that reads it (``Reads.procedures``)."""

    id: int
    kind: str
    is_open: bool
    state: JSON
    secret: JSON


@dataclass(frozen=True)
class Table:
    """Everything a step may read about the campaign and scene, loaded by the runner."""

    campaign_id: int
    scene_id: int
    language: str  # the campaign's language (stored words are written in both product languages anyway)
    settings: Any  # the ruleset's settings model instance (or None)
    characters: Mapping[int, CharacterFacts]
    rolls: Sequence[StoredRoll]  # the procedure's own rolls, oldest first
    board: Mapping[int, BoardAspect] = field(default_factory=dict)
    rules_state: JSON = field(default_factory=dict)
    open_rolls: Sequence[StoredRoll] = ()  # newest first
    earlier: Sequence[EarlierProcedure] = ()  # newest first (``Reads.earlier_procedures``)
    procedures: Sequence[ProcedureFacts] = ()  # the other procedures of ``Reads.procedures``, oldest first

    def character(self, character_id: int | None) -> CharacterFacts:
        """An approved character of the campaign, or the one refusal for any other id."""
        found = self.characters.get(int(character_id)) if character_id is not None else None
        if found is None or not found.approved:
            raise unknown_character()
        return found

    def roll(self, roll_id: int) -> StoredRoll:
        for roll in self.rolls:
            if roll.id == roll_id:
                return roll
        raise KeyError(roll_id)

    def player_ids(self) -> tuple[int, ...]:
        """The users who play an approved player character here, in id order."""
        return tuple(
            sorted({c.owner_id for c in self.characters.values() if c.approved and not c.is_npc and c.owner_id})
        )


def in_both(render: Callable[[], str]) -> Names:
    """Words from the translation catalogue in both product languages, for what is stored once and read in
    either (a record line, a waiting line): ``in_both(lambda: _("%(name)s invoca…") % {...})``."""
    with translation.override("es"):
        es = str(render())
    with translation.override("en"):
        en = str(render())
    return Names(es, en)


def gm_words() -> Names:
    """How the record names the GMs when they act as themselves."""
    from django.utils.translation import gettext as _

    return in_both(lambda: _("El DJ"))
