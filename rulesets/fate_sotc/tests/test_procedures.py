"""FATE SotC flows end to end through ``start_flow``/``take_step`` with scripted dice: invocations, compels,
attacks (absorption, taken out, concession) and maneuvers that place aspects; every refusal changes nothing."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import PermissionDenied
from django.test import Client

from campaigns import policy
from campaigns import services as campaign_services
from campaigns.models import SceneAspect
from characters.models import LedgerEntry
from rolls.models import Flow, FlowStatus, FlowStep, Roll, RollFollowUp
from rolls.selectors import flow_views
from rolls.services import RollSpec, create_post_with_rolls
from rulesets.fate_sotc.tests.scene_fixtures import (
    MINUS3,
    PLUS2,
    PLUS4,
    ZERO,
    SotcScene,
    aspect_ref,
    awaited,
    build_scene,
    fp,
    ledger_count,
    lines,
    set_sheet,
    sheet,
    start,
    step,
)
from systems.dice import ScriptedDice
from systems.errors import RulesError

pytestmark = pytest.mark.django_db


@pytest.fixture
def s(db: None) -> SotcScene:
    return build_scene()


def posted_roll(s: SotcScene, dice: list[int], *, author: Any = None, character: Any = None, **data: Any) -> Roll:
    author = author or s.t.player
    character = character or s.t.hero
    post = create_post_with_rolls(
        author=author,
        scene=s.scene,
        body="Piloto a fondo.",
        voice="character",
        character=character,
        rolls=[RollSpec(kind=data.pop("kind", "simple"), data=data, character_id=character.pk)],
        dice=ScriptedDice(dice),
    )
    return post.rolls.get()


def offered_values(user: Any, s: SotcScene, flow: Flow, step_key: str, field: str) -> list[str]:
    """The values a step's picker offers this user on the page."""
    view = flow_views(policy.viewer_for(user, s.t.campaign), [flow], "es")[0]
    action = next(a for a in view.actions if a.step == step_key)
    return [choice.value for choice in action.choices[field]]


def refused(s: SotcScene, actor: Any, flow: Flow, name: str, code: str, **params: Any) -> None:
    """The rules refuse the step and nothing changes: state, sheets, ledger, steps, follow-ups."""
    flow.refresh_from_db()
    before = (flow.state, ledger_count(s.t), FlowStep.objects.count(), RollFollowUp.objects.count())
    sheets = [sheet(c) for c in (s.t.hero, s.t.rival, s.t.npc)]
    with pytest.raises(RulesError) as info:
        step(actor, flow, name, **params)
    assert info.value.code == code, info.value.code
    flow.refresh_from_db()
    assert (flow.state, ledger_count(s.t), FlowStep.objects.count(), RollFollowUp.objects.count()) == before
    assert [sheet(c) for c in (s.t.hero, s.t.rival, s.t.npc)] == sheets


# --- invocation window on a posted roll ------------------------------------------------------------


def test_invocations_after_the_roll_plus_two_survives_a_reroll(s: SotcScene) -> None:
    """Vector 127: skill 3, dice -3, invoke A for +2, then B to reroll (+1): effort 2, then 6; FP -2."""
    roll = posted_roll(s, MINUS3, skill="academics", difficulty=5)  # Educación Bueno (+3)
    assert roll.result["sides"][0]["effort"] == 0
    flow = start(s.t.player, s.scene, "invocation", roll=roll.pk)
    flow = step(s.t.player, flow, "invoke", aspect=aspect_ref(s.t.hero), mode="bonus")
    assert fp(s.t.hero) == 10, "no PD moves before the GM approves"
    assert list(awaited(flow)) == ["approve"] and awaited(flow)["approve"]["gm"]
    flow = step(s.gm, flow, "approve")
    assert fp(s.t.hero) == 9 and flow.state["sides"]["a"]["effort"] == 2
    flow = step(s.t.player, flow, "invoke", aspect=aspect_ref(s.t.hero, "aspecto-2"), mode="reroll")
    flow = step(s.gm, flow, "approve", dice=[5, 3, 3, 3])
    side = flow.state["sides"]["a"]
    assert side["effort"] == 6 and fp(s.t.hero) == 8
    assert side["roll"]["history"][0]["total"] == -3, "the replaced dice stay as evidence"
    assert Roll.objects.get(pk=roll.pk).result["sides"][0]["effort"] == 0, "the roll itself is never edited"
    flow = step(s.gm, flow, "close")
    assert flow.status == FlowStatus.SETTLED
    kinds = list(RollFollowUp.objects.filter(roll=roll).values_list("kind", flat=True))
    assert kinds == ["invoke_requested", "invoke", "invoke_requested", "reroll", "window_closed"]
    last = RollFollowUp.objects.filter(roll=roll).last()
    assert last is not None and "Éxito (1 aumento)" in last.summary_es and "Success (1 shift)" in last.summary_en
    ledger = list(LedgerEntry.objects.filter(character=s.t.hero).values_list("operation", flat=True))
    assert ledger[-2:] == ["invoke_own", "invoke_own"]


