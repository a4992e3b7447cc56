"""Rolls and flows in the thread: dice, the GM's reveal, open flows with what they wait for, steps that
happen once, refusals in place; secrets never reach a player's page; constant queries."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import URLPattern, URLResolver, include, path

import tintero.urls
from accounts.models import User
from campaigns import events, services
from campaigns.models import Post, Voice
from rolls import runner
from rolls.models import Flow, FlowStatus, FlowStep, Roll, RollFollowUp, RollReveal
from rolls.services import RollSpec, create_post_with_rolls
from rulesets.kit.procedures import Procedure
from systems.dice import ScriptedDice
from tests.personas import Table
from tests.rolls.duel import FLOW_SECRET

# The lead mounts rolls.urls at the site root; until then these tests mount it themselves.
urlpatterns: list[URLPattern | URLResolver] = list(tintero.urls.urlpatterns)
if not any(getattr(p, "namespace", None) == "rolls" for p in urlpatterns):
    urlpatterns.append(path("", include("rolls.urls")))

pytestmark = [pytest.mark.django_db, pytest.mark.urls(__name__)]

SECRET_NUMBER = 987654  # a secret difficulty: never on a player's page until revealed


def client_for(user: User | None, language: str = "es") -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    if user is not None:
        client.force_login(user)
    return client


def htmx(client: Client, url: str, data: dict[str, Any] | None = None) -> Any:
    return client.post(url, data or {}, HTTP_HX_REQUEST="true")


def roll_post(author: User, scene: Any, expression: str = "3d6", dice: list[int] | None = None, **spec: Any) -> Post:
    return create_post_with_rolls(
        author=author,
        scene=scene,
        body="Tiro los dados.",
        rolls=[RollSpec(kind="notation", data={"expression": expression}, **spec)],
        dice=ScriptedDice(dice or [6, 1, 4]),
    )


def secret_difficulty_roll(table: Table) -> Roll:
    """A player's roll with a secret difficulty (as Presagios makes them), on a post to everyone."""
    post = services.create_post(
        author=table.player, scene=table.scene, body="Abro la puerta.", voice=Voice.CHARACTER, character=table.character
    )
    return Roll.objects.create(
        campaign=table.campaign,
        scene=table.scene,
        post=post,
        roller=table.player,
        ruleset="generic",
        kind="notation",
        request={"expression": "2d6"},
        result={"parts": [{"dice": [{"sides": "6", "fudge": False, "faces": [{"face": 5}, {"face": 2}]}]}]},
        secret={"difficulty": SECRET_NUMBER},
        summary_es="Éxito",
        summary_en="Success",
    )


def scene_page(client: Client, table: Table) -> str:
    response = client.get(table.scene.get_absolute_url())
    assert response.status_code == 200
    return response.content.decode()


# --- Dice in the thread ---------------------------------------------------------------------------


def test_the_thread_draws_every_die_with_its_pool(table: Table) -> None:
    roll_post(table.player, table.scene, "4dF+1", [3, 1, 2, 3])  # +, −, blank, +
    html = scene_page(client_for(table.reader), table)
    assert html.count('class="die pool-fudge') == 4
    assert "face--1" in html and "+1 = 2" in html


def test_dropped_dice_are_struck_and_d6_drawn_with_pips(table: Table) -> None:
    roll_post(table.player, table.scene, "3d6kh2", [6, 1, 4])
    html = scene_page(client_for(table.reader), table)
    assert "pool-d6 face-1 pips dropped" in html
    assert "pool-d6 face-6 pips" in html


# --- Secret rolls and secret difficulties ---------------------------------------------------------


def test_a_secret_roll_is_the_gms_until_revealed(table: Table) -> None:
    post = roll_post(table.gm, table.scene, "1d20", [17], gm_only=True, label="Emboscada")
    roll = Roll.objects.get(post=post)
    assert "Emboscada" not in scene_page(client_for(table.player), table)
    assert client_for(table.player).get(f"/rolls/{roll.pk}/").status_code == 404
    gm_page = scene_page(client_for(table.gm), table)
    assert "Emboscada" in gm_page and f'action="/rolls/{roll.pk}/reveal/"' in gm_page

    # A player cannot reveal what they cannot see; the GM reveals it in place, once.
    assert htmx(client_for(table.player), f"/rolls/{roll.pk}/reveal/").status_code == 404
    response = htmx(client_for(table.gm), f"/rolls/{roll.pk}/reveal/", {"include_secret": "0"})
    assert response.status_code == 200
    fragment = response.content.decode()
    assert fragment.startswith('<div class="roll') and "Secreta, revelada" in fragment and "reveal/" not in fragment
    assert RollReveal.objects.filter(roll=roll).count() == 1
    assert "Emboscada" in scene_page(client_for(table.player), table)

    again = htmx(client_for(table.gm), f"/rolls/{roll.pk}/reveal/", {"include_secret": "0"})
    assert "ya está revelada" in again.content.decode()
    assert RollReveal.objects.filter(roll=roll).count() == 1


