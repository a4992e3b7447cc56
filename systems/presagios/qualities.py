"""Forcing a roll's outcome with an activated quality (spec §3.7, A-AMB-18)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from systems.presagios.points import Purpose, activate_quality
from systems.presagios.sheet import QualityKind
from systems.presagios.table import Table


class Force(StrEnum):
    SUCCESS = "success"
    FAILURE = "failure"

    @property
    def purpose(self) -> Purpose:
        return Purpose.FORCE_SUCCESS if self is Force.SUCCESS else Purpose.FORCE_FAILURE


@dataclass(frozen=True)
class QualityActivation:
    """Who activates whose quality. ``activator_id`` None is the GM.

    ``against_owner``: the activation works against the quality's owner (declared, GM-confirmed).
    """

    owner_id: str
    quality: QualityKind
    against_owner: bool
    activator_id: str | None = None


def pay_for_force(table: Table, activation: QualityActivation, force: Force) -> Table:
    return activate_quality(
        table,
        activation.activator_id,
        activation.owner_id,
        activation.quality,
        force.purpose,
        against_owner=activation.against_owner,
    )
