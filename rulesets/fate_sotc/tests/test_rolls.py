"""FATE SotC rolls in the thread: the binding's faces and words, secret difficulties on every surface (the
roll, its window, the API), the composer's builder, and the flows through the API."""

from __future__ import annotations

import uuid
from typing import Any, cast

import pytest
from django.template.loader import render_to_string
from django.urls import URLPattern, URLResolver, include, path
from django.utils import translation
from rest_framework.test import APIClient

import tintero.urls
from accounts.models import User
from campaigns import policy
from campaigns.policy import RollPowers
from characters.models import LedgerEntry
from rolls.models import Flow, Roll
from rolls.selectors import flow_views, opening_choices, view_roll
from rolls.services import RollSpec, create_post_with_rolls
from rulesets import registry
from rulesets.fate_sotc.builder import RollBuilderForm
from rulesets.fate_sotc.rolls import BINDING
from rulesets.fate_sotc.tests.scene_fixtures import ZERO, SotcScene, build_scene, fp, lines, start, step
from systems.dice import ScriptedDice
from systems.fate_sotc.settings import DEFAULT_SETTINGS

GM_POWERS = RollPowers(gm_kinds=True, secret_rolls=True, secret_difficulty=True, npc_dice=True)

urlpatterns: list[URLPattern | URLResolver] = list(cast(Any, tintero.urls.urlpatterns))
if not any(getattr(p, "namespace", None) == "rolls" for p in urlpatterns):
    urlpatterns.append(path("", include("rolls.urls")))

pytestmark = [pytest.mark.django_db, pytest.mark.urls(__name__)]


@pytest.fixture
def s(db: None) -> SotcScene:
    return build_scene()


def api(user: User) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def roll(
    s: SotcScene, dice: list[int], kind: str = "simple", author: Any = None, character: Any = None, **data: Any
) -> Roll:
    author = author or s.t.player
    character = character or s.t.hero
    post = create_post_with_rolls(
        author=author,
        scene=s.scene,
        body="¡Agárrense!",
        voice="character",
        character=character,
        rolls=[RollSpec(kind=kind, data=data, character_id=character.pk)],
        dice=ScriptedDice(dice),
    )
    return post.rolls.get()


# --- binding: faces and words ------------------------------------------------------------------------------


def test_simple_roll_faces_and_summary_in_both_languages(s: SotcScene) -> None:
    """Piloto Grande (+4) from the sheet, dice [+] [-] [+] [ ] = +1: effort Excelente (+5) vs Bueno (+3)."""
    made = roll(s, [5, 1, 6, 3], skill="pilot", difficulty=3)
    faces = BINDING.faces(made.kind, made.result)
    assert [(f.pool, f.face, f.glyph) for f in faces] == [
        ("fudge", 1, "+"),
        ("fudge", -1, "−"),
        ("fudge", 1, "+"),
        ("fudge", 0, " "),
    ]
    assert made.result["sides"][0]["dice"] == {"d6": [5, 1, 6, 3], "faces": [1, -1, 1, 0], "total": 1}
    assert made.summary_es == (
        "Acción simple: Piloto Grande (+4), [+] [-] [+] [ ] = +1: esfuerzo Excelente (+5)"
        " — dificultad Bueno (+3): Éxito (2 aumentos)"
    )
    assert made.summary_en == (
        "Simple action: Pilot Great (+4), [+] [-] [+] [ ] = +1: effort Superb (+5)"
        " — difficulty Good (+3): Success (2 shifts)"
    )


def test_an_unlisted_skill_is_mediocre_and_critical_is_named(s: SotcScene) -> None:
    made = roll(s, [5, 5, 5, 3], skill="mysteries", difficulty=0)
    assert made.result["sides"][0]["rating"] == 0
    assert "Mediocre (+0)" in made.summary_es and "Éxito crítico (3 aumentos)" in made.summary_es


def test_attack_draws_both_sides_and_names_the_hit(s: SotcScene) -> None:
    made = roll(s, [5, 5, 3, 3, 3, 3, 3, 3], kind="attack", skill="guns", opposition=4, opposition_skill="athletics")
    faces = BINDING.faces(made.kind, made.result)
    assert len(faces) == 8 and [f.note for f in faces[4:]] == ["opposition"] * 4
    assert made.result["outcome"] == {"hit": 3, "track": "health", "defender_spin": False, "winner": "a"}
    assert made.summary_es.endswith("Impacto de 3 en Salud") and made.summary_en.endswith("Hit of 3 on Health")


