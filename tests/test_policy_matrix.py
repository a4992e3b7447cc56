"""The permission policy as one matrix: role x campaign visibility x scene access x post recipients x surface.

Every cell renders the real HTML page or the real API JSON for the persona and checks for the unique
marker texts the table's posts, notes and hidden aspects carry: what a persona may not see must not be
anywhere in the bytes they receive.
"""

from __future__ import annotations

import itertools

import pytest
from django.test import Client

from accounts.services import issue_token
from campaigns import services
from campaigns.models import Campaign, Voice
from tests.personas import Table, build_table

pytestmark = pytest.mark.django_db

ROLES = ["gm", "player", "player2", "reader", "outsider", "anonymous"]
MEMBERS = {"gm", "player", "player2", "reader"}
SECRET_GM_NOTES = "SECRETO-GM"
HIDDEN_ASPECT = "ASPECTO-OCULTO"
LISTED_POST = "TEXTO-ESCENA-APARTE"
REVISED_WHISPER = "SUSURRO-ORIGINAL"

# What each role may see in the open scene of a *public* campaign (private: only members see anything).
POSTS_SEEN = {
    "gm": {"TEXTO-PARA-TODOS", "TEXTO-SOLO-MASTERS", "TEXTO-SUSURRO"},
    "player": {"TEXTO-PARA-TODOS", "TEXTO-SUSURRO"},
    "player2": {"TEXTO-PARA-TODOS", "TEXTO-SOLO-MASTERS"},
    "reader": {"TEXTO-PARA-TODOS"},
    "outsider": {"TEXTO-PARA-TODOS"},
    "anonymous": {"TEXTO-PARA-TODOS"},
}
ALL_POST_MARKERS = {"TEXTO-PARA-TODOS", "TEXTO-SOLO-MASTERS", "TEXTO-SUSURRO"}


def _prepare(visibility: str) -> Table:
    table = build_table(visibility, prefix=f"{visibility}_")
    # A game that plays with aspects on the scene board (only those show the board).
    Campaign.objects.filter(pk=table.campaign.pk).update(ruleset="fate-accelerated", rules_settings={})
    table.campaign.refresh_from_db()
    services.add_scene_aspect(actor=table.gm, scene=table.scene, text=HIDDEN_ASPECT, hidden=True)
    services.create_post(author=table.player, scene=table.listed_scene, body=LISTED_POST)
    # The whisper's earlier text lives in a revision: it must not leak through the history either.
    services.edit_post(actor=table.gm, post=table.whisper, body="TEXTO-SUSURRO")
    table.whisper.refresh_from_db()
    services.create_post(author=table.gm, scene=table.scene, body="relleno", voice=Voice.NARRATOR)
    return table


def _html_client(table: Table, role: str) -> Client:
    client = Client()
    user = table.user(role)
    if user is not None:
        client.force_login(user)
    return client


def _api_client(table: Table, role: str) -> Client:
    user = table.user(role)
    if user is None:
        return Client()
    return Client(HTTP_AUTHORIZATION=f"Token {issue_token(user=user).key}")


def _fetch(client: Client, url: str, *, follow: bool = False) -> tuple[int, str]:
    response = client.get(url, follow=follow)
    return response.status_code, response.content.decode()


CELLS = list(itertools.product(["public", "private"], ROLES, ["html", "api"]))


@pytest.fixture
def tables(db: None) -> dict[str, Table]:
    return {"public": _prepare("public"), "private": _prepare("private")}


@pytest.mark.parametrize(("visibility", "role", "surface"), CELLS, ids=["-".join(c) for c in CELLS])
def test_scene_thread(tables: dict[str, Table], visibility: str, role: str, surface: str) -> None:
    table = tables[visibility]
    sees_campaign = visibility == "public" or role in MEMBERS
    if surface == "html":
        status, body = _fetch(_html_client(table, role), f"/scenes/{table.scene.pk}/")
    else:
        status, body = _fetch(_api_client(table, role), f"/api/scenes/{table.scene.pk}/posts/?page_size=100")
    if not sees_campaign:
        assert status == 404
        assert not any(marker in body for marker in ALL_POST_MARKERS)
        return
    assert status == 200
    expected = POSTS_SEEN[role]
    for marker in ALL_POST_MARKERS:
        assert (marker in body) == (marker in expected), f"{marker} for {role}"
    assert (HIDDEN_ASPECT in body) == (role == "gm" and surface == "html")


@pytest.mark.parametrize(("visibility", "role", "surface"), CELLS, ids=["-".join(c) for c in CELLS])
def test_single_posts_and_revisions(tables: dict[str, Table], visibility: str, role: str, surface: str) -> None:
    table = tables[visibility]
    sees_campaign = visibility == "public" or role in MEMBERS
    for post, marker in (
        (table.post_all, "TEXTO-PARA-TODOS"),
        (table.post_gms, "TEXTO-SOLO-MASTERS"),
        (table.whisper, "TEXTO-SUSURRO"),
    ):
        may_see = sees_campaign and marker in POSTS_SEEN[role]
        if surface == "html":
            status, body = _fetch(_html_client(table, role), f"/posts/{post.pk}/", follow=True)
        else:
            status, body = _fetch(_api_client(table, role), f"/api/posts/{post.pk}/")
        assert (status == 200) == may_see, (marker, status)
        if not may_see:
            assert marker not in body
    # The whisper's history: only the GM (its author) may read it, on both surfaces.
    url = f"/posts/{table.whisper.pk}/revisions/" if surface == "html" else f"/api/posts/{table.whisper.pk}/revisions/"
    client = _html_client(table, role) if surface == "html" else _api_client(table, role)
    status, body = _fetch(client, url)
    assert (status == 200) == (role == "gm")
    if role != "gm":
        assert "TEXTO-SUSURRO" not in body


@pytest.mark.parametrize(("visibility", "role", "surface"), CELLS, ids=["-".join(c) for c in CELLS])
def test_listed_scene_and_campaign_page(tables: dict[str, Table], visibility: str, role: str, surface: str) -> None:
    table = tables[visibility]
    sees_campaign = visibility == "public" or role in MEMBERS
    reads_listed = role in {"gm", "player"}
    if surface == "html":
        client = _html_client(table, role)
        listed_status, listed_body = _fetch(client, f"/scenes/{table.listed_scene.pk}/")
        page_status, page_body = _fetch(client, f"/campaigns/{table.campaign.pk}/")
    else:
        client = _api_client(table, role)
        listed_status, listed_body = _fetch(client, f"/api/scenes/{table.listed_scene.pk}/posts/")
        page_status, page_body = _fetch(client, f"/api/campaigns/{table.campaign.pk}/")
    assert (listed_status == 200) == reads_listed
    assert (LISTED_POST in listed_body) == reads_listed
    assert (page_status == 200) == sees_campaign
    assert (SECRET_GM_NOTES in page_body) == (role == "gm")
    if surface == "api" and sees_campaign:
        _, scenes_body = _fetch(client, f"/api/campaigns/{table.campaign.pk}/scenes/")
        assert ("Aparte" in scenes_body) == reads_listed


@pytest.mark.parametrize("surface", ["html", "api"])
def test_unread_lists_never_name_invisible_posts(tables: dict[str, Table], surface: str) -> None:
    table = tables["public"]
    for role in ("player2", "reader"):
        if surface == "html":
            status, body = _fetch(_html_client(table, role), "/novedades/")
        else:
            status, body = _fetch(_api_client(table, role), "/api/unread/")
        assert status == 200
        assert "Aparte" not in body  # the listed scene is not theirs to read
        assert "TEXTO-SUSURRO" not in body
