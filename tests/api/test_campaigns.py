from __future__ import annotations

from typing import Any

import pytest

from campaigns.models import Campaign, Invitation, JoinRequest, Membership, RequestStatus, Role, Visibility
from tests.api.conftest import ApiFor, assert_error
from tests.personas import Table, make_user

pytestmark = pytest.mark.django_db


def _ids(response: Any) -> list[int]:
    return [item["id"] for item in response.json()["results"]]


# --- Campaigns ------------------------------------------------------------------------------------


def test_list_shows_public_and_my_private(table: Table, private_table: Table, api: ApiFor) -> None:
    public, private = table.campaign.pk, private_table.campaign.pk
    anonymous = api(None).get("/api/campaigns/")
    assert anonymous.status_code == 200
    assert _ids(anonymous) == [public]
    assert anonymous.json()["count"] == 1
    assert set(_ids(api(private_table.player).get("/api/campaigns/"))) == {public, private}
    assert _ids(api(private_table.outsider).get("/api/campaigns/")) == [public]
    mine = api(private_table.player).get("/api/campaigns/?mine=1").json()
    assert [c["id"] for c in mine["results"]] == [private]
    item = mine["results"][0]
    assert item["my_role"] == "player"
    assert item["member_count"] == 4
    assert [gm["username"] for gm in item["gms"]] == ["p_gm"]
    assert "gm_notes" not in item
    assert api(None).get("/api/campaigns/?mine=1").json()["results"] == []


