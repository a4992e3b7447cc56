"""Damage to characteristics, script protection and leaving the story (spec §3.5, §5.3)."""

from __future__ import annotations

from dataclasses import dataclass

from systems.presagios.points import Use, check_protection_allowed, pay
from systems.presagios.settings import PresagiosSettings
from systems.presagios.sheet import CharKey, Kind, Status
from systems.presagios.table import Table
from systems.presagios.threat import protection_active


@dataclass(frozen=True)
class DamageOutcome:
    """What one damage step did (the new table is returned beside it)."""

    character_id: str
    characteristic: CharKey
    amount: int
    protected: bool  # a point was paid and the whole damage ignored (A-AMB-11)
    mandatory: bool  # the spend was forced because the damage would take them out (S)
    out_of_story: bool  # this damage took the character out of the story
    threat_gain_proposed: bool  # +1 threat for the GM to confirm (A-AMB-25)


def challenge_damage(own_omens: int) -> int:
    """(S) a failed dangerous challenge: 1 + the omens in the failed roll."""
    return 1 + own_omens


def conflict_damage(winner_omens: int) -> int:
    """(S) a lost dangerous conflict: 1 + the OPPONENT's omens."""
    return 1 + winner_omens


def apply_damage(
    table: Table,
    character_id: str,
    characteristic: CharKey,
    amount: int,
    settings: PresagiosSettings,
    *,
    protect: bool = False,
    protection_threat: int | None = None,
) -> tuple[Table, DamageOutcome]:
    """Apply one dangerous outcome's damage, or ignore it with script protection.

    ``protect`` is the player's (principal) or the GM's (monster) choice. For a principal the spend
    is automatic when the damage would take them below 0 and protection is possible (S, A-AMB-12).
    ``protection_threat`` is the threat that decides protection: None = now (A-AMB-10, at_damage).
    """
    sheet = table.character(character_id)
    threat = table.threat if protection_threat is None else protection_threat
    new_value = sheet.current_of(characteristic) - amount
    would_exit = new_value < 0
    mandatory = False
    if sheet.kind is Kind.PRINCIPAL:
        can = protection_active(threat, settings) and sheet.overcome >= 1
        mandatory = can and would_exit
        if protect and not mandatory:
            check_protection_allowed(table, character_id, settings, protection_threat)
        if mandatory or protect:
            table = pay(table, character_id, Use.PROTECTION, settings, protection_threat=protection_threat)
            return table, DamageOutcome(character_id, characteristic, amount, True, mandatory, False, False)
    elif protect:
        # monsters: the GM pays threat, never forced (A-AMB-13); secondaries have none (raises)
        table = pay(table, character_id, Use.PROTECTION, settings, protection_threat=protection_threat)
        return table, DamageOutcome(character_id, characteristic, amount, True, False, False, False)
    sheet = sheet.with_current(characteristic, new_value)
    leaves = would_exit and sheet.status is Status.IN_STORY  # (S) BELOW zero; exactly 0 stays in
    if leaves:
        sheet = sheet.model_copy(update={"status": Status.OUT_OF_STORY})
    table = table.with_character(character_id, sheet)
    # (S) a principal's or secondary's death raises threat, GM-confirmed; a monster's does not
    proposed = leaves and sheet.kind is not Kind.MONSTRUO
    return table, DamageOutcome(character_id, characteristic, amount, False, False, leaves, proposed)


def restore_characteristic(table: Table, character_id: str, characteristic: CharKey, amount: int) -> Table:
    """GM-chosen recovery ("not as bad as it seemed", between scenes): never above ``base`` (R)."""
    sheet = table.character(character_id)
    value = min(sheet.current_of(characteristic) + max(amount, 0), sheet.base_of(characteristic))
    return table.with_character(character_id, sheet.with_current(characteristic, value))
