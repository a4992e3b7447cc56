"""Rolls benchmark: resolver throughput against the floor of bare SystemRandom draws.

Run from the repository root::

    .venv/bin/python -m bench.rolls_bench          # full run, well under a minute
    .venv/bin/python -m bench.rolls_bench --quick  # ~5 s smoke run

Every module in ``bench/rolls/`` may define ``CASES``: a sequence of ``(name, dice_per_call, call)``
where ``call(dice)`` resolves one roll with a DiceSource. Each case is timed with ``SystemDice()``
(calls per second, median of several repeats) and compared with its floor: the same number of bare
``secrets.SystemRandom().randint(1, 6)`` draws per call. ``ratio`` is floor rate / resolver rate;
the target is <= 5. The generic module adds the notation rows with a cached and an uncached parse
and the time to refuse abusive notation (target < 1 ms).

Benchmarks report, they do not gate: the exit status is always 0.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import secrets
import statistics
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from itertools import repeat
from types import ModuleType
from typing import Any, TextIO

from systems.dice import DiceSource, SystemDice

RATIO_TARGET = 5.0
REFUSAL_TARGET_SECONDS = 1e-3


@dataclass(frozen=True)
class Case:
    module: str
    name: str
    dice: int
    call: Callable[[DiceSource], object]


@dataclass(frozen=True)
class Profile:
    """How long to time each measurement: ``repeats`` batches of about ``repeat_seconds`` each,
    shortened when there are many cases so the whole run stays within ``budget_seconds``."""

    name: str
    repeat_seconds: float
    repeats: int
    budget_seconds: float

    def fitted(self, measurements: int) -> Profile:
        # Each measurement costs about 2 * repeats * repeat_seconds (resolver and floor) plus calibration.
        per_batch = self.budget_seconds / max(1, measurements) / (2.5 * self.repeats)
        return replace(self, repeat_seconds=max(0.001, min(self.repeat_seconds, per_batch)))


FULL = Profile("full", repeat_seconds=0.03, repeats=7, budget_seconds=45.0)
QUICK = Profile("quick", repeat_seconds=0.005, repeats=3, budget_seconds=3.0)


def discover_modules() -> list[ModuleType]:
    """Import every module of ``bench.rolls``; one that fails to import is reported and skipped."""
    import bench.rolls as package

    modules = []
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda info: info.name):
        try:
            modules.append(importlib.import_module(f"bench.rolls.{info.name}"))
        except Exception:  # a half-written ruleset must not stop the others' figures
            print(f"! bench.rolls.{info.name} failed to import:", file=sys.stderr)
            traceback.print_exc()
    return modules


def discover_cases(modules: Sequence[ModuleType] | None = None) -> list[Case]:
    modules = discover_modules() if modules is None else modules
    cases = []
    for module in modules:
        short = module.__name__.rsplit(".", 1)[-1]
        for raw in getattr(module, "CASES", ()):
            cases.append(_as_case(short, raw))
    return cases


def _as_case(module: str, raw: Any) -> Case:
    if isinstance(raw, Case):
        return raw
    if isinstance(raw, dict):
        return Case(module, str(raw["name"]), int(raw["dice"]), raw["call"])
    if isinstance(raw, tuple | list):
        name, dice, call = raw
        return Case(module, str(name), int(dice), call)
    return Case(module, str(raw.name), int(raw.dice), raw.call)


def _batch_size(call: Callable[[], object], seconds: float) -> int:
    """How many calls of ``call`` take about ``seconds``."""
    for _ in range(3):  # warm up: a first call may build a parser or fill a cache, and must not set the size
        call()
    timer = time.perf_counter
    number = 1
    while True:
        start = timer()
        for _ in repeat(None, number):
            call()
        elapsed = timer() - start
        if elapsed >= seconds / 4 or number >= 1 << 24:
            return max(1, int(number * seconds / max(elapsed, 1e-9)))
        number *= 2 if elapsed <= 0 else max(2, min(64, int(seconds / 4 / elapsed) + 1))


def _time_batch(call: Callable[[], object], number: int) -> float:
    """Calls per second over one batch of ``number`` calls."""
    start = time.perf_counter()
    for _ in repeat(None, number):
        call()
    return number / max(time.perf_counter() - start, 1e-12)


def rate(call: Callable[[], object], profile: Profile) -> float:
    """Calls per second of ``call``: the median over ``profile.repeats`` batches."""
    number = _batch_size(call, profile.repeat_seconds)
    return statistics.median(_time_batch(call, number) for _ in range(profile.repeats))


def rates_against_floor(
    call: Callable[[], object], floor: Callable[[], object], profile: Profile
) -> tuple[float, float, float]:
    """``(rate, floor rate, ratio)``: the two are timed alternately, batch after batch, so a machine
    busy with something else slows both alike; the ratio is the median of the per-repeat ratios."""
    number = _batch_size(call, profile.repeat_seconds)
    floor_number = _batch_size(floor, profile.repeat_seconds)
    rates, floors, ratios = [], [], []
    for _ in range(profile.repeats):
        rates.append(_time_batch(call, number))
        floors.append(_time_batch(floor, floor_number))
        ratios.append(floors[-1] / rates[-1])
    return statistics.median(rates), statistics.median(floors), statistics.median(ratios)


def floor_call(dice_per_call: int) -> Callable[[], object]:
    """The floor: ``dice_per_call`` bare SystemRandom draws, nothing else."""
    randint = secrets.SystemRandom().randint

    def call() -> None:
        for _ in repeat(None, dice_per_call):
            randint(1, 6)

    return call


def _mark(ratio: float) -> str:
    return "PASS" if ratio <= RATIO_TARGET else "OVER"


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def run(profile: Profile, out: TextIO) -> None:
    modules = discover_modules()
    cases = discover_cases(modules)
    generic = next((m for m in modules if m.__name__.endswith(".generic")), None)
    has_generic = generic is not None and hasattr(generic, "NOTATIONS")
    measurements = len(cases)
    if has_generic:
        measurements += 2 * len(generic.NOTATIONS) + len(generic.ABUSIVE) // 2  # type: ignore[union-attr]
    profile = profile.fitted(measurements)
    dice = SystemDice()
    print(
        f"Rolls benchmark ({profile.name}): SystemDice, median of {profile.repeats} repeats of "
        f"~{profile.repeat_seconds * 1000:.0f} ms; floor = bare SystemRandom().randint(1, 6) draws, "
        "timed alternately; target ratio <= 5",
        file=out,
    )
    print(f"{'case':<44} {'dice/call':>9} {'rolls/s':>11} {'floor rolls/s':>14} {'ratio':>6}  mark", file=out)
    if not cases:
        print("(no cases in bench/rolls/)", file=out)
    for case in cases:
        try:
            resolver, floor, ratio = rates_against_floor(
                lambda case=case: case.call(dice), floor_call(case.dice), profile
            )
        except Exception as exc:  # report a broken case and go on
            print(f"{_fit(case.name, 44):<44} {case.dice:>9} ERROR {type(exc).__name__}: {exc}", file=out)
            continue
        print(
            f"{_fit(case.name, 44):<44} {case.dice:>9} {resolver:>11,.0f} {floor:>14,.0f} {ratio:>6.2f}  "
            f"{_mark(ratio)}",
            file=out,
        )

    if has_generic:
        _run_generic(generic, profile, dice, out)  # type: ignore[arg-type]


def _run_generic(generic: ModuleType, profile: Profile, dice: DiceSource, out: TextIO) -> None:
    print("", file=out)
    print("Generic notation: cached vs uncached parse (LRU cleared before every uncached call)", file=out)
    print(
        f"{'notation':<32} {'dice/call':>9} {'cached/s':>10} {'uncached/s':>10} {'floor/s':>10} "
        f"{'ratio c':>7} {'ratio u':>7}  mark c/u",
        file=out,
    )
    for expression, count in generic.NOTATIONS:
        cached_fn = generic.cached_call(expression)
        uncached_fn = generic.uncached_call(expression)
        cached, floor, cached_ratio = rates_against_floor(lambda fn=cached_fn: fn(dice), floor_call(count), profile)
        uncached, _, uncached_ratio = rates_against_floor(lambda fn=uncached_fn: fn(dice), floor_call(count), profile)
        print(
            f"{_fit(expression, 32):<32} {count:>9} {cached:>10,.0f} {uncached:>10,.0f} {floor:>10,.0f} "
            f"{cached_ratio:>7.2f} {uncached_ratio:>7.2f}  {_mark(cached_ratio)}/{_mark(uncached_ratio)}",
            file=out,
        )

    print("", file=out)
    print("Abusive notation: median time to refuse (target < 1 ms)", file=out)
    print(f"{'notation':<32} {'code':<22} {'median µs':>10}  mark", file=out)
    for name, text in generic.ABUSIVE:
        code = generic.refusal_code(text, dice)
        seconds = 1.0 / rate(lambda t=text: generic.refusal_code(t, dice), profile)
        mark = "NOT REFUSED" if code is None else ("PASS" if seconds < REFUSAL_TARGET_SECONDS else "OVER")
        print(f"{_fit(name, 32):<32} {code or '-':<22} {seconds * 1e6:>10.1f}  {mark}", file=out)


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.rolls_bench", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a ~5 s smoke run instead of the full run")
    args = parser.parse_args(argv)
    out = out if out is not None else sys.stdout
    started = time.perf_counter()
    try:
        run(QUICK if args.quick else FULL, out)
    except Exception:  # benchmarks report; they never fail the build
        traceback.print_exc()
    print(f"\n(total {time.perf_counter() - started:.1f} s)", file=out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
