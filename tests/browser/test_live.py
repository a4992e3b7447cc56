"""Live updates in real browsers: each user in a separate context, no reloads."""

from __future__ import annotations

from typing import Any

import pytest

from campaigns.models import Visibility
from tests.browser.live_helpers import open_live
from tests.personas import build_table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _write(page: Any, body: str, whisper_to: int | None = None) -> None:
    page.select_option("#composer select[name=voice]", "ooc")
    page.fill("#composer textarea[name=body]", body)
    if whisper_to is not None:
        page.check("#composer input[name=recipients][value=whisper]")
        page.check(f"#composer input[name=whisper_to][value='{whisper_to}']")
    page.click("#composer button[type=submit]")


def test_a_post_appears_on_the_other_pages_without_reload(live_page_for: Any) -> None:
    table = build_table(Visibility.PUBLIC, prefix="b1_")
    scene = f"/scenes/{table.scene.pk}/"
    gm = open_live(live_page_for(table.gm), scene)
    reader = open_live(live_page_for(table.reader), scene)
    campaign_page = open_live(live_page_for(None), f"/campaigns/{table.campaign.pk}/")
    author = open_live(live_page_for(table.player), scene)
    for page in (gm, reader):
        page.evaluate("window.__notReloaded = true")

    _write(author, "LLEGA-EN-DIRECTO")
    for page in (gm, reader):
        page.locator("#posts").get_by_text("LLEGA-EN-DIRECTO").wait_for()
        assert page.evaluate("window.__notReloaded") is True
    # The campaign page counts the new post in place (an anonymous reader saw 1 post, now 2).
    campaign_page.locator("#scenes").get_by_text("2 mensajes").wait_for()


def test_a_whisper_shows_for_its_recipient_and_never_for_a_third_user(live_page_for: Any) -> None:
    table = build_table(Visibility.PRIVATE, prefix="b2_")
    scene = f"/scenes/{table.scene.pk}/"
    recipient = open_live(live_page_for(table.player), scene)
    third = open_live(live_page_for(table.player2), scene)
    gm = open_live(live_page_for(table.gm), scene)

    _write(gm, "SUSURRO-EN-DIRECTO", whisper_to=table.player.pk)
    recipient.locator("#posts").get_by_text("SUSURRO-EN-DIRECTO").wait_for()
    # A public post afterwards: once the third user sees it, the whisper has had every chance to leak.
    _write(gm, "PUBLICO-DESPUES")
    third.locator("#posts").get_by_text("PUBLICO-DESPUES").wait_for()
    assert "SUSURRO-EN-DIRECTO" not in third.content()
    assert third.locator("#live-status").get_attribute("data-state") == "connected"
