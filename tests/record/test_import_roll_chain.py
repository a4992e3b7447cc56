"""An imported roll chain is the archive's own history (issue 21): anyone can recompute a chain over invented
rolls, so imported links are kept and verified as such, reported apart from the rolls made here, whose
first link commits to the imported head. Both verifiers (record.rollchain and docs/verify_rolls.py) agree."""

from __future__ import annotations

import importlib.util
import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.management import call_command

from campaigns import policy
from campaigns.models import Campaign, Voice
from record.models import RollChain, RollLink
from record.rollchain import verify
from record.selectors import roll_log, roll_log_document
from record.services import import_campaign
from rolls.services import RollSpec, create_post_with_rolls
from systems.dice import ScriptedDice
from tests.personas import Table
from tests.record.hostile_archives import exported, rechain

pytestmark = pytest.mark.django_db


def _standalone() -> Any:
    spec = importlib.util.spec_from_file_location("verify_rolls", Path(settings.BASE_DIR) / "docs" / "verify_rolls.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _roll(table: Table, campaign: Campaign, faces: list[int]) -> None:
    scene = campaign.scenes.get(title="Llegada")
    create_post_with_rolls(
        author=campaign.created_by, scene=scene, body="dados", voice=Voice.NARRATOR,
        rolls=[RollSpec(kind="notation", data={"expression": f"{len(faces)}d6"})], dice=ScriptedDice(faces),
    )  # fmt: skip


@pytest.fixture
def forged(table: Table) -> Campaign:
    """Two rolls in the table; the archive's first roll then changed to sixes and the chain recomputed."""
    _roll(table, table.campaign, [1, 2, 3])
    _roll(table, table.campaign, [4, 4, 4])
    archive = exported(table)
    result = archive["rolls"][0]["result"]
    archive["rolls"][0]["result"] = json.loads(json.dumps(result).replace('"face": 1', '"face": 6'))
    rechain(archive)
    return import_campaign(actor=table.outsider, raw=json.dumps(archive)).campaign


def test_imported_links_are_the_archives_history_and_said_so(table: Table, forged: Campaign) -> None:
    document = roll_log_document(forged, roll_log(policy.viewer_for(table.outsider, forged), forged))
    assert document["imported"] == {"length": 2, "head": document["head"]}
    assert all(link["imported"] for link in document["links"])
    out = StringIO()
    call_command("verify_rolls", forged.pk, stdout=out)
    assert "links 1-2 are imported history" in out.getvalue()
    broken, message = _standalone().verify(document)
    assert broken is None and "links 1-2: imported history" in message


def test_rolls_made_here_start_from_the_imported_head(table: Table, forged: Campaign) -> None:
    imported_head = RollChain.objects.get(campaign=forged).head
    _roll(table, forged, [2, 2])
    first_here = RollLink.objects.get(campaign=forged, imported=False)
    assert first_here.seq == 3 and first_here.prev == imported_head
    chain = RollChain.objects.get(campaign=forged)
    assert chain.imported_length == 2 and chain.length == 3
    document = roll_log_document(forged, roll_log(policy.viewer_for(table.outsider, forged), forged))
    assert document["imported"]["head"] == imported_head and "imported" not in document["links"][2]
    broken, message = _standalone().verify(document)
    assert broken is None and "links 3-3: rolled here" in message
    verdict = verify(document["links"])
    assert verdict.ok and verdict.imported == 2 and verdict.imported_head == imported_head
    # Rewriting the imported history afterwards breaks the chain rolled here.
    document["links"][1]["hash"] = "f" * 64
    assert not verify(document["links"]).ok and _standalone().verify(document)[0] is not None


def test_an_imported_link_after_one_rolled_here_breaks_the_chain(table: Table, forged: Campaign) -> None:
    _roll(table, forged, [2, 2])
    document = roll_log_document(forged, roll_log(policy.viewer_for(table.outsider, forged), forged))
    document["links"][0]["imported"] = False  # history that begins after a roll made here
    assert verify(document["links"]).broken_at == 2
    assert _standalone().verify(document)[0] == 2


def test_the_roll_log_page_marks_imported_rolls(client: Any, table: Table, forged: Campaign) -> None:
    page = client.get(f"/campaigns/{forged.pk}/tiradas/").content.decode()
    assert "historia importada" in page and "importada</span>" in page


def test_an_imported_campaign_exports_and_imports_again(table: Table, forged: Campaign) -> None:
    _roll(table, forged, [5, 5])
    again = import_campaign(actor=table.gm, raw=json.dumps(exported_by(table, forged)))
    assert RollChain.objects.get(campaign=again.campaign).imported_length == 3


def exported_by(table: Table, campaign: Campaign) -> dict[str, Any]:
    from record.export import Exporter, archive_chunks

    chunks = archive_chunks(Exporter(policy.viewer_for(table.outsider, campaign), campaign), "outsider")
    archive: dict[str, Any] = json.loads("".join(chunks))
    return archive
