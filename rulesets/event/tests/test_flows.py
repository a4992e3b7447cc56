"""Event flows end to end through ``rolls.runner``: the action (gate, choice, talent, who narrates, narration
vetoes with defend or reformulate) and the desafío (sealed splits, automatic reveal, server tie-breaks)."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.test import Client
from django.utils import timezone, translation

from campaigns import policy
from rolls import runner
from rolls.models import Flow, FlowStatus, FlowStep, Roll, RollFollowUp
from rolls.runner import IdempotencyConflict
from rolls.selectors import flow_views
from rulesets.event.tests.roll_fixtures import EventRollTable, build_event_roll_table
from systems.dice import ScriptedDice
from systems.errors import RulesError
from tintero.sealing import seal, unseal

pytestmark = pytest.mark.django_db


def awaited(flow: Flow) -> dict[str, Any]:
    """The first step the procedure waits for (``waiting_for``'s one shape; the desafío's older one too)."""
    waiting = flow.waiting_for
    return dict(waiting["steps"][0]) if "steps" in waiting else {**waiting, "gm": waiting.get("who") == "gm"}


@pytest.fixture
def t() -> EventRollTable:
    return build_event_roll_table()


def step(flow: Flow, actor, name: str, dice: list[int] | None = None, key: str = "", **params) -> Flow:  # type: ignore[no-untyped-def]
    runner.take_step(
        actor=actor,
        flow=flow,
        step=name,
        params=params,
        idempotency_key=key,
        dice=ScriptedDice(dice) if dice is not None else None,
    )
    flow.refresh_from_db()
    return flow


def action(t: EventRollTable, character, difficulty: int, skill: str | None = None) -> Flow:  # type: ignore[no-untyped-def]
    params = {"character": character.pk, "difficulty": difficulty}
    if skill:
        params["skill"] = skill
    flow = runner.start_procedure(actor=t.gm, scene=t.scene, kind="action", params=params)
    flow.refresh_from_db()
    return flow


# --- Action: the gate as a choice, who narrates ------------------------------------------------------


def test_automatic_absolute_success_rolls_nothing_and_the_player_narrates(t: EventRollTable) -> None:
    flow = action(t, t.gorton, 3, "Atletismo")  # Atletismo++: 4 dice > 3 (#97)
    roll = flow.rolls.get()
    assert roll.result["automatic"] is True and roll.result["dice"] == []
    assert roll.summary_es.startswith("Atletismo++ (4 dados) contra Común (3): Éxito absoluto automático")
    assert awaited(flow)["step"] == "narrate" and awaited(flow)["users"] == [t.paco.pk]
    with pytest.raises(PermissionDenied):
        step(flow, t.gm, "narrate", text="El máster no narra un éxito absoluto ajeno.")


def test_choose_take_partial_without_rolling_and_the_gm_narrates(t: EventRollTable) -> None:
    flow = action(t, t.gorton, 2, "Intimidar")  # 2 dice == 2
    assert flow.state["offered"] == ["TAKE_PARTIAL", "ROLL"]
    with pytest.raises(PermissionDenied):
        step(flow, t.daria, "choose", choice="ROLL")  # not her character
    with pytest.raises(RulesError) as refused:
        step(flow, t.paco, "choose", choice="TAKE_FAILURE")
    assert refused.value.code == "choice_not_offered"
    flow = step(flow, t.paco, "choose", choice="TAKE_PARTIAL")
    assert flow.state["outcome"] == "PARTIAL_SUCCESS" and flow.rolls.get().result["dice"] == []
    assert awaited(flow)["step"] == "narrate" and awaited(flow)["gm"]
    flow = step(flow, t.gm, "narrate", text="Gorton se impone, pero a gritos.")
    assert flow.status == FlowStatus.SETTLED and flow.state["narration"]["status"] == "FINAL"
    with pytest.raises(RulesError) as refused:
        step(flow, t.gm, "narrate", text="Otra vez")
    assert refused.value.code == "step_not_available"


def test_roll_is_made_by_the_server_and_a_player_narrates_with_vetoes_accepted(t: EventRollTable) -> None:
    flow = action(t, t.valy, 4, "Carterista")  # Carterista+: 3 dice < 4
    flow = step(flow, t.jenny, "choose", [4, 5, 1], choice="ROLL")
    roll = flow.rolls.get()
    assert roll.result["dice"] == [4, 5, 1] and roll.result["outcome"] == "ABSOLUTE_SUCCESS"
    assert "[4][5][1] → Éxito absoluto; narra el jugador" in roll.summary_es
    flow = step(flow, t.jenny, "narrate", text="Valy se lleva la bolsa sin que nadie lo note.")
    assert flow.state["narration"]["status"] == "PROPOSED"
    with pytest.raises(PermissionDenied):
        step(flow, t.jenny, "veto")  # the author does not vote on her own narration
    for voter in (t.gm, t.daria, t.paco):
        flow = step(flow, voter, "no_veto")
    assert flow.status == FlowStatus.SETTLED  # everyone voted: the window closed early, accepted
    assert RollFollowUp.objects.filter(roll=roll, kind="narration").get().summary_es == "Narración aceptada"


def test_narration_defended_and_overruled_becomes_partial_success(t: EventRollTable) -> None:
    """#63: INITIAL vetoes Juan and Jenny; Paco defends; both keep their vetoes → PAR, the GM narrates."""
    flow = action(t, t.gorton, 2, "Atletismo")
    flow = step(flow, t.paco, "narrate", text="El bandido huye y suelta la bolsa.")
    flow = step(flow, t.gm, "veto")
    flow = step(flow, t.jenny, "veto", key="v-jenny")
    flow = step(flow, t.jenny, "veto", key="v-jenny")  # a replay: nothing twice
    flow = step(flow, t.gm, "close_votes")
    assert flow.state["narration"]["status"] == "CONTESTED"
    assert awaited(flow)["step"] == "defend" and awaited(flow)["users"] == [t.paco.pk]
    with pytest.raises(RulesError) as refused:
        step(flow, t.gm, "no_answer")  # the author still has time
    assert refused.value.code == "response_time_left"
    flow = step(flow, t.paco, "defend", argument="Se sigue de la intimidación.")
    with pytest.raises(RulesError) as refused:
        step(flow, t.paco, "reformulate", text="Otra versión")
    assert refused.value.code == "step_not_available"  # one answer only
    votes = flow.state["narration"]["window"]["votes"]
    assert {voter for voter, kind in votes if kind == "VETO"} == {"GM", str(t.jenny.pk)}  # carried over
    flow = step(flow, t.gm, "close_votes")
    assert flow.state["outcome"] == "PARTIAL_SUCCESS" and flow.state["narration"]["status"] == "GM_NARRATION"
    with pytest.raises(PermissionDenied):
        step(flow, t.paco, "gm_narrate", text="No soy el máster")
    flow = step(flow, t.gm, "gm_narrate", text="El bandido duda, pero se queda la bolsa.")
    assert flow.status == FlowStatus.SETTLED
    summaries = list(RollFollowUp.objects.filter(kind="narration").values_list("summary_es", flat=True))
    assert summaries == ["Narración vetada (2 vetos)", "Narración anulada → éxito parcial; narra el máster"]


