"""The player's dashboard ("what waits for me") and the header's unread count."""

from __future__ import annotations

from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaigns import services
from campaigns.models import Recipients, Voice
from campaigns.waiting import player_waiting
from tests.personas import Table


def _login(user: object) -> Client:
    client = Client()
    client.force_login(user)  # type: ignore[arg-type]
    return client


def test_an_unread_whisper_waits_only_for_its_recipient(table: Table) -> None:
    assert [p.pk for p in player_waiting(table.player).whispers] == [table.whisper.pk]
    assert player_waiting(table.player2).whispers == []
    services.mark_scene_read(user=table.player, scene=table.scene, up_to_post_id=table.whisper.pk)
    assert player_waiting(table.player).whispers == []


def test_it_is_your_turn_when_someone_else_posted_last(table: Table) -> None:
    # The newest post everyone sees in "Llegada" is the player's: the other player's turn, not theirs
    # (the GM-only post and the whisper after it do not pass the turn).
    assert [t.scene.pk for t in player_waiting(table.player2).turns] == [table.scene.pk]
    assert player_waiting(table.player).turns == []
    services.create_post(author=table.gm, scene=table.scene, body="La puerta se abre.", voice=Voice.NARRATOR)
    assert [t.scene.pk for t in player_waiting(table.player).turns] == [table.scene.pk]
    # A reader never has a turn.
    assert player_waiting(table.reader).turns == []


def test_a_whisper_does_not_pass_the_turn(table: Table) -> None:
    services.create_post(
        author=table.gm, scene=table.scene, body="psst", recipients=Recipients.WHISPER, whisper_to=[table.player2.pk]
    )
    assert player_waiting(table.player).turns == []


def test_the_dashboard_shows_what_waits_and_nothing_else(table: Table) -> None:
    html = _login(table.player).get(reverse("campaigns:dashboard")).content.decode()
    assert "1 susurro sin leer" in html
    assert "TEXTO-SUSURRO" not in html  # named, linked, never quoted
    other = _login(table.player2).get(reverse("campaigns:dashboard")).content.decode()
    assert "susurro sin leer" not in other
    assert "1 escena donde te toca" in other


def test_the_player_dashboard_query_count_is_constant(table: Table) -> None:
    client = _login(table.player2)
    client.get(reverse("campaigns:dashboard"))
    with CaptureQueriesContext(connection) as few:
        client.get(reverse("campaigns:dashboard"))
    for n in range(4):
        scene = services.create_scene(actor=table.gm, campaign=table.campaign, title=f"Escena {n}")
        services.create_post(author=table.gm, scene=scene, body="Os toca.", voice=Voice.NARRATOR)
    with CaptureQueriesContext(connection) as many:
        client.get(reverse("campaigns:dashboard"))
    assert len(many) == len(few)


def test_the_header_unread_count(table: Table) -> None:
    url = reverse("campaigns:unread_count")
    before = _login(table.player2).get(url).content.decode()
    services.create_post(author=table.gm, scene=table.scene, body="Nuevo", voice=Voice.NARRATOR)
    after = _login(table.player2).get(url).content.decode()

    def number(html: str) -> int:
        return int(html.split('unread-count">', 1)[1].split("<", 1)[0]) if "unread-count" in html else 0

    assert number(after) == number(before) + 1
    assert number(_login(table.outsider).get(url).content.decode()) == 0
    assert Client().get(url).status_code == 200  # anonymous: nothing to count, no error
