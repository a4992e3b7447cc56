"""The narration veto flow (§4, §8 A-15, A-16, A-17): PROPOSED → ACCEPTED, or CONTESTED → one answer
(DEFENDED or REFORMULATED) → ACCEPTED or OVERRULED → GM_NARRATION → FINAL. Also joint narration (§5.6).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from systems.errors import RulesError
from systems.event.ladder import Outcome
from systems.event.veto import CloseReason, VetoWindow, VoteKind, cast, close, open_window, withdraw

GM = "GM"


class NarrationKind(StrEnum):
    ACTION_ABSOLUTE = "ACTION_ABSOLUTE"  # a player's absolute success (rolled or automatic)
    INTERACTION = "INTERACTION"  # the winner of the right fist
    JOINT_PART = "JOINT_PART"  # one part of a joint narration
    GM = "GM"  # partial, failure, critical, overruled results, NPC-won right fists: never vetoable


class NarrationStatus(StrEnum):
    PROPOSED = "PROPOSED"
    CONTESTED = "CONTESTED"
    DEFENDED = "DEFENDED"
    REFORMULATED = "REFORMULATED"
    ACCEPTED = "ACCEPTED"
    OVERRULED = "OVERRULED"
    GM_NARRATION = "GM_NARRATION"
    FINAL = "FINAL"


OPEN_WINDOW_STATES = frozenset({NarrationStatus.PROPOSED, NarrationStatus.DEFENDED, NarrationStatus.REFORMULATED})


@dataclass(frozen=True, slots=True)
class Narration:
    kind: NarrationKind
    author: str
    narrator: str  # the author, or "GM" once overruled
    text: str
    status: NarrationStatus
    vetoable: bool
    window: VetoWindow | None = None
    phase: str | None = None  # "INITIAL" or "REVIEW"
    history: tuple[str, ...] = ()  # replaced texts, kept as evidence
    path: tuple[NarrationStatus, ...] = ()
    responded: bool = False
    outcome: Outcome | None = None  # the action's outcome (downgraded to partial if overruled)
    challenge: Any = None  # the interaction's left-fist result: never changed by the veto flow
    argument: str | None = None
    gm_text: str | None = None

    @property
    def overruled(self) -> bool:
        return NarrationStatus.OVERRULED in self.path


def _go(n: Narration, *statuses: NarrationStatus, **changes: Any) -> Narration:
    return replace(n, status=statuses[-1], path=(*n.path, *statuses), **changes)


def propose(
    kind: NarrationKind,
    author: str,
    text: str,
    voters: Iterable[str],
    narration_veto: bool,
    outcome: Outcome | None = None,
    challenge: Any = None,
) -> Narration:
    """Post a narration. Vetoable only when the campaign switched narration vetoes on and it is a player's
    (absolute success, won right fist, joint part); otherwise it is final at once."""
    vetoable = narration_veto and kind is not NarrationKind.GM and author != GM
    n = Narration(
        kind=kind,
        author=author,
        narrator=author,
        text=text,
        status=NarrationStatus.PROPOSED,
        vetoable=vetoable,
        outcome=outcome,
        challenge=challenge,
        path=(NarrationStatus.PROPOSED,),
    )
    if not vetoable:
        return _go(n, NarrationStatus.FINAL)
    return replace(n, window=open_window(author, voters), phase="INITIAL")


def _check_vetoable(n: Narration) -> VetoWindow:
    if n.kind is NarrationKind.GM or n.author == GM:
        raise RulesError(
            "GM_NARRATION_NOT_VETOABLE",
            "Las narraciones del máster no se pueden vetar.",
            "The GM's narrations cannot be vetoed.",
        )
    if not n.vetoable:
        raise RulesError(
            "NARRATION_VETO_DISABLED",
            "En esta campaña no se vetan las narraciones.",
            "Narration vetoes are off in this campaign.",
        )
    if n.status not in OPEN_WINDOW_STATES or n.window is None or n.window.closed:
        raise RulesError(
            "WINDOW_CLOSED",
            "La votación sobre esta narración está cerrada.",
            "The veto window on this narration is closed.",
        )
    return n.window


def vote(n: Narration, voter: str, kind: VoteKind = VoteKind.VETO) -> Narration:
    return replace(n, window=cast(_check_vetoable(n), voter, kind))


def withdraw_vote(n: Narration, voter: str) -> Narration:
    return replace(n, window=withdraw(_check_vetoable(n), voter))


def close_window(n: Narration, reason: CloseReason = CloseReason.DEADLINE) -> Narration:
    """Decide the phase: 2+ active vetoes contest (INITIAL) or overrule (REVIEW); fewer accept."""
    window = close(_check_vetoable(n), reason)
    vetoed = window.verdict.value == "INVALID"
    if n.status is NarrationStatus.PROPOSED:
        if vetoed:
            return _go(n, NarrationStatus.CONTESTED, window=window)
        return _go(n, NarrationStatus.ACCEPTED, NarrationStatus.FINAL, window=window)
    if vetoed:
        return _overrule(replace(n, window=window))
    return _go(n, NarrationStatus.ACCEPTED, NarrationStatus.FINAL, window=window)


def _overrule(n: Narration) -> Narration:
    """An action's absolute success becomes a partial success; an interaction keeps its result (A-16)."""
    outcome = n.outcome
    if n.kind is NarrationKind.ACTION_ABSOLUTE and outcome is Outcome.ABSOLUTE_SUCCESS:
        outcome = Outcome.PARTIAL_SUCCESS
    return _go(n, NarrationStatus.OVERRULED, NarrationStatus.GM_NARRATION, narrator=GM, outcome=outcome)


