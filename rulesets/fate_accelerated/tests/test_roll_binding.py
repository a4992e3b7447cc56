"""The Fate Accelerated roll binding and the composer's builder: sheet ratings, stunts, secret
difficulties, Fudge faces and summaries in words (es, en)."""

from __future__ import annotations

from typing import Any

import pytest

from campaigns.policy import RollPowers
from rolls.models import Roll
from rolls.services import RollSpec, create_post_with_rolls
from rulesets.fate_accelerated.builder import RollBuilderForm
from rulesets.fate_accelerated.rolls import BINDING
from rulesets.fate_accelerated.tests.roll_fixtures import FaeScene, build_scene, fate
from systems.errors import RulesError

pytestmark = pytest.mark.django_db


@pytest.fixture
def fae(db: None) -> FaeScene:
    return build_scene()


def _roll(fae: FaeScene, kind: str, data: dict[str, Any], faces: str, **spec: Any) -> Roll:
    post = create_post_with_rolls(
        author=spec.pop("author", fae.player),
        scene=fae.scene,
        body="Corro por el muelle.",
        rolls=[RollSpec(kind=kind, data=data, character_id=fae.ana.pk, **spec)],
        dice=fate(faces),
    )
    return post.rolls.get()


def test_overcome_reads_the_approach_from_the_sheet_and_says_the_result_in_words(fae: FaeScene) -> None:
    roll = _roll(fae, "overcome", {"approach": "quick", "difficulty": 2}, "+0+0")
    assert roll.request["approach_rating"] == 2  # Ana is Quick +2
    assert roll.result["faces"] == "+0+0" and roll.result["total"] == 4
    assert roll.result["outcome"] == "success" and roll.result["shifts"] == 2
    assert roll.summary_es == "Superar (Rápido) · [+][ ][+][ ] +2 +2 = Enorme (+4) · Éxito (2 aumentos) vs Bueno (+2)"
    assert roll.summary_en.startswith("Overcome (Quick)") and "Success (2 shifts)" in roll.summary_en
    faces = BINDING.faces(roll.kind, roll.result)
    assert [(f.pool, f.face, f.glyph) for f in faces] == [("fudge", 1, "+"), ("fudge", 0, " ")] * 2


def test_stunt_bonus_applies_only_where_the_rules_say(fae: FaeScene) -> None:
    roll = _roll(fae, "create_advantage", {"approach": "sneaky", "stunts": ["S1"], "difficulty": 2}, "0000")
    assert roll.request["stunt_bonus"] == 2 and roll.result["total"] == 5
    with pytest.raises(RulesError) as exc:
        _roll(fae, "attack", {"approach": "sneaky", "stunts": ["S1"], "difficulty": 2}, "0000")
    assert exc.value.code == "stunt_not_applicable"


def test_a_secret_difficulty_never_reaches_the_public_result(fae: FaeScene) -> None:
    roll = _roll(
        fae, "overcome", {"approach": "quick", "difficulty": 3, "difficulty_secret": True}, "+000", author=fae.gm
    )
    assert "difficulty" not in roll.request and "difficulty" not in roll.result and "shifts" not in roll.result
    assert roll.result["outcome"] == "tie" and "Grande" not in roll.summary_es.split("·")[-1]
    assert roll.secret == {"difficulty": 3, "shifts": 0}
    assert roll.summary_es.endswith("Empate (dificultad secreta)") and " vs " not in roll.summary_es
    assert roll.summary_en.endswith("Tie (secret difficulty)")


def test_an_action_needs_a_character_and_bare_4df_is_for_gms(fae: FaeScene) -> None:
    with pytest.raises(RulesError):
        BINDING.prepare("overcome", {"approach": "quick"}, None, None)
    assert not BINDING.kind_allowed("fate_dice", is_gm=False) and BINDING.kind_allowed("fate_dice", is_gm=True)
    prepared = BINDING.prepare("fate_dice", {"modifier": 2, "difficulty": 1}, None, None)
    resolved = BINDING.resolve("fate_dice", prepared, fate("-000"), None)
    assert resolved.result["total"] == 1 and resolved.result["outcome"] == "tie"
    assert resolved.summary_en.startswith("Fate dice")


