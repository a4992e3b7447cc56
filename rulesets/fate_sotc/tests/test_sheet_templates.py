"""FATE SotC: the sheet and pools fragments read like the paper sheet, and the controls work in place."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.template.loader import render_to_string
from django.test import Client
from django.urls import reverse
from django.utils.html import strip_tags

from campaigns import policy
from characters import selectors, services
from characters.models import Character
from rulesets.fate_sotc.sheet_form import SheetForm
from rulesets.fate_sotc.tests.sheet_fixtures import (
    SotcTable,
    build_sotc_table,
    op,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def sotc(db: None) -> SotcTable:
    return build_sotc_table()


def _context(table: SotcTable, user: Any, character: Character, error: str | None = None) -> dict[str, Any]:
    character.refresh_from_db()
    viewer = policy.viewer_for(user, table.campaign)
    owner_ops, gm_ops = selectors.operation_keys(table.campaign, viewer, character)
    return {
        "character": character,
        "sheet": character.sheet,
        "campaign": table.campaign,
        "viewer": viewer,
        "owner_ops": owner_ops,
        "gm_ops": gm_ops,
        "operation_error": error,
        "settings": services.campaign_settings(table.campaign),
    }


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", strip_tags(html))


def _render(table: SotcTable, user: Any, character: Character) -> str:
    return render_to_string("fate_sotc/sheet.html", _context(table, user, character))


def test_a_fresh_sheet_reads_like_the_paper_sheet(sotc: SotcTable) -> None:
    text = _text(_render(sotc, sotc.player, sotc.hero))
    assert "10 puntos de Destino" in text and "Recuperación: 10" in text
    assert "As del aire de la Gran Guerra" in text
    assert "Puntería: Excelente (+5)" in text
    assert "Piloto: Grande (+4)" in text
    assert "Vigor: Bueno (+3)" in text
    assert "Educación: Bueno (+3)" in text
    assert "Engañar: Normal (+1)" in text
    assert "Mediocre (+0)" in text  # the note on unlisted skills
    assert "Tiro imposible" in text and "Cuesta 1 PD" in text
    assert "Salud (7 casillas, según Vigor)" in text
    assert "Serenidad (6 casillas, según Coraje)" in text
    assert "marcada" not in text.replace("marcadas", "")
    assert text.count("libre") >= 7 + 6 + 3  # every box and every consequence slot is free
    assert "Leve" in text and "Moderada" in text and "Severa" in text
    # The owner's controls, and none of the GM's.
    assert "Ganar una ventaja (+1)" in text and "Recibir estrés" in text and "Activar" in text
    assert "Recuperar los puntos de Destino" not in text and "Forzado accidental" not in text
    assert "Exigir otra derrota" not in text  # only once taken out


def test_a_battered_sheet_shows_every_mark(sotc: SotcTable) -> None:
    op(sotc, sotc.player, sotc.hero, "take_hit", track="health", hit=2)
    op(sotc, sotc.player, sotc.hero, "take_hit", track="health", hit=5)
    op(sotc, sotc.player, sotc.hero, "take_hit", track="composure", hit=1)
    op(sotc, sotc.player, sotc.hero, "take_hit", track="health", hit=9, consequence_text="Costillas rotas")
    op(sotc, sotc.player, sotc.hero, "take_hit", track="composure", hit=9, consequence_text="Pánico a las alturas")
    op(sotc, sotc.gm, sotc.hero, "start_session", back_to_back=True, refresh=False)  # leve goes, moderada steps down
    op(sotc, sotc.player, sotc.hero, "fp_advantage")
    op(sotc, sotc.gm, sotc.hero, "tag_compensation")
    op(sotc, sotc.gm, sotc.hero, "set_status", status="taken_out")
    aspect = {"id": "t1", "text": "Cegado", "persistence": "fragile"}
    op(sotc, sotc.gm, sotc.hero, "add_temporary_aspect", aspect=aspect)
    text = _text(_render(sotc, sotc.player, sotc.hero))
    assert "9 puntos de Destino" in text and "Pendientes hasta el final del asalto: 1" in text
    assert "Derrotado" in text
    assert "2 casillas marcadas" in text and "1 casilla marcada" in text
    assert text.count("marcada") - text.count("marcadas") == 3 + 1  # 3 marked boxes + the "1 casilla marcada"
    assert "Pánico a las alturas" in text and "se recupera como Leve" in text
    assert "Costillas rotas" not in text  # healed at the back-to-back session start
    assert "Cegado" in text and "efímero" in text
    assert "Exigir otra derrota" in text


def test_the_gm_sees_the_gm_controls(sotc: SotcTable) -> None:
    op(sotc, sotc.player, sotc.hero, "take_hit", track="health", hit=9, consequence_text="Costillas rotas")
    text = _text(_render(sotc, sotc.gm, sotc.hero))
    for label in (
        "Recuperar los puntos de Destino",
        "Aceptar un forzado",
        "Invocar un aspecto propio",
        "Cerrar la escena",
        "Empezar la sesión",
        "Registrar un descanso",
        "Cambiar una habilidad",
        "Quitar",
    ):
        assert label in text, label


def test_a_draft_shows_the_creation_warnings_to_the_gm(sotc: SotcTable) -> None:
    draft = services.create_character(
        actor=sotc.player, campaign=sotc.campaign, name="A medias", sheet={"skills": {"guns": 3}}
    )
    text = _text(_render(sotc, sotc.gm, draft))
    assert "Puntería: Bueno (+3)" in text
    assert "El número de aspectos no es el de la campaña." in text
    assert "Recibir estrés" not in text  # no operations before approval


def test_an_npc_sheet(sotc: SotcTable) -> None:
    text = _text(_render(sotc, sotc.gm, sotc.npc))
    assert "PNJ" in text and "Tenacidad 2" in text
    assert "Engañar: Pobre (-1)" in text and "Armas: Excelente (+5)" in text
    assert "3 puntos de Destino" in text


def test_the_pools_fragment_is_empty() -> None:
    html = render_to_string(
        "fate_sotc/pools.html",
        {"campaign": None, "state": {}, "pools": {}, "viewer": None, "gm_ops": set(), "operation_error": None},
    )
    assert html.strip() == ""


def test_the_sheet_form_fragment_renders(sotc: SotcTable) -> None:
    form = SheetForm(sheet=sotc.hero.sheet, settings=services.campaign_settings(sotc.campaign))
    text = _text(render_to_string("fate_sotc/sheet_form.html", {"form": form}))
    assert "Aspectos" in text and "Habilidades" in text and "Virtudes" in text
    assert "1 × Excelente (+5)" in text and "Tiro imposible" in text


def test_operations_in_place_with_htmx_and_without(sotc: SotcTable) -> None:
    client = Client()
    client.force_login(sotc.player)
    url = reverse("characters:operate", args=[sotc.hero.pk, "take_hit"])
    response = client.post(
        url, {"track": "health", "hit": "3", "consequence_text": "", "reason": "Bala"}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200
    text = _text(response.content.decode())
    assert "1 casilla marcada" in text and "Puntería: Excelente (+5)" in text
    response = client.post(url, {"track": "health", "hit": "9"}, HTTP_HX_REQUEST="true")
    assert "consecuencia" in _text(response.content.decode()).lower()  # the rule's message, nothing changed
    sotc.hero.refresh_from_db()
    assert sotc.hero.sheet["consequences"] == []
    response = client.post(reverse("characters:operate", args=[sotc.hero.pk, "fp_advantage"]), {"amount": "1"})
    assert response.status_code == 302  # without JS: normal POST + redirect
    sotc.hero.refresh_from_db()
    assert sotc.hero.sheet["fate_points"] == 9


def test_the_gm_writes_a_temporary_aspect_from_the_sheet(sotc: SotcTable) -> None:
    """Issue 10: adding a temporary aspect has a form (its words, fragile or sticky), the GM's alone."""
    assert "sotc-place-aspect" not in _render(sotc, sotc.player, sotc.hero)
    assert "sotc-place-aspect" in _render(sotc, sotc.gm, sotc.hero)
    client = Client()
    client.force_login(sotc.gm)
    url = f"/characters/{sotc.hero.pk}/operations/place_temporary_aspect/"
    client.post(url, {"text": "Cegada por el humo", "sticky": "true"})
    client.post(url, {"text": "Empapada"})
    sotc.hero.refresh_from_db()
    placed = [(a["id"], a["text"], a["persistence"]) for a in sotc.hero.sheet["temporary_aspects"]]
    assert placed == [("temporal-1", "Cegada por el humo", "sticky"), ("temporal-2", "Empapada", "fragile")]
    text = _text(_render(sotc, sotc.player, sotc.hero))
    assert "Cegada por el humo (duradero)" in text and "Empapada (efímero)" in text
    player = Client()
    player.force_login(sotc.player)
    player.post(url, {"text": "Invencible"})
    sotc.hero.refresh_from_db()
    assert len(sotc.hero.sheet["temporary_aspects"]) == 2  # a player cannot write aspects on a sheet
