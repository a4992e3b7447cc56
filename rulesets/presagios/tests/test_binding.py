"""Presagios rolls in posts: faces (omens for 1s), sheet-filled requests, the always-secret difficulty, the
builder's roll specs, summaries in Spanish and English."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.template.loader import render_to_string

from campaigns import policy
from campaigns.policy import RollPowers
from rolls.selectors import view_roll
from rolls.services import RollSpec, create_post_with_rolls
from rulesets import registry
from rulesets.presagios.builder import RollBuilderForm
from rulesets.presagios.rolls import BINDING
from rulesets.presagios.tests.rolls_fixtures import RollsTable, build, set_sheet
from systems.dice import ScriptedDice
from systems.errors import RulesError
from tests.systems.vectors import vector

GM_POWERS = RollPowers(gm_kinds=True, secret_rolls=True, secret_difficulty=True, npc_dice=True)
PLAYER_POWERS = RollPowers(gm_kinds=False, secret_rolls=False, secret_difficulty=False, npc_dice=False)
pytestmark = pytest.mark.django_db


@pytest.fixture
def t(db: None) -> RollsTable:
    return build()


def roll_with(t: RollsTable, actor: Any, spec: RollSpec, dice: list[int]) -> Any:
    post = create_post_with_rolls(author=actor, scene=t.scene, body="Tiro.", rolls=[spec], dice=ScriptedDice(dice))
    return post.rolls.get()


def test_registered_and_faces_draw_omens_for_ones() -> None:
    assert registry.plugin("presagios").rolls is BINDING
    faces = BINDING.faces("roll", {"kind": "roll", "dice": [5, 1, 5, 2, 3]})
    assert [(f.pool, f.face, f.glyph) for f in faces] == [
        ("d6", 5, "5"), ("omen", 1, "☠"), ("d6", 5, "5"), ("d6", 2, "2"), ("d6", 3, "3"),
    ]  # fmt: skip


def test_a_roll_takes_the_current_rating_and_trait_from_the_sheet(t: RollsTable) -> None:
    set_sheet(t.lucia, current=[3, 3, 2])
    spec = RollSpec(
        kind="roll", data={"characteristic": "c1", "tool_dice": 2, "trait": "Correr"}, character_id=t.lucia.pk
    )
    roll = roll_with(t, t.player, spec, [5, 1, 5, 2, 3])  # vector 8: 3 + 2 tool dice
    assert roll.request == {"characteristic": "c1", "current": 3, "tool_dice": 2, "trait": "Correr", "trait_bonus": 1}
    assert roll.result["dice"] == [5, 1, 5, 2, 3]
    assert (roll.result["dice_result"], roll.result["omens"], roll.result["total"]) == (6, 1, 7)
    assert roll.summary_es == (
        "Acción 3 + 2 herramientas: [5][☠][5][2][3] → 6 + Correr +1 = resultado 7 · 1 presagio: algo inquietante ocurre"
    )
    assert roll.summary_en.startswith("Action 3 + 2 tool dice: [5][☠][5][2][3] → 6 + Correr +1 = result 7")


def test_rolling_with_a_damaged_rating_of_zero_rolls_no_dice(t: RollsTable) -> None:
    set_sheet(t.lucia, current=[0, 3, 2])
    spec = RollSpec(kind="roll", data={"characteristic": "c1", "trait": "Pelear"}, character_id=t.lucia.pk)
    roll = roll_with(t, t.player, spec, [])
    assert roll.result["dice"] == [] and roll.result["total"] == 3  # vector 6: the trait still adds


@pytest.mark.parametrize(
    ("data", "code"),
    [
        ({"characteristic": "c1", "tool_dice": 4}, "TOOL_DICE_RANGE"),  # vector 12
        ({"characteristic": "c2", "trait": "Ver a los muertos"}, "SUPERNATURAL_NEEDS_FLOW"),
        ({"characteristic": "c1", "trait": "Volar"}, "NO_TRAIT"),
    ],
)
def test_refused_roll_requests(t: RollsTable, data: dict[str, Any], code: str) -> None:
    with pytest.raises(RulesError) as exc:
        roll_with(t, t.player, RollSpec(kind="roll", data=data, character_id=t.lucia.pk), [3] * 9)
    assert exc.value.code == code
    assert not t.scene.posts.exists()


def test_a_character_out_of_the_story_cannot_roll(t: RollsTable) -> None:
    set_sheet(t.lucia, current=[-1, 3, 2], status="out_of_story")
    with pytest.raises(RulesError) as exc:
        roll_with(t, t.player, RollSpec(kind="roll", data={"characteristic": "c1"}, character_id=t.lucia.pk), [3])
    assert exc.value.code == "NOT_IN_STORY"


@pytest.mark.parametrize(("difficulty", "outcome", "es"), [(7, "success", "Éxito"), (8, "failure", "Fallo")])
def test_challenge_difficulty_is_secret_and_players_see_only_the_outcome(
    t: RollsTable, difficulty: int, outcome: str, es: str
) -> None:
    data = {"characteristic": "c1", "current": 3, "tool_dice": 2, "trait_bonus": 1, "difficulty": difficulty}
    roll = roll_with(t, t.gm, RollSpec(kind="challenge", data=data), [5, 1, 5, 2, 3])  # vectors 8 and 9
    assert roll.result["outcome"] == outcome and roll.result["difficulty_secret"] is True
    assert roll.secret == {"difficulty": difficulty, "margin": 7 - difficulty}
    public_text = str(roll.request) + str(roll.result) + roll.summary_es + roll.summary_en
    assert "difficulty': " not in public_text and "margin" not in public_text
    assert roll.summary_es.startswith("Reto (Acción 3 + 2 herramientas)") and es in roll.summary_es
    player_view = view_roll(policy.viewer_for(t.player, t.campaign), roll)
    gm_view = view_roll(policy.viewer_for(t.gm, t.campaign), roll)
    assert player_view is not None and player_view.secret is None
    assert gm_view is not None and gm_view.secret == {"difficulty": difficulty, "margin": 7 - difficulty}


def test_only_gms_roll_challenges_and_conflicts_in_posts(t: RollsTable) -> None:
    spec = RollSpec(kind="challenge", data={"characteristic": "c1", "difficulty": 5}, character_id=t.lucia.pk)
    with pytest.raises(ValidationError):
        roll_with(t, t.player, spec, [3, 3, 3, 3])
    with pytest.raises(PermissionDenied):  # nor speak as someone else's character
        roll_with(t, t.player2, RollSpec(kind="roll", data={"characteristic": "c1"}, character_id=t.lucia.pk), [3])


def test_a_quick_conflict_draws_every_pair_and_strikes_the_tied_ones(t: RollsTable) -> None:
    side = {"current": 1, "tool_dice": 0, "trait_bonus": 0}
    data = {"a": {"name": "Lucía", "kind": "principal", **side}, "b": {"name": "Hugo", "kind": "principal", **side}}
    roll = roll_with(t, t.gm, RollSpec(kind="conflict", data=data), [4, 4, 3, 5])  # tie 4-4, then 3 vs 5
    assert roll.result["winner"] == "b" and len(roll.result["pairs"]) == 2
    faces = BINDING.faces("conflict", roll.result)
    assert [(f.face, f.counts) for f in faces] == [(4, False), (4, False), (3, True), (5, True)]
    assert roll.summary_es == "Conflicto: Lucía 3 vs Hugo 5 · 1 empate(s) repetido(s) · gana Hugo"


@vector("presagios-67")
def test_a_quick_conflict_with_a_side_out_of_the_story_is_refused(t: RollsTable, vector_id: str) -> None:
    """New vector 67 (after the spec's 66), in its words: | 67 | A GM's conflict post with a side whose
    current value is −2 | rejected `NOT_IN_STORY` (A-AMB-09: below zero is out). No dice are rolled |"""
    inside = {"kind": "principal", "current": 2, "tool_dice": 0, "trait_bonus": 0}
    for out in ({**inside, "current": -2}, {**inside, "current": -1}):
        data = {"a": {"name": "Lucía", **inside}, "b": {"name": "Hugo", **out}}
        with pytest.raises(RulesError) as exc:
            roll_with(t, t.gm, RollSpec(kind="conflict", data=data), [4, 4, 3, 5])
        assert exc.value.code == "NOT_IN_STORY" and exc.value.details == {"side": "b"}
    assert not t.scene.posts.exists()


# --- The composer's builder ------------------------------------------------------------------------


def test_builder_is_found_and_makes_roll_specs_from_form_data(t: RollsTable) -> None:
    assert (registry.plugin("presagios").builder, registry.plugin("presagios").templates.builder) == (
        RollBuilderForm,
        "presagios/builder.html",
    )
    data = {"roll-kind": "roll", "roll-character": str(t.lucia.pk), "roll-characteristic": "c1",
            "roll-tool_dice": "2", "roll-trait": f"{t.lucia.pk}:Pelear", "roll-label": "Forzar la puerta"}  # fmt: skip
    form = RollBuilderForm(data, characters=[t.lucia])
    assert form.is_valid(), form.errors
    (spec,) = form.roll_specs()
    assert spec == RollSpec(
        kind="roll",
        data={"characteristic": "c1", "tool_dice": 2, "trait": "Pelear"},
        character_id=t.lucia.pk,
        label="Forzar la puerta",
    )
    assert "difficulty" not in form.fields and "gm_only" not in form.fields  # GM-only options
    assert RollBuilderForm({"roll-kind": ""}, characters=[t.lucia]).roll_specs() == []
    choices = dict(form.fields["trait"].choices)  # type: ignore[attr-defined]
    assert f"{t.lucia.pk}:Ver a los muertos" not in choices  # supernatural traits go through a flow


def test_builder_refuses_someone_elses_trait_and_a_challenge_without_difficulty(t: RollsTable) -> None:
    base = {"roll-character": str(t.lucia.pk), "roll-characteristic": "c1"}
    other = RollBuilderForm(
        {**base, "roll-kind": "roll", "roll-trait": f"{t.hugo.pk}:Puños"}, characters=[t.lucia, t.hugo]
    )
    assert not other.is_valid() and "trait" in other.errors
    gm = RollBuilderForm({**base, "roll-kind": "challenge"}, characters=[t.lucia], powers=GM_POWERS)
    assert not gm.is_valid() and "difficulty" in gm.errors


def test_gm_builder_rolls_a_secret_challenge_and_a_quick_conflict(t: RollsTable) -> None:
    chars = [t.lucia, t.cosa]
    data = {"roll-kind": "challenge", "roll-character": str(t.cosa.pk), "roll-characteristic": "c1",
            "roll-difficulty": "9", "roll-gm_only": "on"}  # fmt: skip
    form = RollBuilderForm(data, characters=chars, powers=GM_POWERS)
    assert form.is_valid(), form.errors
    (spec,) = form.roll_specs()
    assert spec.kind == "challenge" and spec.data["difficulty"] == 9 and spec.gm_only
    data = {"roll-kind": "conflict", "roll-character": str(t.lucia.pk), "roll-characteristic": "c1",
            "roll-trait": f"{t.lucia.pk}:Pelear", "roll-opponent": str(t.cosa.pk),
            "roll-opponent_characteristic": "c1", "roll-opponent_tool_dice": "1"}  # fmt: skip
    form = RollBuilderForm(data, characters=chars, powers=GM_POWERS)
    assert form.is_valid(), form.errors
    (spec,) = form.roll_specs()
    assert spec.data == {
        "a": {"name": "Lucía", "kind": "principal", "current": 4, "tool_dice": 0, "trait_bonus": 3},
        "b": {"name": "La Cosa", "kind": "monstruo", "current": 5, "tool_dice": 1, "trait_bonus": 0},
    }
    roll = roll_with(t, t.gm, spec, [6, 2, 1, 1, 2, 3, 4, 5, 2, 3])
    assert roll.result["winner"] == "a"  # 6+3 = 9 vs 5


def test_builder_preselects_the_only_character_and_tells_each_field_its_roll_types(t: RollsTable) -> None:
    form = RollBuilderForm(characters=[t.lucia], default_character=t.lucia.pk)
    assert form["character"].value() == t.lucia.pk
    assert RollBuilderForm(characters=[t.lucia, t.hugo], powers=GM_POWERS)["character"].value() is None
    assert form.kind_field == "kind" and set(form.fields_by_kind) == {"roll", "challenge", "conflict"}
    shown = dict((field.name, kinds) for field, kinds in form.shown_fields())
    assert shown["kind"] == "" and shown["characteristic"] == "roll challenge conflict"
    gm = dict(
        (field.name, kinds) for field, kinds in RollBuilderForm(characters=[t.lucia], powers=GM_POWERS).shown_fields()
    )
    assert gm["difficulty"] == "challenge" and gm["opponent"] == "conflict"
    html = render_to_string("presagios/builder.html", {"form": form})
    assert "data-kind-field" in html and 'data-roll-kinds="roll challenge conflict"' in html
    assert "(id)" not in html and ">c1<" not in html and "Acción (Lucía 4)" in html


def test_a_player_is_never_offered_what_the_rules_give_the_gm(t: RollsTable) -> None:
    form = RollBuilderForm(characters=[t.lucia], powers=PLAYER_POWERS)
    assert not {"difficulty", "gm_only", "opponent", "opponent_characteristic"} & set(form.fields)
    assert [value for value, _label in form.fields["kind"].choices] == ["", "roll"]  # type: ignore[attr-defined]
    sneaky = RollBuilderForm(
        {
            "roll-kind": "challenge",
            "roll-character": str(t.lucia.pk),
            "roll-characteristic": "c1",
            "roll-difficulty": "3",
        },
        characters=[t.lucia],
        powers=PLAYER_POWERS,
    )
    assert not sneaky.is_valid() and "kind" in sneaky.errors


def test_the_gm_locks_a_failed_challenge_from_a_picker_not_by_typing_its_identifier(t: RollsTable) -> None:
    """Issue 28: «Bloquear reto fallido» was a free-text field for the challenge's identifier."""
    from django.test import Client

    from characters import services as character_services

    data = {"characteristic": "c1", "difficulty": 8}
    failed = RollSpec(kind="challenge", data=data, character_id=t.lucia.pk, label="Abrir la cripta")
    roll_with(t, t.gm, failed, [1, 1, 2, 2, 3])
    passed = RollSpec(kind="challenge", data={**data, "difficulty": 1}, character_id=t.lucia.pk, label="Saltar")
    roll_with(t, t.gm, passed, [6, 6, 6, 6, 6])
    client = Client()
    client.force_login(t.gm)
    html = client.get(f"/characters/{t.lucia.pk}/").content.decode()
    assert '<input type="text" name="challenge_id"' not in html
    assert (
        '<select name="challenge_id" required><option value="reto:abrir-la-cripta">Abrir la cripta (La cripta)' in html
    )
    assert "Saltar" not in html[html.index('name="challenge_id"') :][:500]  # a passed challenge is not offered
    character_services.apply_operation(
        actor=t.gm,
        campaign=t.campaign,
        operation="lock_challenge",
        params={"character_id": str(t.lucia.pk), "challenge_id": "reto:abrir-la-cripta"},
        character=t.lucia,
    )
    html = client.get(f"/characters/{t.lucia.pk}/").content.decode()
    assert 'name="challenge_id"' not in html  # locked: nothing left to lock
    assert "Ningún reto fallido por bloquear" in html
