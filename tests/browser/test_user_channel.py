"""The signed-in user's live channel in a browser: an invitation appears on the invited user's open
dashboard and in the header's badge without a reload (issue 28)."""

from __future__ import annotations

from typing import Any

import pytest

from campaigns import services
from campaigns.models import Role, Visibility
from tests.personas import build_table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_invitation_appears_on_the_open_dashboard_and_badge_without_reload(live_page_for: Any) -> None:
    table = build_table(Visibility.PRIVATE, prefix="u1_")
    page = live_page_for(table.outsider)
    page.goto("/dashboard/")
    page.wait_for_selector("body[data-live-user=connected]", state="attached")
    page.evaluate("window.__notReloaded = true")
    services.invite(actor=table.gm, campaign=table.campaign, user=table.outsider, role=Role.PLAYER)
    page.locator("#dash-mine").get_by_text("1 invitación por responder").wait_for()
    page.locator("#notifications-link .badge.unread").wait_for()
    assert page.evaluate("window.__notReloaded") is True
