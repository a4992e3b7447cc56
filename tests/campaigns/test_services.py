"""Services on the database: every write, each refusal, and that a refusal changes nothing."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from campaigns import services
from campaigns.models import (
    Campaign,
    CampaignStatus,
    Invitation,
    JoinRequest,
    Membership,
    Post,
    PostRevision,
    Recipients,
    RequestStatus,
    Role,
    Scene,
    SceneAccess,
    SceneAspect,
    SceneReadMark,
    SceneStatus,
    Voice,
)
from characters.models import Character, CharacterStatus
from tests.personas import Table, make_user

pytestmark = pytest.mark.django_db


def field_errors(exc: pytest.ExceptionInfo[ValidationError]) -> set[str]:
    return set(exc.value.message_dict) if hasattr(exc.value, "error_dict") else set()


# --- Campaigns ------------------------------------------------------------------------------------


def test_create_campaign_makes_creator_gm_and_an_offtopic_scene() -> None:
    gm = make_user("gm")
    campaign = services.create_campaign(creator=gm, title="  Mi partida ", ruleset="fate-sotc")
    assert campaign.title == "Mi partida"
    assert Membership.objects.get(campaign=campaign).role == Role.GM
    assert campaign.scenes.filter(is_offtopic=True).count() == 1


@pytest.mark.parametrize(
    ("fields", "bad_field"),
    [
        ({"title": "", "ruleset": "fate-sotc"}, "title"),
        ({"title": "x" * 121, "ruleset": "fate-sotc"}, "title"),
        ({"title": "ok", "ruleset": "dnd5e"}, "ruleset"),
        ({"title": "ok"}, "ruleset"),
        ({"title": "ok", "ruleset": "event", "visibility": "secret"}, "visibility"),
        ({"title": "ok", "ruleset": "event", "status": "paused"}, "status"),
        ({"title": "ok", "ruleset": "event", "language": "fr"}, "language"),
        ({"title": "ok", "ruleset": "event", "owner": "me"}, "owner"),
    ],
)
def test_create_campaign_refuses_bad_fields_and_writes_nothing(fields: dict[str, str], bad_field: str) -> None:
    gm = make_user("gm")
    with pytest.raises(ValidationError) as exc:
        services.create_campaign(creator=gm, **fields)
    assert bad_field in field_errors(exc)
    assert Campaign.objects.count() == 0
    assert Scene.objects.count() == 0


def test_only_gms_update_campaigns(table: Table) -> None:
    services.update_campaign(actor=table.gm, campaign=table.campaign, synopsis="Nueva sinopsis")
    for user in (table.player, table.reader, table.outsider):
        with pytest.raises(PermissionDenied):
            services.update_campaign(actor=user, campaign=table.campaign, synopsis="hack")
    table.campaign.refresh_from_db()
    assert table.campaign.synopsis == "Nueva sinopsis"


def test_ruleset_cannot_change_once_characters_exist(table: Table) -> None:
    with pytest.raises(ValidationError) as exc:
        services.update_campaign(actor=table.gm, campaign=table.campaign, ruleset="event")
    assert "ruleset" in field_errors(exc)


# --- Membership -----------------------------------------------------------------------------------


def test_join_request_accepted_makes_member(table: Table) -> None:
    request = services.request_to_join(user=table.outsider, campaign=table.campaign, message="¡Hola!")
    services.decide_join_request(actor=table.gm, join_request=request, accept=True)
    assert Membership.objects.get(campaign=table.campaign, user=table.outsider).role == Role.PLAYER


def test_join_request_rejected_and_decided_once(table: Table) -> None:
    request = services.request_to_join(user=table.outsider, campaign=table.campaign)
    services.decide_join_request(actor=table.gm, join_request=request, accept=False)
    with pytest.raises(ValidationError):
        services.decide_join_request(actor=table.gm, join_request=request, accept=True)
    assert not Membership.objects.filter(campaign=table.campaign, user=table.outsider).exists()


def test_join_request_refusals(table: Table, private_table: Table) -> None:
    with pytest.raises(ValidationError):
        services.request_to_join(user=table.player, campaign=table.campaign)  # already a member
    with pytest.raises(PermissionDenied):
        services.request_to_join(user=table.outsider, campaign=private_table.campaign)  # cannot see it
    services.request_to_join(user=table.outsider, campaign=table.campaign)
    with pytest.raises(ValidationError):
        services.request_to_join(user=table.outsider, campaign=table.campaign)  # one pending at a time
    with pytest.raises(ValidationError) as exc:
        services.request_to_join(user=make_user("x"), campaign=table.campaign, role=Role.GM)
    assert "role" in field_errors(exc)
    request = JoinRequest.objects.get(user=table.outsider)
    with pytest.raises(PermissionDenied):
        services.decide_join_request(actor=table.player, join_request=request, accept=True)


def test_an_update_from_a_stale_instance_writes_only_what_it_changes(table: Table) -> None:
    from campaigns.models import Campaign, CampaignEventLog

    stale = Campaign.objects.get(pk=table.campaign.pk)
    services.update_campaign(actor=table.gm, campaign=table.campaign, title="Título nuevo")
    touched = Campaign.objects.get(pk=table.campaign.pk).updated_at
    events_before = CampaignEventLog.objects.filter(type="campaign.changed").count()
    services.update_campaign(actor=table.gm, campaign=stale, synopsis="Otra sinopsis")
    row = Campaign.objects.get(pk=table.campaign.pk)
    assert (row.title, row.synopsis) == ("Título nuevo", "Otra sinopsis")  # the other change survives
    assert (stale.title, stale.synopsis) == ("Título nuevo", "Otra sinopsis")  # the caller sees the row
    assert "Otra sinopsis" in row.synopsis_html and row.updated_at > touched
    changed = CampaignEventLog.objects.filter(type="campaign.changed").order_by("id")
    assert changed.count() == events_before + 1 and changed.last().data["fields"] == ["synopsis"]  # type: ignore[union-attr]
    services.update_campaign(actor=table.gm, campaign=stale, title="Título nuevo")  # nothing changes: no event
    assert changed.count() == events_before + 1


def test_players_only_join_recruiting_campaigns(table: Table) -> None:
    services.update_campaign(actor=table.gm, campaign=table.campaign, status=CampaignStatus.ACTIVE)
    with pytest.raises(ValidationError):
        services.request_to_join(user=table.outsider, campaign=table.campaign, role=Role.PLAYER)
    services.request_to_join(user=table.outsider, campaign=table.campaign, role=Role.READER)


def test_withdraw_join_request(table: Table) -> None:
    request = services.request_to_join(user=table.outsider, campaign=table.campaign)
    with pytest.raises(PermissionDenied):
        services.withdraw_join_request(user=table.player, join_request=request)
    services.withdraw_join_request(user=table.outsider, join_request=request)
    assert JoinRequest.objects.get(pk=request.pk).status == RequestStatus.WITHDRAWN


def test_invitation_to_cogm(table: Table) -> None:
    invitation = services.invite(actor=table.gm, campaign=table.campaign, user=table.outsider, role=Role.GM)
    with pytest.raises(PermissionDenied):
        services.respond_to_invitation(user=table.player, invitation=invitation, accept=True)
    services.respond_to_invitation(user=table.outsider, invitation=invitation, accept=True)
    assert Membership.objects.get(campaign=table.campaign, user=table.outsider).role == Role.GM
    with pytest.raises(ValidationError):
        services.respond_to_invitation(user=table.outsider, invitation=invitation, accept=True)


def test_invitation_refusals(table: Table) -> None:
    with pytest.raises(PermissionDenied):
        services.invite(actor=table.player, campaign=table.campaign, user=table.outsider, role=Role.PLAYER)
    with pytest.raises(ValidationError):
        services.invite(actor=table.gm, campaign=table.campaign, user=table.player, role=Role.PLAYER)
    with pytest.raises(ValidationError):
        services.invite(actor=table.gm, campaign=table.campaign, user=table.outsider, role="king")
    invitation = services.invite(actor=table.gm, campaign=table.campaign, user=table.outsider, role=Role.READER)
    with pytest.raises(ValidationError):
        services.invite(actor=table.gm, campaign=table.campaign, user=table.outsider, role=Role.READER)
    services.cancel_invitation(actor=table.gm, invitation=invitation)
    assert Invitation.objects.get(pk=invitation.pk).status == RequestStatus.WITHDRAWN


def test_leave_and_remove(table: Table) -> None:
    services.leave_campaign(user=table.reader, campaign=table.campaign)
    assert not Membership.objects.filter(user=table.reader, campaign=table.campaign).exists()
    with pytest.raises(PermissionDenied):
        services.remove_member(actor=table.player, campaign=table.campaign, user=table.player2)
    services.remove_member(actor=table.gm, campaign=table.campaign, user=table.player)
    assert not table.listed_scene.readers.filter(pk=table.player.pk).exists()


def test_last_gm_cannot_leave_or_step_down(table: Table) -> None:
    with pytest.raises(ValidationError):
        services.leave_campaign(user=table.gm, campaign=table.campaign)
    with pytest.raises(ValidationError):
        services.change_role(actor=table.gm, campaign=table.campaign, user=table.gm, role=Role.PLAYER)
    services.change_role(actor=table.gm, campaign=table.campaign, user=table.player2, role=Role.GM)
    services.leave_campaign(user=table.gm, campaign=table.campaign)
    assert Membership.objects.filter(campaign=table.campaign, role=Role.GM).count() == 1


# --- Scenes and aspects ---------------------------------------------------------------------------


def test_scene_positions_and_reorder(table: Table) -> None:
    third = services.create_scene(actor=table.gm, campaign=table.campaign, title="Tercera")
    ids = list(table.campaign.scenes.order_by("position").values_list("id", flat=True))
    assert ids[-1] == third.pk
    services.reorder_scenes(actor=table.gm, campaign=table.campaign, scene_ids=list(reversed(ids)))
    assert list(table.campaign.scenes.order_by("position").values_list("id", flat=True)) == list(reversed(ids))
    with pytest.raises(ValidationError):
        services.reorder_scenes(actor=table.gm, campaign=table.campaign, scene_ids=ids[:-1])
    with pytest.raises(PermissionDenied):
        services.reorder_scenes(actor=table.player, campaign=table.campaign, scene_ids=ids)


def test_scene_access_lists_accept_members_only(table: Table) -> None:
    with pytest.raises(ValidationError) as exc:
        services.create_scene(
            actor=table.gm,
            campaign=table.campaign,
            title="X",
            access=SceneAccess.LISTED,
            reader_ids=[table.outsider.pk],
        )
    assert "readers" in field_errors(exc)
    assert not Scene.objects.filter(title="X").exists()


def test_offtopic_scene_stays_open_to_all(table: Table) -> None:
    with pytest.raises(ValidationError):
        services.update_scene(actor=table.gm, scene=table.offtopic, access=SceneAccess.LISTED)


def test_close_and_reopen_scene(table: Table) -> None:
    services.set_scene_status(actor=table.gm, scene=table.scene, status=SceneStatus.CLOSED)
    with pytest.raises(PermissionDenied):
        services.create_post(author=table.player, scene=table.scene, body="¿Hola?")
    services.set_scene_status(actor=table.gm, scene=table.scene, status=SceneStatus.OPEN)
    services.create_post(author=table.player, scene=table.scene, body="Hola")
    with pytest.raises(PermissionDenied):
        services.set_scene_status(actor=table.player, scene=table.scene, status=SceneStatus.CLOSED)
    with pytest.raises(ValidationError):
        services.set_scene_status(actor=table.gm, scene=table.scene, status="archived")


def test_scene_aspects(table: Table) -> None:
    aspect = services.add_scene_aspect(actor=table.gm, scene=table.scene, text="Niebla", free_invocations=1)
    services.update_scene_aspect(actor=table.gm, aspect=aspect, hidden=True, free_invocations=2)
    aspect.refresh_from_db()
    assert (aspect.hidden, aspect.free_invocations) == (True, 2)
    with pytest.raises(ValidationError):
        services.update_scene_aspect(actor=table.gm, aspect=aspect, free_invocations=-1)
    with pytest.raises(ValidationError):
        services.add_scene_aspect(actor=table.gm, scene=table.scene, text="  ")
    with pytest.raises(PermissionDenied):
        services.add_scene_aspect(actor=table.player, scene=table.scene, text="Mío")
    services.delete_scene_aspect(actor=table.gm, aspect=aspect)
    assert not SceneAspect.objects.exists()


# --- Posts ----------------------------------------------------------------------------------------


def test_post_renders_markdown_and_notes(table: Table) -> None:
    post = services.create_post(
        author=table.player,
        scene=table.scene,
        body="**Corro** <script>alert(1)</script>",
        notes="Tiro *Atletismo*",
        voice=Voice.CHARACTER,
        character=table.character,
    )
    assert "<strong>Corro</strong>" in post.body_html
    assert "<script>" not in post.body_html
    assert "<em>Atletismo</em>" in post.notes_html
    assert post.renderer_version >= 1


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"body": "   "}, "body"),
        ({"body": "x", "voice": "ghost"}, "voice"),
        ({"body": "x", "voice": Voice.CHARACTER}, "character"),
        ({"body": "x", "voice": Voice.NARRATOR}, "voice"),
        ({"body": "x", "voice": Voice.NPC, "npc_name": "Villano"}, "voice"),
        ({"body": "x", "recipients": "everyone-and-their-dog"}, "recipients"),
        ({"body": "x", "recipients": Recipients.WHISPER}, "whisper_to"),
        ({"body": "x", "body_too_long": True}, "body"),
    ],
)
def test_player_post_refusals_write_nothing(table: Table, kwargs: dict[str, object], field: str) -> None:
    before = Post.objects.count()
    if kwargs.pop("body_too_long", False):
        kwargs["body"] = "x" * 60_001
    with pytest.raises(ValidationError) as exc:
        services.create_post(author=table.player, scene=table.scene, **kwargs)  # type: ignore[arg-type]
    assert field in field_errors(exc)
    assert Post.objects.count() == before


def test_player_cannot_post_as_someone_elses_character(table: Table) -> None:
    with pytest.raises(ValidationError):
        services.create_post(
            author=table.player, scene=table.scene, body="x", voice=Voice.CHARACTER, character=table.character2
        )


def test_unapproved_character_cannot_post(table: Table) -> None:
    draft = Character.objects.create(campaign=table.campaign, owner=table.player, name="Borrador")
    assert draft.status == CharacterStatus.DRAFT
    with pytest.raises(ValidationError):
        services.create_post(author=table.player, scene=table.scene, body="x", voice=Voice.CHARACTER, character=draft)


def test_gm_speaks_as_narrator_npc_or_any_character(table: Table) -> None:
    services.create_post(author=table.gm, scene=table.scene, body="x", voice=Voice.NARRATOR)
    npc = services.create_post(author=table.gm, scene=table.scene, body="x", voice=Voice.NPC, npc_name="El mayordomo")
    assert npc.npc_name == "El mayordomo"
    services.create_post(author=table.gm, scene=table.scene, body="x", voice=Voice.CHARACTER, character=table.character)
    with pytest.raises(ValidationError) as exc:
        services.create_post(author=table.gm, scene=table.scene, body="x", voice=Voice.NPC)
    assert "npc_name" in field_errors(exc)


def test_who_may_write_where(table: Table) -> None:
    with pytest.raises(PermissionDenied):
        services.create_post(author=table.reader, scene=table.scene, body="x")
    with pytest.raises(PermissionDenied):
        services.create_post(author=table.outsider, scene=table.scene, body="x")
    with pytest.raises(PermissionDenied):
        services.create_post(author=table.player2, scene=table.listed_scene, body="x")
    services.create_post(author=table.player, scene=table.listed_scene, body="x")
    services.create_post(author=table.reader, scene=table.offtopic, body="¡Qué bien escribís!")


def test_whisper_targets_must_read_the_scene(table: Table) -> None:
    with pytest.raises(ValidationError) as exc:
        services.create_post(
            author=table.gm,
            scene=table.listed_scene,
            body="x",
            voice=Voice.NARRATOR,
            recipients=Recipients.WHISPER,
            whisper_to=[table.player2.pk],
        )
    assert "whisper_to" in field_errors(exc)
    with pytest.raises(ValidationError):
        services.create_post(
            author=table.gm,
            scene=table.scene,
            body="x",
            voice=Voice.NARRATOR,
            recipients=Recipients.WHISPER,
            whisper_to=[table.outsider.pk],
        )


def test_edit_keeps_revisions_and_only_author_edits(table: Table) -> None:
    post = table.post_all
    with pytest.raises(PermissionDenied):
        services.edit_post(actor=table.gm, post=post, body="GM rewrite")
    services.edit_post(actor=table.player, post=post, body="Versión 2", notes="nota")
    services.edit_post(actor=table.player, post=post, body="Versión 3")
    post.refresh_from_db()
    assert post.body_source == "Versión 3"
    assert post.notes_source == "nota"
    assert post.edited_at is not None
    assert list(PostRevision.objects.filter(post=post).values_list("body_source", flat=True)) == [
        "TEXTO-PARA-TODOS",
        "Versión 2",
    ]
    with pytest.raises(ValidationError):
        services.edit_post(actor=table.player, post=post, body="")
    post.refresh_from_db()
    assert post.body_source == "Versión 3"


def test_edit_without_change_is_not_a_revision(table: Table) -> None:
    services.edit_post(actor=table.player, post=table.post_all, body="TEXTO-PARA-TODOS")
    table.post_all.refresh_from_db()
    assert table.post_all.edited_at is None
    assert not PostRevision.objects.exists()


def test_soft_delete(table: Table) -> None:
    with pytest.raises(PermissionDenied):
        services.delete_post(actor=table.player2, post=table.post_all)
    services.delete_post(actor=table.gm, post=table.post_all)
    post = Post.objects.get(pk=table.post_all.pk)
    assert post.deleted_at is not None and post.deleted_by == table.gm
    with pytest.raises(ValidationError):
        services.delete_post(actor=table.gm, post=post)
    with pytest.raises(PermissionDenied):
        services.edit_post(actor=table.player, post=post, body="resucito")


def test_read_marker_only_moves_forward(table: Table) -> None:
    services.mark_scene_read(user=table.player2, scene=table.scene)
    last = table.scene.posts.order_by("-id").first()
    assert last is not None
    mark = SceneReadMark.objects.get(user=table.player2, scene=table.scene)
    assert mark.last_read_post_id == last.pk
    services.mark_scene_read(user=table.player2, scene=table.scene, up_to_post_id=1)
    mark.refresh_from_db()
    assert mark.last_read_post_id == last.pk


def test_authors_own_post_is_read(table: Table) -> None:
    post = services.create_post(author=table.player2, scene=table.scene, body="nuevo")
    assert SceneReadMark.objects.get(user=table.player2, scene=table.scene).last_read_post_id == post.pk
