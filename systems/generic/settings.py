"""Campaign settings of the generic ruleset: none (the notation carries every rule)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class GenericSettings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
