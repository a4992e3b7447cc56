"""FATE SotC: declarations and invoking for effect (spec §4.6, §4.7, vector 150, A34), guessing aspects inside
an invocation window (§4.11, vectors 147 and 148) and spin on defence (§3.6, vectors 36 and 40), end to end
through ``start_flow``/``take_step`` with scripted dice, one through the API; every refusal changes nothing."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import PermissionDenied
from django.test import Client
from rest_framework.test import APIClient

from campaigns import services as campaign_services
from characters.models import LedgerEntry
from rolls.models import Flow, FlowStatus, Roll
from rolls.services import RollSpec, create_post_with_rolls
from rulesets.fate_sotc.tests.scene_fixtures import (
    MINUS3,
    PLUS2,
    ZERO,
    SotcScene,
    aspect_ref,
    awaited,
    build_scene,
    fp,
    ledger_count,
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
    return build_scene(prefix="dsotc_")


def _refused(s: SotcScene, actor: Any, flow: Flow, name: str, code: str, **params: Any) -> None:
    flow.refresh_from_db()
    before = (flow.state, ledger_count(s.t), fp(s.t.hero), fp(s.t.rival))
    with pytest.raises(RulesError) as info:
        step(actor, flow, name, **params)
    assert info.value.code == code, info.value.code
    flow.refresh_from_db()
    assert (flow.state, ledger_count(s.t), fp(s.t.hero), fp(s.t.rival)) == before


# --- declarations -----------------------------------------------------------------------------------------


def test_a_declaration_costs_a_point_only_when_the_gm_approves_it(s: SotcScene) -> None:
    """Vector 150: FP 10 → approved 9; a vetoed one costs nothing (A34)."""
    flow = start(s.t.player, s.scene, "declaration", character=s.t.hero.pk, text="Llevo un mechero encima.")
    assert awaited(flow)["approve"]["gm"] and fp(s.t.hero) == 10
    with pytest.raises(PermissionDenied):
        step(s.t.player, flow, "approve")
    flow = step(s.gm, flow, "approve")
    assert flow.status == FlowStatus.SETTLED and fp(s.t.hero) == 9
    assert LedgerEntry.objects.get(operation="declaration").params["gm_approved"] is True
    with pytest.raises(RulesError) as info:
        step(s.gm, flow, "approve")
    assert info.value.code == "step_not_available" and fp(s.t.hero) == 9
    vetoed = start(s.t.player, s.scene, "declaration", character=s.t.hero.pk, text="El Barón es mi primo.")
    vetoed = step(s.gm, vetoed, "veto")
    assert vetoed.state["phase"] == "vetoed" and fp(s.t.hero) == 9
    withdrawn = start(s.t.player, s.scene, "declaration", character=s.t.hero.pk, text="Llueve.")
    assert step(s.t.player, withdrawn, "withdraw").status == FlowStatus.CANCELLED and fp(s.t.hero) == 9


def test_invoking_for_effect_with_ones_own_aspect_and_the_refusals(s: SotcScene) -> None:
    own = aspect_ref(s.t.hero, "aspecto-7")  # Miembro del Club del Siglo
    flow = start(s.t.player, s.scene, "declaration", character=s.t.hero.pk, text="Hay un socio aquí.", aspect=own)
    assert flow.state["kind"] == "invoke_effect_own" and flow.state["aspect_text"] == "Miembro del Club del Siglo"
    step(s.gm, flow, "approve")
    assert fp(s.t.hero) == 9 and LedgerEntry.objects.filter(operation="invoke_effect_own").count() == 1
    with pytest.raises(RulesError) as info:  # someone else's aspect: that sets up a compel (§4.6)
        start(s.t.player, s.scene, "declaration", character=s.t.hero.pk, text="x", aspect=aspect_ref(s.t.rival))
    assert info.value.code == "not_own_aspect"
    with pytest.raises(RulesError) as info:
        start(s.t.player, s.scene, "declaration", character=s.t.rival.pk, text="Jet se rinde.")
    assert info.value.code == "not_your_character"
    set_sheet(s.t.hero, fate_points=0)
    with pytest.raises(RulesError) as info:
        start(s.t.player, s.scene, "declaration", character=s.t.hero.pk, text="Llevo un mechero.")
    assert info.value.code == "insufficient_fate_points"
    assert fp(s.t.hero) == 0 and Flow.objects.filter(kind="declaration").count() == 1


def test_approving_a_declaration_after_the_points_are_gone_is_refused(s: SotcScene) -> None:
    flow = start(s.t.player, s.scene, "declaration", character=s.t.hero.pk, text="Llevo un mechero.")
    set_sheet(s.t.hero, fate_points=0)
    _refused(s, s.gm, flow, "approve", "insufficient_fate_points")


# --- guessing aspects (§4.11) -----------------------------------------------------------------------------


def posted_roll(s: SotcScene, dice: list[int], *, author: Any = None, character: Any = None, **data: Any) -> Roll:
    author = author or s.t.player
    character = character or s.t.hero
    post = create_post_with_rolls(
        author=author,
        scene=s.scene,
        body="Busco en la penumbra.",
        voice="character",
        character=character,
        rolls=[RollSpec(kind="simple", data=data, character_id=character.pk)],
        dice=ScriptedDice(dice),
    )
    return post.rolls.get()


def _window(s: SotcScene) -> tuple[Flow, Any]:
    hidden = campaign_services.add_scene_aspect(actor=s.gm, scene=s.scene, text="Rincones oscuros", hidden=True)
    roll = posted_roll(s, ZERO, skill="stealth", difficulty=4)
    return start(s.t.player, s.scene, "invocation", roll=roll.pk), hidden


def _guess(s: SotcScene, flow: Flow, text: str = "Pobremente iluminado", **kw: Any) -> Flow:
    return step(s.t.player, flow, "guess", side="a", text=text, justification="Las lámparas están rotas.", **kw)


def test_a_close_enough_guess_reveals_the_aspect_and_its_point_pays_the_invocation(s: SotcScene) -> None:
    """Vector 147 (close enough): FP 3 → 2 in the vector; here 10 → 9, and +2 applied."""
    flow, hidden = _window(s)
    effort = flow.state["sides"]["a"]["effort"]
    flow = _guess(s, flow)
    assert fp(s.t.hero) == 9 and list(awaited(flow)) == ["rule_guess"]
    assert LedgerEntry.objects.filter(operation="guess").count() == 1
    _refused(s, s.gm, flow, "close", "step_not_available")
    with pytest.raises(PermissionDenied):
        step(s.t.player, flow, "rule_guess", ruling="close_enough", aspect=f"scene:{hidden.pk}")
    _refused(s, s.gm, flow, "rule_guess", "aspect_required", ruling="close_enough")
    flow = step(s.gm, flow, "rule_guess", ruling="close_enough", aspect=f"scene:{hidden.pk}")
    assert flow.state["sides"]["a"]["effort"] == effort + 2 and fp(s.t.hero) == 9
    invoked = flow.state["sides"]["a"]["roll"]["invoked_aspect_ids"]
    assert flow.state["guesses"] == [] and f"scene:{hidden.pk}" in invoked
    roll = Roll.objects.get(pk=flow.state["roll"])
    last = roll.follow_ups.last()
    assert last is not None and "es «Rincones oscuros»" in last.summary_es
    _refused(s, s.gm, flow, "rule_guess", "step_not_available", ruling="miss_secret")
    flow = step(s.gm, flow, "close")
    assert flow.status == FlowStatus.SETTLED


def test_a_miss_refunds_the_point_unless_the_absence_is_a_secret(s: SotcScene) -> None:
    """Vector 147 (miss, not secret: refund; miss, secret: the point stays spent)."""
    flow, _hidden = _window(s)
    flow = _guess(s, flow, "Hay un guardia")
    flow = step(s.gm, flow, "rule_guess", ruling="miss_not_secret")
    assert fp(s.t.hero) == 10 and LedgerEntry.objects.filter(operation="guess_refund").count() == 1
    flow = _guess(s, flow, "Sentimiento de culpa")
    flow = step(s.gm, flow, "rule_guess", ruling="miss_secret")
    assert fp(s.t.hero) == 9 and flow.state["sides"]["a"]["roll"]["invoked_aspect_ids"] == []


def test_a_guess_defeated_by_deception(s: SotcScene) -> None:
    """Vector 148: (a) the deceiver returns the point and places an aspect with a free invocation for
    themselves; (c) the point is lost and the deceiver does not gain it."""
    flow, _hidden = _window(s)
    npc_fp = fp(s.t.npc)
    flow = _guess(s, flow, "Está desarmado")
    flow = step(
        s.gm, flow, "rule_guess", ruling="deceived", deceiver=s.t.npc.pk, returns_point=True, place_text="Confiada"
    )
    assert fp(s.t.hero) == 10 and fp(s.t.npc) == npc_fp
    placed = [a for a in sheet(s.t.hero)["temporary_aspects"] if a["text"] == "Confiada"]
    assert len(placed) == 1 and placed[0]["free_invocations"][0]["holder_character_id"] == str(s.t.npc.pk)
    flow = _guess(s, flow, "Está solo")
    step(s.gm, flow, "rule_guess", ruling="deceived", deceiver=s.t.npc.pk)
    assert fp(s.t.hero) == 9 and fp(s.t.npc) == npc_fp


def test_guessing_without_a_point_is_refused(s: SotcScene) -> None:
    flow, _hidden = _window(s)
    set_sheet(s.t.hero, fate_points=0)
    _refused(s, s.t.player, flow, "guess", "insufficient_fate_points", side="a", text="x", justification="y")
    with pytest.raises(PermissionDenied):  # only the sides (and the GM) guess
        step(s.t.player2, flow, "guess", side="a", text="x", justification="y")


# --- spin (§3.6) ----------------------------------------------------------------------------------------


def _attack(s: SotcScene, dice: list[int]) -> Flow:
    params = {"attacker": s.t.hero.pk, "skill": "guns", "defender": s.t.rival.pk, "defense_skill": "athletics"}
    return start(s.t.player, s.scene, "attack", dice=dice, **params)


def test_spin_from_a_crushing_defence_helps_the_very_next_action_once(s: SotcScene) -> None:
    """Vectors 36 and 40: a defence 3+ above the attack earns spin: ±1 on one roll of the next action."""
    attack = _attack(s, MINUS3 + PLUS2)  # 5 − 3 = 2 vs 4 + 2 = 6
    attack = step(s.gm, attack, "close")
    assert attack.state["spin"] is True and attack.status == FlowStatus.SETTLED
    roll = posted_roll(s, ZERO, author=s.t.player2, character=s.t.rival, skill="athletics", difficulty=3)
    flow = start(s.t.player2, s.scene, "invocation", roll=roll.pk)
    assert flow.state["spin_use"]["holder"] == s.t.rival.pk and flow.state["spin_use"]["status"] == "available"
    effort = flow.state["sides"]["a"]["effort"]
    with pytest.raises(PermissionDenied):  # spin is its holder's
        step(s.t.player, flow, "spin", side="a", sign=1)
    _refused(s, s.t.player2, flow, "spin", "invalid_value", side="a", sign=0)
    flow = step(s.t.player2, flow, "spin", side="a", sign=1)
    assert flow.state["sides"]["a"]["effort"] == effort + 1 and flow.state["spin_use"]["status"] == "used"
    assert {"source": "spin", "value": 1, "ref": str(s.t.rival.pk)} in flow.state["sides"]["a"]["roll"]["modifiers"]
    _refused(s, s.t.player2, flow, "spin", "step_not_available", side="a", sign=1)  # once
    step(s.gm, flow, "close")
    later = start(
        s.t.player2,
        s.scene,
        "invocation",
        roll=posted_roll(s, ZERO, author=s.t.player2, character=s.t.rival, skill="athletics").pk,
    )
    assert later.state["spin_use"] is None  # lapsed: only the very next action


def test_no_spin_after_an_ordinary_defence(s: SotcScene) -> None:
    attack = step(s.gm, _attack(s, ZERO + ZERO), "close")  # vector 34-ish: a plain hit
    assert attack.state["spin"] is False
    roll = posted_roll(s, ZERO, author=s.t.player2, character=s.t.rival, skill="athletics")
    flow = start(s.t.player2, s.scene, "invocation", roll=roll.pk)
    assert flow.state["spin_use"] is None
    _refused(s, s.t.player2, flow, "spin", "step_not_available", side="a", sign=1)


# --- through the API and the fragment ---------------------------------------------------------------------


def test_guess_and_declaration_through_the_api(s: SotcScene) -> None:
    api = APIClient()
    api.force_authenticate(s.t.player)
    flow, _hidden = _window(s)
    url = f"/api/flows/{flow.pk}/steps/"
    body = {"side": "a", "text": "Pobremente iluminado", "justification": "Lámparas rotas."}
    first = api.post(url, {"step": "guess", "params": body, "idempotency_key": "g1"}, format="json")
    assert first.status_code == 201, first.content
    replay = api.post(url, {"step": "guess", "params": body, "idempotency_key": "g1"}, format="json")
    assert replay.status_code == 200 and fp(s.t.hero) == 9
    html_client = Client()
    html_client.force_login(s.gm)
    html = html_client.get(f"/flows/{flow.pk}/").content.decode()
    assert "Aspecto adivinado: «Pobremente iluminado»" in html and "Juzgar el aspecto adivinado" in html
    set_sheet(s.t.hero, fate_points=0)
    response = api.post(
        f"/api/scenes/{s.scene.pk}/flows/",
        {"kind": "declaration", "params": {"character": s.t.hero.pk, "text": "Llevo un mechero."}},
        format="json",
    )
    assert response.status_code == 400 and response.json()["error"]["code"] == "insufficient_fate_points"
