"""Overcome points and threat points: spends, transfers and gains (spec §3.6, §4).

A player's spent overcome point becomes threat unless it is transferred to a main character;
a GM's spent threat point is lost unless it is transferred (S).
"""

from __future__ import annotations

from enum import StrEnum

from systems.presagios.rejections import reject
from systems.presagios.settings import PresagiosSettings
from systems.presagios.sheet import Kind, QualityKind
from systems.presagios.table import Table
from systems.presagios.threat import omen_check_hits, protection_active


class Use(StrEnum):
    """What a point is spent on (§3.6 "Other spends")."""

    RETRY = "retry"
    PROTECTION = "protection"
    QUALITY = "quality"
    SUPERNATURAL_TRAIT = "supernatural_trait"
    DRAW_STRENGTH = "draw_strength"  # sacar fuerzas de flaqueza (A-AMB-21: effect by hand)
    NOT_SO_BAD = "not_so_bad"  # no es tan grave como parecía (A-AMB-21)
    HURRY = "hurry"  # apresurarse


class Purpose(StrEnum):
    """What an activated quality does (§3.7)."""

    FORCE_SUCCESS = "force_success"
    FORCE_FAILURE = "force_failure"
    NEW_ELEMENT = "new_element"
    NEEDED_OBJECT = "needed_object"


class ThreatGainReason(StrEnum):
    CHARACTER_OUT = "character_out"  # a principal or secondary died / left the story
    NEGATIVE_EVENT = "negative_event"


def pays_with_overcome(table: Table, payer_id: str | None) -> bool:
    """Main characters pay overcome; the GM, secondaries and monsters pay threat (A-AMB-29)."""
    return payer_id is not None and table.character(payer_id).kind is Kind.PRINCIPAL


def spend_overcome(table: Table, character_id: str, transfer_to: str | None = None) -> Table:
    sheet = table.character(character_id)
    if sheet.kind is not Kind.PRINCIPAL:
        raise reject("NOT_A_PRINCIPAL", character_id=character_id)
    if sheet.overcome < 1:
        raise reject("NO_OVERCOME", character_id=character_id)
    table = table.with_character(character_id, sheet.model_copy(update={"overcome": sheet.overcome - 1}))
    if transfer_to is None:
        return table.with_threat(table.threat + 1)  # (S) it becomes a threat point
    return _give_overcome(table, transfer_to)


def spend_threat(table: Table, transfer_to: str | None = None) -> Table:
    if table.threat < 1:
        raise reject("NO_THREAT", threat=table.threat)
    table = table.with_threat(table.threat - 1)  # (S) spent threat is lost...
    return table if transfer_to is None else _give_overcome(table, transfer_to)  # ...unless transferred


def _give_overcome(table: Table, character_id: str) -> Table:
    sheet = table.character(character_id)
    if sheet.kind is not Kind.PRINCIPAL:
        raise reject("NOT_A_PRINCIPAL", character_id=character_id)  # A-AMB-20: only to principals
    return table.with_character(character_id, sheet.model_copy(update={"overcome": sheet.overcome + 1}))


def pay(
    table: Table,
    payer_id: str | None,
    use: Use,
    settings: PresagiosSettings,
    *,
    protection_threat: int | None = None,
) -> Table:
    """One point for ``use``: from ``payer_id``'s overcome if a principal, else from GM threat.

    ``payer_id`` is the character the point is spent for (None: the GM for no one in particular).
    ``protection_threat`` is the threat that decides whether protection is active (A-AMB-10).
    """
    if use is Use.PROTECTION:
        check_protection_allowed(table, payer_id, settings, protection_threat)
    if pays_with_overcome(table, payer_id):
        assert payer_id is not None
        return spend_overcome(table, payer_id)
    return spend_threat(table)


def check_protection_allowed(
    table: Table, character_id: str | None, settings: PresagiosSettings, protection_threat: int | None
) -> None:
    threat = table.threat if protection_threat is None else protection_threat
    kind = table.character(character_id).kind if character_id is not None else None
    if kind is Kind.SECUNDARIO:
        raise reject("NO_PROTECTION_FOR_SECONDARY")  # (S)
    if kind is Kind.MONSTRUO:
        # (R, A-AMB-13) no cutoff for monsters unless the campaign says so
        if settings.monster_protection_cutoff and not protection_active(threat, settings):
            raise reject("PROTECTION_INACTIVE", threat=threat)
        return
    if kind is None:
        raise reject("UNKNOWN_CHARACTER", character_id=character_id)
    if not protection_active(threat, settings):
        raise reject("PROTECTION_INACTIVE", threat=threat)  # (S) gone at threat ≥ 8


def activate_quality(
    table: Table,
    activator_id: str | None,
    owner_id: str,
    quality: QualityKind,
    purpose: Purpose,
    *,
    against_owner: bool,
) -> Table:
    """Pay for a quality activation and apply the transfer table of §3.6.

    ``activator_id`` None is the GM. ``against_owner`` is the activator's declaration that the GM
    confirms (human judgment, so an input). Activating your own complication against yourself
    returns the point to you: net 0, threat unchanged (R, A-AMB-19).
    """
    del quality, purpose  # the kind and effect are narrative here; forcing is done by the flows
    owner = table.character(owner_id)
    transfer_to = owner_id if against_owner and owner.kind is Kind.PRINCIPAL else None
    if pays_with_overcome(table, activator_id):
        assert activator_id is not None
        return spend_overcome(table, activator_id, transfer_to)
    return spend_threat(table, transfer_to)


def award_roleplay(table: Table, character_id: str) -> Table:
    """Interpretación destacada: +1 overcome at the GM's discretion; threat unchanged."""
    return _give_overcome(table, character_id)


def confirm_threat_gain(table: Table, reason: ThreatGainReason) -> Table:
    """A GM-confirmed +1 threat: a principal or secondary left the story, or another negative event."""
    del reason  # recorded in the ledger entry by the caller
    return table.with_threat(table.threat + 1)


def set_threat(table: Table, value: int) -> Table:
    """Scenario start: the GM sets the threat (A-AMB-23)."""
    if value < 0:
        raise reject("NEGATIVE_THREAT", threat=value)
    return table.with_threat(value)


def apply_omen_check(table: Table, omens: int, settings: PresagiosSettings, threat_at_roll: int) -> Table:
    """Add this roll's omen-check +1 (judged at ``threat_at_roll``) to the current threat."""
    if omen_check_hits(omens, threat_at_roll, settings):
        return table.with_threat(table.threat + 1)
    return table
