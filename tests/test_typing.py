"""The mypy baseline only shrinks.

pyproject.toml lists the modules written before type checking, each still carrying errors, under one
``ignore_errors`` override. A module there that mypy finds clean must leave the list (so nobody adds errors
to it unseen), and the list never admits the rules (systems/), the games (rulesets/), the procedure runner
or the policy module: those are typed from the start.

One mypy run checks every listed module with the override switched off, in a subprocess with the same
options and the same cache as ``make lint`` (which runs first in CI), so only the listed modules are
checked again.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = ROOT / "pyproject.toml"
# Typed from the start: never in the baseline (module names and their prefixes).
NEVER_IN_BASELINE = ("systems", "rulesets", "rolls.runner", "campaigns.policy")
IGNORE_ON = "ignore_errors = true"
ERROR_LINE = re.compile(r"^(?P<path>[^:\s]+\.pyi?):\d+(?::\d+)?: error: ", re.MULTILINE)


def baseline() -> list[str]:
    """The modules of the one override that ignores errors, in the file's order."""
    overrides = tomllib.loads(PYPROJECT.read_text())["tool"]["mypy"]["overrides"]
    ignoring = [o for o in overrides if o.get("ignore_errors")]
    assert len(ignoring) == 1, "one override (the baseline) ignores errors"
    modules = ignoring[0]["module"]
    return [modules] if isinstance(modules, str) else list(modules)


def module_of(path: str) -> str:
    """``campaigns/views/scenes.py`` -> ``campaigns.views.scenes``; a package's ``__init__`` is the package."""
    parts = Path(path).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def source_of(module: str) -> Path | None:
    base = ROOT.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def admitted_wrongly(modules: list[str]) -> list[str]:
    return [m for m in modules if any(m == p or m.startswith(p + ".") for p in NEVER_IN_BASELINE)]


def test_baseline_never_admits_the_rules_the_games_the_runner_or_the_policy() -> None:
    assert admitted_wrongly(baseline()) == []


def test_the_guard_refuses_each_typed_area() -> None:
    # The guard itself: each typed area and a module inside it is refused, a neighbour's name is not.
    wrong = ["systems", "systems.presagios.core", "rulesets.event.plugin", "rolls.runner", "campaigns.policy"]
    assert admitted_wrongly([*wrong, "rolls.runners_old", "campaigns.policy_notes", "rolls.apis"]) == wrong


def test_baseline_names_existing_modules_once_in_order() -> None:
    modules = baseline()
    assert modules == sorted(set(modules)), "sorted, each once"
    assert [m for m in modules if source_of(m) is None] == [], "a deleted or moved module leaves the list"


def test_module_of_a_path() -> None:
    assert module_of("campaigns/views/scenes.py") == "campaigns.views.scenes"
    assert module_of("tintero/api/__init__.py") == "tintero.api"


def test_no_module_in_the_baseline_is_already_clean(tmp_path: Path) -> None:
    text = PYPROJECT.read_text()
    assert text.count(IGNORE_ON) == 1, f"pyproject.toml says {IGNORE_ON!r} once, on the baseline"
    # The same configuration with the baseline's errors reported: a copy, so nothing else changes.
    config = tmp_path / "pyproject.toml"
    config.write_text(text.replace(IGNORE_ON, "ignore_errors = false"))
    modules = baseline()
    arguments = [f"--config-file={config}", "--no-error-summary", "--hide-error-context", "--no-pretty"]
    for module in modules:
        arguments += ["-m", module]
    run = subprocess.run(
        [sys.executable, "-m", "mypy", *arguments], cwd=ROOT, capture_output=True, text=True, timeout=900
    )
    assert run.returncode in (0, 1), run.stdout + run.stderr  # 2: mypy itself failed (config, crash)
    with_errors = {module_of(m["path"]) for m in ERROR_LINE.finditer(run.stdout)}
    clean = [m for m in modules if m not in with_errors]
    assert clean == [], f"clean now, remove from the baseline in pyproject.toml: {clean}"
