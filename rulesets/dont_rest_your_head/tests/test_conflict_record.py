"""The conflict's record in the thread (issue 10): every step in words in both languages, the dice as dice,
the sealed pain roll as a GM-only line until the reveal (page, API), who may act at each state of the table,
and the buttons the rules forbid now shown disabled with the reason."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from rest_framework.test import APIClient

from rolls.models import Flow, FlowLine
from rulesets.dont_rest_your_head.procedures.conflict import CONFLICT
from rulesets.dont_rest_your_head.tests.rolls_fixtures import DryhRolls, build_dryh_rolls
from rulesets.dont_rest_your_head.tests.test_conflict import both_pass, lines, refused, rolled_to_adjusting
from rulesets.kit.table import GM

pytestmark = pytest.mark.django_db


@pytest.fixture
def dryh(db: None) -> DryhRolls:
    return build_dryh_rolls()


def sealed_and_settled(t: DryhRolls) -> Flow:
    """Vector 9: pain first (sealed), the player's roll reveals it, two shadings, both pass, settle."""
    t.set_sheet(t.alia, exhaustion=2)
    t.set_chest(despair=3, hope=0)
    flow = t.opposed(3)
    flow = t.step(flow, t.gm, "roll_pain", dice=[4, 3, 2])
    flow = t.step(flow, t.player, "roll_leader", dice=[6, 5, 1, 5, 1])
    flow = t.step(flow, t.gm, "shade", kind="remove6", pool="discipline")
    flow = t.step(flow, t.gm, "shade", kind="add6", pool="exhaustion")
    return t.step(both_pass(t, flow), t.gm, "settle")


def test_vector_9_the_whole_conflict_is_in_the_record_in_spanish_and_english(dryh: DryhRolls) -> None:
    flow = sealed_and_settled(dryh)
    assert lines(flow, gm_only=False) == [
        "Alia entra en conflicto.",
        "El DJ fija la oposición: 3 dados de dolor.",
        "El DJ tira 3 dados de dolor: tirada sellada hasta que tire el protagonista.",
        "Alia tira: disciplina 6, 5, 1; agotamiento 5, 1; locura ninguno.",
        "Se revela el dolor: 4, 3, 2.",
        "Resultado provisional: Gana el protagonista: éxito con 2 (impresionante) contra 2; domina la disciplina.",
        "El DJ ensombrece la disciplina: quita un 6.",
        "Resultado provisional: Gana el protagonista: éxito con 2 (impresionante) contra 2; domina la disciplina.",
        "El DJ ensombrece el agotamiento: añade un 6.",
        "Resultado provisional: Gana el protagonista: éxito con 2 (impresionante) contra 2; domina el agotamiento.",
        "El DJ pasa.",
        "Alia pasa.",
        "Se cierra la ventana de ajustes.",
        "Resultado: Gana el protagonista: éxito con 2 (impresionante) contra 2; domina el agotamiento.",
        "El DJ resuelve el conflicto.",
        "Alia gana 1 de agotamiento.",
        "2 monedas de desesperación gastadas pasan al cofre de esperanza.",
    ]
    english = lines(flow, "en", gm_only=False)
    assert english[2] == "The GM rolls 3 pain dice: sealed until the protagonist rolls."
    assert english[3] == "Alia rolls: discipline 6, 5, 1; exhaustion 5, 1; madness none."
    assert english[-5:] == [
        "The adjustment window closes.",
        "Result: The protagonist wins: success with 2 (impressive) against 2; exhaustion dominates.",
        "The GM settles the conflict.",
        "Alia gains 1 exhaustion.",
        "2 spent despair coins move to the hope chest.",
    ]
    assert lines(flow, gm_only=True) == ["El DJ tira 3 dados de dolor: 4, 3, 2."]
    # The lines that show dice carry their stored roll.
    rolled = FlowLine.objects.filter(flow=flow).exclude(rolls=[]).values_list("text_es", flat=True)
    assert list(rolled) == [
        "El DJ tira 3 dados de dolor: 4, 3, 2.",
        "Alia tira: disciplina 6, 5, 1; agotamiento 5, 1; locura ninguno.",
    ]
    # No internals anywhere in the record.
    for text in lines(flow) + lines(flow, "en"):
        assert "[" not in text and "pain_dice" not in text and "roll_pain" not in text and "None" not in text


