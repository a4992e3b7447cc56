"""PATCH /api/campaigns/<id>/ with rules_settings applies them, validated by the ruleset's settings model:
Event's optional rules can be turned on through the API; a wrong or unknown rule is a 400 naming it."""

from __future__ import annotations

import pytest

from campaigns import services
from campaigns.models import Campaign
from tests.api.conftest import ApiFor, assert_error
from tests.personas import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def event_campaign() -> Campaign:
    return services.create_campaign(creator=make_user("gm_event"), title="Evento", ruleset="event")


def test_patch_turns_on_an_event_optional_rule_and_keeps_the_others(event_campaign: Campaign, api: ApiFor) -> None:
    gm = event_campaign.created_by
    url = f"/api/campaigns/{event_campaign.pk}/"
    first = api(gm).patch(url, {"rules_settings": {"optional": {"wild_die": {"enabled": True}}}}, format="json")
    assert first.status_code == 200, first.content
    assert first.json()["rules_settings"]["optional"]["wild_die"]["enabled"] is True
    second = api(gm).patch(url, {"rules_settings": {"optional": {"talent": {"enabled": True}}}}, format="json")
    optional = second.json()["rules_settings"]["optional"]
    assert optional["talent"]["enabled"] is True and optional["wild_die"]["enabled"] is True
    event_campaign.refresh_from_db()
    assert event_campaign.rules_settings["optional"]["wild_die"]["enabled"] is True


@pytest.mark.parametrize(
    "settings",
    [
        {"optional": {"wild_die": {"enabled": "quizá"}}},
        {"optional": {"no_such_rule": {"enabled": True}}},
        {"core": {"veto_window_hours": -5, "nonsense": 1}},
        ["not", "an", "object"],
    ],
)
def test_wrong_or_unknown_settings_are_a_400_that_changes_nothing(
    event_campaign: Campaign, api: ApiFor, settings: object
) -> None:
    before = Campaign.objects.get(pk=event_campaign.pk).rules_settings
    response = api(event_campaign.created_by).patch(
        f"/api/campaigns/{event_campaign.pk}/", {"rules_settings": settings}, format="json"
    )
    assert_error(response, 400, "rules_settings")
    assert Campaign.objects.get(pk=event_campaign.pk).rules_settings == before


def test_only_gms_change_settings(event_campaign: Campaign, api: ApiFor) -> None:
    player = make_user("jugador_event")
    response = api(player).patch(
        f"/api/campaigns/{event_campaign.pk}/", {"rules_settings": {"optional": {}}}, format="json"
    )
    assert response.status_code in (403, 404)


def test_create_with_settings(api: ApiFor) -> None:
    response = api(make_user("creadora")).post(
        "/api/campaigns/",
        {"title": "Con reglas", "ruleset": "event", "rules_settings": {"optional": {"reactions": {"enabled": True}}}},
        format="json",
    )
    assert response.status_code == 201, response.content
    assert response.json()["rules_settings"]["optional"]["reactions"]["enabled"] is True