def test_the_same_aspect_twice_on_one_roll_is_refused_even_after_a_reroll(s: SotcScene) -> None:
    roll = posted_roll(s, ZERO, skill="pilot", difficulty=3)
    flow = start(s.t.player, s.scene, "invocation", roll=roll.pk)
    flow = step(s.t.player, flow, "invoke", aspect=aspect_ref(s.t.hero), mode="reroll")
    refused(s, s.t.player, flow, "invoke", "aspect_already_invoked_on_roll", aspect=aspect_ref(s.t.hero))
    step(s.gm, flow, "approve", dice=ZERO)
    refused(s, s.t.player, flow, "invoke", "aspect_already_invoked_on_roll", aspect=aspect_ref(s.t.hero))


def test_spending_a_point_you_do_not_have_is_refused(s: SotcScene) -> None:
    set_sheet(s.t.hero, fate_points=0)
    roll = posted_roll(s, ZERO, skill="pilot", difficulty=3)
    flow = start(s.t.player, s.scene, "invocation", roll=roll.pk)
    refused(s, s.t.player, flow, "invoke", "insufficient_fate_points", aspect=aspect_ref(s.t.hero))
    refused(s, s.t.player, flow, "advantage", "insufficient_fate_points", side="a")


def test_fp_advantage_and_rejection_and_who_acts(s: SotcScene) -> None:
    roll = posted_roll(s, ZERO, skill="pilot", difficulty=6)
    flow = start(s.t.player, s.scene, "invocation", roll=roll.pk)
    flow = step(s.t.player, flow, "advantage", side="a")
    assert fp(s.t.hero) == 9 and flow.state["sides"]["a"]["effort"] == 5
    flow = step(s.t.player, flow, "invoke", aspect=aspect_ref(s.t.hero))
    for intruder in (s.t.player, s.t.player2, s.t.reader):
        with pytest.raises(PermissionDenied):
            step(intruder, flow, "approve")
    with pytest.raises(PermissionDenied):
        step(s.t.player2, flow, "invoke", aspect=aspect_ref(s.t.rival))
    refused(s, s.gm, flow, "close", "step_not_available")
    flow = step(s.gm, flow, "reject")
    assert fp(s.t.hero) == 9 and flow.state["sides"]["a"]["effort"] == 5
    flow = step(s.gm, flow, "close")
    final = flow.state["final"]
    assert (final["success"], final["critical"], final["shifts"], final["failure_margin"]) == (False, False, 0, 1)
    with pytest.raises(RulesError) as info:
        step(s.gm, flow, "close")
    assert info.value.code == "step_not_available"


def test_a_replayed_approval_spends_once(s: SotcScene) -> None:
    roll = posted_roll(s, ZERO, skill="pilot", difficulty=3)
    flow = start(s.t.player, s.scene, "invocation", roll=roll.pk)
    flow = step(s.t.player, flow, "invoke", aspect=aspect_ref(s.t.hero))
    step(s.gm, flow, "approve", key="double-click")
    step(s.gm, flow, "approve", key="double-click")
    assert fp(s.t.hero) == 9 and LedgerEntry.objects.filter(operation="invoke_own").count() == 1


def test_one_window_per_roll_and_only_the_roller_or_gm_opens_it(s: SotcScene) -> None:
    roll = posted_roll(s, ZERO, skill="pilot", difficulty=3)
    with pytest.raises(RulesError) as info:
        start(s.t.player2, s.scene, "invocation", roll=roll.pk)
    assert info.value.code == "not_your_roll"
    start(s.t.player, s.scene, "invocation", roll=roll.pk)
    with pytest.raises(RulesError) as info:
        start(s.gm, s.scene, "invocation", roll=roll.pk)
    assert info.value.code == "roll_not_open"