def test_a_secret_difficulty_never_reaches_a_player(s: SotcScene) -> None:
    made = roll(s, ZERO, author=s.gm, character=s.t.npc, skill="weapons", difficulty=7, secret=True)
    assert made.secret == {"difficulty": 7, "difficulty_label": "Épico (+7)", "shifts": 0, "failure_margin": 2}
    for text in (made.summary_es, made.summary_en, str(made.result), str(made.request)):
        assert "7" not in text.replace("+5", "") and "margin" not in text
    assert "dificultad secreta: Fallo" in made.summary_es
    player = policy.viewer_for(s.t.player, s.t.campaign)
    gm = policy.viewer_for(s.gm, s.t.campaign)
    assert view_roll(player, made).secret is None  # type: ignore[union-attr]
    assert view_roll(gm, made).secret["difficulty"] == 7  # type: ignore[union-attr,index]
    body = api(s.t.player).get(f"/api/rolls/{made.pk}/").json()
    assert "secret" not in body and "Épico" not in str(body)
    assert api(s.gm).get(f"/api/rolls/{made.pk}/").json()["secret"]["difficulty"] == 7
    flow = start(s.gm, s.scene, "invocation", roll=made.pk)
    shown = api(s.t.player).get(f"/api/flows/{flow.pk}/").json()
    assert "secret_state" not in shown and "Épico" not in str(shown) and "'difficulty': 7" not in str(shown)
    html = render_to_string(
        "rolls/_flow.html",
        {"view": flow_views(player, [flow], "es")[0], "viewer": player, "new_idempotency_key": uuid.uuid4},
    )
    assert "Épico" not in html and "difficulty" not in html


def test_every_kind_resolves_with_words(s: SotcScene) -> None:
    for kind, data, dice in (
        ("effort", {"skill": "pilot"}, ZERO),
        ("opposed", {"skill": "pilot", "opposition": 4}, ZERO + ZERO),
        ("maneuver", {"skill": "pilot", "opposition": 2}, ZERO + ZERO),
        ("block", {"skill": "might", "gm_penalty": -1}, ZERO),
        ("sprint", {"skill": "athletics", "borders": [0, 1]}, ZERO),
    ):
        made = roll(s, dice, kind=kind, **data)
        assert made.summary_es and made.summary_en and BINDING.faces(kind, made.result)
    assert "Empate" in Roll.objects.get(kind="opposed").summary_es
    assert "La maniobra tiene éxito (2 aumentos)" in Roll.objects.get(kind="maneuver").summary_es
    assert "fuerza del bloqueo Mediocre (+0)" in Roll.objects.get(kind="block").summary_es
    assert "avanza" in Roll.objects.get(kind="sprint").summary_es


# --- builder ------------------------------------------------------------------------------------------------


def test_builder_roll_specs_from_form_data(s: SotcScene) -> None:
    assert (registry.plugin("fate-sotc").builder, registry.plugin("fate-sotc").templates.builder) == (
        RollBuilderForm,
        "fate_sotc/builder.html",
    )
    data = {"roll-kind": "simple", "roll-character": str(s.t.hero.pk), "roll-skill": "pilot", "roll-difficulty": "3"}
    form = RollBuilderForm(data, characters=[s.t.hero], settings=DEFAULT_SETTINGS)
    assert form.is_valid(), form.errors
    (spec,) = form.roll_specs()
    assert spec == RollSpec(
        kind="simple", data={"skill": "pilot", "difficulty": 3, "secret": False}, character_id=s.t.hero.pk
    )
    assert "Piloto: Grande (+4)" in dict(cast(Any, form.choice_field("skill").choices))["pilot"]
    # A player cannot ask for a secret difficulty; a GM can, and a secret roll too.
    form = RollBuilderForm({**data, "roll-secret": "on"}, characters=[s.t.hero])
    assert form.is_valid() and form.roll_specs()[0].data["secret"] is False
    gm_data = {"roll-kind": "simple", "roll-character": str(s.t.npc.pk), "roll-skill": "weapons",
               "roll-difficulty": "4", "roll-secret": "on", "roll-gm_only": "on"}  # fmt: skip
    form = RollBuilderForm(gm_data, characters=[s.t.npc, s.t.hero], powers=GM_POWERS)
    assert form.is_valid(), form.errors
    (spec,) = form.roll_specs()
    assert spec.data["secret"] is True and spec.gm_only is True
    attack = {"roll-kind": "attack", "roll-character": str(s.t.hero.pk), "roll-skill": "guns",
              "roll-opposition": "2", "roll-track": "composure"}  # fmt: skip
    (spec,) = RollBuilderForm(attack, characters=[s.t.hero]).roll_specs()
    assert spec.data == {"skill": "guns", "opposition": 2, "full_defense": False, "track": "composure"}
    missing = RollBuilderForm({**attack, "roll-opposition": ""}, characters=[s.t.hero])
    assert not missing.is_valid() and "opposition" in missing.errors
    assert RollBuilderForm({"roll-kind": ""}, characters=[s.t.hero]).roll_specs() == []


