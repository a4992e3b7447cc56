"""Campaign settings of Presagios: every optional rule of spec §2.1, with the recommended defaults."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field


class ThreatVisibility(StrEnum):
    PUBLIC = "public"
    GM_ONLY = "gm_only"


class ProtectionOverride(StrEnum):
    AUTO = "auto"
    FORCED_ON = "forced_on"
    FORCED_OFF = "forced_off"


class OmenFaceValue(StrEnum):
    ONE = "one"
    ZERO = "zero"


class OmenThresholdRule(StrEnum):
    EXACT_HALF = "exact_half"
    FLOOR_HALF = "floor_half"


class ProtectionCheckTime(StrEnum):
    AT_DAMAGE = "at_damage"
    AT_ROLL = "at_roll"


class ConflictTieOmens(StrEnum):
    FINAL_PAIR = "final_pair"
    ALL_ROLLS = "all_rolls"


class DamageKind(StrEnum):
    PHYSICAL = "físico"
    SOCIAL = "social"
    MENTAL = "mental"


class PresagiosSettings(BaseModel):
    """Validated from the campaign's JSON; defaults are the spec's (R) recommendations."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    initial_threat: int = Field(default=0, ge=0)  # A-AMB-23: the GM sets it at scenario start
    threat_visibility: ThreatVisibility = ThreatVisibility.PUBLIC
    script_protection_threshold: int = Field(default=8, ge=0)
    script_protection_override: ProtectionOverride = ProtectionOverride.AUTO  # A-AMB-24
    free_danger_threshold: int = Field(default=8, ge=0)
    omen_face_value: OmenFaceValue = OmenFaceValue.ONE  # A-AMB-04
    omen_threshold_rule: OmenThresholdRule = OmenThresholdRule.EXACT_HALF  # A-AMB-01
    omen_check_requires_one: bool = True  # A-AMB-01
    protection_check_time: ProtectionCheckTime = ProtectionCheckTime.AT_DAMAGE  # A-AMB-10
    monster_protection_cutoff: bool = False  # A-AMB-13
    conflict_tie_omens: ConflictTieOmens = ConflictTieOmens.FINAL_PAIR  # A-AMB-17
    retry_discards_pending_damage: bool = True  # A-AMB-14
    characteristic_labels: tuple[str, str, str] = ("Acción", "Interacción", "Cognición")  # A-AMB-05
    characteristic_damage_kind: tuple[DamageKind, DamageKind, DamageKind] = (
        DamageKind.PHYSICAL,
        DamageKind.SOCIAL,
        DamageKind.MENTAL,
    )


DEFAULT_SETTINGS = PresagiosSettings()
