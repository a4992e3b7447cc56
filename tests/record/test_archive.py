"""An ended (archived) campaign: every write path refused through the policy (services, pages, API), still
readable, searchable and downloadable; whispers revealed to every member only if the GM chose so."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.core.exceptions import PermissionDenied
from django.test import Client
from rest_framework.test import APIClient

from campaigns import policy, services
from campaigns.models import Campaign, Post, Scene, Voice
from characters import services as character_services
from characters.models import Character
from record.selectors import SearchCriteria, search_posts
from record.services import archive_campaign, reopen_campaign
from rolls.services import RollSpec, create_post_with_rolls
from tests.personas import Table

pytestmark = pytest.mark.django_db


def _fresh(table: Table) -> Campaign:
    return Campaign.objects.get(pk=table.campaign.pk)


def _reloaded(table: Table) -> Table:
    """What a new request reads: the campaign row as it is now, through every object the writes start from."""
    table.campaign = _fresh(table)
    table.scene = Scene.objects.select_related("campaign").get(pk=table.scene.pk)
    table.post_all = Post.objects.select_related("scene__campaign").get(pk=table.post_all.pk)
    table.character = Character.objects.select_related("campaign").get(pk=table.character.pk)
    return table


@pytest.fixture
def ended(table: Table) -> Table:
    archive_campaign(actor=table.gm, campaign=table.campaign)
    return _reloaded(table)


WRITES: dict[str, Callable[[Table], Any]] = {
    "create_post": lambda t: services.create_post(author=t.player, scene=t.scene, body="x", voice=Voice.OOC),
    "gm_post": lambda t: services.create_post(author=t.gm, scene=t.scene, body="x", voice=Voice.OOC),
    "edit_post": lambda t: services.edit_post(actor=t.player, post=t.post_all, body="cambiado"),
    "delete_post": lambda t: services.delete_post(actor=t.gm, post=t.post_all),
    "roll": lambda t: create_post_with_rolls(
        author=t.gm,
        scene=t.scene,
        body="x",
        voice=Voice.OOC,
        rolls=[RollSpec(kind="notation", data={"expression": "1d6"})],
    ),
    "update_campaign": lambda t: services.update_campaign(actor=t.gm, campaign=t.campaign, title="Otra"),
    "create_scene": lambda t: services.create_scene(actor=t.gm, campaign=t.campaign, title="Nueva"),
    "close_scene": lambda t: services.set_scene_status(actor=t.gm, scene=t.scene, status="closed"),
    "aspect": lambda t: services.add_scene_aspect(actor=t.gm, scene=t.scene, text="Niebla"),
    "invite": lambda t: services.invite(actor=t.gm, campaign=t.campaign, user=t.outsider, role="reader"),
    "join": lambda t: services.request_to_join(user=t.outsider, campaign=t.campaign, role="reader"),
    "create_character": lambda t: character_services.create_character(actor=t.player, campaign=t.campaign, name="Z"),
    "edit_character": lambda t: character_services.update_character(actor=t.player, character=t.character, notes="n"),
    "operation": lambda t: character_services.apply_operation(
        actor=t.gm, campaign=t.campaign, operation="set_threat", params={"value": 2}
    ),
}


@pytest.mark.parametrize("write", list(WRITES))
def test_every_write_is_refused_once_ended(ended: Table, write: str) -> None:
    with pytest.raises(PermissionDenied):
        WRITES[write](ended)


@pytest.mark.parametrize("write", ["create_post", "edit_post", "roll", "create_scene", "operation"])
def test_the_same_writes_work_before_the_end_and_after_reopening(table: Table, write: str) -> None:
    archive_campaign(actor=table.gm, campaign=table.campaign)
    reopen_campaign(actor=table.gm, campaign=table.campaign)
    WRITES[write](_reloaded(table))


def test_every_write_question_is_guarded() -> None:
    viewer = policy.Viewer(1, 1, True, "gm", archived=True)
    for name in policy.WRITE_QUESTIONS:
        question = getattr(policy, name)
        assert hasattr(question, "__wrapped__"), name
        assert question(viewer, *([None] * (question.__wrapped__.__code__.co_argcount - 1))) is False, name
    live = policy.Viewer(1, 1, True, "gm")
    assert policy.may_manage_campaign(live) and not policy.may_manage_campaign(viewer)


def test_pages_and_api_refuse_writes_but_read(ended: Table) -> None:
    client = Client()
    client.force_login(ended.player)
    scene_page = client.get(f"/scenes/{ended.scene.pk}/").content.decode()
    assert "TEXTO-PARA-TODOS" in scene_page and "La partida ha terminado" in scene_page
    assert 'name="body"' not in scene_page  # no composer
    assert client.post(f"/scenes/{ended.scene.pk}/posts/", {"body": "x", "voice": "ooc"}).status_code == 403
    assert client.post(f"/posts/{ended.post_all.pk}/edit/", {"body": "x"}).status_code == 403
    api = APIClient()
    api.force_authenticate(ended.gm)
    response = api.post(f"/api/scenes/{ended.scene.pk}/posts/", {"body": "x", "voice": "ooc"}, format="json")
    assert response.status_code == 403 and response.json()["error"]["message"]
    assert api.patch(f"/api/campaigns/{ended.campaign.pk}/", {"title": "x"}, format="json").status_code == 403
    assert api.get(f"/api/scenes/{ended.scene.pk}/posts/").status_code == 200
    # still searchable and downloadable
    hits = search_posts(ended.player, SearchCriteria(text="TEXTO-PARA-TODOS")).hits
    assert ended.post_all.pk in {hit.post.pk for hit in hits}
    assert client.get(f"/campaigns/{ended.campaign.pk}/exportar/archivo.json").status_code == 200


def test_only_gms_end_and_reopen(table: Table) -> None:
    with pytest.raises(PermissionDenied):
        archive_campaign(actor=table.player, campaign=table.campaign)
    api = APIClient()
    api.force_authenticate(table.player)
    assert api.post(f"/api/campaigns/{table.campaign.pk}/archive/").status_code == 403
    api.force_authenticate(table.gm)
    body = api.post(f"/api/campaigns/{table.campaign.pk}/archive/", {"reveal_whispers": True}, format="json").json()
    assert body == {"archived": True, "whispers_revealed": True, "status": "finished"}
    assert api.post(f"/api/campaigns/{table.campaign.pk}/archive/").status_code == 403  # once
    assert api.post(f"/api/campaigns/{table.campaign.pk}/reopen/").json()["archived"] is False


@pytest.mark.parametrize("reveal", [False, True])
def test_whispers_revealed_to_members_only_when_chosen(table: Table, reveal: bool) -> None:
    archive_campaign(actor=table.gm, campaign=table.campaign, reveal_whispers=reveal)
    for role in ["player2", "reader"]:
        user = table.user(role)
        client = Client()
        client.force_login(user)  # type: ignore[arg-type]
        page = client.get(f"/scenes/{table.scene.pk}/").content.decode()
        assert ("TEXTO-SUSURRO" in page) == reveal, role
        assert (search_posts(user, SearchCriteria(text="SUSURRO")).total == 1) == reveal, role
    # never for outsiders, and never a GM-only post
    assert search_posts(table.outsider, SearchCriteria(text="SUSURRO")).total == 0
    assert search_posts(table.reader, SearchCriteria(text="SOLO-MASTERS")).total == 0
    reopen_campaign(actor=table.gm, campaign=table.campaign)
    assert search_posts(table.reader, SearchCriteria(text="SUSURRO")).total == 0


def test_archive_page_flow(table: Table) -> None:
    client = Client()
    client.force_login(table.gm)
    detail = client.get(f"/campaigns/{table.campaign.pk}/").content.decode()
    assert f"/campaigns/{table.campaign.pk}/terminar/" in detail
    assert client.get(f"/campaigns/{table.campaign.pk}/terminar/").status_code == 200
    response = client.post(f"/campaigns/{table.campaign.pk}/terminar/", {"reveal_whispers": "on"})
    assert response.status_code == 302
    campaign = _fresh(table)
    assert campaign.archived_at is not None and campaign.whispers_revealed
    detail = client.get(f"/campaigns/{table.campaign.pk}/").content.decode()
    assert "solo lectura" in detail and f"/campaigns/{table.campaign.pk}/reabrir/" in detail
    assert client.post(f"/campaigns/{table.campaign.pk}/reabrir/").status_code == 302
    assert _fresh(table).archived_at is None
    player = Client()
    player.force_login(table.player)
    assert player.get(f"/campaigns/{table.campaign.pk}/terminar/").status_code == 403