def test_reformulated_narration_starts_review_without_votes_and_is_accepted(t: EventRollTable) -> None:
    flow = action(t, t.gorton, 2, "Atletismo")
    flow = step(flow, t.paco, "narrate", text="Versión uno")
    flow = step(flow, t.daria, "veto")
    flow = step(flow, t.jenny, "veto")
    flow = step(flow, t.gm, "close_votes")
    flow = step(flow, t.paco, "reformulate", text="Versión dos")
    assert flow.state["narration"]["window"]["votes"] == [] and flow.state["narration"]["history"] == ["Versión uno"]
    flow = step(flow, t.daria, "veto")
    flow = step(flow, t.gm, "close_votes")  # 1 veto: accepted
    assert flow.status == FlowStatus.SETTLED and flow.state["narration"]["text"] == "Versión dos"
    assert flow.state["outcome"] == "ABSOLUTE_SUCCESS"


def test_unanswered_veto_is_overruled_after_the_deadline(t: EventRollTable) -> None:
    flow = action(t, t.gorton, 2, "Atletismo")
    flow = step(flow, t.paco, "narrate", text="Texto")
    flow = step(flow, t.daria, "veto")
    flow = step(flow, t.jenny, "veto")
    flow = step(flow, t.gm, "close_votes")
    Flow.objects.filter(pk=flow.pk).update(
        state={**flow.state, "contested_at": (timezone.now() - timedelta(hours=25)).isoformat()}
    )
    flow = step(flow, t.gm, "no_answer")
    assert flow.state["narration"]["status"] == "GM_NARRATION" and flow.state["outcome"] == "PARTIAL_SUCCESS"


