"""No te Duermas: the sheet and chest fragments read like the paper sheet, for a fresh and a battered PC."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.template.loader import render_to_string

from campaigns import policy
from characters import selectors, services
from characters.models import Character
from rulesets.dont_rest_your_head.sheet import BINDING
from rulesets.dont_rest_your_head.tests.sheet_fixtures import URLCONF, DryhTable, build_dryh_table

pytestmark = pytest.mark.urls(URLCONF)


@pytest.fixture
def dryh(db: None) -> DryhTable:
    return build_dryh_table()


def visible(markup: str) -> str:
    """The text a reader sees: no tags, no styles, spaces collapsed."""
    markup = re.sub(r"<style.*?</style>", " ", markup, flags=re.S)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", markup))).strip()


def render_sheet(dryh: DryhTable, character: Character, user: Any, error: str | None = None) -> str:
    character.refresh_from_db()
    viewer = policy.viewer_for(user, dryh.campaign)
    owner_ops, gm_ops = selectors.operation_keys(dryh.campaign, viewer, character)
    return render_to_string(
        "dont_rest_your_head/sheet.html",
        {
            "character": character,
            "sheet": character.sheet,
            "campaign": dryh.campaign,
            "viewer": viewer,
            "owner_ops": owner_ops,
            "gm_ops": gm_ops,
            "operation_error": error,
            "settings": services.campaign_settings(dryh.campaign),
        },
    )


def render_pools(dryh: DryhTable, user: Any, error: str | None = None) -> str:
    viewer = policy.viewer_for(user, dryh.campaign)
    _owner_ops, gm_ops = selectors.operation_keys(dryh.campaign, viewer, None)
    state = services.rules_state(dryh.campaign)
    return render_to_string(
        "dont_rest_your_head/pools.html",
        {
            "campaign": dryh.campaign,
            "state": state,
            "pools": BINDING.pool_values(state, {}),
            "viewer": viewer,
            "gm_ops": gm_ops,
            "operation_error": error,
        },
    )


def test_a_fresh_protagonist_reads_like_the_paper_sheet(dryh: DryhTable) -> None:
    alia = dryh.approved()
    text = visible(render_sheet(dryh, alia, dryh.player))
    for expected in (
        "Estado: Despierto",
        "Disciplina 3 de 3",
        "3 dados blancos",
        "Agotamiento 0",
        "0 dados negros",
        "Locura permanente 0",
        "Lucha 0 de 3 marcadas",
        "Huida 0 de 3 marcadas",
        "Talento de agotamiento Vista de Lince",
        "Ve en la oscuridad y a lo lejos.",
        "Talento de locura Piel de Piedra",
        "Precio: al menos 3 dados de locura temporal",
        "Sin cicatrices.",
        "¿Qué te ha mantenido despierto? Los gritos del piso de arriba, cada noche a las tres.",
        "¿Cuál es tu camino? Encontrar a su hija en la Ciudad de la Locura.",
    ):
        assert expected in text, expected
    assert "✕" not in text  # no box checked
    assert "Acciones del DJ" not in text  # the player applies nothing here: the GM confirms


def test_a_battered_protagonist_shows_every_mark(dryh: DryhTable) -> None:
    scars = [
        {"text": "No pude encontrar a mi hija", "created_session": 1, "invoked_this_session": True},
        {"text": "El cartero sin sombra", "created_session": 2, "crossed_out": True},
    ]
    swap = {"kind": "madness", "replacement": {"name": "Fuego frío"}, "scope": "scene", "scene_id": "s1"}
    alia = dryh.approved(
        exhaustion=7,
        status="crash_pending",
        fight=3,
        flight=1,
        discipline=2,
        permanent_madness=1,
        scars=scars,
        talent_swaps=[swap],
        snap_episode=True,
    )
    text = visible(render_sheet(dryh, alia, dryh.gm))
    for expected in (
        "A punto de colapsar",
        "Ha estallado",
        "Disciplina 2 de 3",
        "Agotamiento 7",
        "Locura permanente 1",
        "Lucha ✕ ✕ ✕ 3 de 3 marcadas",
        "Huida ✕ 1 de 3 marcadas",
        "No pude encontrar a mi hija invocada esta sesión",
        "El cartero sin sombra tachada",
        "Talento de locura cambiado por Fuego frío (esta escena)",
        "Acciones del DJ",
        "Tomarse un respiro",
        "Recuperar disciplina",
        "Cuesta 5 − disciplina monedas de esperanza: 3",
        "Colapsar (dormirse)",
        "Colapso: desastre en lugar de sueño",
        "Fin de escena",
    ):
        assert expected in text, expected
    assert text.count("✕") == 7 + 3 + 1  # six exhaustion boxes and the crash box, three fight, one flight
    assert "Despertar" not in text


def test_the_sheet_controls_post_to_the_operation_in_place(dryh: DryhTable) -> None:
    alia = dryh.approved(exhaustion=2)
    markup = render_sheet(dryh, alia, dryh.gm, error="No hay suficientes monedas en el cofre de esperanza.")
    assert f'hx-post="/c/{alia.pk}/operations/take_breather/"' in markup
    assert f'action="/c/{alia.pk}/operations/take_breather/"' in markup
    assert 'hx-target="#sheet"' in markup
    assert "No hay suficientes monedas en el cofre de esperanza." in visible(markup)


def test_sleep_and_recovery_controls_follow_the_status(dryh: DryhTable) -> None:
    alia = dryh.approved(status="asleep", discipline_restore_to=3)
    text = visible(render_sheet(dryh, alia, dryh.gm))
    assert "Dormido" in text and "Despertar" in text and "Talentos no disponibles" in text
    Character.objects.filter(pk=alia.pk).update(sheet={**alia.sheet, "status": "recovering", "discipline": 1})
    text = visible(render_sheet(dryh, alia, dryh.gm))
    assert "Recuperándose" in text and "Recuperación completa" in text
    assert "vuelve a 3 al recuperarse" in text


def test_an_opposition_npc_shows_its_pain(dryh: DryhTable) -> None:
    npc = services.create_character(
        actor=dryh.gm, campaign=dryh.campaign, name="Dragón", is_npc=True, sheet={"pain": 10}
    )
    text = visible(render_sheet(dryh, npc, dryh.gm))
    assert "Puntuación de dolor 10" in text
    assert "Disciplina" not in text


def test_the_chests_fresh(dryh: DryhTable) -> None:
    text = visible(render_pools(dryh, dryh.gm))
    assert "Aún no se ha abierto ninguna sesión." in text
    assert "Cofre de desesperación 0 monedas" in text
    assert "Cofre de esperanza 0 monedas" in text
    assert "Abrir sesión" in text
    assert "Cerrar sesión" not in text


def test_the_chests_in_play(dryh: DryhTable) -> None:
    dryh.set_chest(despair=1, hope=3, session_number=2, session_open=True, despair_spent=2)
    gm_markup = render_pools(dryh, dryh.gm, error="Hay que resolver o anular todos los conflictos.")
    text = visible(gm_markup)
    assert "Sesión 2 en juego." in text
    assert "Cofre de desesperación 1 moneda" in text
    assert "Cofre de esperanza 3 monedas" in text
    assert "2 pendientes" in text
    assert "Cerrar sesión (reparto de esperanza)" in text
    assert "Hay que resolver o anular todos los conflictos." in text
    assert gm_markup.count('class="dryh-coin"') == 4 and gm_markup.count("dryh-coin pending") == 2
    assert f'href="/campaigns/{dryh.campaign.pk}/no-te-duermas/cerrar-sesion/"' in gm_markup  # a page, not JSON
    player_text = visible(render_pools(dryh, dryh.player))
    assert "Cofre de esperanza 3 monedas" in player_text  # the chests are public
    assert "Cerrar sesión" not in player_text and "Abrir sesión" not in player_text
