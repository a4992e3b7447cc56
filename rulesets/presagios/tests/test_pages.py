"""Presagios sheet, pools and creation form: what a player and a GM read on the page."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.template.loader import render_to_string
from django.test import Client
from django.urls import reverse
from django.utils import translation
from django.utils.html import strip_tags

from accounts.models import User
from campaigns import policy
from campaigns.models import Campaign
from characters import selectors, services
from characters.models import Character
from characters.views import pools_context
from rulesets.presagios.sheet_form import SheetForm
from rulesets.presagios.tests.fixtures import PresagiosTable, build_presagios, pc_sheet
from tests.personas import PASSWORD


@pytest.fixture
def pt(db: None) -> PresagiosTable:
    return build_presagios()


def text(html: str) -> str:
    html = re.sub(r"<style>.*?</style>", "", html, flags=re.S)
    return re.sub(r"\s+", " ", strip_tags(html)).strip()


def op(
    pt: PresagiosTable, actor: User, operation: str, params: dict[str, Any], character: Character | None = None
) -> None:
    services.apply_operation(actor=actor, campaign=pt.campaign, operation=operation, params=params, character=character)


def render_sheet(character: Character, user: User, error: str | None = None) -> str:
    character.refresh_from_db()
    campaign = Campaign.objects.get(pk=character.campaign_id)
    viewer = policy.viewer_for(user, campaign)
    owner_ops, gm_ops = selectors.operation_keys(campaign, viewer, character)
    context = {
        "character": character,
        "sheet": character.sheet,
        "campaign": campaign,
        "viewer": viewer,
        "owner_ops": owner_ops,
        "gm_ops": gm_ops,
        "operation_error": error,
        "settings": services.campaign_settings(campaign),
    }
    return render_to_string("presagios/sheet.html", context)


def render_pools(campaign: Campaign, user: User) -> str:
    campaign.refresh_from_db()
    viewer = policy.viewer_for(user, campaign)
    state = services.rules_state(campaign)
    context = {
        "campaign": campaign,
        "state": state,
        "pools": selectors.campaign_pools(campaign, viewer).pools,
        "viewer": viewer,
        "gm_ops": {"set_threat", "confirm_threat_gain", "spend_threat", "declare_danger", "omen_check"}
        if viewer.is_gm
        else set(),
        "operation_error": None,
    }
    return render_to_string("presagios/pools.html", context)


# --- the sheet ---------------------------------------------------------------------------------------


def test_fresh_sheet_reads_like_the_paper_one(pt: PresagiosTable) -> None:
    html = render_sheet(pt.lucia, pt.player)
    page = text(html)
    for expected in (
        "Lucía",
        "Personaje principal",
        "Concepto: Médium sin licencia",
        "Acción 4/4",
        "Interacción 3/3",
        "Cognición 2/2",
        "Tiras 4 dados",
        "Pelear +3",
        "Ver a los muertos +1 sobrenatural",
        "Sobrevivió al incendio del orfanato",
        "Oye voces que no callan",
        "Puntos de superación: 5",
        "Protección de guión: activa",
    ):
        assert expected in page, expected
    assert html.count("⚅") == 9  # one die per point of current rating
    assert "☒" not in html
    assert html.count("●") == 5  # overcome points as coins
    # the player's own controls, not the GM's
    assert "Gastar 1 punto de superación en" in page
    assert "Marcar daño" in page
    assert "Interpretación destacada" not in page
    assert "El director activa" not in page
    assert f'hx-post="/characters/{pt.lucia.pk}/operations/spend_overcome/"' in html


def test_battered_sheet_shows_damage_and_status(pt: PresagiosTable) -> None:
    op(pt, pt.gm, "set_threat", {"value": 9})
    op(pt, pt.gm, "apply_damage", {"character_id": str(pt.lucia.pk), "characteristic": "c2", "amount": 2}, pt.lucia)
    op(pt, pt.gm, "apply_damage", {"character_id": str(pt.lucia.pk), "characteristic": "c3", "amount": 4}, pt.lucia)
    op(pt, pt.gm, "lock_challenge", {"character_id": str(pt.lucia.pk), "challenge_id": "la-puerta"}, pt.lucia)
    for _ in range(3):
        op(pt, pt.player, "spend_overcome", {"character_id": str(pt.lucia.pk), "use": "hurry"}, pt.lucia)
    html = render_sheet(pt.lucia, pt.gm)
    page = text(html)
    for expected in (
        "Fuera de la historia",
        "Interacción 1/3",
        "dañado socialmente",
        "Cognición -2/2",
        "Puntos de superación: 2",
        "Protección de guión: inactiva",
        "Retos fallidos (solo se repiten pagando un punto): 1",
        "Interpretación destacada",
        "El director activa una cualidad de Lucía",
    ):
        assert expected in page, expected
    assert html.count("☒") == 4  # two lost points of Interacción, two of Cognición
    assert html.count("●") == 2


def test_npc_sheets_show_threat_controls_to_the_gm(pt: PresagiosTable) -> None:
    page = text(render_sheet(pt.cosa, pt.gm))
    assert "Monstruo" in page
    assert "Debilidades La luz del sol" in page
    assert "Puntos de superación" not in page
    assert "Gastar 1 punto de amenaza por La Cosa" in page
    assert "Proteger al monstruo" in page
    assert "Interpretación destacada" not in page


def test_hidden_threat_hides_the_protection_state_from_players(pt: PresagiosTable) -> None:
    Campaign.objects.filter(pk=pt.campaign.pk).update(rules_settings={"threat_visibility": "gm_only"})
    assert "Protección de guión:" not in text(render_sheet(pt.lucia, pt.player))
    assert "Protección de guión: activa" in text(render_sheet(pt.lucia, pt.gm))


def test_draft_sheet_renders_without_controls(pt: PresagiosTable) -> None:
    draft = services.create_character(actor=pt.player, campaign=pt.campaign, name="Marta", sheet={"concept": "Nadie"})
    page = text(render_sheet(draft, pt.player))
    assert "Concepto: Nadie" in page
    assert "Todavía no se han repartido las características." in page
    assert "Gastar" not in page


# --- the pools -----------------------------------------------------------------------------------------


def test_fresh_pools(pt: PresagiosTable) -> None:
    page = text(render_pools(pt.campaign, pt.player))
    assert "Amenaza 0" in page
    assert "Protección de guión: activa (amenaza menor de 8)" in page
    assert "Declarar peligroso: cuesta 1 punto de amenaza" in page
    assert "Fijar la amenaza inicial" not in page


def test_high_threat_pools_for_the_gm(pt: PresagiosTable) -> None:
    op(pt, pt.gm, "set_threat", {"value": 9})
    html = render_pools(pt.campaign, pt.gm)
    page = text(html)
    assert "Amenaza 9" in page
    assert "Protección de guión: inactiva (amenaza 8 o más)" in page
    assert "Declarar peligroso: gratis" in page
    assert html.count('class="ps-on') == 9
    for control in ("Fijar la amenaza inicial", "+1 amenaza", "−1 amenaza", "Comprobación de presagios"):
        assert control in page
    assert f'hx-post="/campaigns/{pt.campaign.pk}/pool-operations/set_threat/"' in html


def test_secret_threat_is_not_in_the_players_pools(pt: PresagiosTable) -> None:
    Campaign.objects.filter(pk=pt.campaign.pk).update(rules_settings={"threat_visibility": "gm_only"})
    op(pt, pt.gm, "set_threat", {"value": 7})
    pt.campaign.refresh_from_db()
    for who, shown in ((pt.player, False), (pt.gm, True)):
        # the page's own context: the policy decides whether the pools are included at all
        context = pools_context(pt.campaign, policy.viewer_for(who, pt.campaign))
        page = text(render_to_string("characters/_pools.html", context))
        assert ("Amenaza 7" in page) is shown and ("7" in page) is shown
    assert "la-puerta" not in text(render_sheet(pt.lucia, pt.player))


# --- the creation form ------------------------------------------------------------------------------


def test_creation_form_reads_like_the_paper_sheet() -> None:
    page = text(render_to_string("presagios/sheet_form.html", {"form": SheetForm(sheet=pc_sheet())}))
    for expected in ("Concepto", "Acción", "Interacción", "Cognición", "Rasgos", "Hito 1", "Complicación", "2 hitos"):
        assert expected in page, expected
    assert "reparte 9 puntos" in page


# --- through the pages ---------------------------------------------------------------------------------


def _client(user: User) -> Client:
    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    return client


def test_in_place_spend_and_refusal_through_htmx(pt: PresagiosTable) -> None:
    client = _client(pt.player)
    url = reverse("characters:operate", args=[pt.lucia.pk, "spend_overcome"])
    response = client.post(
        url, {"character_id": pt.lucia.pk, "use": "hurry", "reason": "corre"}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200
    assert "Puntos de superación: 4" in text(response.content.decode())
    response = client.post(url, {"character_id": pt.lucia.pk, "use": "retry"}, HTTP_HX_REQUEST="true")
    assert "Esto se hace desde la tirada" in text(response.content.decode())


def test_gm_activation_from_the_sheet_works_without_js(pt: PresagiosTable) -> None:
    op(pt, pt.gm, "set_threat", {"value": 2})
    client = _client(pt.gm)
    detail = reverse("characters:detail", args=[pt.lucia.pk])
    response = client.post(
        reverse("characters:operate_campaign", args=[pt.campaign.pk, "activate_quality"]),
        {
            "owner_id": pt.lucia.pk,
            "quality": "complication",
            "purpose": "new_element",
            "against_owner": "true",
            "next": detail,
        },
    )
    assert response.status_code == 302
    assert response["Location"] == detail
    pt.lucia.refresh_from_db()
    assert pt.lucia.sheet["overcome"] == 6
    assert services.rules_state(pt.campaign)["threat"] == 1
    page = client.get(detail)
    assert "Puntos de superación: 6" in text(page.content.decode())


def test_english_pages_name_the_characteristics_in_english(pt: PresagiosTable) -> None:
    with translation.override("en"):
        sheet = text(render_sheet(pt.lucia, pt.gm))
        form = text(render_to_string("presagios/sheet_form.html", {"form": SheetForm(sheet=pc_sheet())}))
    for page in (sheet, form):
        assert "Action" in page and "Interaction" in page and "Cognition" in page
        assert "Acción" not in page and "Cognición" not in page


def test_spending_buttons_are_disabled_with_the_reason_when_no_overcome_is_left(pt: PresagiosTable) -> None:
    for _ in range(5):
        op(pt, pt.player, "spend_overcome", {"character_id": str(pt.lucia.pk), "use": "hurry"}, pt.lucia)
    html = render_sheet(pt.lucia, pt.player)
    assert html.count("disabled") == 2 and "No quedan puntos de superación." in text(html)
    assert "disabled" not in render_sheet(pt.hugo, pt.player2)
