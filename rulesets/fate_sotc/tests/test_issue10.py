"""Issue 10 for SotC: skills by their names (a name typed as the page shows it resolves, anything else is
refused, never rolled at Mediocre), pickers that refuse what they did not offer, who may act by state, and
the record each procedure leaves in the thread (words in both languages, GM-only lines kept from players)."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from campaigns import policy
from campaigns.models import Post
from characters.models import LedgerEntry
from rolls.models import Flow, FlowLine, Roll
from rolls.selectors import flow_views, opening_choices
from rolls.services import RollSpec, create_post_with_rolls, reveal_roll
from rulesets.fate_sotc.procedures import PROCEDURES
from rulesets.fate_sotc.tests.scene_fixtures import (
    MINUS3,
    PLUS2,
    ZERO,
    SotcScene,
    aspect_ref,
    awaited,
    build_scene,
    fp,
    lines,
    start,
    step,
)
from systems.dice import ScriptedDice
from systems.errors import RulesError

pytestmark = pytest.mark.django_db


@pytest.fixture
def s(db: None) -> SotcScene:
    return build_scene(prefix="isotc_")


def posted(s: SotcScene, dice: list[int], **data: Any) -> Roll:
    post = create_post_with_rolls(
        author=s.t.player,
        scene=s.scene,
        body="Salto.",
        voice="character",
        character=s.t.hero,
        rolls=[RollSpec(kind=data.pop("kind", "simple"), data=data, character_id=s.t.hero.pk)],
        dice=ScriptedDice(dice),
    )
    return post.rolls.get()


# --- skills by name ---------------------------------------------------------------------------------------


def test_a_skill_typed_as_the_page_shows_it_rolls_at_its_rating(s: SotcScene) -> None:
    by_name = posted(s, ZERO, skill="Atletismo", difficulty=2)
    by_key = posted(s, ZERO, skill="athletics", difficulty=2)
    by_english = posted(s, ZERO, skill="athletics".upper(), difficulty=2)
    assert {r.result["sides"][0]["rating"] for r in (by_name, by_key, by_english)} == {4}
    assert by_name.request["skill"] == "athletics"


def test_a_skill_not_on_the_list_is_refused_not_rolled_at_mediocre(s: SotcScene) -> None:
    with pytest.raises(RulesError) as info:
        posted(s, ZERO, skill="Atletismoo", difficulty=2)
    assert info.value.code == "unknown_skill" and "Atletismoo" in info.value.message("es")
    assert not Roll.objects.exists()
    with pytest.raises(RulesError) as info:
        start(
            s.t.player, s.scene, "advantage", dice=ZERO,
            character=s.t.hero.pk, skill="Karate", target="scene", text="Fuera de equilibrio",
        )  # fmt: skip
    assert info.value.code == "unknown_skill" and not Flow.objects.exists()


def test_the_maneuver_with_a_spanish_skill_name_uses_the_sheet(s: SotcScene) -> None:
    flow = start(
        s.t.player, s.scene, "advantage", dice=ZERO,
        character=s.t.hero.pk, skill="Atletismo", target="scene", difficulty=2, text="Fuera de equilibrio",
    )  # fmt: skip
    assert flow.state["sides"]["a"]["effort"] == 4


# --- pickers ----------------------------------------------------------------------------------------------


def test_opening_pickers_offer_names_and_words_never_ids(s: SotcScene) -> None:
    made = posted(s, ZERO, skill="pilot", difficulty=2)
    player = opening_choices(s.scene, policy.viewer_for(s.t.player, s.t.campaign))
    labels = {c.label for c in player["attack"]["attacker"]}
    assert labels == {"Sally Slick"}  # only the characters the player speaks for
    assert "Atletismo" in {c.label for c in player["attack"]["skill"]}
    assert "compel" not in player or not player["compel"]  # the GM alone offers a compel
    (window_roll,) = player["invocation"]["roll"]
    assert window_roll.value == str(made.pk)
    made_number = Post.objects.get(rolls=made).position  # its number in the thread, never its id
    assert window_roll.label == f"Sally Slick: Piloto Grande (+4), mensaje n.º {made_number}"
    gm = opening_choices(s.scene, policy.viewer_for(s.gm, s.t.campaign))
    assert {c.label for c in gm["compel"]["character"]} >= {"Sally Slick", "Jet Black"}


def test_a_roll_the_picker_did_not_offer_is_refused(s: SotcScene) -> None:
    made = posted(s, ZERO, skill="pilot", difficulty=2)
    with pytest.raises(RulesError) as info:
        start(s.t.player2, s.scene, "invocation", roll=made.pk)
    assert info.value.code == "not_your_roll"
    with pytest.raises(RulesError) as info:
        start(s.t.player, s.scene, "invocation", roll=made.pk + 999)
    assert info.value.code == "roll_not_open"


def test_an_aspect_the_picker_did_not_offer_is_refused(s: SotcScene) -> None:
    flow = start(s.t.player, s.scene, "invocation", roll=posted(s, ZERO, skill="pilot", difficulty=2).pk)
    for value in ("character:99999:aspecto-1", "nonsense"):
        with pytest.raises(RulesError) as info:
            step(s.t.player, flow, "invoke", aspect=value)
        assert info.value.code == "aspect_not_offered"
    assert fp(s.t.hero) == 10


# --- who may act, by state --------------------------------------------------------------------------------


def test_who_may_act_follows_the_table(s: SotcScene) -> None:
    attack = PROCEDURES["attack"]
    flow = start(
        s.t.player, s.scene, "attack", dice=ZERO + ZERO,
        attacker=s.t.hero.pk, skill="Puntería", defender=s.t.rival.pk, defense_skill="Atletismo",
    )  # fmt: skip
    state = attack.load_state(flow.state)
    assert attack.actors(state, "close") == {"gm"}
    assert attack.actors(state, "invoke") == {s.t.player.pk, s.t.player2.pk}  # two PCs: no side is the GM's
    assert attack.actors(state, "absorb") == frozenset()
    flow = step(s.gm, flow, "close")
    state = attack.load_state(flow.state)
    assert attack.actors(state, "absorb") == {s.t.player2.pk} and attack.actors(state, "invoke") == frozenset()
    gm_view = flow_views(policy.viewer_for(s.gm, s.t.campaign), [flow], "es")[0]
    defender_view = flow_views(policy.viewer_for(s.t.player2, s.t.campaign), [flow], "es")[0]
    assert [a.step for a in gm_view.actions] == [] and [a.step for a in defender_view.actions] == ["absorb"]
    assert [c.label for c in defender_view.actions[0].choices["choice"]][:2] == [
        "Marcar una casilla de estrés",
        "Tomar una consecuencia",
    ]


# --- the record in the thread ------------------------------------------------------------------------------


def test_the_attack_leaves_its_record_in_words_in_both_languages(s: SotcScene) -> None:
    flow = start(
        s.t.player, s.scene, "attack", dice=ZERO + ZERO,
        attacker=s.t.hero.pk, skill="guns", defender=s.t.rival.pk, defense_skill="athletics",
    )  # fmt: skip
    flow = step(s.t.player2, flow, "invoke", side="b", aspect=aspect_ref(s.t.rival, "aspecto-4"))
    flow = step(s.gm, flow, "reject")
    flow = step(s.gm, flow, "close")
    step(s.t.player2, flow, "absorb", choice="box")
    es, en = lines(flow, "es"), lines(flow, "en")
    assert es[0] == "Sally Slick ataca a Jet Black con Puntería (Salud); Jet Black se defiende con Atletismo"
    assert en[0] == "Sally Slick attacks Jet Black with Guns (Health); Jet Black defends with Athletics"
    assert es[1].startswith("Jet Black pide invocar «") and es[1].endswith("espera al DJ")
    assert "no se gasta ningún punto de destino" in es[2] and "no fate point is spent" in en[2]
    assert es[3] == (
        "Ventana cerrada. Sally Slick (Puntería) Excelente (+5) contra Jet Black (Atletismo) Grande (+4): "
        "Impacto de 1 en Salud"
    )
    assert en[3].startswith("Window closed. Sally Slick (Guns) Superb (+5) vs Jet Black (Athletics) Great (+4)")
    assert es[4] == "Jet Black marca la casilla 1 de Salud" and en[4] == "Jet Black marks box 1 of Health"
    first = FlowLine.objects.filter(flow=flow).order_by("position").first()
    assert first is not None and first.rolls == [flow.state["roll"]]  # the dice, as dice


def test_the_compel_and_the_declaration_say_what_changed_in_fate_points(s: SotcScene) -> None:
    compel = start(s.gm, s.scene, "compel", character=s.t.hero.pk, aspect=aspect_ref(s.t.hero), description="Se pica")
    assert compel.state["aspect"] != aspect_ref(s.t.hero)  # the aspect's words, never its reference
    step(s.t.player, compel, "accept")
    assert lines(compel)[-1] == "Sally Slick acepta el forzado y gana 1 punto de destino"
    assert lines(compel, "en")[-1] == "Sally Slick accepts the compel and gains 1 fate point"
    declaration = start(s.t.player, s.scene, "declaration", character=s.t.hero.pk, text="Llevo un mechero.")
    step(s.gm, declaration, "approve")
    assert lines(declaration) == [
        "Sally Slick declara: Llevo un mechero.",
        "El DJ aprueba: pasa a ser cierto; Sally Slick gasta 1 punto de destino",
    ]
    assert LedgerEntry.objects.filter(operation="declaration").count() == 1


def test_a_secret_difficulty_stays_a_gm_only_line_on_the_page_and_the_api(s: SotcScene) -> None:
    post = create_post_with_rolls(
        author=s.gm, scene=s.scene, body="Cerradura.", voice="npc", npc_name="Guardia",
        rolls=[RollSpec(kind="simple", data={"skill": "weapons", "difficulty": 4, "secret": True},
                        character_id=s.t.npc.pk)],
        dice=ScriptedDice(PLUS2),
    )  # fmt: skip
    flow = start(s.gm, s.scene, "invocation", roll=post.rolls.get().pk)
    step(s.gm, flow, "close")
    assert lines(flow, gm_only=True) == ["Dificultad secreta: Grande (+4)"]
    assert lines(flow, "en", gm_only=True) == ["Secret difficulty: Great (+4)"]
    player = flow_views(policy.viewer_for(s.t.player, s.t.campaign), [flow], "es", with_actions=False)[0]
    gm = flow_views(policy.viewer_for(s.gm, s.t.campaign), [flow], "es", with_actions=False)[0]
    assert all("Grande (+4)" not in line.text_es for line in player.lines)
    assert any("Dificultad secreta" in line.text_es for line in gm.lines)
    bodies = {}
    for user in (s.t.player, s.gm):
        client = APIClient(HTTP_ACCEPT_LANGUAGE="es")
        client.force_authenticate(user)
        bodies[user.pk] = client.get(f"/api/scenes/{s.scene.pk}/posts/").content.decode()
    assert "Ventana cerrada" in bodies[s.t.player.pk]  # the record reaches the player...
    assert "Dificultad secreta" not in bodies[s.t.player.pk] and "Secret difficulty" not in bodies[s.t.player.pk]
    assert "Dificultad secreta" in bodies[s.gm.pk]  # ... and its GM-only line only the GM


def test_the_invocation_window_records_the_invocation_and_the_outcome_in_ladder_words(s: SotcScene) -> None:
    made = posted(s, MINUS3, skill="academics", difficulty=5)
    made_number = Post.objects.get(rolls=made).position
    flow = start(s.t.player, s.scene, "invocation", roll=made.pk)
    flow = step(s.t.player, flow, "invoke", aspect=aspect_ref(s.t.hero), mode="bonus")
    assert awaited(flow)["approve"]["gm"]
    flow = step(s.gm, flow, "approve")
    step(s.gm, flow, "close")
    es = lines(flow)
    assert (
        es[0] == f"Se abre la ventana de invocaciones de Sally Slick: Educación Bueno (+3), mensaje n.º {made_number}"
    )
    assert "invoca «" in es[2] and "con un punto de destino: +2; esfuerzo Adecuado (+2)" in es[2]
    assert es[-1].startswith("Ventana cerrada. Esfuerzo final Adecuado (+2), dificultad Excelente (+5): Fallo")


def test_a_secret_roll_gets_its_window_once_revealed(s: SotcScene) -> None:
    post = create_post_with_rolls(
        author=s.gm, scene=s.scene, body="En la sombra.", voice="npc", npc_name="Guardia",
        rolls=[RollSpec(kind="simple", data={"skill": "weapons", "difficulty": 2}, character_id=s.t.npc.pk,
                        gm_only=True)],
        dice=ScriptedDice(ZERO),
    )  # fmt: skip
    secret = post.rolls.get()
    with pytest.raises(RulesError) as info:
        start(s.gm, s.scene, "invocation", roll=secret.pk)
    assert info.value.code == "secret_roll"
    reveal_roll(actor=s.gm, roll=secret)
    flow = start(s.gm, s.scene, "invocation", roll=secret.pk)
    assert flow.state["roll"] == secret.pk
