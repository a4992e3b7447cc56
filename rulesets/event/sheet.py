"""Event: the sheet is answers and skills; the only shared number is the communal pool (*reserva comunal*).

Operation map (see systems/event/__init__.py):

- ``choose_talent`` (owner or GM), ``open_progress`` / ``expire_progress`` (GM), ``add_progress_pick``
  (owner or GM): one character's sheet. When progress picks are ``subject_to_veto`` a pick reaches the
  sheet only through the table's vote (``rulesets.event.creation``), which applies it under
  :func:`voted_pick`.
- ``open_communal_pool`` (GM) and ``take_communal_die`` (owner of the taking character, or GM): the
  campaign state ``{"communal": n}``.
- ``answer_who_am_i``, ``answer_appearance``, ``add_creation_pick``, ``finish_creation``: creation
  happens on the draft, answer by answer, with the table's vetoes (``rulesets.event.creation``), never
  through the ledger of an approved character.
- The reactions (``write/reveal/value/use/expire_reaction``) belong to the roll flow: a sealed reaction is
  hidden from the GM too, and the ledger (which GMs read) would leak its text.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from pydantic import BaseModel

from rulesets.kit.sheets import JSON, Outcome, Targets, Who
from systems.errors import RulesError
from systems.event import EventSettings, EventSheet
from systems.event.sheet import SheetStatus, finish_creation
from systems.registry import Operation

CAMPAIGN_OPS = frozenset({"open_communal_pool", "take_communal_die"})
SHEET_OPS = frozenset({"choose_talent", "open_progress", "add_progress_pick", "expire_progress"})
CREATION_OPS = frozenset({"answer_who_am_i", "answer_appearance", "add_creation_pick", "finish_creation"})
ROLL_FLOW_OPS = frozenset({"write_reaction", "reveal_reaction", "value_reaction", "use_reaction", "expire_reaction"})
OWNER_OPS = frozenset(
    {
        "choose_talent",
        "add_progress_pick",
        "take_communal_die",
        "answer_who_am_i",
        "answer_appearance",
        "add_creation_pick",
        "finish_creation",
        "write_reaction",
        "reveal_reaction",
        "use_reaction",
    }
)

_VOTE_ACCEPTED: ContextVar[bool] = ContextVar("event_vote_accepted", default=False)


@contextmanager
def voted_pick() -> Iterator[None]:
    """Apply a progress pick the table's vote has accepted (the vote is the rule's precondition)."""
    token = _VOTE_ACCEPTED.set(True)
    try:
        yield
    finally:
        _VOTE_ACCEPTED.reset(token)


def settings_of(settings: BaseModel | None) -> EventSettings:
    return settings if isinstance(settings, EventSettings) else EventSettings()


def load_sheet(data: Mapping[str, Any], settings: EventSettings) -> EventSheet:
    return EventSheet.model_validate(dict(data), context={"settings": settings})


def dump_sheet(sheet: EventSheet) -> JSON:
    return sheet.model_dump(mode="json")


def communal(campaign_state: Mapping[str, Any] | None) -> int:
    return int((campaign_state or {}).get("communal", 0))


class EventBinding:
    key = "event"

    def initial_campaign_state(self, settings: BaseModel | None) -> JSON:
        return {"communal": 0}

    def new_sheet(self, data: JSON, settings: BaseModel | None, *, is_npc: bool) -> JSON:
        """Both sentences and exactly ``max_picks`` creation picks (CV7) for a PC; an NPC's sheet is
        optional (a name and some skills, §8 A-22) and only has to be well formed."""
        rules = settings_of(settings)
        sheet = load_sheet(data, rules)
        if is_npc:
            return dump_sheet(sheet.model_copy(update={"status": SheetStatus.ACTIVE}))
        if sheet.status is SheetStatus.RETIRED:
            raise RulesError("NOT_CREATING", "Este personaje está retirado.", "This character is retired.")
        creating = sheet.model_copy(
            update={
                "status": SheetStatus.CREATING,
                "who_am_i": sheet.who_am_i.strip(),  # a blank sentence is no answer (CV3)
                "appearance": sheet.appearance.strip(),
            }
        )
        return dump_sheet(finish_creation(creating, None, rules))

    def draft_sheet(self, data: JSON, settings: BaseModel | None) -> JSON:
        """Types and limits only (no duplicate skill, caps, at most ``max_picks``): a half-written sheet saves."""
        return dump_sheet(load_sheet(data, settings_of(settings)))

    def who_may(self, operation: Operation) -> frozenset[str]:
        return frozenset({Who.GM, Who.OWNER}) if operation.key in OWNER_OPS else frozenset({Who.GM})

    def pools_public(self, settings: BaseModel | None) -> bool:
        return True  # the communal pool is on the table for everyone

    def targets(self, operation: Operation, params: BaseModel | None, character_id: int | None) -> Targets:
        key = operation.key
        if key in ROLL_FLOW_OPS:
            raise RulesError(
                "operation_needs_roll",
                "Las reacciones van selladas (ni el máster las lee) y se usan dentro de una tirada: "
                "se gestionan en el flujo de tiradas, no como operación suelta de la ficha.",
                "Reactions are sealed (not even the GM reads them) and are used inside a roll: they belong "
                "to the roll flow, not to a standalone sheet operation.",
            )
        if key in CREATION_OPS:
            raise RulesError(
                "operation_in_creation_flow",
                "Las respuestas de creación se dan una a una en el flujo de creación, con los vetos de la mesa.",
                "Creation answers are given one by one in the creation flow, with the table's vetoes.",
            )
        if key in CAMPAIGN_OPS:
            taker = (character_id,) if key == "take_communal_die" and character_id is not None else ()
            return Targets(campaign_state=True, character_ids=taker)
        if key in SHEET_OPS:
            if character_id is None:
                raise RulesError(
                    "character_required",
                    "Esta operación se aplica a un personaje.",
                    "This operation applies to a character.",
                )
            return Targets(campaign_state=False, character_ids=(character_id,))
        raise RulesError(
            "unknown_operation",
            f"«{key}» no es una operación de Event.",
            f"'{key}' is not an Event operation.",
        )

    def apply(
        self,
        operation: Operation,
        params: BaseModel | None,
        settings: BaseModel | None,
        campaign_state: JSON | None,
        sheets: Mapping[int, JSON],
        character_id: int | None,
    ) -> Outcome:
        rules = settings_of(settings)
        key = operation.key
        if key in CAMPAIGN_OPS:
            remaining = operation.apply(communal(campaign_state), params, rules)
            return Outcome({**(campaign_state or {}), "communal": remaining})
        assert character_id is not None  # targets() refused the rest
        if (
            key == "add_progress_pick"
            and rules.optional.progress.enabled
            and rules.optional.progress.subject_to_veto
            and not _VOTE_ACCEPTED.get()
        ):
            raise RulesError(
                "PICK_NEEDS_VOTE",
                "En esta partida la elección de progreso se somete al veto de la mesa: propónla en la votación.",
                "In this campaign a progress pick is subject to the table's veto: propose it for a vote.",
            )
        sheet = load_sheet(sheets[character_id], rules)
        changed = operation.apply(sheet, params, rules)
        return Outcome(None, {character_id: dump_sheet(changed)})

    def before_submit(self, character: Any) -> None:
        """A character whose answers are still open to the table's veto cannot be submitted."""
        from rulesets.event.creation import check_ready_to_submit

        check_ready_to_submit(character)

    def pool_values(self, campaign_state: JSON | None, sheets: Mapping[int, JSON]) -> dict[str, int]:
        """The communal dice, and each sheet's picks (skills plus improvements: the dice it can bring)."""
        values = {"campaign.communal": communal(campaign_state)} if campaign_state is not None else {}
        for character_id, data in sheets.items():
            skills = (data or {}).get("skills") or ()
            values[f"character.{character_id}.picks"] = sum(1 + int(s.get("improvements", 0)) for s in skills)
        return values


BINDING = EventBinding()
