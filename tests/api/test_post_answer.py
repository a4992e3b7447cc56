"""A written post is answered with what was written (issue 12): the same body a later read returns, and
no reading back of the post or its rolls."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from tests.api.conftest import ApiFor
from tests.personas import Table

pytestmark = pytest.mark.django_db

# The request's own read: the scene with the viewer's role (the token is force-authenticated here). The
# write path itself is counted in tests/campaigns/test_post_write_path.py.
REQUEST_READS = 1


@override_settings(TASKS={"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}})
@pytest.mark.parametrize(
    "payload",
    [
        {"voice": "ooc", "body": "Tiro **dos** dados.", "rolls": [{"kind": "notation", "data": {"expression": "2d6"}}]},
        {"voice": "character", "body": "Lucía calla.", "notes": "+2", "rolls": []},
        {"voice": "ooc", "body": "Solo para ti.", "recipients": "whisper", "whisper_to": "gm"},
        {
            "as": "gm",
            "voice": "narrator",
            "body": "Dos tiradas, una secreta.",
            "rolls": [
                {"kind": "notation", "data": {"expression": "1d20+3"}, "label": "ataque"},
                {"kind": "notation", "data": {"expression": "1d6"}, "gm_only": True},
            ],
        },
    ],
    ids=["roll", "character", "whisper", "two-rolls"],
)
def test_the_answer_is_what_a_read_returns(table: Table, api: ApiFor, payload: dict[str, Any]) -> None:
    payload = dict(payload)
    if payload.get("voice") == "character":
        payload["character"] = table.character.pk
    if payload.get("whisper_to") == "gm":
        payload["whisper_to"] = [table.gm.pk]
    client = api(table.gm if payload.pop("as", None) == "gm" else table.player)
    url = f"/api/scenes/{table.scene.pk}/posts/"
    warm_up = {"voice": "ooc" if payload["voice"] == "character" else payload["voice"], "body": "calentando"}
    warm = client.post(url, {**warm_up, "rolls": payload.get("rolls", [])}, format="json")
    assert warm.status_code == 201, warm.content  # the read marker and the roll chain exist from here on
    with CaptureQueriesContext(connection) as ctx:
        created = client.post(url, payload, format="json")
    assert created.status_code == 201, created.content
    reads = [q["sql"] for q in ctx.captured_queries if q["sql"].upper().startswith("SELECT")]
    rolled = len(payload.get("rolls", []))
    speaking_as = 1 if "character" in payload else 0  # the character spoken as, checked to be in the campaign
    # A whisper checks its recipients are members (2), Django's m2m set() reads the rows it may skip (1),
    # and the answer names the recipients (1).
    whispering = 4 if "whisper_to" in payload else 0
    # Beyond those, a roll's chain link reads the chain's head: the only SELECT of the write path.
    assert len(reads) == REQUEST_READS + speaking_as + whispering + rolled, "\n".join(reads)
    answer = created.json()
    assert answer == client.get(f"/api/posts/{answer['id']}/").json()
    if payload.get("rolls"):
        assert len(answer["rolls"]) == len(payload["rolls"])
