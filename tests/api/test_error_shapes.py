"""One JSON error shape for every /api/ response (404, 405, 413, parse errors included), and a 400 with a
message for every malformed input: huge ids, NUL characters, deep nesting, racing duplicates, multipart
bodies with nothing in them. OPTIONS never fails."""

from __future__ import annotations

import json
import re
from typing import Any
from unittest import mock

import pytest
from django.http import HttpResponse, JsonResponse
from django.test import Client, RequestFactory, override_settings
from rest_framework.test import APIClient

from campaigns import services
from campaigns.models import Invitation, JoinRequest, Post
from tests.api.conftest import ApiFor, assert_error
from tests.personas import Table, make_user
from tintero.api.middleware import ApiErrorMiddleware

pytestmark = pytest.mark.django_db

BIG = 2**64


def _client(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    client.raise_request_exception = False
    return client


@pytest.mark.parametrize(
    ("method", "path"),
    [("get", "/api/no-such-thing/"), ("get", "/api/campaigns/1/nope/"), ("post", "/api/x"), ("get", "/api/")],
)
def test_unknown_api_paths_are_json_404(method: str, path: str) -> None:
    response = getattr(Client(), method)(path)
    assert response["Content-Type"].startswith("application/json")
    assert_error(response, 404)
    assert response.json()["error"]["code"] == "not_found"


def test_405_is_json_with_allow(table: Table, api: ApiFor) -> None:
    response = api(table.gm).put("/api/me/", {}, format="json")
    assert_error(response, 405)
    assert "GET" in response["Allow"]


def test_options_answers_on_every_api_endpoint(table: Table) -> None:
    from django.urls import URLResolver, get_resolver

    client = _client(table.gm)
    resolver = get_resolver()
    api_patterns = resolver.url_patterns
    checked = 0
    for pattern in api_patterns:
        if str(pattern.pattern) != "api/":
            continue
        assert isinstance(pattern, URLResolver)
        for sub in pattern.url_patterns:
            route = str(sub.pattern)
            if route.startswith(("schema", "docs", "redoc")):
                continue
            path = "/api/" + route.replace("<int:", "").replace("<str:", "")
            path = "".join("1" if part.endswith(">") else part for part in _split(path))
            response = client.options(path)
            assert response.status_code in (200, 404), (path, response.status_code, response.content)
            assert response["Content-Type"].startswith("application/json")
            checked += 1
    assert checked > 40


def _split(path: str) -> list[str]:
    # "campaigns/campaign_id>/x" -> ["campaigns/", "campaign_id>", "/x"]
    parts, current = [], ""
    for char in path:
        current += char
        if char == ">":
            parts.append(current.rsplit("/", 1)[0] + "/")
            parts.append(current.rsplit("/", 1)[1])
            current = ""
    parts.append(current)
    return parts


@pytest.mark.parametrize(
    "body",
    [
        {"body": "x", "recipients": "whisper", "whisper_to": [BIG]},
        {"body": "x", "recipients": "whisper", "whisper_to": [2**63]},
        {"body": "x", "voice": "character", "character": BIG},
    ],
)
def test_ids_above_2_63_are_a_400(table: Table, body: dict[str, Any]) -> None:
    response = _client(table.gm).post(f"/api/scenes/{table.scene.pk}/posts/", body, format="json")
    assert_error(response, 400)
    assert Post.objects.count() == 3


def test_huge_ids_elsewhere_and_in_form_bodies_are_a_400(table: Table) -> None:
    client = _client(table.gm)
    assert_error(client.patch(f"/api/scenes/{table.listed_scene.pk}/", {"readers": [BIG]}, format="json"), 400)
    assert_error(client.patch(f"/api/scenes/{table.listed_scene.pk}/", {"readers": [str(BIG)]}, format="json"), 400)
    assert_error(client.post(f"/api/campaigns/{table.campaign.pk}/invitations/", {"user": BIG}, format="json"), 400)
    reorder = f"/api/campaigns/{table.campaign.pk}/scenes/reorder/"
    assert_error(client.post(reorder, {"scene_ids": [BIG]}, format="json"), 400)
    form = client.post(
        f"/api/scenes/{table.scene.pk}/posts/", {"body": "x", "recipients": "whisper", "whisper_to": [str(BIG)]}
    )
    assert_error(form, 400, "whisper_to")
    assert_error(client.get(f"/api/campaigns/{BIG}/"), 404)


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/scenes/{scene}/posts/", {"body": "x\x00y"}),
        ("/api/campaigns/{campaign}/", {"rules_settings": {"nota\x00": "b"}}),
        ("/api/campaigns/{campaign}/", {"rules_settings": {"a": ["b\x00"]}}),
        ("/api/characters/{character}/", {"sheet": {"x": "\x00"}}),
    ],
)
def test_nul_characters_in_json_are_a_400_on_every_database(table: Table, path: str, body: dict[str, Any]) -> None:
    url = path.format(scene=table.scene.pk, campaign=table.campaign.pk, character=table.character.pk)
    method = "post" if url.endswith("posts/") else "patch"
    error = assert_error(getattr(_client(table.gm), method)(url, body, format="json"), 400)
    assert "nulo" in error["message"] or "nulos" in error["message"]


def test_deeply_nested_json_is_a_400(table: Table) -> None:
    client = _client(table.gm)
    for depth in (40, 100_000):
        response = client.generic(
            "POST", f"/api/scenes/{table.scene.pk}/posts/", "[" * depth + "]" * depth, content_type="application/json"
        )
        error = assert_error(response, 400)
        assert error["code"] == "parse_error"


