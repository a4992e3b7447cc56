"""Presagios' step tables: pickers that refuse what they did not offer, who may act in each state, and the
record in the thread (both languages; GM-only facts never reach a player: page, API)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.template.loader import render_to_string
from django.utils import translation
from rest_framework.test import APIClient

from accounts.models import User
from campaigns import policy
from rolls.models import Flow, FlowStatus
from rolls.selectors import flow_views, opening_choices, record_views
from rulesets.presagios.procedures.challenge import CHALLENGE
from rulesets.presagios.procedures.conflict import CONFLICT
from rulesets.presagios.tests.rolls_fixtures import (
    RollsTable,
    awaited,
    build,
    challenge,
    conflict,
    record,
    set_sheet,
    set_threat,
    step,
)
from systems.errors import RulesError

pytestmark = pytest.mark.django_db


@pytest.fixture
def t(db: None) -> RollsTable:
    return build("pp_")


def visible_text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def view_of(flow: Flow, user: User, lang: str = "es") -> Any:
    viewer = policy.viewer_for(user, flow.campaign)
    flow = Flow.objects.select_related("campaign", "scene", "opened_by").get(pk=flow.pk)
    return flow_views(viewer, [flow], lang)[0]


# --- Pickers: what was not offered is refused ----------------------------------------------------------


def test_a_trait_the_sheet_lacks_is_refused_and_nothing_is_rolled(t: RollsTable) -> None:
    flow = challenge(t, t.lucia, 5)
    with pytest.raises(RulesError) as exc:
        step(flow, t.player, "roll", {"traits": ["Atletismo"]}, dice=[6, 6, 6, 6])
    assert exc.value.code == "trait_not_on_sheet" and flow.rolls.count() == 0
    assert "Atletismo" in exc.value.message_es and "Atletismo" in exc.value.message_en


def test_the_gm_may_only_accept_a_trait_that_was_named(t: RollsTable) -> None:
    flow = challenge(t, t.lucia, 5)
    flow = step(flow, t.player, "roll", {"traits": ["Correr"]}, dice=[2, 2, 2, 2])
    with pytest.raises(RulesError) as exc:
        step(flow, t.gm, "judge_traits", {"accepted": ["Pelear"]})
    assert exc.value.code == "trait_not_proposed"


def test_a_quality_text_the_sheet_lacks_is_refused(t: RollsTable) -> None:
    set_threat(t, 3)
    flow = challenge(t, t.lucia, 3)
    flow = step(flow, t.player, "roll", dice=[6, 6, 6, 6])
    params = {"force": "failure", "quality_owner": t.lucia.pk, "quality": "hito", "quality_text": "Invented"}
    with pytest.raises(RulesError) as exc:
        step(flow, t.gm, "force", params)
    assert exc.value.code == "quality_not_on_sheet"


@pytest.mark.parametrize("characteristic", ["Acción", "c4", "", "athletics"])
def test_a_characteristic_not_offered_is_refused_at_the_opening(t: RollsTable, characteristic: str) -> None:
    with pytest.raises((ValidationError, RulesError)):
        challenge(t, t.lucia, 5, characteristic=characteristic)
    assert not Flow.objects.exists()


def test_an_unknown_or_unapproved_character_is_refused(t: RollsTable) -> None:
    with pytest.raises(RulesError) as exc:
        challenge(t, t.lucia, 5, character_id=999999)
    assert exc.value.code == "unknown_character"


def test_the_pickers_offer_names_never_ids_or_keys(t: RollsTable) -> None:
    viewer = policy.viewer_for(t.gm, t.campaign)
    choices = opening_choices(t.scene, viewer)
    assert [c.label for c in choices["challenge"]["characteristic"]] == ["Acción", "Interacción", "Cognición"]
    assert {c.label for c in choices["challenge"]["character"]} == {"Lucía", "Hugo", "La Cosa (PNJ)", "El criado (PNJ)"}
    assert not any(opening_choices(t.scene, policy.viewer_for(t.player, t.campaign)).values())  # players open none
    with translation.override("en"):
        english = opening_choices(t.scene, viewer)["conflict"]["characteristic"]
    assert [c.label for c in english] == ["Action", "Interaction", "Cognition"]
    flow = challenge(t, t.lucia, 3)
    flow = step(flow, t.player, "roll", dice=[6, 6, 6, 6])
    (force,) = [a for a in view_of(flow, t.player2).actions if a.step == "force"]
    assert [c.label for c in force.choices["activator"]] == ["Hugo"]  # a player pays with their own character
    assert "Lucía · Complicación: Oye voces que no callan" in [c.label for c in force.choices["quality_text"]]
    (gm_force,) = [a for a in view_of(flow, t.gm).actions if a.step == "force"]
    assert gm_force.choices["activator"] == []  # the GM pays threat


# --- Who may act, by state ---------------------------------------------------------------------------


def _offered(flow: Flow) -> dict[str, frozenset[Any]]:
    procedure: Any = CHALLENGE if flow.kind == "challenge" else CONFLICT
    return {s.key: actors for s, actors in procedure.offered(procedure.load_state(flow.state))}


def _refuses_the_rest(flow: Flow, user: User) -> None:
    """Every step the table does not offer now is refused with the one code, and changes nothing."""
    procedure: Any = CHALLENGE if flow.kind == "challenge" else CONFLICT
    offered = _offered(flow)
    before = (flow.state, flow.secret_state)
    for s in procedure.steps:
        if s.key in offered:
            continue
        with pytest.raises(RulesError) as exc:
            step(flow, user, s.key)
        assert exc.value.code == "step_not_available", s.key
    flow.refresh_from_db()
    assert (flow.state, flow.secret_state) == before


def test_who_may_act_follows_the_challenge_state(t: RollsTable) -> None:
    set_threat(t, 4)
    set_sheet(t.lucia, current=[3, 3, 2], overcome=3)
    flow = challenge(t, t.lucia, 6)
    assert _offered(flow) == {
        "roll": {t.player.pk},
        "declare_danger": {"gm"},
        "cancel": {"gm"},
    }
    assert awaited(flow) == {"roll": (False, [t.player.pk])}  # optional steps are offered, not awaited
    _refuses_the_rest(flow, t.gm)
    flow = step(flow, t.player, "roll", dice=[2, 2, 3])
    assert _offered(flow) == {
        "retry": {t.player.pk},
        "force": {"gm", t.player.pk, t.player2.pk},
        "finalize": {"gm"},
    }
    _refuses_the_rest(flow, t.gm)
    flow = step(flow, t.gm, "finalize")
    assert flow.status == FlowStatus.SETTLED and _offered(flow) == {}


def test_who_may_act_follows_the_conflict_state(t: RollsTable) -> None:
    flow = conflict(t, t.lucia, t.cosa)
    assert _offered(flow)["roll"] == {t.player.pk, "gm"}
    flow = step(flow, t.gm, "roll")
    assert _offered(flow) == {"roll": {t.player.pk}, "cancel": {"gm"}}  # danger only before anyone posts
    _refuses_the_rest(flow, t.gm)
    flow = step(flow, t.player, "roll", dice=[6, 6, 6, 6, 1, 2, 3, 4, 5])
    assert set(_offered(flow)) == {"force", "finalize"}


# --- The record in the thread -----------------------------------------------------------------------


def _played_challenge(t: RollsTable) -> Flow:
    set_threat(t, 5)
    set_sheet(t.lucia, current=[3, 3, 2], overcome=3)
    flow = challenge(t, t.lucia, 9, dangerous=True, challenge="La puerta sellada")
    flow = step(flow, t.player, "roll", dice=[1, 2, 4])
    flow = step(flow, t.gm, "finalize")
    return step(flow, t.player, "damage", {"protect": "false"})


def test_the_record_tells_the_whole_challenge_in_both_languages(t: RollsTable) -> None:
    flow = _played_challenge(t)
    assert flow.status == FlowStatus.SETTLED
    assert record(flow, gm_only=False) == [
        "El director abre un reto para Lucía: Acción «La puerta sellada». "
        "La dificultad es secreta: solo se anunciará Éxito o Fallo.",
        "El director lo declara peligroso: paga 1 punto de amenaza (5 → 4).",
        "Lucía tira Acción: [☠][2][4] → 4 · 1 presagio: algo inquietante ocurre",
        "Resultado 4: Fallo.",
        "El director cierra el resultado: Fallo. Lucía no podrá volver a intentar este reto sin pagar un punto.",
        "Daño físico 2 en Acción: Lucía (3 → 1).",
    ]
    assert record(flow, gm_only=False, lang="en") == [
        "The GM opens a challenge for Lucía: Action «La puerta sellada». "
        "The difficulty is secret: only Success or Failure will be announced.",
        "The GM declares it dangerous: pays 1 threat point (5 → 4).",
        "Lucía rolls Action: [☠][2][4] → 4 · 1 omen: something unsettling happens",
        "Result 4: Failure.",
        "The GM closes the outcome: Failure. Lucía cannot retry this challenge without paying a point.",
        "2 physical damage to Action: Lucía (3 → 1).",
    ]
    assert record(flow, gm_only=True) == [
        "Dificultad secreta: 9.",
        "Dificultad secreta: 9. Amenaza al tirar: 4; 1 presagio; la amenaza no sube.",
    ]


def test_gm_only_lines_never_reach_a_player_page_or_api(t: RollsTable) -> None:
    flow = _played_challenge(t)
    for user, sees in ((t.gm, True), (t.player, False), (t.player2, False), (t.reader, False)):
        viewer = policy.viewer_for(user, t.campaign)
        assert flow.record_id is not None
        (view,) = record_views(viewer, [flow.record_id], "es").values()
        html = visible_text(render_to_string("rolls/_record.html", {"post": _post(flow, view), "viewer": viewer}))
        assert ("Dificultad secreta: 9" in html) is sees, user
        assert "Resultado 4: Fallo." in html and "Daño físico 2 en Acción" in html
        for internal in ("difficulty", "threat_at_roll", "omen_hit", "[0]", "False", "None", "c1"):
            assert internal not in html, internal
        client = APIClient()
        client.force_authenticate(user)
        data = client.get(f"/api/flows/{flow.pk}/").json()
        texts = [line["text"] for line in data["record"]]
        assert ("Dificultad secreta: 9." in texts) is sees and "Resultado 4: Fallo." in texts
        assert any(line["gm_only"] for line in data["record"]) is sees


def _post(flow: Flow, view: Any) -> Any:
    post: Any = flow.record
    assert post is not None
    post.record = view
    post.is_unread = False
    return post


def test_a_hidden_threat_keeps_its_lines_for_the_gms(db: None) -> None:
    t = build("pp_hidden_", {"threat_visibility": "gm_only"})
    set_threat(t, 5)
    flow = challenge(t, t.lucia, 3, dangerous=True)
    assert "El director lo declara peligroso: paga 1 punto de amenaza (5 → 4)." in record(flow, gm_only=True)
    assert not any("amenaza" in line for line in record(flow, gm_only=False)[1:])


# --- Every stage, as every viewer sees it: words, never internals ---------------------------------------

INTERNALS = ("None", "False", "True", "[0]", "(id)", "c1", "c2", "c3", "judge_traits", "threat_at_roll", "omen_hit")


def _render_all(flow: Flow, t: RollsTable) -> None:
    for user in (t.gm, t.player, t.player2, t.reader):
        for lang in ("es", "en"):
            viewer = policy.viewer_for(user, flow.campaign)
            with translation.override(lang):
                html = render_to_string(
                    "rolls/_flow.html",
                    {"view": view_of(flow, user, lang), "viewer": viewer, "flow_error": "", "new_idempotency_key": "K"},
                )
            shown = visible_text(html)
            for internal in INTERNALS:
                assert internal not in shown, (internal, user, lang, shown)


def test_every_stage_of_a_conflict_reads_in_words(t: RollsTable) -> None:
    set_threat(t, 8)
    set_sheet(t.cosa, current=[3, 0, 2])
    flow = conflict(t, t.lucia, t.cosa, dangerous=True, conflict="En el sótano")
    _render_all(flow, t)
    flow = step(flow, t.player, "roll", {"traits": ["Pelear"]})
    _render_all(flow, t)
    flow = step(flow, t.gm, "roll", {"traits": "Garras"}, dice=[6, 2, 3, 1, 4, 4, 5])
    assert awaited(flow) == {"judge_traits": (True, [])}
    _render_all(flow, t)
    flow = step(flow, t.gm, "judge_traits", {"side": "a", "accepted": ["Pelear"]})
    flow = step(flow, t.gm, "judge_traits", {"accepted": []})
    _render_all(flow, t)
    flow = step(flow, t.gm, "finalize", {"characteristic": "c2"})
    assert awaited(flow) == {"damage": (True, [])}  # the monster lost: the GM may protect it with threat
    _render_all(flow, t)
    flow = step(flow, t.gm, "damage", {"protect": "false"})
    _render_all(flow, t)
    assert flow.status == FlowStatus.SETTLED
    lines = record(flow, gm_only=False)
    assert "Lucía propone sus rasgos: Pelear +3." in lines and "La Cosa propone sus rasgos: Garras +3." in lines
    assert "El director no acepta los rasgos de La Cosa." in lines
    assert lines[-1] == "Daño social 2 en Interacción: La Cosa (0 → -2). La Cosa queda fuera de la historia."


def test_every_stage_of_a_challenge_reads_in_words(t: RollsTable) -> None:
    set_threat(t, 3)
    flow = challenge(t, t.criado, 4, dangerous=True)
    _render_all(flow, t)
    flow = step(flow, t.gm, "roll", dice=[1, 2])
    _render_all(flow, t)
    flow = step(flow, t.gm, "finalize")
    _render_all(flow, t)
