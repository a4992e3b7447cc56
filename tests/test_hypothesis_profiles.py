"""The hypothesis profiles of tests/fixtures.py: bounded everywhere, reproducible in CI."""

from __future__ import annotations

from hypothesis import settings


def test_every_profile_is_bounded_and_has_no_deadline() -> None:
    for name in ("tintero", "ci", "thorough"):
        profile = settings.get_profile(name)
        assert profile.deadline is None, name
        assert 0 < profile.max_examples <= 1000, name


def test_ci_draws_the_same_examples_every_run_and_keeps_no_database() -> None:
    ci = settings.get_profile("ci")
    assert ci.derandomize
    assert ci.database is None
    assert ci.max_examples == settings.get_profile("tintero").max_examples
