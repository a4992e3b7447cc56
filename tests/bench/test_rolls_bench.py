"""The rolls benchmark runner works: a quick run prints a row per case and always exits 0."""

from __future__ import annotations

import io

from bench import rolls_bench


def test_quick_run_has_a_row_per_case() -> None:
    cases = rolls_bench.discover_cases()
    assert any(case.module == "generic" for case in cases)
    out = io.StringIO()
    assert rolls_bench.main(["--quick"], out=out) == 0
    lines = out.getvalue().splitlines()
    for case in cases:
        rows = [line for line in lines if line.startswith(rolls_bench._fit(case.name, 44))]
        assert rows, f"no row for {case.name!r}"
        assert rows[0].rstrip().endswith(("PASS", "OVER")) or " ERROR " in rows[0]
    assert any(line.startswith("Generic notation: cached vs uncached") for line in lines)
    assert any("notation_too_long" in line for line in lines)
    assert "NOT REFUSED" not in out.getvalue()


def test_a_module_without_cases_is_tolerated() -> None:
    import types

    empty = types.ModuleType("bench.rolls.nothing_yet")
    assert rolls_bench.discover_cases([empty]) == []


def test_case_formats() -> None:
    call = lambda dice: None  # noqa: E731
    as_tuple = rolls_bench._as_case("m", ("a", 2, call))
    as_dict = rolls_bench._as_case("m", {"name": "a", "dice": 2, "call": call})
    assert as_tuple == as_dict == rolls_bench.Case("m", "a", 2, call)
