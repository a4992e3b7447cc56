"""Kept roll fragments (issue 12): a thread page renders each roll's shared part once, and never puts the
secret difficulty in it: a player after the GM sees the same dice and never the number."""

from __future__ import annotations

import pytest

from rolls import roll_fragments
from rolls.models import Roll, RollReveal
from tests.personas import Table
from tests.rolls.test_views_rolls import SECRET_NUMBER, client_for, roll_post, scene_page, secret_difficulty_roll

pytestmark = pytest.mark.django_db


def test_a_second_view_renders_no_roll_again(table: Table, fragment_renders: list[str]) -> None:
    roll_post(table.player, table.scene, "3d6kh2", [6, 1, 4])
    rendered = fragment_renders
    first = scene_page(client_for(table.reader), table)
    assert rendered.count(roll_fragments.SHARED_TEMPLATE) == 1
    rendered.clear()
    second = scene_page(client_for(table.player2), table)
    assert roll_fragments.SHARED_TEMPLATE not in rendered
    for html in (first, second):
        assert "pool-d6 face-1 pips dropped" in html and "pool-d6 face-6 pips" in html
        assert "<!--tintero:" not in html


def test_the_secret_difficulty_never_reaches_a_player_through_a_kept_roll(table: Table) -> None:
    roll = secret_difficulty_roll(table)
    gm_page = scene_page(client_for(table.gm), table)  # the GM renders and keeps it first
    assert str(SECRET_NUMBER) in gm_page and "Dificultad secreta" in gm_page
    for user in (table.player, table.reader, None):
        html = scene_page(client_for(user), table)
        assert "Éxito" in html and str(SECRET_NUMBER) not in html and "Dificultad secreta" not in html
    RollReveal.objects.create(roll=roll, revealed_by=table.gm, include_secret=True)
    assert str(SECRET_NUMBER) in scene_page(client_for(table.player), table)
    assert "Dificultad secreta" not in scene_page(client_for(table.gm), table)  # revealed: no longer a secret


def test_a_revealed_secret_roll_shows_as_revealed_at_once(table: Table) -> None:
    post = roll_post(table.gm, table.scene, "1d20", [17], gm_only=True, label="Emboscada")
    roll = Roll.objects.get(post=post)
    assert "Tirada secreta" in scene_page(client_for(table.gm), table)
    RollReveal.objects.create(roll=roll, revealed_by=table.gm)
    html = scene_page(client_for(table.gm), table)
    assert "Secreta, revelada" in html and "Tirada secreta" not in html
    assert "Secreta, revelada" in scene_page(client_for(table.player), table)
