"""Campaign settings of Fate Accelerated: every optional rule of the spec (§2.11), with its default."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, model_validator


class RefreshTrigger(StrEnum):
    SESSION_START = "session_start"  # the seed's rule sentence says session
    SCENE_START = "scene_start"  # the seed's worked example says scene


class WindowCloser(StrEnum):
    GM = "gm"
    BOTH_SIDES_PASS = "both_sides_pass"
    TIMEOUT = "timeout"


class RefusalDestination(StrEnum):
    GM = "gm"


class FaeSettings(BaseModel):
    """Campaign-level configuration; defaults are the spec's recommendations."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    approach_min: int = Field(0, ge=0, le=0)
    approach_max: int = Field(3, ge=1, le=5)
    approach_max_after_advancement: int = Field(5, ge=1, le=8)
    approach_creation_array: tuple[int, int, int, int, int, int] = (3, 2, 2, 1, 1, 0)
    other_aspects_max: int = Field(3, ge=0, le=10)
    stunts_free: int = Field(3, ge=0, le=10)
    stunts_max: int = Field(5, ge=0, le=10)
    stunts_suggested_start: int = Field(1, ge=0, le=10)
    refresh_base: int = Field(3, ge=1, le=10)
    refresh_min: int = Field(1, ge=0, le=10)
    refresh_trigger: RefreshTrigger = RefreshTrigger.SESSION_START
    max_helpers: int = Field(2, ge=0, le=10)
    require_minimal_absorption: bool = False
    defend_sws_blocks_cost_success: bool = False
    paid_and_free_same_aspect_same_roll: bool = False
    boost_transferable_to_ally: bool = True
    allow_rename_mild: bool = False
    situation_aspects_expire_at_scene_end: bool = True
    player_compel_paid_by_compeller: bool = True
    compel_refusal_fp_to: RefusalDestination = RefusalDestination.GM
    gm_fate_point_pool: bool = False
    pvp_invoke_fp_to_target: bool = True
    advancement_enabled: bool = True
    invocation_window_closes: WindowCloser = WindowCloser.GM
    invocation_window_timeout_hours: int | None = Field(None, ge=1, le=24 * 14)

    @model_validator(mode="after")
    def _coherent(self) -> FaeSettings:
        if any(not self.approach_min <= v <= self.approach_max for v in self.approach_creation_array):
            raise ValueError("approach_creation_array must lie within approach_min..approach_max")
        if self.stunts_suggested_start > self.stunts_max or self.stunts_free > self.stunts_max:
            raise ValueError("stunts_free and stunts_suggested_start cannot exceed stunts_max")
        if self.refresh_min > self.refresh_base:
            raise ValueError("refresh_min cannot exceed refresh_base")
        if (self.invocation_window_closes is WindowCloser.TIMEOUT) != (
            self.invocation_window_timeout_hours is not None
        ):
            raise ValueError("invocation_window_timeout_hours is set exactly when the window closes by timeout")
        return self


DEFAULT_SETTINGS = FaeSettings()


def settings_or_default(settings: FaeSettings | None) -> FaeSettings:
    return DEFAULT_SETTINGS if settings is None else settings