def test_narration_vetoes_off_make_the_narration_final(t: EventRollTable) -> None:
    t.set_rules({"core": {"narration_veto": False}})
    flow = action(t, t.gorton, 2, "Atletismo")
    flow = step(flow, t.paco, "narrate", text="Final")
    assert flow.status == FlowStatus.SETTLED


def test_talent_reroll_is_a_follow_up_under_the_roll(t: EventRollTable) -> None:
    t.set_rules({"core": {"narration_veto": True}, "optional": {"talent": {"enabled": True}}})
    flow = action(t, t.khan, 4, "Destreza")  # Destreza+ is Khan's talent: 3 dice < 4
    flow = step(flow, t.daria, "choose", [4, 2, 1], choice="ROLL")
    assert awaited(flow)["step"] == "talent" and flow.state["outcome"] == "PARTIAL_SUCCESS"
    flow = step(flow, t.daria, "talent", [5], index=2)  # #103
    assert flow.state["outcome"] == "ABSOLUTE_SUCCESS" and flow.state["dice"] == [4, 2, 5]
    follow = RollFollowUp.objects.get(kind="talent")
    assert follow.result["dice"] == [4, 2, 5] and "Éxito absoluto" in follow.summary_es
    assert flow.rolls.get().result["dice"] == [4, 2, 1]  # the roll itself is never edited
    assert awaited(flow)["step"] == "narrate"


def test_only_a_gm_calls_an_action_and_the_difficulty_is_checked(t: EventRollTable) -> None:
    with pytest.raises(PermissionDenied):
        runner.start_procedure(
            actor=t.paco, scene=t.scene, kind="action", params={"character": t.gorton.pk, "difficulty": 3}
        )
    with pytest.raises(RulesError) as refused:
        runner.start_procedure(
            actor=t.gm, scene=t.scene, kind="action", params={"character": t.gorton.pk, "difficulty": 7}
        )
    assert refused.value.code == "difficulty_out_of_range"
    with pytest.raises(RulesError):
        runner.start_procedure(
            actor=t.gm,
            scene=t.scene,
            kind="action",
            params={"character": t.gorton.pk, "difficulty": 3, "skill": "Volar"},
        )
    with pytest.raises(ValidationError):
        runner.start_procedure(actor=t.gm, scene=t.scene, kind="action", params={"difficulty": 3})
    assert not Flow.objects.exists()


# --- Desafío: sealed splits, reveal, tie-breaks ---------------------------------------------------------


def desafio(t: EventRollTable, *participants: dict[str, Any]) -> Flow:
    flow = runner.start_procedure(
        actor=t.gm, scene=t.scene, kind="desafio", params={"ability": "Destreza", "participants": list(participants)}
    )
    flow.refresh_from_db()
    return flow


def everything_visible_to(t: EventRollTable, user, flow: Flow) -> str:  # type: ignore[no-untyped-def]
    """Every byte a viewer may get about the flow: its view (state, secret state, steps' params, rolls)."""
    view = flow_views(policy.viewer_for(user, t.campaign), [Flow.objects.get(pk=flow.pk)], "es")[0]
    return json.dumps(
        {
            "state": view.flow.state,
            "secret": view.secret_state,
            "steps": [s.params for s in view.steps],
            "rolls": [r.roll.result for r in view.rolls],
        },
        default=str,
    )


