"""A Presagios challenge in real browsers, GM and player side by side: the GM opens a dangerous challenge
with a secret difficulty, the player rolls, the GM closes the outcome, the player takes the damage; after a
reload the whole record is in the thread (the difficulty only for the GM), and at 390 px nothing scrolls
sideways."""

from __future__ import annotations

from typing import Any

import pytest

from rolls import runner
from rolls.models import Flow, FlowStatus
from rulesets.presagios.tests.rolls_fixtures import build, current, set_sheet, set_threat

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


class QueuedDice:
    """The server's dice for this test: the faces each roll will show, in order."""

    faces: list[int] = []

    def roll(self, sides: int) -> int:
        return self.faces.pop(0)


def _step(page: Any, url: str, step: str, button: str) -> None:
    page.goto(url)
    page.locator(f"form.step-{step}").get_by_role("button", name=button).click()
    page.wait_for_load_state()


def test_a_challenge_played_to_the_end_stays_in_the_thread(page_for: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    t = build("pb_")
    set_threat(t, 5)
    set_sheet(t.lucia, current=[3, 3, 2], overcome=3)
    QueuedDice.faces = [1, 2, 4]
    monkeypatch.setattr(runner, "SystemDice", QueuedDice)
    flows_url = f"/scenes/{t.scene.pk}/flows/"
    gm, player = page_for(t.gm), page_for(t.player)

    gm.goto(flows_url)
    gm.locator(".presagios-flow-start summary").click()
    form = gm.locator("form[action$='/flows/challenge/start/']")
    form.locator("input[name=challenge]").fill("La puerta sellada")
    form.locator("select[name=character_id]").select_option(label="Lucía")
    form.locator("select[name=characteristic]").select_option(label="Acción")
    form.locator("input[name=difficulty]").fill("9")
    form.locator("input[name=dangerous]").check()
    form.get_by_role("button", name="Abrir el reto").click()
    gm.wait_for_load_state()
    flow = Flow.objects.get()

    _step(player, flows_url, "roll", "Tirar")
    _step(gm, flows_url, "finalize", "Cerrar el resultado")
    player.goto(flows_url)
    damage = player.locator("form.step-damage")
    damage.get_by_label("Aceptar el daño").check()
    damage.get_by_role("button", name="Daño: protección de guión o aceptarlo").click()
    player.wait_for_load_state()
    flow.refresh_from_db()
    assert flow.status == FlowStatus.SETTLED and current(t.lucia) == 1

    player.set_viewport_size({"width": 390, "height": 844})
    player.goto(t.scene.get_absolute_url())
    told = player.locator(".post-procedure").inner_text()
    for words in (
        "El director abre un reto para Lucía: Acción «La puerta sellada»",
        "Lucía tira Acción: [☠][2][4] → 4",
        "Resultado 4: Fallo.",
        "Daño físico 2 en Acción: Lucía (3 → 1).",
    ):
        assert words in told, words
    assert "Dificultad secreta" not in told and "difficulty" not in told
    assert player.evaluate("document.documentElement.scrollWidth") <= 390
    english = page_for(t.player, language="en")
    english.goto(t.scene.get_absolute_url())
    told_en = english.locator(".post-procedure").inner_text()
    for words in ("The GM opens a challenge for Lucía: Action", "Result 4: Failure.", "2 physical damage to Action"):
        assert words in told_en, words
    assert "Acción" not in told_en and "Secret difficulty" not in told_en
    gm.set_viewport_size({"width": 390, "height": 844})
    gm.goto(t.scene.get_absolute_url())
    assert "Dificultad secreta: 9." in gm.locator(".post-procedure").inner_text()
    gm.locator(".presagios-flow-start summary").click()
    gm.locator("#composer details.roll-builder summary").click()  # the builder loads when opened
    gm.select_option("select[name=roll-kind]", "conflict")  # the builder's widest roll type
    assert gm.evaluate("document.documentElement.scrollWidth") <= 390
    assert gm.locator(".field-difficulty").is_hidden() and gm.locator(".field-opponent").is_visible()