def test_a_secret_difficulty_shows_the_outcome_never_the_number(table: Table) -> None:
    roll = secret_difficulty_roll(table)
    for user in (table.player, table.player2, table.reader, None):
        html = scene_page(client_for(user), table)
        assert "Éxito" in html and str(SECRET_NUMBER) not in html
        assert "reveal/" not in html
    gm_page = scene_page(client_for(table.gm), table)
    assert str(SECRET_NUMBER) in gm_page and "Revelar la dificultad" in gm_page

    # The player who rolled asks to reveal it: refused in place; nothing revealed.
    refused = htmx(client_for(table.player), f"/rolls/{roll.pk}/reveal/", {"include_secret": "1"})
    assert refused.status_code == 200 and "Solo un máster revela tiradas." in refused.content.decode()
    assert not RollReveal.objects.exists()

    htmx(client_for(table.gm), f"/rolls/{roll.pk}/reveal/", {"include_secret": "1"})
    assert str(SECRET_NUMBER) in scene_page(client_for(table.player), table)


def test_the_revision_history_never_carries_a_secret_difficulty(table: Table) -> None:
    roll = secret_difficulty_roll(table)
    services.edit_post(actor=table.player, post=roll.post, body="Abro la puerta despacio.", notes=None)
    html = client_for(table.player).get(f"/posts/{roll.post_id}/revisions/").content.decode()
    assert "Abro la puerta." in html and str(SECRET_NUMBER) not in html
    assert Roll.objects.get(pk=roll.pk).secret == {"difficulty": SECRET_NUMBER}  # editing never touches rolls


def test_without_htmx_a_reveal_redirects_with_a_message(table: Table) -> None:
    roll = secret_difficulty_roll(table)
    response = client_for(table.gm).post(f"/rolls/{roll.pk}/reveal/", {"include_secret": "1"})
    assert response.status_code == 302
    assert RollReveal.objects.get(roll=roll).include_secret


# --- Flows in the thread --------------------------------------------------------------------------


def start_duel(table: Table) -> Flow:
    return runner.start_procedure(actor=table.gm, scene=table.scene, kind="duel", params={"player": table.player.pk})


def test_open_flows_say_what_they_wait_for_and_from_whom(table: Table, duel: Procedure[Any]) -> None:
    response = htmx(client_for(table.gm), f"/scenes/{table.scene.pk}/flows/duel/start/", {"player": table.player.pk})
    html = response.content.decode()
    flow = Flow.objects.get()
    assert html.startswith('<section id="scene-flows"')
    assert "tirada del jugador" in html and "Ana" in html  # the step, and the player by name
    assert f"{FLOW_SECRET}" in html  # the GM sees the secret state

    for user in (table.player2, table.reader, None):
        fragment = client_for(user).get(f"/scenes/{table.scene.pk}/flows/").content.decode()
        assert "tirada del jugador" in fragment and "Ana" in fragment
        assert str(FLOW_SECRET) not in fragment
        assert f"/flows/{flow.pk}/steps/" not in fragment  # not their step
    english = client_for(table.player, "en").get(f"/scenes/{table.scene.pk}/flows/").content.decode()
    assert "the player&#x27;s roll" in english and f"/flows/{flow.pk}/steps/player_roll/" in english
    assert 'name="idempotency_key"' in english and str(FLOW_SECRET) not in english


