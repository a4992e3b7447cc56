"""No te Duermas conflicts end to end through ``rolls.runner`` with scripted dice: both rolls in either order
(a sealed pain roll), hope and shading, settlement with every kind of effect, every coin through the
ledger, every refusal changing nothing; and the same through the API."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import PermissionDenied
from rest_framework.test import APIClient

from campaigns import policy
from characters import services as character_services
from characters.models import Character, LedgerEntry
from rolls.models import Flow, FlowLine, FlowStatus, FlowStep, Roll, RollFollowUp
from rolls.selectors import view_roll
from rulesets.dont_rest_your_head.tests.rolls_fixtures import DryhRolls, build_dryh_rolls
from systems.dice import ScriptedDice
from systems.errors import RulesError

pytestmark = pytest.mark.django_db


@pytest.fixture
def dryh(db: None) -> DryhRolls:
    return build_dryh_rolls()


def snapshot(t: DryhRolls, flow: Flow) -> tuple[Any, ...]:
    flow = Flow.objects.get(pk=flow.pk)
    sheets = dict(Character.objects.filter(campaign=t.campaign).values_list("pk", "sheet"))
    return (
        flow.state,
        flow.secret_state,
        flow.status,
        sheets,
        t.chest(),
        LedgerEntry.objects.count(),
        Roll.objects.count(),
        RollFollowUp.objects.count(),
        FlowStep.objects.count(),
    )


def refused(
    t: DryhRolls, flow: Flow, code: str, actor: Any, step: str, dice: list[int] | None = None, **params: Any
) -> RulesError:
    before = snapshot(t, flow)
    with pytest.raises(RulesError) as exc:
        t.step(flow, actor, step, dice=dice, **params)
    assert exc.value.code == code, exc.value.message_es
    assert snapshot(t, flow) == before
    return exc.value


def rolled_to_adjusting(t: DryhRolls, pain: int, pain_dice: list[int], leader_dice: list[int], **leader: Any) -> Flow:
    flow = t.opposed(pain)
    flow = t.step(flow, t.player, "roll_leader", dice=leader_dice, **leader)
    flow = t.step(flow, t.gm, "roll_pain", dice=pain_dice)
    assert flow.state["phase"] == "ADJUSTING"
    return flow


def both_pass(t: DryhRolls, flow: Flow) -> Flow:
    flow = t.step(flow, t.gm, "gm_pass")
    return t.step(flow, t.player, "pass")


def awaited(flow: Flow) -> dict[str, tuple[bool, list[int]]]:
    """What the conflict waits for, derived from its step table: step -> (the GMs?, user ids)."""
    return {e["step"]: (e["gm"], e["users"]) for e in (flow.waiting_for or {}).get("steps", [])}


def lines(flow: Flow, lang: str = "es", *, gm_only: bool | None = None) -> list[str]:
    rows = FlowLine.objects.filter(flow_id=flow.pk).order_by("position")
    if gm_only is not None:
        rows = rows.filter(gm_only=gm_only)
    return list(rows.values_list("text_en" if lang == "en" else "text_es", flat=True))


# --- the whole conflict -------------------------------------------------------------------------------


def test_vector_9_sealed_pain_first_shading_and_despair_to_hope(dryh: DryhRolls) -> None:
    """dont-rest-your-head-9: D[6,5,1] E[5,1] vs P[4,3,2]; remove a 6 from D, add a 6 to E: exhaustion
    dominates, 2 vs 2 still a win; despair 3→1, pending 2, hope 0→2 at the close."""
    t = dryh
    t.set_sheet(t.alia, exhaustion=2)
    t.set_chest(despair=3, hope=0)
    flow = t.open()
    assert awaited(flow) == {"oppose": (True, [])}
    assert t.chest()["conflicts"][str(flow.pk)]["involved"] == [t.alia.pk]
    flow = t.step(flow, t.gm, "oppose", pain=3)
    assert awaited(flow) == {"roll_pain": (True, []), "roll_leader": (False, [t.player.pk])}

    # The GM rolls first: sealed (GM-only roll, dice only in secret_state) until the player's roll.
    flow = t.step(flow, t.gm, "roll_pain", dice=[4, 3, 2])
    pain_roll = Roll.objects.get(kind="pain")
    assert pain_roll.gm_only and flow.secret_state == {"pain_dice": [4, 3, 2]}
    assert flow.state["conflict"]["pain_roll"] is None and flow.state["pain_sealed"]
    assert "4, 3, 2" not in str(flow.state) and "[4, 3, 2]" not in str(flow.state)
    player_view = policy.viewer_for(t.player, t.campaign)
    assert view_roll(player_view, pain_roll) is None
    assert awaited(flow) == {"roll_leader": (False, [t.player.pk])}

    flow = t.step(flow, t.player, "roll_leader", dice=[6, 5, 1, 5, 1])
    assert flow.state["phase"] == "ADJUSTING" and flow.secret_state == {"pain_dice": []}
    assert view_roll(player_view, Roll.objects.get(kind="pain")) is not None  # revealed
    leader_roll = Roll.objects.get(kind="leader")
    assert leader_roll.result["pools"] == {"discipline": [6, 5, 1], "exhaustion": [5, 1], "madness": []}
    assert flow.state["outcome"]["dominant_pool"] == "discipline" and flow.state["outcome"]["success"]

    flow = t.step(flow, t.gm, "shade", kind="remove6", pool="discipline")
    assert flow.state["outcome"]["dominant_pool"] == "discipline"
    flow = t.step(flow, t.gm, "shade", kind="add6", pool="exhaustion")
    assert flow.state["outcome"]["dominant_pool"] == "exhaustion" and flow.state["outcome"]["success"]
    assert t.chest()["despair"] == 1 and t.chest()["hope"] == 0
    assert t.chest()["conflicts"][str(flow.pk)]["despair_spent"] == 2
    assert [e.changes for e in t.ledger("conflict_despair_spent")] == [
        {"campaign.despair": [3, 2], "campaign.despair_spent": [0, 1]},
        {"campaign.despair": [2, 1], "campaign.despair_spent": [1, 2]},
    ]

    flow = both_pass(t, flow)
    assert flow.state["phase"] == "SETTLING" and awaited(flow) == {"settle": (True, [])}
    flow = t.step(flow, t.gm, "settle")
    assert flow.status == FlowStatus.SETTLED and flow.waiting_for == {}
    assert t.sheet(t.alia)["exhaustion"] == 3
    assert t.chest()["despair"] == 1 and t.chest()["hope"] == 2 and t.chest()["conflicts"] == {}
    (settled,) = t.ledger("conflict_settled")
    assert settled.changes == {
        "campaign.despair_spent": [2, 0],
        "campaign.hope": [0, 2],
        f"character.{t.alia.pk}.exhaustion": [2, 3],
    }
    kinds = list(RollFollowUp.objects.filter(roll=leader_roll).values_list("kind", flat=True))
    assert kinds == ["shade", "shade", "settle"]  # both shadings touched the player's pools
    shade_notes = list(RollFollowUp.objects.filter(kind="shade").values_list("summary_es", flat=True))
    assert shade_notes[0].startswith("El DJ ensombrece la disciplina: quita un 6.")
    settle_note = RollFollowUp.objects.get(kind="settle")
    assert "éxito con 2" in settle_note.summary_es and "domina el agotamiento" in settle_note.summary_es
    assert "2 monedas de desesperación gastadas pasan al cofre de esperanza" in settle_note.summary_es


def test_vector_10_hope_turns_a_failure_into_a_win_then_the_discipline_benefit(dryh: DryhRolls) -> None:
    """dont-rest-your-head-10: 2 vs 3, one hope coin adds a 1: 3 vs 3, the tie goes to the protagonist."""
    t = dryh
    t.set_sheet(t.alia, exhaustion=2)
    t.set_chest(hope=2)
    flow = rolled_to_adjusting(t, 5, [1, 2, 3, 4, 4], [2, 4, 5, 3, 5])
    assert not flow.state["outcome"]["success"]
    flow = t.step(flow, t.player, "hope", coins=1)
    assert flow.state["outcome"]["success"] and flow.state["outcome"]["dominant_pool"] == "discipline"
    assert flow.state["outcome"]["pools"]["discipline"] == [2, 4, 5, 1]
    assert t.chest()["hope"] == 1
    (entry,) = t.ledger("conflict_hope_spent")
    assert entry.actor == t.player and entry.changes == {"campaign.hope": [2, 1]}
    flow = both_pass(t, flow)
    assert awaited(flow) == {"choose": (False, [t.player.pk])}
    refused(t, flow, "step_not_available", t.gm, "settle")  # the player's choice first
    refused(t, flow, "choice_not_offered", t.player, "choose", benefit="clear_fight")  # no box is checked
    flow = t.step(flow, t.player, "choose", benefit="exhaustion-1")
    flow = t.step(flow, t.gm, "settle")
    assert t.sheet(t.alia)["exhaustion"] == 1 and t.chest()["hope"] == 1


def test_vector_8_failure_exhaustion_dominates_gm_consequence_checks_a_box(dryh: DryhRolls) -> None:
    t = dryh
    t.set_sheet(t.alia, exhaustion=2)
    flow = rolled_to_adjusting(t, 3, [2, 3, 5], [4, 5, 1, 6, 4])
    flow = both_pass(t, flow)
    assert flow.state["consequences"] == ["none", "check_box"]
    refused(t, flow, "choice_not_offered", t.gm, "settle", consequence="exhaustion+1")
    flow = t.step(flow, t.gm, "settle", consequence="check_box", consequence_box="flight")
    sheet = t.sheet(t.alia)
    assert (sheet["exhaustion"], sheet["fight"], sheet["flight"]) == (3, 0, 1)


def test_vector_56_helper_adds_successes_and_snaps_when_madness_dominates(dryh: DryhRolls) -> None:
    """The leader (temp madness 2) D[1,4,4] M[6,2] + helper H[2,5,6] vs P[3,5]: 3 vs 1, madness
    dominates; the leader checks a box, the helper has none free and snaps."""
    t = dryh
    t.set_sheet(t.gavin, fight=3, flight=3)
    flow = t.open(helpers=[t.gavin.pk])
    assert t.chest()["conflicts"][str(flow.pk)]["involved"] == sorted([t.alia.pk, t.gavin.pk])
    flow = t.step(flow, t.gm, "oppose", pain=2)
    assert awaited(flow) == {
        "roll_pain": (True, []),
        "roll_leader": (False, [t.player.pk]),
        "roll_helper": (False, [t.player2.pk]),
    }
    with pytest.raises(PermissionDenied):  # a helper's player does not roll for the leader
        t.step(flow, t.player2, "roll_leader", dice=[1, 4, 4])
    flow = t.step(flow, t.player, "roll_leader", dice=[1, 4, 4, 6, 2], temp_madness=2)
    flow = t.step(flow, t.gm, "roll_pain", dice=[3, 5])
    assert flow.state["phase"] == "AWAITING_ROLLS"  # the helper has not rolled yet
    flow = t.step(flow, t.player2, "roll_helper", dice=[2, 5, 6])
    out = flow.state["outcome"]
    assert (out["player_degree"], out["gm_degree"], out["dominant_pool"]) == (3, 1, "madness")
    flow = both_pass(t, flow)
    assert flow.waiting_for == {
        "steps": [
            {
                "step": "choose",
                "gm": False,
                "users": [t.player.pk],
                "label_es": "la elección de Alia",
                "label_en": "the choice of Alia",
            }
        ]
    }
    flow = t.step(flow, t.player, "choose", box="fight")
    flow = t.step(flow, t.gm, "settle")
    leader, helper = t.sheet(t.alia), t.sheet(t.gavin)
    assert (leader["fight"], leader["flight"]) == (1, 0)
    assert (helper["fight"], helper["flight"], helper["discipline"], helper["permanent_madness"]) == (0, 0, 2, 1)
    assert "Gavin estalla: −1 disciplina, +1 locura permanente, casillas de respuesta limpias." in lines(flow)


def test_vector_44_snap_into_a_nightmare(dryh: DryhRolls) -> None:
    t = dryh
    t.set_sheet(t.alia, discipline=1, exhaustion=3, permanent_madness=2, fight=3, flight=3)
    flow = rolled_to_adjusting(t, 3, [6, 5, 3], [4, 5, 2, 1, 6, 6, 3, 2], temp_madness=2)
    assert flow.state["outcome"]["dominant_pool"] == "madness"
    flow = both_pass(t, flow)
    assert awaited(flow) == {"settle": (True, [])}  # nothing to choose: no box is free
    flow = t.step(flow, t.gm, "settle")
    sheet = t.sheet(t.alia)
    assert (sheet["status"], sheet["discipline"], sheet["nightmare_pain"]) == ("nightmare", 0, 8)
    assert flow.state["settlement"]["nightmares"] == {str(t.alia.pk): 8}
    assert "Alia es ahora una Pesadilla con 8 dados de dolor." in lines(flow)
    assert "Alia is now a Nightmare with 8 pain dice." in lines(flow, "en")


def test_vector_40_crash_via_domination(dryh: DryhRolls) -> None:
    t = dryh
    t.set_sheet(t.alia, exhaustion=6)
    flow = rolled_to_adjusting(t, 3, [6, 5, 3], [4, 5, 2, 6, 6, 4, 4, 2, 1])
    flow = t.step(both_pass(t, flow), t.gm, "settle")
    sheet = t.sheet(t.alia)
    assert (sheet["exhaustion"], sheet["status"]) == (7, "crash_pending")
    assert "Alia colapsa: se dormirá al final de la escena." in lines(flow)


def test_vector_61_pain_dominated_anyway_earns_the_coin(dryh: DryhRolls) -> None:
    t = dryh
    t.set_chest(despair=1)
    flow = rolled_to_adjusting(t, 2, [6, 3], [5, 4, 2])
    flow = t.step(flow, t.gm, "shade", kind="add6", pool="pain")
    flow = t.step(both_pass(t, flow), t.gm, "settle")
    assert (t.chest()["despair"], t.chest()["hope"]) == (1, 1)
    assert flow.state["settlement"]["despair_gained"] == 1


def test_vector_60_shading_pain_into_dominance_earns_nothing(dryh: DryhRolls) -> None:
    t = dryh
    t.set_sheet(t.alia, exhaustion=2)
    t.set_chest(despair=1)
    flow = rolled_to_adjusting(t, 3, [5, 2, 1], [5, 4, 2, 5, 3])
    flow = t.step(flow, t.gm, "shade", kind="add6", pool="pain")
    assert flow.state["outcome"]["dominant_pool"] == "pain"
    flow = t.step(both_pass(t, flow), t.gm, "settle")
    assert (t.chest()["despair"], t.chest()["hope"]) == (0, 1)


def test_voluntary_increase_goes_through_the_ledger_before_the_dice(dryh: DryhRolls) -> None:
    """§3.10 step 3: +1 exhaustion applied at once (and it stays), rolled as a die."""
    t = dryh
    t.set_sheet(t.alia, exhaustion=1)
    flow = t.opposed(2)
    flow = t.step(flow, t.player, "roll_leader", dice=[4, 5, 6, 5, 5], voluntary_increase="on")
    assert Roll.objects.get(kind="leader").result["pools"]["exhaustion"] == [5, 5]
    assert t.sheet(t.alia)["exhaustion"] == 2
    (entry,) = t.ledger("conflict_voluntary_exhaustion")
    assert entry.actor == t.player and entry.changes == {f"character.{t.alia.pk}.exhaustion": [1, 2]}
    flow = t.step(flow, t.gm, "void") if flow.state["phase"] != "ADJUSTING" else flow
    assert flow.status == FlowStatus.CANCELLED and t.sheet(t.alia)["exhaustion"] == 2  # (S) it stays
    assert t.chest()["conflicts"] == {}


def test_minor_use_proposed_by_the_player_confirmed_by_the_gm(dryh: DryhRolls) -> None:
    """dont-rest-your-head-50: exhaustion 3, raw 1 → floor 3: 3 vs 1."""
    t = dryh
    t.set_sheet(t.alia, exhaustion=3)
    flow = rolled_to_adjusting(t, 2, [2, 6], [4, 5, 6, 1, 4, 5])
    flow = t.step(flow, t.player, "minor_use")
    assert awaited(flow) == {"confirm_minor": (True, [])}
    flow = t.step(flow, t.gm, "confirm_minor")
    out = flow.state["outcome"]
    assert (out["player_degree"], out["gm_degree"], out["success"]) == (3, 1, True)
    refused(t, flow, "step_not_available", t.player, "minor_use")  # (B-AMB-07) one talent use per roll


# --- refusals: nothing changes ------------------------------------------------------------------------


def test_spending_hope_you_do_not_have(dryh: DryhRolls) -> None:
    t = dryh
    flow = rolled_to_adjusting(t, 2, [4, 5], [4, 5, 6])
    refused(t, flow, "step_unavailable", t.player, "hope", coins=1)  # disabled with "El cofre de esperanza está vacío."


def test_vector_63_spent_despair_is_not_yet_hope(dryh: DryhRolls) -> None:
    t = dryh
    t.set_chest(despair=2, hope=0)
    flow = rolled_to_adjusting(t, 2, [4, 5], [4, 5, 6])
    flow = t.step(flow, t.gm, "shade", kind="add6", pool="pain")
    flow = t.step(flow, t.gm, "shade", kind="add6", pool="pain")
    refused(t, flow, "step_unavailable", t.player, "hope")  # NO_HOPE itself: tests/systems
    flow = t.step(both_pass(t, flow), t.gm, "settle")
    assert t.chest()["hope"] == 2


def test_shading_refusals(dryh: DryhRolls) -> None:
    t = dryh
    flow = rolled_to_adjusting(t, 2, [4, 5], [4, 5, 3])
    refused(t, flow, "step_unavailable", t.gm, "shade", kind="remove6", pool="discipline")  # NO_DESPAIR: tests/systems
    t.set_chest(despair=2)
    refused(t, flow, "POOL_NOT_IN_PLAY", t.gm, "shade", kind="add6", pool="madness")  # vector 19
    refused(t, flow, "POOL_NOT_IN_PLAY", t.gm, "shade", kind="add6", pool="exhaustion")
    refused(t, flow, "NO_SIX_IN_POOL", t.gm, "shade", kind="remove6", pool="discipline")  # vector 62
    with pytest.raises(PermissionDenied):
        t.step(flow, t.player, "shade", kind="add6", pool="pain")


def test_rolling_twice_and_rolling_out_of_turn(dryh: DryhRolls) -> None:
    t = dryh
    flow = t.open()
    refused(t, flow, "step_not_available", t.player, "roll_leader", dice=[1, 2, 3])  # no opposition yet
    flow = t.step(flow, t.gm, "oppose", pain=2)
    flow = t.step(flow, t.player, "roll_leader", dice=[1, 2, 3])
    refused(t, flow, "step_not_available", t.player, "roll_leader", dice=[1, 2, 3])  # no second roll
    flow = t.step(flow, t.gm, "roll_pain", dice=[4, 5])
    refused(t, flow, "step_not_available", t.gm, "roll_pain", dice=[4, 5])


def test_exhaustion_cap_is_refused_before_any_die_is_rolled(dryh: DryhRolls) -> None:
    t = dryh
    t.set_sheet(t.alia, exhaustion=6)
    flow = t.opposed(2)
    refused(t, flow, "EXHAUSTION_CAP", t.player, "roll_leader", dice=[1] * 10, voluntary_increase="1")
    refused(t, flow, "MADNESS_RANGE", t.player, "roll_leader", dice=[1] * 20, temp_madness=7)


def test_settling_before_the_window_closes_and_settling_twice(dryh: DryhRolls) -> None:
    t = dryh
    flow = rolled_to_adjusting(t, 2, [4, 5], [4, 5, 6])
    refused(t, flow, "step_not_available", t.gm, "settle")
    flow = both_pass(t, flow)
    refused(t, flow, "step_not_available", t.player, "hope")
    flow = t.step(flow, t.gm, "settle", key="settle-1")
    again = t.step(flow, t.gm, "settle", key="settle-1")  # a double click: the same request
    assert again.status == FlowStatus.SETTLED and FlowStep.objects.filter(step="settle").count() == 1
    assert len(t.ledger("conflict_settled")) == 1
    with pytest.raises(RulesError) as exc:
        t.step(flow, t.gm, "settle", key="settle-2")  # another GM, another request
    assert exc.value.code == "step_not_available"
    assert len(t.ledger("conflict_settled")) == 1


def test_a_replayed_hope_spends_one_coin(dryh: DryhRolls) -> None:
    t = dryh
    t.set_chest(hope=3)
    flow = rolled_to_adjusting(t, 2, [4, 5], [4, 5, 6])
    t.step(flow, t.player, "hope", key="h1")
    t.step(flow, t.player, "hope", key="h1")
    assert t.chest()["hope"] == 2 and len(t.ledger("conflict_hope_spent")) == 1


def test_only_the_leaders_player_spends_hope_and_nobody_acts_for_another(dryh: DryhRolls) -> None:
    t = dryh
    t.set_chest(hope=3)
    flow = rolled_to_adjusting(t, 2, [4, 5], [4, 5, 6])
    for intruder in (t.player2, t.gm, t.reader):
        with pytest.raises(PermissionDenied):
            t.step(flow, intruder, "hope")
    refused(t, flow, "step_not_available", t.player, "settle")  # not offered to anyone yet
    assert t.chest()["hope"] == 3


def test_a_player_opens_only_their_own_conflict_and_never_sets_pain(dryh: DryhRolls) -> None:
    t = dryh
    with pytest.raises(PermissionDenied):
        t.open(actor=t.player2)  # Alia is not theirs
    with pytest.raises(PermissionDenied):
        t.open(pain=2)
    assert not Flow.objects.exists() and not LedgerEntry.objects.exists()


def test_flow_ledger_operations_are_not_a_back_door(dryh: DryhRolls) -> None:
    """Applied directly (operations API), the conflict's coin operations are refused, even for the GM:
    they only happen inside the conflict's flow."""
    t = dryh
    t.set_chest(hope=3)
    flow = rolled_to_adjusting(t, 2, [4, 5], [4, 5, 6])
    for actor in (t.player, t.gm):
        with pytest.raises(RulesError) as exc:
            character_services.apply_operation(
                actor=actor,
                campaign=t.campaign,
                operation="conflict_hope_spent",
                params={"flow": flow.pk, "conflict": flow.state["conflict"], "coins": 3},
                character=t.alia,
            )
        assert exc.value.code == "operation_needs_flow"
    assert t.chest()["hope"] == 3


