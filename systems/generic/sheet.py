"""The generic sheet: the game is not modelled, so a character is free-form notes."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class GenericSheet(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=True)

    notes: str = Field(default="", max_length=20_000)
