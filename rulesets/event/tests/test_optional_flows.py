"""Event's optional rules inside the action flow, end to end through ``rolls.runner`` (and once through the
API): the communal die (§6.7, vectors 127-133), the wild die (§6.10, vectors 147-149) and the reckless roll
(§6.9, vectors 138-146), in §6.11's order, with every refusal by its code."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import PermissionDenied
from rest_framework.test import APIClient

from characters import services
from characters.models import LedgerEntry
from rolls import runner
from rolls.models import Flow, FlowStatus, Roll, RollFollowUp
from rulesets.event.rolls import BINDING
from rulesets.event.tests.roll_fixtures import EventRollTable, build_event_roll_table
from systems.dice import ScriptedDice
from systems.errors import RulesError

pytestmark = pytest.mark.django_db

COMMUNAL = {"communal_pool": {"enabled": True}}
WILD = {"wild_die": {"enabled": True}}
RECKLESS = {"reckless_roll": {"enabled": True}}


def awaited(flow: Flow) -> dict[str, Any]:
    """The first step the procedure waits for (``waiting_for``'s one shape; the desafío's older one too)."""
    waiting = flow.waiting_for
    return dict(waiting["steps"][0]) if "steps" in waiting else {**waiting, "gm": waiting.get("who") == "gm"}


@pytest.fixture
def t() -> EventRollTable:
    return build_event_roll_table()


def rules(t: EventRollTable, **optional: Any) -> None:
    t.set_rules({"core": {"narration_veto": False}, "optional": optional})


def open_communal(t: EventRollTable, dice: int) -> None:
    services.apply_operation(actor=t.gm, campaign=t.campaign, operation="open_communal_pool", params={"dice": dice})


def communal_left(t: EventRollTable) -> int:
    return int(services.rules_state(t.campaign)["communal"])


def step(flow: Flow, actor: Any, name: str, dice: list[int] | None = None, **params: Any) -> Flow:
    runner.take_step(
        actor=actor, flow=flow, step=name, params=params, dice=ScriptedDice(dice) if dice is not None else None
    )
    flow.refresh_from_db()
    return flow


def refused(flow: Flow, actor: Any, name: str, code: str, dice: list[int] | None = None, **params: Any) -> None:
    with pytest.raises(RulesError) as info:
        step(flow, actor, name, dice, **params)
    assert info.value.code == code


def action(t: EventRollTable, character: Any, difficulty: int, skill: str | None = None) -> Flow:
    params: dict[str, Any] = {"character": character.pk, "difficulty": difficulty}
    if skill:
        params["skill"] = skill
    flow = runner.start_procedure(actor=t.gm, scene=t.scene, kind="action", params=params)
    flow.refresh_from_db()
    return flow


def faces(roll: Roll) -> list[tuple[int, str]]:
    return [(f.face, f.note) for f in BINDING.faces("action", roll.result)]


# --- Communal die (§6.7) ---------------------------------------------------------------------------------


def test_communal_die_counts_for_the_gate_and_is_consumed_at_the_lock_130(t: EventRollTable) -> None:
    rules(t, **COMMUNAL)
    open_communal(t, 3)
    flow = action(t, t.valy, 3, "Carterista")  # Carterista+: 3 dice == 3 without the communal die
    assert flow.state["stage"] == "pool" and awaited(flow)["step"] == "lock_pool"
    assert awaited(flow)["users"] == [t.jenny.pk]
    with pytest.raises(PermissionDenied):
        step(flow, t.daria, "take_communal")  # not her character
    flow = step(flow, t.jenny, "take_communal")
    assert flow.state["pool"] == 4 and communal_left(t) == 3  # taken, not consumed until the lock
    refused(flow, t.jenny, "take_communal", "step_not_available")  # vector 128: one per pool
    flow = step(flow, t.jenny, "lock_pool")
    assert flow.state["gate"] == "AUTO_ABSOLUTE" and communal_left(t) == 2  # vectors 127, 130
    entry = LedgerEntry.objects.get(operation="take_communal_die")
    assert entry.actor == t.jenny and entry.character == t.valy and entry.changes == {"campaign.communal": [3, 2]}
    roll = flow.rolls.get()
    assert roll.result["breakdown"]["communal"] == 1 and roll.result["automatic"] is True
    assert "(4 dados: 1 comunal)" in roll.summary_es
    assert awaited(flow)["step"] == "narrate" and awaited(flow)["users"] == [t.jenny.pk]
    refused(flow, t.jenny, "lock_pool", "step_not_available")  # taken twice
    refused(flow, t.jenny, "take_communal", "step_not_available")  # after the lock
    assert communal_left(t) == 2 and LedgerEntry.objects.filter(operation="take_communal_die").count() == 1


def test_a_rolled_communal_die_is_drawn_apart(t: EventRollTable) -> None:
    rules(t, **COMMUNAL)
    open_communal(t, 1)
    flow = step(action(t, t.gorton, 4, "Intimidar"), t.paco, "take_communal")  # 2 + 1 = 3 < 4
    flow = step(flow, t.paco, "lock_pool")
    assert flow.state["offered"] == ["TAKE_FAILURE", "ROLL"] and communal_left(t) == 0
    flow = step(flow, t.paco, "choose", [4, 1, 5], choice="ROLL")
    roll = flow.rolls.get()
    assert roll.result["communal_index"] == 2 and faces(roll) == [(4, ""), (1, ""), (5, "communal")]
    assert flow.state["outcome"] == "ABSOLUTE_SUCCESS"


def test_communal_refusals_leave_the_pool_untouched_129_133(t: EventRollTable) -> None:
    rules(t)
    flow = action(t, t.valy, 3, "Carterista")
    assert flow.state["stage"] == "choice"  # rule off: the pool locks at once, as before
    refused(flow, t.jenny, "take_communal", "step_not_available")
    rules(t, **COMMUNAL)
    flow = action(t, t.valy, 3, "Carterista")
    refused(flow, t.jenny, "take_communal", "communal_empty")  # vector 129
    npc = action(t, t.guard, 3, "Luchar")
    assert npc.state["stage"] == "choice"  # an NPC's pool has no extras to build (§8 A-22)
    refused(npc, t.gm, "take_communal", "step_not_available")  # vector 133
    # Two players take the last die; the first lock consumes it, the second is refused and changes nothing.
    open_communal(t, 1)
    first = step(flow, t.jenny, "take_communal")
    second = step(action(t, t.gorton, 4, "Intimidar"), t.paco, "take_communal")
    step(first, t.jenny, "lock_pool")
    refused(second, t.paco, "lock_pool", "communal_empty")
    second.refresh_from_db()
    assert communal_left(t) == 0 and second.state["stage"] == "pool" and not second.rolls.exists()
    assert LedgerEntry.objects.filter(operation="take_communal_die").count() == 1


def test_a_vetoable_take_denied_by_two_vetoes_keeps_the_die_132(t: EventRollTable) -> None:
    rules(t, communal_pool={"enabled": True, "veto_on_take": True})
    open_communal(t, 2)
    flow = step(action(t, t.valy, 4, "Carterista"), t.jenny, "take_communal")
    assert awaited(flow)["step"] == "veto_take" and flow.state["pool"] == 3
    assert sorted(flow.state["communal_take"]["eligible"]) == sorted(["GM", str(t.daria.pk), str(t.paco.pk)])
    refused(flow, t.jenny, "lock_pool", "step_not_available")
    with pytest.raises(PermissionDenied):
        step(flow, t.jenny, "veto_take")  # the taker does not vote on her own take
    flow = step(flow, t.daria, "veto_take")
    flow = step(flow, t.paco, "veto_take")
    flow = step(flow, t.gm, "close_take_votes")
    assert flow.state["communal_take"]["verdict"] == "INVALID" and flow.state["communal"] == 0
    refused(flow, t.jenny, "take_communal", "step_not_available")  # the table said no for this pool
    flow = step(flow, t.jenny, "lock_pool")
    assert flow.state["pool"] == 3 and communal_left(t) == 2  # remaining and pool unchanged
    # Accepted when everyone voted without two vetoes: the die joins the pool and is consumed.
    flow = step(action(t, t.valy, 4, "Carterista"), t.jenny, "take_communal")
    for voter in (t.gm, t.daria, t.paco):
        flow = step(flow, voter, "no_veto_take")
    assert flow.state["communal_take"]["verdict"] == "ACCEPTED" and flow.state["pool"] == 4
    step(flow, t.jenny, "lock_pool")
    assert communal_left(t) == 1


# --- Wild die (§6.10) ------------------------------------------------------------------------------------


def wild_action(t: EventRollTable, character: Any, difficulty: int, skill: str, player: Any) -> Flow:
    flow = step(action(t, character, difficulty, skill), player, "propose_wild", text="Se me cae la bolsa")
    assert awaited(flow)["step"] == "accept_bet" and awaited(flow)["gm"]
    with pytest.raises(PermissionDenied):
        step(flow, player, "accept_bet")  # the GM answers a bet
    return step(flow, t.gm, "accept_bet")


def test_wild_die_forces_the_roll_and_is_drawn_as_such_147(t: EventRollTable) -> None:
    rules(t, **WILD)
    flow = wild_action(t, t.gorton, 4, "Intimidar", t.paco)
    assert flow.state["wild"] == 1 and flow.state["pool"] == 3 and flow.state["bet"] is None
    refused(flow, t.paco, "propose_wild", "step_not_available")
    refused(flow, t.gm, "accept_bet", "step_not_available")  # taken twice
    flow = step(flow, t.paco, "lock_pool", [4, 1, 2])
    assert flow.state["gate"] == "FORCED_ROLL" and flow.state["outcome"] == "PARTIAL_SUCCESS"
    roll = flow.rolls.get()
    assert roll.result["wild_index"] == 2 and faces(roll) == [(4, ""), (1, ""), (2, "wild")]
    assert "(3 dados: 1 alocado)" in roll.summary_es
    assert flow.state["bets"][0]["triggered"] is False and not RollFollowUp.objects.filter(kind="bet").exists()


def test_wild_die_bet_triggers_on_a_failure_148(t: EventRollTable) -> None:
    rules(t, **WILD)
    flow = step(wild_action(t, t.gorton, 4, "Intimidar", t.paco), t.paco, "lock_pool", [1, 2, 3])
    assert flow.state["outcome"] == "FAILURE" and flow.state["bets"][0]["triggered"] is True
    bet = RollFollowUp.objects.get(kind="bet")
    assert bet.summary_es == "Apuesta activada (dado alocado): Se me cae la bolsa"
    assert awaited(flow)["step"] == "narrate" and awaited(flow)["gm"]


def test_wild_die_with_and_without_forces_roll_149(t: EventRollTable) -> None:
    rules(t, **WILD)
    flow = step(wild_action(t, t.valy, 3, "Carterista", t.jenny), t.jenny, "lock_pool", [1, 1, 1, 1])
    assert flow.state["outcome"] == "CRITICAL_FAILURE" and flow.state["bets"][0]["triggered"] is True  # (a)
    rules(t, wild_die={"enabled": True, "forces_roll": False})
    flow = step(wild_action(t, t.valy, 3, "Carterista", t.jenny), t.jenny, "lock_pool")
    assert flow.state["gate"] == "AUTO_ABSOLUTE" and flow.rolls.get().result["dice"] == []  # (b)
    assert flow.state["bets"][0]["triggered"] is False


def test_wild_bet_countered_rejected_then_proposed_again(t: EventRollTable) -> None:
    rules(t, **WILD)
    flow = step(action(t, t.gorton, 4, "Intimidar"), t.paco, "propose_wild", text="Pierdo la espada")
    refused(flow, t.paco, "propose_wild", "step_not_available", text="Otra")  # one negotiation at a time
    refused(flow, t.paco, "lock_pool", "step_not_available")
    flow = step(flow, t.gm, "counter_bet", text="Pierdes la espada y el caballo")
    assert awaited(flow)["step"] == "accept_counter" and awaited(flow)["users"] == [t.paco.pk]
    refused(flow, t.gm, "accept_bet", "step_not_available")
    flow = step(flow, t.paco, "reject_counter")
    assert flow.state["bet"]["status"] == "REJECTED" and flow.state["wild"] == 0
    flow = step(flow, t.paco, "propose_wild", text="Pierdo la espada")  # a new bet after a rejection
    flow = step(flow, t.gm, "counter_bet", text="Y el escudo")
    flow = step(flow, t.paco, "accept_counter")
    assert flow.state["wild"] == 1 and flow.state["bets"][0]["terms"] == "Y el escudo"


def test_wild_die_refusals(t: EventRollTable) -> None:
    rules(t, **COMMUNAL)
    flow = action(t, t.gorton, 4, "Intimidar")
    refused(flow, t.paco, "propose_wild", "step_not_available", text="x")
    rules(t, **WILD)
    refused(action(t, t.guard, 4, "Luchar"), t.gm, "propose_wild", "step_not_available", text="x")
    flow = step(action(t, t.gorton, 4, "Intimidar"), t.paco, "lock_pool", [])
    refused(flow, t.paco, "propose_wild", "step_not_available", text="tarde")  # after the lock


# --- Reckless roll (§6.9) --------------------------------------------------------------------------------


def reckless_after(t: EventRollTable, first: list[int]) -> Flow:
    flow = step(action(t, t.gorton, 4, "Intimidar"), t.paco, "choose", first, choice="ROLL")
    assert flow.state["stage"] == "reckless" and awaited(flow)["step"] == "keep_result"  # or bet for a reckless roll
    return step(flow, t.paco, "propose_reckless", text="Rompo el puente")


def test_reckless_roll_replaces_even_worse_and_triggers_the_bet_138(t: EventRollTable) -> None:
    rules(t, **RECKLESS)
    flow = reckless_after(t, [2, 1])
    assert flow.state["outcome"] == "FAILURE" and awaited(flow)["step"] == "accept_bet"
    flow = step(flow, t.gm, "accept_bet", [1, 1])  # agreement: the server rolls at once
    assert flow.state["outcome"] == "CRITICAL_FAILURE" and flow.state["reckless_used"] is True
    old, new = flow.rolls.order_by("id")
    assert old.result["dice"] == [2, 1] and new.result["dice"] == [1, 1] and new.result["reckless"] is True
    assert flow.state["roll"] == new.pk and flow.state["superseded_rolls"] == [old.pk]
    assert new.summary_es.startswith("Tirada temeraria, Intimidar (2 dados)")
    assert RollFollowUp.objects.get(kind="reckless", roll=old).data == {"replaced_by": new.pk}
    assert RollFollowUp.objects.get(kind="bet", roll=new).summary_es.endswith("Rompo el puente")
    assert flow.state["bets"] == [{**flow.state["bets"][0], "kind": "RECKLESS", "triggered": True}]
    assert awaited(flow)["step"] == "narrate" and awaited(flow)["gm"]
    refused(flow, t.paco, "propose_reckless", "step_not_available", text="Otra vez")  # vector 141


def test_reckless_success_does_not_trigger_and_the_player_narrates_139(t: EventRollTable) -> None:
    rules(t, **RECKLESS)
    flow = step(reckless_after(t, [3, 1]), t.gm, "accept_bet", [4, 5])
    assert flow.state["outcome"] == "ABSOLUTE_SUCCESS" and flow.state["bets"][0]["triggered"] is False
    assert awaited(flow)["users"] == [t.paco.pk]
    flow = step(flow, t.paco, "narrate", text="Cruzo el puente")
    assert flow.status == FlowStatus.SETTLED


def test_reckless_from_a_partial_success_to_a_failure_146(t: EventRollTable) -> None:
    rules(t, **RECKLESS)
    flow = step(reckless_after(t, [4, 1]), t.gm, "accept_bet", [1, 2])
    assert flow.state["outcome"] == "FAILURE" and flow.state["bets"][0]["triggered"] is True


def test_countered_reckless_bet_rejected_keeps_the_original_145(t: EventRollTable) -> None:
    rules(t, **RECKLESS)
    flow = step(reckless_after(t, [3, 1]), t.gm, "counter_bet", text="Rompes el puente y caes")
    refused(flow, t.paco, "keep_result", "step_not_available")
    flow = step(flow, t.paco, "reject_counter")
    flow = step(flow, t.paco, "keep_result")
    assert flow.state["outcome"] == "FAILURE" and flow.rolls.count() == 1 and flow.state["bets"] == []
    refused(flow, t.paco, "keep_result", "step_not_available")  # taken twice
    refused(flow, t.paco, "propose_reckless", "step_not_available", text="Ya no")  # the result was kept


def test_reckless_refusals_140(t: EventRollTable) -> None:
    rules(t)
    flow = step(action(t, t.gorton, 4, "Intimidar"), t.paco, "choose", [2, 1], choice="ROLL")
    assert flow.state["stage"] == "narration"  # rule off: straight to the narration
    refused(flow, t.paco, "propose_reckless", "step_not_available", text="x")
    rules(t, **RECKLESS)
    auto = action(t, t.gorton, 3, "Atletismo")  # automatic absolute success
    refused(auto, t.paco, "propose_reckless", "step_not_available", text="x")  # vector 140
    taken = step(action(t, t.gorton, 2, "Intimidar"), t.paco, "choose", choice="TAKE_PARTIAL")
    refused(taken, t.paco, "propose_reckless", "step_not_available", text="x")
    npc = step(action(t, t.guard, 4, "Luchar"), t.gm, "choose", [1, 1, 2], choice="ROLL")
    assert npc.state["stage"] == "narration"
    refused(npc, t.gm, "propose_reckless", "step_not_available", text="x")
    early = action(t, t.gorton, 4, "Intimidar")
    refused(early, t.paco, "propose_reckless", "step_not_available", text="x")  # before the roll


def test_talent_is_eligible_again_after_a_reckless_roll(t: EventRollTable) -> None:
    rules(t, talent={"enabled": True}, **RECKLESS)
    flow = step(action(t, t.khan, 4, "Destreza"), t.daria, "choose", [2, 2, 1], choice="ROLL")
    flow = step(flow, t.daria, "talent")  # decline: then the reckless roll is offered (§6.11 steps 5, 7)
    assert flow.state["stage"] == "reckless"
    flow = step(flow, t.daria, "propose_reckless", text="Me ven")
    flow = step(flow, t.gm, "accept_bet", [3, 1, 1])
    assert flow.state["stage"] == "talent"
    flow = step(flow, t.daria, "talent", [6], index=1)
    assert flow.state["outcome"] == "PARTIAL_SUCCESS" and flow.state["stage"] == "narration"
    assert flow.state["bets"][0]["triggered"] is False


# --- All three, in §6.11's order ------------------------------------------------------------------------


def test_communal_wild_and_reckless_stack_in_order(t: EventRollTable) -> None:
    rules(t, **COMMUNAL, **WILD, **RECKLESS)
    open_communal(t, 2)
    flow = step(action(t, t.gorton, 4, "Intimidar"), t.paco, "take_communal")
    flow = step(flow, t.paco, "propose_wild", text="Se rompe la cuerda")
    flow = step(flow, t.gm, "accept_bet")
    assert flow.state["pool"] == 4  # 2 + communal + wild == difficulty, yet the wild die forces the roll
    flow = step(flow, t.paco, "lock_pool", [1, 2, 3, 1])
    assert communal_left(t) == 1 and flow.state["gate"] == "FORCED_ROLL" and flow.state["outcome"] == "FAILURE"
    assert faces(flow.rolls.get()) == [(1, ""), (2, ""), (3, "communal"), (1, "wild")]
    flow = step(flow, t.paco, "propose_reckless", text="Caigo al río")
    flow = step(flow, t.gm, "accept_bet", [5, 5, 1, 1])
    assert flow.state["outcome"] == "ABSOLUTE_SUCCESS" and flow.rolls.count() == 2
    assert [b["triggered"] for b in flow.state["bets"]] == [False, False]  # decided on the final result
    assert communal_left(t) == 1  # the reckless roll reuses the same pool: no second communal die


# --- Through the API and the thread -----------------------------------------------------------------------


def test_wild_die_through_the_api_and_drawn_in_the_thread(t: EventRollTable, monkeypatch: Any) -> None:
    rules(t, **WILD, **RECKLESS)
    dice = ScriptedDice([1, 2, 3, 6, 6, 1])  # one stream for every step: the lock's roll, then the reckless one
    monkeypatch.setattr("rolls.runner.SystemDice", lambda: dice)
    gm, paco = APIClient(), APIClient()
    gm.force_authenticate(t.gm)
    paco.force_authenticate(t.paco)
    started = gm.post(
        f"/api/scenes/{t.scene.pk}/flows/",
        {"kind": "action", "params": {"character": t.gorton.pk, "difficulty": 4, "skill": "Intimidar"}},
        format="json",
    )
    assert started.status_code == 201, started.content
    url = f"/api/flows/{started.json()['id']}/steps/"

    def post(client: APIClient, name: str, key: str, **params: Any) -> Any:
        return client.post(url, {"step": name, "params": params, "idempotency_key": key}, format="json")

    assert post(paco, "propose_wild", "k1", text="Me hiero").status_code == 201
    denied = post(paco, "lock_pool", "k2")
    assert denied.status_code == 400 and denied.json()["error"]["code"] == "step_not_available"  # a bet is pending
    assert post(gm, "accept_bet", "k3").status_code == 201
    assert post(gm, "accept_bet", "k3").status_code == 200  # a replayed key changes nothing
    locked = post(paco, "lock_pool", "k4")
    assert locked.status_code == 201, locked.content
    data = locked.json()
    assert data["state"]["outcome"] == "FAILURE" and data["state"]["stage"] == "reckless"
    assert [d["note"] for d in data["rolls"][0]["faces"][0]["dice"]] == ["", "", "wild"]
    assert post(paco, "propose_reckless", "k5", text="Me caigo").status_code == 201
    rolled = post(gm, "accept_bet", "k6").json()
    assert rolled["state"]["outcome"] == "ABSOLUTE_SUCCESS" and len(rolled["rolls"]) == 2
    assert [b["triggered"] for b in rolled["state"]["bets"]] == [False, False]
    page = APIClient()
    page.force_login(t.paco)
    html = page.get(t.scene.get_absolute_url()).content.decode()
    assert "face-3 pips wild" in html and "Tirada temeraria, Intimidar" in html


def test_the_flow_fragment_offers_each_side_its_steps(t: EventRollTable) -> None:
    rules(t, **COMMUNAL, **WILD)
    open_communal(t, 1)
    flow = action(t, t.gorton, 4, "Intimidar")

    def page(user: Any) -> str:
        client = APIClient()
        client.force_login(user)
        return str(client.get(t.scene.get_absolute_url()).content.decode())

    mine = page(t.paco)
    assert "step-take_communal" in mine and "step-propose_wild" in mine and "step-lock_pool" in mine
    assert "step-take_communal" not in page(t.daria)  # not her character
    step(flow, t.paco, "propose_wild", text="Pierdo el sombrero")
    gm = page(t.gm)
    assert "step-accept_bet" in gm and "step-counter_bet" in gm and "Pierdo el sombrero" in gm
    assert "step-propose_wild" not in page(t.paco)  # one negotiation at a time
