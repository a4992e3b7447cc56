"""The verifiable roll log: every roll chained in its transaction; tampering with a stored roll (faces, inputs)
or the order is caught at that link, by the app's verifier and by the standalone script alike; secret rolls are
commitments until revealed."""

from __future__ import annotations

import importlib.util
import itertools
import json
import os
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
from record.rollchain import GENESIS, commitment_of, link_hash, verify
from record.selectors import roll_log, roll_log_document
from rolls.models import Flow, Roll, RollFollowUp
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


# --- What happens to a roll after it is made, and the standalone verifier's inputs ----------------


def _chain(contents: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A well-formed chain holding these contents, every link open."""
    entries, prev = [], GENESIS
    for seq, content in enumerate(contents, start=1):
        salt = f"{seq:032x}"
        commitment = commitment_of(salt, content)
        digest = link_hash(seq, prev, commitment)
        entries.append(
            {"seq": seq, "prev": prev, "commitment": commitment, "hash": digest, "salt": salt, "content": content}
        )
        prev = digest
    return entries


def test_a_follow_up_and_a_reveal_are_links_of_their_own(table: Table) -> None:
    from rolls import runner
    from rulesets.fate_accelerated.tests.roll_fixtures import build_scene, fate

    fae = build_scene()
    post = create_post_with_rolls(
        author=fae.player,
        scene=fae.scene,
        body="Salto.",
        rolls=[RollSpec(kind="overcome", data={"approach": "quick", "difficulty": 3}, character_id=fae.ana.pk)],
        dice=fate("0-00"),
    )
    roll = post.rolls.get()
    flow = runner.start_procedure(actor=fae.player, scene=fae.scene, kind="action")
    invoke = {"aspect": f"character:{fae.ana.pk}:aspect:0", "effect": "bonus", "payment": "fate_point"}
    runner.take_step(actor=fae.player, flow=flow, step="invoke", params={**invoke, "justification": "La tabla."})
    runner.take_step(actor=fae.gm, flow=Flow.objects.get(pk=flow.pk), step="settle", params={"note": "Cae."})
    links = list(RollLink.objects.filter(campaign=fae.table.campaign).order_by("seq"))
    contents = [(x, x.content or {}) for x in links]
    roll_seq = RollLink.objects.get(roll=roll).seq
    events = [(c["event"], c.get("kind"), c["roll_seq"]) for _, c in contents if "event" in c]
    assert events == [("follow_up", "invoke", roll_seq), ("follow_up", "settle", roll_seq)]
    invoked, content = next((x, c) for x, c in contents if c.get("kind") == "invoke")
    assert invoked.about_id == roll.pk and content["result"] == roll.follow_ups.get(kind="invoke").result

    secret = _roll(table, "1d20", [17], gm_only=True)
    Roll.objects.filter(pk=secret.pk).update(secret={"difficulty": 15})
    player = viewer_for(table.player, table.campaign)
    reveal_roll(actor=table.gm, roll=Roll.objects.get(pk=secret.pk), include_secret=True)
    last = RollLink.objects.filter(campaign=table.campaign).order_by("-seq").first()
    assert last is not None and last.content == {
        **(last.content or {}),
        "event": "reveal",
        "secret": {"difficulty": 15},
    }
    opened = {x.seq: x.content for x in roll_log(player, table.campaign)}
    assert opened[last.seq] is not None  # revealed: the player reads the reveal and the difficulty
    for campaign, someone in ((table.campaign, table.player), (fae.table.campaign, fae.player2)):
        entries, rolls = stored_chain(campaign)
        assert _both_verdicts({"roll_chain": entries, "rolls": rolls}) == (None, None)
        document = roll_log_document(campaign, roll_log(viewer_for(someone, campaign), campaign))
        assert _both_verdicts(document) == (None, None)


def test_a_follow_up_of_a_secret_roll_stays_closed_until_the_reveal(table: Table) -> None:
    from record.chain import append_follow_up

    secret = _roll(table, "1d20", [3], gm_only=True)
    follow_up = RollFollowUp.objects.create(roll=secret, kind="reroll", actor=table.gm, result={"total": 9})
    link = append_follow_up(follow_up)
    assert link is not None
    player = viewer_for(table.player, table.campaign)
    assert {x.seq: x.content for x in roll_log(player, table.campaign)}[link.seq] is None
    reveal_roll(actor=table.gm, roll=secret)
    assert {x.seq: x.content for x in roll_log(player, table.campaign)}[link.seq] == link.content


@pytest.mark.parametrize(
    ("event", "fault"),
    [
        ({"event": "follow_up", "roll": 1, "roll_seq": 3}, "earlier link"),
        ({"event": "follow_up", "roll": 99, "roll_seq": 1}, "not the roll"),
        ({"event": "rewrite", "roll": 1, "roll_seq": 1}, "unknown event"),
    ],
)
def test_an_event_link_must_name_its_earlier_roll(event: dict[str, Any], fault: str) -> None:
    roll = {"roll": 1, "ruleset": "generic", "kind": "notation", "result": {"total": 4}}
    entries = _chain([roll, event, {**roll, "roll": 2}])
    ours = verify(entries)
    assert ours.broken_at == 2 and fault in ours.reason
    theirs, message = _script().verify({"roll_chain": entries})
    assert theirs == 2 and fault in message


def test_a_log_must_hold_the_length_and_head_it_claims(tmp_path: Path) -> None:
    entries = _chain([{"roll": n, "kind": "notation"} for n in (1, 2, 3)])
    honest = {"format": "tintero-roll-log", "length": 3, "head": entries[-1]["hash"], "links": entries}
    assert _script().verify(honest) == (None, f"OK: 3 links verified, 3 opened and matched; head {entries[-1]['hash']}")
    for lie in ({"length": 4}, {"head": entries[1]["hash"]}, {"head": "0" * 64}):
        log = tmp_path / "registro.json"
        log.write_text(json.dumps({**honest, **lie}))
        run = subprocess.run([sys.executable, str(SCRIPT), str(log)], capture_output=True, text=True, check=False)
        assert run.returncode == 1 and "BROKEN" in run.stdout, (lie, run.stdout)


def test_the_script_says_why_it_cannot_read_a_log(tmp_path: Path) -> None:
    missing = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path / "nada.json")], capture_output=True, text=True, check=False
    )
    assert missing.returncode == 2 and missing.stderr.startswith("ERROR: cannot read")
    (tmp_path / "roto.json").write_text("<html>")
    broken = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path / "roto.json")], capture_output=True, text=True, check=False
    )
    assert broken.returncode == 2 and "is not JSON" in broken.stderr and "Traceback" not in broken.stderr


@pytest.mark.django_db(transaction=True)
def test_the_script_reads_a_private_log_with_a_token(live_server: Any) -> None:
    from accounts.services import issue_token
    from campaigns.models import Visibility
    from tests.personas import build_table

    private = build_table(prefix="pv_", visibility=Visibility.PRIVATE)
    _roll(private, "2d6", [2, 5])
    url = f"{live_server.url}/api/campaigns/{private.campaign.pk}/roll-log/"
    script = [sys.executable, str(SCRIPT)]
    environment = {key: value for key, value in os.environ.items() if key != "TINTERO_TOKEN"}
    anonymous = subprocess.run([*script, url], capture_output=True, text=True, check=False, env=environment)
    assert anonymous.returncode == 2 and "Traceback" not in anonymous.stderr
    assert anonymous.stderr.startswith("ERROR: HTTP 404") and "--token" in anonymous.stderr
    key = issue_token(user=private.player).key
    flagged = subprocess.run(
        [*script, "--token", key, url], capture_output=True, text=True, check=False, env=environment
    )
    assert flagged.returncode == 0 and flagged.stdout.startswith("OK: 1 links verified, 1 opened"), flagged.stderr
    from_environment = subprocess.run(
        [*script, url], capture_output=True, text=True, check=False, env={**environment, "TINTERO_TOKEN": key}
    )
    assert from_environment.returncode == 0, from_environment.stderr
    wrong = subprocess.run(
        [*script, "--token", "0" * 40, url], capture_output=True, text=True, check=False, env=environment
    )
    assert wrong.returncode == 2 and wrong.stderr.startswith("ERROR: HTTP 401")
