"""A real archive to start hostile ones from: the test table, exported by its GM, as decoded JSON."""

from __future__ import annotations

import json
from typing import Any

from campaigns import policy
from campaigns.models import Campaign
from record.export import Exporter, archive_chunks
from tests.personas import Table


def exported(table: Table, campaign: Campaign | None = None) -> dict[str, Any]:
    campaign = campaign or table.campaign
    chunks = archive_chunks(Exporter(policy.viewer_for(table.gm, campaign), campaign), table.gm.username)
    archive: dict[str, Any] = json.loads("".join(chunks))
    return archive
