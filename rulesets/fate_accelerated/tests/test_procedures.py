"""Fate Accelerated flows end to end through ``rolls.runner`` with scripted dice: invocations on a post's
roll (spec TV-060/061/062/069), an attack with a Defend roll and the defender's absorption (TV-084/085),
create an advantage onto the scene board and spending its free invocation, compels (TV-078/079/080/083),
concessions (TV-104/107), a GM veto, secret difficulties, replays and settling twice."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import PermissionDenied

from campaigns import policy
from campaigns.models import SceneAspect
from characters.models import LedgerEntry
from characters.services import apply_operation
from rolls import runner
from rolls.models import Flow, FlowStatus, Roll, RollFollowUp
from rolls.selectors import view_roll
from rolls.services import RollSpec, create_post_with_rolls
from rulesets.fate_accelerated.tests.roll_fixtures import FaeScene, build_scene, fate, fp, step
from systems.errors import RulesError

pytestmark = pytest.mark.django_db


@pytest.fixture
def fae(db: None) -> FaeScene:
    return build_scene()


def _post_roll(fae: FaeScene, faces: str, difficulty: int = 2, kind: str = "overcome", approach: str = "quick") -> Roll:
    post = create_post_with_rolls(
        author=fae.player,
        scene=fae.scene,
        body="Salto entre los barcos.",
        rolls=[RollSpec(kind=kind, data={"approach": approach, "difficulty": difficulty}, character_id=fae.ana.pk)],
        dice=fate(faces),
    )
    return post.rolls.get()


def _invoke(
    fae: FaeScene, flow: Flow, aspect: str, effect: str = "bonus", payment: str = "fate_point", **kw: Any
) -> Flow:
    params = {"aspect": aspect, "effect": effect, "payment": payment, "justification": "Me ayuda aquí."}
    return step(kw.pop("actor", fae.player), flow, "invoke", params, **kw)


def test_invocations_on_a_post_roll_reroll_then_bonus_then_settle(fae: FaeScene) -> None:
    roll = _post_roll(fae, "--0-", difficulty=5)  # TV-060/061: quick +2, total -1
    flow = runner.start_procedure(actor=fae.player, scene=fae.scene, kind="action", params={"open_last": "1"})
    assert flow.state["phase"] == "window" and flow.state["outcome"] == "fail"
    assert flow.waiting_for["steps"][0]["gm"] is True
    ana = fae.ana.pk
    flow = _invoke(fae, flow, f"character:{ana}:high_concept", "reroll", dice=fate("+0+0"))
    assert flow.state["total"] == 4 and flow.state["roll"]["face_history"] == ["--0-"] and fp(fae.ana) == 2
    flow = _invoke(fae, flow, f"character:{ana}:aspect:0")
    assert flow.state["total"] == 6 and flow.state["outcome"] == "success" and fp(fae.ana) == 1
    # TV-062: the same aspect twice on one roll is refused and costs nothing.
    with pytest.raises(RulesError) as exc:
        _invoke(fae, flow, f"character:{ana}:aspect:0")
    assert exc.value.code == "aspect_already_invoked" and fp(fae.ana) == 1
    summaries = list(RollFollowUp.objects.filter(roll=roll).values_list("summary_es", flat=True))
    assert "invoca «Espía de la Corona» (volver a tirar, 1 punto de destino) [+][ ][+][ ]" in summaries[0]
    assert summaries[1].endswith("Total Fantástico (+6) contra Excelente (+5) · Éxito (1 aumento)")
    # Only a GM closes the window; settling twice is refused.
    with pytest.raises(PermissionDenied):
        step(fae.player, flow, "settle", {})
    flow = step(fae.gm, flow, "settle", {})
    assert flow.status == FlowStatus.SETTLED
    with pytest.raises(RulesError) as exc:
        step(fae.gm, flow, "settle", {})
    assert exc.value.code == "step_not_available"
    assert roll.follow_ups.count() == 3 and LedgerEntry.objects.filter(operation="spend_fate_point").count() == 2


def test_spending_a_fate_point_you_do_not_have_is_refused(fae: FaeScene) -> None:
    apply_operation(
        actor=fae.gm,
        campaign=fae.table.campaign,
        operation="adjust_fate_points",
        params={"delta": -3},
        character=fae.ana,
    )
    _post_roll(fae, "0000")
    flow = runner.start_procedure(actor=fae.player, scene=fae.scene, kind="action", params={})
    with pytest.raises(RulesError) as exc:  # TV-069
        _invoke(fae, flow, f"character:{fae.ana.pk}:trouble")
    assert exc.value.code == "not_enough_fate_points" and fp(fae.ana) == 0


def test_a_replayed_invocation_changes_nothing_twice_and_a_gm_veto_returns_the_point(fae: FaeScene) -> None:
    roll = _post_roll(fae, "0000")
    flow = runner.start_procedure(actor=fae.player, scene=fae.scene, kind="action", params={})
    flow = _invoke(fae, flow, f"character:{fae.ana.pk}:trouble", idempotency_key="k-1")
    flow = _invoke(fae, flow, f"character:{fae.ana.pk}:trouble", idempotency_key="k-1")
    assert fp(fae.ana) == 2 and roll.follow_ups.count() == 1 and flow.state["total"] == 4
    with pytest.raises(PermissionDenied):
        step(fae.player, flow, "veto", {"invocation": 0})
    flow = step(fae.gm, flow, "veto", {"invocation": 0})
    vetoed = roll.follow_ups.last()
    assert fp(fae.ana) == 3 and flow.state["total"] == 2 and vetoed is not None and vetoed.kind == "veto"


def test_only_the_roller_or_a_gm_opens_a_roll_and_a_roll_has_one_flow(fae: FaeScene) -> None:
    roll = _post_roll(fae, "0000")
    with pytest.raises(RulesError):  # Carla's player has no roll of her own here
        runner.start_procedure(actor=fae.player2, scene=fae.scene, kind="action", params={})
    with pytest.raises(PermissionDenied):
        runner.start_procedure(actor=fae.player2, scene=fae.scene, kind="action", params={"roll": roll.pk})
    runner.start_procedure(actor=fae.gm, scene=fae.scene, kind="action", params={"roll": roll.pk})
    with pytest.raises(RulesError):
        runner.start_procedure(actor=fae.player, scene=fae.scene, kind="action", params={"roll": roll.pk})


def test_attack_defend_and_absorb_with_box_and_mild_consequence(fae: FaeScene) -> None:
    flow = runner.start_procedure(
        actor=fae.gm,
        scene=fae.scene,
        kind="action",
        params={"character": fae.bruno.pk, "action": "attack", "target": fae.ana.pk},
    )
    assert flow.waiting_for == {
        "steps": [
            {"step": "roll", "gm": True, "users": [], "label_es": "la tirada de Bruno", "label_en": "Bruno's roll"}
        ]
    }
    with pytest.raises(PermissionDenied):
        step(fae.player, flow, "roll", {"approach": "forceful"})
    flow = step(fae.gm, flow, "roll", {"approach": "forceful"}, dice=fate("++++"))  # Bruno forceful +2: 6
    assert flow.state["phase"] == "defend" and flow.waiting_for["steps"][0]["users"] == [fae.player.pk]
    with pytest.raises(RulesError) as exc:  # no invocations before the defence is rolled (TV-074)
        _invoke(fae, flow, f"character:{fae.ana.pk}:trouble")
    assert exc.value.code == "step_not_available"
    flow = step(fae.player, flow, "defend", {"approach": "quick"}, dice=fate("0000"))  # Ana quick +2: 2
    assert flow.state["outcome"] == "success_with_style" and flow.state["defense_total"] == 2
    flow = step(fae.gm, flow, "settle", {})
    assert flow.state["phase"] == "absorb" and flow.state["harm"] == 4
    assert {"box": 2, "slots": ["mild"], "absorbed": 4} in flow.state["options"]
    with pytest.raises(RulesError) as exc:  # TV-085
        step(fae.player, flow, "absorb", {"box": "2"})
    assert exc.value.code == "absorption_insufficient"
    with pytest.raises(RulesError):
        step(fae.player, flow, "absorb", {"box": "2", "slots": "mild"})  # the consequence needs its text
    flow = step(fae.player, flow, "absorb", {"box": "2", "slots": "mild", "text_mild": "Torcedura en el tobillo"})
    assert flow.status == FlowStatus.SETTLED
    fae.ana.refresh_from_db()
    sheet = fae.ana.sheet
    assert sheet["stress"] == [False, True, False]
    assert sheet["consequences"]["mild"]["text"] == "Torcedura en el tobillo"
    assert sheet["consequences"]["mild"]["grants"][0]["holder"] == str(fae.bruno.pk)  # TV-084
    assert flow.rolls.count() == 2


def test_taken_out_instead_of_absorbing(fae: FaeScene) -> None:
    flow = runner.start_procedure(
        actor=fae.gm,
        scene=fae.scene,
        kind="action",
        params={"character": fae.bruno.pk, "action": "attack", "target": fae.ana.pk},
    )
    flow = step(fae.gm, flow, "roll", {"approach": "forceful"}, dice=fate("+000"))
    flow = step(fae.player, flow, "defend", {"approach": "quick"}, dice=fate("-000"))
    flow = step(fae.gm, flow, "settle", {})
    flow = step(fae.player, flow, "absorb", {"taken_out": "true"})
    fae.ana.refresh_from_db()
    assert fae.ana.sheet["scene_status"] == "taken_out" and fae.ana.sheet["stress"] == [False, False, False]


def test_create_an_advantage_puts_an_aspect_on_the_board_and_its_free_invocation_is_spent(fae: FaeScene) -> None:
    post = create_post_with_rolls(
        author=fae.player,
        scene=fae.scene,
        body="Prendo fuego a las redes.",
        rolls=[
            RollSpec(
                kind="create_advantage",
                data={"approach": "sneaky", "stunts": ["S1"], "difficulty": 2},
                character_id=fae.ana.pk,
            )
        ],
        dice=fate("0000"),
    )
    flow = runner.start_procedure(actor=fae.player, scene=fae.scene, kind="action", params={})
    assert flow.state["outcome"] == "success_with_style"  # 3 + 2 = 5 vs 2
    with pytest.raises(RulesError):  # the new aspect needs its text
        step(fae.gm, flow, "settle", {"ca_mode": "create"})
    flow = step(fae.gm, flow, "settle", {"ca_mode": "create", "aspect_text": "En llamas"})
    aspect = SceneAspect.objects.get(scene=fae.scene, text="En llamas")
    assert aspect.free_invocations == 2
    settled = post.rolls.get().follow_ups.last()
    assert settled is not None and "Nuevo aspecto «En llamas» con 2 invocaciones gratuitas" in settled.summary_es
    # Carla rolls, spends one free invocation on the board: the GM's settlement consumes it.
    create_post_with_rolls(
        author=fae.player2,
        scene=fae.scene,
        body="Aprovecho el fuego.",
        rolls=[RollSpec(kind="attack", data={"approach": "flashy", "difficulty": 2}, character_id=fae.carla.pk)],
        dice=fate("0000"),
    )
    flow2 = runner.start_procedure(actor=fae.player2, scene=fae.scene, kind="action", params={})
    flow2 = _invoke(fae, flow2, f"scene:{aspect.pk}", payment="free", actor=fae.player2)
    assert flow2.state["total"] == 5 and fp(fae.carla) == 3
    step(fae.gm, flow2, "settle", {})
    aspect.refresh_from_db()
    assert aspect.free_invocations == 1


def test_a_boost_from_a_tie_is_used_once(fae: FaeScene) -> None:
    _post_roll(fae, "0000", difficulty=3, kind="create_advantage", approach="sneaky")  # 3 vs 3: tie
    flow = runner.start_procedure(actor=fae.player, scene=fae.scene, kind="action", params={})
    step(fae.gm, flow, "settle", {"ca_mode": "create", "boost_actor": "Distraído"})
    boost = SceneAspect.objects.get(scene=fae.scene, text="Impulso: Distraído")
    assert boost.free_invocations == 1
    _post_roll(fae, "0000")
    flow2 = runner.start_procedure(actor=fae.player, scene=fae.scene, kind="action", params={})
    with pytest.raises(RulesError) as exc:
        _invoke(fae, flow2, f"boost:{boost.pk}")
    assert exc.value.code == "boost_is_free"
    _invoke(fae, flow2, f"boost:{boost.pk}", payment="free")
    step(fae.gm, flow2, "settle", {})
    assert not SceneAspect.objects.filter(pk=boost.pk).exists()


def test_a_secret_difficulty_set_by_the_gm_stays_hidden_from_players(fae: FaeScene) -> None:
    with pytest.raises(PermissionDenied):
        runner.start_procedure(
            actor=fae.player,
            scene=fae.scene,
            kind="action",
            params={"character": fae.ana.pk, "action": "overcome", "difficulty": 3, "difficulty_secret": "true"},
        )
    flow = runner.start_procedure(
        actor=fae.gm,
        scene=fae.scene,
        kind="action",
        params={"character": fae.ana.pk, "action": "overcome", "difficulty": 4, "difficulty_secret": "true"},
    )
    assert flow.state["difficulty"] is None and flow.secret_state == {"difficulty": 4}
    flow = step(fae.player, flow, "roll", {"approach": "quick"}, dice=fate("+000"))  # 3 vs 4
    roll = flow.rolls.get()
    assert "difficulty" not in roll.result and roll.secret["difficulty"] == 4
    assert flow.state["outcome"] == "fail" and flow.state["shifts"] is None and "4" not in str(flow.state["difficulty"])
    flow = _invoke(fae, flow, f"character:{fae.ana.pk}:trouble")
    follow_up = roll.follow_ups.get()
    assert "shifts" not in follow_up.result and "+4" not in follow_up.summary_es.replace("Total Enorme (+5)", "")
    player_view = view_roll(policy.viewer_for(fae.player, fae.table.campaign), roll)
    gm_view = view_roll(policy.viewer_for(fae.gm, fae.table.campaign), roll)
    assert player_view is not None and player_view.secret is None
    assert gm_view is not None and gm_view.secret == {"difficulty": 4, "shifts": -1}


def test_compels_accept_refuse_and_their_fate_points(fae: FaeScene) -> None:
    params = {
        "target": fae.ana.pk,
        "aspect": f"character:{fae.ana.pk}:trouble",
        "kind": "decision",
        "proposal": "Te quedas con tu hermano.",
    }
    flow = runner.start_procedure(actor=fae.gm, scene=fae.scene, kind="compel", params=params)
    assert flow.waiting_for["steps"][0]["users"] == [fae.player.pk]
    assert flow.state["aspect_text"] == "Debo proteger a mi hermano"
    with pytest.raises(PermissionDenied):
        step(fae.player2, flow, "accept")
    flow = step(fae.player, flow, "accept")
    assert flow.state["phase"] == "accepted" and flow.waiting_for["steps"][0]["gm"] and fp(fae.ana) == 3
    flow = step(fae.gm, flow, "deliver")
    assert flow.status == FlowStatus.SETTLED and fp(fae.ana) == 4  # TV-078
    refused = runner.start_procedure(actor=fae.gm, scene=fae.scene, kind="compel", params=params)
    step(fae.player, refused, "refuse")
    assert fp(fae.ana) == 3  # TV-079
    apply_operation(
        actor=fae.gm,
        campaign=fae.table.campaign,
        operation="adjust_fate_points",
        params={"delta": -3},
        character=fae.ana,
    )
    broke = runner.start_procedure(actor=fae.gm, scene=fae.scene, kind="compel", params=params)
    with pytest.raises(RulesError) as exc:  # TV-080
        step(fae.player, broke, "refuse")
    assert exc.value.code == "cannot_refuse_compel"


def test_a_player_compels_another_character_and_pays_the_offer(fae: FaeScene) -> None:
    params = {
        "target": fae.ana.pk,
        "aspect": f"character:{fae.ana.pk}:trouble",
        "kind": "event",
        "proposal": "Tu hermano aparece.",
    }
    flow = runner.start_procedure(
        actor=fae.player2, scene=fae.scene, kind="compel", params={**params, "compeller": fae.carla.pk}
    )
    step(fae.player, flow, "accept")
    step(fae.gm, flow, "deliver")
    assert fp(fae.carla) == 2 and fp(fae.ana) == 4  # TV-082 (a)
    with pytest.raises(PermissionDenied):  # compelling as someone else's character
        runner.start_procedure(
            actor=fae.player2, scene=fae.scene, kind="compel", params={**params, "compeller": fae.ana.pk}
        )
    apply_operation(
        actor=fae.gm,
        campaign=fae.table.campaign,
        operation="adjust_fate_points",
        params={"delta": -2},
        character=fae.carla,
    )
    with pytest.raises(RulesError) as exc:  # TV-083
        runner.start_procedure(
            actor=fae.player2, scene=fae.scene, kind="compel", params={**params, "compeller": fae.carla.pk}
        )
    assert exc.value.code == "compeller_cannot_pay"


def test_concession_waits_for_pending_dice_then_the_gm_confirms(fae: FaeScene) -> None:
    attack = runner.start_procedure(
        actor=fae.gm,
        scene=fae.scene,
        kind="action",
        params={"character": fae.bruno.pk, "action": "attack", "target": fae.ana.pk},
    )
    # A declared attack without dice does not block conceding; rolled dice do (TV-107).
    attack = step(fae.gm, attack, "roll", {"approach": "forceful"}, dice=fate("0000"))
    with pytest.raises(RulesError) as exc:
        runner.start_procedure(
            actor=fae.player, scene=fae.scene, kind="concession", params={"character": fae.ana.pk, "terms": "Huyo."}
        )
    assert exc.value.code == "concession_too_late"
    attack = step(fae.player, attack, "defend", {"approach": "quick"}, dice=fate("0000"))
    step(fae.gm, attack, "settle", {})  # 2 vs 2: a tie, Bruno gets a boost, nothing to absorb
    flow = runner.start_procedure(
        actor=fae.player, scene=fae.scene, kind="concession", params={"character": fae.ana.pk, "terms": "Huyo."}
    )
    assert flow.state["fate_points"] == 1 and flow.waiting_for["steps"][0]["gm"]
    with pytest.raises(PermissionDenied):
        step(fae.player, flow, "confirm")
    flow = step(fae.gm, flow, "confirm")
    assert flow.status == FlowStatus.SETTLED and fp(fae.ana) == 4  # TV-104
    fae.ana.refresh_from_db()
    assert fae.ana.sheet["scene_status"] == "conceded"
    with pytest.raises(RulesError):
        step(fae.gm, flow, "confirm")
