"""The scene page of a SotC campaign as the GM and a player see it: the procedures' forms are pickers in
words (no "(id)" field, no internal key in the visible text), open procedures offer their steps."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.utils.html import strip_tags

from rulesets.fate_sotc.tests.scene_fixtures import ZERO, SotcScene, build_scene, start, step

pytestmark = pytest.mark.django_db

INTERNALS = re.compile(r"\(id\)|\b(fists|athletics|guns|pilot|invoke_requested|window_closed|None|False|True)\b")


@pytest.fixture
def s(db: None) -> SotcScene:
    return build_scene(prefix="psotc_")


def page(user: object, url: str) -> str:
    client = Client()
    client.force_login(user)  # type: ignore[arg-type]
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


def visible(html: str) -> str:
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    return re.sub(r"\s+", " ", strip_tags(html))


def test_the_scene_page_offers_pickers_in_words_to_gm_and_player(s: SotcScene) -> None:
    attack = start(
        s.t.player, s.scene, "attack", dice=ZERO + ZERO,
        attacker=s.t.hero.pk, skill="Puntería", defender=s.t.rival.pk, defense_skill="Atletismo",
    )  # fmt: skip
    step(s.gm, attack, "close")
    flows = f"/scenes/{s.scene.pk}/flows/"
    for user in (s.gm, s.t.player, s.t.player2):
        html = page(user, flows)
        text = visible(html)
        assert not INTERNALS.search(text), INTERNALS.search(text)
        assert 'name="attacker"' not in html or '<select name="attacker"' in html
        assert not re.search(r'<input[^>]+type="number"[^>]+name="(attacker|defender|character|roll)"', html)
    gm = visible(page(s.gm, flows))
    player2 = page(s.t.player2, flows)
    assert "Forzar un aspecto" in gm and "Forzar un aspecto" not in visible(page(s.t.player, flows))
    assert "step-absorb" in player2 and "Marcar una casilla de estrés" in visible(player2)
    thread = visible(page(s.t.player, s.scene.get_absolute_url()))
    assert "Sally Slick ataca a Jet Black con Puntería (Salud)" in thread


def test_an_english_page_shows_the_procedure_in_english(s: SotcScene) -> None:
    from django.conf import settings

    start(
        s.t.player, s.scene, "attack", dice=ZERO + ZERO,
        attacker=s.t.hero.pk, skill="Puntería", defender=s.t.rival.pk, defense_skill="Atletismo",
    )  # fmt: skip
    client = Client()
    client.force_login(s.t.player)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    text = visible(client.get(f"/scenes/{s.scene.pk}/flows/").content.decode())
    assert "Attack" in text and "Invoke an aspect" in text
    assert "Sally Slick attacks Jet Black with Guns (Health); Jet Black defends with Athletics" in text
    assert not INTERNALS.search(text), INTERNALS.search(text)
