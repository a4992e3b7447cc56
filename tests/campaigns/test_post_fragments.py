"""Kept post fragments (issue 12): a thread page renders each post's shared part once, and a kept part never
shows what changed since, nor one viewer's badge or actions to another."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from campaigns import post_fragments, services
from campaigns.models import Post, Voice
from tests.campaigns.web_helpers import client_for
from tests.personas import Table

pytestmark = pytest.mark.django_db


def _article(html: str, post: Post) -> str:
    found = re.search(rf'<article id="post-{post.pk}".*?</article>', html, re.S)
    assert found is not None, f"post {post.pk} is not on the page"
    return found.group(0)


def _page(client: Client, table: Table, language: str = "") -> str:
    headers = {"Accept-Language": language} if language else {}
    response = client.get(f"/scenes/{table.scene.pk}/", headers=headers)
    assert response.status_code == 200
    return response.content.decode()


def test_a_second_view_renders_no_post_again(table: Table, fragment_renders: list[str]) -> None:
    rendered = fragment_renders
    first = _page(client_for(table.gm), table)
    assert rendered.count(post_fragments.CORE_TEMPLATE) == 3  # the GM reads all three posts
    rendered.clear()
    second = _page(client_for(table.gm), table)
    assert post_fragments.CORE_TEMPLATE not in rendered
    assert post_fragments.ACTIONS_TEMPLATE not in rendered
    for post in (table.post_all, table.post_gms, table.whisper):
        assert _article(second, post).replace(" unread", "").replace(
            '<span class="badge unread">nuevo</span>', ""
        ) == _article(first, post).replace(" unread", "").replace('<span class="badge unread">nuevo</span>', "")


def test_an_edit_shows_at_once(table: Table) -> None:
    gm = client_for(table.gm)
    assert "TEXTO-PARA-TODOS" in _article(_page(gm, table), table.post_all)
    services.edit_post(actor=table.player, post=table.post_all, body="TEXTO-CORREGIDO")
    article = _article(_page(gm, table), table.post_all)
    assert "TEXTO-CORREGIDO" in article and "TEXTO-PARA-TODOS" not in article
    assert "editado" in article


def test_a_new_name_a_new_character_name_and_a_new_face_show_at_once(table: Table) -> None:
    gm = client_for(table.gm)
    before = _article(_page(gm, table), table.post_all)
    assert "Lucía" in before and "Ana" in before and "<img" not in before
    table.player.display_name = "Ana María"
    table.player.save()
    assert "Ana María" in _article(_page(gm, table), table.post_all)
    table.character.name = "Lucía Vega"
    table.character.save()
    assert "Lucía Vega" in _article(_page(gm, table), table.post_all)
    table.character.portrait.name = "portraits/lucia.png"
    table.character.save()
    assert "portraits/lucia.png" in _article(_page(gm, table), table.post_all)


def test_the_unread_badge_and_the_actions_are_each_viewers_own(table: Table) -> None:
    # The GM renders first, so the kept shared part is the one the player then gets.
    gm_article = _article(_page(client_for(table.gm), table), table.post_all)
    assert "Borrar" in gm_article and "Editar" not in gm_article  # a GM deletes, only the author edits
    player = client_for(table.player)
    first = _article(_page(player, table), table.post_all)
    assert "Editar" in first and "Citar" in first
    again = _article(_page(player, table), table.post_all)
    # The player wrote it: never unread to them. A new post by someone else is, once.
    assert 'class="badge unread"' not in first and 'class="badge unread"' not in again
    newer = services.create_post(author=table.player2, scene=table.scene, body="RESPUESTA", voice=Voice.OOC)
    unread = _article(_page(player, table), newer)
    assert 'class="badge unread"' in unread and " unread" in unread.split(">", 1)[0]
    read = _article(_page(player, table), newer)
    assert 'class="badge unread"' not in read and "<!--" not in read
    assert "Editar" not in read  # not the player's post


def test_each_language_has_its_own_kept_part(table: Table) -> None:
    client = client_for(None)
    spanish = _article(_page(client, table), table.post_all)
    english = _article(_page(client, table, language="en"), table.post_all)
    assert "por Ana" in spanish
    assert "by Ana" in english and "por Ana" not in english


def test_the_composer_fields_are_each_writers_own(table: Table) -> None:
    gm_page = _page(client_for(table.gm), table)
    player_page = _page(client_for(table.player), table)
    narrator = 'value="narrator"'
    assert narrator in gm_page and narrator not in player_page
    assert "Lucía" in player_page.split('id="composer"', 1)[1]
    # A refused post comes back with its text and the error: a bound form is never a kept one.
    response = client_for(table.player).post(
        f"/scenes/{table.scene.pk}/posts/", {"voice": "ooc", "body": "", "recipients": "all"}
    )
    composer = response.content.decode().split('id="composer"', 1)[1]
    assert "has-error" in composer
    assert "has-error" not in _page(client_for(table.player), table).split('id="composer"', 1)[1]


def test_a_bound_form_is_rendered_afresh_each_time(table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    from campaigns import policy
    from campaigns.views.scenes import composer_form
    from tintero import field_fragments

    renders: list[int] = []
    original = field_fragments._render

    def counting(fields: list[object]) -> object:
        renders.append(len(fields))
        return original(fields)  # type: ignore[arg-type]

    monkeypatch.setattr(field_fragments, "_render", counting)
    viewer = policy.viewer_for(table.player, table.campaign)
    refused = composer_form(viewer, table.scene, {"voice": "ooc", "body": "", "recipients": "all"})
    assert not refused.is_valid()
    for _ in range(2):
        assert "has-error" in field_fragments.field_groups(refused, refused.story_fields())
    assert len(renders) == 2
    for _ in range(2):
        empty = composer_form(viewer, table.scene)
        assert "has-error" not in field_fragments.field_groups(empty, empty.story_fields())
    assert len(renders) == 3  # the empty form once, then kept
