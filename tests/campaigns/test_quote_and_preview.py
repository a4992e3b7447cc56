"""Quoting respects visibility (only what the viewer may read), and the preview is the published rendering."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from campaigns import services
from campaigns.models import Post
from tests.personas import Table


def _client(user: object) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)  # type: ignore[arg-type]
    return client


def test_quote_is_the_body_as_markdown_with_a_link_to_the_post(table: Table) -> None:
    response = _client(table.player2).get(reverse("campaigns:post_quote", args=[table.post_all.pk]))
    assert response.status_code == 200
    text = response.content.decode()
    assert text.startswith("> TEXTO-PARA-TODOS\n")
    assert f"— [Lucía](http://testserver/posts/{table.post_all.pk}/)" in text  # the character who spoke


@pytest.mark.parametrize(
    ("role", "post", "status"),
    [
        ("player", "whisper", 200),  # the whisper's recipient
        ("player2", "whisper", 404),  # a third user cannot quote a whisper
        ("reader", "whisper", 404),
        ("anonymous", "whisper", 404),
        ("gm", "post_gms", 200),
        ("player", "post_gms", 404),  # another player's GM-only post
        ("anonymous", "post_all", 200),  # a public campaign's public post
        ("outsider", "post_all", 200),
    ],
)
def test_quoting_respects_visibility(table: Table, role: str, post: str, status: int) -> None:
    target: Post = getattr(table, post)
    response = _client(table.user(role)).get(reverse("campaigns:post_quote", args=[target.pk]))
    assert response.status_code == status
    if status == 404:
        assert b"TEXTO" not in response.content


def test_a_deleted_post_cannot_be_quoted(table: Table) -> None:
    services.delete_post(actor=table.player, post=table.post_all)
    response = _client(table.player2).get(reverse("campaigns:post_quote", args=[table.post_all.pk]))
    assert response.status_code == 404


def test_quote_link_without_javascript_prefills_the_composer(table: Table) -> None:
    url = reverse("campaigns:scene", args=[table.scene.pk])
    page = _client(table.player).get(f"{url}?quote={table.whisper.pk}").content.decode()
    assert "&gt; TEXTO-SUSURRO" in page  # in the composer's textarea
    # Another player asking for the same quote gets an empty composer, and nothing of the whisper.
    other = _client(table.player2).get(f"{url}?quote={table.whisper.pk}").content.decode()
    assert "TEXTO-SUSURRO" not in other
    assert 'id="composer"' in other


def test_the_thread_offers_quote_links_only_to_writers(table: Table) -> None:
    url = reverse("campaigns:scene", args=[table.scene.pk])
    assert "data-quote-url" in _client(table.player).get(url).content.decode()
    assert "data-quote-url" not in _client(table.reader).get(url).content.decode()


def test_preview_equals_the_published_rendering(table: Table) -> None:
    body = "**Negrita** y _cursiva_\n\n::: spoiler Secreto\nescondido\n:::\n\n> cita"
    client = _client(table.player)
    preview = client.post(reverse("campaigns:post_preview", args=[table.scene.pk]), {"body": body, "notes": "nota"})
    assert preview.status_code == 200
    published = services.create_post(author=table.player, scene=table.scene, body=body, notes="nota")
    html = preview.content.decode()
    assert published.body_html in html
    assert published.notes_html in html


def test_preview_reports_what_publishing_would_refuse(table: Table) -> None:
    body = "::: spoiler\n" * 200
    response = _client(table.player).post(reverse("campaigns:post_preview", args=[table.scene.pk]), {"body": body})
    assert response.status_code == 200
    assert 'class="error"' in response.content.decode()


def test_preview_is_only_for_writers(table: Table) -> None:
    url = reverse("campaigns:post_preview", args=[table.scene.pk])
    assert _client(table.reader).post(url, {"body": "x"}).status_code == 403
    assert _client(table.outsider).post(url, {"body": "x"}).status_code == 403
