"""The demo `make run` loads: one campaign per ruleset, idempotent, and every page of it renders."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client, override_settings

from accounts.models import User
from campaigns.demo import CAMPAIGNS, load_demo
from campaigns.models import Campaign, Post, Recipients
from characters.models import Character, CharacterStatus
from tests.rulesets.shipped import SHIPPED_GAMES as RULESET_KEYS

pytestmark = pytest.mark.django_db


def test_demo_has_every_ruleset_and_loads_once() -> None:
    created = load_demo()
    assert {c.ruleset for c in created} == set(RULESET_KEYS)
    counts = (Campaign.objects.count(), Post.objects.count(), Character.objects.count(), User.objects.count())
    assert load_demo() == []
    assert (Campaign.objects.count(), Post.objects.count(), Character.objects.count(), User.objects.count()) == counts
    assert len(CAMPAIGNS) == len(RULESET_KEYS)
    assert Post.objects.filter(recipients=Recipients.WHISPER).count() >= len(RULESET_KEYS)
    assert Post.objects.filter(recipients=Recipients.GMS).count() >= len(RULESET_KEYS)
    assert Post.objects.exclude(notes_source="").exists()
    # Every demo character went through its ruleset's creation rules and the GM's approval.
    assert set(Character.objects.values_list("status", flat=True)) == {CharacterStatus.APPROVED}


@pytest.mark.parametrize("username", ["directora", "ana", "lector"])
def test_every_demo_page_renders(username: str) -> None:
    load_demo()
    client = Client()
    client.force_login(User.objects.get(username=username))
    urls = ["/", "/novedades/"]
    if username == "directora":
        urls.append("/dashboard/")
    for campaign in Campaign.objects.all():
        urls += [f"/campaigns/{campaign.pk}/", f"/campaigns/{campaign.pk}/characters/"]
        urls += [f"/scenes/{scene.pk}/" for scene in campaign.scenes.all()]
        urls += [f"/characters/{character.pk}/" for character in campaign.characters.all()]
    for url in urls:
        response = client.get(url)
        assert response.status_code in (200, 404), (url, response.status_code)


def test_demo_users_have_confirmed_example_addresses_so_mail_can_be_tried(
    django_capture_on_commit_callbacks: Any,
) -> None:
    from django.core import mail

    from accounts.recovery import request_password_reset
    from campaigns.demo import DEMO_USERS

    load_demo()
    users = User.objects.filter(username__in=DEMO_USERS)
    assert {(u.username, u.email, u.email_verified) for u in users} == {
        (name, f"{name}@example.org", True) for name in DEMO_USERS
    }
    with django_capture_on_commit_callbacks(execute=True):
        request_password_reset(None, "ana@example.org")
    assert [m.to for m in mail.outbox] == [["ana@example.org"]]


def test_a_demo_loaded_before_addresses_gets_them() -> None:
    load_demo()
    User.objects.filter(username="ana").update(email="", email_verified_at=None)
    load_demo()
    assert User.objects.get(username="ana").email_verified


def test_every_demo_campaign_has_rolls_in_its_chain_and_a_finished_procedure() -> None:
    """Issues 24 and 28: the demo's roll logs were empty, and no procedure showed in any thread."""
    from record.models import RollLink
    from rolls.models import Flow, FlowStatus

    load_demo()
    for campaign in Campaign.objects.all():
        assert RollLink.objects.filter(campaign=campaign).exists(), campaign.title
        if campaign.ruleset == "generic":  # a ruleset without procedures: its rolls are dice notation
            continue
        settled = Flow.objects.filter(campaign=campaign, status=FlowStatus.SETTLED)
        assert settled.exists(), campaign.title
        assert all(flow.record_id is not None for flow in settled)


def test_demo_characters_are_distinct_people() -> None:
    """Issue 28: the SotC pair shared 9 of 10 aspects (so GM pickers listed each twice), Presagios' traits."""
    load_demo()
    for campaign in Campaign.objects.all():
        first, second = campaign.characters.order_by("pk")[:2]
        for part in ("aspects", "traits", "skills", "stunts"):
            ours, theirs = first.sheet.get(part), second.sheet.get(part)
            if ours and part in ("aspects", "traits", "stunts"):
                texts = {str(item.get("text") or item.get("name")) for item in ours}
                others = {str(item.get("text") or item.get("name")) for item in theirs}
                assert not texts & others, (campaign.title, part, texts & others)


@override_settings(LIMIT_POSTS=1, LIMIT_INVITATIONS=1)
def test_the_demo_loads_under_the_sites_write_limits() -> None:
    """`make run` loads the demo with the real limits: its scripted posts are counted against no one."""
    assert load_demo()
