"""Fate Accelerated: free invocations held on character-sheet aspects, spent in the action flow's window
(spec §4.3.1 payment, §4.3.3 limits, §4.3.4 sources: a consequence's for its attacker, a create an
advantage on a character's aspect), and the GM's fate point pool (§6.7.4, A-09) in invocations and
compels. End to end through ``rolls.runner`` with scripted dice, one through the API, every refusal."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from campaigns import policy
from characters.models import Character, LedgerEntry
from characters.services import apply_operation, rules_state
from rolls import runner
from rolls.models import Flow
from rolls.selectors import flow_views
from rolls.services import RollSpec, create_post_with_rolls
from rulesets.fate_accelerated.tests.roll_fixtures import FaeScene, build_scene, fate, fp, step
from systems.errors import RulesError

pytestmark = pytest.mark.django_db


@pytest.fixture
def fae(db: None) -> FaeScene:
    return build_scene()


@pytest.fixture
def pooled(db: None) -> FaeScene:
    return build_scene(prefix="fp_", rules_settings={"gm_fate_point_pool": True})


def _invoke(actor: Any, flow: Flow, aspect: str, payment: str = "free", **params: Any) -> Flow:
    base = {"aspect": aspect, "effect": "bonus", "payment": payment, "justification": "Me ayuda aquí."}
    return step(actor, flow, "invoke", {**base, **params})


def _bruno_attacks_ana(fae: FaeScene, attack: str, defend: str) -> Flow:
    flow = runner.start_procedure(
        actor=fae.gm,
        scene=fae.scene,
        kind="action",
        params={"character": fae.bruno.pk, "action": "attack", "target": fae.ana.pk},
    )
    flow = step(fae.gm, flow, "roll", {"approach": "forceful"}, dice=fate(attack))  # Bruno forceful +2
    return step(fae.player, flow, "defend", {"approach": "quick"}, dice=fate(defend))  # Ana quick +2


def _ana_with_a_mild_consequence(fae: FaeScene) -> str:
    """TV-084: Bruno hits Ana for 4; she takes box 2 and a mild consequence; Bruno holds its free invocation."""
    flow = _bruno_attacks_ana(fae, "++++", "0000")
    flow = step(fae.gm, flow, "settle", {})
    step(fae.player, flow, "absorb", {"box": "2", "slots": "mild", "text_mild": "Torcedura en el tobillo"})
    return f"consequence:{fae.ana.pk}:mild"


def _mild(fae: FaeScene) -> dict[str, Any]:
    fae.ana.refresh_from_db()
    mild: dict[str, Any] = fae.ana.sheet["consequences"]["mild"]
    return mild


def _choice(fae: FaeScene, flow: Flow, ref: str) -> dict[str, Any]:
    """The invoke picker's option for ``ref`` as the GM sees it: its words and its free invocations."""
    viewer = policy.viewer_for(fae.gm, fae.table.campaign)
    invoke = next(a for a in flow_views(viewer, [flow], "es")[0].actions if a.step == "invoke")
    label = next(c.label for c in invoke.choices["aspect"] if c.value == ref)
    count = re.search(r"(\d+) invocaci", label)
    holders = re.search(r"gratuitas? de (.+)$", label)
    return {"label": label, "free": int(count.group(1)) if count else 0, "holders": holders.group(1) if holders else ""}


def _grants(fae: FaeScene, ref: str) -> list[dict[str, Any]]:
    grants: list[dict[str, Any]] = rules_state(fae.table.campaign).get("aspect_grants", {}).get(ref, [])
    return grants


# --- A consequence's free invocation, held by its attacker ------------------------------------------