def test_desafio_74_splits_are_sealed_until_both_commit(t: EventRollTable) -> None:
    """#74: Valy (pool 2) L2 R0; Khan (pool 1) L0 R1 → Valy wins 2-0, Khan/Daria narrates 1-0, no roll."""
    flow = desafio(t, {"character": t.valy.pk, "skill": "Resistencia"}, {"character": t.khan.pk})
    assert awaited(flow)["users"] == sorted([t.jenny.pk, t.daria.pk])
    flow = step(flow, t.jenny, "commit", left=2, right=0)
    assert flow.state["committed"] == [f"c{t.valy.pk}"]
    for viewer in (t.gm, t.daria, t.paco, t.jenny, t.reader):
        seen = everything_visible_to(t, viewer, flow)
        assert '"left": 2' not in seen and '"right": 0' not in seen and "[2, 0]" not in seen
    step_row = FlowStep.objects.get(step="commit")
    assert set(step_row.params) == {"participant", "digest"}  # the step row keeps the hash, not the numbers
    token = flow.secret_state["sealed"][f"c{t.valy.pk}"]
    assert unseal(token, f"{flow.pk}|c{t.valy.pk}|split")["left"] == 2  # only the server opens it
    flow = step(flow, t.daria, "commit", left=0, right=1)
    assert flow.state["ix"]["commitments"] == [[f"c{t.valy.pk}", 2, 0], [f"c{t.khan.pk}", 0, 1]]
    assert flow.state["ix"]["left"]["winners"] == [f"c{t.valy.pk}"] and flow.state["ix"]["left"]["by"] == "COUNT"
    assert flow.state["narrators"] == [str(t.daria.pk)] and not flow.rolls.exists()
    assert flow.secret_state == {}
    # The digests published at commit check against the nonces published at the reveal.
    from systems.event.desafio import Split, commitment_digest

    pid = f"c{t.valy.pk}"
    assert commitment_digest(str(flow.pk), pid, Split(2, 0), flow.state["nonces"][pid]) == flow.state["digests"][pid]
    with pytest.raises(RulesError) as refused:
        step(flow, t.jenny, "commit", left=1, right=1)  # committing after the reveal
    assert refused.value.code == "step_not_available"  # already revealed
    flow = step(flow, t.daria, "narrate", text="Khan tropieza; Valy se queda la moneda.")
    for voter in (t.gm, t.paco, t.jenny):
        flow = step(flow, voter, "no_veto")
    assert flow.status == FlowStatus.SETTLED


def test_desafio_tie_breaks_and_joint_narration(t: EventRollTable) -> None:
    """#76: A pool 3 L2 R1, B pool 3 L2 R1; left A [5,3] vs B [4,4] → A; right [2] vs [2] → JOINT."""
    flow = desafio(t, {"character": t.valy.pk, "skill": "Carterista"}, {"character": t.khan.pk, "skill": "Destreza"})
    flow = step(flow, t.jenny, "commit", left=2, right=1)
    flow = step(flow, t.daria, "commit", [5, 3, 4, 4, 2, 2], left=2, right=1)
    rolls = list(flow.rolls.order_by("id"))
    assert [r.kind for r in rolls] == ["fist_tiebreak", "fist_tiebreak"]
    assert rolls[0].result["rolls"] == [[f"c{t.valy.pk}", [5, 3]], [f"c{t.khan.pk}", [4, 4]]]
    assert rolls[0].summary_es == "Desempate del puño izquierdo: Valy [5][3], Khan [4][4] → gana Valy"
    assert flow.state["ix"]["left"]["winners"] == [f"c{t.valy.pk}"]
    assert flow.state["ix"]["right"]["verdict"] == "JOINT"
    assert flow.state["joint"]["order"] == [str(t.jenny.pk), str(t.daria.pk)]  # seat order
    assert RollFollowUp.objects.get(kind="desafio").summary_es.startswith("Gana el desafío Valy")
    with pytest.raises(PermissionDenied):
        step(flow, t.daria, "narrate_part", text="Antes de tiempo")  # not her turn: Jenny's part comes first
    flow = step(flow, t.jenny, "narrate_part", text="Valy agarra la moneda...")
    flow = step(flow, t.daria, "narrate_part", text="...y Khan se queda con el cordel.")
    flow = step(flow, t.gm, "close_joint")
    assert flow.status == FlowStatus.SETTLED


