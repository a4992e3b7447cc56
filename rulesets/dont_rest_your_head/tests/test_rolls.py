"""No te Duermas rolls in posts: the binding (pools from the sheet, faces per pool, results in words),
the composer's builder (``roll_specs`` from form data) and the conflict's fragment for each viewer."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.test import Client

from campaigns.policy import RollPowers
from characters.models import Character
from rolls.models import Roll
from rolls.services import RollSpec, create_post_with_rolls
from rulesets.dont_rest_your_head.builder import RollBuilderForm
from rulesets.dont_rest_your_head.rolls import BINDING
from rulesets.dont_rest_your_head.tests.rolls_fixtures import DryhRolls, build_dryh_rolls
from systems.dice import ScriptedDice
from systems.errors import RulesError

pytestmark = pytest.mark.django_db


@pytest.fixture
def dryh(db: None) -> DryhRolls:
    return build_dryh_rolls()


def post_roll(t: DryhRolls, spec: RollSpec, dice: list[int], author=None) -> Roll:  # type: ignore[no-untyped-def]
    author = author or t.player
    post = create_post_with_rolls(
        author=author, scene=t.scene, rolls=[spec], dice=ScriptedDice(dice), body="Tiro.", voice="ooc"
    )
    return Roll.objects.get(post=post)


def test_leader_roll_takes_its_pools_from_the_sheet(dryh: DryhRolls) -> None:
    t = dryh
    t.set_sheet(t.alia, exhaustion=2, permanent_madness=1, discipline=2)
    roll = post_roll(t, RollSpec("leader", {"temp_madness": 1}, t.alia.pk), [1, 5, 6, 2, 4, 6])
    assert roll.request["discipline"] == 2 and roll.request["exhaustion"] == 2 and roll.request["madness"] == 2
    assert roll.result["pools"] == {"discipline": [1, 5], "exhaustion": [6, 2], "madness": [4, 6]}
    faces = BINDING.faces("leader", roll.result)
    assert [(f.pool, f.face) for f in faces] == [
        ("discipline", 1),
        ("discipline", 5),
        ("exhaustion", 6),
        ("exhaustion", 2),
        ("madness", 4),
        ("madness", 6),
    ]
    assert [f.note for f in faces][:2] == ["success", ""]
    assert (
        roll.summary_es == "2 éxitos (Disciplina 1 · Agotamiento 1 · Locura 0); potencia superior: la locura (6)"
    )  # M[6,4] beats E[6,2]
    assert roll.summary_en.startswith("2 successes (Discipline 1")


def test_the_voluntary_increase_is_only_taken_in_a_conflict(dryh: DryhRolls) -> None:
    with pytest.raises(RulesError) as exc:
        post_roll(dryh, RollSpec("leader", {"voluntary_increase": True}, dryh.alia.pk), [1] * 4)
    assert exc.value.code == "needs_conflict" and not Roll.objects.exists()


def test_helper_and_pain_rolls(dryh: DryhRolls) -> None:
    t = dryh
    helper = post_roll(t, RollSpec("helper", {}, t.gavin.pk), [2, 5, 6], author=t.player2)
    assert helper.result["pools"] == {"discipline": [2, 5, 6]} and helper.summary_es == "Ayuda: 1 éxito de disciplina"
    with pytest.raises(RulesError) as exc:
        post_roll(t, RollSpec("helper", {"talent_use": "minor"}, t.gavin.pk), [1, 1, 1], author=t.player2)
    assert exc.value.code == "HELPER_NO_TALENTS"
    pain = post_roll(t, RollSpec("pain", {"opponents": [2, 2]}), [1, 6, 3, 4], author=t.gm)  # vector 14: 4 dice
    assert pain.request == {"pain": 4, "opponents": [2, 2]}
    assert [f.pool for f in BINDING.faces("pain", pain.result)] == ["pain"] * 4
    assert pain.summary_es == "Dolor: 2 éxitos, potencia 6" and pain.summary_en == "Pain: 2 successes, strength 6"
    assert not BINDING.kind_allowed("pain", is_gm=False) and BINDING.kind_allowed("pain", is_gm=True)


def test_whole_conflict_in_words(dryh: DryhRolls) -> None:
    """dont-rest-your-head-34: D[5,4,3] E[6,2] vs P[6,6,1]: 2 vs 1, pain dominates, top pool exhaustion."""
    t = dryh
    t.set_sheet(t.alia, exhaustion=2)
    roll = post_roll(t, RollSpec("conflict", {"pain": 3}, t.alia.pk), [5, 4, 3, 6, 2, 6, 6, 1], author=t.gm)
    out = roll.result["outcome"]
    assert (out["player_degree"], out["gm_degree"], out["dominant_pool"], out["superior_pool"]) == (
        2,
        1,
        "pain",
        "exhaustion",
    )
    assert roll.summary_es == "Éxito con 2 (impresionante); domina el dolor; potencia superior: el agotamiento"
    assert roll.summary_en == "Success with 2 (impressive); pain dominates; top pool: exhaustion"
    failure = post_roll(t, RollSpec("conflict", {"pain": 3}, t.alia.pk), [4, 4, 5, 6, 4, 1, 2, 5], author=t.gm)
    assert failure.summary_es.startswith("Fracaso (0 contra 2); domina el agotamiento")


def test_pain_range_and_madness_range(dryh: DryhRolls) -> None:
    t = dryh
    for spec, code in (
        (RollSpec("conflict", {"pain": 0}, t.alia.pk), "PAIN_RANGE"),
        (RollSpec("conflict", {"pain": 2, "temp_madness": 7}, t.alia.pk), "MADNESS_RANGE"),
        (RollSpec("leader", {"temp_madness": 7}, t.alia.pk), "MADNESS_RANGE"),
    ):
        with pytest.raises(RulesError) as exc:
            post_roll(t, spec, [1] * 20, author=t.gm if spec.kind == "conflict" else t.player)
        assert exc.value.code == code


def test_a_player_never_sets_pain_dice(dryh: DryhRolls) -> None:
    """The pain dice are the GM's (§3.10 step 2): a player's whole-conflict or pain roll is refused."""
    t = dryh
    for spec in (RollSpec("conflict", {"pain": 1}, t.alia.pk), RollSpec("pain", {"pain": 1})):
        with pytest.raises(ValidationError):
            post_roll(t, spec, [1] * 10)
    assert not Roll.objects.exists()


# --- the builder ------------------------------------------------------------------------------------


def _form(t: DryhRolls, data: dict[str, str], is_gm: bool = False) -> RollBuilderForm:
    characters = list(Character.objects.filter(pk__in=[t.alia.pk]))
    powers = RollPowers(gm_kinds=is_gm, secret_rolls=is_gm, secret_difficulty=is_gm, npc_dice=is_gm)
    return RollBuilderForm({f"roll-{k}": v for k, v in data.items()}, characters=characters, powers=powers)


def test_builder_roll_specs(dryh: DryhRolls) -> None:
    t = dryh
    form = _form(t, {"kind": ""})
    assert form.is_valid() and form.roll_specs() == []
    form = _form(t, {"kind": "leader", "character": str(t.alia.pk), "temp_madness": "2", "label": "Huir"})
    assert form.is_valid(), form.errors
    assert form.roll_specs() == [RollSpec("leader", {"temp_madness": 2}, t.alia.pk, "Huir", False)]
    form = _form(t, {"kind": "conflict", "character": str(t.alia.pk), "opponents": "2, 2", "minor_use": "on"}, True)
    assert form.is_valid(), form.errors
    assert form.roll_specs()[0].data == {"temp_madness": 0, "opponents": [2, 2], "talent_use": "minor"}
    player = _form(t, {"kind": ""})
    assert "gm_only" not in player.fields and {"pain", "opponents"}.isdisjoint(player.fields)
    kind: Any = player.fields["kind"]
    assert {k for k, _label in kind.choices} == {"", "leader", "helper"}
    form = _form(t, {"kind": "pain", "pain": "5", "gm_only": "on"}, is_gm=True)
    assert form.is_valid(), form.errors
    assert form.roll_specs() == [RollSpec("pain", {"pain": 5}, None, "", True)]


def test_builder_refuses_incomplete_rolls(dryh: DryhRolls) -> None:
    t = dryh
    assert not _form(t, {"kind": "leader"}).is_valid()
    assert not _form(t, {"kind": "conflict", "character": str(t.alia.pk)}, True).is_valid()
    assert not _form(t, {"kind": "conflict", "character": str(t.alia.pk), "opponents": "dos"}, True).is_valid()
    # A player can never set pain dice: the whole-conflict roll is not offered, and its pain never read.
    refused = _form(t, {"kind": "conflict", "character": str(t.alia.pk), "pain": "1"})
    assert not refused.is_valid() and "kind" in refused.errors
    assert not _form(t, {"kind": "leader", "character": str(t.alia.pk), "temp_madness": "7"}).is_valid()


# --- the conflict's fragment ------------------------------------------------------------------------


def test_fragment_shows_each_viewer_their_steps_and_never_sealed_dice(dryh: DryhRolls) -> None:
    t = dryh
    flow = t.opposed(3)
    flow = t.step(flow, t.gm, "roll_pain", dice=[6, 6, 2])
    player, gm, reader = Client(), Client(), Client()
    player.force_login(t.player)
    gm.force_login(t.gm)
    reader.force_login(t.reader)
    as_player = player.get(f"/flows/{flow.pk}/").content.decode()
    assert "tirada sellada" in as_player and "steps/roll_leader/" in as_player and "steps/roll_pain/" not in as_player
    assert "pool-pain" not in as_player  # the sealed dice are nowhere
    assert 'name="idempotency_key"' in as_player and 'hx-target="#flow-' in as_player
    as_gm = gm.get(f"/flows/{flow.pk}/").content.decode()
    assert "pool-pain" in as_gm and "steps/roll_leader/" not in as_gm
    as_reader = reader.get(f"/flows/{flow.pk}/").content.decode()
    assert "<form" not in as_reader
    response = player.post(f"/flows/{flow.pk}/steps/roll_leader/", {"temp_madness": "0", "idempotency_key": "x"})
    assert response.status_code == 302  # without htmx: back to the scene


def test_the_composer_preselects_the_only_protagonist_and_shows_each_kind_its_fields(dryh: DryhRolls) -> None:
    t = dryh
    player, gm = Client(), Client()
    player.force_login(t.player)
    gm.force_login(t.gm)
    page = player.get(f"/scenes/{t.scene.pk}/roll-builder/").content.decode()
    assert f'<option value="{t.alia.pk}" selected>' in page  # the player's only protagonist
    assert 'name="roll-pain"' not in page and 'name="roll-opponents"' not in page  # the GM's dice
    assert 'option[value="leader"]:checked) .for-leader' in page
    assert "field-temp_madness dryh-for for-leader for-conflict" not in page  # no whole conflict for a player
    assert "field-temp_madness dryh-for for-leader" in page and 'data-roll-kinds="leader"' in page
    assert "data-roll-builder" in page and "data-kind-field" in page
    assert "(id)" not in page
    as_gm = gm.get(f"/scenes/{t.scene.pk}/roll-builder/").content.decode()
    assert 'name="roll-pain"' in as_gm and "field-pain dryh-for for-pain for-conflict" in as_gm
    assert f'<option value="{t.alia.pk}" selected>' not in as_gm  # the GM's composer starts at no one
