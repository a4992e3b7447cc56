"""Event: creating a character answer by answer, with the table's vetoes (spec §2.2–§2.5, §6.5).

At a table the three questions are answered aloud and vetoed on the spot; in a forum each answer waits
days for votes. So each answer is a row (:class:`~characters.models.EventAnswer`) with a veto window:

1. the player answers *¿Quién soy?*, then *¿Qué aspecto tengo?*, then makes ``max_picks`` picks of
   *¿Qué soy capaz de hacer?* (a new skill or a "+" on one they have), one answer open at a time;
2. the GMs and the other players vote (``VETO`` or ``NO_VETO``), change or withdraw their vote while the
   window is open; the author may defend the answer meanwhile (a comment: vetoes start a discussion);
3. the window closes at its deadline, as soon as everyone eligible has voted, or when a GM closes it;
   two or more active vetoes make the answer invalid, otherwise it is accepted and written on the draft;
4. a vetoed answer never reaches the sheet: the player reformulates it (a new attempt) or picks another.

With the *progreso de personajes* rule and ``subject_to_veto``, a progress pick of an approved character
goes through the same window and, once accepted, reaches the sheet through the ledger.

Every step checks the policy, locks the character and the answer (in that order) and refuses an
out-of-order step with the rules' RulesError; the pure veto rule is :mod:`systems.event.veto`.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from campaigns import policy
from campaigns.events import Audience, Event, EventType, publish
from campaigns.models import Membership, Role
from characters.models import Character, CharacterStatus, EventAnswer
from characters.services import apply_operation, campaign_settings
from rulesets.event.sheet import load_sheet, settings_of, voted_pick
from systems.errors import RulesError
from systems.event import VETO_THRESHOLD
from systems.event.sheet import (
    AnswerParams,
    Pick,
    PickKind,
    answer_appearance,
    answer_warnings,
    answer_who_am_i,
    apply_pick,
    check_answer_text,
    check_pick,
    check_progress_pick,
)
from systems.event.sheet import Origin as PickOrigin
from systems.event.veto import CloseReason, Verdict, VetoWindow, VoteKind, cast, close, close_if_everyone_voted
from systems.event.veto import withdraw as withdraw_from

Q = EventAnswer.Question
S = EventAnswer.Status


def _require(allowed: bool, message: str) -> None:
    if not allowed:
        raise PermissionDenied(message)


def _lock(character: Character) -> Character:
    return Character.objects.select_for_update(of=("self",)).select_related("campaign").get(pk=character.pk)


def _lock_answer(answer: EventAnswer) -> tuple[Character, EventAnswer]:
    character = _lock(answer.character)
    return character, EventAnswer.objects.select_for_update().get(pk=answer.pk)


def _window(answer: EventAnswer) -> VetoWindow:
    verdict = Verdict.PENDING if answer.status == S.PENDING else Verdict(answer.status)
    return VetoWindow(
        author=str(answer.author_id),
        eligible=frozenset(str(v) for v in answer.eligible),
        votes=tuple((str(v["voter"]), VoteKind(v["kind"])) for v in answer.votes),
        closed=answer.status != S.PENDING,
        verdict=verdict,
    )


def veto_count(answer: EventAnswer) -> int:
    return _window(answer).veto_count


def is_due(answer: EventAnswer, now: Any = None) -> bool:
    return answer.status == S.PENDING and (now or timezone.now()) >= answer.closes_at


def _publish(character: Character, answer: EventAnswer) -> None:
    publish(
        Event(
            EventType.FLOW_CHANGED,
            character.campaign_id,
            {
                "scene_id": None,  # creation happens outside any scene
                "flow_id": answer.pk,
                "state": answer.status,
                "flow": "event_answer",
                "character_id": character.pk,
            },
        ),
        Audience(user_ids=frozenset(int(v) for v in answer.eligible) | {answer.author_id}),
    )


def _log(answer: EventAnswer, actor: User | None, action: str, **extra: Any) -> None:
    answer.vote_log = [
        *answer.vote_log,
        {"who": actor.pk if actor else None, "action": action, "at": timezone.now().isoformat(), **extra},
    ]


# --- Reading --------------------------------------------------------------------------------------


def answers_of(character: Character) -> QuerySet[EventAnswer]:
    return EventAnswer.objects.filter(character=character).select_related("author", "closed_by").order_by("id")


def open_answer(character: Character) -> EventAnswer | None:
    return EventAnswer.objects.filter(character=character, status=S.PENDING).first()


def accepted(character: Character, question: str) -> bool:
    return EventAnswer.objects.filter(character=character, question=question, status=S.ACCEPTED).exists()


def next_step(character: Character) -> str:
    """What the creation waits for: ``vote``, ``who_am_i``, ``appearance``, ``pick``, ``submit`` or ``done``."""
    if open_answer(character) is not None:
        return "vote"
    if character.status != CharacterStatus.DRAFT:
        return "done"
    if not accepted(character, Q.WHO_AM_I):
        return "who_am_i"
    if not accepted(character, Q.APPEARANCE):
        return "appearance"
    settings = settings_of(campaign_settings(character.campaign))
    if load_sheet(character.sheet or {}, settings).creation_picks < settings.max_picks:
        return "pick"
    return "submit"


def check_ready_to_submit(character: Character) -> None:
    """``submit_character`` refuses an Event character whose answers are still open to veto."""
    pending = open_answer(character)
    if pending is not None:
        raise ValidationError(
            {
                "sheet": _("Aún hay una respuesta en votación (%(question)s): espera a que se cierre.")
                % {"question": pending.get_question_display()}
            }
        )


# --- Answering ------------------------------------------------------------------------------------


def _eligible_voters(character: Character, author_id: int) -> list[int]:
    ids = Membership.objects.filter(campaign_id=character.campaign_id, role__in=[Role.GM, Role.PLAYER]).values_list(
        "user_id", flat=True
    )
    return sorted(uid for uid in ids if uid != author_id)


def _close_due(character: Character) -> None:
    """A window whose deadline passed closes before the next step (nobody runs a clock for it)."""
    for answer in EventAnswer.objects.select_for_update().filter(character=character, status=S.PENDING):
        if is_due(answer):
            _close(character, answer, None, CloseReason.DEADLINE)


def _open(
    actor: User, character: Character, question: str, *, text: str = "", pick: Pick | None = None, round_no: int | None
) -> EventAnswer:
    if EventAnswer.objects.filter(character=character, status=S.PENDING).exists():
        raise RulesError(
            "ANSWER_PENDING",
            "Tu respuesta anterior sigue en votación: espera a que se cierre.",
            "Your previous answer is still open to veto: wait until it closes.",
        )
    attempt = (
        1 + EventAnswer.objects.filter(character=character, question=question, round=round_no, status=S.INVALID).count()
    )
    settings = settings_of(campaign_settings(character.campaign))
    answer = EventAnswer.objects.create(
        character=character,
        author=actor,
        question=question,
        round=round_no,
        attempt=attempt,
        text=text,
        pick_kind=pick.kind.value if pick else "",
        pick_skill=" ".join(pick.skill.split()) if pick else "",
        pick_category=(pick.category or "") if pick else "",
        eligible=_eligible_voters(character, actor.pk),
        warnings=list(answer_warnings(text)) if question in (Q.WHO_AM_I, Q.APPEARANCE) else [],
        closes_at=timezone.now() + timedelta(hours=settings.core.veto_window_hours),
    )
    _log(answer, actor, "open")
    answer.save(update_fields=["vote_log"])
    _publish(character, answer)
    return answer


def _require_creating(character: Character) -> None:
    if character.status != CharacterStatus.DRAFT:
        raise RulesError(
            "NOT_CREATING",
            "Este personaje ya no está en creación.",
            "This character is no longer being created.",
        )


@transaction.atomic
def answer_question(*, actor: User, character: Character, question: str, text: str) -> EventAnswer:
    """Answer *¿Quién soy?* or *¿Qué aspecto tengo?* (one sentence each; more is only a warning, CS1)."""
    character = _lock(character)
    viewer = policy.viewer_for(actor, character.campaign)
    _require(policy.may_give_event_answer(viewer, character), _("Solo el jugador del personaje responde."))
    _require_creating(character)
    _close_due(character)
    if question not in (Q.WHO_AM_I, Q.APPEARANCE):
        raise ValidationError({"question": _("Pregunta desconocida.")})
    if len(text) > 2000:
        raise ValidationError({"text": _("Como mucho %(max)d caracteres.") % {"max": 2000}})
    cleaned = check_answer_text(text)  # CV3
    if accepted(character, question):
        raise RulesError(
            "ALREADY_ANSWERED",
            "Esa pregunta ya tiene una respuesta aceptada.",
            "That question already has an accepted answer.",
        )
    if question == Q.APPEARANCE and not accepted(character, Q.WHO_AM_I):
        raise RulesError(
            "QUESTION_ORDER",
            "Primero se responde «¿Quién soy?».",
            "'Who am I?' is answered first.",
        )
    return _open(actor, character, question, text=cleaned, round_no=None)


def _pick(kind: str, skill: str, category: str | None, round_no: int | None) -> Pick:
    from pydantic import ValidationError as PydanticValidationError

    from characters.services import pydantic_to_validation_error

    try:
        return Pick(kind=kind, skill=skill, category=category or None, round=round_no)  # type: ignore[arg-type]
    except PydanticValidationError as exc:
        raise pydantic_to_validation_error(exc, "pick") from None


@transaction.atomic
def propose_pick(
    *, actor: User, character: Character, kind: str, skill: str, category: str | None = None, text: str = ""
) -> EventAnswer:
    """One answer to *¿Qué soy capaz de hacer?* (a draft) or a progress pick (an approved character):
    checked now (CV4, CV5, CV6, CV8), written on the sheet only if the table does not veto it."""
    character = _lock(character)
    viewer = policy.viewer_for(actor, character.campaign)
    _require(policy.may_give_event_answer(viewer, character), _("Solo el jugador del personaje responde."))
    _close_due(character)
    settings = settings_of(campaign_settings(character.campaign))
    sheet = load_sheet(character.sheet or {}, settings)
    if character.status == CharacterStatus.APPROVED:
        progress = settings.optional.progress
        if not (progress.enabled and progress.subject_to_veto):
            raise RulesError(
                "PICK_NO_VOTE",
                "En esta partida la elección de progreso no se vota: aplícala directamente en la hoja.",
                "In this campaign progress picks are not voted: apply it directly on the sheet.",
            )
        pick = _pick(kind, skill, category, None)
        check_progress_pick(sheet, pick, settings)
        return _open(actor, character, Q.PROGRESS, text=text.strip(), pick=pick, round_no=sheet.progress_window)
    _require_creating(character)
    if not (accepted(character, Q.WHO_AM_I) and accepted(character, Q.APPEARANCE)):
        raise RulesError(
            "QUESTION_ORDER",
            "Las habilidades llegan después de «¿Quién soy?» y «¿Qué aspecto tengo?».",
            "Skills come after 'Who am I?' and 'What do I look like?'.",
        )
    pick = _pick(kind, skill, category, sheet.creation_picks + 1)
    check_pick(sheet, pick, settings, PickOrigin.CREATION)
    return _open(actor, character, Q.ABILITIES, text=text.strip(), pick=pick, round_no=pick.round)


@transaction.atomic
def reformulate_answer(
    *,
    actor: User,
    answer: EventAnswer,
    text: str = "",
    kind: str | None = None,
    skill: str | None = None,
    category: str | None = None,
) -> EventAnswer:
    """After a veto the player answers again: a new attempt at the same question (the vetoed one stays)."""
    answer = EventAnswer.objects.select_related("character").get(pk=answer.pk)
    if answer.status != S.INVALID:
        raise RulesError(
            "NOT_VETOED",
            "Solo se reformula una respuesta vetada.",
            "Only a vetoed answer is reformulated.",
        )
    if answer.question in (Q.WHO_AM_I, Q.APPEARANCE):
        return answer_question(actor=actor, character=answer.character, question=answer.question, text=text)
    return propose_pick(
        actor=actor,
        character=answer.character,
        kind=kind or answer.pick_kind,
        skill=skill if skill is not None else answer.pick_skill,
        category=category if category is not None else (answer.pick_category or None),
        text=text,
    )


@transaction.atomic
def defend_answer(*, actor: User, answer: EventAnswer, text: str) -> EventAnswer:
    """The author argues for a pending answer; voters may then withdraw their vetoes (nothing else changes)."""
    character, answer = _lock_answer(answer)
    viewer = policy.viewer_for(actor, character.campaign)
    _require(answer.author_id == actor.pk and policy.may_give_event_answer(viewer, character), _("Solo su autor."))
    if answer.status != S.PENDING or is_due(answer):
        raise RulesError("WINDOW_CLOSED", "La votación ya está cerrada.", "The veto window is already closed.")
    cleaned = text.strip()
    if not cleaned or len(cleaned) > 2000:
        raise ValidationError({"text": _("Escribe tu defensa (como mucho 2000 caracteres).")})
    answer.defense = cleaned
    _log(answer, actor, "defend")
    answer.save(update_fields=["defense", "vote_log"])
    _publish(character, answer)
    return answer


# --- Voting and closing ---------------------------------------------------------------------------


@transaction.atomic
def cast_vote(*, actor: User, answer: EventAnswer, kind: str = VoteKind.VETO, reason: str = "") -> EventAnswer:
    """Veto (or say "no objection") while the window is open; a second vote replaces the first (CV10)."""
    character, answer = _lock_answer(answer)
    viewer = policy.viewer_for(actor, character.campaign)
    _require(policy.may_vote_on_event_answer(viewer, character), _("No puedes votar esta respuesta."))
    if is_due(answer):  # closed at its deadline, whether or not anyone has closed it yet
        raise RulesError("WINDOW_CLOSED", "La votación ya está cerrada.", "The veto window is already closed.")
    if kind not in VoteKind.__members__:
        raise ValidationError({"kind": _("Voto desconocido.")})
    if len(reason) > 300:
        raise ValidationError({"reason": _("Como mucho %(max)d caracteres.") % {"max": 300}})
    window = cast(_window(answer), str(actor.pk), VoteKind(kind))
    others = [v for v in answer.votes if v["voter"] != actor.pk]
    answer.votes = [
        *others,
        {"voter": actor.pk, "kind": kind, "reason": reason.strip(), "cast_at": timezone.now().isoformat()},
    ]
    _log(answer, actor, "vote", kind=kind, reason=reason.strip())
    answer.save(update_fields=["votes", "vote_log"])
    if close_if_everyone_voted(window).closed:
        _close(character, answer, None, CloseReason.ALL_VOTED)
    else:
        _publish(character, answer)
    return answer


@transaction.atomic
def withdraw_vote(*, actor: User, answer: EventAnswer) -> EventAnswer:
    """A withdrawn veto counts as if it had never been cast [SRC]."""
    character, answer = _lock_answer(answer)
    viewer = policy.viewer_for(actor, character.campaign)
    _require(policy.may_vote_on_event_answer(viewer, character), _("No puedes votar esta respuesta."))
    if is_due(answer):  # closed at its deadline, whether or not anyone has closed it yet
        raise RulesError("WINDOW_CLOSED", "La votación ya está cerrada.", "The veto window is already closed.")
    withdraw_from(_window(answer), str(actor.pk))
    answer.votes = [v for v in answer.votes if v["voter"] != actor.pk]
    _log(answer, actor, "withdraw")
    answer.save(update_fields=["votes", "vote_log"])
    _publish(character, answer)
    return answer


@transaction.atomic
def close_answer(*, actor: User, answer: EventAnswer) -> EventAnswer:
    """Close a window: anyone at the table once its deadline passed or everyone voted; a GM at any time
    (a facilitation tool, logged; it is not a veto)."""
    character, answer = _lock_answer(answer)
    viewer = policy.viewer_for(actor, character.campaign)
    _require(policy.may_follow_event_answers(viewer, character), _("No puedes cerrar esta votación."))
    window = _window(answer)
    if window.closed:
        raise RulesError("WINDOW_CLOSED", "La votación ya está cerrada.", "The veto window is already closed.")
    if is_due(answer):
        reason = CloseReason.DEADLINE
    elif window.everyone_voted:
        reason = CloseReason.ALL_VOTED
    elif policy.may_close_event_answer_early(viewer):
        reason = CloseReason.GM
    else:
        raise RulesError(
            "WINDOW_OPEN",
            "La votación de la respuesta sigue abierta.",
            "The answer's veto window is still open.",
        )
    return _close(character, answer, actor, reason)


def _close(character: Character, answer: EventAnswer, actor: User | None, reason: CloseReason) -> EventAnswer:
    """Decide once, at close (§8 A-5); an accepted answer is written on the sheet in the same transaction."""
    window = close(_window(answer), reason)
    answer.status = S(window.verdict.value)
    answer.closed_at = timezone.now()
    answer.close_reason = reason.value
    answer.closed_by = actor
    _log(answer, actor, "close", reason=reason.value, vetoes=window.veto_count, verdict=answer.status)
    if answer.status == S.ACCEPTED:
        try:
            _write_on_sheet(character, answer)
        except RulesError as error:  # the sheet changed meanwhile (e.g. edited by hand): the rule wins
            answer.status = S.INVALID
            answer.refusal = f"{error.code}: {error.message_es}"[:300]
    answer.save()
    _publish(character, answer)
    return answer


def _write_on_sheet(character: Character, answer: EventAnswer) -> None:
    settings = settings_of(campaign_settings(character.campaign))
    if answer.question == Q.PROGRESS:
        owner = User.objects.get(pk=answer.author_id)
        with voted_pick():
            apply_operation(
                actor=owner,
                campaign=character.campaign,
                operation="add_progress_pick",
                params={"kind": answer.pick_kind, "skill": answer.pick_skill, "category": answer.pick_category or None},
                character=character,
                reason=_("Elección de progreso aceptada por la mesa"),
            )
        return
    sheet = load_sheet(character.sheet or {}, settings)
    if answer.question == Q.WHO_AM_I:
        sheet = answer_who_am_i(sheet, AnswerParams(text=answer.text), settings)
    elif answer.question == Q.APPEARANCE:
        sheet = answer_appearance(sheet, AnswerParams(text=answer.text), settings)
    else:
        pick = Pick(
            kind=PickKind(answer.pick_kind),
            skill=answer.pick_skill,
            category=answer.pick_category or None,
            round=answer.round,
        )
        sheet = apply_pick(sheet, pick, settings, PickOrigin.CREATION)
    character.sheet = sheet.model_dump(mode="json")
    character.save(update_fields=["sheet", "updated_at"])


def answer_summary(answer: EventAnswer) -> dict[str, Any]:
    """An answer as pages and the API show it: the votes with their reasons, the count "n / 2"."""
    return {
        "id": answer.pk,
        "character": answer.character_id,
        "author": answer.author_id,
        "question": answer.question,
        "question_label": answer.get_question_display(),
        "round": answer.round,
        "attempt": answer.attempt,
        "text": answer.text,
        "pick_kind": answer.pick_kind or None,
        "pick_skill": answer.pick_skill or None,
        "pick_category": answer.pick_category or None,
        "status": answer.status,
        "vetoes": veto_count(answer),
        "threshold": VETO_THRESHOLD,
        "votes": answer.votes,
        "eligible": answer.eligible,
        "defense": answer.defense,
        "warnings": answer.warnings,
        "refusal": answer.refusal,
        "opened_at": answer.opened_at,
        "closes_at": answer.closes_at,
        "closed_at": answer.closed_at,
        "close_reason": answer.close_reason or None,
        "due": is_due(answer),
    }
