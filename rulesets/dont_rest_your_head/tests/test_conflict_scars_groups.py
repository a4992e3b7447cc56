"""No te Duermas conflicts: scars invoked in the adjustment window (§3.6, vectors 16, 74, 75) and group
conflicts with an unclear leader (§5.1, B-AMB-31, vector 57), end to end through ``rolls.runner`` with scripted
dice, every refusal changing nothing; and a scar through the API."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import PermissionDenied
from rest_framework.test import APIClient

from campaigns import policy
from rolls import runner
from rolls.models import Flow, FlowStatus, Roll, RollFollowUp
from rolls.selectors import view_roll
from rolls.services import RollSpec, create_post_with_rolls
from rulesets.dont_rest_your_head.tests.rolls_fixtures import DryhRolls, build_dryh_rolls
from rulesets.dont_rest_your_head.tests.test_conflict import (
    awaited,
    both_pass,
    lines,
    refused,
    rolled_to_adjusting,
    snapshot,
)
from systems.dice import ScriptedDice
from systems.errors import RulesError

pytestmark = pytest.mark.django_db

SCAR = "No pude encontrar a mi hija en el Distrito Trece"


@pytest.fixture
def dryh(db: None) -> DryhRolls:
    return build_dryh_rolls()


def scar(text: str = SCAR, **flags: Any) -> dict[str, Any]:
    return {"text": text, "created_session": 1, "invoked_this_session": False, "crossed_out": False, **flags}


def sorted_pools(flow: Flow) -> dict[str, list[int]]:
    return {k: sorted(v, reverse=True) for k, v in flow.state["outcome"]["pools"].items()}


# --- scars ----------------------------------------------------------------------------------------------


def test_vector_16_a_scar_rerolls_exhaustion_and_turns_a_failure_into_a_win(dryh: DryhRolls) -> None:
    """dont-rest-your-head-16: exhaustion 4, D[4,4,5] E[4,5,6,6] vs P[2,5,6]: 0 vs 1, a failure. The scar
    (GM agrees) rerolls E to [1,3,6,6]: 2 vs 1, a win, exhaustion dominates → 5; the scar is marked and a
    second invocation this session is SCAR_ALREADY_INVOKED."""
    t = dryh
    t.set_sheet(t.alia, exhaustion=4, scars=[scar()])
    flow = rolled_to_adjusting(t, 3, [2, 5, 6], [4, 4, 5, 4, 5, 6, 6])
    assert not flow.state["outcome"]["success"]
    assert flow.state["leader_scars"] == [{"index": 0, "text": SCAR}]

    # The player proposes: nothing is rolled nor marked until the GM confirms the connection.
    rolls_before = Roll.objects.count()
    flow = t.step(flow, t.player, "scar", scar=0, pool="exhaustion")
    assert flow.state["pending_scar"] == {"scar": 0, "pool": "exhaustion", "text": SCAR}
    assert awaited(flow) == {"confirm_scar": (True, [])}
    assert Roll.objects.count() == rolls_before and not t.sheet(t.alia)["scars"][0]["invoked_this_session"]
    with pytest.raises(PermissionDenied):
        t.step(flow, t.player, "confirm_scar", dice=[1, 3, 6, 6])

    flow = t.step(flow, t.gm, "confirm_scar", dice=[1, 3, 6, 6])
    reroll = Roll.objects.get(kind="scar_reroll")
    assert reroll.result["pools"] == {"exhaustion": [1, 3, 6, 6]} and reroll.character_id == t.alia.pk
    outcome = flow.state["outcome"]
    assert (outcome["player_degree"], outcome["gm_degree"], outcome["success"]) == (2, 1, True)
    assert outcome["dominant_pool"] == "exhaustion" and flow.state["pending_scar"] is None
    assert flow.state["conflict"]["rerolls"] == [["exhaustion", [1, 3, 6, 6]]]
    assert t.sheet(t.alia)["scars"][0]["invoked_this_session"] is True
    assert flow.state["leader_scars"] == []  # used this session
    [entry] = t.ledger("conflict_scar_invoked")
    assert entry.character_id == t.alia.pk and entry.params["dice"] == [1, 3, 6, 6]
    follow_up = RollFollowUp.objects.get(kind="scar")
    assert SCAR in follow_up.summary_es and "de 4, 5, 6, 6 a 1, 3, 6, 6" in follow_up.summary_es
    assert f"El DJ acepta la cicatriz «{SCAR}»: el agotamiento de Alia pasa de 4, 5, 6, 6 a 1, 3, 6, 6." in lines(flow)

    refused(t, flow, "step_not_available", t.player, "scar", scar=0, pool="discipline")  # no scar left to invoke

    flow = both_pass(t, flow)
    flow = t.step(flow, t.gm, "settle")
    assert flow.status == FlowStatus.SETTLED
    assert t.sheet(t.alia)["exhaustion"] == 5 and t.sheet(t.alia)["scars"][0]["invoked_this_session"]


def test_vector_75_a_scar_reroll_keeps_the_hope_ones(dryh: DryhRolls) -> None:
    """dont-rest-your-head-75: D[4,5,6] + a hope 1; the scar rerolls discipline to [2,2,6]: the pool is
    [2,2,6,1], 3 successes from discipline."""
    t = dryh
    t.set_sheet(t.alia, scars=[scar("La noche del incendio"), scar()])
    t.set_chest(hope=1)
    flow = rolled_to_adjusting(t, 1, [5], [4, 5, 6])
    flow = t.step(flow, t.player, "hope")
    flow = t.step(flow, t.player, "scar", scar=1, pool="discipline")
    flow = t.step(flow, t.gm, "confirm_scar", dice=[2, 2, 6])
    assert sorted_pools(flow)["discipline"] == [6, 2, 2, 1]
    assert flow.state["outcome"]["raw_successes"] == 3
    sheet = t.sheet(t.alia)
    # (B-AMB-20) one reroll per scar per session, but another unused scar may still be invoked.
    assert [s["invoked_this_session"] for s in sheet["scars"]] == [False, True]
    flow = t.step(flow, t.player, "scar", scar=0, pool="discipline")
    flow = t.step(flow, t.gm, "confirm_scar", dice=[4, 4, 4])
    assert sorted_pools(flow)["discipline"] == [4, 4, 4, 1]
    assert [s["invoked_this_session"] for s in t.sheet(t.alia)["scars"]] == [True, True]


def test_vector_74_no_scar_after_the_gm_has_shaded(dryh: DryhRolls) -> None:
    t = dryh
    t.set_sheet(t.alia, scars=[scar()])
    t.set_chest(despair=1)
    flow = rolled_to_adjusting(t, 2, [6, 3], [5, 4, 2])
    flow = t.step(flow, t.gm, "shade", kind="add6", pool="pain")
    refused(t, flow, "SCAR_AFTER_SHADING", t.player, "scar", scar=0, pool="discipline")


def test_scar_refusals_change_nothing(dryh: DryhRolls) -> None:
    t = dryh
    t.set_sheet(t.alia, scars=[scar(), scar("Tachada", crossed_out=True)])
    flow = t.opposed(2)
    refused(t, flow, "step_not_available", t.player, "scar", scar=0, pool="discipline")  # nothing rolled yet
    flow = t.step(flow, t.player, "roll_leader", dice=[5, 4, 2])
    flow = t.step(flow, t.gm, "roll_pain", dice=[6, 3])
    refused(t, flow, "SCAR_CROSSED_OUT", t.player, "scar", scar=1, pool="discipline")
    refused(t, flow, "SCAR_NOT_FOUND", t.player, "scar", scar=5, pool="discipline")
    refused(t, flow, "POOL_NOT_IN_PLAY", t.player, "scar", scar=0, pool="madness")  # no madness dice rolled
    refused(t, flow, "POOL_NOT_IN_PLAY", t.player, "scar", scar=0, pool="exhaustion")  # exhaustion 0
    refused(t, flow, "step_not_available", t.gm, "confirm_scar", dice=[1, 1, 1])  # nothing proposed
    before = snapshot(t, flow)
    with pytest.raises(PermissionDenied):  # the GM doesn't invoke the player's scars
        t.step(flow, t.gm, "scar", scar=0, pool="discipline")
    with pytest.raises(PermissionDenied):  # nor does another player
        t.step(flow, t.player2, "scar", scar=0, pool="discipline")
    assert snapshot(t, flow) == before

    flow = t.step(flow, t.player, "scar", scar=0, pool="discipline")
    # While the GM hasn't answered: no second proposal, no shading, the window can't close.
    t.set_chest(despair=1)
    assert awaited(flow) == {"confirm_scar": (True, [])}
    for actor, step, params in (
        (t.player, "scar", {"scar": 0, "pool": "discipline"}),
        (t.gm, "shade", {"kind": "add6", "pool": "pain"}),
        (t.gm, "gm_pass", {}),
        (t.player, "pass", {}),
        (t.gm, "resolve", {}),
    ):
        refused(t, flow, "step_not_available", actor, step, **params)

    # The GM doesn't see the connection: no dice, no mark, the scar stays usable.
    flow = t.step(flow, t.gm, "refuse_scar")
    assert flow.state["pending_scar"] is None and not Roll.objects.filter(kind="scar_reroll").exists()
    assert not t.sheet(t.alia)["scars"][0]["invoked_this_session"] and not t.ledger("conflict_scar_invoked")
    assert f"El DJ no acepta la cicatriz «{SCAR}» de Alia." in lines(flow)

    flow = both_pass(t, flow)
    refused(t, flow, "step_not_available", t.player, "scar", scar=0, pool="discipline")


def test_a_scar_reroll_is_only_rolled_inside_a_conflict(dryh: DryhRolls) -> None:
    t = dryh
    with pytest.raises(RulesError) as exc:
        create_post_with_rolls(
            author=t.player,
            scene=t.scene,
            body="Invoco mi cicatriz",
            voice="ooc",
            rolls=[RollSpec("scar_reroll", {"pool": "discipline", "dice": 3}, t.alia.pk)],
            dice=ScriptedDice([1, 1, 1]),
        )
    assert exc.value.code == "needs_conflict" and not Roll.objects.exists()


def test_the_scar_ledger_operation_is_not_a_back_door(dryh: DryhRolls) -> None:
    from characters import services as character_services

    t = dryh
    t.set_sheet(t.alia, scars=[scar()])
    flow = rolled_to_adjusting(t, 2, [6, 3], [5, 4, 2])
    with pytest.raises(RulesError) as exc:
        character_services.apply_operation(
            actor=t.gm,
            campaign=t.campaign,
            operation="conflict_scar_invoked",
            params={"flow": flow.pk, "conflict": flow.state["conflict"], "scar_index": 0, "pool": "discipline"}
            | {"dice": [1, 1, 1]},
            character=t.alia,
        )
    assert exc.value.code == "operation_needs_flow"
    assert not t.sheet(t.alia)["scars"][0]["invoked_this_session"]


# --- group conflicts with an unclear leader ---------------------------------------------------------------


def group(t: DryhRolls, actor: Any = None, **params: Any) -> Flow:
    params.setdefault("participants", [t.gavin.pk, t.alia.pk])
    return runner.start_procedure(actor=actor or t.player, scene=t.scene, kind="conflict", params=params)


def test_vector_57_unclear_leader_the_most_successes_leads(dryh: DryhRolls) -> None:
    """dont-rest-your-head-57: Gavin D[1,2,6] E[3] M[2,2] (5 successes) and Alia D[1,5,5] E[2,4] (2) against
    P[1,2,3,4]: Gavin leads, Alia adds her discipline successes only (1): 6 vs 3, discipline dominates, and both
    may take the discipline benefit."""
    t = dryh
    t.set_sheet(t.gavin, exhaustion=1)
    t.set_sheet(t.alia, exhaustion=2)
    flow = group(t)
    assert flow.state["conflict"]["unclear_leader"] and flow.state["conflict"]["leader"] is None
    assert lines(flow) == ["Acción de grupo: Gavin, Alia; dirige quien saque más éxitos."]
    assert sorted(t.chest()["conflicts"][str(flow.pk)]["involved"]) == sorted([t.alia.pk, t.gavin.pk])
    flow = t.step(flow, t.gm, "oppose", pain=4)
    assert awaited(flow)["roll_leader"] == (False, sorted([t.player.pk, t.player2.pk]))

    # The pain roll made first stays sealed until every participant has rolled.
    flow = t.step(flow, t.gm, "roll_pain", dice=[1, 2, 3, 4])
    assert flow.state["pain_sealed"] and Roll.objects.get(kind="pain").gm_only
    assert view_roll(policy.viewer_for(t.player, t.campaign), Roll.objects.get(kind="pain")) is None
    refused(t, flow, "choice_not_offered", t.player, "roll_leader", dice=[1, 1, 1], pc=t.gavin.pk)  # not her PC
    flow = t.step(flow, t.player2, "roll_leader", dice=[1, 2, 6, 3, 2, 2], temp_madness=2)
    assert flow.state["phase"] == "AWAITING_ROLLS" and flow.state["pain_sealed"]
    with pytest.raises(PermissionDenied):  # Gavin has rolled: his player has nothing left to roll
        t.step(flow, t.player2, "roll_leader", dice=[1, 1, 1, 1, 1, 1])
    flow = t.step(flow, t.player, "roll_leader", dice=[1, 5, 5, 2, 4])

    assert flow.state["phase"] == "ADJUSTING" and not flow.state["pain_sealed"]
    assert view_roll(policy.viewer_for(t.player, t.campaign), Roll.objects.get(kind="pain")) is not None
    conflict = flow.state["conflict"]
    assert conflict["leader"] == str(t.gavin.pk) and conflict["helpers"] == [str(t.alia.pk)]
    assert conflict["helper_rolls"] == [{"pc": str(t.alia.pk), "discipline": [1, 5, 5], "full_pool_size": 5}]
    outcome = flow.state["outcome"]
    assert (outcome["player_degree"], outcome["gm_degree"], outcome["helper_successes"]) == (6, 3, 1)
    assert outcome["dominant_pool"] == "discipline" and outcome["success"]
    assert flow.state["people"][str(t.gavin.pk)]["actor"] == t.player2.pk
    assert flow.state["rolls"]["leader"] == flow.state["rolls"]["participants"][str(t.gavin.pk)]
    assert "Se revela el dolor: 1, 2, 3, 4." in lines(flow)
    assert "Protagonista principal: Gavin; los demás ayudan con sus éxitos de disciplina." in lines(flow)

    # The leader's player acts in the window; Alia's player now only helps.
    with pytest.raises(PermissionDenied):
        t.step(flow, t.player, "hope")
    flow = t.step(flow, t.gm, "gm_pass")
    flow = t.step(flow, t.player2, "pass")
    assert awaited(flow) == {"choose": (False, sorted([t.player.pk, t.player2.pk]))}
    flow = t.step(flow, t.player2, "choose", pc=t.gavin.pk, benefit="exhaustion-1")
    flow = t.step(flow, t.player, "choose", pc=t.alia.pk, benefit="exhaustion-1")
    flow = t.step(flow, t.gm, "settle")
    assert flow.status == FlowStatus.SETTLED
    assert (t.sheet(t.gavin)["exhaustion"], t.sheet(t.alia)["exhaustion"]) == (0, 1)
    assert str(flow.pk) not in (t.chest().get("conflicts") or {})


def test_a_tie_for_leader_waits_for_the_gm(dryh: DryhRolls) -> None:
    """(R, B-AMB-31) tied for the most successes: the GM picks among the tied; the others help."""
    t = dryh
    flow = group(t, actor=t.gm, pain=2)
    assert flow.state["phase"] == "AWAITING_ROLLS"
    flow = t.step(flow, t.player2, "roll_leader", dice=[1, 2, 6])
    flow = t.step(flow, t.player, "roll_leader", dice=[3, 1, 5])
    flow = t.step(flow, t.gm, "roll_pain", dice=[5, 6])
    assert flow.state["phase"] == "REVEALED" and awaited(flow) == {"pick_leader": (True, [])}
    assert flow.state["outcome"] is None
    assert "Empate a éxitos: el DJ elige al protagonista principal entre los empatados." in lines(flow)
    before = snapshot(t, flow)
    with pytest.raises(PermissionDenied):
        t.step(flow, t.player, "pick_leader", pc=t.alia.pk)
    assert snapshot(t, flow) == before
    refused(t, flow, "choice_not_offered", t.gm, "pick_leader", pc=999999)

    flow = t.step(flow, t.gm, "pick_leader", pc=t.alia.pk)
    conflict = flow.state["conflict"]
    assert flow.state["phase"] == "ADJUSTING" and conflict["leader"] == str(t.alia.pk)
    assert conflict["helper_rolls"] == [{"pc": str(t.gavin.pk), "discipline": [1, 2, 6], "full_pool_size": 3}]
    assert flow.state["outcome"]["player_degree"] == 4
    refused(t, flow, "step_not_available", t.gm, "pick_leader", pc=t.gavin.pk)  # the leader is settled


def test_a_tie_without_a_choice_goes_to_the_first_to_post(dryh: DryhRolls) -> None:
    t = dryh
    flow = group(t, actor=t.gm, pain=1)
    flow = t.step(flow, t.player, "roll_leader", dice=[1, 5, 5])
    flow = t.step(flow, t.player2, "roll_leader", dice=[6, 2, 4])
    flow = t.step(flow, t.gm, "roll_pain", dice=[6])
    flow = t.step(flow, t.gm, "pick_leader")
    assert flow.state["conflict"]["leader"] == str(t.alia.pk)


def test_group_conflict_refusals(dryh: DryhRolls) -> None:
    t = dryh
    count = Flow.objects.count()
    with pytest.raises(RulesError) as exc:
        group(t, participants=[t.alia.pk])
    assert exc.value.code == "group_needs_two"
    with pytest.raises(RulesError) as exc:
        group(t, leader=t.alia.pk)
    assert exc.value.code == "group_or_leader"
    with pytest.raises(RulesError) as exc:
        runner.start_procedure(actor=t.player, scene=t.scene, kind="conflict", params={})
    assert exc.value.code == "leader_required"
    with pytest.raises(PermissionDenied):  # a player opens group actions only with their own protagonist in
        group(t, pain=2)
    assert Flow.objects.count() == count


# --- the API ------------------------------------------------------------------------------------------------


def test_a_scar_through_the_api(dryh: DryhRolls, monkeypatch: pytest.MonkeyPatch) -> None:
    t = dryh
    t.set_sheet(t.alia, scars=[scar()])
    faces: list[int] = []
    monkeypatch.setattr("rolls.runner.SystemDice", lambda: ScriptedDice(faces))
    gm, player = APIClient(), APIClient()
    gm.force_authenticate(t.gm)
    player.force_authenticate(t.player)
    flow = rolled_to_adjusting(t, 2, [6, 3], [5, 4, 4])
    assert not flow.state["outcome"]["success"]

    def step(client: APIClient, name: str, key: str, dice: list[int] = (), **params: Any) -> Any:  # type: ignore[assignment]
        faces[:] = list(dice)
        return client.post(
            f"/api/flows/{flow.pk}/steps/", {"step": name, "params": params, "idempotency_key": key}, format="json"
        )

    assert step(player, "scar", "s1", scar=0, pool="discipline").status_code == 201
    assert step(player, "confirm_scar", "s2", [1, 2, 3]).status_code == 403
    done = step(gm, "confirm_scar", "s3", [1, 2, 3])
    assert done.status_code == 201
    assert done.json()["state"]["outcome"]["success"] is True
    assert step(gm, "confirm_scar", "s3", [1, 2, 3]).status_code == 200  # a replay rolls nothing more
    assert Roll.objects.filter(kind="scar_reroll").count() == 1
    again = step(player, "scar", "s4", scar=0, pool="discipline")
    assert again.status_code == 400 and again.json()["error"]["code"] == "step_not_available"  # none left
    assert t.sheet(t.alia)["scars"][0]["invoked_this_session"] is True


# --- the web pages ------------------------------------------------------------------------------------------


def test_the_web_forms_open_a_group_action_and_invoke_a_scar(dryh: DryhRolls, monkeypatch: pytest.MonkeyPatch) -> None:
    from django.test import Client

    t = dryh
    t.set_sheet(t.gavin, scars=[scar()])
    faces: list[int] = []
    monkeypatch.setattr("rolls.runner.SystemDice", lambda: ScriptedDice(faces))
    gm, player2 = Client(), Client()
    gm.force_login(t.gm)
    player2.force_login(t.player2)
    start_form = gm.get(f"/scenes/{t.scene.pk}/flows/").content.decode()
    assert 'name="participants[]"' in start_form

    gm.post(
        f"/scenes/{t.scene.pk}/flows/conflict/start/",
        {"participants[]": [t.gavin.pk, t.alia.pk], "pain": "2"},
        HTTP_HX_REQUEST="true",
    )
    flow = Flow.objects.get()
    assert flow.state["conflict"]["participants"] == [str(t.gavin.pk), str(t.alia.pk)]
    page = player2.get(f"/flows/{flow.pk}/").content.decode()
    assert "step-roll_leader" in page and f'<option value="{t.gavin.pk}">Gavin</option>' in page

    flow = t.step(flow, t.player2, "roll_leader", dice=[1, 2, 6])
    flow = t.step(flow, t.player, "roll_leader", dice=[3, 1, 5])
    flow = t.step(flow, t.gm, "roll_pain", dice=[5, 6])
    assert "step-pick_leader" in gm.get(f"/flows/{flow.pk}/").content.decode()
    assert "step-pick_leader" not in player2.get(f"/flows/{flow.pk}/").content.decode()
    gm.post(f"/flows/{flow.pk}/steps/pick_leader/", {"pc": t.gavin.pk, "idempotency_key": "w1"}, HTTP_HX_REQUEST="true")

    page = player2.get(f"/flows/{flow.pk}/").content.decode()
    assert "step-scar" in page and f'<option value="0">{SCAR}</option>' in page
    scar_form = {"scar": "0", "pool": "discipline", "idempotency_key": "w2"}
    player2.post(f"/flows/{flow.pk}/steps/scar/", scar_form, HTTP_HX_REQUEST="true")
    page = gm.get(f"/flows/{flow.pk}/").content.decode()
    assert "step-confirm_scar" in page
    faces[:] = [2, 2, 2]
    gm.post(f"/flows/{flow.pk}/steps/confirm_scar/", {"idempotency_key": "w3"}, HTTP_HX_REQUEST="true")
    flow = Flow.objects.get(pk=flow.pk)
    assert flow.state["conflict"]["leader_roll"]["pc"] == str(t.gavin.pk)
    assert flow.state["conflict"]["rerolls"] == [["discipline", [2, 2, 2]]]
    assert "step-scar" not in player2.get(f"/flows/{flow.pk}/").content.decode()  # used this session
