"""Reacción (§6.8, §8 A-29): one sealed sentence per character and session, hidden from everyone, the GM
included (sealed with ``tintero.sealing``; only its hash and time are public), revealed by its player when the
situation happens, valued 0..3 extra dice by the GM, used once by an action of that character (the action
procedure closes it), or expired by the GM at the session's end."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from django.core.exceptions import PermissionDenied
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from campaigns import policy
from rulesets.event.procedures.common import by_the_rules, reactions_off, rules_of
from rulesets.kit.procedures import (
    Choice,
    NoParams,
    Opening,
    OpeningInput,
    Outcome,
    Procedure,
    RecordLine,
    Step,
    StepInput,
)
from rulesets.kit.refusals import refuse
from rulesets.kit.table import GM, Actor, Reads, Table, in_both
from systems.event import reactions as rx
from tintero.sealing import seal, unseal

KEY = "reaction"


class ReactionState(BaseModel):
    """What the table sees: while sealed only the hash and the time (``text``/``nonce`` come at the reveal)."""

    model_config = ConfigDict(extra="forbid")

    stage: Literal["sealed", "revealed", "valued", "used", "expired"]
    character: int
    character_name: str
    controller: int
    session: int
    status: rx.ReactionStatus
    committed_at: str
    digest: str
    text: str | None = None
    nonce: str | None = None
    value: int | None = None
    used_in: int | None = None


class ReactionSecret(BaseModel):
    """The sealed sentence and its nonce (opaque to everyone, GMs included, until the reveal)."""

    model_config = ConfigDict(extra="forbid")

    sealed: str = ""

    @model_serializer(mode="wrap")
    def _only_what_is_sealed(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Stored without empty parts: nothing sealed is left after the reveal."""
        return {key: value for key, value in handler(self).items() if value}


class ReactionOpen(BaseModel):
    model_config = ConfigDict(extra="forbid")

    character: int
    session: int = Field(1, ge=1, le=100_000)
    text: str = Field(min_length=1, max_length=500)


class RevealParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str = Field("", max_length=500)  # the sentence again (checked against the hash); empty: as sealed


class ValueParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    value: int = Field(ge=-100, le=100)  # the rules refuse anything outside 0..3 with their own code
    happened: bool = True


def bound_to(procedure_id: int) -> str:
    return f"{procedure_id}|reaction"


def pure_reaction(state: ReactionState, secret: ReactionSecret | None, procedure_id: int) -> rx.Reaction:
    """The pure reaction: its text from the seal while sealed, from the state once revealed."""
    if state.text is None:
        opened = unseal(secret.sealed, bound_to(procedure_id)) if secret and secret.sealed else {}
        text, nonce = str(opened.get("text", "")), str(opened.get("nonce", ""))
    else:
        text, nonce = state.text, state.nonce or ""
    return rx.Reaction(
        session=state.session,
        text=text,
        nonce=nonce,
        digest=state.digest,
        committed_at=state.committed_at,
        status=state.status,
        value=state.value,
    )


def public_state(state: ReactionState, reaction: rx.Reaction, stage: str) -> ReactionState:
    """``rx.public_view`` of the reaction over the state (never the text of one that was not revealed)."""
    public = rx.public_view(reaction)
    if state.text is None and reaction.status is rx.ReactionStatus.EXPIRED:
        public = {k: v for k, v in public.items() if k not in ("text", "nonce", "value")}
    return state.model_validate({**state.model_dump(), **public, "stage": stage})


def _check_on(table: Table) -> None:
    if not rules_of(table).optional.reactions.enabled:
        raise reactions_off()


def _written(table: Table, character: int, session: int) -> rx.Reaction | None:
    """This character's reaction for the session, if one was written (one per character and session)."""
    for other in table.procedures:
        if other.kind != KEY:
            continue
        state = ReactionState.model_validate(other.state)
        if state.character == character and state.session == session:
            return rx.Reaction(state.session, "", "", state.digest, state.committed_at, state.status, state.value)
    return None


def _open(given: OpeningInput[ReactionOpen]) -> Outcome[ReactionState]:
    _check_on(given.table)
    params, table = given.params, given.table
    character = table.character(params.character)
    if character.is_npc or not policy.controls_character(given.viewer, character):
        raise PermissionDenied(_("Solo el jugador del personaje escribe su reacción."))
    nonce = secrets.token_hex(16)
    written = rx.WriteReactionParams(
        session=params.session, text=params.text, nonce=nonce, committed_at=timezone.now().isoformat()
    )
    current = _written(table, character.id, params.session)
    reaction = by_the_rules(lambda: rx.write_reaction(current, written, rules_of(table)))
    sealed = seal({"text": reaction.text, "nonce": nonce}, bound_to(given.procedure_id))
    state = ReactionState(
        stage="sealed",
        character=character.id,
        character_name=character.name,
        controller=int(character.owner_id or 0),
        session=reaction.session,
        status=reaction.status,
        committed_at=reaction.committed_at,
        digest=reaction.digest,
    )
    words = in_both(
        lambda: (
            _("%(name)s sella una reacción para la sesión %(session)d.")
            % {"name": character.name, "session": reaction.session}
        )
    )
    return Outcome(state=state, secret=ReactionSecret(sealed=sealed), record=[RecordLine(words)])