def test_builder_template_renders(s: SotcScene) -> None:
    form = RollBuilderForm(characters=[s.t.hero], powers=GM_POWERS)
    html = render_to_string("fate_sotc/builder.html", {"form": form})
    assert "Dificultad secreta" in html and "Habilidades de Sally Slick" in html
    assert 'data-kinds="simple"' in html  # the secret difficulty only for a simple action
    assert "fate_sotc/sotc.css" in html


def test_builder_shows_only_the_chosen_kinds_fields_and_preselects_the_only_character(s: SotcScene) -> None:
    assert RollBuilderForm.kind_field == "kind"
    assert set(RollBuilderForm.fields_by_kind) == {
        "effort",
        "simple",
        "opposed",
        "attack",
        "maneuver",
        "block",
        "sprint",
    }
    assert "difficulty" in RollBuilderForm.fields_by_kind["simple"]
    assert "difficulty" not in RollBuilderForm.fields_by_kind["attack"]
    assert (
        "track" in RollBuilderForm.fields_by_kind["attack"]
        and "track" not in RollBuilderForm.fields_by_kind["maneuver"]
    )
    player = RollBuilderForm(characters=[s.t.hero, s.t.npc], default_character=s.t.hero.pk)
    assert player.fields["character"].initial == s.t.hero.pk
    assert not {"secret", "gm_only", "rating"} & set(player.fields)  # nothing a player must not set
    labels = dict(cast(Any, player.choice_field("skill").choices))
    assert labels["athletics"] == "Atletismo: Grande (+4)"  # skills by name, never a typed key


# --- flows through the API -------------------------------------------------------------------------------------


def test_compel_through_the_api_settles_once(s: SotcScene) -> None:
    response = api(s.gm).post(
        f"/api/scenes/{s.scene.pk}/flows/",
        {"kind": "compel", "params": {"character": s.t.hero.pk, "aspect": "Demasiado orgullosa"}},
        format="json",
    )
    assert response.status_code == 201, response.content
    flow_id = response.json()["id"]
    assert response.json()["waiting_for"]["steps"][0]["users"] == [s.t.player.pk]
    body = {"step": "accept", "params": {}, "idempotency_key": "k-1"}
    forbidden = api(s.t.player2).post(f"/api/flows/{flow_id}/steps/", body, format="json")
    assert forbidden.status_code == 403
    first = api(s.t.player).post(f"/api/flows/{flow_id}/steps/", body, format="json")
    again = api(s.t.player).post(f"/api/flows/{flow_id}/steps/", body, format="json")
    assert (first.status_code, again.status_code) == (201, 200)
    assert fp(s.t.hero) == 11 and LedgerEntry.objects.filter(operation="compel_accepted").count() == 1
    late = api(s.t.player).post(f"/api/flows/{flow_id}/steps/", {**body, "idempotency_key": "k-2"}, format="json")
    assert late.status_code == 400 and late.json()["error"]["code"] == "step_not_available"