def test_tagging_an_opponents_aspect_against_them_pays_them_when_the_window_closes(s: SotcScene) -> None:
    """Vector 131 outside a conflict: the tagger pays 1; the owner's point is pending until the window closes."""
    roll = posted_roll(s, ZERO + ZERO, kind="opposed", skill="pilot", opposition=3)
    flow = start(s.t.player, s.scene, "invocation", roll=roll.pk, opponent=s.t.rival.pk)
    flow = step(s.t.player, flow, "invoke", aspect=aspect_ref(s.t.rival, "aspecto-3"), detrimental=True)
    flow = step(s.gm, flow, "approve")
    assert fp(s.t.hero) == 9
    assert sheet(s.t.rival)["fate_points"] == 10 and sheet(s.t.rival)["fate_points_pending"] == 1
    flow = step(s.gm, flow, "close")
    assert sheet(s.t.rival)["fate_points"] == 11 and sheet(s.t.rival)["fate_points_pending"] == 0
    assert flow.state["final"]["winner"] == "a" and flow.state["final"]["shifts"] == 3


def test_the_rival_named_in_the_builder_keeps_its_name_in_the_window_and_record(s: SotcScene) -> None:
    """Issue 28: a rival typed in the attack builder was shown as «—» once the window opened."""
    roll = posted_roll(s, ZERO + ZERO, kind="opposed", skill="pilot", opposition=3, opposition_name="Barón Rojo")
    flow = start(s.t.player, s.scene, "invocation", roll=roll.pk)
    assert flow.state["sides"]["b"]["name"] == "Barón Rojo"
    page = Client()
    page.force_login(s.t.player)
    html = page.get(f"/scenes/{s.scene.pk}/").content.decode()
    window = html[html.index(f'id="flow-{flow.pk}"') :]
    assert "<td>Barón Rojo</td>" in window[:4000]


def test_secret_difficulty_stays_out_of_the_public_state(s: SotcScene) -> None:
    roll = posted_roll(s, ZERO, author=s.gm, character=s.t.npc, skill="weapons", difficulty=4, secret=True)
    assert "difficulty" not in roll.result and roll.secret["difficulty"] == 4
    flow = start(s.gm, s.scene, "invocation", roll=roll.pk)
    assert flow.secret_state == {"difficulty": 4}
    flow = step(s.gm, flow, "close")
    final = flow.state["final"]
    assert (final["success"], final["critical"], final["shifts"], final["failure_margin"]) == (True, False, None, None)
    assert "4" not in final["es"].replace("+5", "") and "secreta" in final["es"]
    assert lines(flow, gm_only=True) == ["Dificultad secreta: Grande (+4)"]
    assert all("Grande (+4)" not in text for text in lines(flow, gm_only=False))


def test_hidden_scene_aspects_cannot_be_tagged_without_knowing_them(s: SotcScene) -> None:
    hidden = campaign_services.add_scene_aspect(actor=s.gm, scene=s.scene, text="Rincones oscuros", hidden=True)
    roll = posted_roll(s, ZERO, skill="stealth", difficulty=2)
    flow = start(s.t.player, s.scene, "invocation", roll=roll.pk)
    assert f"scene:{hidden.pk}" not in offered_values(s.t.player, s, flow, "invoke", "aspect")
    # The GM invokes on an NPC's roll (never on a player's): there the hidden aspect is offered.
    npc_roll = posted_roll(s, ZERO, author=s.gm, character=s.t.npc, skill="weapons", difficulty=2)
    npc_flow = start(s.gm, s.scene, "invocation", roll=npc_roll.pk)
    assert f"scene:{hidden.pk}" in offered_values(s.gm, s, npc_flow, "invoke", "aspect")
    refused(s, s.t.player, flow, "invoke", "aspect_not_offered", aspect=f"scene:{hidden.pk}")


# --- compels --------------------------------------------------------------------------------------------


def compel(s: SotcScene, kind: str = "gm") -> Flow:
    return start(s.gm, s.scene, "compel", character=s.t.hero.pk, aspect="Demasiado orgullosa", kind=kind)


