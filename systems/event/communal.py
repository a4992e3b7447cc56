"""*Reserva comunal*, the communal pool (§6.7, §8 A-28): the GM sets it at session start (not topped up);
a player takes at most one die per pool; it is consumed when the pool locks. The state is the number
of dice remaining, a campaign-scope pool changed only through the ledger."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from systems.errors import RulesError
from systems.event.settings import DEFAULT_SETTINGS, EventSettings
from systems.event.veto import Verdict


class OpenSessionParams(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    dice: int = Field(ge=0, le=1000)


class TakeParams(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    npc: bool = False
    dice: int = Field(1, ge=1)
    veto_verdict: Verdict | None = None  # required when ``veto_on_take`` is on: the take's closed window


def _check_enabled(settings: EventSettings) -> None:
    if not settings.optional.communal_pool.enabled:
        raise RulesError(
            "COMMUNAL_DISABLED",
            "La reserva comunal no está activa en esta campaña.",
            "The communal pool is off in this campaign.",
        )


def open_communal_pool(remaining: int, params: OpenSessionParams, settings: EventSettings | None = None) -> int:
    """Leftovers from the previous session are discarded: the pool is set, not added to [INT]."""
    _check_enabled(settings or DEFAULT_SETTINGS)
    return params.dice


def take_communal_die(remaining: int, params: TakeParams, settings: EventSettings | None = None) -> int:
    """Take one die for a pool (consumed at pool lock, even if the outcome is then automatic)."""
    settings = settings or DEFAULT_SETTINGS
    _check_enabled(settings)
    if params.npc:
        raise RulesError(
            "NPC_NOT_ALLOWED",
            "Los PNJ no pueden usar la reserva comunal.",
            "NPCs cannot use the communal pool.",
        )
    if params.dice > 1:
        raise one_communal_die()
    if settings.optional.communal_pool.veto_on_take:
        if params.veto_verdict is None or params.veto_verdict is Verdict.PENDING:
            raise RulesError(
                "WINDOW_OPEN",
                "La votación sobre este dado comunal sigue abierta.",
                "The veto window on this communal take is still open.",
            )
        if params.veto_verdict is Verdict.INVALID:
            raise RulesError(
                "TAKE_VETOED",
                "El grupo ha vetado coger este dado: sigue en la reserva comunal.",
                "The group vetoed this take: the die stays in the communal pool.",
            )
    if remaining <= 0:
        raise RulesError(
            "COMMUNAL_EMPTY",
            "La reserva comunal está vacía.",
            "The communal pool is empty.",
        )
    return remaining - 1


def one_communal_die() -> RulesError:
    return RulesError(
        "ONE_COMMUNAL_DIE",
        "Solo puedes coger un dado de la reserva comunal por tirada.",
        "You may take only one communal die per pool.",
    )
