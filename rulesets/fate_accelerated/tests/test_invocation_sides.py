"""Fate Accelerated: who an invocation helps, through ``rolls.runner`` (issue 22).

An ``oppose`` in a contest is booked on the other side's roll (spec §3.3-3.4, A-11, TV-072), against a fixed
difficulty on the opposed roll's difficulty (TV-071); a character out of the scene invokes nothing.

New vectors (the spec's §9.9 list ends at TV-131; these follow it, in its words):

- TV-132 — Given: Ana taken out in S1 (`scene_status = taken_out`); Carla overcome total 2 vs difficulty 3.
  Input: Ana invokes *Atenta a los detalles*, aid_ally on Carla's roll, paid.
  Expected: rejected (`invoker_out_of_scene`); Carla total 2; Ana FP 3.
- TV-133 — Given: Ana conceded in K1 (`scene_status = conceded`); the same roll. Input: the same invocation.
  Expected: rejected (`invoker_out_of_scene`); Ana FP 3.
"""

from __future__ import annotations

import pytest

from campaigns import policy
from campaigns import services as campaign_services
from rolls import runner
from rolls.models import Flow, FlowStatus
from rolls.selectors import flow_views
from rolls.services import RollSpec, create_post_with_rolls
from rulesets.fate_accelerated.tests.roll_fixtures import FaeScene, build_scene, fate, fp, step
from systems.errors import RulesError
from tests.systems.vectors import vector

pytestmark = pytest.mark.django_db


@pytest.fixture
def fae(db: None) -> FaeScene:
    return build_scene(prefix="fis_")


def _contest(fae: FaeScene, attack: str = "++00", defence: str = "+000") -> Flow:
    """Bruno (forceful +2) attacks Ana (quick +2): totals 4 and 3 with the default faces."""
    flow = runner.start_procedure(
        actor=fae.gm,
        scene=fae.scene,
        kind="action",
        params={"character": fae.bruno.pk, "action": "attack", "target": fae.ana.pk},
    )
    flow = step(fae.gm, flow, "roll", {"approach": "forceful"}, dice=fate(attack))
    return step(fae.player, flow, "defend", {"approach": "quick"}, dice=fate(defence))


def _board(fae: FaeScene, text: str) -> str:
    aspect = campaign_services.add_scene_aspect(actor=fae.gm, scene=fae.scene, text=text)
    return f"scene:{aspect.pk}"


def _oppose(actor: object, fae: FaeScene, flow: Flow, aspect: str, roll: str | None) -> Flow:
    params = {"aspect": aspect, "effect": "oppose", "justification": "La multitud le cierra el paso."}
    if roll is not None:
        params["roll"] = roll
    return step(actor, flow, "invoke", params)  # type: ignore[arg-type]


@vector("fate-accelerated-TV-072")
def test_an_ally_opposing_the_attack_raises_the_defence(vector_id: str) -> None:
    fae = build_scene(prefix="fis72_")
    multitud = _board(fae, "Multitud enfurecida")
    flow = _contest(fae)
    assert (flow.state["total"], flow.state["defense_total"], flow.state["outcome"]) == (4, 3, "success")
    carla_fp = fp(fae.carla)
    flow = _oppose(fae.player2, fae, flow, multitud, "action")
    assert flow.state["total"] == 4 and flow.state["defense_total"] == 5
    assert (flow.state["outcome"], flow.state["shifts"]) == ("fail", -1)
    assert fp(fae.carla) == carla_fp - 1
    flow = step(fae.gm, flow, "settle", {})
    assert flow.status == FlowStatus.SETTLED and flow.state["harm"] == 0  # no harm


def test_the_defender_opposing_the_attack_helps_the_defence_not_the_attack(fae: FaeScene) -> None:
    """The finding: the defender's oppose on the action made the attack T+2 and left the defence at D."""
    multitud = _board(fae, "Multitud enfurecida")
    flow = _oppose(fae.player, fae, _contest(fae), multitud, "action")
    assert (flow.state["total"], flow.state["defense_total"], flow.state["outcome"]) == (4, 5, "fail")