def test_compel_accepted_earns_the_point_and_settles_once(s: SotcScene) -> None:
    flow = compel(s)
    assert awaited(flow)["accept"]["users"] == [s.t.player.pk]
    with pytest.raises(PermissionDenied):
        step(s.gm, flow, "accept")  # a GM does not accept for a player
    flow = step(s.t.player, flow, "accept")
    assert fp(s.t.hero) == 11 and flow.status == FlowStatus.SETTLED
    entry = LedgerEntry.objects.get(operation="compel_accepted")
    assert entry.actor == s.t.player and entry.changes == {f"character.{s.t.hero.pk}.fate_points": [10, 11]}
    with pytest.raises(RulesError) as info:
        step(s.t.player, flow, "accept")
    assert info.value.code == "step_not_available"
    assert fp(s.t.hero) == 11


def test_compel_escalation_then_accept_and_buy_off(s: SotcScene) -> None:
    """Vector 141 (a) and (b)."""
    set_sheet(s.t.hero, fate_points=3)
    flow = compel(s)
    flow = step(s.t.player, flow, "decline")
    assert awaited(flow)["stand"]["gm"] and fp(s.t.hero) == 3
    refused(s, s.t.player, flow, "accept", "step_not_available")
    flow = step(s.gm, flow, "escalate")
    flow = step(s.t.player, flow, "accept")
    assert fp(s.t.hero) == 5
    flow = compel(s)
    step(s.t.player, flow, "decline")
    step(s.gm, flow, "escalate")
    step(s.t.player, flow, "decline")
    step(s.gm, flow, "escalate")
    step(s.t.player, flow, "decline")
    refused(s, s.gm, flow, "escalate", "compel_escalation_limit")
    flow = step(s.gm, flow, "stand")
    assert fp(s.t.hero) == 2 and flow.state["compel"]["status"] == "bought_off"


def test_a_compel_you_cannot_pay_for_must_be_accepted(s: SotcScene) -> None:
    set_sheet(s.t.hero, fate_points=0)
    flow = compel(s)
    refused(s, s.t.player, flow, "decline", "compel_not_refusable")
    refused(s, s.gm, flow, "stand", "step_not_available")
    step(s.t.player, flow, "accept")
    assert fp(s.t.hero) == 1


def test_offscreen_compel_cannot_be_refused_and_foreshadow_gift_can(s: SotcScene) -> None:
    flow = compel(s, "offscreen")
    assert flow.status == FlowStatus.SETTLED and fp(s.t.hero) == 11
    flow = compel(s, "foreshadow")
    flow = step(s.t.player, flow, "decline")
    assert flow.status == FlowStatus.SETTLED and fp(s.t.hero) == 10


def test_only_a_gm_offers_a_compel(s: SotcScene) -> None:
    with pytest.raises(RulesError):
        start(s.t.player, s.scene, "compel", character=s.t.rival.pk, aspect="Rival")
    assert not Flow.objects.exists()


# --- attacks --------------------------------------------------------------------------------------------


def attack(s: SotcScene, dice: list[int], **over: Any) -> Flow:
    params = {"attacker": s.t.hero.pk, "skill": "guns", "defender": s.t.rival.pk, "defense_skill": "athletics"}
    return start(s.t.player, s.scene, "attack", dice=dice, **{**params, **over})


def test_attack_hit_becomes_the_defenders_absorption_choice(s: SotcScene) -> None:
    """Puntería 5 + 0 vs Atletismo 4 + 0: a hit of 1 on Salud; the defender marks box 1."""
    flow = attack(s, ZERO + ZERO)
    assert flow.state["sides"]["a"]["effort"] == 5 and flow.state["sides"]["b"]["effort"] == 4
    refused(s, s.t.player2, flow, "absorb", "step_not_available", choice="box")
    flow = step(s.gm, flow, "close")
    assert flow.state["phase"] == "absorb" and flow.state["hit"] == 1
    assert list(awaited(flow)) == ["absorb"] and awaited(flow)["absorb"]["users"] == [s.t.player2.pk]
    with pytest.raises(PermissionDenied):
        step(s.t.player, flow, "absorb", choice="box")
    flow = step(s.t.player2, flow, "absorb", choice="box")
    assert sheet(s.t.rival)["stress"]["health"] == [True, False, False, False, False]
    assert flow.status == FlowStatus.SETTLED
    assert RollFollowUp.objects.last().summary_es == "Jet Black marca la casilla 1 de Salud"  # type: ignore[union-attr]