def test_the_sealed_pain_line_never_reaches_a_player_before_the_reveal(dryh: DryhRolls) -> None:
    t = dryh
    flow = t.opposed(3)
    flow = t.step(flow, t.gm, "roll_pain", dice=[4, 3, 2])
    player, gm = APIClient(), APIClient()
    player.force_authenticate(t.player)
    gm.force_authenticate(t.gm)
    as_player = player.get(f"/api/flows/{flow.pk}/").json()
    assert "4, 3, 2" not in str(as_player)
    assert "El DJ tira 3 dados de dolor: tirada sellada hasta que tire el protagonista." in str(as_player)
    assert "4, 3, 2" in str(gm.get(f"/api/flows/{flow.pk}/").json())
    page = Client()
    page.force_login(t.player)
    for url in (f"/flows/{flow.pk}/", f"/scenes/{t.scene.pk}/"):
        assert "4, 3, 2" not in page.get(url).content.decode()
    page.force_login(t.gm)
    assert "El DJ tira 3 dados de dolor: 4, 3, 2." in page.get(f"/scenes/{t.scene.pk}/").content.decode()

    t.step(flow, t.player, "roll_leader", dice=[6, 5, 1])
    assert "Se revela el dolor: 4, 3, 2." in str(player.get(f"/api/flows/{flow.pk}/").json())


def test_the_record_stays_in_the_thread_after_the_close(dryh: DryhRolls) -> None:
    flow = sealed_and_settled(dryh)
    page = Client()
    page.force_login(dryh.reader)
    thread = page.get(f"/scenes/{dryh.scene.pk}/").content.decode()
    assert "Resultado: Gana el protagonista: éxito con 2 (impresionante) contra 2; domina el agotamiento." in thread
    assert "Alia gana 1 de agotamiento." in thread and "Conflicto" in thread
    assert "pain_dice" not in thread and "roll_pain" not in thread
    assert flow.status == "settled"


# --- who may act, by the conflict's state ---------------------------------------------------------------


def offered(flow: Flow) -> dict[str, set[Any]]:
    state = CONFLICT.load_state(Flow.objects.get(pk=flow.pk).state)
    return {step.key: set(actors) for step, actors in CONFLICT.offered(state)}


def test_who_may_act_follows_the_table_at_every_state(dryh: DryhRolls) -> None:
    t = dryh
    t.set_chest(despair=1, hope=1)
    flow = t.open(helpers=[t.gavin.pk])
    assert offered(flow) == {"oppose": {GM}, "void": {GM}}
    flow = t.step(flow, t.gm, "oppose", pain=2)
    assert offered(flow) == {
        "roll_pain": {GM},
        "roll_leader": {t.player.pk},
        "roll_helper": {t.player2.pk},
        "drop_helper": {GM},
        "void": {GM},
    }
    flow = t.step(flow, t.player, "roll_leader", dice=[4, 5, 6])
    flow = t.step(flow, t.gm, "drop_helper", pc=t.gavin.pk)
    assert "Gavin" in lines(flow)[-1]
    flow = t.step(flow, t.gm, "roll_pain", dice=[4, 5])
    assert offered(flow) == {
        "hope": {t.player.pk},
        "minor_use": {t.player.pk},
        "shade": {GM},
        "pass": {t.player.pk},
        "gm_pass": {GM},
        "resolve": {GM},
    }
    flow = t.step(flow, t.player, "pass")
    assert "pass" not in offered(flow) and "gm_pass" in offered(flow)
    flow = t.step(flow, t.gm, "gm_pass")
    assert offered(flow) == {"settle": {GM}}