def _check_response(n: Narration, author: str) -> None:
    if author != n.author:
        raise RulesError(
            "NOT_AUTHOR",
            "Solo el autor de la narración puede responder a los vetos.",
            "Only the narration's author can answer the vetoes.",
        )
    if n.responded:
        raise RulesError(
            "ONE_RESPONSE_ONLY",
            "Solo puedes defender tu postura o reformular una vez.",
            "You may defend or reformulate only once.",
        )
    if n.status is not NarrationStatus.CONTESTED:
        raise RulesError(
            "NOT_CONTESTED",
            "La narración no está vetada: no hay nada que responder.",
            "The narration is not contested: there is nothing to answer.",
        )


def defend(n: Narration, author: str, argument: str) -> Narration:
    """Keep the same text; the INITIAL vetoes carry over into REVIEW unless withdrawn (A-15)."""
    _check_response(n, author)
    assert n.window is not None
    carried = tuple(v for v in n.window.votes if v[1] is VoteKind.VETO)
    window = replace(open_window(n.author, n.window.eligible), votes=carried)
    return _go(n, NarrationStatus.DEFENDED, window=window, phase="REVIEW", responded=True, argument=argument)


def reformulate(n: Narration, author: str, new_text: str) -> Narration:
    """Replace the text (the old one stays in history); REVIEW starts with no votes (A-15)."""
    _check_response(n, author)
    assert n.window is not None
    return _go(
        n,
        NarrationStatus.REFORMULATED,
        window=open_window(n.author, n.window.eligible),
        phase="REVIEW",
        responded=True,
        history=(*n.history, n.text),
        text=new_text,
    )


def concede(n: Narration, author: str) -> Narration:
    _check_response(n, author)
    return _overrule(replace(n, responded=True))


def response_deadline_passed(n: Narration) -> Narration:
    """``veto_response_hours`` ran out with no answer: overruled [INT]."""
    if n.status is not NarrationStatus.CONTESTED:
        raise RulesError(
            "NOT_CONTESTED",
            "La narración no está esperando respuesta.",
            "The narration is not waiting for an answer.",
        )
    return _overrule(n)


def post_gm_narration(n: Narration, actor: str, text: str) -> Narration:
    if actor != GM:
        raise RulesError("GM_ONLY", "Solo el máster puede hacer esto.", "Only the GM can do this.")
    if n.status is not NarrationStatus.GM_NARRATION:
        raise RulesError(
            "NOT_AWAITING_GM",
            "Esta narración no espera al máster.",
            "This narration is not waiting for the GM.",
        )
    return _go(n, NarrationStatus.FINAL, gm_text=text)


# --- joint narration (§5.6) --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class JointNarration:
    """Tied narrators post one part each, in seat order with NPCs/GM last; the GM may ask for more
    rounds and closes it."""

    order: tuple[str, ...]
    parts: tuple[tuple[str, str], ...] = ()
    closed: bool = False

    @property
    def next_author(self) -> str | None:
        if self.closed:
            return None
        return self.order[len(self.parts) % len(self.order)]


def start_joint(participants: Sequence[tuple[str, int | None]]) -> JointNarration:
    """``participants``: (narrator, seat or None for NPC/GM)."""
    ordered = sorted(participants, key=lambda p: (p[1] is None, p[1] or 0))
    return JointNarration(order=tuple(p[0] for p in ordered))


def post_part(j: JointNarration, author: str, text: str) -> JointNarration:
    if j.closed:
        raise RulesError("JOINT_CLOSED", "La narración conjunta está cerrada.", "The joint narration is closed.")
    if author != j.next_author:
        raise RulesError(
            "NOT_YOUR_PART",
            f"Ahora le toca narrar a {j.next_author}.",
            f"It is {j.next_author}'s part now.",
        )
    return replace(j, parts=(*j.parts, (author, text)))


def close_joint(j: JointNarration, actor: str) -> JointNarration:
    if actor != GM:
        raise RulesError(
            "GM_ONLY",
            "Solo el máster cierra la narración conjunta.",
            "Only the GM closes the joint narration.",
        )
    if not j.parts or len(j.parts) < len(j.order):
        raise RulesError(
            "PARTS_MISSING",
            "Aún falta alguna parte de la narración conjunta.",
            "Some parts of the joint narration are still missing.",
        )
    return replace(j, closed=True)
