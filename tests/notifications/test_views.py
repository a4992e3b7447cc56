"""The inbox page, the header's count, mark read, mail choices, the private feed, the GM's nudge button."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from accounts.models import User
from campaigns import services as campaign_services
from notifications.models import CampaignPreference, Notification
from tests.personas import PASSWORD, Table

pytestmark = pytest.mark.django_db


def client_for(user: User) -> Client:
    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    return client


@pytest.fixture
def posted(mail_table: Table, run_tasks: Any) -> Table:
    for body in ("uno", "dos"):
        with run_tasks(execute=True):
            campaign_services.create_post(author=mail_table.player2, scene=mail_table.scene, body=body)
    return mail_table


def test_the_header_shows_the_unread_count_on_every_page(posted: Table) -> None:
    page = client_for(posted.reader).get("/").content.decode()
    # Every page carries the badge, which fetches its count when the page loads (no query on the page).
    assert 'id="notifications-link"' in page and 'hx-trigger="load, ' in page
    badge = client_for(posted.reader).get("/avisos/contador/").content.decode()
    assert 'data-unread="1"' in badge
    assert "data-unread" not in client_for(posted.player2).get("/avisos/contador/").content.decode()


def test_the_inbox_lists_in_words_and_opening_marks_read(posted: Table) -> None:
    client = client_for(posted.reader)
    page = client.get("/avisos/").content.decode()
    assert "2 mensajes nuevos en «Llegada»" in page
    note = Notification.objects.get(user=posted.reader)
    response = client.post(f"/avisos/{note.pk}/abrir/")
    assert response.status_code == 302 and response["Location"] == f"/scenes/{posted.scene.pk}/"
    note.refresh_from_db()
    assert note.is_read
    # Someone else's notification is not found.
    other = Notification.objects.get(user=posted.gm)
    assert client.post(f"/avisos/{other.pk}/abrir/").status_code == 404


def test_the_inbox_costs_a_constant_number_of_queries(posted: Table, run_tasks: Any) -> None:
    client = client_for(posted.gm)
    client.get("/avisos/")  # the first visit makes the private feed's secret
    with CaptureQueriesContext(connection) as few:
        client.get("/avisos/")
    for i in range(5):
        with run_tasks(execute=True):
            campaign_services.create_post(author=posted.player, scene=posted.offtopic, body=f"@gm {i}")
    with CaptureQueriesContext(connection) as many:
        client.get("/avisos/")
    assert Notification.objects.filter(user=posted.gm).count() > 3
    assert len(many.captured_queries) == len(few.captured_queries)


def test_mark_all_read(posted: Table) -> None:
    client = client_for(posted.gm)
    client.post("/avisos/leidos/")
    assert not Notification.objects.filter(user=posted.gm, read_at__isnull=True).exists()


def test_choose_mail_per_campaign(posted: Table) -> None:
    client = client_for(posted.player)
    client.post(f"/avisos/partidas/{posted.campaign.pk}/correo/", {"email": "daily"})
    assert CampaignPreference.objects.get(user=posted.player).email == "daily"
    response = client.post(f"/avisos/partidas/{posted.campaign.pk}/correo/", {"email": "always"}, follow=True)
    assert "Elige al momento" in response.content.decode()


def test_the_gm_nudges_from_the_dashboard(posted: Table) -> None:
    page = client_for(posted.gm).get("/dashboard/").content.decode()
    assert f"/scenes/{posted.scene.pk}/nudge/" in page
    client_for(posted.gm).post(f"/scenes/{posted.scene.pk}/nudge/", {"user": [posted.player.pk]})
    assert Notification.objects.filter(user=posted.player, kind="nudge").count() == 1
    assert not Notification.objects.filter(user=posted.player2, kind="nudge").exists()
    client_for(posted.player).post(f"/scenes/{posted.scene.pk}/nudge/")
    assert Notification.objects.filter(kind="nudge").count() == 1


def test_mention_suggestions_are_the_members_who_read_the_scene(posted: Table) -> None:
    names = client_for(posted.player).get(f"/scenes/{posted.listed_scene.pk}/mentions/").json()["results"]
    assert {n["username"] for n in names} == {"gm", "player", "Lucía"}
    everyone = client_for(posted.player2).get(f"/scenes/{posted.scene.pk}/mentions/").json()["results"]
    assert {n["username"] for n in everyone} == {"gm", "player", "player2", "reader", "Lucía", "Hugo"}
    assert client_for(posted.player2).get(f"/scenes/{posted.listed_scene.pk}/mentions/").status_code == 404
    page = client_for(posted.player).get(f"/scenes/{posted.scene.pk}/").content.decode()
    assert f'data-mention-source="/scenes/{posted.scene.pk}/mentions/"' in page and "js/mentions.js" in page


def test_reading_the_scene_clears_its_batch_and_the_next_post_starts_a_new_one(posted: Table, run_tasks: Any) -> None:
    from notifications import selectors

    assert selectors.unread_count(posted.reader) == 1
    campaign_services.mark_scene_read(user=posted.reader, scene=posted.scene)
    assert selectors.unread_count(posted.reader) == 0
    assert "data-unread" not in client_for(posted.reader).get("/avisos/contador/").content.decode()
    with run_tasks(execute=True):
        campaign_services.create_post(author=posted.player2, scene=posted.scene, body="tres")
    assert selectors.unread_count(posted.reader) == 1
    fresh = selectors.inbox(posted.reader).filter(selectors.unread_q()).get()
    assert fresh.count == 1
