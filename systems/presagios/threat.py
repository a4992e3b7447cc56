"""Threat (amenaza): the omen check (§3.4), script protection (§3.5) and the cost of danger.

Threat is one integer: the GM's spendable pool and the tension level at once (A-AMB-02).
"""

from __future__ import annotations

from systems.presagios.rejections import reject
from systems.presagios.settings import OmenThresholdRule, PresagiosSettings, ProtectionOverride


def omen_check_hits(omens: int, threat: int, settings: PresagiosSettings) -> bool:
    """Whether ``omens`` in one roll (both sides of a conflict) raise threat, judged at ``threat``.

    ``threat`` is the value just before this roll's own consequences (A-AMB-03).
    """
    if settings.omen_check_requires_one and omens == 0:
        return False  # (R, A-AMB-01) at threat 0 a roll without omens must not raise threat
    if settings.omen_threshold_rule is OmenThresholdRule.EXACT_HALF:
        return 2 * omens >= threat  # omens >= threat/2 with no rounding
    return omens >= threat // 2


def threat_after_omens(threat: int, omens: int, settings: PresagiosSettings) -> int:
    """(S) exactly +1 when the check hits, however many omens."""
    return threat + 1 if omen_check_hits(omens, threat, settings) else threat


def protection_active(threat: int, settings: PresagiosSettings) -> bool:
    """(S) script protection works "normally" while threat < 8; the GM may override (A-AMB-24)."""
    if settings.script_protection_override is ProtectionOverride.FORCED_ON:
        return True
    if settings.script_protection_override is ProtectionOverride.FORCED_OFF:
        return False
    return threat < settings.script_protection_threshold


def danger_is_free(threat: int, settings: PresagiosSettings, *, against_monster: bool = False) -> bool:
    """(S) free at threat ≥ 8, or for a conflict against the monster (A-AMB-27)."""
    return threat >= settings.free_danger_threshold or against_monster


def danger_cost(threat: int, settings: PresagiosSettings, *, against_monster: bool = False) -> int:
    """Threat the GM pays to declare danger: 0 or 1. With nothing to pay it is refused (A-AMB-26)."""
    if danger_is_free(threat, settings, against_monster=against_monster):
        return 0
    if threat < 1:
        raise reject("NO_THREAT", threat=threat)
    return 1
