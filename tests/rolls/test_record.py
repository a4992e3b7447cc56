"""The thread is the record: a procedure leaves a post in the thread's order, where it opened, showing its
record in words and dice under the posts' policy (GM-only lines to GMs only), through page, fragment and
API; nobody edits or deletes it by hand."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from campaigns.models import Post, PostKind
from rolls import runner
from rulesets.kit.procedures import Procedure
from systems.dice import ScriptedDice
from tests.personas import Table
from tests.rolls.duel import FLOW_SECRET

pytestmark = pytest.mark.django_db


def page(user: Any, url: str, language: str = "es") -> str:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    if user is not None:
        client.force_login(user)
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


def test_a_procedure_leaves_its_record_in_the_thread(table: Table, duel: Procedure[Any]) -> None:
    flow = runner.start_procedure(actor=table.gm, scene=table.scene, kind="duel", params={"player": table.player.pk})
    runner.take_step(actor=table.player, flow=flow, step="player_roll", dice=ScriptedDice([5]))
    runner.take_step(actor=table.gm, flow=flow, step="settle")
    record = Post.objects.get(kind=PostKind.PROCEDURE)
    assert flow.record == record and record.scene == table.scene
    gm_page = page(table.gm, table.scene.get_absolute_url())
    assert f'id="post-{record.pk}" class="post post-procedure' in gm_page
    assert f"Dificultad secreta: {FLOW_SECRET}" in gm_page and "Resuelto a favor" in gm_page
    for user in (table.player, table.player2, table.reader, None):
        shown = page(user, table.scene.get_absolute_url())
        assert f'id="post-{record.pk}" class="post post-procedure' in shown and "Resuelto a favor" in shown
        assert str(FLOW_SECRET) not in shown
    fragment = page(table.player, f"/posts/{record.pk}/fragment/", "en")
    assert "Settled in favour" in fragment and str(FLOW_SECRET) not in fragment


def test_the_record_through_the_api_and_never_edited_by_hand(table: Table, duel: Procedure[Any]) -> None:
    flow = runner.start_procedure(actor=table.gm, scene=table.scene, kind="duel", params={"player": table.player.pk})
    gm, player = APIClient(HTTP_ACCEPT_LANGUAGE="en"), APIClient(HTTP_ACCEPT_LANGUAGE="en")
    gm.force_authenticate(table.gm)
    player.force_authenticate(table.player)
    url = f"/api/scenes/{table.scene.pk}/posts/"
    ours = [p for p in gm.get(url).json()["results"] if p["kind"] == "procedure"]
    assert len(ours) == 1 and ours[0]["procedure"]["id"] == flow.pk
    assert ours[0]["procedure"]["lines"] == [{"text": f"Secret difficulty: {FLOW_SECRET}", "gm_only": True}]
    theirs = [p for p in player.get(url).json()["results"] if p["kind"] == "procedure"]
    assert theirs[0]["procedure"]["lines"] == [] and str(FLOW_SECRET) not in str(theirs)
    assert theirs[0]["may_edit"] is False and theirs[0]["may_delete"] is False
    record_id = ours[0]["id"]
    assert gm.patch(f"/api/posts/{record_id}/", {"body": "x"}, format="json").status_code == 403
    assert gm.delete(f"/api/posts/{record_id}/").status_code == 403
    assert Post.objects.get(pk=record_id).deleted_at is None
