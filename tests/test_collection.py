"""Every collected test has its own node id: pytest-xdist schedules by id, and tests sharing one ran as one
(schemathesis gave its hundred API operations a single id)."""

from __future__ import annotations

from collections import Counter

import pytest


def test_every_collected_test_has_its_own_id(request: pytest.FixtureRequest) -> None:
    repeated = [nodeid for nodeid, n in Counter(item.nodeid for item in request.session.items).items() if n > 1]
    assert repeated == []
