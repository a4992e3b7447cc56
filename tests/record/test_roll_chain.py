"""The verifiable roll log: every roll chained in its transaction; tampering with a stored roll (faces, inputs)
or the order is caught at that link, by the app's verifier and by the standalone script alike; secret rolls are
commitments until revealed."""

from __future__ import annotations

import importlib.util
import itertools
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from rest_framework.test import APIClient

from campaigns.models import Recipients, Voice
from campaigns.policy import viewer_for
from record.chain import stored_chain
from record.models import RollLink
from record.rollchain import GENESIS, commitment_of, verify
from record.selectors import roll_log, roll_log_document
from rolls.models import Roll
from rolls.services import RollSpec, create_post_with_rolls, reveal_roll
from systems.dice import ScriptedDice
from tests.personas import Table

pytestmark = pytest.mark.django_db
SCRIPT = Path(__file__).resolve().parents[2] / "docs" / "verify_rolls.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("verify_rolls_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _roll(table: Table, expression: str, faces: list[int], *, gm_only: bool = False, **post: Any) -> Roll:
    created = create_post_with_rolls(
        author=table.gm,
        scene=table.scene,
        body=post.pop("body", "tirada"),
        voice=Voice.NARRATOR,
        rolls=[RollSpec(kind="notation", data={"expression": expression}, gm_only=gm_only)],
        dice=ScriptedDice(faces),
        **post,
    )
    return Roll.objects.get(post=created)


@pytest.fixture
def rolled(table: Table) -> Table:
    for faces in ([1, 2], [3, 4], [5, 6], [2, 2]):
        _roll(table, "2d6", faces)
    return table


def _both_verdicts(document: dict[str, Any]) -> tuple[int | None, int | None]:
    entries = document.get("links", document.get("roll_chain"))
    assert entries is not None
    ours = verify(entries, document.get("rolls") or []).broken_at
    theirs, _message = _script().verify(document)
    return ours, theirs


def _gm_document(table: Table) -> dict[str, Any]:
    entries, rolls = stored_chain(table.campaign)
    return {"roll_chain": entries, "rolls": rolls}


def test_every_roll_joins_the_chain_in_order(rolled: Table) -> None:
    links = list(RollLink.objects.filter(campaign=rolled.campaign).order_by("seq"))
    assert [link.seq for link in links] == [1, 2, 3, 4]
    assert links[0].prev == GENESIS
    assert all(b.prev == a.hash for a, b in itertools.pairwise(links))
    assert links[2].content is not None
    assert links[2].content["result"] == Roll.objects.get(chain_link=links[2]).result
    assert _both_verdicts(_gm_document(rolled)) == (None, None)


@pytest.mark.parametrize("field", ["result", "request"])
def test_tampering_with_a_stored_roll_breaks_that_link(rolled: Table, field: str) -> None:
    third = RollLink.objects.get(campaign=rolled.campaign, seq=3).roll
    assert third is not None
    changed = dict(getattr(third, field))
    changed["forged"] = True
    Roll.objects.filter(pk=third.pk).update(**{field: changed})  # behind the app's back
    assert _both_verdicts(_gm_document(rolled)) == (3, 3)
    with pytest.raises(CommandError, match="link 3"):
        call_command("verify_rolls", rolled.campaign.pk)


def test_reordering_links_breaks_the_chain(rolled: Table) -> None:
    document = _gm_document(rolled)
    chain = document["roll_chain"]
    chain[1], chain[2] = chain[2], chain[1]
    assert _both_verdicts(document) == (2, 2)


def test_rewriting_a_link_content_breaks_its_commitment(rolled: Table) -> None:
    document = _gm_document(rolled)
    document["roll_chain"][1]["content"]["result"] = {"total": 12}
    document["rolls"] = []
    assert _both_verdicts(document) == (2, 2)


def test_rewriting_a_whole_link_breaks_the_next(rolled: Table) -> None:
    document = _gm_document(rolled)
    entry = document["roll_chain"][1]
    entry["content"]["label"] = "otra"
    entry["commitment"] = commitment_of(entry["salt"], entry["content"])
    document["rolls"] = []
    assert _both_verdicts(document) == (2, 2)


def test_dropping_a_link_is_detected(rolled: Table) -> None:
    document = _gm_document(rolled)
    del document["roll_chain"][1]
    assert _both_verdicts(document)[0] == 2


