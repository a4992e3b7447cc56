"""The API as a whole: the OpenAPI schema, the offline docs, pagination everywhere, constant query counts."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from drf_spectacular.validation import validate_schema
from rest_framework.test import APIClient

from campaigns import services
from campaigns.markdown import RENDERER_VERSION
from campaigns.models import Post, Recipients, Voice
from tests.api.conftest import ApiFor
from tests.personas import Table, make_user

pytestmark = pytest.mark.django_db

EXTERNAL = re.compile(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", re.I)


def _schema() -> dict:
    response = APIClient().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    return response.json()


def test_schema_is_valid_openapi_3() -> None:
    schema = _schema()
    assert schema["openapi"].startswith("3.")
    validate_schema(schema)  # raises on an invalid document
    paths = schema["paths"]
    assert {"/api/auth/token/", "/api/campaigns/", "/api/scenes/{scene_id}/posts/", "/api/unread/"} <= set(paths)
    campaign = schema["components"]["schemas"]["CampaignDetail"]
    assert "gm_notes" in campaign["properties"]
    assert "gm_notes" not in campaign["required"]  # absent for non-GMs, never null
    errors = paths["/api/campaigns/{campaign_id}/"]["patch"]["responses"]
    assert {"400", "401", "403", "404"} <= set(errors)
    assert errors["400"]["content"]["application/json"]["schema"]["$ref"] == "#/components/schemas/Error"


def test_every_list_in_the_schema_is_paginated() -> None:
    lists = 0
    for path, operations in _schema()["paths"].items():
        for method, operation in operations.items():
            ok = operation["responses"].get("200", {}).get("content", {}).get("application/json", {})
            schema = ok.get("schema", {})
            assert schema.get("type") != "array", f"{method} {path} returns a bare list"
            if schema.get("$ref", "").startswith("#/components/schemas/Paginated"):
                lists += 1
                assert {"page", "page_size"} <= {p["name"] for p in operation["parameters"]}
    # Every app contributes lists; the count only guards against the check silently matching nothing.
    assert lists >= 14


@pytest.mark.parametrize("url", ["/api/docs/", "/api/redoc/"])
def test_docs_pages_load_nothing_from_the_internet(url: str) -> None:
    response = APIClient().get(url)
    assert response.status_code == 200
    html = response.content.decode()
    assert not EXTERNAL.search(html), html
    assert "/static/drf_spectacular_sidecar/" in html
    # Swagger UI's start-up script is a file of its own (the CSP allows no inline script): the schema URL
    # is there.
    scripts = [APIClient().get(src).content.decode() for src in re.findall(r'src="(/api/[^"]+)"', html)]
    assert "/api/schema/" in html or any("/api/schema/" in script for script in scripts)
    assert "<script>" not in html
    for asset in re.findall(r"""(?:src|href)="([^"]+)\"""", html):
        assert asset.startswith("/static/") or asset.startswith("/api/"), asset


def test_every_list_endpoint_answers_a_page(table: Table, api: ApiFor) -> None:
    invitation = services.invite(actor=table.gm, campaign=table.campaign, user=table.outsider, role="reader")
    services.request_to_join(user=make_user("hopeful"), campaign=table.campaign)
    services.edit_post(actor=table.player, post=table.post_all, body="editado")
    c, s, p = table.campaign.pk, table.scene.pk, table.post_all.pk
    urls = [
        "/api/campaigns/",
        "/api/campaigns/?mine=1",
        f"/api/campaigns/{c}/members/",
        f"/api/campaigns/{c}/join-requests/",
        f"/api/campaigns/{c}/invitations/",
        f"/api/campaigns/{c}/scenes/",
        f"/api/scenes/{s}/aspects/",
        f"/api/scenes/{s}/posts/",
        f"/api/posts/{p}/revisions/",
        "/api/unread/",
    ]
    for url in urls:
        body = api(table.gm).get(url, {"page_size": 1}).json()
        assert set(body) == {"count", "next", "previous", "results"}, url
        # A thread's page holds page_size posts to everyone, plus the restricted posts among them.
        results = [r for r in body["results"] if r.get("recipients", "all") == "all"]
        assert len(results) <= 1, url
    mine = api(table.outsider).get("/api/invitations/").json()
    assert set(mine) == {"count", "next", "previous", "results"}
    assert mine["results"][0]["id"] == invitation.pk


def _count_queries(client: APIClient, url: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, response.content
    return len(queries)


def _add_posts(table: Table, n: int) -> None:
    author, html = table.player, "<p>x</p>\n"
    Post.objects.bulk_create(
        Post(
            scene=table.scene,
            author=author if i % 2 else table.gm,
            voice=Voice.CHARACTER if i % 2 else Voice.NARRATOR,
            character=table.character if i % 2 else None,
            body_source="x",
            body_html=html,
            renderer_version=RENDERER_VERSION,
            recipients=Recipients.EVERYONE if i % 3 else Recipients.WHISPER,
        )
        for i in range(n)
    )
    for post in Post.objects.filter(scene=table.scene, recipients=Recipients.WHISPER):
        post.whisper_to.set([table.player.pk, table.player2.pk])


@pytest.mark.parametrize("persona", ["gm", "player", "reader", "anonymous"])
def test_posts_list_queries_do_not_grow_with_posts(table: Table, api: ApiFor, persona: str) -> None:
    client = api(table.user(persona))
    url = f"/api/scenes/{table.scene.pk}/posts/?page_size=100"
    _add_posts(table, 7)  # 10 posts in all
    few = _count_queries(client, url)
    _add_posts(table, 990)  # 1,000
    many = _count_queries(client, url)
    assert few == many
    assert many <= 8


def test_campaigns_and_scenes_lists_queries_do_not_grow(table: Table, api: ApiFor) -> None:
    client = api(table.player)
    for _ in range(2):
        other = services.create_campaign(creator=make_user(f"gm{_}"), title="Otra", ruleset="generic")
        services.invite(actor=other.memberships.get().user, campaign=other, user=table.player, role="player")
    few = _count_queries(client, "/api/campaigns/?page_size=100")
    few_mine = _count_queries(client, "/api/campaigns/?mine=1")
    few_scenes = _count_queries(api(table.gm), f"/api/campaigns/{table.campaign.pk}/scenes/")
    for i in range(27):
        services.create_campaign(creator=make_user(f"more{i}"), title=f"Más {i}", ruleset="generic")
        services.create_scene(actor=table.gm, campaign=table.campaign, title=f"Escena {i}")
    assert _count_queries(client, "/api/campaigns/?page_size=100") == few
    assert _count_queries(client, "/api/campaigns/?mine=1") == few_mine
    assert _count_queries(api(table.gm), f"/api/campaigns/{table.campaign.pk}/scenes/") == few_scenes
    assert few <= 4


def test_membership_lists_queries_do_not_grow(table: Table, api: ApiFor) -> None:
    c = table.campaign.pk
    urls = [f"/api/campaigns/{c}/join-requests/", f"/api/campaigns/{c}/invitations/", f"/api/campaigns/{c}/members/"]

    def add(i: int) -> None:
        services.request_to_join(user=make_user(f"asks{i}"), campaign=table.campaign)
        services.invite(actor=table.gm, campaign=table.campaign, user=make_user(f"invited{i}"), role="player")
        gm = make_user(f"other-gm{i}")
        other = services.create_campaign(creator=gm, title=f"Otra {i}", ruleset="generic")
        services.invite(actor=gm, campaign=other, user=table.outsider, role="reader")

    add(0)
    few = [_count_queries(api(table.gm), url) for url in urls]
    few_mine = _count_queries(api(table.outsider), "/api/invitations/")
    for i in range(1, 6):
        add(i)
    assert [_count_queries(api(table.gm), url) for url in urls] == few
    assert _count_queries(api(table.outsider), "/api/invitations/") == few_mine
    assert api(table.outsider).get("/api/invitations/").json()["count"] == 6
