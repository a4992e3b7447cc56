"""*Reacciones* (§6.8, §8 A-29): one sealed sentence per character and session, hidden from everyone
(the GM included) until revealed; the GM values it 0..3 extra dice; used once, expires at session end.

The sentence is sealed with a hash commitment so that the later reveal can be checked by anyone.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from systems.errors import RulesError
from systems.event.settings import DEFAULT_SETTINGS, EventSettings

MAX_REACTION_DICE = 3


class ReactionStatus(StrEnum):
    SEALED = "SEALED"
    REVEALED = "REVEALED"
    VALUED = "VALUED"
    USED = "USED"
    EXPIRED = "EXPIRED"


def seal_digest(session: int, text: str, nonce: str) -> str:
    return hashlib.sha256(f"{session}|{text}|{nonce}".encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Reaction:
    session: int
    text: str  # secret until revealed: never serialize it through public_view while SEALED
    nonce: str
    digest: str
    committed_at: str  # ISO timestamp supplied by the caller (no clock in the rules)
    status: ReactionStatus = ReactionStatus.SEALED
    value: int | None = None

    @property
    def bonus_dice(self) -> int:
        return self.value or 0


class WriteReactionParams(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    session: int = Field(ge=1)
    text: str = Field(min_length=1, max_length=500)
    nonce: str = Field(min_length=8, max_length=128)
    committed_at: str
    session_started: bool = False


class ValueReactionParams(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    value: int
    happened: bool = True  # the GM confirms the situation really happened [INT]


def _check_enabled(settings: EventSettings) -> None:
    if not settings.optional.reactions.enabled:
        raise RulesError(
            "REACTIONS_DISABLED",
            "Las reacciones no están activas en esta campaña.",
            "Reactions are off in this campaign.",
        )


def write_reaction(
    current: Reaction | None, params: WriteReactionParams, settings: EventSettings | None = None
) -> Reaction:
    """Write this session's sealed reaction; locked once the GM starts the session."""
    _check_enabled(settings or DEFAULT_SETTINGS)
    if params.session_started:
        raise RulesError(
            "REACTION_LOCKED",
            "La sesión ya ha empezado: ya no puedes escribir tu reacción.",
            "The session has started: the reaction can no longer be written.",
        )
    if current is not None and current.session == params.session:
        raise RulesError(
            "REACTION_ALREADY_WRITTEN",
            "Ya has escrito tu reacción para esta sesión.",
            "You already wrote your reaction for this session.",
        )
    text = params.text.strip()
    return Reaction(
        session=params.session,
        text=text,
        nonce=params.nonce,
        digest=seal_digest(params.session, text, params.nonce),
        committed_at=params.committed_at,
    )


def reveal_reaction(reaction: Reaction, params: None = None, settings: EventSettings | None = None) -> Reaction:
    if reaction.status is ReactionStatus.USED:
        raise RulesError("REACTION_USED", "Esa reacción ya se usó.", "That reaction was already used.")
    if reaction.status is ReactionStatus.EXPIRED:
        raise RulesError("REACTION_EXPIRED", "Esa reacción ha caducado.", "That reaction has expired.")
    if reaction.status is not ReactionStatus.SEALED:
        raise RulesError("REACTION_REVEALED", "La reacción ya está revelada.", "The reaction is already revealed.")
    return replace(reaction, status=ReactionStatus.REVEALED)


def value_reaction(reaction: Reaction, params: ValueReactionParams, settings: EventSettings | None = None) -> Reaction:
    """The GM's value, 0..3 extra dice; the GM has the final word (so it may be re-valued before use)."""
    if reaction.status not in (ReactionStatus.REVEALED, ReactionStatus.VALUED):
        raise RulesError(
            "REACTION_NOT_REVEALED",
            "Solo se puede valorar una reacción revelada y sin usar.",
            "Only a revealed, unused reaction can be valued.",
        )
    if not 0 <= params.value <= MAX_REACTION_DICE:
        raise RulesError(
            "REACTION_VALUE_RANGE",
            f"El valor de una reacción va de 0 a {MAX_REACTION_DICE}.",
            f"A reaction's value goes from 0 to {MAX_REACTION_DICE}.",
        )
    if not params.happened:
        raise RulesError(
            "REACTION_NOT_TRIGGERED",
            "El máster no confirma que la situación haya ocurrido.",
            "The GM does not confirm that the situation happened.",
        )
    return replace(reaction, status=ReactionStatus.VALUED, value=params.value)


def use_reaction(reaction: Reaction, params: None = None, settings: EventSettings | None = None) -> Reaction:
    """Add its dice to the response pool, once."""
    if reaction.status is ReactionStatus.USED:
        raise RulesError("REACTION_USED", "Esa reacción ya se usó.", "That reaction was already used.")
    if reaction.status is not ReactionStatus.VALUED:
        raise RulesError(
            "REACTION_NOT_VALUED",
            "El máster aún no ha valorado la reacción.",
            "The GM has not valued the reaction yet.",
        )
    return replace(reaction, status=ReactionStatus.USED)


def expire_reaction(reaction: Reaction, params: None = None, settings: EventSettings | None = None) -> Reaction:
    """Session end: an unused reaction expires."""
    if reaction.status in (ReactionStatus.USED, ReactionStatus.EXPIRED):
        return reaction
    return replace(reaction, status=ReactionStatus.EXPIRED)


def public_view(reaction: Reaction) -> dict[str, Any]:
    """What anyone but the author may see: sealed reactions show only the timestamp and the hash."""
    view: dict[str, Any] = {
        "session": reaction.session,
        "status": reaction.status.value,
        "committed_at": reaction.committed_at,
        "digest": reaction.digest,
    }
    if reaction.status is not ReactionStatus.SEALED:
        view.update(text=reaction.text, nonce=reaction.nonce, value=reaction.value)
    return view
