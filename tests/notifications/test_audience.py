"""Audience matrix: each kind of notification × role × visibility (whisper, GM-only post, hidden scene,
secret roll): who is told, and that nobody else reads a word of it in the inbox, the mail, the private
feed or a push payload."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import transaction

from campaigns import services as campaign_services
from campaigns.models import JoinRequest, Recipients, Role, Visibility, Voice
from characters import services as character_services
from characters.models import Character, CharacterStatus
from notifications import services as notification_services
from notifications.models import Kind, Notification
from rolls.models import Flow
from rolls.services import RollSpec, create_post_with_rolls
from tests.notifications.conftest import kinds, surfaces
from tests.personas import Table, make_user

ROLES = ("gm", "player", "player2", "reader", "outsider")


def _told(table: Table, kind: str) -> set[str]:
    return {role for role in ROLES if kind in kinds(table.user(role))}  # type: ignore[arg-type]


def _never_reads(table: Table, roles: set[str], secret: str) -> None:
    for role in roles:
        assert secret not in surfaces(table.user(role)), (role, secret)  # type: ignore[arg-type]


def test_a_post_to_all_tells_every_reader_but_its_author(mail_table: Table, run_tasks: Any) -> None:
    with run_tasks(execute=True):
        campaign_services.create_post(author=mail_table.player2, scene=mail_table.scene, body="Hola a todos")
    assert _told(mail_table, Kind.NEW_POSTS) == {"gm", "player", "reader"}


def test_posts_are_batched_per_scene_until_read(mail_table: Table, run_tasks: Any) -> None:
    for body in ("uno", "dos", "tres"):
        with run_tasks(execute=True):
            campaign_services.create_post(author=mail_table.player2, scene=mail_table.scene, body=body)
    lines = [n for n in mail_table.reader.notifications.all() if n.kind == Kind.NEW_POSTS]
    assert len(lines) == 1 and lines[0].count == 3
    assert "3 mensajes nuevos en «Llegada»" in surfaces(mail_table.reader)


def test_a_gm_only_post_tells_the_gms_only_and_its_mention_is_silent(mail_table: Table, run_tasks: Any) -> None:
    with run_tasks(execute=True):
        campaign_services.create_post(
            author=mail_table.player2,
            scene=mail_table.scene,
            body="SECRETO-MASTER para @player y @reader",
            recipients=Recipients.GMS,
        )
    assert _told(mail_table, Kind.NEW_POSTS) == {"gm"}
    assert _told(mail_table, Kind.MENTION) == set()
    _never_reads(mail_table, {"player", "reader", "outsider"}, "SECRETO-MASTER")
    _never_reads(mail_table, {"gm"}, "SECRETO-MASTER")  # a batch of posts never quotes them


def test_a_whisper_tells_its_target_only(mail_table: Table, run_tasks: Any) -> None:
    with run_tasks(execute=True):
        campaign_services.create_post(
            author=mail_table.gm,
            scene=mail_table.scene,
            body="SUSURRO-SECRETO, y @player2 no lo sabrá",
            voice=Voice.NARRATOR,
            recipients=Recipients.WHISPER,
            whisper_to=[mail_table.player.pk],
        )
    assert _told(mail_table, Kind.WHISPER) == {"player"}
    assert _told(mail_table, Kind.MENTION) == set()
    assert _told(mail_table, Kind.NEW_POSTS) == set()
    assert "SUSURRO-SECRETO" in surfaces(mail_table.player)
    _never_reads(mail_table, {"player2", "reader", "outsider"}, "SUSURRO-SECRETO")


def test_a_mention_tells_the_member_named(mail_table: Table, run_tasks: Any) -> None:
    with run_tasks(execute=True):
        campaign_services.create_post(
            author=mail_table.player, scene=mail_table.scene, body="¿Qué opinas, @Player2? @outsider @nadie"
        )
    assert _told(mail_table, Kind.MENTION) == {"player2"}
    assert _told(mail_table, Kind.NEW_POSTS) == {"gm", "reader"}
    assert "¿Qué opinas, @Player2?" in surfaces(mail_table.player2)


def test_a_hidden_scene_tells_only_those_listed(mail_table: Table, run_tasks: Any) -> None:
    campaign_services.update_scene(actor=mail_table.gm, scene=mail_table.listed_scene, title="CRIPTA-OCULTA")
    with run_tasks(execute=True):
        campaign_services.create_post(
            author=mail_table.player, scene=mail_table.listed_scene, body="Bajo a la cripta @player2 @reader"
        )
    assert _told(mail_table, Kind.NEW_POSTS) == {"gm"}
    assert _told(mail_table, Kind.MENTION) == set()
    _never_reads(mail_table, {"player2", "reader", "outsider"}, "CRIPTA-OCULTA")
    assert "CRIPTA-OCULTA" in surfaces(mail_table.gm)


def test_a_secret_roll_never_reaches_a_notification(mail_table: Table, run_tasks: Any) -> None:
    with run_tasks(execute=True):
        post = create_post_with_rolls(
            author=mail_table.gm,
            scene=mail_table.scene,
            body="El viento sopla.",
            voice=Voice.NARRATOR,
            rolls=[RollSpec(kind="notation", data={"expression": "1d6"}, gm_only=True, label="TIRADA-OCULTA")],
        )
    assert post.rolls.get().gm_only
    assert _told(mail_table, Kind.NEW_POSTS) == {"player", "player2", "reader"}
    _never_reads(mail_table, set(ROLES), "TIRADA-OCULTA")


def _waiting(flow: Flow, *, gm: bool, users: list[int]) -> None:
    from notifications import services

    Flow.objects.filter(pk=flow.pk).update(
        waiting_for={
            "steps": [{"step": "pain_roll", "gm": gm, "users": users, "label_es": "Dolor", "label_en": "Pain"}]
        }
    )
    services.notify_flow(flow.pk)


def test_a_procedure_waiting_tells_who_it_waits_for(mail_table: Table) -> None:
    flow = Flow.objects.create(
        campaign=mail_table.campaign, scene=mail_table.scene, kind="test", opened_by=mail_table.player2
    )
    _waiting(flow, gm=True, users=[mail_table.player.pk])
    assert _told(mail_table, Kind.PROCEDURE_WAITING) == {"gm", "player"}
    _waiting(flow, gm=True, users=[mail_table.player.pk])  # the same wait again: told once
    assert mail_table.player.notifications.filter(kind=Kind.PROCEDURE_WAITING).count() == 1


def test_a_procedure_in_a_hidden_scene_never_tells_who_cannot_read_it(mail_table: Table) -> None:
    flow = Flow.objects.create(
        campaign=mail_table.campaign, scene=mail_table.listed_scene, kind="test", opened_by=mail_table.gm
    )
    _waiting(flow, gm=False, users=[mail_table.player2.pk, mail_table.outsider.pk])
    assert _told(mail_table, Kind.PROCEDURE_WAITING) == set()


def test_join_requests_go_to_the_gms_and_the_answer_to_the_requester(mail_table: Table, run_tasks: Any) -> None:
    if mail_table.campaign.visibility == Visibility.PRIVATE:
        pytest.skip("an outsider cannot ask to join a private campaign")
    with run_tasks(execute=True):
        request = campaign_services.request_to_join(
            user=mail_table.outsider, campaign=mail_table.campaign, role=Role.READER
        )
    assert _told(mail_table, Kind.JOIN_REQUESTED) == {"gm"}
    with run_tasks(execute=True):
        campaign_services.decide_join_request(actor=mail_table.gm, join_request=request, accept=False)
    assert _told(mail_table, Kind.JOIN_ANSWERED) == {"outsider"}
    assert "rechazada" in surfaces(mail_table.outsider)
    assert JoinRequest.objects.get(pk=request.pk).status == "rejected"


def test_characters_to_approve_go_to_the_gms_and_the_verdict_to_the_player(mail_table: Table, run_tasks: Any) -> None:
    character = Character.objects.create(
        campaign=mail_table.campaign, owner=mail_table.player2, name="Nuevo", status=CharacterStatus.PENDING
    )
    Character.objects.filter(pk=character.pk).update(submitted_at=character.created_at)
    with run_tasks(execute=True):
        character_services.return_to_draft(actor=mail_table.gm, character=character)
    assert _told(mail_table, Kind.CHARACTER_RETURNED) == {"player2"}
    # Approval needs a complete sheet of the game; what matters here is the event it publishes.
    with run_tasks(execute=True), transaction.atomic():
        Character.objects.filter(pk=character.pk).update(status=CharacterStatus.APPROVED)
        character.refresh_from_db()
        character_services._character_event(character, "status")
    assert _told(mail_table, Kind.CHARACTER_APPROVED) == {"player2"}


def test_a_new_draft_an_edit_or_a_portrait_is_an_event_that_tells_no_one(mail_table: Table, run_tasks: Any) -> None:
    from campaigns.models import CampaignEventLog

    logged = CampaignEventLog.objects.filter(type="character.changed")
    before = logged.count()
    with run_tasks(execute=True):
        draft = character_services.create_character(actor=mail_table.player2, campaign=mail_table.campaign, name="X")
        character_services.update_character(actor=mail_table.player, character=mail_table.character, name="Otra")
        character_services.set_portrait(actor=mail_table.player, character=mail_table.character, upload=None)
    assert [(e.data["character_id"], e.data["action"]) for e in logged.order_by("id")[before:]] == [
        (draft.pk, "created"),
        (mail_table.character.pk, "edited"),
        (mail_table.character.pk, "edited"),
    ]
    assert not Notification.objects.exists()
    # Nor is a task scheduled for them; a change of status (or an event logged before ``action``) is.
    assert not notification_services.notifies("character.changed", {"action": "edited"})
    assert notification_services.notifies("character.changed", {"action": "status"})
    assert notification_services.notifies("character.changed", {})
    assert not notification_services.notifies("pool.changed", {})


def test_a_new_member_is_not_told_of_older_posts_and_a_stranger_never_is(mail_table: Table, run_tasks: Any) -> None:
    stranger = make_user("stranger")
    with run_tasks(execute=True):
        campaign_services.create_post(author=mail_table.player, scene=mail_table.scene, body="@stranger hola")
    assert not stranger.notifications.exists()


def test_a_notification_goes_when_its_scene_or_post_can_no_longer_be_read(mail_table: Table, run_tasks: Any) -> None:
    with run_tasks(execute=True):
        campaign_services.create_post(author=mail_table.gm, scene=mail_table.listed_scene, body="Solo para ti, @player")
        whisper = campaign_services.create_post(
            author=mail_table.gm, scene=mail_table.scene, body="BORRADO-LUEGO", voice=Voice.NARRATOR,
            recipients=Recipients.WHISPER, whisper_to=[mail_table.player.pk],
        )  # fmt: skip
    assert kinds(mail_table.player) == {Kind.MENTION, Kind.WHISPER}
    campaign_services.delete_post(actor=mail_table.gm, post=whisper)
    assert kinds(mail_table.player) == {Kind.MENTION}
    assert "BORRADO-LUEGO" not in surfaces(mail_table.player)
    campaign_services.update_scene(
        actor=mail_table.gm, scene=mail_table.listed_scene, reader_ids=[mail_table.player2.pk], writer_ids=[]
    )
    assert kinds(mail_table.player) == set()


def test_mentioning_a_character_tells_its_player_if_they_may_read(mail_table: Table, run_tasks: Any) -> None:
    with run_tasks(execute=True):
        campaign_services.create_post(author=mail_table.player, scene=mail_table.scene, body="¿Vienes, @hugo?")
    assert _told(mail_table, Kind.MENTION) == {"player2"}
    with run_tasks(execute=True):
        campaign_services.create_post(author=mail_table.gm, scene=mail_table.listed_scene, body="@Hugo no lo verá")
    assert mail_table.player2.notifications.filter(kind=Kind.MENTION).count() == 1