def test_the_attacker_opposing_the_defence_helps_the_attack(fae: FaeScene) -> None:
    multitud = _board(fae, "Multitud enfurecida")
    flow = _oppose(fae.gm, fae, _contest(fae), multitud, None)  # the default: the other side's roll
    assert (flow.state["total"], flow.state["defense_total"]) == (6, 3)


@vector("fate-accelerated-TV-071")
def test_opposing_against_a_fixed_difficulty_raises_the_difficulty(vector_id: str) -> None:
    fae = build_scene(prefix="fis71_")
    enterrado = _board(fae, "Enterrado bajo los escombros")
    create_post_with_rolls(
        author=fae.gm,
        scene=fae.scene,
        body="Bruno intenta salir.",
        rolls=[RollSpec(kind="overcome", data={"approach": "careful", "difficulty": 2}, character_id=fae.bruno.pk)],
        dice=fate("+000"),  # careful +2: 3 vs 2
    )
    flow = runner.start_procedure(actor=fae.gm, scene=fae.scene, kind="action", params={})
    assert flow.state["outcome"] == "success"
    ana_fp = fp(fae.ana)
    flow = _oppose(fae.player, fae, flow, enterrado, None)
    assert flow.state["total"] == 3 and (flow.state["outcome"], flow.state["shifts"]) == ("fail", -1)
    assert fp(fae.ana) == ana_fp - 1


def _carla_overcome(fae: FaeScene) -> Flow:
    create_post_with_rolls(
        author=fae.player2,
        scene=fae.scene,
        body="Forzo la cerradura.",
        rolls=[RollSpec(kind="overcome", data={"approach": "clever", "difficulty": 3}, character_id=fae.carla.pk)],
        dice=fate("+000"),  # clever +1: 2 vs 3
    )
    return runner.start_procedure(actor=fae.player2, scene=fae.scene, kind="action", params={})


@vector("fate-accelerated-TV-132", "fate-accelerated-TV-133")
def test_a_character_out_of_the_scene_cannot_invoke(vector_id: str) -> None:
    fae = build_scene(prefix=f"fis{vector_id[-3:]}_")
    flow = _carla_overcome(fae)
    fae.ana.sheet = {**fae.ana.sheet, "scene_status": "taken_out" if vector_id.endswith("132") else "conceded"}
    fae.ana.save(update_fields=["sheet"])
    before = fp(fae.ana)
    params = {
        "aspect": f"character:{fae.ana.pk}:aspect:0",
        "effect": "aid_ally",
        "character": fae.ana.pk,
        "justification": "Le indico dónde mirar.",
    }
    with pytest.raises(RulesError) as exc:
        step(fae.player, flow, "invoke", params)
    assert exc.value.code in {"invoker_out_of_scene", "step_unavailable"}
    flow.refresh_from_db()
    assert flow.state["total"] == 2 and fp(fae.ana) == before


def test_a_player_whose_characters_are_all_out_is_shown_invoke_disabled_with_the_reason(fae: FaeScene) -> None:
    flow = _carla_overcome(fae)
    fae.ana.sheet = {**fae.ana.sheet, "scene_status": "taken_out"}
    fae.ana.save(update_fields=["sheet"])
    campaign = fae.table.campaign
    (shown,) = flow_views(policy.viewer_for(fae.player, campaign), [flow], "es")
    invoke = next(a for a in shown.actions if a.step == "invoke")
    assert invoke.unavailable == "Tus personajes están fuera de la escena: no pueden invocar aspectos."
    (carla_view,) = flow_views(policy.viewer_for(fae.player2, campaign), [flow], "es")
    assert next(a for a in carla_view.actions if a.step == "invoke").unavailable == ""