def test_the_attacker_spends_the_free_invocation_on_a_consequence_once(fae: FaeScene) -> None:
    ref = _ana_with_a_mild_consequence(fae)
    flow = _bruno_attacks_ana(fae, "0000", "0000")  # 2 vs 2
    assert _choice(fae, flow, ref)["free"] == 1 and _choice(fae, flow, ref)["holders"] == "Bruno"
    flow = _invoke(fae.gm, flow, ref)  # the GM invokes it for Bruno, who holds it: +2, no fate point
    assert flow.state["total"] == 4 and flow.state["outcome"] == "success"
    assert _mild(fae)["grants"][0]["remaining"] == 0 and _choice(fae, flow, ref)["free"] == 0
    entry = LedgerEntry.objects.get(operation="use_free_invocation")
    assert entry.character_id == fae.ana.pk and entry.params["holder"] == str(fae.bruno.pk)
    assert entry.params["aspect"] == _mild(fae)["key"]
    # Once per aspect per roll (§4.3.3): not even paid on top.
    with pytest.raises(RulesError) as exc:
        _invoke(fae.gm, flow, ref, payment="fate_point")
    assert exc.value.code == "aspect_already_invoked"
    # The GM vetoes the justification: the free invocation comes back through the ledger.
    flow = step(fae.gm, flow, "veto", {"invocation": 0})
    assert _mild(fae)["grants"][0]["remaining"] == 1 and flow.state["total"] == 2
    assert (
        _choice(fae, flow, ref)["free"] == 1 and LedgerEntry.objects.filter(operation="return_free_invocation").count()
    )
    flow = _invoke(fae.gm, flow, ref)
    assert _mild(fae)["grants"][0]["remaining"] == 0
    step(fae.gm, flow, "settle", {})
    # None left: a later roll may not use one (a later invocation needs a fate point, TV-064).
    again = _bruno_attacks_ana(fae, "0000", "0000")
    with pytest.raises(RulesError) as exc:
        _invoke(fae.gm, again, ref)
    assert exc.value.code == "no_free_invocation" and _mild(fae)["grants"][0]["remaining"] == 0


def test_a_player_cannot_spend_the_attackers_free_invocation(fae: FaeScene) -> None:
    ref = _ana_with_a_mild_consequence(fae)
    post = create_post_with_rolls(
        author=fae.player,
        scene=fae.scene,
        body="Cojeando, salto.",
        rolls=[RollSpec(kind="overcome", data={"approach": "quick", "difficulty": 2}, character_id=fae.ana.pk)],
        dice=fate("0000"),
    )
    flow = runner.start_procedure(
        actor=fae.player, scene=fae.scene, kind="action", params={"roll": post.rolls.get().pk}
    )
    with pytest.raises(RulesError) as exc:  # Ana holds none on her own consequence
        _invoke(fae.player, flow, ref)
    assert exc.value.code == "no_free_invocation"
    with pytest.raises(RulesError) as exc:  # and Bruno's is not hers to lend
        _invoke(fae.player, flow, ref, grant_holder=fae.bruno.pk)
    assert exc.value.code == "grant_not_lent"
    assert (
        _mild(fae)["grants"][0]["remaining"] == 1
        and not LedgerEntry.objects.filter(operation="use_free_invocation").exists()
    )
    flow = _invoke(fae.player, flow, ref, payment="fate_point")  # any known aspect, paid
    assert flow.state["total"] == 4 and fp(fae.ana) == 2 and _mild(fae)["grants"][0]["remaining"] == 1