PLAYER = RollPowers(gm_kinds=False, secret_rolls=False, secret_difficulty=False, npc_dice=False)
GM_POWERS = RollPowers(gm_kinds=True, secret_rolls=True, secret_difficulty=True, npc_dice=True)


def test_builder_starts_at_the_only_character_and_marks_the_fields_of_each_roll_type(fae: FaeScene) -> None:
    form = RollBuilderForm(characters=[fae.ana], powers=PLAYER, default_character=fae.ana.pk)
    assert form["character"].value() == fae.ana.pk
    assert form.kind_field == "kind" and "difficulty" not in form.fields_by_kind["defend"]
    marked = {field.name: kinds for field, kinds in form.marked_fields}
    assert marked["kind"] is None and str(marked["approach"]).split() == [
        "overcome",
        "create_advantage",
        "attack",
        "defend",
    ]
    assert "defend" not in str(marked["difficulty"]).split()
    # What the rules give the GM never reaches a player's builder.
    assert not {"difficulty_secret", "gm_only", "modifier"} & set(form.fields)
    html = form.render("fate_accelerated/builder.html")
    assert 'class="field field-difficulty" data-kinds="overcome create_advantage attack fate_dice"' in html
    assert "(id)" not in html
    assert RollBuilderForm(characters=[fae.ana, fae.carla], powers=GM_POWERS)["character"].value() is None


def test_builder_roll_specs_from_form_data(fae: FaeScene) -> None:
    data = {
        "roll-kind": "create_advantage",
        "roll-character": str(fae.ana.pk),
        "roll-approach": "sneaky",
        "roll-stunts": [f"{fae.ana.pk}:S1"],
        "roll-helpers": "1",
        "roll-difficulty": "2",
        "roll-label": "Engaño",
    }
    form = RollBuilderForm(data, characters=[fae.ana], powers=PLAYER)
    assert form.is_valid(), form.errors
    assert "roll-difficulty_secret" not in form.data or "difficulty_secret" not in form.fields
    [spec] = form.roll_specs()
    assert spec == RollSpec(
        kind="create_advantage",
        data={"approach": "sneaky", "stunts": ["S1"], "helpers": 1, "difficulty": 2},
        character_id=fae.ana.pk,
        label="Engaño",
    )


def test_builder_gm_options_and_refusals(fae: FaeScene) -> None:
    gm_form = RollBuilderForm(
        {
            "roll-kind": "overcome",
            "roll-character": str(fae.bruno.pk),
            "roll-approach": "forceful",
            "roll-difficulty": "3",
            "roll-difficulty_secret": "on",
            "roll-gm_only": "on",
        },
        characters=[fae.bruno],
        powers=GM_POWERS,
    )
    assert gm_form.is_valid(), gm_form.errors
    [spec] = gm_form.roll_specs()
    assert spec.gm_only and spec.data["difficulty_secret"] is True and spec.data["difficulty"] == 3
    empty = RollBuilderForm({"roll-kind": ""}, characters=[fae.ana])
    assert empty.is_valid() and empty.roll_specs() == []
    bad = RollBuilderForm({"roll-kind": "overcome", "roll-approach": "quick"}, characters=[fae.ana])
    assert not bad.is_valid() and "character" in bad.errors
    other = RollBuilderForm(
        {
            "roll-kind": "overcome",
            "roll-character": str(fae.ana.pk),
            "roll-approach": "quick",
            "roll-difficulty_secret": "on",
            "roll-difficulty": "2",
        },
        characters=[fae.ana],
    )
    assert other.is_valid() and "difficulty_secret" not in other.roll_specs()[0].data