def test_a_kept_thread_page_gives_each_view_new_step_keys(
    table: Table, duel: Procedure[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    start_duel(table)
    monkeypatch.setattr(events, "STRANDED_AFTER", timedelta(0))
    events.number_stranded_events(limit=1000)  # as after commit: the page may be kept
    client = client_for(table.player)
    pages = [scene_page(client, table) for _ in range(2)]
    with CaptureQueriesContext(connection) as queries:
        pages.append(scene_page(client, table))
    assert len(queries) == 3  # session, user, scene: the kept page
    keys = [re.findall(r'name="idempotency_key" value="([^"]+)"', html) for html in pages]
    assert all(keys)
    assert len({key for found in keys for key in found}) == sum(len(found) for found in keys)


def test_a_double_submitted_step_is_one_step(table: Table, duel: Procedure[Any]) -> None:
    flow = start_duel(table)
    client = client_for(table.player)
    url = f"/flows/{flow.pk}/steps/player_roll/"
    first = htmx(client, url, {"idempotency_key": "k-1"})
    second = htmx(client, url, {"idempotency_key": "k-1"})
    assert first.status_code == second.status_code == 200
    assert FlowStep.objects.count() == 1 and flow.rolls.count() == 1
    html = second.content.decode()
    assert html.startswith(f'<article id="flow-{flow.pk}"') and "Directora" in html  # now waits for the GM
    assert 'class="error' not in html


def test_steps_out_of_turn_and_after_settlement_are_refused_in_place(table: Table, duel: Procedure[Any]) -> None:
    flow = start_duel(table)
    intruder = htmx(client_for(table.player2, "en"), f"/flows/{flow.pk}/steps/player_roll/", {"idempotency_key": "a"})
    assert 'class="error flow-error"' in intruder.content.decode()
    assert not FlowStep.objects.exists()
    htmx(client_for(table.player), f"/flows/{flow.pk}/steps/player_roll/", {"idempotency_key": "b"})
    settled = htmx(client_for(table.gm), f"/flows/{flow.pk}/steps/settle/", {"idempotency_key": "c"})
    assert "Resuelto a favor" in settled.content.decode()  # the follow-up under the roll
    flow.refresh_from_db()
    assert flow.status == FlowStatus.SETTLED
    late = htmx(client_for(table.gm, "en"), f"/flows/{flow.pk}/steps/settle/", {"idempotency_key": "d"})
    assert "This procedure is already closed." in late.content.decode()
    late_es = htmx(client_for(table.gm), f"/flows/{flow.pk}/steps/settle/", {"idempotency_key": "e"})
    assert "Este procedimiento ya está cerrado." in late_es.content.decode()
    assert FlowStep.objects.count() == 2 and RollFollowUp.objects.count() == 1
    # Settled flows leave the scene's open list.
    assert f"flow-{flow.pk}" not in client_for(table.gm).get(f"/scenes/{table.scene.pk}/flows/").content.decode()


def test_a_reader_cannot_open_a_flow_and_hidden_scenes_are_404(table: Table, duel: Procedure[Any]) -> None:
    response = htmx(client_for(table.reader), f"/scenes/{table.scene.pk}/flows/duel/start/", {"player": "1"})
    assert "No puedes abrir" in response.content.decode() and not Flow.objects.exists()
    assert client_for(table.player2).get(f"/scenes/{table.listed_scene.pk}/flows/").status_code == 404
    flow = runner.start_procedure(
        actor=table.gm, scene=table.listed_scene, kind="duel", params={"player": table.player.pk}
    )
    assert client_for(table.player2).get(f"/flows/{flow.pk}/").status_code == 404
    assert htmx(client_for(table.player2), f"/flows/{flow.pk}/steps/player_roll/").status_code == 404


def test_without_htmx_a_step_redirects_to_the_scene(table: Table, duel: Procedure[Any]) -> None:
    flow = start_duel(table)
    response = client_for(table.player).post(f"/flows/{flow.pk}/steps/player_roll/", {"idempotency_key": "z"})
    assert response.status_code == 302 and response["Location"] == table.scene.get_absolute_url()
    assert FlowStep.objects.count() == 1


# --- Query counts ---------------------------------------------------------------------------------


def _posts_with_rolls(table: Table, n: int) -> None:
    for i in range(n):
        post = roll_post(table.player, table.scene, "2d6", [i % 6 + 1, 3])
        RollFollowUp.objects.create(
            roll=post.rolls.get(), kind="note", actor=table.gm, summary_es=f"nota {i}", summary_en=f"note {i}"
        )


def _count(client: Client, url: str) -> int:
    client.get(url)  # the first view moves the read marker; count a steady-state view
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


def test_thread_queries_do_not_grow_with_rolls(table: Table) -> None:
    # Every viewer reads the same 10 and then 200 rolled posts: the posts are built once, not per viewer.
    personas = ["gm", "player", "reader"]
    clients = {persona: client_for(table.user(persona)) for persona in personas}
    url = table.scene.get_absolute_url()
    _posts_with_rolls(table, 10)
    small = {persona: _count(clients[persona], url) for persona in personas}
    _posts_with_rolls(table, 190)
    assert {persona: _count(clients[persona], url) for persona in personas} == small
    assert {persona: _count(clients[persona], url + "?page=8") for persona in personas} == small


def test_flows_fragment_queries_do_not_grow(table: Table, duel: Procedure[Any]) -> None:
    def open_flows(n: int) -> None:
        for _ in range(n):
            flow = start_duel(table)
            runner.take_step(actor=table.player, flow=flow, step="player_roll", dice=ScriptedDice([4]))

    client = client_for(table.player)
    url = f"/scenes/{table.scene.pk}/flows/"
    open_flows(2)
    small = _count(client, url)
    open_flows(10)
    assert _count(client, url) == small