def test_create_campaign(table: Table, api: ApiFor) -> None:
    response = api(table.outsider).post(
        "/api/campaigns/", {"title": "Nueva", "ruleset": "generic", "gm_notes": "mías"}, format="json"
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["my_role"] == "gm"
    assert body["gm_notes"] == "mías"
    campaign = Campaign.objects.get(pk=body["id"])
    assert campaign.memberships.get().user == table.outsider
    assert campaign.scenes.filter(is_offtopic=True).exists()


def test_create_campaign_refusals(table: Table, api: ApiFor) -> None:
    before = Campaign.objects.count()
    assert_error(api(None).post("/api/campaigns/", {"title": "x", "ruleset": "generic"}, format="json"), 401)
    error = assert_error(
        api(table.outsider).post("/api/campaigns/", {"title": "", "ruleset": "chess"}, format="json"),
        400,
        "title",
        "ruleset",
    )
    assert error["code"] == "invalid"
    # The service's own validation also answers per field (whitespace-only titles pass the serializer).
    assert_error(api(table.outsider).post("/api/campaigns/", {"title": " ", "ruleset": "generic"}), 400, "title")
    assert Campaign.objects.count() == before


def test_retrieve_gm_notes_only_for_gms(table: Table, private_table: Table, api: ApiFor) -> None:
    url = f"/api/campaigns/{table.campaign.pk}/"
    assert api(table.gm).get(url).json()["gm_notes"] == "SECRETO-GM"
    for user in (table.player, table.reader, table.outsider, None):
        response = api(user).get(url)
        assert response.status_code == 200
        assert "gm_notes" not in response.json()
        assert "SECRETO-GM" not in response.content.decode()
    private = f"/api/campaigns/{private_table.campaign.pk}/"
    assert_error(api(private_table.outsider).get(private), 404)
    assert_error(api(None).get(private), 404)
    assert_error(api(table.gm).get("/api/campaigns/999999/"), 404)
    assert api(private_table.reader).get(private).status_code == 200


def test_update_campaign(table: Table, private_table: Table, api: ApiFor) -> None:
    url = f"/api/campaigns/{table.campaign.pk}/"
    response = api(table.gm).patch(url, {"title": "Otra", "visibility": Visibility.PRIVATE}, format="json")
    assert response.status_code == 200
    assert response.json()["title"] == "Otra"
    assert_error(api(table.player).patch(url, {"title": "Mía"}, format="json"), 403)
    assert_error(api(table.gm).patch(url, {"status": "lost"}, format="json"), 400, "status")
    assert_error(api(None).patch(url, {"title": "Anon"}, format="json"), 401)
    assert_error(api(private_table.outsider).patch(f"/api/campaigns/{private_table.campaign.pk}/", {"title": "x"}), 404)
    table.campaign.refresh_from_db()
    assert (table.campaign.title, table.campaign.visibility) == ("Otra", Visibility.PRIVATE)
    private_table.campaign.refresh_from_db()
    assert private_table.campaign.title == "La casa de la colina"


# --- Members --------------------------------------------------------------------------------------


def test_members_list_change_role_remove_leave(table: Table, api: ApiFor) -> None:
    base = f"/api/campaigns/{table.campaign.pk}/members/"
    listed = api(table.outsider).get(base).json()
    assert listed["count"] == 4
    assert {m["user"]["username"] for m in listed["results"]} == {"gm", "player", "player2", "reader"}

    assert_error(api(table.player).patch(f"{base}{table.reader.pk}/", {"role": "player"}, format="json"), 403)
    assert_error(api(table.gm).patch(f"{base}{table.reader.pk}/", {"role": "king"}, format="json"), 400, "role")
    assert_error(api(table.gm).patch(f"{base}{table.outsider.pk}/", {"role": "player"}, format="json"), 404)
    assert Membership.objects.get(campaign=table.campaign, user=table.reader).role == Role.READER
    changed = api(table.gm).patch(f"{base}{table.reader.pk}/", {"role": "player"}, format="json")
    assert changed.status_code == 200
    assert changed.json()["role"] == "player"
    # The last GM cannot step down.
    assert_error(api(table.gm).patch(f"{base}{table.gm.pk}/", {"role": "player"}, format="json"), 400, "role")

    assert_error(api(table.player).delete(f"{base}{table.player2.pk}/"), 403)
    assert api(table.gm).delete(f"{base}{table.player2.pk}/").status_code == 204
    assert not Membership.objects.filter(campaign=table.campaign, user=table.player2).exists()

    leave = f"/api/campaigns/{table.campaign.pk}/leave/"
    assert api(table.player).post(leave).status_code == 204
    assert_error(api(table.player).post(leave), 403)
    assert_error(api(table.gm).post(leave), 400)  # the only GM
    assert_error(api(None).post(leave), 401)


def test_members_of_private_campaign_are_hidden(private_table: Table, api: ApiFor) -> None:
    assert_error(api(private_table.outsider).get(f"/api/campaigns/{private_table.campaign.pk}/members/"), 404)


# --- Join requests --------------------------------------------------------------------------------


def test_join_request_flow(table: Table, api: ApiFor) -> None:
    url = f"/api/campaigns/{table.campaign.pk}/join-requests/"
    created = api(table.outsider).post(url, {"role": "player", "message": "¡Hola!"}, format="json")
    assert created.status_code == 201, created.content
    request_id = created.json()["id"]
    assert created.json()["status"] == "pending"
    assert_error(api(table.outsider).post(url, {}, format="json"), 400)  # already pending
    assert_error(api(table.player).post(url, {}, format="json"), 400)  # already a member
    assert_error(api(table.outsider).post(url, {"role": "gm"}, format="json"), 400, "role")

    assert_error(api(table.player).get(url), 403)
    pending = api(table.gm).get(url).json()
    assert [r["id"] for r in pending["results"]] == [request_id]

    assert api(table.outsider).get(f"/api/join-requests/{request_id}/").status_code == 200
    assert_error(api(table.player).get(f"/api/join-requests/{request_id}/"), 404)
    assert_error(api(table.outsider).post(f"/api/join-requests/{request_id}/accept/"), 403)
    assert_error(api(table.player).post(f"/api/join-requests/{request_id}/accept/"), 404)
    accepted = api(table.gm).post(f"/api/join-requests/{request_id}/accept/")
    assert accepted.status_code == 200
    assert accepted.json()["status"] == "accepted"
    assert Membership.objects.get(campaign=table.campaign, user=table.outsider).role == Role.PLAYER
    assert_error(api(table.gm).post(f"/api/join-requests/{request_id}/reject/"), 400)


def test_join_request_reject_and_withdraw(table: Table, api: ApiFor) -> None:
    url = f"/api/campaigns/{table.campaign.pk}/join-requests/"
    first = api(table.outsider).post(url, {"role": "reader"}, format="json").json()["id"]
    assert api(table.gm).post(f"/api/join-requests/{first}/reject/").json()["status"] == "rejected"
    second = api(table.outsider).post(url, {"role": "reader"}, format="json").json()["id"]
    assert_error(api(table.gm).post(f"/api/join-requests/{second}/withdraw/"), 403)
    assert api(table.outsider).post(f"/api/join-requests/{second}/withdraw/").json()["status"] == "withdrawn"
    assert not Membership.objects.filter(campaign=table.campaign, user=table.outsider).exists()


def test_join_private_campaign_is_404(private_table: Table, api: ApiFor) -> None:
    url = f"/api/campaigns/{private_table.campaign.pk}/join-requests/"
    assert_error(api(private_table.outsider).post(url, {}, format="json"), 404)
    assert not JoinRequest.objects.exists()


# --- Invitations ----------------------------------------------------------------------------------


def test_invitation_flow(private_table: Table, api: ApiFor) -> None:
    guest = make_user("guest")
    url = f"/api/campaigns/{private_table.campaign.pk}/invitations/"
    assert_error(api(private_table.player).post(url, {"user": guest.pk}, format="json"), 403)
    assert_error(api(private_table.gm).post(url, {"role": "reader"}, format="json"), 400, "user")
    assert_error(api(private_table.gm).post(url, {"user": 999999}, format="json"), 400, "user")
    assert_error(api(private_table.gm).post(url, {"user": private_table.player.pk}, format="json"), 400, "user")
    assert not Invitation.objects.filter(user=guest).exists()

    created = api(private_table.gm).post(url, {"username": "guest", "role": "reader"}, format="json")
    assert created.status_code == 201, created.content
    invitation_id = created.json()["id"]
    assert [i["id"] for i in api(private_table.gm).get(url).json()["results"]] == [invitation_id]
    assert_error(api(private_table.player).get(url), 403)

    mine = api(guest).get("/api/invitations/").json()
    assert [i["id"] for i in mine["results"]] == [invitation_id]
    assert mine["results"][0]["campaign"]["title"] == "La casa de la colina"
    assert_error(api(private_table.outsider).get(f"/api/invitations/{invitation_id}/"), 404)
    assert_error(api(private_table.outsider).post(f"/api/invitations/{invitation_id}/accept/"), 404)
    assert_error(api(private_table.gm).post(f"/api/invitations/{invitation_id}/accept/"), 403)
    accepted = api(guest).post(f"/api/invitations/{invitation_id}/accept/")
    assert accepted.status_code == 200
    assert accepted.json()["status"] == "accepted"
    assert api(guest).get(f"/api/campaigns/{private_table.campaign.pk}/").status_code == 200


def test_invitation_decline_and_cancel(table: Table, api: ApiFor) -> None:
    url = f"/api/campaigns/{table.campaign.pk}/invitations/"
    first = api(table.gm).post(url, {"user": table.outsider.pk}, format="json").json()["id"]
    assert api(table.outsider).post(f"/api/invitations/{first}/decline/").json()["status"] == "rejected"
    second = api(table.gm).post(url, {"user": table.outsider.pk, "role": "gm"}, format="json").json()["id"]
    assert_error(api(table.outsider).post(f"/api/invitations/{second}/cancel/"), 403)
    assert api(table.gm).post(f"/api/invitations/{second}/cancel/").json()["status"] == "withdrawn"
    assert Invitation.objects.get(pk=second).status == RequestStatus.WITHDRAWN
    assert_error(api(table.outsider).post(f"/api/invitations/{second}/accept/"), 400)
    assert not Membership.objects.filter(campaign=table.campaign, user=table.outsider).exists()