def test_malformed_json_is_a_json_400(table: Table) -> None:
    response = _client(table.gm).generic(
        "POST", f"/api/scenes/{table.scene.pk}/posts/", "{nope", content_type="application/json"
    )
    assert assert_error(response, 400)["code"] == "parse_error"


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1000)
def test_an_oversized_body_is_a_json_413(table: Table) -> None:
    body = '{"body": "' + "x" * 2000 + '"}'
    response = _client(table.gm).generic(
        "POST", f"/api/scenes/{table.scene.pk}/posts/", body, content_type="application/json"
    )
    assert response["Content-Type"].startswith("application/json")
    assert assert_error(response, 413)["code"] == "request_too_large"
    assert Post.objects.count() == 3


@pytest.mark.parametrize("path", ["/api/scenes/{scene}/posts/", "/api/characters/{character}/portrait/"])
def test_a_multipart_body_with_only_its_closing_boundary_is_a_400_with_a_message(table: Table, path: str) -> None:
    url = path.format(scene=table.scene.pk, character=table.character.pk)
    response = _client(table.gm).generic("POST", url, "--xyz--\r\n", content_type="multipart/form-data; boundary=xyz")
    assert_error(response, 400)


def test_racing_duplicate_join_requests_are_a_400(table: Table) -> None:
    user = make_user("carrera")
    JoinRequest.objects.create(campaign=table.campaign, user=user, role="reader")
    # The check before the insert passed in both racing requests: only the constraint sees the duplicate.
    with mock.patch("django.db.models.query.QuerySet.exists", return_value=False):
        response = _client(user).post(
            f"/api/campaigns/{table.campaign.pk}/join-requests/", {"role": "reader"}, format="json"
        )
    error = assert_error(response, 400)
    assert "pendiente" in error["message"]
    assert JoinRequest.objects.filter(user=user).count() == 1


def test_racing_duplicate_invitations_are_a_400(table: Table) -> None:
    user = make_user("invitada")
    services.invite(actor=table.gm, campaign=table.campaign, user=user, role="reader")
    with mock.patch("django.db.models.query.QuerySet.exists", return_value=False):
        response = _client(table.gm).post(
            f"/api/campaigns/{table.campaign.pk}/invitations/", {"user": user.pk, "role": "reader"}, format="json"
        )
    assert_error(response, 400, "user")
    assert Invitation.objects.filter(user=user).count() == 1


def test_a_member_id_beyond_64_bits_is_a_404_on_pages_and_api(table: Table) -> None:
    """SQLite's driver raised OverflowError on the foreign-key lookup: a 500."""
    api = _client(table.gm)
    members = f"/api/campaigns/{table.campaign.pk}/members/"
    for user_id in (BIG, 2**63, 10**30):
        assert_error(api.patch(f"{members}{user_id}/", {"role": "player"}, format="json"), 404)
        assert_error(api.delete(f"{members}{user_id}/"), 404)
        page = Client()
        page.force_login(table.gm)
        pages = f"/campaigns/{table.campaign.pk}/members/{user_id}/"
        assert page.post(f"{pages}remove/").status_code == 404
        assert page.post(f"{pages}role/", {"role": "player"}).status_code == 404


@pytest.mark.parametrize("content_type", ["application/json", "text/html", None])
def test_an_empty_error_answer_gets_the_json_error_body(content_type: str | None) -> None:
    """Whatever answers an /api/ request with an empty 4xx (a parser, a view), the client gets a message."""
    request = RequestFactory().post("/api/campaigns/", b"", content_type="multipart/form-data; boundary=x")
    bare = HttpResponse(status=400, content_type=content_type) if content_type else HttpResponse(status=400)
    response = ApiErrorMiddleware(lambda _request: bare)(request)
    assert response.status_code == 400
    error = json.loads(response.content)["error"]
    assert error["code"] == "bad_request" and error["message"]
    kept = JsonResponse({"error": {"code": "invalid", "message": "x"}}, status=400)
    assert ApiErrorMiddleware(lambda _request: kept)(request) is kept


def _api_routes() -> list[str]:
    from django.urls import URLResolver, get_resolver

    routes = []
    for pattern in get_resolver().url_patterns:
        if str(pattern.pattern) == "api/" and isinstance(pattern, URLResolver):
            routes += [str(sub.pattern) for sub in pattern.url_patterns]
    return routes


def test_every_operation_answers_an_empty_multipart_body_with_a_json_body(table: Table) -> None:
    client = _client(table.gm)
    ids = {"campaign_id": table.campaign.pk, "scene_id": table.scene.pk, "post_id": table.post_all.pk}
    checked = 0
    for route in _api_routes():
        if route.startswith(("schema", "docs", "redoc")):
            continue
        path = "/api/" + route
        for name, value in ids.items():
            path = path.replace(f"<int:{name}>", str(value))
        path = re.sub(r"<(int|str|slug):[a-z_]+>", "1", path)
        for method in ("POST", "PATCH", "DELETE"):
            for body in ("", "--xyz--\r\n"):
                response = client.generic(method, path, body, content_type="multipart/form-data; boundary=xyz")
                if response.status_code >= 400:
                    assert json.loads(response.content)["error"]["message"], (method, path, response.status_code)
                    checked += 1
    assert checked > 40
