"""Browser surface: home, campaign create/edit/front page, joining, leaving and the GM's table tools."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from campaigns.models import Campaign, Invitation, JoinRequest, Membership, RequestStatus, Role, Visibility
from tests.campaigns.web_helpers import Table, add_member, client_for, make_campaign, make_scene, make_user

pytestmark = pytest.mark.django_db

CAMPAIGN_DATA = {
    "title": "Noches de Madrid",
    "introduction": "Una ciudad que *no duerme*.",
    "synopsis": "Los personajes despiertan.",
    "gm_notes": "El portero es el Hombre Cerilla.",
    "ruleset": "dont-rest-your-head",
    "language": "es",
    "visibility": "public",
    "status": "recruiting",
}


def detail_url(campaign: Campaign) -> str:
    return f"/campaigns/{campaign.pk}/"


# --- Home -----------------------------------------------------------------------------------------


def test_home_anonymous_lists_public_campaigns_only() -> None:
    gm = make_user("gm")
    make_campaign(gm, "Pública")
    make_campaign(gm, "Secreta", visibility=Visibility.PRIVATE)
    html = Client().get("/").content.decode()
    assert "Pública" in html
    assert "Secreta" not in html
    assert "/campaigns/new/" not in html


def test_home_member_sees_mine_with_role_and_invitations() -> None:
    t = Table()
    secret = make_campaign(t.gm, "Secreta", visibility=Visibility.PRIVATE)
    Invitation.objects.create(campaign=secret, user=t.player, role=Role.READER, invited_by=t.gm)
    html = client_for(t.player).get("/").content.decode()
    assert "Mis partidas" in html
    assert "role-player" in html
    assert "Jugador" in html
    assert "Te han invitado" in html
    assert "Secreta" in html  # in the invitation, although private
    assert "/campaigns/new/" in html


def _home_queries(client: Client) -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert client.get("/").status_code == 200
    return len(ctx.captured_queries)


def test_home_query_count_does_not_grow_with_campaigns() -> None:
    gm = make_user("gm")
    other = make_user("other")
    for i in range(3):
        c = make_campaign(gm, f"C{i}")
        add_member(c, other, Role.PLAYER)
    client = client_for(other)
    few = _home_queries(client)
    for i in range(3, 30):
        c = make_campaign(gm, f"C{i}")
        add_member(c, other, Role.PLAYER)
    assert _home_queries(client) == few
    assert _home_queries(Client()) <= few


# --- Create and edit ------------------------------------------------------------------------------


def test_create_campaign_get_and_post() -> None:
    user = make_user("ana")
    client = client_for(user)
    assert client.get("/campaigns/new/").status_code == 200
    response = client.post("/campaigns/new/", CAMPAIGN_DATA)
    campaign = Campaign.objects.get(title="Noches de Madrid")
    assert response.status_code == 302
    assert response["Location"] == detail_url(campaign)
    assert Membership.objects.get(campaign=campaign, user=user).role == Role.GM
    assert campaign.gm_notes == CAMPAIGN_DATA["gm_notes"]


def test_create_campaign_invalid_shows_errors_and_creates_nothing() -> None:
    response = client_for(make_user("ana")).post("/campaigns/new/", {**CAMPAIGN_DATA, "title": "", "ruleset": "x"})
    assert response.status_code == 200
    form = response.context["form"]
    assert form.errors["title"]
    assert form.errors["ruleset"]
    assert not Campaign.objects.exists()


def test_create_campaign_needs_login() -> None:
    response = Client().post("/campaigns/new/", CAMPAIGN_DATA)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")
    assert not Campaign.objects.exists()


def test_edit_campaign_by_gm() -> None:
    t = Table()
    client = client_for(t.gm)
    page = client.get(f"/campaigns/{t.campaign.pk}/edit/")
    assert page.status_code == 200
    assert page.context["form"].initial["title"] == "La Sombra"
    response = client.post(f"/campaigns/{t.campaign.pk}/edit/", {**CAMPAIGN_DATA, "ruleset": "generic"})
    assert response.status_code == 302
    t.campaign.refresh_from_db()
    assert t.campaign.title == "Noches de Madrid"


def test_edit_campaign_service_error_goes_on_the_field() -> None:
    t = Table()  # it has a character: the ruleset cannot change
    response = client_for(t.gm).post(f"/campaigns/{t.campaign.pk}/edit/", CAMPAIGN_DATA)
    assert response.status_code == 200
    assert "No se puede cambiar el sistema" in str(response.context["form"].errors["ruleset"])
    t.campaign.refresh_from_db()
    assert t.campaign.title == "La Sombra"


@pytest.mark.parametrize("who", ["player", "reader", "outsider"])
def test_edit_campaign_refused_to_non_gms(who: str) -> None:
    t = Table()
    client = client_for(getattr(t, who))
    assert client.get(f"/campaigns/{t.campaign.pk}/edit/").status_code == 403
    response = client.post(f"/campaigns/{t.campaign.pk}/edit/", {**CAMPAIGN_DATA, "ruleset": "generic"})
    assert response.status_code == 403
    assert "No tienes permiso" in response.content.decode()
    t.campaign.refresh_from_db()
    assert t.campaign.title == "La Sombra"


def test_edit_private_campaign_is_404_for_outsider() -> None:
    t = Table(visibility=Visibility.PRIVATE)
    assert client_for(t.outsider).get(f"/campaigns/{t.campaign.pk}/edit/").status_code == 404


# --- Front page -----------------------------------------------------------------------------------


def test_front_page_for_gm_shows_notes_and_tools() -> None:
    t = Table()
    t.campaign.gm_notes = "Secreto del máster"
    t.campaign.introduction = "Bienvenidos a **la sombra**"
    t.campaign.save()
    JoinRequest.objects.create(campaign=t.campaign, user=t.outsider, message="¡Déjame jugar!")
    html = client_for(t.gm).get(detail_url(t.campaign)).content.decode()
    assert "Secreto del máster" in html
    assert "<strong>la sombra</strong>" in html
    assert "¡Déjame jugar!" in html
    assert f"/campaigns/{t.campaign.pk}/invite/" in html
    assert f"/campaigns/{t.campaign.pk}/members/{t.player.pk}/remove/" in html
    assert "Alba" in html  # characters
    assert "Nueva escena" in html


def test_front_page_for_player_hides_gm_notes_and_tools() -> None:
    t = Table()
    t.campaign.gm_notes = "Secreto del máster"
    t.campaign.save()
    html = client_for(t.player).get(detail_url(t.campaign)).content.decode()
    assert "Secreto del máster" not in html
    assert "/invite/" not in html
    assert "/remove/" not in html
    assert f"/campaigns/{t.campaign.pk}/leave/" in html
    assert "La Máster" in html and "Jugadora Uno" in html and "El Lector" in html


def test_front_page_outsider_sees_join_form_and_anonymous_a_login_link() -> None:
    t = Table()
    html = client_for(t.outsider).get(detail_url(t.campaign)).content.decode()
    assert f"/campaigns/{t.campaign.pk}/join/" in html
    assert "/leave/" not in html
    anon = Client().get(detail_url(t.campaign)).content.decode()
    assert "/accounts/login/?next=" in anon
    assert "/join/" not in anon


def test_front_page_private_campaign_is_404_for_outsiders() -> None:
    t = Table(visibility=Visibility.PRIVATE)
    assert client_for(t.outsider).get(detail_url(t.campaign)).status_code == 404
    response = Client().get(detail_url(t.campaign))
    assert response.status_code == 404
    assert "no existe" in response.content.decode()
    assert client_for(t.reader).get(detail_url(t.campaign)).status_code == 200


def test_front_page_hides_listed_scene_from_unlisted_and_shows_unread() -> None:
    t = Table()
    secret = make_scene(t.campaign, t.gm, "Solo la máster", access="listed")
    t.post(author=t.gm, body="Para todos", voice="narrator")
    html = client_for(t.player).get(detail_url(t.campaign)).content.decode()
    assert "Solo la máster" not in html
    assert "1 nuevo" in html
    assert f"/scenes/{t.scene.pk}/unread/" in html
    assert "Primer mensaje sin leer" in html
    assert "Solo la máster" in client_for(t.gm).get(detail_url(t.campaign)).content.decode()
    assert secret.pk


def _detail_queries(client: Client, campaign: Campaign) -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(detail_url(campaign)).status_code == 200
    return len(ctx.captured_queries)


def test_front_page_query_count_does_not_grow_with_scenes_and_members() -> None:
    t = Table()
    JoinRequest.objects.create(campaign=t.campaign, user=t.outsider)
    client = client_for(t.gm)
    player_client = client_for(t.player)
    few, few_player = _detail_queries(client, t.campaign), _detail_queries(player_client, t.campaign)
    for i in range(27):
        make_scene(t.campaign, t.gm, f"Escena {i}")
        add_member(t.campaign, make_user(f"extra{i}"), Role.PLAYER)
        JoinRequest.objects.create(campaign=t.campaign, user=make_user(f"asks{i}"))
    assert _detail_queries(client, t.campaign) == few
    assert _detail_queries(player_client, t.campaign) == few_player


# --- Joining and leaving --------------------------------------------------------------------------


def test_join_request_and_withdraw() -> None:
    t = Table()
    client = client_for(t.outsider)
    response = client.post(f"/campaigns/{t.campaign.pk}/join/", {"role": "player", "message": "Hola"})
    assert response.status_code == 302
    request = JoinRequest.objects.get(user=t.outsider)
    assert request.status == RequestStatus.PENDING
    html = client.get(detail_url(t.campaign)).content.decode()
    assert "Retirar la solicitud" in html
    response = client.post(f"/campaigns/{t.campaign.pk}/requests/{request.pk}/withdraw/")
    assert response.status_code == 302
    request.refresh_from_db()
    assert request.status == RequestStatus.WITHDRAWN


def test_join_request_invalid_shows_error() -> None:
    t = Table()
    t.campaign.status = "active"
    t.campaign.save()
    response = client_for(t.outsider).post(f"/campaigns/{t.campaign.pk}/join/", {"role": "player"})
    assert response.status_code == 400
    assert "no busca jugadores" in str(response.context["form"].errors["role"])
    assert not JoinRequest.objects.exists()


def test_join_refused_to_member_and_anonymous() -> None:
    t = Table()
    response = client_for(t.player).post(f"/campaigns/{t.campaign.pk}/join/", {"role": "player"})
    assert response.status_code == 302 and response["Location"] == t.campaign.get_absolute_url()
    anon = Client().post(f"/campaigns/{t.campaign.pk}/join/", {"role": "player"})
    assert anon.status_code == 302 and anon["Location"].startswith("/accounts/login/")
    assert not JoinRequest.objects.exists()


def test_join_private_campaign_is_404() -> None:
    t = Table(visibility=Visibility.PRIVATE)
    assert client_for(t.outsider).post(f"/campaigns/{t.campaign.pk}/join/", {"role": "player"}).status_code == 404


def test_leave_campaign() -> None:
    t = Table()
    response = client_for(t.reader).post(f"/campaigns/{t.campaign.pk}/leave/")
    assert response.status_code == 302
    assert not Membership.objects.filter(user=t.reader).exists()


def test_last_gm_cannot_leave() -> None:
    t = Table()
    response = client_for(t.gm).post(f"/campaigns/{t.campaign.pk}/leave/", follow=True)
    assert "sin máster" in response.content.decode()
    assert Membership.objects.filter(user=t.gm, role=Role.GM).exists()


def test_leave_refused_to_non_member() -> None:
    t = Table()
    assert client_for(t.outsider).post(f"/campaigns/{t.campaign.pk}/leave/").status_code == 403


# --- GM table tools -------------------------------------------------------------------------------


@pytest.mark.parametrize("decision, status", [("accept", RequestStatus.ACCEPTED), ("reject", RequestStatus.REJECTED)])
def test_gm_decides_join_request(decision: str, status: str) -> None:
    t = Table()
    request = JoinRequest.objects.create(campaign=t.campaign, user=t.outsider, role=Role.READER)
    response = client_for(t.gm).post(
        f"/campaigns/{t.campaign.pk}/requests/{request.pk}/decide/", {"decision": decision}
    )
    assert response.status_code == 302
    request.refresh_from_db()
    assert request.status == status
    assert Membership.objects.filter(user=t.outsider).exists() == (decision == "accept")


def test_player_cannot_decide_join_request() -> None:
    t = Table()
    request = JoinRequest.objects.create(campaign=t.campaign, user=t.outsider)
    url = f"/campaigns/{t.campaign.pk}/requests/{request.pk}/decide/"
    assert client_for(t.player).post(url, {"decision": "accept"}).status_code == 403
    request.refresh_from_db()
    assert request.status == RequestStatus.PENDING


def test_gm_invites_by_username_and_user_accepts() -> None:
    t = Table()
    response = client_for(t.gm).post(f"/campaigns/{t.campaign.pk}/invite/", {"username": "fuera", "role": "gm"})
    assert response.status_code == 302
    invitation = Invitation.objects.get(user=t.outsider)
    assert invitation.role == Role.GM
    client = client_for(t.outsider)
    assert "Te han invitado" in client.get("/").content.decode()
    response = client.post(f"/invitations/{invitation.pk}/respond/", {"decision": "accept"})
    assert response.status_code == 302
    assert Membership.objects.get(user=t.outsider, campaign=t.campaign).role == Role.GM


def test_user_declines_invitation_and_others_cannot_answer_it() -> None:
    t = Table()
    invitation = Invitation.objects.create(campaign=t.campaign, user=t.outsider, role=Role.PLAYER, invited_by=t.gm)
    assert (
        client_for(t.player).post(f"/invitations/{invitation.pk}/respond/", {"decision": "accept"}).status_code == 404
    )
    client_for(t.outsider).post(f"/invitations/{invitation.pk}/respond/", {"decision": "decline"})
    invitation.refresh_from_db()
    assert invitation.status == RequestStatus.REJECTED
    assert not Membership.objects.filter(user=t.outsider).exists()


def test_invite_errors_show_on_the_username_field() -> None:
    t = Table()
    client = client_for(t.gm)
    unknown = client.post(f"/campaigns/{t.campaign.pk}/invite/", {"username": "nadie", "role": "player"})
    assert unknown.status_code == 400
    assert "nadie" in str(unknown.context["form"].errors["username"])
    member = client.post(f"/campaigns/{t.campaign.pk}/invite/", {"username": "jugadora", "role": "player"})
    assert "Ya es miembro" in str(member.context["form"].errors["username"])
    assert not Invitation.objects.exists()


def test_invite_refused_to_player() -> None:
    t = Table()
    response = client_for(t.player).post(f"/campaigns/{t.campaign.pk}/invite/", {"username": "fuera", "role": "gm"})
    assert response.status_code == 403
    assert not Invitation.objects.exists()


def test_gm_cancels_invitation() -> None:
    t = Table()
    invitation = Invitation.objects.create(campaign=t.campaign, user=t.outsider, role=Role.PLAYER, invited_by=t.gm)
    url = f"/campaigns/{t.campaign.pk}/invitations/{invitation.pk}/cancel/"
    assert client_for(t.player).post(url).status_code == 403
    assert client_for(t.gm).post(url).status_code == 302
    invitation.refresh_from_db()
    assert invitation.status == RequestStatus.WITHDRAWN


def test_gm_changes_role_and_removes_member() -> None:
    t = Table()
    client = client_for(t.gm)
    response = client.post(f"/campaigns/{t.campaign.pk}/members/{t.reader.pk}/role/", {"role": "player"})
    assert response.status_code == 302
    assert Membership.objects.get(user=t.reader).role == Role.PLAYER
    response = client.post(f"/campaigns/{t.campaign.pk}/members/{t.reader.pk}/remove/")
    assert response.status_code == 302
    assert not Membership.objects.filter(user=t.reader).exists()


def test_role_change_errors_change_nothing() -> None:
    t = Table()
    client = client_for(t.gm)
    bad = client.post(f"/campaigns/{t.campaign.pk}/members/{t.reader.pk}/role/", {"role": "king"}, follow=True)
    assert "Elige un papel válido" in bad.content.decode()
    last_gm = client.post(f"/campaigns/{t.campaign.pk}/members/{t.gm.pk}/role/", {"role": "player"}, follow=True)
    assert "sin máster" in last_gm.content.decode()
    assert Membership.objects.get(user=t.gm).role == Role.GM
    assert Membership.objects.get(user=t.reader).role == Role.READER
    assert client.post(f"/campaigns/{t.campaign.pk}/members/{t.outsider.pk}/remove/").status_code == 404


def test_member_tools_refused_to_players() -> None:
    t = Table()
    client = client_for(t.player)
    assert client.post(f"/campaigns/{t.campaign.pk}/members/{t.reader.pk}/remove/").status_code == 403
    assert client.post(f"/campaigns/{t.campaign.pk}/members/{t.reader.pk}/role/", {"role": "gm"}).status_code == 403
    assert Membership.objects.get(user=t.reader).role == Role.READER
