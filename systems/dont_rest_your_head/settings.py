"""Campaign settings (§2.1): every (R) reading a group may change, defaulting to the recommendation."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field


class IncreaseScope(StrEnum):
    PER_ROLL = "per_roll"
    PER_SCENE = "per_scene"


class DespairPerPain(StrEnum):
    ONE_PER_CONFLICT = "one_per_conflict"
    ONE_PER_INVOLVED_PC = "one_per_involved_pc"


class ConsequenceTargets(StrEnum):
    LEADER_ONLY = "leader_only"
    ALL_INVOLVED = "all_involved"


class SnapDuringRecovery(StrEnum):
    LITERAL = "literal"
    PERMANENT_ONLY = "permanent_only"


class Settings(BaseModel):
    """Validated from untrusted JSON (campaign settings form / API)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    fight_boxes: int = Field(3, ge=1, le=6)  # (R, B-AMB-02)
    flight_boxes: int = Field(3, ge=1, le=6)  # (R, B-AMB-02)
    crash_when_exhaustion_exceeds: int = Field(6, ge=1, le=6)  # (R, B-AMB-01)
    voluntary_increase_scope: IncreaseScope = IncreaseScope.PER_ROLL  # (R, B-AMB-04)
    despair_per_pain_domination: DespairPerPain = DespairPerPain.ONE_PER_CONFLICT  # (R, B-AMB-10)
    initial_despair_per_session: int = Field(0, ge=0)  # (R, B-AMB-24)
    seal_rolls: bool = True  # (R, B-AMB-30)
    consequence_targets: ConsequenceTargets = ConsequenceTargets.LEADER_ONLY  # (R, B-AMB-11)
    snap_during_recovery: SnapDuringRecovery = SnapDuringRecovery.LITERAL  # (R, B-AMB-28)
    adjustment_timeout_hours: int = Field(48, ge=1)  # (R, §5.2) before the GM may force "resolver"

    @property
    def crash_level(self) -> int:
        """The stored exhaustion of a crash-pending PC (one above the legal maximum)."""
        return self.crash_when_exhaustion_exceeds + 1


DEFAULT_SETTINGS = Settings()
