"""Fixtures for every test folder: tests/ and each game's own tests (rulesets/<key>/tests/)."""

pytest_plugins = ["tests.fixtures", "tests.browser.fixtures"]