def test_a_hit_that_cannot_be_marked_needs_a_consequence_and_a_severe_one_takes_out(s: SotcScene) -> None:
    flow = attack(s, PLUS4 + MINUS3)  # 9 vs 1: hit 8 on a 5-box track
    flow = step(s.gm, flow, "close")
    refused(s, s.t.player2, flow, "absorb", "consequence_required", choice="box")
    flow = step(s.t.player2, flow, "absorb", choice="box", text="Costillas rotas")
    assert sheet(s.t.rival)["consequences"][0]["severity"] == "leve"
    set_sheet(
        s.t.rival,
        consequences=[{"severity": "severa", "track": "health", "text": "Pierna rota"}],
    )
    flow = attack(s, PLUS4 + MINUS3)
    flow = step(s.gm, flow, "close")
    flow = step(s.t.player2, flow, "absorb", choice="box")
    assert sheet(s.t.rival)["status"] == "taken_out"
    assert "derrotado" in lines(flow)[-1] and "taken out" in lines(flow, "en")[-1]


def test_defender_invokes_in_the_window_and_the_attack_misses(s: SotcScene) -> None:
    flow = attack(s, ZERO + ZERO)
    flow = step(s.t.player2, flow, "invoke", side="b", aspect=aspect_ref(s.t.rival, "aspecto-4"))
    with pytest.raises(RulesError):
        step(s.t.player2, flow, "invoke", side="a", aspect=aspect_ref(s.t.rival, "aspecto-5"))
    flow = step(s.gm, flow, "approve")
    flow = step(s.gm, flow, "close")
    assert flow.status == FlowStatus.SETTLED and flow.state["hit"] == 0 and fp(s.t.rival) == 9


def test_gm_npc_invocations_need_no_approval(s: SotcScene) -> None:
    flow = start(
        s.gm, s.scene, "attack", dice=ZERO + ZERO,
        attacker=s.t.npc.pk, skill="weapons", defender=s.t.hero.pk, defense_skill="athletics",
    )  # fmt: skip
    flow = step(s.gm, flow, "invoke", side="a", aspect=aspect_ref(s.t.hero, "aspecto-8"), detrimental=True)
    assert flow.state["sides"]["a"]["effort"] == 7 and fp(s.t.npc) == 2
    assert sheet(s.t.hero)["fate_points_pending"] == 1
    flow = step(s.gm, flow, "close")
    assert sheet(s.t.hero)["fate_points"] == 11 and flow.state["hit"] == 3
    flow = step(s.t.player, flow, "absorb", choice="consequence", text="Brazo herido")
    assert sheet(s.t.hero)["consequences"][0]["text"] == "Brazo herido"


def test_concession_refused_as_reasonable_moves_points_then_the_hit_lands(s: SotcScene) -> None:
    """Vector 111: conceder +1, refuser -1, conflict continues."""
    flow = attack(s, ZERO + ZERO)
    flow = step(s.gm, flow, "close")
    refused(s, s.t.player2, flow, "absorb", "terms_required", choice="concede")
    flow = step(s.t.player2, flow, "absorb", choice="concede", terms="Huyo con el mapa roto")
    assert awaited(flow)["answer"]["users"] == [s.t.player.pk]
    flow = step(s.t.player, flow, "answer", accept="0")
    with pytest.raises(PermissionDenied):
        step(s.t.player, flow, "rule", reasonable="1")
    flow = step(s.gm, flow, "rule", reasonable="1")
    assert fp(s.t.rival) == 11 and fp(s.t.hero) == 9
    assert flow.state["phase"] == "absorb"
    refused(s, s.t.player2, flow, "absorb", "concession_refused", choice="concede", terms="Otra vez")
    step(s.t.player2, flow, "absorb", choice="box")
    assert sheet(s.t.rival)["stress"]["health"][0] is True


def test_concession_accepted_takes_the_conceder_out_on_their_terms(s: SotcScene) -> None:
    flow = attack(s, ZERO + ZERO)
    step(s.gm, flow, "close")
    step(s.t.player2, flow, "absorb", choice="concede", terms="Me rindo")
    step(s.t.player, flow, "answer", accept="1")
    flow = step(s.gm, flow, "rule", reasonable="1")
    assert flow.status == FlowStatus.SETTLED and sheet(s.t.rival)["status"] == "conceded"
    assert fp(s.t.rival) == 10 and fp(s.t.hero) == 10  # vector 110: no PD change on acceptance


