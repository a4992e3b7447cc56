"""The aspect pickers of FATE procedures: ``Choice``s built from the ``Table``, labelled by the aspect's
words (never an id), and the one refusal of a value the picker did not offer."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from campaigns import policy
from rulesets.fate.aspects import AspectRef, SheetAspect, SheetAspects, may_know, ref_of
from rulesets.kit.procedures import Choice
from rulesets.kit.refusals import refuse
from rulesets.kit.table import BoardAspect, CharacterFacts, Table

if TYPE_CHECKING:
    from campaigns.policy import Viewer


def _with_free(label: str, free: int, holders: tuple[str, ...] = ()) -> str:
    if free <= 0:
        return label
    if holders:
        return ngettext(
            "%(aspect)s · %(count)d invocación gratuita de %(holders)s",
            "%(aspect)s · %(count)d invocaciones gratuitas de %(holders)s",
            free,
        ) % {"aspect": label, "count": free, "holders": ", ".join(holders)}
    return ngettext(
        "%(aspect)s · %(count)d invocación gratuita", "%(aspect)s · %(count)d invocaciones gratuitas", free
    ) % {"aspect": label, "count": free}


def board_label(aspect: BoardAspect) -> str:
    label = _("«%(text)s»") % {"text": aspect.text}
    if aspect.hidden:
        label = _("%(aspect)s (oculto)") % {"aspect": label}
    return _with_free(label, aspect.free_invocations)


def board_choices(table: Table, viewer: Viewer) -> list[Choice]:
    """The scene board's aspects (and boosts) this viewer may name; hidden ones only where the policy
    lets the viewer see them."""
    see_hidden = policy.may_see_hidden_aspect(viewer)
    return [
        Choice(str(ref_of(aspect)), board_label(aspect))
        for aspect in table.board.values()
        if see_hidden or not aspect.hidden
    ]


def sheet_label(owner: CharacterFacts, aspect: SheetAspect) -> str:
    if aspect.severity:
        label = _("%(character)s: «%(text)s» (%(severity)s)") % {
            "character": owner.name,
            "text": aspect.text,
            "severity": aspect.severity,
        }
    else:
        label = _("%(character)s: «%(text)s»") % {"character": owner.name, "text": aspect.text}
    if aspect.hidden:
        label = _("%(aspect)s (oculto)") % {"aspect": label}
    return _with_free(label, aspect.free_invocations, aspect.holders)


def character_aspect_choices(
    table: Table, viewer: Viewer, aspects_of: SheetAspects, characters: Iterable[int] | None = None
) -> list[Choice]:
    """The sheet aspects and consequences this viewer knows, of ``characters`` (default: every approved
    character of the campaign), in character order."""
    wanted = None if characters is None else set(characters)
    choices = []
    for owner in sorted(table.characters.values(), key=lambda c: c.id):
        if not owner.approved or (wanted is not None and owner.id not in wanted):
            continue
        for aspect in aspects_of(owner, table):
            if may_know(viewer, table, owner, aspect):
                choices.append(Choice(str(aspect.ref), sheet_label(owner, aspect)))
    return choices


def aspect_choices(
    table: Table, viewer: Viewer, aspects_of: SheetAspects, characters: Iterable[int] | None = None
) -> list[Choice]:
    """Every aspect the viewer may name: the board first, then the characters' aspects."""
    return board_choices(table, viewer) + character_aspect_choices(table, viewer, aspects_of, characters)


def picked(value: AspectRef | str, choices: Sequence[Choice]) -> AspectRef:
    """The reference of an offered value; a value the picker did not offer is refused."""
    text = str(value)
    if not any(choice.value == text for choice in choices):
        raise refuse(
            "aspect_not_offered",
            "Ese aspecto no está entre los que puedes elegir.",
            "That aspect is not among the ones you can choose.",
        )
    return value if isinstance(value, AspectRef) else AspectRef.parse(text)


def label_of(value: AspectRef | str, choices: Sequence[Choice]) -> str:
    """The words a picker shows for a value (the value itself only if it was never offered)."""
    text = str(value)
    return next((choice.label for choice in choices if choice.value == text), text)