def test_desafio_amend_before_the_reveal_84(t: EventRollTable) -> None:
    flow = desafio(t, {"character": t.valy.pk, "skill": "Resistencia"}, {"character": t.khan.pk, "skill": "Carterista"})
    flow = step(flow, t.jenny, "commit", left=2, right=0)
    with pytest.raises(PermissionDenied):
        step(flow, t.jenny, "commit", left=1, right=1)  # committed: Khan's commit is awaited, hers is to amend
    flow = step(flow, t.jenny, "amend", left=1, right=1)
    assert flow.state["committed"] == [f"c{t.valy.pk}"] and flow.state["stage"] == "committing"
    flow = step(flow, t.daria, "commit", [3, 6, 2, 2], left=1, right=1)
    assert flow.state["ix"]["commitments"] == [[f"c{t.valy.pk}", 1, 1], [f"c{t.khan.pk}", 1, 1]]
    assert flow.state["ix"]["left"]["winners"] == [f"c{t.khan.pk}"]  # [3] vs [6]
    assert flow.state["ix"]["right"]["verdict"] == "JOINT"  # [2] vs [2]


def test_desafio_refusals(t: EventRollTable) -> None:
    flow = desafio(t, {"character": t.valy.pk}, {"character": t.khan.pk})
    with pytest.raises(RulesError) as refused:
        step(flow, t.jenny, "commit", left=2, right=0)  # #79 (a): the sum must be the pool (1)
    assert refused.value.code == "split_sum"
    with pytest.raises(RulesError) as refused:
        step(flow, t.jenny, "commit", left=-1, right=2)
    assert refused.value.code == "split_negative"
    with pytest.raises(PermissionDenied):
        step(flow, t.paco, "commit", left=1, right=0)  # not a participant
    with pytest.raises(PermissionDenied):
        step(flow, t.gm, "commit", participant=f"c{t.valy.pk}", left=1, right=0)  # a GM does not act for a player
    with pytest.raises(PermissionDenied):
        step(flow, t.daria, "commit", participant=f"c{t.valy.pk}", left=1, right=0)
    with pytest.raises(RulesError):
        step(flow, t.jenny, "narrate", text="Aún no")  # nothing is revealed (nor narrated) before all commit
    assert not FlowStep.objects.exists() and flow.secret_state == {}
    with pytest.raises(PermissionDenied):
        runner.start_procedure(
            actor=t.paco, scene=t.scene, kind="desafio", params={"participants": [{"character": t.valy.pk}] * 2}
        )
    with pytest.raises(RulesError) as refused:
        desafio(t, {"character": t.valy.pk}, {"character": t.valy.pk})
    assert refused.value.code == "participants"


def test_desafio_with_an_npc_160_and_a_replayed_commit(t: EventRollTable) -> None:
    """#160: the GM sets an NPC pool of 3 and commits L1 R2; player A pool 2 commits L2 R0."""
    flow = desafio(t, {"name": "Bandido", "dice": 3}, {"character": t.valy.pk, "skill": "Resistencia"})
    flow = step(flow, t.jenny, "commit", key="k1", left=2, right=0)
    flow = step(flow, t.jenny, "commit", key="k1", left=2, right=0)  # the same request again: ignored
    with pytest.raises(IdempotencyConflict):
        step(flow, t.jenny, "commit", key="k1", left=0, right=2)  # the same key for another request
    assert FlowStep.objects.count() == 1
    assert awaited(flow)["gm"] and awaited(flow)["users"] == []
    flow = step(flow, t.gm, "commit", left=1, right=2)
    assert flow.state["ix"]["left"]["winners"] == [f"c{t.valy.pk}"]
    assert flow.state["narrators"] == ["GM"]
    flow = step(flow, t.gm, "narrate", text="El bandido cuenta lo que pasó.")
    assert flow.status == FlowStatus.SETTLED  # the GM's narration is not vetoable