# --- maneuvers (create an advantage) -----------------------------------------------------------------------


def maneuver(s: SotcScene, dice: list[int], target: str, **over: Any) -> Flow:
    params = {"character": s.t.hero.pk, "skill": "athletics", "target": target, "text": "Fuera de equilibrio"}
    return start(s.t.player, s.scene, "advantage", dice=dice, **{**params, **over})


def test_maneuver_on_a_character_places_a_fragile_aspect_with_a_free_invocation(s: SotcScene) -> None:
    flow = maneuver(s, PLUS2 + ZERO, str(s.t.rival.pk), defense_skill="athletics")  # 6 vs 4
    flow = step(s.gm, flow, "close")
    assert flow.state["phase"] == "target" and awaited(flow)["accept"]["users"] == [s.t.player2.pk]
    flow = step(s.t.player2, flow, "accept")
    flow = step(s.gm, flow, "place", sticky="1")  # 2 shifts: sticky needs a critical success
    placed = sheet(s.t.rival)["temporary_aspects"][0]
    assert placed["persistence"] == "fragile" and placed["free_invocations"][0]["holder_character_id"] == str(
        s.t.hero.pk
    )
    assert flow.state["persistence"] == "fragile"
    # The creator's free invocation, on their next roll: free, then the fragile aspect is gone.
    roll = posted_roll(s, ZERO, skill="guns", difficulty=3)
    window = start(s.t.player, s.scene, "invocation", roll=roll.pk)
    ref = f"character:{s.t.rival.pk}:{placed['id']}"
    view = flow_views(policy.viewer_for(s.t.player, s.t.campaign), [window], "es")[0]
    labels = {c.value: c.label for a in view.actions if a.step == "invoke" for c in a.choices["aspect"]}
    assert labels[ref] == "Jet Black: «Fuera de equilibrio» · 1 invocación gratuita de Sally Slick"
    with pytest.raises(PermissionDenied):  # only the roller's side invokes on this roll
        step(s.t.player2, window, "invoke", aspect=ref, payment="free")
    window = step(s.t.player, window, "invoke", aspect=ref, payment="free")
    step(s.gm, window, "approve")
    assert fp(s.t.hero) == 10 and sheet(s.t.rival)["temporary_aspects"] == []
    refused(s, s.t.player, window, "invoke", "aspect_not_offered", aspect=ref)  # a fragile aspect is gone


def test_maneuver_target_pays_to_avoid_and_a_tie_fails(s: SotcScene) -> None:
    flow = maneuver(s, PLUS2 + ZERO, str(s.t.rival.pk), defense_skill="athletics")
    step(s.gm, flow, "close")
    flow = step(s.t.player2, flow, "avoid")
    assert flow.status == FlowStatus.SETTLED and fp(s.t.rival) == 9 and sheet(s.t.rival)["temporary_aspects"] == []
    flow = maneuver(s, ZERO + ZERO, str(s.t.rival.pk), defense_skill="athletics")  # 4 vs 4
    flow = step(s.gm, flow, "close")
    assert flow.status == FlowStatus.SETTLED and flow.state["placed"] is False


def test_scene_maneuver_creates_a_scene_aspect_whose_free_invocation_is_used_once(s: SotcScene) -> None:
    flow = maneuver(s, ZERO, "scene", skill="might", difficulty=1, text="¡Fuego!")
    flow = step(s.gm, flow, "close")
    assert list(awaited(flow)) == ["place"] and awaited(flow)["place"]["gm"]
    with pytest.raises(PermissionDenied):
        step(s.t.player, flow, "place")
    flow = step(s.gm, flow, "place")
    row = SceneAspect.objects.get(scene=s.scene, text="¡Fuego!")
    assert row.text == "¡Fuego!" and row.free_invocations == 1
    roll = posted_roll(s, ZERO, skill="guns", difficulty=3)
    window = start(s.t.player, s.scene, "invocation", roll=roll.pk)
    other = campaign_services.add_scene_aspect(actor=s.gm, scene=s.scene, text="Tramoyas", free_invocations=1)
    window = step(s.t.player, window, "invoke", aspect=f"scene:{row.pk}", payment="free")
    refused(s, s.t.player, window, "invoke", "free_invocation_limit", aspect=f"scene:{other.pk}", payment="free")
    step(s.gm, window, "approve")
    row.refresh_from_db()
    assert row.free_invocations == 0 and fp(s.t.hero) == 10
    refused(s, s.t.player, window, "invoke", "aspect_already_invoked_on_roll", aspect=f"scene:{row.pk}")


