"""A character's life in a real browser: created through the flow, submitted, approved, and a stress box
marked in place (htmx, no reload) that is still marked after a reload."""

from __future__ import annotations

from typing import Any

import pytest

from campaigns import services as campaign_services
from campaigns.models import Membership, Role
from characters.models import Character, CharacterStatus, LedgerEntry
from tests.characters.views_fixtures import make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

APPROACHES = {"careful": "1", "clever": "2", "sneaky": "1", "flashy": "2", "quick": "3", "forceful": "0"}


def test_player_creates_gm_approves_player_marks_stress_in_place(page_for: Any) -> None:
    gm = make_user("directora", "Directora")
    player = make_user("ana", "Ana")
    campaign = campaign_services.create_campaign(creator=gm, title="Pulp", ruleset="fate-accelerated")
    Membership.objects.create(campaign=campaign, user=player, role=Role.PLAYER)

    # The player creates a draft through the campaign page and the ruleset's sheet form.
    page = page_for(player)
    page.goto(f"/campaigns/{campaign.pk}/")
    page.get_by_role("link", name="Nuevo personaje").first.click()
    page.fill("input[name=name]", "Zorro")
    page.fill("[name='sheet-high_concept']", "Espadachín enmascarado")
    page.fill("[name='sheet-trouble']", "Buscado por la ley")
    for key, value in APPROACHES.items():
        page.select_option(f"select[name='sheet-{key}']", value)
    page.get_by_role("button", name="Crear borrador").click()
    page.wait_for_url("**/characters/*/")
    character = Character.objects.get(name="Zorro")
    assert character.status == CharacterStatus.DRAFT

    # The player submits it; the GM approves it.
    page.get_by_role("button", name="Enviar a aprobación").click()
    page.wait_for_load_state()
    assert Character.objects.get(pk=character.pk).status == CharacterStatus.PENDING
    gm_page = page_for(gm)
    gm_page.goto(f"/characters/{character.pk}/")
    gm_page.get_by_role("button", name="Aprobar").click()
    gm_page.wait_for_load_state()
    assert Character.objects.get(pk=character.pk).status == CharacterStatus.APPROVED

    # The player marks the first stress box in place: the page is not reloaded.
    page.goto(f"/characters/{character.pk}/")
    page.evaluate("window.__notReloaded = true")
    sheet = page.locator("#sheet")
    sheet.locator("button[title^='Tachar la casilla 1']").click()
    sheet.locator(".fae-box.checked").first.wait_for()
    assert page.evaluate("window.__notReloaded === true")
    assert LedgerEntry.objects.filter(character=character, operation="absorb_hit").count() == 1

    page.reload()
    assert page.locator("#sheet .fae-box.checked").count() == 1
    assert Character.objects.get(pk=character.pk).sheet["stress"] == [True, False, False]
