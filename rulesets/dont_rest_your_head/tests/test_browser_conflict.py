"""A No te Duermas conflict in real browsers: the player opens it, the GM sets the pain and rolls first
(sealed: the player sees no pain die), the player rolls, the GM shades with a despair coin, both pass, the
GM settles, and the spent despair coin lands in the hope chest. Two users, two browser contexts."""

from __future__ import annotations

from typing import Any

import pytest

from rolls import flows
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
    monkeypatch.setattr(flows, "SystemDice", QueuedDice)
    flows_url = f"/scenes/{t.scene.pk}/flows/"

    player = page_for(t.player)
    gm = page_for(t.gm)

    def act(page: Any, form: str, button: str) -> None:
        page.goto(flows_url)
        page.locator(form).get_by_role("button", name=button).click()
        page.wait_for_load_state()

    # The player opens the conflict for Alia.
    player.goto(flows_url)
    player.locator(".dryh-flow-start summary").click()
    player.select_option("select[name=leader]", str(t.alia.pk))
    player.get_by_role("button", name="Abrir el conflicto").click()
    player.wait_for_load_state()
    flow = Flow.objects.get()

    # The GM states the pain and rolls it first: sealed for the player.
    gm.goto(flows_url)
    gm.locator("form.dryh-oppose input[name=pain]").fill("2")
    gm.locator("form.dryh-oppose").get_by_role("button", name="Fijar oposición y dolor").click()
    gm.wait_for_load_state()
    act(gm, "form.dryh-roll-pain", "Tirar el dolor")
    player.goto(flows_url)
    assert player.locator(".dryh-sealed").count() == 1
    assert player.locator(".die.pool-pain").count() == 0

    # The player rolls: the conflict is revealed to both.
    act(player, "form.dryh-roll-leader", "Tirar por Alia")
    player.goto(flows_url)
    assert player.locator(".die.pool-pain").count() == 2
    assert player.locator(".die.pool-discipline").count() == 3

    # The GM shades (adds a 6 to pain) with the only despair coin; then both pass.
    gm.goto(flows_url)
    gm.select_option("form.dryh-shade select[name=kind]", "add6")
    gm.select_option("form.dryh-shade select[name=pool]", "pain")
    gm.locator("form.dryh-shade").get_by_role("button", name="Gastar 1 de desesperación").click()
    gm.wait_for_load_state()
    assert t.chest()["despair"] == 0
    player.goto(flows_url)
    assert "esperanza pendiente: 1" in player.locator(".dryh-outcome").inner_text()
    act(gm, "form.dryh-pass", "Pasar")
    act(player, "form.dryh-pass", "Pasar")

    # The GM settles: pain dominated anyway (+1 despair), the spent coin becomes hope.
    act(gm, "form.dryh-settle", "Resolver y aplicar los efectos")
    flow.refresh_from_db()
    assert flow.status == FlowStatus.SETTLED
    chest = t.chest()
    assert (chest["despair"], chest["hope"]) == (1, 1)
    player.goto(f"/flows/{flow.pk}/")
    assert "1 de desesperación gastada pasa al cofre de esperanza" in player.locator(".dryh-settlement").inner_text()
