"""static/js/live.js when access ends (close code 4403) and when the event log no longer goes back far enough."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from accounts.services import issue_token
from campaigns import services
from campaigns.models import CampaignEventLog, Scene, Visibility, Voice
from campaigns.retention import trim_event_log
from tests.browser.live_helpers import open_live
from tests.personas import build_table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_campaign_turned_private_shows_no_access_and_stays_away(live_page_for: Any) -> None:
    table = build_table(Visibility.PUBLIC, prefix="b3_")
    page = open_live(live_page_for(None), f"/campaigns/{table.campaign.pk}/")
    sockets: list[Any] = []
    page.on("websocket", lambda socket: sockets.append(socket))
    # Through the API, so the change commits (and its event leaves) in the server's thread, as in production.
    token = issue_token(user=table.gm).key
    response = page.request.patch(
        f"/api/campaigns/{table.campaign.pk}/",
        data={"visibility": Visibility.PRIVATE},
        headers={"Authorization": f"Token {token}"},
    )
    assert response.ok, response.text()
    page.wait_for_selector("#live-status[data-state=noaccess]", state="visible")
    assert page.locator("#live-status").inner_text() == "Sin acceso"
    # Back to a visible tab, and a while later: still no new socket.
    page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    page.wait_for_timeout(1500)
    assert sockets == []
    assert page.locator("#live-status").get_attribute("data-state") == "noaccess"


def test_a_resync_past_the_log_reloads_the_regions(live_page_for: Any) -> None:
    table = build_table(Visibility.PUBLIC, prefix="b4_")
    CampaignEventLog.objects.filter(campaign=table.campaign).update(created_at=timezone.now() - timedelta(days=60))
    services.create_post(author=table.gm, scene=table.offtopic, body="reciente", voice=Voice.OOC)  # kept
    assert trim_event_log(timezone.now()) > 0
    page = live_page_for(table.player)

    def on_resync(route: Any) -> None:
        # A change no event announced, made while the page catches up: only reloading the region shows it.
        Scene.objects.filter(pk=table.scene.pk).update(title="TITULO-RECARGADO")
        route.continue_()

    page.route(lambda url: "/events/" in url, on_resync)
    # The page says it was rendered 40 days ago: its first resync asks for events the log no longer has.
    old = int((timezone.now() - timedelta(days=40)).timestamp())
    page.add_init_script(
        "new MutationObserver(function () {"
        "  document.querySelectorAll('[data-live-since]').forEach(function (el) {"
        f"    if (el.getAttribute('data-live-since') !== '{old}') el.setAttribute('data-live-since', '{old}');"
        "  });"
        "}).observe(document, {subtree: true, childList: true, attributes: true});"
    )
    open_live(page, f"/campaigns/{table.campaign.pk}/")
    page.locator("#scenes").get_by_text("TITULO-RECARGADO").wait_for()
