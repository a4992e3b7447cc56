"""The narration that closes an Event action (§3.6) and its vetoes (§4), as rows of a step table.

Voices: the GMs speak and vote as one voice, ``"GM"`` (the GM counts as one voter, like anyone, §4.2); a
player as their user id in text. Who narrates, votes or answers comes from the stored narration; the pure
rules (``systems.event.narration``) decide everything else and refuse the rest.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, Protocol, TypeVar

from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from pydantic import BaseModel, ConfigDict, Field

from campaigns import policy
from rulesets.event.procedures.common import by_the_rules, rules_of
from rulesets.kit.procedures import NoParams, Outcome, RecordLine, Step, StepInput
from rulesets.kit.refusals import refuse
from rulesets.kit.table import GM, Actor, in_both
from systems.event import narration as narr
from systems.event.ladder import Outcome as Result
from systems.event.veto import CloseReason, VoteKind
from systems.registry import Names

VOICE_GM = narr.GM  # "GM"

OPEN_WINDOW = (narr.NarrationStatus.PROPOSED, narr.NarrationStatus.DEFENDED, narr.NarrationStatus.REFORMULATED)


class Narrated(Protocol):
    """What a procedure's state carries for its narration."""

    voters: list[str]
    narration_pending: str | None
    narration: narr.Narration | None
    contested_at: str | None
    outcome: Result | None

    def voice_name(self, voice: str) -> str:
        """A player's voice in words: the character they play here."""
        ...


N = TypeVar("N", bound=BaseModel)


class TextParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str = Field(min_length=1, max_length=10_000)


class ArgumentParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    argument: str = Field("", max_length=10_000)


def actor_of(voice: str) -> Actor:
    return GM if voice == VOICE_GM else int(voice)


def voice_of(viewer: policy.Viewer) -> str:
    """The viewer's voice: the GMs' one voice, or the player's own."""
    return VOICE_GM if policy.may_run_gm_procedure(viewer) else str(viewer.user_id)


def who_named(state: Narrated, voice: str) -> str:
    """A voice in words (inside ``in_both``): the GM, or the character its player plays here."""
    return str(_("el máster")) if voice == VOICE_GM else state.voice_name(voice)


# --- Who may take each narration step now (the rules, from the stored narration) -----------------------


def narrator(state: Narrated) -> set[Actor]:
    return {actor_of(state.narration_pending)} if state.narration is None and state.narration_pending else set()


def _window_open(state: Narrated) -> bool:
    n = state.narration
    return n is not None and n.status in OPEN_WINDOW and n.window is not None and not n.window.closed


def voters_yet_to_vote(state: Narrated) -> set[Actor]:
    if not _window_open(state) or state.narration is None or state.narration.window is None:
        return set()
    window = state.narration.window
    voted = {voter for voter, _kind in window.votes}
    return {actor_of(v) for v in window.eligible if v not in voted}


def voters_who_voted(state: Narrated) -> set[Actor]:
    if not _window_open(state) or state.narration is None or state.narration.window is None:
        return set()
    return {actor_of(voter) for voter, _kind in state.narration.window.votes}


def gm_while_voting(state: Narrated) -> set[Actor]:
    return {GM} if _window_open(state) else set()


def author_answers(state: Narrated) -> set[Actor]:
    n = state.narration
    contested = n is not None and n.status is narr.NarrationStatus.CONTESTED and not n.responded
    return {actor_of(n.author)} if contested and n is not None else set()


def gm_when_contested(state: Narrated) -> set[Actor]:
    n = state.narration
    return {GM} if n is not None and n.status is narr.NarrationStatus.CONTESTED else set()


def gm_narrates(state: Narrated) -> set[Actor]:
    n = state.narration
    return {GM} if n is not None and n.status is narr.NarrationStatus.GM_NARRATION else set()


# --- The waiting lines ------------------------------------------------------------------------------


def narrate_waiting(state: Narrated) -> Names:
    pending = state.narration_pending or VOICE_GM
    if pending == VOICE_GM:
        return in_both(lambda: _("Narración del máster"))
    return in_both(lambda: _("Narración de %(who)s") % {"who": state.voice_name(pending)})


def votes_waiting(state: Narrated) -> Names:
    return in_both(lambda: _("Votos sobre la narración (¡Veto! o sin objeción); el máster puede cerrar la votación"))