def test_desafio_refuses_a_pool_typed_for_a_player_character(t: EventRollTable) -> None:
    """A typed pool for a PC is refused with the reason, never replaced by the sheet's (issue 28)."""
    with pytest.raises(RulesError) as refused:
        desafio(t, {"character": t.valy.pk, "dice": 4}, {"character": t.khan.pk, "skill": "Destreza"})
    assert refused.value.code == "pool_from_sheet"
    assert "Valy" in refused.value.message_es and "habilidades" in refused.value.message_es
    assert not Flow.objects.exists()


def test_desafio_an_npc_takes_a_skill_or_a_pool_not_both(t: EventRollTable) -> None:
    with pytest.raises(RulesError) as refused:
        desafio(t, {"character": t.guard.pk, "skill": "Luchar", "dice": 5}, {"character": t.khan.pk})
    assert refused.value.code == "pool_or_skill"
    flow = desafio(t, {"character": t.guard.pk, "dice": 5}, {"character": t.khan.pk})
    assert [seat["pool"] for seat in flow.state["participants"]] == [5, 1]
    flow = desafio(t, {"character": t.guard.pk, "skill": "Luchar"}, {"character": t.khan.pk, "skill": "Destreza"})
    assert [seat["pool"] for seat in flow.state["participants"]] == [3, 3]


def test_desafio_form_picks_skills_from_each_sheet_with_their_pools(t: EventRollTable) -> None:
    client = Client()
    client.force_login(t.gm)
    html = client.get(f"/scenes/{t.scene.pk}/").content.decode()
    assert f'<select name="skill_{t.valy.pk}">' in html
    assert '<option value="Carterista">Carterista+ (3 dados)</option>' in html
    assert f'name="dice_{t.valy.pk}"' not in html  # a player's pool is their sheet's
    assert f'name="dice_{t.guard.pk}"' in html  # an NPC's the GM may set


def test_desafio_cancel_before_the_reveal(t: EventRollTable) -> None:
    flow = desafio(t, {"character": t.valy.pk}, {"character": t.khan.pk})
    flow = step(flow, t.jenny, "commit", left=1, right=0)
    with pytest.raises(PermissionDenied):
        step(flow, t.jenny, "cancel")
    flow = step(flow, t.gm, "cancel")
    assert flow.status == FlowStatus.CANCELLED and flow.secret_state == {}


def test_desafio_talent_in_a_tie_break_111(t: EventRollTable) -> None:
    """#111: left tie 2-2; A's pool talent-built; A [3,2] vs B [5,1]; A rerolls index 1 → 6 → A wins."""
    t.set_rules({"optional": {"talent": {"enabled": True, "in_desafio_tiebreaks": True}}})
    flow = desafio(t, {"character": t.khan.pk, "skill": "Destreza"}, {"character": t.valy.pk, "skill": "Carterista"})
    flow = step(flow, t.daria, "commit", left=2, right=1)
    flow = step(flow, t.jenny, "commit", [3, 2, 5, 1, 4, 2], left=2, right=1)
    # Left rolled [3,2] vs [5,1] and waits for Khan's talent decision (sealed); the right waits behind it.
    assert flow.state["stage"] == "tiebreak" and awaited(flow)["step"] == "talent"
    assert awaited(flow)["users"] == [t.daria.pk]
    flow = step(flow, t.daria, "talent", [6, 4, 2], index=1)
    assert flow.state["ix"]["left"]["winners"] == [f"c{t.khan.pk}"]
    assert RollFollowUp.objects.get(kind="talent").summary_es == "Talento destacado: Khan [3][6], Valy [5][1]"
    assert flow.rolls.count() == 2  # the right fist's tie-break followed, rolled by the server


def test_seal_is_authenticated_and_bound() -> None:
    token = seal({"left": 1, "right": 2}, "1|c1|split")
    assert "left" not in token
    assert unseal(token, "1|c1|split") == {"left": 1, "right": 2}
    with pytest.raises(RulesError):
        unseal(token, "1|c2|split")  # moved to another participant


def test_post_roll_is_never_part_of_a_flow(t: EventRollTable) -> None:
    assert not Roll.objects.exists()


# --- The action's step table: the record in the thread, the pickers, who acts when -------------------------


def record(flow: Flow, viewer: Any) -> list[tuple[str, str, list[int]]]:
    view = flow_views(policy.viewer_for(viewer, flow.campaign), [Flow.objects.get(pk=flow.pk)], "es")[0]
    return [(line.text_es, line.text_en, list(line.rolls)) for line in view.lines]