def test_pickers_refuse_a_value_they_did_not_offer(dryh: DryhRolls) -> None:
    t = dryh
    flow = t.open(helpers=[t.gavin.pk])
    flow = t.step(flow, t.gm, "oppose", pain=2)
    refused(t, flow, "choice_not_offered", t.gm, "drop_helper", pc=t.alia.pk)  # the leader is no helper
    refused(t, flow, "choice_not_offered", t.player2, "roll_helper", dice=[1, 1, 1], pc=t.alia.pk)
    flow = rolled_to_adjusting(t, 2, [4, 5], [4, 5, 6])
    refused(t, flow, "step_not_available", t.player, "scar", scar=0, pool="discipline")  # Alia has no scar
    refused(t, flow, "step_not_available", t.player, "no_such_step")


# --- disabled with the reason, never a click that fails ----------------------------------------------------


def test_iluminar_and_ensombrecer_are_disabled_with_the_reason_when_the_chests_are_empty(dryh: DryhRolls) -> None:
    t = dryh
    t.set_chest(despair=0, hope=0)
    flow = rolled_to_adjusting(t, 2, [4, 5], [4, 5, 6])
    player, gm = Client(), Client()
    player.force_login(t.player)
    gm.force_login(t.gm)
    as_player = player.get(f"/flows/{flow.pk}/").content.decode()
    assert "El cofre de esperanza está vacío." in as_player
    assert 'class="small" disabled aria-disabled="true"' in as_player
    as_gm = gm.get(f"/flows/{flow.pk}/").content.decode()
    assert "El cofre de desesperación está vacío." in as_gm
    t.set_chest(despair=1, hope=2)
    as_player = player.get(f"/flows/{flow.pk}/").content.decode()
    assert "El cofre de esperanza está vacío." not in as_player
    # The one button left disabled is the minor use: Alia rolled at exhaustion 0 (vector 52).
    assert (
        as_player.count('class="small" disabled') == 1
        and "El uso menor necesita al menos 1 de agotamiento al tirar." in as_player
    )
    assert '<select name="coins"><option value="1">1</option><option value="2">2</option></select>' in as_player
    t.set_chest(hope=0)
    player.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    english = player.get(f"/flows/{flow.pk}/").content.decode()
    assert "Shine: +1 success per hope coin" in english and "The hope chest is empty." in english


def test_the_opening_form_offers_pain_dice_to_gms_only_and_characters_by_name(dryh: DryhRolls) -> None:
    t = dryh
    player, gm = Client(), Client()
    player.force_login(t.player)
    gm.force_login(t.gm)
    as_player = player.get(f"/scenes/{t.scene.pk}/flows/").content.decode()
    assert f'<option value="{t.alia.pk}">Alia</option>' in as_player  # her own protagonist, by name
    assert f'<select name="leader" required><option value="{t.alia.pk}">Alia</option></select>' in as_player
    assert 'name="pain"' not in as_player and 'name="opponents[]"' not in as_player
    assert 'name="madness_price"' not in as_player
    as_gm = gm.get(f"/scenes/{t.scene.pk}/flows/").content.decode()
    assert 'name="pain"' in as_gm and f'<option value="{t.gavin.pk}">Gavin</option>' in as_gm
    assert "(id)" not in as_player + as_gm


def test_the_open_conflict_names_who_is_in_it(dryh: DryhRolls) -> None:
    t = dryh
    flow = t.open(helpers=[t.gavin.pk])
    t.step(flow, t.gm, "oppose", pain=2)
    page = Client()
    page.force_login(t.reader)
    html = page.get(f"/flows/{flow.pk}/").content.decode()
    assert "Protagonista principal: <strong>Alia</strong>" in html and "Ayuda: <strong>Gavin</strong>" in html
    assert "2 dados de dolor" in html and "<form" not in html  # a reader takes no step