def test_the_free_invocation_operation_only_runs_in_a_flow_and_never_below_zero(fae: FaeScene) -> None:
    _ana_with_a_mild_consequence(fae)
    ref = str(_mild(fae)["key"])  # the operation names the aspect by the rules' own key
    params = {"aspect": ref, "holder": str(fae.bruno.pk), "source": _mild(fae)["grants"][0]["source"]}
    with pytest.raises(RulesError) as exc:
        apply_operation(
            actor=fae.gm, campaign=fae.table.campaign, operation="use_free_invocation", params=params, character=fae.ana
        )
    assert exc.value.code == "operation_needs_flow"
    kwargs: dict[str, Any] = {"actor": fae.gm, "campaign": fae.table.campaign, "character": fae.ana, "from_flow": True}
    apply_operation(operation="use_free_invocation", params=params, **kwargs)
    with pytest.raises(RulesError) as exc:
        apply_operation(operation="use_free_invocation", params=params, **kwargs)
    assert exc.value.code == "no_free_invocation" and _mild(fae)["grants"][0]["remaining"] == 0
    with pytest.raises(RulesError) as exc:
        apply_operation(
            operation="use_free_invocation", params={**params, "aspect": f"{fae.ana.pk}:severe:x"}, **kwargs
        )
    assert exc.value.code == "aspect_gone"


# --- Create an advantage on a character's aspect ------------------------------------------------------


def _carla_rolls(fae: FaeScene, kind: str, difficulty: int, faces: str = "0000") -> Flow:
    post = create_post_with_rolls(
        author=fae.player2,
        scene=fae.scene,
        body="Busco su punto débil.",
        rolls=[RollSpec(kind=kind, data={"approach": "flashy", "difficulty": difficulty}, character_id=fae.carla.pk)],
        dice=fate(faces),
    )
    return runner.start_procedure(
        actor=fae.player2, scene=fae.scene, kind="action", params={"roll": post.rolls.get().pk}
    )


def test_exploiting_a_characters_aspect_with_style_gives_two_stackable_free_invocations(fae: FaeScene) -> None:
    ref = f"character:{fae.bruno.pk}:high_concept"
    key = f"{fae.bruno.pk}:high_concept"
    flow = _carla_rolls(fae, "create_advantage", 0)  # flashy 3 vs 0: success with style
    with pytest.raises(RulesError) as exc:
        step(fae.gm, flow, "settle", {"ca_mode": "exploit", "aspect": f"character:{fae.bruno.pk}:aspect:7"})
    assert exc.value.code == "aspect_not_offered"
    step(fae.gm, flow, "settle", {"ca_mode": "exploit", "aspect": ref})
    grants = _grants(fae, key)
    assert grants == [
        {"holder": str(fae.carla.pk), "remaining": 2, "same_roll_stacking": True, "source": str(flow.rolls.get().pk)}
    ]
    settled = flow.rolls.get().follow_ups.last()
    assert (
        settled is not None and "«Matón del puerto» de Bruno: 2 invocaciones gratuitas para Carla" in settled.summary_es
    )
    attack = _carla_rolls(fae, "attack", 6)  # 3 vs 6
    assert _choice(fae, attack, ref)["free"] == 2 and _choice(fae, attack, ref)["holders"] == "Carla"
    attack = _invoke(fae.player2, attack, ref)
    attack = _invoke(fae.player2, attack, ref)  # TV-065/067: both on the same roll
    assert attack.state["total"] == 7 and attack.state["outcome"] == "success" and fp(fae.carla) == 3
    assert _grants(fae, key) == [] and _choice(fae, attack, ref)["free"] == 0
    with pytest.raises(RulesError) as exc:  # TV-066: a third one on this roll, paid
        _invoke(fae.player2, attack, ref, payment="fate_point")
    assert exc.value.code == "aspect_already_invoked" and fp(fae.carla) == 3
    assert LedgerEntry.objects.filter(operation="use_free_invocation", character=fae.bruno).count() == 2


