"""Recuperar disciplina as a procedure: the player asks, the GM confirms the calm reflection (§3.8), then
the hope and the sheet move through the ledger (vectors 12, 65, 66, 67)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import PermissionDenied

from rolls import runner
from rolls.models import Flow, FlowLine, FlowStatus
from rulesets.dont_rest_your_head.tests.rolls_fixtures import DryhRolls, build_dryh_rolls
from systems.errors import RulesError

pytestmark = pytest.mark.django_db


@pytest.fixture
def dryh(db: None) -> DryhRolls:
    return build_dryh_rolls()


def ask(t: DryhRolls, actor: Any = None) -> Flow:
    return runner.start_procedure(
        actor=actor or t.player2, scene=t.scene, kind="recovery", params={"character": t.gavin.pk}
    )


@pytest.mark.parametrize(("discipline", "madness", "hope", "left"), [(2, 1, 3, 0), (1, 2, 4, 0)])
def test_vectors_12_and_65_the_player_asks_the_gm_confirms(
    dryh: DryhRolls, discipline: int, madness: int, hope: int, left: int
) -> None:
    t = dryh
    t.set_sheet(t.gavin, discipline=discipline, permanent_madness=madness)
    t.set_chest(hope=hope)
    flow = ask(t)
    assert t.chest()["hope"] == hope  # nothing moves before the GM's word
    with pytest.raises(PermissionDenied):
        t.step(flow, t.player2, "confirm")
    flow = t.step(flow, t.gm, "confirm")
    assert flow.status == FlowStatus.SETTLED
    sheet = t.sheet(t.gavin)
    assert (sheet["discipline"], sheet["permanent_madness"], t.chest()["hope"]) == (discipline + 1, madness - 1, left)
    (entry,) = t.ledger("recover_discipline")
    assert entry.actor == t.gm
    lines = list(FlowLine.objects.filter(flow=flow).order_by("position").values_list("text_es", "text_en"))
    cost = 5 - discipline
    assert lines[0] == (
        f"Gavin pide recuperar disciplina: {cost} monedas de esperanza.",
        f"Gavin asks to recover discipline: {cost} hope coins.",
    )
    assert lines[1][0] == (
        f"El DJ confirma la recuperación: Gavin pasa de {discipline} a {discipline + 1} de disciplina y pierde 1 "
        f"de locura permanente. Esperanza: {hope} → {left}."
    )


@pytest.mark.parametrize(
    ("discipline", "madness", "hope", "code"),
    [(2, 1, 2, "NO_HOPE"), (3, 0, 5, "NOTHING_TO_RECOVER")],  # vectors 66 and 67
)
def test_vectors_66_and_67_refused_at_once(
    dryh: DryhRolls, discipline: int, madness: int, hope: int, code: str
) -> None:
    t = dryh
    t.set_sheet(t.gavin, discipline=discipline, permanent_madness=madness)
    t.set_chest(hope=hope)
    with pytest.raises(RulesError) as exc:
        ask(t)
    assert exc.value.code == code and not Flow.objects.exists()


def test_only_their_player_asks_and_the_gm_may_say_not_now(dryh: DryhRolls) -> None:
    t = dryh
    t.set_sheet(t.gavin, discipline=2, permanent_madness=1)
    t.set_chest(hope=3)
    with pytest.raises(PermissionDenied):
        ask(t, actor=t.player)  # Gavin is not theirs
    flow = t.step(ask(t), t.gm, "refuse")
    assert flow.status == FlowStatus.CANCELLED and t.chest()["hope"] == 3 and t.sheet(t.gavin)["discipline"] == 2
