"""Coin flip end to end, through the same surfaces as the real games: a sheet made and approved, a roll in a
post, the wager procedure through the API (its waiting line derived from the step table, the record in
words), the ledger, and the live event on the campaign's socket. Nothing outside tests/coinflip/ and
tests/settings.py knows this game exists."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async
from rest_framework.test import APIClient

from campaigns import services as campaign_services
from campaigns.models import Role
from characters.models import Character, LedgerEntry
from rolls.models import Flow, FlowLine, FlowStatus
from rulesets import registry
from systems.dice import ScriptedDice
from tests.campaigns.test_live_consumer import connect_as
from tests.personas import add_member, make_user

pytestmark = pytest.mark.django_db(transaction=True)


def api(user: Any) -> APIClient:
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    client.force_authenticate(user)
    return client


def build() -> dict[str, Any]:
    gm, player = make_user("cf_gm", "Directora"), make_user("cf_player", "Ana")
    campaign = campaign_services.create_campaign(creator=gm, title="Moneda al aire", ruleset="coinflip")
    add_member(campaign, gm, player, Role.PLAYER)
    scene = campaign_services.create_scene(actor=gm, campaign=campaign, title="La taberna")
    return {"gm": gm, "player": player, "campaign": campaign, "scene": scene}


def make_character(t: dict[str, Any]) -> int:
    created = api(t["player"]).post(
        f"/api/campaigns/{t['campaign'].pk}/characters/", {"name": "Tula", "sheet": {"luck": 3}}, format="json"
    )
    assert created.status_code == 201, created.content
    pk = int(created.json()["id"])
    assert api(t["player"]).post(f"/api/characters/{pk}/submit/").status_code == 200
    approved = api(t["gm"]).post(f"/api/characters/{pk}/approve/")
    assert approved.status_code == 200, approved.content
    return pk


def test_the_game_is_registered_with_its_choices() -> None:
    assert "coinflip" in registry.plugins()
    t = build()
    assert t["campaign"].get_ruleset_display() in {"Cara o cruz", "Coin flip"}


def test_a_flip_in_a_post(monkeypatch: pytest.MonkeyPatch) -> None:
    t = build()
    pk = make_character(t)
    monkeypatch.setattr("rolls.services.SystemDice", lambda: ScriptedDice([2, 2, 1]))
    response = api(t["player"]).post(
        f"/api/scenes/{t['scene'].pk}/posts/",
        {"body": "¡Cara!", "rolls": [{"kind": "flip", "data": {"call": "heads", "coins": 3}, "character": pk}]},
        format="json",
    )
    assert response.status_code == 201, response.content
    roll = response.json()["rolls"][0]
    assert roll["ruleset"] == "coinflip" and roll["result"]["won"] is True
    assert [d["glyph"] for d in roll["faces"][0]["dice"]] == ["◉", "◉", "○"]


async def test_the_wager_procedure_through_the_api_with_ledger_record_and_live_event(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    t = await database_sync_to_async(build)()
    pk = await database_sync_to_async(make_character)(t)
    flow = await database_sync_to_async(open_wager)(t, pk)
    socket = await connect_as(t["player"], t["campaign"].pk)
    monkeypatch.setattr("rolls.runner.SystemDice", lambda: ScriptedDice([1]))
    called = await database_sync_to_async(step)(t["player"], flow, "call", {"call": "tails"}, "k1")
    assert called["waiting_for"]["steps"][0]["gm"] is True
    assert called["actions"] == [] and [line["text"] for line in called["record"]] == [
        "Tula stakes 2 luck.",
        "Tula calls tails and wins.",
    ]
    frames = [await socket.event()]
    while not await socket.nothing():
        frames.append(await socket.event())
    await socket.close()
    assert any(f.get("type") == "flow.changed" and f["data"]["flow_id"] == flow for f in frames), frames
    await database_sync_to_async(step)(t["gm"], flow, "settle", {}, "k2")
    await database_sync_to_async(check_settled)(flow, pk)


def open_wager(t: dict[str, Any], pk: int) -> int:
    opened = api(t["player"]).post(
        f"/api/scenes/{t['scene'].pk}/flows/", {"kind": "wager", "params": {"character": pk, "stake": 2}}, format="json"
    )
    assert opened.status_code == 201, opened.content
    flow = opened.json()
    assert flow["actions"] == [{"step": "call", "label": "Call and flip", "unavailable": "", "choices": {}}]
    assert flow["waiting_for"] == {
        "steps": [
            {
                "step": "call",
                "gm": False,
                "users": [t["player"].pk],
                "label_es": "la moneda de Tula",
                "label_en": "Tula's coin",
            }
        ]
    }
    # The GM may not take the player's step; the table offers no "settle" yet: one refusal code.
    refused = api(t["gm"]).post(
        f"/api/flows/{flow['id']}/steps/", {"step": "settle", "idempotency_key": "k0"}, format="json"
    )
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "step_not_available"
    return int(flow["id"])


def step(user: Any, flow: int, key: str, params: dict[str, Any], idempotency_key: str) -> dict[str, Any]:
    response = api(user).post(
        f"/api/flows/{flow}/steps/",
        {"step": key, "params": params, "idempotency_key": idempotency_key},
        format="json",
    )
    assert response.status_code == 201, response.content
    return dict(response.json())


def check_settled(flow: int, pk: int) -> None:
    assert Flow.objects.get(pk=flow).status == FlowStatus.SETTLED
    assert Character.objects.get(pk=pk).sheet["luck"] == 5
    entry = LedgerEntry.objects.get(character_id=pk, operation="gain_luck")
    assert entry.changes == {f"character.{pk}.luck": [3, 5]}
    lines = list(FlowLine.objects.filter(flow_id=flow).values_list("text_en", flat=True))
    assert lines == ["Tula stakes 2 luck.", "Tula calls tails and wins.", "Tula gains 2 luck."]


def test_lines_are_visible_per_policy_and_characters_unknown_are_refused() -> None:
    t = build()
    make_character(t)
    response = api(t["player"]).post(
        f"/api/scenes/{t['scene'].pk}/flows/", {"kind": "wager", "params": {"character": 999999}}, format="json"
    )
    assert response.status_code == 400 and response.json()["error"]["code"] == "unknown_character"
    assert not Flow.objects.exists()
