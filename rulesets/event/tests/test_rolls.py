"""Event rolls: the binding (pool from the sheet, the gate, faces and summaries), the composer's builder,
posts with rolls through the API, and the desafío through the API and the thread fragment (sealed splits
appear nowhere before the reveal, for the GM neither)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import User
from campaigns.models import Post
from campaigns.policy import RollPowers
from rolls.models import Flow, FlowStep, Roll
from rolls.services import RollSpec, create_post_with_rolls
from rulesets import registry
from rulesets.event.rolls import BINDING
from rulesets.event.tests.roll_fixtures import EventRollTable, build_event_roll_table
from systems.dice import ScriptedDice
from systems.errors import RulesError
from systems.event.settings import EventSettings

pytestmark = pytest.mark.django_db
SHEET = {
    "status": "ACTIVE",
    "handle": "Gorton",
    "skills": [{"name": "Atletismo", "improvements": 2}, {"name": "Intimidar", "improvements": 0}],
}


def awaited(flow: Flow) -> dict[str, Any]:
    """The first step the procedure waits for (``waiting_for``'s one shape; the desafío's older one too)."""
    waiting = flow.waiting_for
    return dict(waiting["steps"][0]) if "steps" in waiting else {**waiting, "gm": waiting.get("who") == "gm"}


@pytest.fixture
def t() -> EventRollTable:
    return build_event_roll_table()


def roll(data: dict[str, Any], dice: list[int], sheet: dict[str, Any] | None = SHEET, **settings: Any) -> Any:
    rules = EventSettings.model_validate(settings)
    prepared = BINDING.prepare("action", data, sheet, rules)
    return BINDING.resolve("action", prepared, ScriptedDice(dice), rules)


# --- Binding --------------------------------------------------------------------------------------


def test_pool_comes_from_the_sheet_and_the_outcome_is_in_words() -> None:
    resolved = roll({"difficulty": 5, "skill": "intimidar"}, [5, 6])  # 2 dice (#23-style: two hits)
    assert resolved.result["pool"] == 2 and resolved.result["outcome"] == "ABSOLUTE_SUCCESS"
    assert resolved.summary_es == "Intimidar (2 dados) contra Difícil (5): [5][6] → Éxito absoluto; narra el jugador"
    assert resolved.summary_en == "Intimidar (2 dice) against Hard (5): [5][6] → Absolute success; the player narrates"
    assert [(f.pool, f.face, f.glyph, f.counts) for f in BINDING.faces("action", resolved.result)] == [
        ("d6", 5, "5", True),
        ("d6", 6, "6", True),
    ]
    assert roll({"difficulty": 4}, [1]).result["outcome"] == "CRITICAL_FAILURE"  # no skill: 1 die
    partial = roll({"difficulty": 3, "skill": "Intimidar"}, [3, 1])
    assert partial.result["outcome"] == "PARTIAL_SUCCESS" and partial.summary_es.endswith("narra el máster")


def test_the_gate_automatic_and_taken_outcomes_roll_nothing() -> None:
    auto = roll({"difficulty": 3, "skill": "Atletismo"}, [])  # 4 dice > 3 (#97): no die used
    assert auto.result["automatic"] and auto.result["dice"] == [] and auto.result["outcome"] == "ABSOLUTE_SUCCESS"
    assert (
        auto.summary_en
        == "Atletismo++ (4 dice) against Common (3): automatic absolute success, no roll; the player narrates"
    )
    taken = roll({"difficulty": 2, "skill": "Intimidar", "choice": "TAKE_PARTIAL"}, [])
    assert taken.result["outcome"] == "PARTIAL_SUCCESS" and "toma el éxito parcial sin tirar" in taken.summary_es
    with pytest.raises(RulesError) as refused:
        roll({"difficulty": 3, "skill": "Intimidar", "choice": "TAKE_PARTIAL"}, [])  # 2 < 3: failure offered
    assert refused.value.code == "choice_not_offered"
    with pytest.raises(RulesError) as refused:
        roll({"difficulty": 3, "skill": "Volar"}, [])
    with pytest.raises(RulesError) as refused:
        roll({"difficulty": 3, "dice": 3}, [])  # a character's pool comes from its sheet
    assert refused.value.code == "pool_from_sheet"
    assert roll({"difficulty": 3, "dice": 3}, [3, 3, 1], sheet=None).result["outcome"] == "ABSOLUTE_SUCCESS"


@pytest.mark.parametrize("choice", ["ROLL", "TAKE_PARTIAL"])
def test_vector_16_a_choice_on_an_automatic_success_is_refused(choice: str) -> None:
    """event-16 (§9.2): pool 4 against 3 with an explicit choice: refused ``automatic_outcome``, nothing rolled."""
    with pytest.raises(RulesError) as refused:
        roll({"difficulty": 3, "skill": "Atletismo", "choice": choice}, [1, 1, 1, 1])
    assert refused.value.code == "automatic_outcome"
    assert "automático" in refused.value.message_es and "automatic" in refused.value.message_en
    assert roll({"difficulty": 3, "skill": "Atletismo"}, []).result["outcome"] == "ABSOLUTE_SUCCESS"


def test_exploding_dice_are_drawn_as_exploded() -> None:
    resolved = roll({"difficulty": 6}, [6, 6, 2], optional={"exploding_dice": {"enabled": True}})  # #93
    assert resolved.result["dice"] == [6, 6, 2] and resolved.result["outcome"] == "ABSOLUTE_SUCCESS"
    assert [f.note for f in BINDING.faces("action", resolved.result)] == ["", "exploded", "exploded"]


def test_fist_tiebreak_and_order_roll() -> None:
    rules = EventSettings()
    prepared = BINDING.prepare(
        "fist_tiebreak", {"side": "LEFT", "counts": {"a": 3, "b": 3}, "names": {"a": "Ana", "b": "Bea"}}, None, rules
    )
    resolved = BINDING.resolve("fist_tiebreak", prepared, ScriptedDice([1, 1, 6, 5, 5, 5]), rules)  # #83
    assert resolved.result["winners"] == ["a"] and resolved.summary_en == (
        "Tie-break of the left fist: Ana [1][1][6], Bea [5][5][5] → Ana wins"
    )
    assert len(BINDING.faces("fist_tiebreak", resolved.result)) == 6
    order = BINDING.resolve(
        "order_roll", BINDING.prepare("order_roll", {}, None, rules), ScriptedDice([6, 2, 3]), rules
    )
    assert order.result["total"] == 11 and order.summary_es == "Orden de la pregunta 3: [6][2][3] = 11"


# --- Builder --------------------------------------------------------------------------------------

PLAYER = RollPowers(gm_kinds=False, secret_rolls=False, secret_difficulty=False, npc_dice=False)
GM = RollPowers(gm_kinds=True, secret_rolls=True, secret_difficulty=True, npc_dice=True)


def test_builder_roll_specs_from_form_data(t: EventRollTable) -> None:
    form_class, template = registry.plugin("event").builder, registry.plugin("event").templates.builder
    assert form_class is not None
    assert template == "event/builder.html"
    data = {
        "roll-kind": "action",
        "roll-skill": f"{t.gorton.pk}|Atletismo",
        "roll-difficulty": "5",
        "roll-choice": "ROLL",
    }
    form = form_class(data, prefix="roll", characters=[t.gorton], powers=PLAYER, settings=EventSettings())
    assert form.is_valid(), form.errors
    # "Roll" is what happens unless the success is automatic: the builder leaves the choice out (event-16).
    assert form.roll_specs() == [
        RollSpec(kind="action", data={"difficulty": 5, "skill": "Atletismo"}, character_id=t.gorton.pk)
    ]
    auto = form_class({**data, "roll-difficulty": "3"}, characters=[t.gorton], settings=EventSettings())
    assert auto.is_valid() and "choice" not in auto.roll_specs()[0].data  # 4 dice > 3: granted, not refused
    taken = form_class({**data, "roll-choice": "TAKE_PARTIAL"}, characters=[t.gorton], settings=EventSettings())
    assert taken.is_valid() and taken.roll_specs()[0].data["choice"] == "TAKE_PARTIAL"
    assert "secret" not in form.fields and "dice" not in form.fields  # GM-only options
    empty = form_class({"roll-kind": ""}, characters=[t.gorton])
    assert empty.is_valid() and empty.roll_specs() == []
    missing = form_class({"roll-kind": "action"}, characters=[t.gorton])
    assert not missing.is_valid() and "difficulty" in missing.errors
    wrong = form_class(
        {
            "roll-kind": "action",
            "roll-character": t.valy.pk,
            "roll-skill": f"{t.gorton.pk}|Atletismo",
            "roll-difficulty": 3,
        },
        characters=[t.gorton, t.valy],
        powers=GM,
    )
    assert not wrong.is_valid() and "skill" in wrong.errors
    gm = form_class(
        {"roll-kind": "action", "roll-dice": "3", "roll-difficulty": "4", "roll-secret": "on", "roll-choice": "ROLL"},
        characters=[],
        powers=GM,
    )
    assert gm.is_valid(), gm.errors
    assert gm.roll_specs()[0].gm_only and gm.roll_specs()[0].data["dice"] == 3


def test_builder_preselects_the_only_character_and_groups_fields_by_kind(t: EventRollTable) -> None:
    """Issue 10: the player's only character is preselected; each roll kind names its fields (the composer
    hides the rest); a player is never offered the GM's NPC pool or a secret roll."""
    form_class = registry.plugin("event").builder
    assert form_class is not None
    form = form_class(None, characters=[t.gorton], powers=PLAYER, default_character=t.gorton.pk)
    assert form["character"].value() == t.gorton.pk
    assert form.kind_field == "kind" and set(form.fields_by_kind) == {"action"}
    assert set(form.fields_by_kind["action"]) | {"kind"} >= set(form.fields)
    assert "dice" not in form.fields and "secret" not in form.fields
    gm = form_class(None, characters=[t.gorton, t.guard], powers=GM, default_character=None)
    assert gm["character"].value() is None and {"dice", "secret"} <= set(gm.fields)
    html = Client()
    html.force_login(t.paco)
    page = html.get(t.scene.get_absolute_url() + "?builder=1").content.decode()  # the builder in the page
    assert 'name="roll-kind"' in page and "(id)" not in page


