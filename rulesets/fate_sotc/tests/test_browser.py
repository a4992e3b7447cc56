"""The SotC invocation window in headless Chromium, GM and player side by side, in Spanish: the player
posts a simple action (skill picked by its name), opens the invocation window on their own roll from the
page (the roll picked by its words), invokes an aspect; the GM approves and closes; after a reload the
whole record is in the thread. At 390 px nothing is wider than the screen."""

from __future__ import annotations

from typing import Any

import pytest

from campaigns.models import Post
from rolls.models import Flow, Roll
from rulesets.fate_sotc.tests.scene_fixtures import build_scene, fp

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def no_sideways_scroll(page: Any) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, width


def test_an_invocation_window_from_the_page_to_the_record_in_the_thread(page_for: Any) -> None:
    s = build_scene(prefix="bsotc_")
    player = page_for(s.t.player)
    player.set_viewport_size({"width": 390, "height": 900})
    player.goto(f"/scenes/{s.scene.pk}/")
    composer = player.locator("#composer")
    composer.locator("[name='body']").fill("Sally salta al ala del avión.")
    composer.locator("details.roll-builder summary").click()  # the builder loads when opened
    composer.locator("[name='roll-kind']").select_option("simple")
    composer.locator("[name='roll-character']").select_option(str(s.t.hero.pk))
    composer.locator("[name='roll-skill']").select_option(label="Atletismo: Grande (+4)")
    composer.locator("[name='roll-difficulty']").fill("3")
    no_sideways_scroll(player)
    composer.get_by_role("button", name="Publicar").click()
    player.locator(".roll .die.pool-fudge").first.wait_for()
    roll = Roll.objects.get(kind="simple")
    assert roll.result["sides"][0]["rating"] == 4
    roll_number = Post.objects.get(rolls=roll).position  # its number in the thread, never its id

    player.goto(f"/scenes/{s.scene.pk}/flows/")
    player.locator(".sotc-start summary").click()
    opening = player.locator("form.sotc-open-invocation")
    opening.locator("[name='roll']").select_option(
        label=f"Sally Slick: Atletismo Grande (+4), mensaje n.º {roll_number}"
    )
    no_sideways_scroll(player)
    opening.get_by_role("button", name="Abrir la ventana").click()
    player.locator(".flow.kind-invocation form.step-invoke").wait_for()
    flow = Flow.objects.get(kind="invocation")
    invoke = player.locator("form.step-invoke")
    invoke.locator("[name='aspect']").select_option(f"character:{s.t.hero.pk}:aspecto-1")
    invoke.get_by_role("button", name="Invocar un aspecto").click()
    player.locator(f"#flow-{flow.pk} .flow-record").get_by_text("pide invocar").wait_for()

    gm = page_for(s.gm)
    gm.goto(f"/scenes/{s.scene.pk}/flows/")
    gm.locator(f"#flow-{flow.pk} form.step-approve").get_by_role("button", name="Aprobar la invocación").click()
    gm.locator(f"#flow-{flow.pk} form.step-close").wait_for()
    gm.locator(f"#flow-{flow.pk} form.step-close").get_by_role("button").click()
    gm.locator(f"#flow-{flow.pk}.status-settled").wait_for()
    assert fp(s.t.hero) == 9

    player.goto(f"/scenes/{s.scene.pk}/")  # a reload: the record is part of the thread
    record = player.locator(".post-procedure .flow-record").last
    record.wait_for()
    text = record.inner_text()
    assert (
        f"Se abre la ventana de invocaciones de Sally Slick: Atletismo Grande (+4), mensaje n.º {roll_number}" in text
    )
    assert "Sally Slick invoca «As del aire de la Gran Guerra» con un punto de destino: +2" in text
    assert "Ventana cerrada. Esfuerzo final" in text and "dificultad Bueno (+3)" in text
    no_sideways_scroll(player)