def defend_waiting(state: Narrated) -> Names:
    author = state.narration.author if state.narration else VOICE_GM
    return in_both(lambda: _("%(who)s: defender su postura o reformular") % {"who": who_named(state, author)})


# --- The steps: each returns the new narration and the record lines it leaves --------------------------

Narrating = Callable[[StepInput[N, BaseModel], narr.Narration], narr.Narration]


def propose(given: StepInput[N, TextParams], state: Narrated, kind: narr.NarrationKind) -> narr.Narration:
    author = state.narration_pending or VOICE_GM
    if voice_of(given.viewer) != author:
        raise refuse("not_your_narration", "Esta narración no te corresponde.", "This narration is not yours.")
    kind = kind if author != VOICE_GM else narr.NarrationKind.GM
    veto_on = rules_of(given.table).core.narration_veto
    text = given.params.text
    return by_the_rules(lambda: narr.propose(kind, author, text, state.voters, veto_on, outcome=state.outcome))


def vote(given: StepInput[N, BaseModel], n: narr.Narration, kind: VoteKind) -> narr.Narration:
    voice = voice_of(given.viewer)
    voted = by_the_rules(lambda: narr.vote(n, voice, kind))
    if voted.window is not None and voted.window.everyone_voted:
        voted = by_the_rules(lambda: narr.close_window(voted, CloseReason.ALL_VOTED))
    return voted


def no_answer(given: StepInput[N, BaseModel], state: Narrated, n: narr.Narration) -> narr.Narration:
    """The author's time to answer ran out (``veto_response_hours`` from the veto): overruled."""
    hours = rules_of(given.table).core.veto_response_hours
    if state.contested_at and timezone.now() < datetime.fromisoformat(state.contested_at) + timedelta(hours=hours):
        raise refuse(
            "response_time_left",
            f"El autor aún tiene tiempo para responder ({hours:g} h desde el veto).",
            f"The author still has time to answer ({hours:g} h from the veto).",
        )
    return by_the_rules(lambda: narr.response_deadline_passed(n))


def changed_lines(state: Narrated, before: narr.Narration | None, after: narr.Narration) -> list[RecordLine]:
    """The record of a narration step: the text when it is posted or changed, and each change of status in
    the game's words (vetoed, accepted, overruled, the GM's narration)."""
    lines: list[RecordLine] = []
    who = after.author
    if before is None or after.text != before.text:
        lines.append(RecordLine(_told(state, who, after.text)))
    if before is not None and after.status is not before.status:
        said = status_words(after)
        if said is not None:
            lines.append(RecordLine(said))
    if after.argument and (before is None or before.argument != after.argument):
        lines.append(
            RecordLine(in_both(lambda: _("El autor defiende su narración: «%(text)s»") % {"text": after.argument}))
        )
    if after.gm_text and (before is None or before.gm_text != after.gm_text):
        lines.append(RecordLine(in_both(lambda: _("Narración del máster: «%(text)s»") % {"text": after.gm_text})))
    return lines


def _told(state: Narrated, voice: str, text: str) -> Names:
    if voice == VOICE_GM:
        return in_both(lambda: _("Narración del máster: «%(text)s»") % {"text": text})
    return in_both(lambda: _("Narración de %(who)s: «%(text)s»") % {"who": state.voice_name(voice), "text": text})


def status_words(n: narr.Narration) -> Names | None:
    """A narration's change of status in words (also a follow-up under the action's roll)."""
    if n.status is narr.NarrationStatus.CONTESTED:
        count = len(n.window.vetoes) if n.window else 0
        return in_both(lambda: _("Narración vetada (%(n)d vetos)") % {"n": count})
    if n.status is narr.NarrationStatus.GM_NARRATION and narr.NarrationStatus.OVERRULED in n.path:
        if n.kind is narr.NarrationKind.ACTION_ABSOLUTE:
            return in_both(lambda: _("Narración anulada → éxito parcial; narra el máster"))
        return in_both(lambda: _("Narración anulada: narra el máster"))
    if n.status is narr.NarrationStatus.FINAL and narr.NarrationStatus.ACCEPTED in n.path:
        return in_both(lambda: _("Narración aceptada"))
    return None


