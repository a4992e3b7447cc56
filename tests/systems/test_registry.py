"""Every pure ruleset package complete, and systems/ free of Django (the registry of games is Django-side:
tests/rulesets/test_registry.py)."""

from __future__ import annotations

import importlib
import pathlib
import subprocess
import sys

import pytest

from systems.errors import RulesError
from systems.registry import Ruleset

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGES = sorted(p.parent.name for p in (ROOT / "systems").glob("*/__init__.py"))


def _rules(package: str) -> Ruleset:
    ruleset = importlib.import_module(f"systems.{package}").RULESET
    assert isinstance(ruleset, Ruleset), package
    return ruleset


def test_every_ruleset_package_builds_a_complete_ruleset() -> None:
    assert len(PACKAGES) >= 6
    for package in PACKAGES:
        ruleset = _rules(package)
        key = ruleset.key
        assert key.replace("-", "_") == package
        assert ruleset.names.es and ruleset.names.en
        assert ruleset.roll_kinds, key
        assert ruleset.resolve is not None, key
        assert ruleset.sheet_model is not None and ruleset.settings_model is not None, key
        for kind in ruleset.roll_kinds:
            assert kind.request_model is not None, (key, kind.key)
        ruleset.default_settings()  # the spec's defaults validate


def test_unknown_roll_kinds_and_operations_are_refused_clearly() -> None:
    with pytest.raises(RulesError) as exc:
        _rules("fate_sotc").roll_kind("fireball")
    assert exc.value.code == "unknown_roll_kind"
    with pytest.raises(RulesError) as exc:
        _rules("fate_sotc").operation("fireball")
    assert exc.value.code == "unknown_operation"


def test_no_module_under_systems_imports_django() -> None:
    offenders = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "systems").rglob("*.py")
        if any(
            line.strip().startswith(("import django", "from django"))
            for line in path.read_text(encoding="utf-8").splitlines()
        )
    ]
    assert offenders == []


def test_systems_imports_without_django_settings() -> None:
    code = (
        "import sys, importlib, pathlib; "
        "[importlib.import_module('systems.' + p.parent.name) for p in pathlib.Path('systems').glob('*/__init__.py')]; "
        "assert not any(m == 'django' or m.startswith('django.') for m in sys.modules), 'django was imported'"
    )
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
