"""Stunts by their words, in the choice and in the record (issue 28: a checkbox labelled «S1», a record that
never named the stunt, a total whose +2 nobody explained)."""

from __future__ import annotations

import pytest
from django.utils import translation

from rolls.services import RollSpec, create_post_with_rolls
from rulesets.fate_accelerated.builder import RollBuilderForm
from rulesets.fate_accelerated.tests.roll_fixtures import FaeScene, build_scene, fate

pytestmark = pytest.mark.django_db

CHARLATANA_ES = (
    "Debido a que soy una charlatana de primera, +2 para Crear una ventaja de modo Furtivo cuando converso con alguien"
)


@pytest.fixture
def fae(db: None) -> FaeScene:
    return build_scene()


def test_the_record_names_the_stunt_that_gave_the_bonus(fae: FaeScene) -> None:
    spec = RollSpec(
        kind="create_advantage",
        data={"approach": "sneaky", "difficulty": 2, "stunts": ["S1"]},
        character_id=fae.ana.pk,
    )
    post = create_post_with_rolls(author=fae.player, scene=fae.scene, body="Charlo.", rolls=[spec], dice=fate("0000"))
    roll = post.rolls.get()
    assert f"Proeza +2: {CHARLATANA_ES}" in roll.summary_es
    assert "Stunt +2: Because soy una charlatana de primera, +2 to Create an advantage" in roll.summary_en
    assert "S1" not in roll.summary_es + roll.summary_en


def test_the_builder_offers_the_stunt_by_its_words(fae: FaeScene) -> None:
    with translation.override("es"):
        form = RollBuilderForm(characters=[fae.ana])
        labels = [label for _value, label in form.fields["stunts"].choices]  # type: ignore[attr-defined]
    assert labels == [f"{fae.ana.name} · {CHARLATANA_ES}"]


def test_the_builders_help_names_a_control_the_scene_has(fae: FaeScene) -> None:
    """Issue 28: the builder sent players to «Procedimientos», a control no page has."""
    from django.template.loader import get_template, render_to_string

    with translation.override("es"):
        help_text = render_to_string("fate_accelerated/builder.html", {"form": RollBuilderForm(characters=[fae.ana])})
    named = help_text.split("desde «")[1].split("»")[0]
    start = get_template("fate_accelerated/flows/_start.html").template.source  # type: ignore[attr-defined]
    assert f'<summary>{{% translate "{named}" %}}</summary>' in start
