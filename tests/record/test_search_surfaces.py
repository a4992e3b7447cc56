"""Search on the page and in the API: same results, same policy, permalinks, clear errors."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from campaigns import services
from campaigns.models import Voice
from tests.personas import Table

pytestmark = pytest.mark.django_db


def _client(user: object) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)  # type: ignore[arg-type]
    return client


def _api(user: object) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)  # type: ignore[arg-type]
    return client


def test_page_shows_highlighted_hits_linked_to_permalinks(table: Table) -> None:
    response = _client(table.player).get(f"/buscar/?q=TEXTO&campaign={table.campaign.pk}")
    html = response.content.decode()
    assert response.status_code == 200
    assert f'href="/posts/{table.post_all.pk}/"' in html
    assert "<mark>TEXTO</mark>" in html
    assert "SUSURRO" in html  # the first player is the whisper's recipient
    assert "SOLO-MASTERS" not in html


@pytest.mark.parametrize("role", ["reader", "outsider", "anonymous"])
def test_page_hides_what_the_viewer_may_not_read(table: Table, role: str) -> None:
    html = _client(table.user(role)).get("/buscar/", {"q": "TEXTO"}).content.decode()
    assert "PARA-TODOS" in html
    assert "SUSURRO" not in html and "SOLO-MASTERS" not in html


def test_page_without_query_shows_the_form(table: Table) -> None:
    response = _client(table.player).get("/buscar/")
    assert response.status_code == 200
    assert 'name="q"' in response.content.decode()


def test_page_refuses_bad_dates_with_a_form_error(table: Table) -> None:
    response = _client(table.gm).get("/buscar/", {"q": "x", "since": "2026-02-02", "until": "2026-01-01"})
    assert response.status_code == 200
    assert "La fecha final es anterior a la inicial." in response.content.decode()


def test_page_pagination_keeps_the_filters(table: Table) -> None:
    for n in range(25):
        services.create_post(author=table.gm, scene=table.scene, body=f"farol {n}", voice=Voice.OOC)
    html = _client(table.gm).get("/buscar/", {"q": "farol", "voice": "ooc"}).content.decode()
    assert "q=farol&amp;voice=ooc&amp;page=2" in html


def test_api_matches_the_policy(table: Table) -> None:
    body = _api(table.player2).get("/api/search/", {"q": "TEXTO"}).json()
    ids = {hit["id"] for hit in body["results"]}
    assert ids == {table.post_all.pk, table.post_gms.pk}
    hit = next(h for h in body["results"] if h["id"] == table.post_all.pk)
    assert hit["url"] == f"/posts/{table.post_all.pk}/"
    assert hit["character"] == {"id": table.character.pk, "name": "Lucía"}
    assert "<mark>" in hit["body_snippet"]


def test_api_paginates(table: Table) -> None:
    for n in range(5):
        services.create_post(author=table.gm, scene=table.scene, body=f"farol {n}", voice=Voice.OOC)
    body = _api(table.gm).get("/api/search/?q=farol&page_size=2").json()
    assert body["count"] == 5 and len(body["results"]) == 2
    assert "page=2" in body["next"] and body["previous"] is None


def test_api_errors_are_json(table: Table) -> None:
    response = _api(table.gm).get("/api/search/", {"voice": "loud"})
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid" and set(error["fields"]) == {"q", "voice"}
