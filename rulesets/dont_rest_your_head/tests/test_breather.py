"""Tomarse un respiro as a procedure: the player asks to spend hope on their own protagonist outside a
conflict, the GM allows the moment (§3.8) and only then the coins and the sheet move, through the ledger.
The operation itself stays the GMs' (``who_may``): the binding cannot tell who asks, and the rules want
the GM's word for every hope use outside a conflict."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import PermissionDenied
from rest_framework.test import APIClient

from characters import services as character_services
from rolls import runner
from rolls.models import Flow, FlowLine, FlowStatus
from rulesets.dont_rest_your_head.tests.rolls_fixtures import DryhRolls, build_dryh_rolls
from rulesets.dont_rest_your_head.tests.test_conflict import rolled_to_adjusting
from systems.errors import RulesError

pytestmark = pytest.mark.django_db


@pytest.fixture
def dryh(db: None) -> DryhRolls:
    return build_dryh_rolls()


def ask(t: DryhRolls, actor: Any = None, **params: Any) -> Flow:
    params.setdefault("character", t.alia.pk)
    return runner.start_procedure(actor=actor or t.player, scene=t.scene, kind="breather", params=params)


def record(flow: Flow, lang: str = "es") -> list[str]:
    rows = FlowLine.objects.filter(flow_id=flow.pk).order_by("position")
    return list(rows.values_list("text_en" if lang == "en" else "text_es", flat=True))


def test_vector_11_the_player_asks_the_gm_allows(dryh: DryhRolls) -> None:
    """dont-rest-your-head-11: exhaustion 5, boxes 2/0, hope 3; exhaustion −1 twice and a fight box."""
    t = dryh
    t.set_sheet(t.alia, exhaustion=5, fight=2)
    t.set_chest(hope=3)
    flow = ask(t, exhaustion=2, fight=1)
    assert t.chest()["hope"] == 3 and t.sheet(t.alia)["exhaustion"] == 5  # nothing moves before the GM's word
    assert flow.waiting_for["steps"][0]["step"] == "allow" and flow.waiting_for["steps"][0]["gm"]
    with pytest.raises(PermissionDenied):
        t.step(flow, t.player, "allow")
    flow = t.step(flow, t.gm, "allow")
    assert flow.status == FlowStatus.SETTLED
    sheet = t.sheet(t.alia)
    assert (sheet["exhaustion"], sheet["fight"], sheet["flight"], t.chest()["hope"]) == (3, 1, 0, 0)
    (entry,) = t.ledger("take_breather")
    assert entry.actor == t.gm and entry.character_id == t.alia.pk
    assert record(flow) == [
        "Alia pide tomarse un respiro: −1 agotamiento, −1 agotamiento, desmarcar una casilla de lucha "
        "(3 monedas de esperanza).",
        "El DJ permite el respiro: Alia: −1 agotamiento, −1 agotamiento, desmarcar una casilla de lucha. "
        "Esperanza: 3 → 0.",
    ]
    assert record(flow, "en")[1] == (
        "The GM allows the breather: Alia: −1 exhaustion, −1 exhaustion, clear a fight box. Hope: 3 → 0."
    )


def test_the_rules_refuse_at_once_and_nothing_is_stored(dryh: DryhRolls) -> None:
    t = dryh
    t.set_sheet(t.alia, exhaustion=2)
    t.set_chest(hope=1)
    for params, code in (({"exhaustion": 2}, "NO_HOPE"), ({}, "CHOICE_REQUIRED")):
        with pytest.raises(RulesError) as exc:
            ask(t, **params)
        assert exc.value.code == code
    with pytest.raises(PermissionDenied):
        ask(t, actor=t.player2, exhaustion=1)  # Alia is not theirs
    assert not Flow.objects.exists()
    rolled_to_adjusting(t, 2, [4, 5], [4, 5, 6, 4, 5])  # dont-rest-your-head-64: not inside a conflict
    with pytest.raises(RulesError) as exc:
        ask(t, exhaustion=1)
    assert exc.value.code == "IN_CONFLICT"


def test_the_gm_says_not_now_or_the_player_withdraws(dryh: DryhRolls) -> None:
    t = dryh
    t.set_sheet(t.alia, exhaustion=2)
    t.set_chest(hope=2)
    flow = t.step(ask(t, exhaustion=1), t.gm, "refuse")
    assert flow.status == FlowStatus.CANCELLED and t.chest()["hope"] == 2 and t.sheet(t.alia)["exhaustion"] == 2
    assert record(flow)[-1] == "El DJ no permite el respiro de Alia ahora."
    flow = t.step(ask(t, exhaustion=1), t.player, "withdraw")
    assert flow.status == FlowStatus.CANCELLED and not t.ledger("take_breather")


def test_the_operation_stays_the_gms_a_player_goes_through_the_procedure(dryh: DryhRolls) -> None:
    t = dryh
    t.set_sheet(t.alia, exhaustion=2)
    t.set_chest(hope=2)
    with pytest.raises(PermissionDenied):
        character_services.apply_operation(
            actor=t.player,
            campaign=t.campaign,
            operation="take_breather",
            params={"uses": ["exhaustion-1"]},
            character=t.alia,
        )
    client = APIClient()
    client.force_authenticate(t.player)
    opened = client.post(
        f"/api/scenes/{t.scene.pk}/flows/",
        {"kind": "breather", "params": {"character": t.alia.pk, "exhaustion": 1}},
        format="json",
    )
    assert opened.status_code == 201, opened.content
    assert t.chest()["hope"] == 2


def test_allow_is_disabled_with_the_reason_when_the_hope_is_gone(dryh: DryhRolls) -> None:
    from django.test import Client

    t = dryh
    t.set_sheet(t.alia, exhaustion=2)
    t.set_chest(hope=1)
    flow = ask(t, exhaustion=1)
    t.set_chest(hope=0)  # spent meanwhile (a conflict's "Iluminar")
    gm = Client()
    gm.force_login(t.gm)
    page = gm.get(f"/flows/{flow.pk}/").content.decode()
    assert "El cofre de esperanza no tiene monedas suficientes." in page
