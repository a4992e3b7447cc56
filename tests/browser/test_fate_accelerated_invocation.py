"""A FATE Accelerated roll with an invocation in headless Chromium: a player rolls Overcome in a post
(the server rolls 4dF), opens the roll's invocations, invokes an aspect paying a fate point, and the new
total shows under the roll in the thread."""

from __future__ import annotations

from typing import Any

import pytest

from rolls.models import Roll
from systems.fate_accelerated.ladder import ladder_label
from tests.rolls.fate_accelerated_fixtures import build_scene, fp

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_player_rolls_invokes_paying_a_fate_point_and_sees_the_new_total(page_for: Any) -> None:
    fae = build_scene(prefix="br_")
    page = page_for(fae.player)
    page.goto(f"/scenes/{fae.scene.pk}/")

    # The composer's FATE roll builder: Overcome, Ana, Quick (+2 from her sheet), difficulty 5.
    composer = page.locator("#composer")
    composer.locator("[name='character']").select_option(str(fae.ana.pk))
    composer.locator("[name='body']").fill("Ana salta entre los barcos en llamas.")
    composer.locator(".roll-builder summary").click()  # the builder loads when opened
    composer.locator("[name='roll-kind']").select_option("overcome")
    composer.locator("[name='roll-character']").select_option(str(fae.ana.pk))
    composer.locator("[name='roll-approach']").select_option("quick")
    composer.locator("[name='roll-difficulty']").fill("5")
    composer.get_by_role("button", name="Publicar").click()
    page.locator(".roll.kind-overcome .die.pool-fudge").first.wait_for()
    roll = Roll.objects.get(kind="overcome")
    assert page.locator(f"#roll-{roll.pk} .die.pool-fudge").count() == 4
    before = roll.result["total"]

    # Open the roll's invocations and invoke «Atenta a los detalles» (+2), paying a fate point.
    page.goto(f"/scenes/{fae.scene.pk}/flows/")
    page.locator(".fae-flow-start summary").click()
    page.get_by_role("button", name="Abrir invocaciones sobre mi última tirada").click()
    page.wait_for_url(f"**/scenes/{fae.scene.pk}/**")
    flow = roll.__class__.objects.get(pk=roll.pk).flow
    assert flow is not None
    page.goto(f"/flows/{flow.pk}/")
    form = page.locator("form.fae-invoke-form")
    form.locator("[name='aspect']").select_option(f"{fae.ana.pk}:aspect:0")
    form.locator("[name='effect']").select_option("bonus")
    form.locator("[name='payment']").select_option("fate_point")
    form.locator("[name='justification']").fill("Veo el cabo suelto antes de saltar.")
    form.get_by_role("button", name="Invocar").click()
    page.wait_for_url(f"**/scenes/{fae.scene.pk}/**")

    # Under the roll in the thread: the invocation and the new total, in words.
    follow_up = page.locator(f"#posts #roll-{roll.pk} .follow-up.kind-invoke")
    follow_up.wait_for()
    text = follow_up.inner_text()
    assert "Atenta a los detalles" in text and "1 punto de destino" in text
    assert f"Total {ladder_label(before + 2)}" in text
    assert fp(fae.ana) == 2
