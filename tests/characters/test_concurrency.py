"""Concurrency on PostgreSQL: no lost update, nothing below zero, and the ledger replays to the stored value.

Each worker thread has its own database connection, as two web requests would. On the embedded default
(SQLite, one writer at a time) these tests skip with that reason: the row locks they check are
PostgreSQL's.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable

import pytest
from django.conf import settings
from django.db import connection, connections

from characters import services
from characters.models import CampaignRulesState, Character, LedgerEntry
from rulesets.fate_accelerated.tests.sheet_fixtures import FaeTable, build_fae
from systems.errors import RulesError

pytestmark = [
    pytest.mark.services,
    pytest.mark.skipif(
        not settings.DATABASES["default"]["ENGINE"].endswith("postgresql"),
        reason="row-lock concurrency is tested on PostgreSQL (set DATABASE_URL; `make test-services` does)",
    ),
]


def run_concurrently(count: int, work: Callable[[int], None]) -> Counter[str]:
    """Start ``count`` threads together; each reports "ok" or the RulesError code it got."""
    outcomes: Counter[str] = Counter()
    lock = threading.Lock()
    barrier = threading.Barrier(count)

    def worker(index: int) -> None:
        try:
            barrier.wait()
            work(index)
            result = "ok"
        except RulesError as exc:
            result = exc.code
        except Exception as exc:  # reported, so a crash fails the test with its cause
            result = f"crash: {type(exc).__name__}: {exc}"
        finally:
            connections.close_all()
        with lock:
            outcomes[result] += 1

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return outcomes


@pytest.fixture
def fae(transactional_db: None) -> FaeTable:
    return build_fae(rules_settings={"gm_fate_point_pool": True})


def test_fifty_spends_against_forty_coins(fae: FaeTable) -> None:
    services.apply_operation(
        actor=fae.gm, campaign=fae.campaign, operation="gm_pool_gain", params={"amount": 40}, reason="inicio"
    )

    def spend(_index: int) -> None:
        services.apply_operation(actor=fae.gm, campaign=fae.campaign, operation="gm_pool_spend", params={"amount": 1})

    outcomes = run_concurrently(50, spend)
    assert outcomes == Counter({"ok": 40, "gm_pool_empty": 10})
    stored = CampaignRulesState.objects.get(campaign=fae.campaign).state["gm_fate_points"]
    assert stored == 0
    entries = list(LedgerEntry.objects.filter(campaign=fae.campaign, character=None).order_by("id"))
    assert len(entries) == 41
    replayed = 0
    for entry in entries:
        before, after = entry.changes["campaign.gm_fate_points"]
        assert before == replayed  # each entry starts where the previous one ended: no lost update
        replayed = after
    assert replayed == stored
    assert entries[-1].after["campaign"]["gm_fate_points"] == stored


def test_concurrent_stress_marks_take_each_box_once(fae: FaeTable) -> None:
    def mark(index: int) -> None:
        box = index % 3 + 1
        services.apply_operation(
            actor=fae.player,
            campaign=fae.campaign,
            operation="absorb_hit",
            character=fae.ana,
            params={"owner": "ana", "attacker": "bruno", "shifts": box, "box": box},
        )

    outcomes = run_concurrently(12, mark)
    assert outcomes == Counter({"ok": 3, "stress_box_unavailable": 9})
    sheet = Character.objects.get(pk=fae.ana.pk).sheet
    assert sheet["stress"] == [True, True, True]
    entries = list(LedgerEntry.objects.filter(character=fae.ana, operation="absorb_hit").order_by("id"))
    assert len(entries) == 3
    assert entries[-1].after["characters"][str(fae.ana.pk)] == sheet
    marked = 0
    for entry in entries:
        before, after = entry.changes[f"character.{fae.ana.pk}.stress"]
        assert (before, after) == (marked, marked + 1)
        marked = after


def test_the_connection_is_postgresql() -> None:
    assert connection.vendor == "postgresql"