def test_a_post_with_an_action_roll_through_the_api(t: EventRollTable, monkeypatch: Any) -> None:
    monkeypatch.setattr("rolls.services.SystemDice", lambda: ScriptedDice([4, 1, 2]))
    body = {
        "body": "Valy corre.",
        "voice": "character",
        "character": t.valy.pk,
        "rolls": [{"kind": "action", "character": t.valy.pk, "data": {"difficulty": 4, "skill": "Carterista"}}],
    }
    response = api(t.jenny).post(f"/api/scenes/{t.scene.pk}/posts/", body, format="json")
    assert response.status_code == 201, response.content
    rolled = response.json()["rolls"][0]
    assert rolled["faces"] == [
        {"pool": "d6", "dice": [{"face": d, "glyph": str(d), "counts": True, "note": ""} for d in (4, 1, 2)]}
    ]
    assert rolled["result"]["outcome"] == "PARTIAL_SUCCESS" and rolled["summary"].startswith("Carterista+ (3 dados)")


def test_vector_16_an_explicit_roll_on_an_automatic_success_is_refused_through_the_api(
    t: EventRollTable, monkeypatch: Any
) -> None:
    """event-16 through ``POST /api/scenes/<id>/posts/``: a 400 with ``automatic_outcome``, and no post."""
    monkeypatch.setattr("rolls.services.SystemDice", lambda: ScriptedDice([1, 1, 1, 1]))
    data = {"difficulty": 3, "skill": "Atletismo", "choice": "ROLL"}  # Gorton's Atletismo++: 4 dice
    body = {"body": "Gorton salta.", "rolls": [{"kind": "action", "character": t.gorton.pk, "data": data}]}
    response = api(t.paco).post(f"/api/scenes/{t.scene.pk}/posts/", body, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["error"]["code"] == "automatic_outcome"
    assert not Roll.objects.exists() and not Post.objects.filter(body_source="Gorton salta.").exists()
    del data["choice"]
    granted = api(t.paco).post(f"/api/scenes/{t.scene.pk}/posts/", body, format="json")
    assert granted.status_code == 201, granted.content
    assert granted.json()["rolls"][0]["result"]["automatic"] is True


def test_a_secret_npc_roll_stays_with_the_gms(t: EventRollTable) -> None:
    post = create_post_with_rolls(
        author=t.gm,
        scene=t.scene,
        body="El guardia escucha.",
        voice="narrator",
        rolls=[RollSpec(kind="action", data={"difficulty": 4, "dice": 2}, gm_only=True)],
        dice=ScriptedDice([6, 6]),
    )
    assert api(t.daria).get(f"/api/posts/{post.pk}/rolls/").json()["count"] == 0
    assert api(t.gm).get(f"/api/posts/{post.pk}/rolls/").json()["count"] == 1


# --- The desafío through the API and the thread ---------------------------------------------------


def api(user: User | None, language: str = "es") -> APIClient:
    client = APIClient(HTTP_ACCEPT_LANGUAGE=language)
    if user is not None:
        client.force_authenticate(user)
    return client


def test_desafio_through_the_api_keeps_splits_sealed(t: EventRollTable, monkeypatch: Any) -> None:
    params = {
        "ability": "Destreza",
        "participants": [{"character": t.valy.pk, "skill": "Carterista"}, {"character": t.khan.pk}],
    }
    opened = api(t.daria).post(f"/api/scenes/{t.scene.pk}/flows/", {"kind": "desafio", "params": params}, format="json")
    assert opened.status_code == 403  # the GM declares interactions
    opened = api(t.gm).post(f"/api/scenes/{t.scene.pk}/flows/", {"kind": "desafio", "params": params}, format="json")
    assert opened.status_code == 201, opened.content
    flow_id = opened.json()["id"]
    url = f"/api/flows/{flow_id}/steps/"
    first = api(t.jenny).post(
        url, {"step": "commit", "params": {"left": 3, "right": 0}, "idempotency_key": "a1"}, format="json"
    )
    assert first.status_code == 201, first.content
    replay = api(t.jenny).post(
        url, {"step": "commit", "params": {"left": 3, "right": 0}, "idempotency_key": "a1"}, format="json"
    )
    assert replay.status_code == 200
    reused = api(t.jenny).post(
        url, {"step": "commit", "params": {"left": 0, "right": 3}, "idempotency_key": "a1"}, format="json"
    )
    assert reused.status_code == 409 and reused.json()["error"]["code"] == "idempotency_conflict"
    stolen = api(t.reader).post(
        url, {"step": "commit", "params": {"left": 3, "right": 0}, "idempotency_key": "a1"}, format="json"
    )
    assert stolen.status_code == 403  # a replay is answered only to whoever took the step
    bad = api(t.daria).post(
        url, {"step": "commit", "params": {"left": 2, "right": 0}, "idempotency_key": "b0"}, format="json"
    )
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "split_sum"
    for user in (t.gm, t.daria, t.jenny, t.reader):
        seen = api(user).get(f"/api/flows/{flow_id}/").json()
        text = str(seen)
        assert "'left': 3" not in text and "['c" + str(t.valy.pk) + "', 3, 0]" not in text
        assert seen["state"]["committed"] == [f"c{t.valy.pk}"]
        page = _client(user).get(f"/flows/{flow_id}/").content.decode()
        assert "Sellado ✓" in page and 'class="fist-left"' not in page
    monkeypatch.setattr("rolls.runner.SystemDice", lambda: ScriptedDice([]))
    done = api(t.daria).post(
        url, {"step": "commit", "params": {"left": 0, "right": 1}, "idempotency_key": "b1"}, format="json"
    )
    assert done.status_code == 201, done.content
    data = done.json()
    assert data["state"]["ix"]["commitments"] == [[f"c{t.valy.pk}", 3, 0], [f"c{t.khan.pk}", 0, 1]]
    assert data["waiting"]["step"] == "narrate" and data["waiting"]["names"] == ["Daria"]
    assert not api(t.gm).get(f"/api/flows/{flow_id}/").json().get("secret_state")  # nothing sealed is left
    page = _client(t.reader).get(f"/flows/{flow_id}/").content.decode()
    assert 'class="fist-left">3<' in page
    assert all(set(s.params) == {"participant", "digest"} for s in FlowStep.objects.filter(flow_id=flow_id))
    assert Flow.objects.get(pk=flow_id).status == "open"


def _client(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_flow_fragment_offers_each_player_their_own_split_form(t: EventRollTable) -> None:
    from rolls import runner

    flow = runner.start_procedure(
        actor=t.gm,
        scene=t.scene,
        kind="desafio",
        params={"participants": [{"character": t.valy.pk}, {"name": "Bandido", "dice": 2}]},
    )
    jenny = _client(t.jenny).get(f"/flows/{flow.pk}/").content.decode()
    assert f'value="c{t.valy.pk}"' in jenny and "Sellar mi reparto" in jenny and 'value="n2"' not in jenny
    gm = _client(t.gm).get(f"/flows/{flow.pk}/").content.decode()
    assert 'value="n2"' in gm and f'name="participant" value="c{t.valy.pk}"' not in gm
    reader = _client(t.reader).get(f"/flows/{flow.pk}/").content.decode()
    assert "Sellar mi reparto" not in reader and "Pendiente" in reader


def test_the_action_fragment_shows_the_gate_votes_and_the_answer_forms(t: EventRollTable) -> None:
    from rolls import runner

    flow = runner.start_procedure(
        actor=t.gm,
        scene=t.scene,
        kind="action",
        params={"character": t.gorton.pk, "difficulty": 2, "skill": "Intimidar"},
    )
    paco = _client(t.paco).get(f"/flows/{flow.pk}/").content.decode()
    assert "tomar el éxito parcial o tirar" in paco and "step-choose" in paco
    assert "step-choose" not in _client(t.daria).get(f"/flows/{flow.pk}/").content.decode()
    runner.take_step(actor=t.paco, flow=flow, step="choose", params={"choice": "TAKE_PARTIAL"})
    flow.refresh_from_db()
    gm = _client(t.gm).get(f"/flows/{flow.pk}/").content.decode()
    assert "Éxito parcial" in gm and "step-narrate" in gm
    runner.start_procedure(actor=t.gm, scene=t.scene, kind="action", params={"character": t.gorton.pk, "difficulty": 3})
    auto = runner.start_procedure(
        actor=t.gm,
        scene=t.scene,
        kind="action",
        params={"character": t.gorton.pk, "difficulty": 1, "skill": "Intimidar"},
    )
    runner.take_step(actor=t.paco, flow=auto, step="narrate", params={"text": "Gorton ruge."})
    runner.take_step(actor=t.daria, flow=auto, step="veto")
    runner.take_step(actor=t.jenny, flow=auto, step="veto")
    runner.take_step(actor=t.gm, flow=auto, step="close_votes")
    paco = _client(t.paco).get(f"/flows/{auto.pk}/").content.decode()
    assert "Narración vetada (2 vetos)" in paco and "step-defend" in paco and "step-reformulate" in paco
    jenny = _client(t.jenny).get(f"/flows/{auto.pk}/").content.decode()
    assert "step-defend" not in jenny and "Narración vetada (2 vetos)" in jenny
    english = Client(HTTP_ACCEPT_LANGUAGE="en")
    english.force_login(t.reader)
    assert english.get(f"/scenes/{t.scene.pk}/flows/").status_code == 200


def test_the_gm_gets_the_start_forms_and_a_form_post_opens_a_desafio(t: EventRollTable) -> None:
    page = _client(t.gm).get(f"/scenes/{t.scene.pk}/flows/").content.decode()
    assert "Declarar el desafío" in page and "Pedir la acción" in page
    assert "Declarar el desafío" not in _client(t.daria).get(f"/scenes/{t.scene.pk}/flows/").content.decode()
    response = _client(t.gm).post(
        f"/scenes/{t.scene.pk}/flows/desafio/start/",
        {
            "characters[]": [t.valy.pk, t.guard.pk],
            f"skill_{t.valy.pk}": "Carterista",
            f"dice_{t.guard.pk}": "2",
        },
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    flow = Flow.objects.get(kind="desafio")
    assert [p["pool"] for p in flow.state["participants"]] == [3, 2]
    assert awaited(flow)["users"] == [t.jenny.pk] and awaited(flow)["gm"]
