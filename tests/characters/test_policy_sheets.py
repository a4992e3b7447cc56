"""The policy matrix extended to sheets: role x campaign visibility x sheets open/closed x PC/NPC x surface
(HTML page, API). The private parts' marker strings never reach someone who may not see them, and reach
everyone who may."""

from __future__ import annotations

import itertools

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from campaigns import policy
from tests.characters.views_fixtures import PRIVATE_MARKERS, PUBLIC_MARKER, SheetTable, client_for

pytestmark = pytest.mark.django_db

ROLES = ("gm", "owner", "other", "reader", "outsider", "anonymous")


def expected(role: str, public: bool, sheets_open: bool, npc: bool) -> tuple[bool, bool]:
    """``(sees the character, sees its private parts)``, written out by hand from the issue."""
    sees_campaign = public or role in ("gm", "owner", "other", "reader")
    if not sees_campaign:
        return False, False
    if role == "gm":
        return True, True
    if role == "owner" and not npc:
        return True, True
    members = ("owner", "other", "reader")
    return True, sheets_open and not npc and role in members


CASES = list(itertools.product(ROLES, (True, False), (True, False), (False, True)))


@pytest.mark.parametrize(("role", "public", "sheets_open", "npc"), CASES)
def test_private_parts_matrix(role: str, public: bool, sheets_open: bool, npc: bool) -> None:
    t = SheetTable(visibility="public" if public else "private", sheets_open=sheets_open)
    character = t.npc if npc else t.pc
    user = t.user(role)
    sees, sees_private = expected(role, public, sheets_open, npc)

    # The policy agrees with the hand-written expectation.
    viewer = policy.viewer_for(user, t.campaign)
    assert policy.may_see_private_parts(viewer, character, sheets_open) is sees_private or not sees

    # HTML page.
    page = client_for(user).get(reverse("characters:detail", args=[character.pk]))
    assert page.status_code == (200 if sees else 404)
    html = page.content.decode()
    if sees:
        assert PUBLIC_MARKER in html
    for marker in PRIVATE_MARKERS:
        assert (marker in html) is sees_private, (marker, role)
    sheet = client_for(user).get(reverse("characters:sheet", args=[character.pk]))
    assert sheet.status_code == (200 if sees_private else 404 if not sees else 403)
    assert (PRIVATE_MARKERS[2] in sheet.content.decode()) is sees_private

    # API: detail and list (each listed character checked on its own).
    api = APIClient()
    if user is not None:
        api.force_authenticate(user)
    detail = api.get(f"/api/characters/{character.pk}/")
    assert detail.status_code == (200 if sees else 404)
    body = detail.content.decode()
    for marker in PRIVATE_MARKERS:
        assert (marker in body) is sees_private, (marker, role)
    if sees:
        assert ("notes" in detail.json()) is sees_private
    listing = api.get(f"/api/campaigns/{t.campaign.pk}/characters/")
    assert listing.status_code == (200 if sees else 404)
    if sees:
        owners = {t.pc.pk: "owner", t.pc2.pk: "other", t.npc.pk: None}
        for item in listing.json()["results"]:
            own = owners[item["id"]]
            # For the second player's PC, "other" is its owner and "owner" is another player.
            as_role = {"owner": "other", "other": "owner"}.get(role, role) if own == "other" else role
            want = expected(as_role, public, sheets_open, own is None)[1]
            assert ("notes" in item) is want, (item["name"], role)
            assert any(m in str(item) for m in PRIVATE_MARKERS) is want

    # The ledger goes with the private parts.
    ledger = api.get(f"/api/characters/{character.pk}/ledger/")
    if user is None:
        assert ledger.status_code == 401
    else:
        assert ledger.status_code == (200 if sees_private else 404 if not sees else 403)


def test_pages_never_leak_markers_to_the_campaign_page() -> None:
    t = SheetTable(sheets_open=False)
    for user in (t.player2, t.reader, t.outsider, None):
        html = client_for(user).get(t.campaign.get_absolute_url()).content.decode()
        assert not any(marker in html for marker in PRIVATE_MARKERS)
