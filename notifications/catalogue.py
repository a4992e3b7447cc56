"""The typed catalogue of notifications: for each kind, who is told (``campaigns.policy``) and the words.

=================== ============================================== ===============================================
kind                when                                           who (the policy's question)
=================== ============================================== ===============================================
new_posts           a post in a scene; batched: one unread line    ``told_of_post``: who may read the scene and see
                    per scene, its count rising                    the post (a whisper: its targets; to the GMs:
                                                                   the GMs), never the author
whisper             a whisper to me                                ``told_of_post`` (its targets)
mention             ``@username`` of a member in a post            ``told_of_post`` ∩ the members named
procedure_waiting   a procedure's awaited step is mine (or a GM's) ``told_of_waiting_step`` (Flow.waiting_for)
character_approved  my character was approved                      ``told_of_character``: its player
character_returned  my character was sent back to draft            ``told_of_character``: its player
join_answered       my join request was accepted or refused        ``told_of_join_request``: the requester
join_requested      someone asks to join (GMs)                     ``told_of_join_request``: the GMs
character_submitted a character awaits approval (GMs)              ``told_of_character``: the GMs
nudge               a GM reminds me I owe a post in a scene        ``owed_posts`` (``may_write_scene``): players
reminder            N days of silence in a scene I owe a post to   ``owed_posts`` (``may_write_scene``)
roll_requested      a GM asks my character for a roll              ``may_be_asked_to_roll``: its player
veto_vote           Event: an answer opens to the table's veto     ``may_vote_on_event_answer`` ∩ its eligible
invitation          a GM invites me to a campaign                  ``told_of_invitation``: the invited user
invitation_answered my invitation was accepted or declined (GMs)   ``told_of_invitation``: the GMs
=================== ============================================== ===============================================

The words are built here, in the reader's language, from the notification's ``params`` (names and titles
the recipient may read, copied when it was written): the inbox, the emails, the feeds and push all say
the same sentence. An excerpt of the post is kept only for a whisper or a mention (its recipient reads it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from campaigns.models import role_in_sentence
from notifications.models import Kind, Notification

EXCERPT_LENGTH = 160


def _new_posts(n: Notification, p: dict[str, Any]) -> str:
    return ngettext("%(count)d mensaje nuevo en «%(scene)s»", "%(count)d mensajes nuevos en «%(scene)s»", n.count) % {
        "count": n.count,
        "scene": p.get("scene", ""),
    }


def _waiting(n: Notification, p: dict[str, Any]) -> str:
    label = p.get("label_en" if translation.get_language() == "en" else "label_es", "")
    return _("Un procedimiento te espera en «%(scene)s»: %(step)s") % {"scene": p.get("scene", ""), "step": label}


def _join_answered(n: Notification, p: dict[str, Any]) -> str:
    if p.get("accepted"):
        return _("Tu solicitud para unirte a «%(campaign)s» ha sido aceptada") % {"campaign": p.get("campaign", "")}
    return _("Tu solicitud para unirte a «%(campaign)s» ha sido rechazada") % {"campaign": p.get("campaign", "")}


def _reminder(n: Notification, p: dict[str, Any]) -> str:
    days = int(p.get("days", 0))
    return ngettext(
        "Hace %(days)d día que esperan tu mensaje en «%(scene)s»",
        "Hace %(days)d días que esperan tu mensaje en «%(scene)s»",
        days,
    ) % {"days": days, "scene": p.get("scene", "")}


def _roll_requested(n: Notification, p: dict[str, Any]) -> str:
    return _("%(gm)s te pide una tirada en «%(scene)s»: %(label)s") % {
        "gm": p.get("gm", ""),
        "scene": p.get("scene", ""),
        "label": p.get("label") or p.get("expression", ""),
    }


def _invitation(n: Notification, p: dict[str, Any]) -> str:
    # The params keep the role's key; its word is the reader's language's.
    role = role_in_sentence(str(p.get("role", "")))
    return _("%(gm)s te invita a «%(campaign)s» como %(role)s") % {
        "gm": p.get("gm", ""),
        "campaign": p.get("campaign", ""),
        "role": role,
    }


def _invitation_answered(n: Notification, p: dict[str, Any]) -> str:
    words = {"user": p.get("user", ""), "campaign": p.get("campaign", "")}
    if p.get("accepted"):
        return _("%(user)s acepta tu invitación a «%(campaign)s»") % words
    return _("%(user)s rechaza tu invitación a «%(campaign)s»") % words


# One function per kind: the words, from the params the recipient may read.
_WORDS: dict[str, Callable[[Notification, dict[str, Any]], str]] = {
    Kind.NEW_POSTS: _new_posts,
    Kind.WHISPER: lambda n, p: (
        _("%(author)s te susurra en «%(scene)s»") % {"author": p.get("author", ""), "scene": p.get("scene", "")}
    ),
    Kind.MENTION: lambda n, p: (
        _("%(author)s te menciona en «%(scene)s»") % {"author": p.get("author", ""), "scene": p.get("scene", "")}
    ),
    Kind.PROCEDURE_WAITING: _waiting,
    Kind.CHARACTER_APPROVED: lambda n, p: (
        _("Tu personaje %(character)s está aprobado") % {"character": p.get("character", "")}
    ),
    Kind.CHARACTER_RETURNED: lambda n, p: (
        _("Tu personaje %(character)s ha vuelto a borrador para cambios") % {"character": p.get("character", "")}
    ),
    Kind.JOIN_ANSWERED: _join_answered,
    Kind.JOIN_REQUESTED: lambda n, p: (
        _("%(user)s pide unirse a «%(campaign)s»") % {"user": p.get("user", ""), "campaign": p.get("campaign", "")}
    ),
    Kind.CHARACTER_SUBMITTED: lambda n, p: (
        _("%(owner)s envía a %(character)s para aprobación")
        % {"owner": p.get("owner", ""), "character": p.get("character", "")}
    ),
    Kind.NUDGE: lambda n, p: (
        _("%(gm)s te recuerda que te toca escribir en «%(scene)s»")
        % {"gm": p.get("gm", ""), "scene": p.get("scene", "")}
    ),
    Kind.REMINDER: _reminder,
    Kind.ROLL_REQUESTED: _roll_requested,
    Kind.INVITATION: _invitation,
    Kind.INVITATION_ANSWERED: _invitation_answered,
    Kind.VETO_VOTE: lambda n, p: (
        _("Se vota el veto a una respuesta de %(character)s: %(question)s")
        % {"character": p.get("character", ""), "question": p.get("question", "")}
    ),
}


def _sentence(n: Notification) -> str:
    words = _WORDS.get(n.kind)
    return words(n, n.params) if words is not None else _("Aviso")


def sentence(n: Notification, language: str | None = None) -> str:
    """The notification in words, in ``language`` (default: the active one)."""
    if language is None:
        return _sentence(n)
    with translation.override(language):
        return _sentence(n)


def excerpt(n: Notification) -> str:
    """A short quote of the post, for a whisper or a mention only (never for a batch of posts)."""
    return str(n.params.get("excerpt", "")) if n.kind in (Kind.WHISPER, Kind.MENTION) else ""


def link(n: Notification) -> str:
    """Where the notification leads (a path: callers make it absolute for mail and feeds)."""
    if n.post_id is not None and n.kind in (Kind.WHISPER, Kind.MENTION):
        return reverse("campaigns:post", args=[n.post_id])
    if n.scene_id is not None:
        return reverse("campaigns:scene", args=[n.scene_id])
    if n.kind in (Kind.CHARACTER_APPROVED, Kind.CHARACTER_RETURNED, Kind.CHARACTER_SUBMITTED, Kind.VETO_VOTE) and p_int(
        n, "character_id"
    ):
        return reverse("characters:detail", args=[p_int(n, "character_id")])
    return reverse("campaigns:detail", args=[n.campaign_id])


def p_int(n: Notification, name: str) -> int:
    value = n.params.get(name)
    return int(value) if isinstance(value, int) else 0
