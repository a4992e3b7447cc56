"""The GM's close of a session as a page of the game (§5.5, vector 23): each protagonist by name, each use
in words, no JSON and no character numbers; the hope shared out is spent at once, then both chests are 0."""

from __future__ import annotations

import pytest
from django.test import Client

from rulesets.dont_rest_your_head.tests.rolls_fixtures import DryhRolls, build_dryh_rolls

pytestmark = pytest.mark.django_db


@pytest.fixture
def dryh(db: None) -> DryhRolls:
    return build_dryh_rolls()


def test_vector_23_the_gm_shares_out_the_hope_by_name_and_both_chests_empty(dryh: DryhRolls) -> None:
    t = dryh
    t.set_sheet(t.alia, exhaustion=3, fight=1)
    t.set_chest(hope=3, despair=4, session_open=True, session_number=1)
    gm = Client()
    gm.force_login(t.gm)
    url = f"/campaigns/{t.campaign.pk}/no-te-duermas/cerrar-sesion/"
    assert url in gm.get(f"/campaigns/{t.campaign.pk}/pools/").content.decode()
    page = gm.get(url).content.decode()
    assert "<legend>Alia</legend>" in page and "−1 agotamiento" in page
    assert "spends" not in page and "(id)" not in page and "JSON" not in page
    response = gm.post(url, {f"exhaustion-1-{t.alia.pk}": "2", f"clear_fight-{t.alia.pk}": "1"})
    assert response.status_code == 302
    sheet = t.sheet(t.alia)
    assert (sheet["exhaustion"], sheet["fight"]) == (1, 0)
    chest = t.chest()
    assert (chest["hope"], chest["despair"], chest["session_open"]) == (0, 0, False)
    assert len(t.ledger("close_session")) == 1


def test_a_share_bigger_than_the_chest_is_refused_with_words_and_nothing_moves(dryh: DryhRolls) -> None:
    t = dryh
    t.set_sheet(t.alia, exhaustion=3)
    t.set_chest(hope=1, session_open=True, session_number=1)
    gm = Client()
    gm.force_login(t.gm)
    url = f"/campaigns/{t.campaign.pk}/no-te-duermas/cerrar-sesion/"
    response = gm.post(url, {f"exhaustion-1-{t.alia.pk}": "3"})
    assert response.status_code == 200 and 'role="alert"' in response.content.decode()
    assert t.sheet(t.alia)["exhaustion"] == 3 and t.chest()["hope"] == 1 and t.chest()["session_open"]


def test_only_a_gm_closes_the_session(dryh: DryhRolls) -> None:
    player = Client()
    player.force_login(dryh.player)
    assert player.get(f"/campaigns/{dryh.campaign.pk}/no-te-duermas/cerrar-sesion/").status_code == 403


def test_vector_17_the_gm_transforms_a_scar_on_a_page_in_words(dryh: DryhRolls) -> None:
    """dont-rest-your-head-17: exhaustion 7 (crash pending); the scar buys 5 hope coins spent at once on
    exhaustion −1: exhaustion 2, awake again, the scar crossed out, the hope chest untouched."""
    t = dryh
    scar = {"text": "El incendio", "created_session": 1, "invoked_this_session": False, "crossed_out": False}
    t.set_sheet(t.alia, exhaustion=7, status="crash_pending", scars=[scar])
    t.set_chest(hope=1)
    gm = Client()
    gm.force_login(t.gm)
    url = f"/characters/{t.alia.pk}/no-te-duermas/cicatrices/0/transformar/"
    assert url in gm.get(f"/characters/{t.alia.pk}/").content.decode()
    page = gm.get(url).content.decode()
    assert "Transformar la cicatriz «El incendio»" in page and "<textarea" not in page  # no JSON to write
    assert "Monedas de esperanza gastadas al momento (hasta 5)" in page
    response = gm.post(url, {"kind": "hope_grant", "exhaustion-1": "5", "scope": "scene"})
    assert response.status_code == 302, response.content.decode()
    sheet = t.sheet(t.alia)
    assert (sheet["exhaustion"], sheet["status"], sheet["scars"][0]["crossed_out"]) == (2, "awake", True)
    assert t.chest()["hope"] == 1
    player = Client()
    player.force_login(t.player)
    assert player.get(url).status_code == 403
