"""Fate Accelerated fragments: the sheet and the campaign pools render what a player must see."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import pytest
from django.template.loader import render_to_string
from django.utils import translation

from campaigns import policy
from characters import services
from characters.models import Character
from rulesets import registry
from rulesets.fate_accelerated.sheet import _GM_OPS, _OWNER_OPS
from rulesets.fate_accelerated.tests.sheet_fixtures import FaeTable, build_fae, operation_urls

pytestmark = pytest.mark.django_db


@pytest.fixture
def fae(db: None) -> FaeTable:
    return build_fae(rules_settings={"gm_fate_point_pool": True})


def text(html: str) -> str:
    """The visible text, whitespace collapsed."""
    html = re.sub(r"<(style|script)\b.*?</\1>", " ", html, flags=re.S)
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html))).strip()


def render_sheet(t: FaeTable, character: Character, viewer_user: Any, error: str | None = None) -> str:
    character.refresh_from_db()
    viewer = policy.viewer_for(viewer_user, t.campaign)
    is_owner = character.owner_id == viewer_user.pk
    with translation.override("es"), operation_urls():
        return render_to_string(
            "fate_accelerated/sheet.html",
            {
                "character": character,
                "sheet": character.sheet,
                "campaign": t.campaign,
                "viewer": viewer,
                # as the pages split them: ops the ruleset leaves to owners, and the GMs' own
                "owner_ops": set(_OWNER_OPS) if is_owner or viewer.is_gm else set(),
                "gm_ops": set(_GM_OPS) if viewer.is_gm else set(),
                "operation_error": error,
                "settings": services.campaign_settings(t.campaign),
            },
        )


def render_pools(t: FaeTable, viewer_user: Any, error: str | None = None) -> str:
    viewer = policy.viewer_for(viewer_user, t.campaign)
    state = services.rules_state(t.campaign)
    with translation.override("es"), operation_urls():
        return render_to_string(
            "fate_accelerated/pools.html",
            {
                "campaign": t.campaign,
                "state": state,
                "pools": registry.plugin("fate-accelerated").sheet.pool_values(state, {}),
                "viewer": viewer,
                "gm_ops": set(_GM_OPS) if viewer.is_gm else set(),
                "operation_error": error,
            },
        )


def op(t: FaeTable, actor: Any, operation: str, character: Character | None = None, /, **params: Any) -> None:
    services.apply_operation(actor=actor, campaign=t.campaign, operation=operation, params=params, character=character)


def test_fresh_sheet_reads_like_the_paper_sheet(fae: FaeTable) -> None:
    html = render_sheet(fae, fae.ana, fae.player)
    shown = text(html)
    for expected in (
        "Ana",
        "Concepto principal Espía de la Corona",
        "Complicación Debo proteger a mi hermano",
        "Atenta a los detalles",
        "Furtivo Grande (+3)",  # ladder adjective with its number (§6.7.3)
        "Ingenioso Bueno (+2)",
        "Cauto Normal (+1)",
        "Llamativo Mediocre (+0)",
        "recibo un +2 para Crear una ventaja de modo Furtivo cuando converso con alguien",
        "una vez por partida puedo actuar la primera en un conflicto físico",
        "Recuperación (puntos de destino): 3",
        "Casilla 1: libre",
        "Casilla 3: libre",
        "Consecuencia leve : libre",
        "Consecuencia grave : libre",
    ):
        assert expected in shown, expected
    assert html.count('class="fae-coin"') == 3  # three fate points drawn as coins
    assert "tachada" not in shown
    # the owner's controls are there, the GM's are not
    assert "Gastar punto de destino" in shown and "Rendirse" in shown
    assert "Ganar punto de destino" not in shown and "Fin de escena" not in shown
    assert 'hx-target="#sheet"' in html


def test_battered_sheet_shows_marks_consequences_and_status(fae: FaeTable) -> None:
    op(fae, fae.player, "spend_fate_point", fae.ana, amount=2)
    op(
        fae,
        fae.player,
        "absorb_hit",
        fae.ana,
        owner="a",
        attacker="gm",
        shifts=4,
        box=2,
        slots=["mild"],
        texts={"mild": "Torcedura en el tobillo"},
    )
    op(
        fae,
        fae.player,
        "absorb_hit",
        fae.ana,
        owner="a",
        attacker="gm",
        shifts=7,
        box=3,
        slots=["moderate"],
        texts={"moderate": "Fractura dolorosa"},
    )
    op(fae, fae.player, "take_out", fae.ana)
    html = render_sheet(fae, fae.ana, fae.player, error="El personaje no tiene puntos de destino suficientes.")
    shown = text(html)
    for expected in (
        "El personaje no tiene puntos de destino suficientes.",
        "Derrotado",
        "Casilla 1: libre",
        "Casilla 2: tachada",
        "Casilla 3: tachada",
        "Consecuencia leve : Torcedura en el tobillo",
        "Consecuencia moderada : Fractura dolorosa",
        "1 invocación gratuita",
        "Consecuencia grave : libre",
    ):
        assert expected in shown, expected
    assert html.count('class="fae-coin"') == 1
    # moderate consequences may be renamed, mild ones not; taken out: no concession
    assert shown.count("Cambiar el nombre") == 1
    assert "Rendirse" not in shown


def test_gm_sees_gm_controls(fae: FaeTable) -> None:
    op(fae, fae.gm, "absorb_hit", fae.ana, owner="a", attacker="gm", shifts=2, slots=["mild"], texts={"mild": "Corte"})
    shown = text(render_sheet(fae, fae.ana, fae.gm))
    for control in (
        "Ganar punto de destino",
        "Aceptar un forzado",
        "Fin de escena",
        "Inicio de sesión",
        "Recuperarse de consecuencias",
    ):
        assert control in shown, control


def test_reader_sees_no_controls_and_npc_hidden_aspects_stay_with_the_gm(fae: FaeTable) -> None:
    shown = text(render_sheet(fae, fae.ana, fae.reader))
    assert "Gastar punto de destino" not in shown and "Absorber" not in shown
    fae.bruno.sheet = {
        **fae.bruno.sheet,
        "other_aspects": [{"text": "Le deben dinero", "hidden": True, "known_by": []}],
    }
    fae.bruno.save()
    assert "Le deben dinero" in text(render_sheet(fae, fae.bruno, fae.gm))
    assert "Le deben dinero" not in text(render_sheet(fae, fae.bruno, fae.reader))


def test_draft_sheet_renders_without_controls(fae: FaeTable) -> None:
    draft = services.create_character(
        actor=fae.player, campaign=fae.campaign, name="Eva", sheet={"high_concept": "Médica"}
    )
    shown = text(render_sheet(fae, draft, fae.player))
    assert "Médica" in shown and "Gastar punto de destino" not in shown
    assert "Casilla 3: libre" in shown and "Consecuencia grave : libre" in shown


def test_pools_fragment(fae: FaeTable) -> None:
    shown = text(render_pools(fae, fae.player))
    assert "Puntos de destino del DJ" in shown and "0 puntos de destino" in shown
    assert "El DJ gasta" not in shown
    op(fae, fae.gm, "gm_pool_scene_start", pcs_in_scene=2, carried_in=0)
    html = render_pools(fae, fae.gm)
    shown = text(html)
    assert "2 puntos de destino" in shown and html.count('class="fae-coin"') == 2
    assert "El DJ gasta un punto de destino" in shown and 'hx-target="#pools"' in html
    assert "Toda la mesa" in shown and "Fin de escena" in shown


def test_pools_fragment_without_a_gm_pool(db: None) -> None:
    t = build_fae(prefix="faen_")
    shown = text(render_pools(t, t.gm))
    assert "ilimitados" in shown and "El DJ gasta" not in shown
