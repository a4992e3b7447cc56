"""A removed player can no longer act: the policy asks for membership on every write path (post edit and
delete, procedure steps, roll windows), in pages and in the API alike."""

from __future__ import annotations

import uuid

import pytest
from django.core.exceptions import PermissionDenied
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import User
from campaigns import policy, services
from campaigns.models import Campaign, Post
from characters.models import LedgerEntry
from rolls.models import Flow, FlowStatus
from rulesets.fate_sotc.tests.scene_fixtures import SotcScene, build_scene, fp, start, step
from tests.personas import Table, make_user

pytestmark = pytest.mark.django_db


def _api(user: User) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def _page(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _remove(table: Table) -> None:
    services.remove_member(actor=table.gm, campaign=table.campaign, user=table.player)


def test_removed_author_cannot_edit_or_delete_old_posts_in_the_api(table: Table) -> None:
    post = table.post_all
    _remove(table)
    url = f"/api/posts/{post.pk}/"
    assert _api(table.player).patch(url, {"body": "reescrito"}, format="json").status_code in (403, 404)
    assert _api(table.player).delete(url).status_code in (403, 404)
    post.refresh_from_db()
    assert post.body_source == "TEXTO-PARA-TODOS" and not post.is_deleted


def test_removed_author_cannot_edit_or_delete_old_posts_in_pages(table: Table) -> None:
    post = table.post_all
    _remove(table)
    client = _page(table.player)
    assert client.post(f"/posts/{post.pk}/edit/", {"body": "reescrito"}).status_code in (403, 404)
    assert client.post(f"/posts/{post.pk}/delete/").status_code in (403, 404)
    post.refresh_from_db()
    assert post.body_source == "TEXTO-PARA-TODOS" and not post.is_deleted


def test_policy_refuses_non_members_everything_an_author_or_owner_could_do(table: Table) -> None:
    post = Post.objects.get(pk=table.post_all.pk)
    _remove(table)
    viewer = policy.viewer_for(table.player, table.campaign)
    assert not viewer.is_member
    assert not policy.may_edit_post(viewer, post)
    assert not policy.may_delete_post(viewer, post)
    assert not policy.may_act_in_flow(viewer, frozenset({table.player.pk}))
    assert not policy.controls_character(viewer, table.character)
    assert not policy.may_open_character_procedure(viewer, table.character)
    assert not policy.may_open_roll_window(viewer, roller_id=table.player.pk, gm_only=False)


@pytest.fixture
def s(db: None) -> SotcScene:
    return build_scene("rm_")


def _compel(s: SotcScene) -> Flow:
    flow = start(s.gm, s.scene, "compel", character=s.t.hero.pk, aspect="Demasiado orgullosa", kind="gm")
    assert flow.waiting_for["steps"][0]["users"] == [s.t.player.pk]
    services.remove_member(actor=s.gm, campaign=s.t.campaign, user=s.t.player)
    return flow


def test_removed_player_cannot_accept_an_open_compel_through_the_api(s: SotcScene) -> None:
    flow = _compel(s)
    response = _api(s.t.player).post(
        f"/api/flows/{flow.pk}/steps/", {"step": "accept", "idempotency_key": uuid.uuid4().hex}, format="json"
    )
    assert response.status_code in (403, 404), response.content
    assert "error" in response.json()
    flow.refresh_from_db()
    assert flow.status != FlowStatus.SETTLED
    assert fp(s.t.hero) == 10
    assert not LedgerEntry.objects.filter(operation="compel_accepted").exists()


def test_removed_player_cannot_take_a_step_through_the_service(s: SotcScene) -> None:
    flow = _compel(s)
    with pytest.raises(PermissionDenied):
        step(s.t.player, flow, "accept")
    assert fp(s.t.hero) == 10


def test_a_removed_member_no_longer_reads_the_private_campaign_through_an_invitation(private_table: Table) -> None:
    """The invitation they once accepted named the campaign: once removed, it no longer shows its title."""
    guest = make_user("huesped")
    invitation = services.invite(actor=private_table.gm, campaign=private_table.campaign, user=guest, role="reader")
    api = APIClient()
    api.force_authenticate(guest)
    assert api.get(f"/api/invitations/{invitation.pk}/").status_code == 200  # pending: they are asked in
    services.respond_to_invitation(user=guest, invitation=invitation, accept=True)
    assert api.get(f"/api/invitations/{invitation.pk}/").status_code == 200  # a member
    services.remove_member(actor=private_table.gm, campaign=private_table.campaign, user=guest)
    Campaign.objects.filter(pk=private_table.campaign.pk).update(title="TITULO-NUEVO-SECRETO")
    response = api.get(f"/api/invitations/{invitation.pk}/")
    assert response.status_code == 404 and "TITULO-NUEVO-SECRETO" not in response.content.decode()
    gm = APIClient()
    gm.force_authenticate(private_table.gm)
    assert gm.get(f"/api/invitations/{invitation.pk}/").status_code == 200
