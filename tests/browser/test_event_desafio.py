"""An Event desafío in two players' browsers: each commits a sealed split; before both have committed
neither page (nor the GM's) shows any split, only who has committed; then the reveal shows both.

The scene's open flows are served by ``/scenes/<id>/flows/`` (the fragment the thread loads); the test
drives that fragment directly, submitting its forms as a browser without htmx does (post, redirect).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_two_players_commit_sealed_splits_then_the_reveal(page_for: Callable[..., Any]) -> None:
    from rolls import runner
    from rolls.models import Flow
    from rulesets.event.tests.roll_fixtures import build_event_roll_table

    t = build_event_roll_table(prefix="br_")
    flow = runner.start_procedure(
        actor=t.gm,
        scene=t.scene,
        kind="desafio",
        params={
            "ability": "Destreza",
            "participants": [{"character": t.valy.pk, "skill": "Carterista"}, {"character": t.gorton.pk}],
        },
    )
    fragment = f"/scenes/{t.scene.pk}/flows/"
    jenny, paco, gm = page_for(t.jenny), page_for(t.paco), page_for(t.gm)

    def flow_box(page: Any) -> Any:
        page.goto(fragment)
        return page.locator(f"#flow-{flow.pk}")

    def commit(page: Any, left: int, right: int) -> None:
        box = flow_box(page)
        form = box.locator("form.step-commit")
        form.locator("input[name=left]").fill(str(left))
        form.locator("input[name=right]").fill(str(right))
        form.locator("button[type=submit]").click()
        page.wait_for_load_state()

    commit(jenny, 2, 1)  # Valy: Carterista+ = 3 dice
    for page in (jenny, paco, gm):
        box = flow_box(page)
        text = box.inner_text()
        assert "Sellado ✓" in text and "Pendiente" in text
        assert box.locator(".fist-left").count() == 0 and box.locator(".fist-right").count() == 0
        html = box.inner_html()
        assert '"left": 2' not in html and "2 / 1" not in html
    assert Flow.objects.get(pk=flow.pk).state["stage"] == "committing"

    commit(paco, 1, 0)  # Gorton: 1 die, all on the left: 2-1 left (Valy wins), 1-0 right (Valy narrates)
    for page in (jenny, paco, gm):
        box = flow_box(page)
        rows = box.locator("tr.participant")
        assert rows.count() == 2
        valy = box.locator(f"tr[data-participant=c{t.valy.pk}]")
        gorton = box.locator(f"tr[data-participant=c{t.gorton.pk}]")
        assert valy.locator(".fist-left").inner_text() == "2" and valy.locator(".fist-right").inner_text() == "1"
        assert gorton.locator(".fist-left").inner_text() == "1" and gorton.locator(".fist-right").inner_text() == "0"
        assert "gana Valy" in box.inner_text() and "narra Valy" in box.inner_text()
    flow_box(jenny)
    assert jenny.locator(f"#flow-{flow.pk} form.step-narrate").count() == 1
    assert flow_box(paco).locator("form.step-narrate").count() == 0
