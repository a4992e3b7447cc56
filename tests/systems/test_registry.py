"""The registry as a whole: every ruleset present and complete, and systems/ free of Django."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest

from systems.errors import RulesError
from systems.registry import RULESET_KEYS, all_rulesets, get_ruleset, ruleset_module

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_every_ruleset_is_registered_with_its_parts() -> None:
    rulesets = all_rulesets()
    assert set(rulesets) == set(RULESET_KEYS)
    for key, ruleset in rulesets.items():
        assert ruleset.key == key
        assert ruleset.names.es and ruleset.names.en
        assert ruleset.roll_kinds, key
        assert ruleset.resolve is not None, key
        assert ruleset.sheet_model is not None and ruleset.settings_model is not None, key
        for kind in ruleset.roll_kinds:
            assert kind.request_model is not None, (key, kind.key)
        ruleset.default_settings()  # the spec's defaults validate


def test_unknown_keys_are_refused_clearly() -> None:
    with pytest.raises(RulesError) as exc:
        get_ruleset("dnd5e")
    assert exc.value.code == "unknown_ruleset"
    with pytest.raises(RulesError):
        ruleset_module("dnd5e")
    with pytest.raises(RulesError):
        get_ruleset("fate-sotc").roll_kind("fireball")


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
        "import sys, systems; systems.registry.all_rulesets(); "
        "assert not any(m == 'django' or m.startswith('django.') for m in sys.modules), 'django was imported'"
    )
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
