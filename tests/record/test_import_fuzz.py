"""Hostile archives as a property (issue 21): from a real archive, any few changes anywhere in it (a value
replaced by a hostile one, a key dropped or added, an item repeated) either import, or answer a JSON 400
with a message and write nothing; never a 500. Bounded: a few examples, no deadline, derandomized."""

from __future__ import annotations

import contextlib
import copy
import json
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from campaigns.models import Campaign, Invitation, Post
from characters.models import Character
from record.models import RollLink
from rolls import runner
from rolls.models import Flow, Roll
from rulesets.presagios.tests.fixtures import pc_sheet
from tests.personas import Table
from tests.record.hostile_archives import exported, rechain

pytestmark = pytest.mark.django_db

EXAMPLES = 40

_leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, -1, 2**31, 2**63, float("nan"), float("inf"), 1e308]),
    st.text(max_size=20),
    st.sampled_from(["", "\x00", "a\x00b", "x" * 100_000, "<script>alert(1)</script>", "data:text/html;base64,PA=="]),
)
hostile_values = st.recursive(
    _leaves,
    lambda children: st.one_of(
        st.lists(children, max_size=3), st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=8,
)


def _nested(depth: int) -> Any:
    value: Any = 0
    for _ in range(depth):
        value = [value]
    return value


PARTS = ["campaign", "members", "scenes", "characters", "posts", "rolls", "procedures", "roll_chain"]


def _place(draw: st.DrawFn, root: Any) -> tuple[Any, Any]:
    """A random walk from one of the archive's parts: the container and key of the place reached."""
    parent: Any = root
    key: Any = draw(st.sampled_from(PARTS))
    node = root[key]
    for _depth in range(draw(st.integers(min_value=1, max_value=6))):
        if isinstance(node, dict) and node:
            parent, key = node, draw(st.sampled_from(sorted(node)))
        elif isinstance(node, list) and node:
            parent, key = node, draw(st.integers(min_value=0, max_value=len(node) - 1))
        else:
            break
        node = parent[key]
    return parent, key


def _hostile_for(draw: st.DrawFn, value: Any) -> Any:
    """A hostile value shaped by what it replaces (so it reaches the checks behind the types), or any."""
    if draw(st.booleans()):
        return draw(hostile_values)
    if isinstance(value, bool) or value is None:
        return draw(st.sampled_from([2**63, "sí", {}]))
    if isinstance(value, int):
        return draw(st.sampled_from([2**63, 2**64, -1, 2**31, 2**15, float("nan")]))
    if isinstance(value, str):
        return draw(st.sampled_from(["", "a\x00b", "x" * 100_000, value + "\x00", "data:text/html;base64,PA=="]))
    if isinstance(value, dict):
        return {**value, draw(st.sampled_from(["bogus", "\x00", "extra"])): draw(hostile_values)}
    return [*value, *value[:1]]


@st.composite
def changed_archives(draw: st.DrawFn, archive: dict[str, Any]) -> dict[str, Any]:
    """The archive with one to three changes, each at a place reached by a random walk from the root."""
    changed = copy.deepcopy(archive)
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        parent, key = _place(draw, changed)
        if parent is None:
            continue
        how = draw(st.sampled_from(["replace", "replace", "replace", "drop", "repeat", "deep"]))
        if how == "replace":
            parent[key] = _hostile_for(draw, parent[key])
        elif how == "deep":
            parent[key] = _nested(draw(st.sampled_from([33, 64, 500])))
        elif how == "drop":
            del parent[key]
        elif how == "repeat" and isinstance(parent, list):
            parent.append(copy.deepcopy(parent[key]))
    if draw(st.booleans()):  # as a forger would: the roll log then verifies, and the parts must hold by themselves
        # Unless the changes broke the chain's own shape: the archive then goes as it is.
        with contextlib.suppress(KeyError, TypeError, AttributeError, IndexError, ValueError):
            rechain(changed)
    return changed


def _rows() -> tuple[int, ...]:
    return tuple(model.objects.count() for model in (Campaign, Character, Post, Roll, Flow, RollLink, Invitation))


@pytest.fixture
def baseline(table: Table) -> dict[str, Any]:
    Character.objects.filter(campaign=table.campaign).update(sheet=pc_sheet())  # setup: sheets the game reads
    runner.start_procedure(
        actor=table.gm,
        scene=table.scene,
        kind="challenge",
        params={"character_id": table.character.pk, "characteristic": "c1", "difficulty": 3},
    )
    return exported(table)


def test_hostile_archives_import_or_answer_400_and_write_nothing(table: Table, baseline: dict[str, Any]) -> None:
    api = APIClient()
    api.force_authenticate(table.outsider)
    client = Client()
    client.force_login(table.outsider)
    members = [m["handle"] for m in baseline["members"]]

    def upload(archive: dict[str, Any]) -> Any:
        raw = json.dumps(archive).encode()
        files = {"archive": SimpleUploadedFile("a.json", raw), "invite": members[:2]}
        return api.post("/api/campaigns/import/", files)

    assert upload(baseline).status_code == 201  # the valid archive imports

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(changed_archives(baseline))
    def check(archive: dict[str, Any]) -> None:
        before = _rows()
        response = upload(archive)
        assert response.status_code in (201, 400), response.content[:300]
        if response.status_code == 400:
            error = response.json()["error"]
            assert error["message"] and error["problems"], error
            assert _rows() == before  # nothing of a refused archive is written
        else:  # one whole campaign, whose every page answers
            assert _rows()[0] == before[0] + 1
            imported = Campaign.objects.order_by("-pk").first()
            assert imported is not None
            for scene in imported.scenes.all():
                page = client.get(scene.get_absolute_url())
                assert page.status_code == 200, scene.title
            for url in ("", "characters/", "pools/", "ledger/", "tiradas/"):
                assert client.get(f"/campaigns/{imported.pk}/{url}").status_code == 200, url
            for character in imported.characters.all():
                assert client.get(f"/characters/{character.pk}/").status_code == 200, character.name
            assert api.get(f"/api/campaigns/{imported.pk}/roll-log/").status_code == 200

    check()
