"""Small typed readers for settings from the environment (twelve-factor; SQLite by default)."""

from __future__ import annotations

import os

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false, yes/no), not {raw!r}")


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, not {raw!r}") from None


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return list(default)
    return [item.strip() for item in raw.split(",") if item.strip()]


def secret_key_weakness(key: str) -> str:
    """Why a SECRET_KEY is too weak for production, or "" when it is not (Django's own check --deploy rule:
    at least 50 characters, 5 distinct ones, and not one of Django's generated insecure keys)."""
    if key.startswith("django-insecure-"):
        return "it is a development key (django-insecure-...)"
    if len(key) < 50:
        return f"{len(key)} characters, at least 50 needed"
    if len(set(key)) < 5:
        return "fewer than 5 distinct characters"
    return ""
