"""A real archive to start hostile ones from: the test table, exported by its GM, as decoded JSON."""

from __future__ import annotations

import json
from typing import Any

from campaigns import policy
from campaigns.models import Campaign
from record.export import Exporter, archive_chunks
from record.rollchain import GENESIS, ROLL_FACTS, commitment_of, link_hash
from tests.personas import Table


def exported(table: Table, campaign: Campaign | None = None) -> dict[str, Any]:
    campaign = campaign or table.campaign
    chunks = archive_chunks(Exporter(policy.viewer_for(table.gm, campaign), campaign), table.gm.username)
    archive: dict[str, Any] = json.loads("".join(chunks))
    return archive


def rechain(archive: dict[str, Any]) -> dict[str, Any]:
    """What a forger does after changing rolls: copy each roll's facts into its link's content and recompute
    every commitment and hash, so the chain verifies by itself (docs/verify_rolls.py says OK)."""
    rolls = {roll["chain_seq"]: roll for roll in archive["rolls"] if roll.get("chain_seq")}
    prev = GENESIS
    for link in archive["roll_chain"]:
        roll = rolls.get(link["seq"])
        if roll is not None and link.get("content") is not None:
            link["content"].update({fact: roll[fact] for fact in ROLL_FACTS})
            if link["salt"].isascii():  # else the salt itself is the hostile part
                link["commitment"] = commitment_of(link["salt"], link["content"])
        link["prev"] = prev
        link["hash"] = prev = link_hash(link["seq"], prev, link["commitment"])
    return archive