def test_attack_through_the_api_with_refusals(s: SotcScene, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("rolls.runner.SystemDice", lambda: ScriptedDice(ZERO + ZERO))
    params = {"attacker": s.t.hero.pk, "skill": "guns", "defender": s.t.rival.pk, "defense_skill": "athletics"}
    response = api(s.t.player).post(
        f"/api/scenes/{s.scene.pk}/flows/", {"kind": "attack", "params": params}, format="json"
    )
    assert response.status_code == 201, response.content
    data = response.json()
    flow_id = data["id"]
    (made,) = data["rolls"]
    assert [p["pool"] for p in made["faces"]] == ["fudge"] and len(made["faces"][0]["dice"]) == 8
    assert made["result"]["sides"][1]["effort"] == 4
    early = api(s.t.player2).post(
        f"/api/flows/{flow_id}/steps/",
        {"step": "absorb", "params": {"choice": "box"}, "idempotency_key": "a"},
        format="json",
    )
    assert early.status_code == 400 and early.json()["error"]["code"] == "step_not_available"
    closed = api(s.gm).post(f"/api/flows/{flow_id}/steps/", {"step": "close", "idempotency_key": "b"}, format="json")
    assert closed.status_code == 201 and [w["step"] for w in closed.json()["waiting_for"]["steps"]] == ["absorb"]
    done = api(s.t.player2).post(
        f"/api/flows/{flow_id}/steps/",
        {"step": "absorb", "params": {"choice": "box"}, "idempotency_key": "c"},
        format="json",
    )
    assert done.status_code == 201 and done.json()["status"] == "settled"
    assert lines(Flow.objects.get(pk=flow_id))[-1] == "Jet Black marca la casilla 1 de Salud"


def test_flow_fragments_render_for_each_kind_and_step(s: SotcScene) -> None:
    gm = policy.viewer_for(s.gm, s.t.campaign)
    player = policy.viewer_for(s.t.player, s.t.campaign)
    made = roll(s, ZERO, skill="pilot", difficulty=3)
    window = start(s.t.player, s.scene, "invocation", roll=made.pk)
    step(s.t.player, window, "invoke", aspect=f"character:{s.t.hero.pk}:aspecto-1")
    flows = [
        window,
        start(s.gm, s.scene, "compel", character=s.t.hero.pk, aspect="Orgullosa"),
        start(s.t.player, s.scene, "attack", dice=ZERO + ZERO, attacker=s.t.hero.pk, skill="guns",
              defender=s.t.rival.pk, defense_skill="athletics"),
        start(s.t.player, s.scene, "advantage", dice=ZERO, character=s.t.hero.pk, skill="might", target="scene",
              difficulty=0, text="¡Fuego!"),
    ]  # fmt: skip
    for viewer, expected, acting in ((gm, "Aprobar", 3), (player, "Invocar", 4)):
        forms = 0
        for flow in flows:
            flow.refresh_from_db()
            html = render_to_string(
                "rolls/_flow.html",
                {"view": flow_views(viewer, [flow], "es")[0], "viewer": viewer, "new_idempotency_key": uuid.uuid4},
            )
            assert f'id="flow-{flow.pk}"' in html and "Espera" in html
            if f'hx-target="#flow-{flow.pk}"' in html:
                assert 'name="idempotency_key"' in html
                forms += 1
        assert forms == acting  # the GM does not answer a compel for a player
        assert expected in render_to_string(
            "rolls/_flow.html",
            {"view": flow_views(viewer, [window], "es")[0], "viewer": viewer, "new_idempotency_key": uuid.uuid4},
        )
    start_html = render_to_string(
        "fate_sotc/procedures/_start.html",
        {"scene": s.scene, "viewer": gm, "openings": opening_choices(s.scene, gm), "new_idempotency_key": uuid.uuid4},
    )
    assert "Forzar un aspecto" in start_html


def test_the_builder_names_kinds_and_skills_in_the_pages_language(s: SotcScene) -> None:
    with translation.override("en"):
        form = RollBuilderForm(characters=[s.t.hero])
        assert dict(cast(Any, form.choice_field("kind").choices))["attack"] == "Attack"
        assert dict(cast(Any, form.choice_field("skill").choices))["athletics"] == "Athletics: Great (+4)"
        assert (
            form.character_lines()[0][0],
            form.character_lines()[0][1][:1],
        ) == ("Sally Slick", ["Guns: Superb (+5)"])