def test_another_player_cannot_spend_carlas_free_invocation(fae: FaeScene) -> None:
    ref = f"character:{fae.bruno.pk}:trouble"
    step(fae.gm, _carla_rolls(fae, "create_advantage", 2), "settle", {"ca_mode": "exploit", "aspect": ref})
    assert _grants(fae, f"{fae.bruno.pk}:trouble")[0]["remaining"] == 1  # 3 vs 2: success, one
    post = create_post_with_rolls(
        author=fae.player,
        scene=fae.scene,
        body="Le enseño un ratón.",
        rolls=[RollSpec(kind="overcome", data={"approach": "quick", "difficulty": 2}, character_id=fae.ana.pk)],
        dice=fate("0000"),
    )
    flow = runner.start_procedure(
        actor=fae.player, scene=fae.scene, kind="action", params={"roll": post.rolls.get().pk}
    )
    with pytest.raises(RulesError) as exc:
        _invoke(fae.player, flow, ref, grant_holder=fae.carla.pk)
    assert exc.value.code == "grant_not_lent" and _grants(fae, f"{fae.bruno.pk}:trouble")[0]["remaining"] == 1


def test_discovering_a_hidden_aspect_reveals_it_and_grants_a_free_invocation(fae: FaeScene) -> None:
    sheet = {**fae.bruno.sheet, "other_aspects": [{"text": "Debe dinero a la mafia", "hidden": True, "known_by": []}]}
    Character.objects.filter(pk=fae.bruno.pk).update(sheet=sheet)
    ref = f"character:{fae.bruno.pk}:aspect:0"
    flow = _carla_rolls(fae, "create_advantage", 2)
    assert "Debe dinero a la mafia" not in str(flow.state)  # the players' state never carries it
    step(fae.gm, flow, "settle", {"ca_mode": "discover", "aspect": ref})
    fae.bruno.refresh_from_db()
    assert fae.bruno.sheet["other_aspects"][0]["hidden"] is False
    assert _grants(fae, f"{fae.bruno.pk}:aspect:0")[0]["holder"] == str(fae.carla.pk)
    attack = _carla_rolls(fae, "attack", 2)
    assert "«Debe dinero a la mafia»" in _choice(fae, attack, ref)["label"] and _choice(fae, attack, ref)["free"] == 1
    entry = LedgerEntry.objects.get(operation="grant_free_invocations")
    assert entry.character_id == fae.bruno.pk and entry.params["reveal"] is True


# --- The GM's fate point pool (§6.7.4) -------------------------------------------------------------------


def _pool(fae: FaeScene) -> int:
    return int(rules_state(fae.table.campaign).get("gm_fate_points", 0))


def _gain(fae: FaeScene, amount: int) -> None:
    apply_operation(actor=fae.gm, campaign=fae.table.campaign, operation="gm_pool_gain", params={"amount": amount})


def test_with_a_pool_the_gm_pays_npc_invocations_from_it_and_a_veto_returns_it(pooled: FaeScene) -> None:
    flow = _bruno_attacks_ana(pooled, "0000", "0000")
    bruno = f"character:{pooled.bruno.pk}:high_concept"
    with pytest.raises(RulesError) as exc:  # an empty pool pays for nothing
        _invoke(pooled.gm, flow, bruno, payment="fate_point")
    assert exc.value.code == "gm_pool_empty" and flow.state["total"] == 2
    _gain(pooled, 1)
    flow = _invoke(pooled.gm, flow, bruno, payment="fate_point")
    assert _pool(pooled) == 0 and flow.state["total"] == 4
    step(pooled.gm, flow, "veto", {"invocation": 0})
    assert _pool(pooled) == 1


def test_without_a_pool_the_gm_invokes_and_refuses_for_npcs_without_limit(fae: FaeScene) -> None:
    flow = _bruno_attacks_ana(fae, "0000", "0000")
    flow = _invoke(fae.gm, flow, f"character:{fae.bruno.pk}:high_concept", payment="fate_point")
    assert flow.state["total"] == 4 and _pool(fae) == 0
    params = {
        "target": fae.bruno.pk,
        "aspect": f"character:{fae.bruno.pk}:trouble",
        "kind": "event",
        "proposal": "Un ratón.",
    }
    step(fae.gm, runner.start_procedure(actor=fae.gm, scene=fae.scene, kind="compel", params=params), "refuse")
    assert _pool(fae) == 0


