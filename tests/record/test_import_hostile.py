"""Hostile archives (issue 21): each part goes through the typed models and the game's own validation a live
write uses, so every one answers a JSON 400 naming the bad part, on SQLite and PostgreSQL, and writes nothing;
the archive size limit is one number, reachable above the API's ordinary body limit."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

from campaigns.models import Campaign, Post, Voice
from characters.models import Character
from rolls import runner
from rolls.models import Flow, Roll
from rolls.services import RollSpec, create_post_with_rolls
from rulesets.presagios.tests.fixtures import pc_sheet
from systems.dice import ScriptedDice
from tests.personas import Table
from tests.record.hostile_archives import exported, rechain

pytestmark = pytest.mark.django_db

Mutation = Callable[[dict[str, Any]], Any]


DEEP = "[deeper than Python's recursion]"  # replaced in the archive's text: json.dumps would recurse too


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = {"a": value}
    return value


def _set(path: str, value: Any) -> Mutation:
    """A mutation that puts ``value`` at a dotted path (list indexes as numbers)."""

    def mutate(archive: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        target: Any = archive
        for key in parents:
            target = target[int(key)] if isinstance(target, list) else target[key]
        if isinstance(target, list):
            target[int(last)] = value
        else:
            target[last] = value

    return mutate


def _duplicate_post_id(archive: dict[str, Any]) -> None:
    archive["posts"][1]["id"] = archive["posts"][0]["id"]


def _repeat(path: str) -> Mutation:
    """A mutation that appends a copy of the list item at ``path`` to its list (found by the fuzzing)."""

    def mutate(archive: dict[str, Any]) -> None:
        *parents, index = path.split(".")
        target: Any = archive
        for key in parents:
            target = target[int(key)] if isinstance(target, list) else target[key]
        target.append(json.loads(json.dumps(target[int(index)])))

    return mutate


def _second_offtopic_scene(archive: dict[str, Any]) -> None:
    for scene in archive["scenes"]:
        scene["is_offtopic"] = True


# (what, mutation, words the refusal's first problem holds)
HOSTILE: list[tuple[str, Mutation, str]] = [
    ("procedure state with an extra key", _set("procedures.0.state.bogus", 1), "procedures.0.state.bogus"),
    ("procedure of no such kind", _set("procedures.0.kind", "ajedrez"), "procedures.0.kind"),
    ("waiting_for of no shape", _set("procedures.0.waiting_for", {"steps": [{"users": ["x"]}]}), "procedures.0"),
    ("garbage sheet", _set("characters.0.sheet", {"bogus": True}), "characters.0.sheet"),
    ("sheet out of range", _set("characters.0.sheet.base", [99, "x"]), "characters.0.sheet"),
    ("character status", _set("characters.0.status", "zombi"), "characters.0.status"),
    ("duplicate ids", _duplicate_post_id, "posts"),
    ("integer over 64 bits in a column", _set("scenes.0.position", 2**64), "scenes.0.position"),
    ("integer over 64 bits in JSON", _set("rolls.0.request.big", 2**70), "request.big: "),
    ("position over the column", _set("scenes.0.position", 2**40), "scenes.0.position"),
    ("very deep nesting", _set("campaign.rules_settings", DEEP), "profundidad"),
    ("deep nesting", _set("campaign.rules_settings", _nested(40)), "campaign.rules_settings"),
    ("100,000-character campaign title", _set("campaign.title", "x" * 100_000), "campaign.title"),
    ("100,000-character scene title", _set("scenes.0.title", "x" * 100_000), "scenes.0.title"),
    ("NUL in a text", _set("posts.0.body", "a\x00b"), "posts.0.body"),
    ("NUL in a key", _set("rolls.0.request", {"a\x00": 1}), "request: "),
    ("NaN", _set("rolls.0.result.total", float("nan")), "NaN"),
    ("roll of no such kind", _set("rolls.0.kind", "ajedrez"), "rolls.0"),
    ("roll faces no game can draw", _set("rolls.0.result", {"parts": [{"dice": [{"faces": [{}]}]}]}), "rolls.0: "),
    ("a salt that is not hex", _set("roll_chain.0.salt", "ñ" * 32), "roll_chain.0.salt"),
    ("unknown settings", _set("campaign.rules_settings", {"bogus": 1}), "campaign.rules_settings"),
    ("a member twice", _repeat("members.0"), "members.handle"),
    ("a record line twice", _repeat("procedures.0.lines.0"), "procedures.0.lines.position"),
    ("two off-topic scenes", _second_offtopic_scene, "scenes"),
]


@pytest.fixture
def archive(table: Table) -> dict[str, Any]:
    """The test table with Presagios sheets, a challenge open and a roll in the thread, exported by its GM."""
    Character.objects.filter(campaign=table.campaign).update(sheet=pc_sheet())  # setup: sheets the game reads
    runner.start_procedure(
        actor=table.gm,
        scene=table.scene,
        kind="challenge",
        params={"character_id": table.character.pk, "characteristic": "c1", "difficulty": 3},
    )
    create_post_with_rolls(
        author=table.player, scene=table.scene, body="dados", voice=Voice.OOC,
        rolls=[RollSpec(kind="notation", data={"expression": "3d6"})], dice=ScriptedDice([1, 2, 3]),
    )  # fmt: skip
    data = exported(table)
    assert data["procedures"] and data["rolls"] and data["characters"][0]["sheet"], "the baseline has every part"
    return data


def _counts() -> tuple[int, ...]:
    return tuple(model.objects.count() for model in (Campaign, Character, Post, Roll, Flow))


def _post(user: Any, raw: bytes) -> Any:
    api = APIClient()
    api.force_authenticate(user)
    return api.post("/api/campaigns/import/", {"archive": SimpleUploadedFile("a.json", raw)})


def test_the_baseline_archive_imports(table: Table, archive: dict[str, Any]) -> None:
    response = _post(table.player2, json.dumps(archive).encode())
    assert response.status_code == 201, response.content


@pytest.mark.parametrize(("what", "mutate", "words"), HOSTILE, ids=[case[0] for case in HOSTILE])
def test_a_hostile_archive_answers_400_naming_the_part(
    table: Table, archive: dict[str, Any], what: str, mutate: Mutation, words: str
) -> None:
    mutate(archive)
    rechain(archive)  # as a forger would: the refusal must come from the part, not from the roll log
    raw = json.dumps(archive).encode()  # NaN is written as NaN: a JSON extension Python reads
    raw = raw.replace(json.dumps(DEEP).encode(), b'{"a":' * 100_000 + b"1" + b"}" * 100_000)
    before = _counts()
    response = _post(table.player2, raw)
    assert response.status_code == 400, (what, response.content[:300])
    error = response.json()["error"]
    assert error["code"] == "archive_refused" and error["message"]
    assert any(words in problem for problem in error["problems"]), error["problems"]
    assert _counts() == before


def test_the_import_page_refuses_a_hostile_archive_with_its_problems(table: Table, archive: dict[str, Any]) -> None:
    archive["procedures"][0]["state"]["bogus"] = 1
    client = Client()
    client.force_login(table.player2)
    page = client.post("/partidas/importar/", {"archive": SimpleUploadedFile("a.json", json.dumps(archive).encode())})
    assert page.status_code == 400 and "procedures.0.state.bogus" in page.content.decode()


def test_markdown_a_live_post_refuses_is_refused_with_its_path(table: Table, archive: dict[str, Any]) -> None:
    from campaigns.markdown import MAX_SOURCE_LENGTH

    archive["posts"][0]["body"] = "x" * (MAX_SOURCE_LENGTH + 1)
    response = _post(table.player2, json.dumps(archive).encode())
    assert response.status_code == 400
    assert any(p.startswith("posts.0.body") for p in response.json()["error"]["problems"])


def test_the_archive_limit_is_one_number_reachable_above_the_api_body_limit(
    table: Table, archive: dict[str, Any], settings: Any
) -> None:
    raw = json.dumps(archive).encode() + b" " * 100_000  # whitespace: larger than the multipart envelope
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = len(raw) // 2  # an archive larger than any other API body
    settings.ARCHIVE_IMPORT_MAX_BYTES = len(raw) + 10
    assert _post(table.player2, raw).status_code == 201
    settings.ARCHIVE_IMPORT_MAX_BYTES = len(raw) - 10  # over it: refused with the limit in words
    refused = _post(table.player2, raw)
    assert refused.status_code == 400
    assert str(len(raw) - 10) in refused.json()["error"]["message"]
    client = Client()
    client.force_login(table.player2)
    page = client.post("/partidas/importar/", {"archive": SimpleUploadedFile("a.json", raw)})
    assert page.status_code == 400 and str(len(raw) - 10) in page.content.decode()
    settings.ARCHIVE_IMPORT_MAX_BYTES = len(raw) // 4  # far over it: refused before the body is read
    assert _post(table.player2, raw).json()["error"]["code"] == "request_too_large"
