"""Notifications in real browsers: a mention autocompletes in the composer, and the header's unread count
rises live when another user whispers to me."""

from __future__ import annotations

from typing import Any

import pytest

from campaigns.models import Visibility
from tests.browser.live_helpers import open_live
from tests.personas import build_table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_mention_autocompletes_from_the_members_who_read_the_scene(live_page_for: Any) -> None:
    table = build_table(Visibility.PUBLIC, prefix="n1_")
    page = open_live(live_page_for(table.player), f"/scenes/{table.scene.pk}/")
    area = page.locator("#composer textarea[name=body]")
    area.click()
    area.type("Hola @n1_pl")
    options = page.locator("#mention-options [role=option]")
    options.first.wait_for()
    assert {options.nth(i).get_attribute("data-username") for i in range(options.count())} == {
        "n1_player",
        "n1_player2",
    }
    area.press("ArrowDown")
    area.press("Enter")
    assert area.input_value() == "Hola @n1_player2 "
    assert page.locator("#mention-options").count() == 0


def test_the_header_count_rises_live_when_someone_whispers_to_me(live_page_for: Any) -> None:
    table = build_table(Visibility.PRIVATE, prefix="n2_")
    from notifications.models import Notification

    Notification.objects.all().delete()  # the table's set-up posts
    scene = f"/scenes/{table.scene.pk}/"
    me = open_live(live_page_for(table.player), scene)
    assert me.locator("#notifications-link .badge").count() == 0
    me.evaluate("window.__notReloaded = true")
    gm = open_live(live_page_for(table.gm), scene)
    gm.select_option("#composer select[name=voice]", "ooc")
    gm.fill("#composer textarea[name=body]", "UN-SUSURRO-PARA-TI")
    gm.check("#composer input[name=recipients][value=whisper]")
    gm.check(f"#composer input[name=whisper_to][value='{table.player.pk}']")
    gm.click("#composer button[type=submit]")
    me.locator("#notifications-link .badge[data-unread='1']").wait_for()
    assert me.evaluate("window.__notReloaded") is True


def test_a_roll_request_is_pre_filled_and_the_answer_closes_it(live_page_for: Any) -> None:
    from notifications.models import RollRequest, RollRequestStatus

    table = build_table(Visibility.PUBLIC, prefix="n3_")
    scene = f"/scenes/{table.scene.pk}/"
    gm = open_live(live_page_for(table.gm), scene)
    gm.select_option("#rr-character", str(table.character.pk))
    gm.fill("#rr-expression", "2d6+1")
    gm.fill("#rr-label", "Trepar")
    gm.click(".roll-request-form button[type=submit]")
    gm.locator("#roll-requests [data-roll-request]").wait_for()
    request = RollRequest.objects.get()
    player = open_live(live_page_for(table.player), scene)
    player.locator(f".roll-request-notice[data-roll-request='{request.pk}']").wait_for()
    assert player.input_value("#composer input[name=roll_expression]") == "2d6+1"
    assert player.input_value("#composer input[name=roll_label]") == "Trepar"
    player.fill("#composer textarea[name=body]", "Trepo por la hiedra.")
    player.click("#composer button[type=submit]")
    player.locator("#posts").get_by_text("Trepo por la hiedra.").wait_for()
    request.refresh_from_db()
    assert request.status == RollRequestStatus.ANSWERED