def test_the_record_keeps_the_dice_the_partial_success_and_the_gms_narration(t: EventRollTable) -> None:
    """Issue 10: when the action closes, the thread keeps who did what, the dice, the outcome in the game's
    words and the GM's narration, in both languages; a reload (a new request) finds it in the scene."""
    flow = action(t, t.valy, 4, "Carterista")  # Carterista+: 3 dice < 4
    flow = step(flow, t.jenny, "choose", [4, 1, 2], choice="ROLL")
    flow = step(flow, t.gm, "narrate", text="Valy roza la bolsa, pero el mercader se gira.")
    assert flow.status == FlowStatus.SETTLED
    roll = flow.rolls.get()
    assert record(flow, t.daria) == [
        (
            "El máster pide una acción a Valy: Carterista+ contra Complicado (4).",
            "The GM calls for an action by Valy: Carterista+ against Complicated (4).",
            [],
        ),
        (
            "Valy: Carterista+ (3 dados) contra Complicado (4): [4][1][2] → Éxito parcial; narra el máster",
            "Valy: Carterista+ (3 dice) against Complicated (4): [4][1][2] → Partial success; the GM narrates",
            [roll.pk],
        ),
        (
            "Narración del máster: «Valy roza la bolsa, pero el mercader se gira.»",
            "The GM's narration: “Valy roza la bolsa, pero el mercader se gira.”",
            [],
        ),
        ("Resultado de la acción de Valy: éxito parcial.", "Outcome of Valy's action: partial success.", []),
    ]
    page = Client()
    page.force_login(t.daria)
    thread = page.get(t.scene.get_absolute_url()).content.decode()
    assert "Narración del máster: «Valy roza la bolsa" in thread and "Resultado de la acción de Valy" in thread
    assert ": choose" not in thread and ": narrate" not in thread  # no step keys on the page


def test_who_acts_follows_the_actions_state(t: EventRollTable) -> None:
    from rulesets.event.procedures.action import ACTION_PROCEDURE, ActionState

    def offered(flow: Flow) -> dict[str, set[Any]]:
        state = ActionState.model_validate(Flow.objects.get(pk=flow.pk).state)
        return {s.key: set(a) for s, a in ACTION_PROCEDURE.offered(state)}

    flow = action(t, t.gorton, 2, "Intimidar")  # 2 == 2: partial or roll
    assert offered(flow) == {"choose": {t.paco.pk}, "cancel": {"gm"}}
    flow = step(flow, t.paco, "choose", choice="TAKE_PARTIAL")
    assert offered(flow) == {"narrate": {"gm"}}
    with pytest.raises(RulesError) as refused:
        step(flow, t.paco, "choose", choice="ROLL")  # once
    assert refused.value.code == "step_not_available"


def test_the_opening_pickers_and_values_they_did_not_offer(t: EventRollTable) -> None:
    from rolls.selectors import opening_choices

    gm = opening_choices(t.scene, policy.viewer_for(t.gm, t.campaign))["action"]
    assert [c.label for c in gm["character"]] == ["Khan", "Gorton", "Valy", "Guardia"]
    assert gm["difficulty"][3].label == "Complicado (4)" and gm["difficulty"][3].value == "4"
    assert ("Intimidar", "Gorton: Intimidar (2)") in [(c.value, c.label) for c in gm["skill"]]
    assert opening_choices(t.scene, policy.viewer_for(t.paco, t.campaign))["action"] == {}  # the GM's form
    with pytest.raises(RulesError) as refused:
        action(t, t.gorton, 3, "Volar")  # a skill the sheet does not have: refused, never rolled at no skill
    assert refused.value.code == "unknown_skill"
    with pytest.raises(RulesError) as refused:
        runner.start_procedure(actor=t.gm, scene=t.scene, kind="action", params={"character": 999_999, "difficulty": 3})
    assert refused.value.code == "unknown_character"
    assert not Flow.objects.filter(kind="action").exists()