def test_secret_roll_is_a_commitment_until_revealed(table: Table) -> None:
    secret = _roll(table, "1d20", [17], gm_only=True)
    seq = RollLink.objects.get(roll=secret).seq
    player = viewer_for(table.player, table.campaign)
    (link,) = [x for x in roll_log(player, table.campaign) if x.seq == seq]
    assert link.content is None and link.salt is None
    document = roll_log_document(table.campaign, roll_log(player, table.campaign))
    assert set(document["links"][seq - 1]) == {"seq", "prev", "commitment", "hash"}
    assert _both_verdicts(document) == (None, None)  # the chain still verifies for the player
    reveal_roll(actor=table.gm, roll=secret)
    (link,) = [x for x in roll_log(player, table.campaign) if x.seq == seq]
    assert link.content is not None and link.salt is not None
    assert commitment_of(link.salt, link.content) == link.commitment


def test_rolls_of_hidden_posts_stay_closed(table: Table) -> None:
    whispered = _roll(table, "1d6", [6], recipients=Recipients.WHISPER, whisper_to=[table.player.pk])
    seq = RollLink.objects.get(roll=whispered).seq
    for role, opened in [("gm", True), ("player", True), ("player2", False), ("reader", False), ("anonymous", False)]:
        viewer = viewer_for(table.user(role), table.campaign)
        (link,) = [x for x in roll_log(viewer, table.campaign) if x.seq == seq]
        assert (link.content is not None) == opened, role


def test_log_page_json_and_api(rolled: Table) -> None:
    client = Client()
    page = client.get(f"/campaigns/{rolled.campaign.pk}/tiradas/")
    assert page.status_code == 200
    assert "verify_rolls.py" in page.content.decode()
    download = client.get(f"/campaigns/{rolled.campaign.pk}/tiradas/?format=json")
    assert "attachment" in download["Content-Disposition"]
    document = download.json()
    assert document["length"] == 4 and document["head"] == document["links"][-1]["hash"]
    api = APIClient().get(f"/api/campaigns/{rolled.campaign.pk}/roll-log/").json()
    assert api == document


def test_the_log_page_names_who_rolled_by_name_not_username(rolled: Table) -> None:
    """Issue 28: the roll log showed usernames; the script for programmers is folded away."""
    html = Client().get(f"/campaigns/{rolled.campaign.pk}/tiradas/").content.decode()
    roller = rolled.gm.public_name
    assert roller != rolled.gm.username and f"· {roller} ·" in html
    assert f"· {rolled.gm.username} ·" not in html
    assert '<details class="verify-yourself">' in html


def test_private_log_is_missing_for_outsiders(private_table: Table) -> None:
    client = Client()
    client.force_login(private_table.outsider)
    assert client.get(f"/campaigns/{private_table.campaign.pk}/tiradas/").status_code == 404
    assert APIClient().get(f"/api/campaigns/{private_table.campaign.pk}/roll-log/").status_code == 404


def test_standalone_script_and_command_on_a_file(rolled: Table, tmp_path: Path) -> None:
    log = tmp_path / "registro.json"
    log.write_text(json.dumps(Client().get(f"/campaigns/{rolled.campaign.pk}/tiradas/?format=json").json()))
    ok = subprocess.run([sys.executable, str(SCRIPT), str(log)], capture_output=True, text=True, check=False)
    assert ok.returncode == 0 and ok.stdout.startswith("OK: 4 links")
    call_command("verify_rolls", archive=str(log))
    document = json.loads(log.read_text())
    document["links"][3]["hash"] = "f" * 64
    log.write_text(json.dumps(document))
    bad = subprocess.run([sys.executable, str(SCRIPT), str(log)], capture_output=True, text=True, check=False)
    assert bad.returncode == 1 and "link 4" in bad.stdout
    with pytest.raises(CommandError, match="link 4"):
        call_command("verify_rolls", archive=str(log))


def test_thread_shows_each_roll_position_in_the_chain(rolled: Table) -> None:
    html = Client().get(f"/scenes/{rolled.scene.pk}/").content.decode()
    for seq in (1, 2, 3, 4):
        assert f"/campaigns/{rolled.campaign.pk}/tiradas/#link-{seq}" in html
    assert "n.º 4 del registro de tiradas" in html
