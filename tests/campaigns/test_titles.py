"""A campaign or scene title is one line: line breaks and other control characters are refused by the
form, the API and the service alike (they would reach mail headers and page titles)."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from rest_framework.test import APIClient

from campaigns import services
from tests.api.conftest import assert_error
from tests.personas import PASSWORD, Table

pytestmark = pytest.mark.django_db

BAD_TITLES = ["Noche\r\nBcc: todos@example.org", "Noche\nfría", "Noche\rfría", "Noche\tfría", "Noche\x00", "A\u2028B"]


@pytest.mark.parametrize("title", BAD_TITLES)
def test_the_services_refuse_a_title_of_more_than_one_line(table: Table, title: str) -> None:
    with pytest.raises(ValidationError) as refused:
        services.create_campaign(creator=table.gm, title=title, ruleset="generic")
    assert "title" in refused.value.message_dict
    with pytest.raises(ValidationError):
        services.update_campaign(actor=table.gm, campaign=table.campaign, title=title)
    with pytest.raises(ValidationError):
        services.create_scene(actor=table.gm, campaign=table.campaign, title=title)
    with pytest.raises(ValidationError):
        services.update_scene(actor=table.gm, scene=table.scene, title=title)
    table.campaign.refresh_from_db()
    table.scene.refresh_from_db()
    assert "\n" not in table.campaign.title + table.scene.title


def test_the_api_answers_a_multiline_title_with_a_field_error(table: Table) -> None:
    api = APIClient()
    api.force_authenticate(table.gm)
    bad = "Noche\r\nBcc: todos@example.org"
    error = assert_error(api.post("/api/campaigns/", {"title": bad, "ruleset": "generic"}, format="json"), 400, "title")
    assert "una sola línea" in str(error)
    assert_error(api.patch(f"/api/campaigns/{table.campaign.pk}/", {"title": bad}, format="json"), 400, "title")
    assert_error(api.post(f"/api/campaigns/{table.campaign.pk}/scenes/", {"title": bad}, format="json"), 400, "title")
    assert_error(api.patch(f"/api/scenes/{table.scene.pk}/", {"title": bad}, format="json"), 400, "title")


def test_the_campaign_form_shows_the_error(table: Table) -> None:
    client = Client()
    assert client.login(username=table.gm.username, password=PASSWORD)
    page = client.post("/campaigns/new/", {"title": "Noche\r\nfría", "ruleset": "generic", "language": "es",
                                            "visibility": "public"})  # fmt: skip
    assert page.status_code in (200, 400)
    assert "una sola línea" in page.content.decode()
