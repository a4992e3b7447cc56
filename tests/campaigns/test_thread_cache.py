"""Kept thread pages (issue 12): a repeat view is answered from the page this process kept, and no change,
viewer, language, session or form ever gets a page that is not its own."""

from __future__ import annotations

import re
import time
from datetime import timedelta

import pytest
from django.contrib.messages import constants as message_levels
from django.contrib.messages.storage.fallback import FallbackStorage
from django.db import connection
from django.test import Client
from django.test.client import RequestFactory
from django.test.utils import CaptureQueriesContext

from accounts.models import User
from campaigns import events, policy, selectors, services, thread_cache
from campaigns.models import Scene, Voice
from campaigns.policy import Viewer
from campaigns.views import scenes as scene_views
from characters import services as character_services
from notifications import services as notification_services
from tests.campaigns.web_helpers import client_for
from tests.personas import Table

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _numbered(monkeypatch: pytest.MonkeyPatch) -> None:
    # A test's transaction never commits, so no event is numbered after commit: number them by hand (the
    # stranded sweep, with no wait), as the after-commit step would have.
    monkeypatch.setattr(events, "STRANDED_AFTER", timedelta(0))


@pytest.fixture
def page_renders(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The thread pages rendered during the test (a kept page is not rendered)."""
    rendered: list[str] = []
    original = thread_cache.render_to_string

    def counting(template: str, context: dict[str, object], request: object) -> str:
        rendered.append(template)
        return original(template, context, request)  # type: ignore[arg-type]

    monkeypatch.setattr(thread_cache, "render_to_string", counting)
    return rendered


def number_events() -> None:
    events.number_stranded_events(limit=10_000)


def page(client: Client, table: Table, query: str = "", **headers: str) -> str:
    response = client.get(f"/scenes/{table.scene.pk}/{query}", headers=headers)
    assert response.status_code == 200
    return response.content.decode()


def comparable(html: str) -> str:
    """The page without what each response fills in for itself."""
    html = re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", html)
    html = re.sub(r'"X-CSRFToken": "[^"]+"', "", html)
    return re.sub(r'data-live-since="\d+"', "", html)


def kept_view(client: Client, table: Table) -> str:
    """View the page until the next view is answered from the kept page: the first view moves the read
    marker, which is in the key, so the second is the one kept."""
    number_events()
    page(client, table)
    return page(client, table)


def test_a_repeat_view_renders_nothing_and_asks_only_for_the_session_the_user_and_the_scene(
    table: Table, page_renders: list[str], fragment_renders: list[str]
) -> None:
    player = client_for(table.player)
    second = kept_view(player, table)
    page_renders.clear()
    fragment_renders.clear()
    with CaptureQueriesContext(connection) as queries:
        third = page(player, table)
    assert page_renders == [] and fragment_renders == []
    assert len(queries) == 3, [q["sql"][:80] for q in queries]
    assert comparable(third) == comparable(second)
    assert "TEXTO-PARA-TODOS" in third and "TEXTO-SUSURRO" in third


def test_every_change_to_the_campaign_shows_at_once(table: Table) -> None:
    gm = client_for(table.gm)
    kept_view(gm, table)
    services.create_post(author=table.player2, scene=table.scene, body="RESPUESTA-NUEVA", voice=Voice.OOC)
    # Committed but not yet numbered: rendered, not kept, and never the old page.
    assert "RESPUESTA-NUEVA" in page(gm, table)
    number_events()
    assert "RESPUESTA-NUEVA" in page(gm, table)
    services.edit_post(actor=table.player, post=table.post_all, body="TEXTO-CORREGIDO")
    number_events()
    assert "TEXTO-CORREGIDO" in page(gm, table)
    services.delete_post(actor=table.player, post=table.post_all)
    number_events()
    assert "TEXTO-CORREGIDO" not in page(client_for(table.player2), table)
    character_services.update_character(actor=table.player, character=table.character, name="Lucía Vega")
    number_events()
    assert "Lucía Vega" in page(gm, table)


def test_a_new_name_of_another_account_shows_at_once(table: Table) -> None:
    gm = client_for(table.gm)
    assert "Bruno" in kept_view(gm, table)
    author = User.objects.get(pk=table.player2.pk)  # as the profile page loads it
    author.display_name = "Bruno Díaz"
    author.save()
    assert "Bruno Díaz" in page(gm, table)


def test_a_save_that_changes_no_public_field_keeps_the_pages(table: Table, page_renders: list[str]) -> None:
    gm = client_for(table.gm)
    kept_view(gm, table)
    author = User.objects.get(pk=table.player2.pk)
    author.set_password("otra-clave-larga-42")
    author.save()
    author.save(update_fields=["last_login"])
    page_renders.clear()
    page(gm, table)
    assert page_renders == []


def test_no_viewer_gets_another_viewers_page(table: Table) -> None:
    # The GM's page is kept first: nobody else may be answered with it.
    gm_page = kept_view(client_for(table.gm), table)
    assert "TEXTO-SOLO-MASTERS" in gm_page
    for user in (table.player, table.player2, table.reader, table.outsider, None):
        html = kept_view(client_for(user), table)
        assert ("TEXTO-SOLO-MASTERS" in html) == (user == table.player2)  # its author
        assert ("TEXTO-SUSURRO" in html) == (user == table.player)
        assert ('id="composer"' in html) == (user in (table.player, table.player2))


def test_what_was_unread_is_not_unread_on_the_next_view(table: Table) -> None:
    reader = client_for(table.reader)
    number_events()
    assert 'class="badge unread"' in page(reader, table)  # all new to the reader; the view reads them
    assert 'class="badge unread"' not in page(reader, table)


def test_each_language_has_its_own_page(table: Table) -> None:
    reader = client_for(table.reader)
    number_events()
    page(reader, table)
    spanish = page(reader, table)
    english = page(reader, table, **{"Accept-Language": "en"})
    assert '<html lang="es">' in spanish and '<html lang="en">' in english
    assert "Saltar al contenido" in spanish and "Skip to content" in english


def test_the_csrf_token_is_the_sessions_own(table: Table) -> None:
    kept_view(client_for(table.player), table)
    other_session = Client(enforce_csrf_checks=True)
    other_session.force_login(table.player)
    html = page(other_session, table)
    tokens = set(re.findall(r'name="csrfmiddlewaretoken" value="([^"]+)"', html))
    tokens |= set(re.findall(r'"X-CSRFToken": "([^"]+)"', html))
    assert len(tokens) == 1 and thread_cache.CSRF_SLOT not in html
    response = other_session.post(
        f"/scenes/{table.scene.pk}/posts/",
        {
            "body": "CON-EL-TOKEN-SERVIDO",
            "voice": "ooc",
            "recipients": "all",
            "page": 1,
            "csrfmiddlewaretoken": tokens.pop(),
        },
    )
    assert response.status_code == 302
    refused = other_session.post(f"/scenes/{table.scene.pk}/posts/", {"body": "SIN-TOKEN", "voice": "ooc"})
    assert refused.status_code == 403


def test_the_live_time_is_this_requests(table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    player = client_for(table.player)
    kept_view(player, table)
    later = time.time() + 3_600  # an hour after the page was kept
    monkeypatch.setattr(scene_views.time, "time", lambda: later)
    assert f'data-live-since="{int(later)}"' in page(player, table)


def test_each_procedure_form_gets_a_new_idempotency_key() -> None:
    kept = f'<input value="{thread_cache.IDEMPOTENCY_SLOT}"><input value="{thread_cache.IDEMPOTENCY_SLOT}">'
    request = RequestFactory().get("/")
    keys = [
        re.findall(r'value="([^"]+)"', thread_cache.respond(request, kept, read_at=0).content.decode())
        for _ in range(2)
    ]
    assert all(len(found) == 2 for found in keys)
    assert len({*keys[0], *keys[1]}) == 4


@pytest.mark.parametrize("query", ["?quote=1", "?builder=1"])
def test_one_off_pages_are_not_kept(table: Table, query: str) -> None:
    request = RequestFactory().get(f"/scenes/{table.scene.pk}/{query}")
    request.user = table.player
    assert thread_cache.page_key(request, _scene_for(table), _viewer(table), True) is None


def test_a_page_with_a_message_is_not_kept(table: Table) -> None:
    request = RequestFactory().get(f"/scenes/{table.scene.pk}/")
    request.user = table.player
    request.session = {}  # type: ignore[assignment]
    request._messages = FallbackStorage(request)  # type: ignore[attr-defined]
    scene, viewer = _scene_for(table), _viewer(table)
    assert thread_cache.page_key(request, scene, viewer, True) is not None
    request._messages.add(message_levels.SUCCESS, "Publicado")  # type: ignore[attr-defined]
    assert thread_cache.page_key(request, scene, viewer, True) is None


def test_a_scene_with_an_open_roll_request_is_not_kept(table: Table, page_renders: list[str]) -> None:
    player = client_for(table.player)
    kept_view(player, table)
    request = notification_services.request_roll(
        actor=table.gm, scene=table.scene, character=table.character, expression="7d6+13", label="PRUEBA-PEDIDA"
    )
    html = page(player, table)
    assert "7d6+13" in html and "PRUEBA-PEDIDA" in html  # pre-filled to answer it, though no event was logged
    page_renders.clear()
    page(player, table)
    assert page_renders  # rendered again, not kept
    notification_services.cancel_roll_request(actor=table.gm, request=request)
    html = page(player, table)
    assert "7d6+13" not in html and "PRUEBA-PEDIDA" not in html


def test_the_cache_can_be_turned_off(table: Table, settings: object, page_renders: list[str]) -> None:
    player = client_for(table.player)
    kept_view(player, table)
    page_renders.clear()
    page(player, table)
    assert page_renders == []
    settings.THREAD_PAGE_CACHE_ENTRIES = 0  # type: ignore[attr-defined]
    page(player, table)
    assert page_renders == ["campaigns/scene.html"]


def _scene_for(table: Table) -> Scene:
    number_events()
    return selectors.scene_for(table.player, table.scene.pk, for_thread=True)[0]


def _viewer(table: Table) -> Viewer:
    return policy.viewer_for(table.player, table.campaign)
