"""The characters API: characters, approval, operations (201 + ledger entry, or a clear JSON error that
changed nothing), ledgers, pools and ruleset discovery."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from characters import services
from characters.models import Character, CharacterStatus, LedgerEntry
from tests.api.conftest import assert_error
from tests.characters.views_fixtures import FAE_SHEET, PRIVATE_MARKERS, SheetTable

pytestmark = pytest.mark.django_db


def api(user) -> APIClient:  # type: ignore[no-untyped-def]
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def test_list_create_patch_and_status_flow() -> None:
    t = SheetTable(ruleset="fate-accelerated")
    url = f"/api/campaigns/{t.campaign.pk}/characters/"
    body = api(t.player).get(url).json()
    assert set(body) == {"count", "next", "previous", "results"}
    assert {c["name"] for c in body["results"]} == {"Alba", "Bruno", "El Conde"}
    created = api(t.player).post(url, {"name": "Zorro", "sheet": FAE_SHEET, "notes": "n"}, format="json")
    assert created.status_code == 201, created.content
    data = created.json()
    assert data["status"] == "draft" and data["owner"]["id"] == t.player.pk and data["notes"] == "n"
    cid = data["id"]
    patched = api(t.player).patch(f"/api/characters/{cid}/", {"history": "Nació en Sevilla"}, format="json")
    assert patched.json()["history"] == "Nació en Sevilla"
    assert api(t.player).post(f"/api/characters/{cid}/approve/").status_code == 403
    assert api(t.player).post(f"/api/characters/{cid}/submit/").json()["status"] == "pending"
    assert api(t.gm).post(f"/api/characters/{cid}/return/").json()["status"] == "draft"
    api(t.player).post(f"/api/characters/{cid}/submit/")
    approved = api(t.gm).post(f"/api/characters/{cid}/approve/").json()
    assert approved["status"] == "approved" and approved["sheet"]["fate_points"] == 3
    sheet_after = api(t.player).patch(f"/api/characters/{cid}/", {"sheet": FAE_SHEET}, format="json")
    assert_error(sheet_after, 400, "sheet")
    assert api(t.player).post(f"/api/characters/{cid}/retire/").json()["status"] == "retired"


def test_create_refusals() -> None:
    t = SheetTable(ruleset="fate-accelerated")
    url = f"/api/campaigns/{t.campaign.pk}/characters/"
    before = Character.objects.count()
    assert_error(api(t.player).post(url, {"name": ""}, format="json"), 400, "name")
    assert_error(api(t.player).post(url, {"name": "X", "is_npc": True}, format="json"), 403)
    assert_error(api(t.reader).post(url, {"name": "X"}, format="json"), 403)
    assert_error(api(None).post(url, {"name": "X"}, format="json"), 401)
    bad_sheet = {"name": "X", "sheet": {"approaches": {"careful": 99}}}
    assert_error(api(t.player).post(url, bad_sheet, format="json"), 400, "sheet")
    assert_error(api(t.gm).post(url, {"name": "X", "owner": t.reader.pk}, format="json"), 400, "owner")
    assert Character.objects.count() == before
    npc = api(t.gm).post(url, {"name": "Guardia", "is_npc": True}, format="json").json()
    assert npc["is_npc"] and npc["owner"] is None
    pc = api(t.gm).post(url, {"name": "Para Bruno", "owner": t.player2.pk}, format="json").json()
    assert pc["owner"]["id"] == t.player2.pk


def test_submit_incomplete_sheet_says_which_rule() -> None:
    t = SheetTable(ruleset="fate-accelerated")
    draft = services.create_character(actor=t.player, campaign=t.campaign, name="Medio", sheet={"name": "Medio"})
    error = assert_error(api(t.player).post(f"/api/characters/{draft.pk}/submit/"), 400, "sheet")
    assert error["message"]
    assert Character.objects.get(pk=draft.pk).status == CharacterStatus.DRAFT


def test_operation_returns_the_ledger_entry() -> None:
    t = SheetTable(ruleset="fate-accelerated")
    url = f"/api/characters/{t.pc.pk}/operations/spend_fate_point/"
    response = api(t.player).post(url, {"params": {"amount": 1}, "reason": "invoco"}, format="json")
    assert response.status_code == 201, response.content
    entry = response.json()
    assert entry["operation"] == "spend_fate_point" and entry["reason"] == "invoco"
    assert entry["actor"]["id"] == t.player.pk and entry["character"]["id"] == t.pc.pk
    assert entry["changes"] == {f"character.{t.pc.pk}.fate_points": [3, 2]}
    assert entry["after"]["characters"][str(t.pc.pk)]["fate_points"] == 2
    assert entry["operation_name"] == "Gastar punto de destino"


def test_operation_refusals_change_nothing() -> None:
    t = SheetTable(ruleset="fate-accelerated")
    url = f"/api/characters/{t.pc.pk}/operations/spend_fate_point/"
    error = assert_error(api(t.player).post(url, {"params": {"amount": 9}}, format="json"), 400)
    assert error["code"] != "invalid"  # the rule's own code
    english = api(t.player).post(url, {"params": {"amount": 9}}, format="json", HTTP_ACCEPT_LANGUAGE="en")
    assert english.json()["error"]["message"] != error["message"]
    assert_error(api(t.player).post(url, {"params": {"amount": "muchos"}}, format="json"), 400, "params")
    assert_error(api(t.player).post(url, {"params": [1]}, format="json"), 400, "params")
    assert_error(api(t.player).post(url, {"params": {"nope": 1}}, format="json"), 400, "params")
    unknown = assert_error(api(t.gm).post(f"/api/characters/{t.pc.pk}/operations/fly/", {}, format="json"), 400)
    assert unknown["code"] == "unknown_operation"
    gm_only = f"/api/characters/{t.pc.pk}/operations/gain_fate_point/"
    assert_error(api(t.player).post(gm_only, {}, format="json"), 403)
    assert_error(api(t.player2).post(url, {}, format="json"), 403)
    assert_error(api(None).post(url, {}, format="json"), 401)
    other_post = assert_error(api(t.player).post(url, {"post": 999_999}, format="json"), 400, "post")
    assert other_post["message"]
    assert Character.objects.get(pk=t.pc.pk).sheet["fate_points"] == 3
    assert not LedgerEntry.objects.exists()


def test_campaign_operation_pools_and_ledgers() -> None:
    t = SheetTable(ruleset="fate-accelerated", rules_settings={"gm_fate_point_pool": True})
    url = f"/api/campaigns/{t.campaign.pk}/operations/gm_pool_gain/"
    assert_error(api(t.player).post(url, {"params": {"amount": 2}}, format="json"), 403)
    entry = api(t.gm).post(url, {"params": {"amount": 2}}, format="json")
    assert entry.status_code == 201 and entry.json()["changes"] == {"campaign.gm_fate_points": [0, 2]}
    pools = api(t.player).get(f"/api/campaigns/{t.campaign.pk}/pools/").json()
    assert pools["pools"] == {"campaign.gm_fate_points": 2} and pools["public"] is True
    services.apply_operation(actor=t.player, campaign=t.campaign, operation="spend_fate_point", character=t.pc)
    mine = api(t.player).get(f"/api/characters/{t.pc.pk}/ledger/").json()
    assert mine["count"] == 1 and mine["results"][0]["operation"] == "spend_fate_point"
    assert_error(api(t.player2).get(f"/api/characters/{t.pc.pk}/ledger/"), 403)
    assert api(t.gm).get(f"/api/campaigns/{t.campaign.pk}/ledger/").json()["count"] == 2
    assert_error(api(t.player).get(f"/api/campaigns/{t.campaign.pk}/ledger/"), 403)


def test_ledger_api_queries_do_not_grow() -> None:
    t = SheetTable(ruleset="fate-accelerated")
    url = f"/api/characters/{t.pc.pk}/ledger/?page_size=100"

    def gain(n: int) -> None:
        for _ in range(n):
            services.apply_operation(actor=t.gm, campaign=t.campaign, operation="gain_fate_point", character=t.pc)

    def count(user) -> int:  # type: ignore[no-untyped-def]
        with CaptureQueriesContext(connection) as queries:
            assert api(user).get(url).status_code == 200
        return len(queries)

    gain(3)
    few = count(t.player), count(t.gm)
    gain(30)
    assert (count(t.player), count(t.gm)) == few
    list_url = f"/api/campaigns/{t.campaign.pk}/characters/?page_size=100"
    with CaptureQueriesContext(connection) as before:
        api(t.player).get(list_url)
    Character.objects.bulk_create(
        Character(campaign=t.campaign, owner=t.player2, name=f"Extra {i}", status=CharacterStatus.APPROVED)
        for i in range(27)
    )
    with CaptureQueriesContext(connection) as after:
        api(t.player).get(list_url)
    assert len(before) == len(after)


def test_private_fields_absent_for_others() -> None:
    t = SheetTable()
    mine = api(t.player).get(f"/api/characters/{t.pc.pk}/").json()
    assert {"sheet", "equipment", "notes"} <= set(mine) and mine["may_see_private"]
    theirs = api(t.player2).get(f"/api/characters/{t.pc.pk}/").json()
    assert not {"sheet", "equipment", "notes"} & set(theirs)
    assert not any(marker in str(theirs) for marker in PRIVATE_MARKERS)


def test_rulesets_discovery() -> None:
    listing = APIClient().get("/api/rulesets/").json()
    keys = {r["key"] for r in listing["results"]}
    assert {"generic", "fate-accelerated"} <= keys
    fae = APIClient().get("/api/rulesets/fate-accelerated/").json()
    ops = {op["key"]: op for op in fae["operations"]}
    assert ops["spend_fate_point"]["who_may"] == ["gm", "owner"]
    assert ops["gain_fate_point"]["who_may"] == ["gm"]
    assert ops["spend_fate_point"]["params_schema"]["properties"]["amount"]["type"] == "integer"
    assert ops["gm_pool_gain"]["target"] == "campaign"
    assert fae["settings_schema"]["properties"]
    assert set(fae["names"]) == {"es", "en"} and "Acelerado" in fae["names"]["es"]
    assert_error(APIClient().get("/api/rulesets/nope/"), 404)


def test_schema_documents_the_characters_api() -> None:
    from drf_spectacular.validation import validate_schema

    schema = APIClient().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    validate_schema(schema)
    paths = schema["paths"]
    assert "/api/characters/{character_id}/operations/{op}/" in paths
    assert "/api/rulesets/{key}/" in paths
    character = schema["components"]["schemas"]["CharacterOut"]
    assert "notes" not in character.get("required", [])
