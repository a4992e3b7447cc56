"""The Presagios challenge flow end to end (spec §3.9, §5.1 and vectors 8-9, 13-14, 25-36, 46-48, 53, 55):
secret difficulty, traits, omens and threat, retries, forced outcomes, danger, damage and script protection,
every point through the ledger, nothing twice."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied

from characters.models import LedgerEntry
from rolls.models import FlowStatus, FlowStep, Roll
from rulesets.presagios.procedures.challenge import CHALLENGE
from rulesets.presagios.tests.rolls_fixtures import (
    RollsTable,
    awaited,
    build,
    challenge,
    current,
    ledger_ops,
    overcome,
    record,
    set_sheet,
    set_threat,
    sheet,
    start,
    step,
    threat,
)
from systems.errors import RulesError

pytestmark = pytest.mark.django_db


@pytest.fixture
def t(db: None) -> RollsTable:
    return build()


def test_vector_8_a_challenge_with_tools_and_a_trait_succeeds_without_showing_the_difficulty(t: RollsTable) -> None:
    set_sheet(t.lucia, current=[3, 3, 2])
    flow = challenge(t, t.lucia, 7, tool_dice=2, challenge="Saltar el foso")
    assert awaited(flow) == {"roll": (False, [t.player.pk])}
    assert flow.secret_state["difficulty"] == 7 and "difficulty" not in str(flow.state)
    flow = step(flow, t.player, "roll", {"traits": ["Correr"]}, dice=[5, 1, 5, 2, 3])
    assert flow.state["machine"]["stage"] == "rolled" and awaited(flow) == {"judge_traits": (True, [])}
    assert flow.waiting_for["steps"][0]["label_es"] == "Aceptar o rechazar los rasgos"
    flow = step(flow, t.gm, "judge_traits", {"accepted": ["Correr"]})
    assert flow.state["outcome"] == "success"
    roll = flow.rolls.get()
    assert roll.result["dice"] == [5, 1, 5, 2, 3] and roll.secret == {}
    assert threat(t) == 1  # threat 0, 1 omen: 2 ≥ 0 → +1 (vector 18)
    flow = step(flow, t.gm, "finalize")
    assert flow.status == FlowStatus.SETTLED and flow.waiting_for == {}
    assert ledger_ops(t) == ["omen_check"]
    public = record(flow, gm_only=False)
    assert public == [
        "El director abre un reto para Lucía: Acción «Saltar el foso» · 2 dados de herramientas. "
        "La dificultad es secreta: solo se anunciará Éxito o Fallo.",
        "Lucía tira Acción: [5][☠][5][2][3] → 6 · 1 presagio: algo inquietante ocurre",
        "Lucía propone sus rasgos: Correr +1.",
        "El director acepta el rasgo Correr (+1) de Lucía.",
        "Resultado 7 (con Correr +1): Éxito.",
        "Los presagios hacen subir la amenaza en 1 (ahora 1).",
        "El director cierra el resultado: Éxito.",
    ]
    assert not any("7." in words or "Dificultad" in words for words in public[1:])
    assert record(flow, gm_only=True) == [
        "Dificultad secreta: 7.",
        "Dificultad secreta: 7. Amenaza al tirar: 0; 1 presagio; la amenaza sube 1.",
    ]
    assert record(flow, gm_only=True, lang="en")[1] == (
        "Secret difficulty: 7. Threat at the roll: 0; 1 omen; threat rises by 1."
    )
    assert record(flow, lang="en")[5] == "Result 7 (with Correr +1): Success."


def test_vector_9_failure_locks_the_challenge_and_vector_13_14_a_new_attempt_needs_a_retry(t: RollsTable) -> None:
    set_sheet(t.lucia, current=[3, 3, 2], overcome=3)
    set_threat(t, 2)
    first = challenge(t, t.lucia, 8, tool_dice=2, challenge="Saltar el foso")
    first = step(first, t.player, "roll", {"traits": "Correr"}, dice=[5, 1, 5, 2, 3])
    first = step(first, t.gm, "judge_traits", {"accepted": ["Correr"]})
    assert first.state["outcome"] == "failure"
    first = step(first, t.gm, "finalize")
    assert first.status == FlowStatus.SETTLED and sheet(t.lucia)["challenge_locks"] == ["reto:saltar-el-foso"]
    assert threat(t) == 3  # the omen check: 2 ≥ 2
    # The same challenge again, without paying: an automatic failure, no dice, no omen check (vector 13).
    again = challenge(t, t.lucia, 3, challenge="Saltar el foso")
    again = step(again, t.player, "roll")
    assert again.status == FlowStatus.SETTLED and again.rolls.count() == 0
    assert again.state["machine"]["attempts"][0]["roll"] is None and threat(t) == 3
    assert "Fallo automático, sin dados" in record(again)[-1]
    # Paying the retry first (vector 14): overcome 3 → 2, threat 3 → 4, and a new roll with its omen check.
    paid = challenge(t, t.lucia, 3, challenge="Saltar el foso")
    paid = step(paid, t.player, "retry")
    assert (overcome(t.lucia), threat(t)) == (2, 4)
    paid = step(paid, t.player, "roll", dice=[6, 1, 2])
    assert paid.state["outcome"] == "success" and paid.rolls.count() == 1
    assert LedgerEntry.objects.filter(operation="pay_retry").count() == 1


def test_vectors_25_29_dangerous_failure_damage_accepted(t: RollsTable) -> None:
    set_threat(t, 5)
    set_sheet(t.lucia, current=[3, 3, 2], overcome=3)
    flow = challenge(t, t.lucia, 5, dangerous=True)
    assert threat(t) == 4 and flow.state["machine"]["dangerous"] is True  # vector 25
    flow = step(flow, t.player, "roll", dice=[1, 2, 4])
    assert flow.state["outcome"] == "failure" and threat(t) == 4  # 1 omen: 2 < 4
    flow = step(flow, t.gm, "finalize")
    assert awaited(flow) == {"damage": (False, [t.player.pk])}
    flow = step(flow, t.player, "damage", {"protect": "false"})
    assert flow.status == FlowStatus.SETTLED
    assert (current(t.lucia), overcome(t.lucia), threat(t)) == (1, 3, 4)
    assert record(flow)[-1] == "Daño físico 2 en Acción: Lucía (3 → 1)."
    assert record(flow, lang="en")[-1] == "2 physical damage to Action: Lucía (3 → 1)."


def test_vector_30_the_player_chooses_script_protection(t: RollsTable) -> None:
    set_threat(t, 5)
    set_sheet(t.lucia, current=[3, 3, 2], overcome=3)
    flow = challenge(t, t.lucia, 5, dangerous=True)
    flow = step(flow, t.player, "roll", dice=[1, 2, 4])
    flow = step(flow, t.gm, "finalize")
    with pytest.raises(PermissionDenied):  # the GM does not choose for the player
        step(flow, t.gm, "damage", {"protect": True})
    flow = step(flow, t.player, "damage", {"protect": True})
    assert (current(t.lucia), overcome(t.lucia), threat(t)) == (3, 2, 5)
    assert record(flow)[-1] == "Protección de guión (elegida): Lucía paga 1 punto e ignora 2 de daño."


def test_vector_31_protection_is_spent_automatically_when_mandatory(t: RollsTable) -> None:
    set_threat(t, 5)
    set_sheet(t.lucia, current=[1, 3, 2], overcome=2)
    flow = challenge(t, t.lucia, 3, dangerous=True)
    flow = step(flow, t.player, "roll", dice=[1])
    flow = step(flow, t.gm, "finalize")
    assert flow.status == FlowStatus.SETTLED  # no choice to wait for
    assert (current(t.lucia), overcome(t.lucia), threat(t)) == (1, 1, 5)
    assert flow.state["machine"]["damage"][0]["mandatory"] is True
    assert record(flow)[-1] == "Protección de guión (obligatoria): Lucía paga 1 punto e ignora 2 de daño."


@pytest.mark.parametrize("confirm", [True, False])
def test_vector_32_out_of_the_story_and_the_gm_confirms_the_threat(t: RollsTable, confirm: bool) -> None:
    set_threat(t, 8)
    set_sheet(t.lucia, current=[1, 3, 2], overcome=2)
    flow = challenge(t, t.lucia, 3, dangerous=True)
    assert threat(t) == 8  # free at 8 (vector 28)
    flow = step(flow, t.player, "roll", dice=[1])
    flow = step(flow, t.gm, "finalize")
    assert sheet(t.lucia)["status"] == "out_of_story" and current(t.lucia) == -1
    assert flow.status == FlowStatus.OPEN and awaited(flow) == {"threat_gain": (True, [])}
    assert "Lucía queda fuera de la historia." in record(flow)[-1]
    flow = step(flow, t.gm, "threat_gain", {"confirm": confirm})
    assert flow.status == FlowStatus.SETTLED and threat(t) == (9 if confirm else 8)
    last = "El director sube la amenaza por la salida de Lucía: 8 → 9." if confirm else "no sube la amenaza"
    assert last in record(flow)[-1]


def test_vector_26_danger_needs_threat_and_is_only_declared_before_the_dice(t: RollsTable) -> None:
    with pytest.raises(RulesError) as exc:
        challenge(t, t.lucia, 5, dangerous=True)
    assert exc.value.code == "NO_THREAT" and threat(t) == 0
    set_threat(t, 3)
    flow = challenge(t, t.lucia, 5)
    flow = step(flow, t.player, "roll", dice=[6, 6, 6, 6])
    with pytest.raises(RulesError) as exc:  # the pure rule's DANGER_AFTER_ROLL: the table no longer offers it
        step(flow, t.gm, "declare_danger")
    assert exc.value.code == "step_not_available" and threat(t) == 3


def test_vector_36_a_retry_discards_the_pending_damage(t: RollsTable) -> None:
    set_threat(t, 4)
    set_sheet(t.lucia, current=[2, 3, 2], overcome=2)
    flow = challenge(t, t.lucia, 5, dangerous=True)
    assert threat(t) == 3
    flow = step(flow, t.player, "roll", dice=[1, 4])
    assert flow.state["outcome"] == "failure" and threat(t) == 3
    flow = step(flow, t.player, "retry")
    assert (overcome(t.lucia), threat(t)) == (1, 4)
    flow = step(flow, t.player, "roll", dice=[6, 2])
    flow = step(flow, t.gm, "finalize")
    assert flow.status == FlowStatus.SETTLED
    assert (current(t.lucia), overcome(t.lucia), threat(t)) == (2, 1, 4)
    assert flow.rolls.count() == 2 and not LedgerEntry.objects.filter(operation="apply_damage").exists()


def test_refusals_change_nothing(t: RollsTable) -> None:
    set_sheet(t.lucia, overcome=0)
    flow = challenge(t, t.lucia, 5)
    with pytest.raises(PermissionDenied):  # another player may not roll for Lucía
        step(flow, t.player2, "roll", dice=[6])
    with pytest.raises(PermissionDenied):  # nor open a challenge
        start(t, "challenge", {"character_id": t.lucia.pk, "characteristic": "c1", "difficulty": 3}, actor=t.player)
    flow = step(flow, t.player, "roll", dice=[1, 2, 2, 1])
    assert flow.state["outcome"] == "failure"
    before = (threat(t), overcome(t.lucia), LedgerEntry.objects.count(), FlowStep.objects.count())
    with pytest.raises(RulesError) as exc:  # vector 53: no point to pay the retry with
        step(flow, t.player, "retry")
    assert exc.value.code == "NO_OVERCOME"
    assert (threat(t), overcome(t.lucia), LedgerEntry.objects.count(), FlowStep.objects.count()) == before
    flow = step(flow, t.gm, "finalize")
    with pytest.raises(RulesError) as exc:  # settling twice
        step(flow, t.gm, "finalize")
    assert exc.value.code == "step_not_available"


def test_a_retry_on_a_success_is_refused(t: RollsTable) -> None:
    flow = challenge(t, t.lucia, 3)
    flow = step(flow, t.player, "roll", dice=[6, 6, 6, 6])
    with pytest.raises(RulesError) as exc:  # RETRY_NOT_FAILED in the pure rules: not offered on a success
        step(flow, t.player, "retry")
    assert exc.value.code == "step_not_available" and overcome(t.lucia) == 5


def test_vector_46_a_player_forces_anothers_failure_with_their_complication(t: RollsTable) -> None:
    set_threat(t, 3)
    set_sheet(t.hugo, overcome=2)
    flow = challenge(t, t.hugo, 3)
    flow = step(flow, t.player2, "roll", dice=[6, 2, 3, 4, 5])
    assert flow.state["outcome"] == "success"
    params = {"force": "failure", "quality_owner": t.hugo.pk, "quality": "complication"}
    flow = step(flow, t.player, "force", params, key="force-1")
    assert flow.state["outcome"] == "failure"
    assert (overcome(t.lucia), overcome(t.hugo), threat(t)) == (4, 3, 3)
    again = step(flow, t.player, "force", params, key="force-1")  # a double click: nothing twice
    assert again.state == flow.state and overcome(t.lucia) == 4
    # vector 55: once forced, no further activation aimed at the outcome; no point moves
    with pytest.raises(RulesError) as exc:  # ALREADY_FORCED in the pure rules: not offered again
        step(flow, t.gm, "force", {"force": "success", "quality_owner": t.hugo.pk, "quality": "concept"})
    assert exc.value.code == "step_not_available" and threat(t) == 3
    flow = step(flow, t.gm, "finalize")
    assert sheet(t.hugo)["challenge_locks"] == [f"flow:{flow.pk}"]  # a forced failure is a failure
    assert "Lucía (1 punto de superación) activa complicación de Hugo: Fallo forzado" in record(flow)


def test_vector_47_48_gm_and_own_activations(t: RollsTable) -> None:
    set_threat(t, 6)
    set_sheet(t.lucia, overcome=1)
    flow = challenge(t, t.lucia, 3)
    flow = step(flow, t.player, "roll", dice=[6, 2, 3, 4])
    flow = step(flow, t.gm, "force", {"force": "failure", "quality_owner": t.lucia.pk, "quality": "complication"})
    assert (threat(t), overcome(t.lucia)) == (5, 2)  # vector 47: threat −1, Lucía +1
    set_threat(t, 2)
    flow = challenge(t, t.lucia, 20)
    flow = step(flow, t.player, "roll", dice=[2, 2, 3, 4])
    flow = step(flow, t.player, "force", {"force": "success", "quality_owner": t.lucia.pk, "quality": "hito"})
    assert (threat(t), overcome(t.lucia), flow.state["outcome"]) == (3, 1, "success")  # vector 48


def test_a_player_cannot_pay_with_someone_elses_character(t: RollsTable) -> None:
    flow = challenge(t, t.lucia, 3)
    flow = step(flow, t.player, "roll", dice=[6, 2, 3, 4])
    params = {"force": "failure", "quality_owner": t.lucia.pk, "quality": "concept", "activator": t.hugo.pk}
    with pytest.raises(RulesError) as exc:
        step(flow, t.player, "force", params)
    assert exc.value.code == "not_your_character" and overcome(t.hugo) == 5


def test_a_supernatural_trait_costs_its_owner_a_point(t: RollsTable) -> None:
    set_threat(t, 1)
    set_sheet(t.lucia, overcome=3)
    flow = challenge(t, t.lucia, 5, characteristic="c2")
    flow = step(flow, t.player, "roll", {"traits": ["Ver a los muertos", "Mentir"]}, dice=[3, 2, 4])
    flow = step(flow, t.gm, "judge_traits", {"accepted": ["Ver a los muertos"]})
    assert (overcome(t.lucia), threat(t)) == (2, 2)  # vector 56
    assert flow.state["outcome"] == "success"  # 4 + 1


def test_cancel_before_the_dice_refunds_a_paid_danger(t: RollsTable) -> None:
    set_threat(t, 3)
    flow = challenge(t, t.lucia, 5, dangerous=True)
    assert threat(t) == 2
    flow = step(flow, t.gm, "cancel")
    assert flow.status == FlowStatus.CANCELLED and threat(t) == 3
    assert ledger_ops(t)[-1] == "refund_danger"


def test_an_npc_challenge_is_rolled_by_the_gm(t: RollsTable) -> None:
    set_threat(t, 2)
    flow = challenge(t, t.criado, 9)
    assert awaited(flow) == {"roll": (True, [])}
    with pytest.raises(PermissionDenied):
        step(flow, t.player, "roll", dice=[3, 3])
    flow = step(flow, t.gm, "roll", dice=[3, 3])
    flow = step(flow, t.gm, "retry")
    assert threat(t) == 1  # the GM pays a secondary's retry with threat
    assert record(flow)[-1] == "El director paga 1 punto de amenaza para volver a intentar el reto."
    assert Roll.objects.filter(flow=flow).get().roller == t.gm


def test_a_amb_14_15_early_damage_is_settled_before_a_retry_at_the_threat_of_the_roll(db: None) -> None:
    """The alternative rules: a failed dangerous roll's damage is chosen before any retry (A-AMB-14), and
    script protection is judged at the threat the roll was made at (A-AMB-10)."""
    t = build("rp_early_", {"retry_discards_pending_damage": False, "protection_check_time": "at_roll"})
    set_threat(t, 5)
    set_sheet(t.lucia, current=[3, 3, 2], overcome=3)
    flow = challenge(t, t.lucia, 5, dangerous=True)
    flow = step(flow, t.player, "roll", dice=[1, 2, 4])
    assert flow.state["outcome"] == "failure"
    assert awaited(flow) == {"finalize": (True, []), "damage": (False, [t.player.pk])}
    with pytest.raises(RulesError) as exc:  # the damage first (A-AMB-14's alternative)
        step(flow, t.player, "retry")
    assert exc.value.code == "step_not_available"
    flow = step(flow, t.player, "damage", {"protect": False})
    assert flow.status == FlowStatus.OPEN and current(t.lucia) == 1
    assert awaited(flow) == {"finalize": (True, [])}
    assert CHALLENGE.actors(CHALLENGE.load_state(flow.state), "retry") == {t.player.pk}
    damage = LedgerEntry.objects.get(campaign=t.campaign, operation="apply_damage")
    assert damage.params["protection_threat"] == 4  # the threat at the roll, after the danger was paid
    flow = step(flow, t.gm, "finalize")
    assert flow.status == FlowStatus.SETTLED
    assert record(flow)[-1].startswith("El director cierra el resultado: Fallo. Lucía no podrá volver a intentar")
