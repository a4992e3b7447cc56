"""Aspects a SotC step may name, through the one FATE reference grammar (``rulesets.fate.aspects``):
``scene:<board aspect>``, ``character:<character>:<aspect id>`` (a sheet or temporary aspect) and
``consequence:<character>:<severity>``. Pickers show the aspect's words and holder, never the reference; a
reference the table does not hold is refused (``aspect_unknown``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.utils.translation import gettext as _
from pydantic import ValidationError as PydanticValidationError

from campaigns import policy
from rulesets.fate.aspects import AspectPlace, AspectRef, SheetAspect, board_aspect
from rulesets.fate.free_invocations import spend_from_board
from rulesets.fate.pickers import aspect_choices as fate_aspect_choices
from rulesets.fate.pickers import picked
from rulesets.fate_sotc.procedures.common import SEVERITY, sheet_of
from rulesets.kit.procedures import BoardChange, Choice, LedgerOp
from rulesets.kit.refusals import refuse
from rulesets.kit.table import BoardAspect, CharacterFacts, Table
from systems.errors import RulesError
from systems.fate_sotc.aspects import Aspect, FreeInvocation, HolderType, Origin, Persistence, Visibility


@dataclass(frozen=True)
class Stored:
    """Where an aspect lives, to write back what an invocation did to it (a free invocation used, a fragile
    aspect gone)."""

    place: str  # "scene", "aspects", "temporary" or "consequence"
    board: BoardAspect | None = None
    character_id: int | None = None
    original: Aspect | None = None


def unknown_aspect() -> RulesError:
    return refuse("aspect_unknown", "Ese aspecto no existe aquí.", "There is no such aspect here.")


def parse_ref(value: str) -> AspectRef:
    return AspectRef.parse(value)


def _board(table: Table, ref: AspectRef, invoker_id: str) -> tuple[Aspect, Stored]:
    row = board_aspect(table, ref, None)  # the rules read it; whether the invoker knows it is theirs to say
    aspect = Aspect(
        id=str(ref),
        text=row.text,
        holder_type=HolderType.SCENE,
        holder_id=str(table.scene_id),
        origin=Origin.SCENE,
        visibility=Visibility.HIDDEN if row.hidden else Visibility.PUBLIC,
        # A scene aspect's free invocations are the table's; the GM rules who uses them (§4.5).
        free_invocations=tuple(
            FreeInvocation(holder_character_id=invoker_id, expires_scene_id=str(table.scene_id))
            for _n in range(row.free_invocations)
        ),
    )
    return aspect, Stored("scene", board=row)


def resolve_aspect(table: Table, value: str, invoker_id: str) -> tuple[Aspect, Stored]:
    """The pure aspect behind a reference (its id is the reference, so "once per roll" holds across sheets)
    and where it is stored."""
    ref = parse_ref(value)
    if ref.on_board:
        return _board(table, ref, invoker_id)
    owner = table.characters.get(ref.id)
    if owner is None or not owner.approved:
        raise unknown_aspect()
    sheet = sheet_of(owner)
    if ref.place is AspectPlace.CONSEQUENCE:
        for consequence in sheet.consequences:
            if consequence.severity.value == ref.key:
                aspect = Aspect(
                    id=str(ref),
                    text=consequence.text,
                    holder_id=str(owner.id),
                    origin=Origin.CONSEQUENCE,
                    persistence=Persistence.STICKY,
                )
                return aspect, Stored("consequence")
        raise unknown_aspect()
    for place, stored in (("aspects", sheet.aspects), ("temporary", sheet.temporary_aspects)):
        for found in stored:
            if found.id == ref.key:
                update: dict[str, object] = {"id": str(ref), "holder_id": found.holder_id or str(owner.id)}
                if place == "aspects":
                    update["free_invocations"] = ()  # free invocations come with temporary aspects only
                return found.model_copy(update=update), Stored(place, character_id=owner.id, original=found)
    raise unknown_aspect()


def written_back(stored: Stored, before: Aspect, after: Aspect, free: bool) -> tuple[list[LedgerOp], list[BoardChange]]:
    """What the invocation did to the aspect, as ledger operations (a sheet) or board changes (the scene)."""
    if stored.place == "scene":
        return ([], [spend_from_board(stored.board)]) if free and stored.board is not None else ([], [])
    original, cid = stored.original, stored.character_id
    if stored.place != "temporary" or original is None or cid is None:
        return [], []
    if after.active and after.free_invocations == before.free_invocations:
        return [], []
    reason = _("Invocación")
    ops = [LedgerOp("remove_temporary_aspect", {"aspect_id": original.id}, cid, reason)]
    if after.active:
        kept = original.model_copy(update={"free_invocations": after.free_invocations})
        ops.append(LedgerOp("add_temporary_aspect", {"aspect": kept.model_dump(mode="json")}, cid, reason))
    return ops, []


# --- Pickers (the shared FATE pickers, fed with SotC's sheets) ----------------------------------------


def _holders(aspect: Aspect, table: Table) -> tuple[str, ...]:
    """Whose the unused free invocations are, by name (in SotC they belong to their creator, §4.5)."""
    ids = dict.fromkeys(fi.holder_character_id for fi in aspect.free_invocations if not fi.used)
    return tuple(table.characters[int(i)].name for i in ids if i.isdigit() and int(i) in table.characters)


def sheet_aspects(character: CharacterFacts, table: Table) -> Sequence[SheetAspect]:
    """A SotC sheet's aspects, temporary aspects and consequences, as the shared pickers read them."""
    try:
        sheet = sheet_of(character)
    except PydanticValidationError:
        return []
    found = [
        SheetAspect(
            ref=AspectRef.character(character.id, aspect.id),
            text=aspect.text,
            hidden=aspect.visibility is not Visibility.PUBLIC,
            known_by=frozenset(int(c) for c in aspect.known_by if c.isdigit()),
            free_invocations=sum(1 for fi in aspect.free_invocations if not fi.used),
            holders=_holders(aspect, table),
        )
        for aspect in (*sheet.aspects, *sheet.temporary_aspects)
        if aspect.active
    ]
    found += [
        SheetAspect(
            ref=AspectRef.consequence(character.id, consequence.severity.value),
            text=consequence.text,
            severity=str(SEVERITY[consequence.severity]),
        )
        for consequence in sheet.consequences
    ]
    return found


def aspect_choices(table: Table, character_ids: Iterable[int], viewer: policy.Viewer) -> list[Choice]:
    """The aspects a side may name, by their words: the scene's and those of the characters in play (hidden
    ones only for whom the policy lets see them)."""
    return fate_aspect_choices(table, viewer, sheet_aspects, list(dict.fromkeys(character_ids)))


def offered(value: str, choices: Sequence[Choice]) -> str:
    """A picked aspect, refused when the picker did not offer it (``aspect_not_offered``)."""
    return str(picked(value, choices))


def own_aspect_choices(character: CharacterFacts, table: Table) -> list[Choice]:
    """A character's own aspects (to invoke for effect with one of them), by their words."""
    return [Choice(str(a.ref), a.text) for a in sheet_aspects(character, table) if a.ref.place is AspectPlace.CHARACTER]