def test_gm_may_deny_the_scene_aspect(s: SotcScene) -> None:
    flow = maneuver(s, ZERO, "scene", skill="might", difficulty=1, text="Brumoso")
    step(s.gm, flow, "close")
    flow = step(s.gm, flow, "deny")
    assert flow.status == FlowStatus.SETTLED and not SceneAspect.objects.exists()


@pytest.mark.parametrize(
    ("vector_id", "answer"),
    [("fate-sotc-161a", "accept"), ("fate-sotc-161b", "buy_off")],
    ids=["fate-sotc-161a", "fate-sotc-161b"],
)
def test_a_tag_for_effect_compel_charges_its_instigator(s: SotcScene, vector_id: str, answer: str) -> None:
    """New vector 161 (after the spec's 160; §4.6, §4.9, A9), in its words: | 161 | Tag for effect: Jet
    (FP 3) pays to tag Sally's aspect; the GM offers the compel (Sally FP 3). (a) Sally accepts. (b) Sally
    declines and the GM does not escalate. (c) The same compel naming no instigator. | (a) Jet 2, Sally 4;
    (b) Jet 2 (not refunded), Sally 2; (c) `instigator_required`, nobody pays | PROP (A9) |"""
    set_sheet(s.t.hero, fate_points=3)
    set_sheet(s.t.rival, fate_points=3)
    params: dict[str, Any] = {"character": s.t.hero.pk, "aspect": aspect_ref(s.t.hero), "kind": "tag_for_effect"}
    with pytest.raises(RulesError) as info:
        start(s.gm, s.scene, "compel", **params)
    assert info.value.code == "instigator_required" and fp(s.t.rival) == 3
    flow = start(s.gm, s.scene, "compel", **params, instigator=s.t.rival.pk)
    assert flow.state["instigator_id"] == s.t.rival.pk and fp(s.t.rival) == 2
    assert LedgerEntry.objects.filter(operation="invoke_effect_other", character=s.t.rival).count() == 1
    assert any("Jet Black provoca el forzado" in text for text in lines(flow))
    if answer == "accept":
        step(s.t.player, flow, "accept")
        assert (fp(s.t.rival), fp(s.t.hero)) == (2, 4)
    else:
        step(s.t.player, flow, "decline")
        step(s.gm, flow, "stand")
        assert (fp(s.t.rival), fp(s.t.hero)) == (2, 2)


def test_only_a_tag_for_effect_names_an_instigator_and_never_the_target(s: SotcScene) -> None:
    with pytest.raises(RulesError) as info:
        start(s.gm, s.scene, "compel", character=s.t.hero.pk, aspect="Demasiado orgullosa", instigator=s.t.rival.pk)
    assert info.value.code == "instigator_only_for_tag"
    params: dict[str, Any] = {"character": s.t.hero.pk, "aspect": aspect_ref(s.t.hero), "kind": "tag_for_effect"}
    with pytest.raises(RulesError) as info:
        start(s.gm, s.scene, "compel", **params, instigator=s.t.hero.pk)
    assert info.value.code == "instigator_is_target"
    assert not Flow.objects.exists()


def test_a_window_between_two_players_offers_the_gm_no_side_step(s: SotcScene) -> None:
    """Found by tests/rulesets/test_offered_means_legal.py: the GM was offered invoke, guess and advantage on
    a roll between two PCs, then refused ``not_your_side`` whatever they sent. A GM speaks for NPC sides only."""
    flow = attack(s, ZERO + ZERO)
    offered = {a.step for a in flow_views(policy.viewer_for(s.gm, s.t.campaign), [flow], "es")[0].actions}
    assert offered.isdisjoint({"invoke", "guess", "advantage"}) and "close" in offered
    npc = start(
        s.gm, s.scene, "attack", dice=ZERO + ZERO,
        attacker=s.t.npc.pk, skill="weapons", defender=s.t.hero.pk, defense_skill="athletics",
    )  # fmt: skip
    offered = {a.step for a in flow_views(policy.viewer_for(s.gm, s.t.campaign), [npc], "es")[0].actions}
    assert {"invoke", "guess", "advantage"} <= offered