def _reveal(given: StepInput[ReactionState, RevealParams]) -> Outcome[ReactionState]:
    _check_on(given.table)
    state = given.state
    secret = given.secret if isinstance(given.secret, ReactionSecret) else None
    reaction = pure_reaction(state, secret, given.procedure_id)
    typed = given.params.text.strip()
    if typed and rx.seal_digest(reaction.session, typed, reaction.nonce) != reaction.digest:
        raise refuse(
            "reaction_mismatch",
            "Ese texto no coincide con la reacción sellada.",
            "That text does not match the sealed reaction.",
        )
    if rx.seal_digest(reaction.session, reaction.text, reaction.nonce) != reaction.digest:
        raise refuse("seal_broken", "La reacción sellada no es válida.", "The sealed reaction is not valid.")
    revealed = by_the_rules(lambda: rx.reveal_reaction(reaction))
    words = in_both(
        lambda: _("%(name)s revela su reacción: «%(text)s».") % {"name": state.character_name, "text": revealed.text}
    )
    return Outcome(
        state=public_state(state, revealed, "revealed"),
        secret=ReactionSecret(),
        record=[RecordLine(words)],
        step_params={"digest": revealed.digest},
    )


def _value(given: StepInput[ReactionState, ValueParams]) -> Outcome[ReactionState]:
    _check_on(given.table)
    state = given.state
    reaction = pure_reaction(state, None, given.procedure_id)
    valued_by = rx.ValueReactionParams(value=given.params.value, happened=given.params.happened)
    valued = by_the_rules(lambda: rx.value_reaction(reaction, valued_by))
    words = in_both(
        lambda: (
            _("El máster valora la reacción de %(name)s: %(n)d dados extra en su próxima acción.")
            % {"name": state.character_name, "n": valued.bonus_dice}
        )
    )
    return Outcome(state=public_state(state, valued, "valued"), record=[RecordLine(words)])


def _expire(given: StepInput[ReactionState, NoParams]) -> Outcome[ReactionState]:
    state = given.state
    expired = rx.expire_reaction(pure_reaction(state, None, given.procedure_id) if state.text else _sealed(state))
    words = in_both(lambda: _("La reacción de %(name)s caduca sin usarse.") % {"name": state.character_name})
    return Outcome(
        state=public_state(state, expired, "expired"),
        secret=ReactionSecret(),
        closes="settled",
        record=[RecordLine(words)],
        step_params={},
    )


def _sealed(state: ReactionState) -> rx.Reaction:
    """A reaction as the table knows it (no text): what expires unrevealed."""
    return rx.Reaction(state.session, "", "", state.digest, state.committed_at, state.status, state.value)


def used_state(data: Mapping[str, object], action_id: int) -> ReactionState:
    """The reaction after an action of its character took its dice (the action procedure closes it)."""
    state = ReactionState.model_validate(data)
    used = by_the_rules(lambda: rx.use_reaction(pure_reaction(state, None, 0)))
    return public_state(state, used, "used").model_copy(update={"used_in": action_id})


def _own_player_characters(table: Table, viewer: policy.Viewer) -> Mapping[str, Sequence[Choice]]:
    """A reaction is a player's, for their own character: never an NPC's."""
    mine = [
        c for c in table.characters.values() if c.approved and not c.is_npc and policy.controls_character(viewer, c)
    ]
    return {"character": [Choice(str(c.id), c.name) for c in mine]}


def _value_choices(state: ReactionState, table: Table, viewer: policy.Viewer) -> Mapping[str, Sequence[Choice]]:
    return {"value": [Choice(str(n), str(n)) for n in range(rx.MAX_REACTION_DICE + 1)]}


def _player(state: ReactionState) -> set[Actor]:
    return {state.controller} if state.status is rx.ReactionStatus.SEALED else set()


def _gm_values(state: ReactionState) -> set[Actor]:
    return {GM} if state.status is rx.ReactionStatus.REVEALED else set()


def _gm_revalues(state: ReactionState) -> set[Actor]:
    return {GM} if state.status is rx.ReactionStatus.VALUED else set()


def _gm_expires(state: ReactionState) -> set[Actor]:
    done = (rx.ReactionStatus.USED, rx.ReactionStatus.EXPIRED)
    return {GM} if state.status not in done else set()


REACTION: Procedure[ReactionState] = Procedure(
    key=KEY,
    title=gettext_lazy("Reacción"),
    state=ReactionState,
    secret=ReactionSecret,
    reads=Reads(procedures=(KEY,)),
    opening=Opening(params=ReactionOpen, run=_open, choices=_own_player_characters),
    steps=(
        Step(
            key="reveal",
            label=gettext_lazy("Revelar la reacción"),
            params=RevealParams,
            who=_player,
            run=_reveal,
            form="event/procedures/reveal_fields.html",
            waiting=lambda s, t: in_both(
                lambda: _("Reacción sellada de %(name)s: se revela si ocurre la situación") % {"name": s.character_name}
            ),
        ),
        Step(
            key="value",
            label=gettext_lazy("Valorar la reacción"),
            params=ValueParams,
            who=_gm_values,
            run=_value,
            form="event/procedures/value_fields.html",
            choices=_value_choices,
            waiting=lambda s, t: in_both(
                lambda: _("Valorar la reacción de %(name)s (0 a 3 dados)") % {"name": s.character_name}
            ),
        ),
        Step(
            key="revalue",
            label=gettext_lazy("Cambiar el valor"),
            params=ValueParams,
            who=_gm_revalues,
            run=_value,
            awaited=False,  # the GM has the final word until an action uses it
            form="event/procedures/value_fields.html",
            choices=_value_choices,
        ),
        Step(
            key="expire",
            label=gettext_lazy("Caducar (fin de sesión)"),
            params=NoParams,
            who=_gm_expires,
            run=_expire,
            awaited=False,
        ),
    ),
)