def is_final(n: narr.Narration | None) -> bool:
    return n is not None and n.status is narr.NarrationStatus.FINAL


# --- The table's rows: the same in every procedure that ends in a narration ---------------------------

Narrate = Callable[[StepInput[Any, Any], narr.Narration], Outcome[Any]]


def narration_steps(narrated: Narrate, kind: narr.NarrationKind) -> tuple[Step[Any, Any], ...]:
    """The narration's rows, offered while the procedure's stage is ``narration``; ``narrated`` stores what
    each produced (the procedure's own record, follow-ups and close)."""

    def applying(rule: Callable[[StepInput[Any, Any], narr.Narration], narr.Narration]) -> Any:
        def run(given: StepInput[Any, Any]) -> Outcome[Any]:
            n = given.state.narration
            assert n is not None  # who() offers these steps only once a narration is posted
            return narrated(given, by_the_rules(lambda: rule(given, n)))

        return run

    def proposing(given: StepInput[Any, Any]) -> Outcome[Any]:
        return narrated(given, propose(given, given.state, kind))

    def when_narrating(who: Callable[[Any], set[Actor]]) -> Callable[[Any], set[Actor]]:
        return lambda state: who(state) if state.stage == "narration" else set()

    return (
        Step(
            key="narrate",
            label=gettext_lazy("Narrar"),
            params=TextParams,
            who=when_narrating(narrator),
            run=proposing,
            form="event/procedures/text_fields.html",
            waiting=lambda s, t: narrate_waiting(s),
        ),
        Step(
            key="veto",
            label=gettext_lazy("¡Veto!"),
            params=NoParams,
            who=when_narrating(voters_yet_to_vote),
            run=applying(lambda g, n: vote(g, n, VoteKind.VETO)),
            waiting=lambda s, t: votes_waiting(s),
        ),
        Step(
            key="no_veto",
            label=gettext_lazy("Sin objeción"),
            params=NoParams,
            who=when_narrating(voters_yet_to_vote),
            run=applying(lambda g, n: vote(g, n, VoteKind.NO_VETO)),
            awaited=False,
        ),
        Step(
            key="withdraw",
            label=gettext_lazy("Retirar mi voto"),
            params=NoParams,
            who=when_narrating(voters_who_voted),
            run=applying(lambda g, n: narr.withdraw_vote(n, voice_of(g.viewer))),
            awaited=False,
        ),
        Step(
            key="close_votes",
            label=gettext_lazy("Cerrar la votación"),
            params=NoParams,
            who=when_narrating(gm_while_voting),
            run=applying(lambda g, n: narr.close_window(n, CloseReason.GM)),
            awaited=False,
        ),
        Step(
            key="defend",
            label=gettext_lazy("Defender"),
            params=ArgumentParams,
            who=when_narrating(author_answers),
            run=applying(lambda g, n: narr.defend(n, voice_of(g.viewer), g.params.argument)),
            form="event/procedures/argument_fields.html",
            waiting=lambda s, t: defend_waiting(s),
        ),
        Step(
            key="reformulate",
            label=gettext_lazy("Reformular"),
            params=TextParams,
            who=when_narrating(author_answers),
            run=applying(lambda g, n: narr.reformulate(n, voice_of(g.viewer), g.params.text)),
            awaited=False,
            form="event/procedures/text_fields.html",
        ),
        Step(
            key="concede",
            label=gettext_lazy("Aceptar los vetos"),
            params=NoParams,
            who=when_narrating(author_answers),
            run=applying(lambda g, n: narr.concede(n, voice_of(g.viewer))),
            awaited=False,
        ),
        Step(
            key="no_answer",
            label=gettext_lazy("Sin respuesta a tiempo: anular"),
            params=NoParams,
            who=when_narrating(gm_when_contested),
            run=applying(lambda g, n: no_answer(g, g.state, n)),
            awaited=False,
        ),
        Step(
            key="gm_narrate",
            label=gettext_lazy("Narración del máster"),
            params=TextParams,
            who=when_narrating(gm_narrates),
            run=applying(lambda g, n: narr.post_gm_narration(n, voice_of(g.viewer), g.params.text)),
            form="event/procedures/text_fields.html",
            waiting=lambda s, t: in_both(lambda: _("Narración del máster (narración anulada)")),
        ),
    )
