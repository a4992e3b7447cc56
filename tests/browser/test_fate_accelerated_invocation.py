"""A FATE Accelerated roll with an invocation in headless Chromium: a player rolls Overcome in a post
(the server rolls 4dF), opens the roll's invocations, invokes an aspect paying a fate point, and the new
total shows under the roll in the thread."""

from __future__ import annotations

from typing import Any

import pytest

from rolls.models import Roll
from rulesets.fate_accelerated.tests.roll_fixtures import build_scene, fp
from systems.fate_accelerated.ladder import ladder_label

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
    page.get_by_role("button", name="Abrir invocaciones", exact=True).click()
    page.wait_for_url(f"**/scenes/{fae.scene.pk}/**")
    flow = roll.__class__.objects.get(pk=roll.pk).flow
    assert flow is not None
    page.goto(f"/flows/{flow.pk}/")
    form = page.locator("form.step-invoke")
    form.locator("[name='aspect']").select_option(f"character:{fae.ana.pk}:aspect:0")
    form.locator("[name='effect']").select_option("bonus")
    form.locator("[name='payment']").select_option("fate_point")
    form.locator("[name='justification']").fill("Veo el cabo suelto antes de saltar.")
    form.get_by_role("button", name="Invocar un aspecto").click()
    page.wait_for_url(f"**/scenes/{fae.scene.pk}/**")

    # Under the roll in the thread: the invocation and the new total, in words.
    follow_up = page.locator(f"#posts #roll-{roll.pk} .follow-up.kind-invoke")
    follow_up.wait_for()
    text = follow_up.inner_text()
    assert "Atenta a los detalles" in text and "1 punto de destino" in text
    assert f"Total {ladder_label(before + 2)}" in text
    assert fp(fae.ana) == 2


def test_gm_and_player_play_an_action_to_the_end_and_the_thread_keeps_its_record(page_for: Any) -> None:
    """Issue 10: the player rolls in a post with her only character preselected, opens the invocations and
    invokes; the GM settles with a narration; after a reload the record post shows the whole story in
    words with FAE's ladder; at 390 px nothing is wider than the screen."""
    fae = build_scene(prefix="br2_")
    player = page_for(fae.player)
    player.set_viewport_size({"width": 390, "height": 844})
    player.goto(f"/scenes/{fae.scene.pk}/")
    composer = player.locator("#composer")
    assert composer.locator("[name='roll-character']").input_value() == str(fae.ana.pk)  # her only character
    composer.locator("[name='body']").fill("Ana salta entre los barcos en llamas.")
    composer.locator("[name='roll-kind']").select_option("overcome")
    assert not composer.locator(".field-modifier").count()  # a GM's field never reaches a player
    composer.locator("[name='roll-approach']").select_option("quick")
    composer.locator("[name='roll-difficulty']").fill("1")
    assert player.evaluate("document.scrollingElement.scrollWidth") <= 390
    composer.get_by_role("button", name="Publicar").click()
    player.locator(".roll.kind-overcome .die.pool-fudge").first.wait_for()

    player.goto(f"/scenes/{fae.scene.pk}/flows/")
    player.locator(".fae-flow-start summary").click()
    player.get_by_role("button", name="Abrir invocaciones", exact=True).click()
    player.wait_for_url(f"**/scenes/{fae.scene.pk}/**")
    flow = Roll.objects.get(kind="overcome").flow
    assert flow is not None
    player.goto(f"/flows/{flow.pk}/")
    form = player.locator("form.step-invoke")
    form.locator("[name='aspect']").select_option(label="Ana: «Atenta a los detalles»")
    form.locator("[name='justification']").fill("Veo el cabo suelto.")
    form.get_by_role("button", name="Invocar un aspecto").click()
    player.wait_for_url(f"**/scenes/{fae.scene.pk}/**")

    gm = page_for(fae.gm)
    gm.goto(f"/flows/{flow.pk}/")
    settle = gm.locator("form.step-settle")
    settle.locator("[name='note']").fill("La pasarela cruje tras ella.")
    settle.get_by_role("button", name="Resolver").click()
    gm.wait_for_url(f"**/scenes/{fae.scene.pk}/**")

    player.goto(f"/scenes/{fae.scene.pk}/")
    player.reload()
    record = player.locator(".post-procedure .flow-record").first
    record.wait_for()
    text = record.inner_text()
    assert "Ana invoca «Atenta a los detalles» (+2, 1 punto de destino)" in text
    assert "Resultado de Ana (Superar):" in text and "contra Normal (+1)" in text
    assert "Narración del DJ: La pasarela cruje tras ella." in text
    assert player.evaluate("document.scrollingElement.scrollWidth") <= 390


def test_the_record_and_the_step_forms_read_in_english(page_for: Any) -> None:
    """The same procedure read in English: the record's lines, the step labels and the pickers."""
    from rolls import runner
    from rolls.services import RollSpec, create_post_with_rolls
    from rulesets.fate_accelerated.tests.roll_fixtures import fate, step

    fae = build_scene(prefix="br3_")
    create_post_with_rolls(
        author=fae.player,
        scene=fae.scene,
        body="Jump.",
        rolls=[RollSpec(kind="overcome", data={"approach": "quick", "difficulty": 3}, character_id=fae.ana.pk)],
        dice=fate("0000"),
    )
    flow = runner.start_procedure(actor=fae.player, scene=fae.scene, kind="action", params={})
    page = page_for(fae.player, language="en")
    page.goto(f"/flows/{flow.pk}/")
    form = page.locator("form.step-invoke")
    assert "Ana: “Atenta a los detalles”" in form.inner_text()
    form.get_by_role("button", name="Invoke an aspect").wait_for()
    step(fae.gm, flow, "settle", {"fail_choice": "fail", "note": "The plank creaks."})
    page.goto(f"/scenes/{fae.scene.pk}/")
    record = page.locator(".post-procedure .flow-record").first.inner_text()
    assert "Ana rolls “Overcome” with their Quick approach." in record
    assert "Result for Ana (Overcome): Fair (+2) against Good (+3) · Fail" in record
    assert "Does not reach the goal." in record and "GM's narration: The plank creaks." in record
