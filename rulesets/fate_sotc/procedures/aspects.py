"""Aspects a SotC step may name, by one reference grammar, and the pickers that offer them by their text.

References (what a picker sends; the page shows the aspect's text and holder, never the reference):
``s:<scene aspect>``, ``c:<character>:<aspect id>`` (a sheet or temporary aspect), ``k:<character>:<severity>``
(a consequence). A reference the table does not hold is refused (``unknown_aspect``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from pydantic import ValidationError as PydanticValidationError

from campaigns import policy
from rulesets.fate_sotc.procedures.common import sheet_of
from rulesets.kit.procedures import BoardChange, Choice, LedgerOp, UpdateAspect
from rulesets.kit.refusals import refuse
from rulesets.kit.table import CharacterFacts, Table
from systems.errors import RulesError
from systems.fate_sotc.aspects import Aspect, FreeInvocation, HolderType, Origin, Persistence, Visibility


@dataclass(frozen=True)
class Stored:
    """Where an aspect lives, to write back what an invocation did to it (a free invocation used, a fragile
    aspect gone)."""

    place: str  # "scene", "aspects", "temporary" or "consequence"
    scene_aspect: int | None = None
    free: int = 0
    character_id: int | None = None
    original: Aspect | None = None


def unknown_aspect() -> RulesError:
    return refuse("unknown_aspect", "Ese aspecto no existe aquí.", "There is no such aspect here.")


def resolve_aspect(table: Table, ref: str, invoker_id: str) -> tuple[Aspect, Stored]:
    """The pure aspect behind a reference (its id is the reference, so "once per roll" holds across sheets)
    and where it is stored."""
    kind, _sep, rest = ref.partition(":")
    if kind == "s" and rest.isdigit() and int(rest) in table.board:
        row = table.board[int(rest)]
        aspect = Aspect(
            id=ref,
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
        return aspect, Stored("scene", scene_aspect=row.id, free=row.free_invocations)
    owner_id, _sep, key = rest.partition(":")
    if kind not in ("c", "k") or not owner_id.isdigit() or int(owner_id) not in table.characters:
        raise unknown_aspect()
    sheet = sheet_of(table.characters[int(owner_id)])
    if kind == "k":
        for consequence in sheet.consequences:
            if consequence.severity.value == key:
                aspect = Aspect(
                    id=ref,
                    text=consequence.text,
                    holder_id=owner_id,
                    origin=Origin.CONSEQUENCE,
                    persistence=Persistence.STICKY,
                )
                return aspect, Stored("consequence")
        raise unknown_aspect()
    for place, stored in (("aspects", sheet.aspects), ("temporary", sheet.temporary_aspects)):
        for found in stored:
            if found.id == key:
                update: dict[str, object] = {"id": ref, "holder_id": found.holder_id or owner_id}
                if place == "aspects":
                    update["free_invocations"] = ()  # free invocations come with temporary aspects only
                return found.model_copy(update=update), Stored(place, character_id=int(owner_id), original=found)
    raise unknown_aspect()


def written_back(stored: Stored, before: Aspect, after: Aspect, free: bool) -> tuple[list[LedgerOp], list[BoardChange]]:
    """What the invocation did to the aspect, as ledger operations (a sheet) or board changes (the scene)."""
    if stored.place == "scene":
        if free and stored.scene_aspect is not None:
            return [], [UpdateAspect(stored.scene_aspect, free_invocations=max(0, stored.free - 1))]
        return [], []
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


def _free_words(count: int) -> str:
    return ngettext("%(n)d invocación gratuita", "%(n)d invocaciones gratuitas", count) % {"n": count}


def _labelled(text: str, holder: str, free: int) -> str:
    label = f"{holder}: {text}" if holder else _("Escena: %(text)s") % {"text": text}
    return f"{label} ({_free_words(free)})" if free else label


def aspect_choices(table: Table, character_ids: Iterable[int], viewer: policy.Viewer) -> list[Choice]:
    """The aspects a side may name, by their text: the scene's and those of the characters in play (hidden
    ones only for whom the policy lets see them)."""
    sees_hidden = policy.may_see_hidden_aspect(viewer)
    choices = [
        Choice(f"s:{row.id}", _labelled(row.text, "", row.free_invocations))
        for row in table.board.values()
        if sees_hidden or not row.hidden
    ]
    for cid in dict.fromkeys(character_ids):
        character = table.characters.get(cid)
        if character is not None and character.approved:
            choices += _character_aspects(character, viewer, sees_hidden)
    return choices


def _character_aspects(character: CharacterFacts, viewer: policy.Viewer, sees_hidden: bool) -> list[Choice]:
    try:
        sheet = sheet_of(character)
    except PydanticValidationError:
        return []
    own = policy.controls_character(viewer, character)
    choices = []
    for aspect in (*sheet.aspects, *sheet.temporary_aspects):
        if aspect.active and (aspect.visibility is Visibility.PUBLIC or sees_hidden or own):
            free = sum(1 for fi in aspect.free_invocations if not fi.used)
            choices.append(Choice(f"c:{character.id}:{aspect.id}", _labelled(aspect.text, character.name, free)))
    for consequence in sheet.consequences:
        ref = f"k:{character.id}:{consequence.severity.value}"
        choices.append(Choice(ref, _labelled(consequence.text, character.name, 0)))
    return choices


def own_aspect_choices(character: CharacterFacts) -> list[Choice]:
    """A character's own aspects (to invoke for effect with one of them)."""
    try:
        sheet = sheet_of(character)
    except PydanticValidationError:
        return []
    return [Choice(f"c:{character.id}:{a.id}", a.text) for a in (*sheet.aspects, *sheet.temporary_aspects) if a.active]