def test_procedure_titles_are_the_games_words(t: EventRollTable) -> None:
    desafio(t, {"character": t.khan.pk, "skill": "Destreza"}, {"character": t.valy.pk})
    action(t, t.gorton, 2, "Intimidar")
    views = flow_views(policy.viewer_for(t.gm, t.campaign), list(Flow.objects.order_by("id")), "es")
    assert [v.title for v in views] == ["Desafío", "Acción"]
    with translation.override("en"):
        english = flow_views(policy.viewer_for(t.gm, t.campaign), list(Flow.objects.order_by("id")), "en")
    assert [v.title for v in english] == ["Challenge", "Action"]


def test_the_desafio_record_seals_then_reveals_in_words(t: EventRollTable) -> None:
    """The record shows each commitment by its digest only; the splits appear in words at the reveal; the
    GM reads no more than the players before it."""
    flow = desafio(t, {"character": t.valy.pk, "skill": "Resistencia"}, {"character": t.khan.pk})
    flow = step(flow, t.jenny, "commit", left=2, right=0)
    before = record(flow, t.gm)
    assert before[0][0] == "El máster declara un desafío de Destreza: Valy, Khan."
    assert before[0][1] == "The GM declares a challenge of Destreza: Valy, Khan."
    assert before[1][0] == "Valy sella su reparto."  # no hash to read (issue 28), nor the split
    flow = step(flow, t.daria, "commit", left=0, right=1)
    lines = [es for es, _en, _rolls in record(flow, t.reader)]
    assert "Se revelan los repartos (izquierdo/derecho): Valy 2/0, Khan 0/1." in lines
    assert lines[-1] == "Gana el desafío Valy; narra Khan"


def test_no_internals_on_the_procedures_pages(t: EventRollTable) -> None:
    """Issue 10: open procedures of every kind, as the GM and a player: the visible text has no internal key,
    no Python literal and no participant id."""
    import re

    t.set_rules({"core": {"narration_veto": True}, "optional": {"reactions": {"enabled": True}}})
    action(t, t.gorton, 2, "Intimidar")
    desafio(t, {"character": t.valy.pk}, {"character": t.khan.pk})
    runner.start_procedure(
        actor=t.paco, scene=t.scene, kind="reaction", params={"character": t.gorton.pk, "text": "Si me atacan"}
    )
    internals = re.compile(
        r"\b(ROLL|TAKE_PARTIAL|TAKE_FAILURE|AUTO_ABSOLUTE|CHOOSE_\w+|SEALED|None|False|True|GM)\b|\bc\d+\b|\[\]"
    )
    for user in (t.gm, t.paco):
        client = Client()
        client.force_login(user)
        html = client.get(f"/scenes/{t.scene.pk}/flows/").content.decode()
        body = re.sub(r"<(script|style)[^>]*>.*?</\1>", " ", html, flags=re.S)
        text = re.sub(r"<[^>]+>", " ", body)
        found = internals.findall(text)
        assert not found, (user, found)


def test_who_acts_follows_the_desafios_state(t: EventRollTable) -> None:
    from rulesets.event.procedures.desafio import DESAFIO, DesafioState

    def offered(flow: Flow) -> dict[str, set[Any]]:
        state = DesafioState.model_validate(Flow.objects.get(pk=flow.pk).state)
        return {s.key: set(a) for s, a in DESAFIO.offered(state)}

    flow = desafio(t, {"character": t.valy.pk}, {"name": "Bandido", "dice": 2})
    assert offered(flow) == {"commit": {t.jenny.pk, "gm"}, "cancel": {"gm"}}
    flow = step(flow, t.jenny, "commit", left=1, right=0)
    assert offered(flow) == {"commit": {"gm"}, "amend": {t.jenny.pk}, "cancel": {"gm"}}
    assert awaited(flow)["gm"] and awaited(flow)["users"] == []  # only the GM's NPC is awaited
    flow = step(flow, t.gm, "commit", left=0, right=2)  # Valy wins the left 1-0; the Bandido narrates
    assert offered(flow) == {"narrate": {"gm"}}
    with pytest.raises(RulesError) as refused:
        step(flow, t.jenny, "amend", left=0, right=1)  # after the reveal
    assert refused.value.code == "step_not_available"