def test_with_a_pool_an_npc_refusing_a_compel_pays_from_it(pooled: FaeScene) -> None:
    params = {
        "target": pooled.bruno.pk,
        "aspect": f"character:{pooled.bruno.pk}:trouble",
        "kind": "event",
        "proposal": "Un ratón.",
    }
    broke = runner.start_procedure(actor=pooled.gm, scene=pooled.scene, kind="compel", params=params)
    with pytest.raises(RulesError) as exc:
        step(pooled.gm, broke, "refuse")
    assert exc.value.code == "cannot_refuse_compel"
    _gain(pooled, 1)
    step(pooled.gm, broke, "refuse")
    assert _pool(pooled) == 0 and LedgerEntry.objects.filter(operation="gm_pool_spend").count() == 1


def test_with_a_pool_a_players_compel_on_an_npc_feeds_it_and_a_pc_refusal_leaves_play(pooled: FaeScene) -> None:
    params = {
        "target": pooled.bruno.pk,
        "aspect": f"character:{pooled.bruno.pk}:trouble",
        "kind": "event",
        "proposal": "Suelto un ratón.",
    }
    flow = runner.start_procedure(
        actor=pooled.player2, scene=pooled.scene, kind="compel", params={**params, "compeller": pooled.carla.pk}
    )
    step(pooled.gm, flow, "accept")  # Bruno's GM accepts: Carla's fate point goes to the pool
    assert fp(pooled.carla) == 2 and _pool(pooled) == 1
    refusal = {
        "target": pooled.ana.pk,
        "aspect": f"character:{pooled.ana.pk}:trouble",
        "kind": "decision",
        "proposal": "Te quedas.",
    }
    step(
        pooled.player,
        runner.start_procedure(actor=pooled.gm, scene=pooled.scene, kind="compel", params=refusal),
        "refuse",
    )
    assert fp(pooled.ana) == 2 and _pool(pooled) == 1  # "a refusal payment goes to the GM (removed from play)"


# --- The API and the fragment ----------------------------------------------------------------------


def test_a_consequences_free_invocation_through_the_api_and_the_fragment(fae: FaeScene) -> None:
    ref = _ana_with_a_mild_consequence(fae)
    api = APIClient()
    api.force_authenticate(fae.gm)
    params = {"character": fae.bruno.pk, "action": "attack", "target": fae.ana.pk}
    flow = Flow.objects.get(
        pk=api.post(f"/api/scenes/{fae.scene.pk}/flows/", {"kind": "action", "params": params}, format="json").json()[
            "id"
        ]
    )
    flow = step(fae.gm, flow, "roll", {"approach": "forceful"}, dice=fate("0000"))
    flow = step(fae.player, flow, "defend", {"approach": "quick"}, dice=fate("0000"))
    client = Client()
    client.force_login(fae.player)
    assert "1 invocación gratuita de Bruno" in client.get(f"/flows/{flow.pk}/").content.decode()
    body = {"aspect": ref, "effect": "bonus", "payment": "free", "justification": "Cojea."}
    url = f"/api/flows/{flow.pk}/steps/"
    first = api.post(url, {"step": "invoke", "params": body, "idempotency_key": "f1"}, format="json")
    assert first.status_code == 201, first.content
    assert first.json()["state"]["total"] == 4 and _mild(fae)["grants"][0]["remaining"] == 0
    replay = api.post(url, {"step": "invoke", "params": body, "idempotency_key": "f1"}, format="json")
    assert replay.status_code == 200 and LedgerEntry.objects.filter(operation="use_free_invocation").count() == 1
    step(fae.gm, flow, "settle", {})
    again = _bruno_attacks_ana(fae, "0000", "0000")
    refused = api.post(
        f"/api/flows/{again.pk}/steps/", {"step": "invoke", "params": body, "idempotency_key": "f2"}, format="json"
    )
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "no_free_invocation"
