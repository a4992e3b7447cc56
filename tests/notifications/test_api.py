"""The notifications API: list, count, mark read, mail choices, the private feed's URL, nudges."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import User
from campaigns import services as campaign_services
from campaigns.models import Recipients, Visibility
from notifications.models import CampaignPreference, FeedToken, Kind
from tests.api.conftest import assert_error
from tests.personas import Table

pytestmark = pytest.mark.django_db


def api(user: User | None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


@pytest.fixture
def told(mail_table: Table, run_tasks: Any) -> Table:
    with run_tasks(execute=True):
        campaign_services.create_post(author=mail_table.player2, scene=mail_table.scene, body="uno @player")
        campaign_services.create_post(
            author=mail_table.gm, scene=mail_table.scene, body="SECRETO", recipients=Recipients.WHISPER,
            whisper_to=[mail_table.player2.pk], voice="narrator",
        )  # fmt: skip
    return mail_table


def test_list_shows_my_notifications_in_words(told: Table) -> None:
    body = api(told.player).get("/api/notifications/").json()
    assert [item["kind"] for item in body["results"]] == [Kind.MENTION]
    item = body["results"][0]
    assert item["text"] == "Bruno te menciona en «Llegada»"
    assert item["excerpt"] == "uno @player"
    assert item["read"] is False and item["url"].startswith("/posts/")
    english = api(told.player).get("/api/notifications/", HTTP_ACCEPT_LANGUAGE="en").json()
    assert english["results"][0]["text"] == "Bruno mentions you in “Llegada”"


def test_the_list_never_shows_others_notifications(told: Table) -> None:
    texts = str(api(told.reader).get("/api/notifications/").json())
    assert "SECRETO" not in texts
    assert api(None).get("/api/notifications/").status_code in (401, 403)


def test_mark_read_some_or_all_and_the_count_follows(told: Table) -> None:
    gm = api(told.reader)  # the GM wrote since: writing is reading, the GM's batch is caught up
    assert gm.get("/api/notifications/count/").json() == {"unread": 1}
    mine = [item["id"] for item in gm.get("/api/notifications/").json()["results"]]
    others = [item["id"] for item in api(told.player).get("/api/notifications/").json()["results"]]
    assert gm.post("/api/notifications/read/", {"ids": others}, format="json").json() == {"unread": 1}
    assert gm.post("/api/notifications/read/", {"ids": mine}, format="json").json() == {"unread": 0}
    assert api(told.player).get("/api/notifications/count/").json() == {"unread": 1}
    assert api(told.player).post("/api/notifications/read/", {}, format="json").json() == {"unread": 0}
    assert api(told.player).get("/api/notifications/?unread=true").json()["results"] == []


def test_mark_read_refuses_bad_input_with_the_json_error_shape(told: Table) -> None:
    response = api(told.gm).post("/api/notifications/read/", {"ids": ["x"]}, format="json")
    assert_error(response, 400, "ids")


def test_preferences_list_and_choose(told: Table) -> None:
    client = api(told.player)
    lines = client.get("/api/notifications/preferences/").json()["results"]
    assert lines == [
        {"campaign": {"id": told.campaign.pk, "title": told.campaign.title}, "email": "immediate", "chosen": False}
    ]
    chosen = client.post(
        "/api/notifications/preferences/", {"campaign": told.campaign.pk, "email": "daily"}, format="json"
    )
    assert chosen.status_code == 200 and chosen.json()["email"] == "daily"
    assert CampaignPreference.objects.get(user=told.player).email == "daily"
    assert_error(
        client.post("/api/notifications/preferences/", {"campaign": told.campaign.pk, "email": "x"}, format="json"),
        400,
        "email",
    )


def test_preferences_of_a_hidden_campaign_are_404(told: Table) -> None:
    response = api(told.outsider).post(
        "/api/notifications/preferences/", {"campaign": told.campaign.pk, "email": "off"}, format="json"
    )
    if told.campaign.visibility == Visibility.PRIVATE:
        assert_error(response, 404)
    else:
        assert response.status_code == 200


def test_feed_token_rotation_revokes_the_old_url(told: Table) -> None:
    client = api(told.player)
    old = client.get("/api/notifications/feed/").json()["url"]
    assert APIClient().get(old).status_code == 200
    new = client.post("/api/notifications/feed/").json()["url"]
    assert new != old
    assert APIClient().get(old).status_code == 404
    assert APIClient().get(new).status_code == 200
    assert FeedToken.objects.count() == 1


def test_nudge_is_for_gms_and_tells_who_owes_a_post(told: Table) -> None:
    assert_error(api(told.player).post(f"/api/scenes/{told.scene.pk}/nudge/", {}, format="json"), 403)
    response = api(told.gm).post(f"/api/scenes/{told.scene.pk}/nudge/", {}, format="json")
    assert response.status_code == 200
    # player2 wrote last (before the GM's whisper, which is not theirs): player owes a post.
    assert told.player.pk in response.json()["told"]
    again = api(told.gm).post(f"/api/scenes/{told.scene.pk}/nudge/", {}, format="json").json()
    assert again == {"told": []}
    assert_error(api(told.outsider).post(f"/api/scenes/{told.listed_scene.pk}/nudge/", {}, format="json"), 404)


def test_the_automatic_reminder_is_set_by_gms(told: Table) -> None:
    url = f"/api/campaigns/{told.campaign.pk}/reminder/"
    assert api(told.gm).get(url).json() == {"days": 0}
    assert_error(api(told.player).post(url, {"days": 3}, format="json"), 403)
    assert_error(api(told.gm).post(url, {"days": 99}, format="json"), 400, "days")
    assert api(told.gm).post(url, {"days": 3}, format="json").json() == {"days": 3}
    assert api(told.player).get(url).json() == {"days": 3}
