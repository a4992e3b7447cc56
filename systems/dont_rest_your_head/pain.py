"""Opposition and pain scores (§2.3): several opponents combine; the GM may set a value directly."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from systems.dont_rest_your_head.refusals import refuse


class Opposition(BaseModel):
    """An NPC or obstacle; ``from_pc`` is set when a PC became a Nightmare."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1, max_length=120)
    pain: int = Field(ge=1)  # (R, B-AMB-26)
    from_pc: str | None = None


def combined_pain(scores: Sequence[int]) -> int:
    """(S) the highest pain, +1 die per extra opponent, +2 if it equals the highest ("calcular")."""
    if not scores or min(scores) < 1:
        refuse("PAIN_RANGE", scores=list(scores))
    lead = max(scores)
    rest = list(scores)
    rest.remove(lead)
    return lead + sum(2 if s == lead else 1 for s in rest)


def collective_pain(value: int) -> int:
    """(S) the GM sets the group's pain directly ("fijar") and lowers it as opponents fall."""
    if value < 1:
        refuse("PAIN_RANGE", pain=value)
    return value


def nightmare_from(pc: str, name: str, pain: int) -> Opposition:
    """A PC who lost all discipline becomes an NPC with the pain of the pool they snapped with."""
    return Opposition(name=name, pain=pain, from_pc=pc)