def test_breather_and_recovery_know_the_open_conflict(dryh: DryhRolls) -> None:
    """dont-rest-your-head-64: IN_CONFLICT computed from the open conflict, allowed after the close."""
    t = dryh
    t.set_sheet(t.alia, exhaustion=2)
    t.set_chest(hope=2, session_open=True, session_number=1)
    flow = rolled_to_adjusting(t, 2, [4, 5], [4, 5, 6, 4, 5])

    def breather() -> LedgerEntry:
        return character_services.apply_operation(
            actor=t.gm,
            campaign=t.campaign,
            operation="take_breather",
            params={"uses": ["exhaustion-1"]},
            character=t.alia,
        )

    with pytest.raises(RulesError) as exc:
        breather()
    assert exc.value.code == "IN_CONFLICT"
    with pytest.raises(RulesError) as exc:
        character_services.apply_operation(actor=t.gm, campaign=t.campaign, operation="close_session", params={})
    assert exc.value.code == "CONFLICTS_OPEN"
    flow = t.step(both_pass(t, flow), t.player, "choose", benefit="nothing")
    t.step(flow, t.gm, "settle")
    breather()
    assert t.chest()["hope"] == 1


# --- the API ----------------------------------------------------------------------------------------


def test_the_whole_conflict_through_the_api(dryh: DryhRolls, monkeypatch: pytest.MonkeyPatch) -> None:
    t = dryh
    t.set_chest(despair=1)
    faces: list[int] = []
    monkeypatch.setattr("rolls.runner.SystemDice", lambda: ScriptedDice(faces))
    gm, player = APIClient(), APIClient()
    gm.force_authenticate(t.gm)
    player.force_authenticate(t.player)

    response = player.post(
        f"/api/scenes/{t.scene.pk}/flows/", {"kind": "conflict", "params": {"leader": t.alia.pk}}, format="json"
    )
    assert response.status_code == 201, response.content
    flow_id = response.json()["id"]

    def step(client: APIClient, name: str, key: str, dice: list[int] = (), **params: Any) -> Any:  # type: ignore[assignment]
        faces[:] = list(dice)
        return client.post(
            f"/api/flows/{flow_id}/steps/", {"step": name, "params": params, "idempotency_key": key}, format="json"
        )

    assert step(gm, "oppose", "k1", pain=2).status_code == 201
    sealed = step(gm, "roll_pain", "k2", [6, 3])
    assert sealed.status_code == 201
    seen = player.get(f"/api/flows/{flow_id}/").json()
    assert "secret_state" not in seen and "6, 3" not in str(seen["state"])
    assert all(r["kind"] != "pain" for r in seen.get("rolls", []))
    assert step(player, "hope", "k3").status_code == 400  # out of order: nothing rolled yet
    assert step(player, "roll_leader", "k4", [5, 4, 2]).status_code == 201
    assert step(player, "shade", "k5", kind="add6", pool="pain").status_code == 403
    assert step(gm, "shade", "k6", kind="add6", pool="pain").status_code == 201
    assert step(gm, "shade", "k6", kind="add6", pool="pain").status_code == 200  # replay
    assert step(gm, "gm_pass", "k7").status_code == 201
    assert step(player, "pass", "k8").status_code == 201
    done = step(gm, "settle", "k9")
    assert done.status_code == 201
    body = done.json()
    assert body["status"] == "settled" and body["state"]["settlement"]["despair_gained"] == 1
    assert (t.chest()["despair"], t.chest()["hope"]) == (1, 1)
    assert step(gm, "settle", "k10").status_code == 400


def test_a_conflict_is_named_by_its_place_in_the_scene_never_by_its_id(dryh: DryhRolls) -> None:
    """Issue 28: «Conflicto #5» and «Conflicto #10» (database ids) in roll labels and the ledger's reasons."""
    t = dryh
    for _earlier in range(3):  # ids that are not the conflict's place in the scene
        Flow.objects.create(campaign=t.campaign, scene=t.scene, kind="other", opened_by=t.gm, record=None)
    flow = rolled_to_adjusting(t, 3, [4, 3, 2], [6, 5, 1])
    assert flow.pk != 1
    labels = set(Roll.objects.filter(flow=flow).values_list("label", flat=True))
    assert labels == {"Conflicto 1: dolor", "Conflicto 1: Alia"}
    reasons = {e.reason for e in LedgerEntry.objects.all() if e.reason.startswith("Conflicto")}
    assert reasons == {"Conflicto 1"}
    second = rolled_to_adjusting(t, 3, [4, 3, 2], [6, 5, 1])
    assert set(Roll.objects.filter(flow=second).values_list("label", flat=True)) == {
        "Conflicto 2: dolor",
        "Conflicto 2: Alia",
    }
