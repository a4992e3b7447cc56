"""A No te Duermas conflict in real browsers: the player opens it, the GM sets the pain and rolls first
(sealed: the player sees no pain die), the player rolls, the GM shades with a despair coin, both pass, the
GM settles, and the spent despair coin lands in the hope chest; after a reload the whole conflict is in the
scene's thread, in words. Two users, two browser contexts."""

from __future__ import annotations

from typing import Any

import pytest

from rolls.models import Flow, FlowStatus
from rulesets.dont_rest_your_head.tests.rolls_fixtures import build_dryh_rolls

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


class QueuedDice:
    """The server's dice for this test: the faces each roll will show, in order (shared by every request)."""

    faces: list[int] = []

    def roll(self, sides: int) -> int:
        return self.faces.pop(0)


def test_conflict_from_both_rolls_to_settlement_moves_despair_to_hope(
    page_for: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = build_dryh_rolls()
    t.set_chest(despair=1, hope=0)
    # Pain P[6,3] (rolled first), then Alia D[5,4,2]: 1 vs 1, a win; the GM adds a 6 to pain (vector 61).
    QueuedDice.faces = [6, 3, 5, 4, 2]
    monkeypatch.setattr("rolls.runner.SystemDice", QueuedDice)
    flows_url = f"/scenes/{t.scene.pk}/flows/"

    player = page_for(t.player)
    gm = page_for(t.gm)

    def act(page: Any, step: str, button: str) -> None:
        page.goto(flows_url)
        page.locator(f"form.step-{step}").get_by_role("button", name=button).click()
        page.wait_for_load_state()

    # The player opens the conflict for Alia: no pain dice field for a player.
    player.goto(flows_url)
    player.locator(".dryh-flow-start summary").click()
    assert player.locator("select[name=pain]").count() == 0
    player.select_option("select[name=leader]", str(t.alia.pk))
    player.get_by_role("button", name="Abrir el conflicto").click()
    player.wait_for_load_state()
    flow = Flow.objects.get()

    # The GM states the pain and rolls it first: sealed for the player.
    gm.goto(flows_url)
    gm.select_option("form.step-oppose select[name=pain]", "2")
    gm.locator("form.step-oppose").get_by_role("button", name="Fijar la oposición y los dados de dolor").click()
    gm.wait_for_load_state()
    act(gm, "roll_pain", "Tirar los dados de dolor")
    player.goto(flows_url)
    assert player.locator(".dryh-sealed").count() == 1
    assert player.locator(".die.pool-pain").count() == 0

    # The player rolls: the conflict is revealed to both. With no hope, "Iluminar" is disabled, with the reason.
    act(player, "roll_leader", "Tirar las reservas")
    player.goto(flows_url)
    assert player.locator(".die.pool-pain").count() == 2
    assert player.locator(".flow-step-unavailable.step-hope button").is_disabled()
    assert "El cofre de esperanza está vacío." in player.locator(".flow-step-unavailable.step-hope").inner_text()

    # The GM shades (adds a 6 to pain) with the only despair coin; then both pass.
    gm.goto(flows_url)
    gm.select_option("form.step-shade select[name=kind]", "add6")
    gm.select_option("form.step-shade select[name=pool]", "pain")
    gm.locator("form.step-shade").get_by_role("button", name="Ensombrecer: gastar 1 de desesperación").click()
    gm.wait_for_load_state()
    assert t.chest()["despair"] == 0
    player.goto(flows_url)
    assert "esperanza pendiente: 1" in player.locator(".dryh-outcome").inner_text()
    act(gm, "gm_pass", "Pasar (DJ)")
    act(player, "pass", "Pasar")

    # The GM settles: pain dominated anyway (+1 despair), the spent coin becomes hope.
    act(gm, "settle", "Resolver y aplicar los efectos")
    flow.refresh_from_db()
    assert flow.status == FlowStatus.SETTLED
    chest = t.chest()
    assert (chest["despair"], chest["hope"]) == (1, 1)
    player.goto(f"/scenes/{t.scene.pk}/")
    player.reload()
    thread = player.locator(".post-procedure").inner_text()
    assert "Se revela el dolor: 6, 3." in thread and "El DJ tira 2 dados de dolor: 6, 3." not in thread  # GM-only
    assert "Domina el dolor: el DJ gana 1 moneda de desesperación." in thread
    assert "1 moneda de desesperación gastada pasa al cofre de esperanza." in thread


def test_the_scene_with_the_composer_and_an_open_conflict_fits_a_phone(page_for: Any) -> None:
    """At 390 px nothing is wider than the screen: the roll builder, the open conflict and its steps."""
    t = build_dryh_rolls()
    t.set_chest(despair=1, hope=1)
    t.opposed(3)
    for user in (t.player, t.gm):
        page = page_for(user)
        page.set_viewport_size({"width": 390, "height": 800})
        for url in (f"/scenes/{t.scene.pk}/?builder=1", f"/scenes/{t.scene.pk}/flows/"):
            page.goto(url)
            if "flows" not in url:  # the composer, with the protagonist's roll chosen
                page.select_option("select[name=roll-kind]", "leader")
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= 390, (user.username, url, width)
    gm = page_for(t.gm)
    gm.set_viewport_size({"width": 390, "height": 800})
    for url in (f"/characters/{t.alia.pk}/", f"/campaigns/{t.campaign.pk}/pools/"):  # the GM's sheet and chests
        assert gm.goto(url).status == 200, url
        width = gm.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, (url, width)
