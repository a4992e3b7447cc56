"""The directory recruits: public campaigns (not one's own) with filters, seats, GMs and last activity; the
join form offers only what the campaign accepts, answers a GET, and never opens on an error."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from campaigns import services
from campaigns.models import CampaignStatus, JoinRequest, Language, Post, Role
from tests.personas import Table


def _login(user: object) -> Client:
    client = Client()
    client.force_login(user)  # type: ignore[arg-type]
    return client


@pytest.fixture
def recruiting(table: Table) -> Table:
    services.update_campaign(
        actor=table.gm,
        campaign=table.campaign,
        status=CampaignStatus.RECRUITING,
        recruiting_message="Buscamos MENSAJE-RECLUTA",
        seats=3,
    )
    return table


def test_the_home_page_lists_my_campaigns_once(table: Table) -> None:
    page = _login(table.player).get("/").content.decode()
    assert page.count(table.campaign.title) == 1  # in "my campaigns", not again in the directory


def test_the_directory_shows_seats_gm_activity_and_message(recruiting: Table) -> None:
    page = _login(recruiting.outsider).get("/").content.decode()
    assert "La casa de la colina" in page
    assert "Plazas: 2 de 3" in page
    assert f"@{recruiting.gm.username}" in page
    assert "último mensaje hace" in page
    assert "MENSAJE-RECLUTA" in page


def test_directory_filters(recruiting: Table) -> None:
    other = services.create_campaign(creator=recruiting.gm, title="OTRA-PARTIDA", ruleset="fate-sotc")
    services.update_campaign(
        actor=recruiting.gm, campaign=other, status=CampaignStatus.ACTIVE, language=Language.ENGLISH
    )
    client = _login(recruiting.outsider)

    def titles(query: str) -> set[str]:
        page = client.get(f"/?{query}").content.decode()
        return {title for title in ("La casa de la colina", "OTRA-PARTIDA") if title in page}

    assert titles("") == {"La casa de la colina", "OTRA-PARTIDA"}
    assert titles("ruleset=presagios") == {"La casa de la colina"}
    assert titles("language=en") == {"OTRA-PARTIDA"}
    assert titles("recruiting=on") == {"La casa de la colina"}
    assert titles("active=7") == {"La casa de la colina"}  # the other has no post at all
    Post.objects.filter(scene__campaign=recruiting.campaign).update(created_at=timezone.now() - timedelta(days=40))
    assert titles("active=30") == set()
    assert titles("active=90") == {"La casa de la colina"}


def test_a_bad_filter_value_is_shown_not_a_500(table: Table) -> None:
    response = Client().get("/?active=nope&ruleset=<script>")
    assert response.status_code == 200
    assert "<script>" not in response.content.decode()


def test_the_directory_query_count_does_not_grow_with_campaigns(table: Table) -> None:
    client = Client()
    client.get("/")
    with CaptureQueriesContext(connection) as few:
        client.get("/")
    for n in range(5):
        services.create_campaign(creator=table.gm, title=f"Más {n}", ruleset="presagios")
    with CaptureQueriesContext(connection) as many:
        client.get("/")
    assert len(many) == len(few) <= 6


def test_join_offers_only_a_readers_place_when_not_recruiting(table: Table) -> None:
    services.update_campaign(actor=table.gm, campaign=table.campaign, status=CampaignStatus.ACTIVE)
    response = _login(table.outsider).get(reverse("campaigns:join", args=[table.campaign.pk]))
    assert response.status_code == 200  # a GET (a reload) answers the form
    html = response.content.decode()
    assert 'value="reader"' in html and 'value="player"' not in html
    assert 'class="error' not in html and "errorlist" not in html


def test_join_as_player_end_to_end_when_recruiting(recruiting: Table) -> None:
    client = _login(recruiting.outsider)
    detail = client.get(recruiting.campaign.get_absolute_url()).content.decode()
    assert 'value="player"' in detail and "MENSAJE-RECLUTA" in detail
    response = client.post(
        reverse("campaigns:join", args=[recruiting.campaign.pk]), {"role": "player", "message": "¡Hola!"}
    )
    assert response.status_code == 302
    join_request = JoinRequest.objects.get(user=recruiting.outsider)
    services.decide_join_request(actor=recruiting.gm, join_request=join_request, accept=True)
    assert recruiting.campaign.memberships.get(user=recruiting.outsider).role == Role.PLAYER


def test_a_full_table_takes_readers_only(recruiting: Table) -> None:
    services.update_campaign(actor=recruiting.gm, campaign=recruiting.campaign, seats=2)
    client = _login(recruiting.outsider)
    form = client.get(reverse("campaigns:join", args=[recruiting.campaign.pk])).content.decode()
    assert 'value="player"' not in form
    response = client.post(reverse("campaigns:join", args=[recruiting.campaign.pk]), {"role": "player"})
    assert response.status_code == 400  # a forged request is refused with the form, not a 500
    assert not JoinRequest.objects.filter(user=recruiting.outsider).exists()


def test_members_are_sent_back_to_the_campaign(table: Table) -> None:
    response = _login(table.player).get(reverse("campaigns:join", args=[table.campaign.pk]))
    assert response.status_code == 302


@pytest.mark.parametrize("seats", [0, 51, -1, "tres", True])
def test_seats_out_of_range_are_refused(table: Table, seats: object) -> None:
    with pytest.raises(services.ValidationError):
        services.update_campaign(actor=table.gm, campaign=table.campaign, seats=seats)


def test_the_api_sets_and_shows_recruiting(table: Table) -> None:
    client = _login(table.gm)
    url = f"/api/campaigns/{table.campaign.pk}/"
    response = client.patch(
        url, {"status": "recruiting", "seats": 4, "recruiting_message": "Ven"}, content_type="application/json"
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["seats"] == 4 and body["recruiting_message"] == "Ven"
    assert client.patch(url, {"seats": 0}, content_type="application/json").status_code == 400


def test_a_bad_filter_drops_only_itself(table: Table) -> None:
    other = services.create_campaign(creator=table.gm, title="OTRA-PARTIDA", ruleset="fate-sotc")
    assert other
    page = Client().get("/?active=nope&ruleset=fate-sotc").content.decode()
    assert "OTRA-PARTIDA" in page and "La casa de la colina" not in page  # the ruleset filter still applies
