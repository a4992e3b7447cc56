"""Rendered fragments kept in each process's ``fragments`` cache, keyed by a digest of what they show.

A key names everything its template reads, so a change to any of it makes a new key: nothing is
invalidated by hand and a stale fragment cannot be served. Used for a thread page's posts
(campaigns.post_fragments), rolls (rolls.roll_fragments) and the composer's fields
(tintero.field_fragments).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from typing import Any

from django.core.cache import caches
from django.template.loader import render_to_string

FRAGMENT_CACHE = "fragments"


def digest(inputs: object) -> str:
    """A short digest of ``inputs`` (plain values: their repr is what is hashed)."""
    return hashlib.blake2b(repr(inputs).encode(), digest_size=16).hexdigest()


class KeptFragments:
    """A page's kept fragments: read with one cache call; the missing ones made, and stored by ``store()``
    with one more."""

    def __init__(self, keys: Iterable[str]) -> None:
        self.cache = caches[FRAGMENT_CACHE]
        self.kept: dict[str, str] = self.cache.get_many(list(keys))
        self.fresh: dict[str, str] = {}

    def make(self, key: str, make: Callable[[], str]) -> str:
        html = self.kept.get(key) or self.fresh.get(key)
        if html is None:
            html = self.fresh[key] = make()
        return html

    def render(self, key: str, template: str, context: dict[str, Any]) -> str:
        return self.make(key, lambda: render_to_string(template, context))

    def store(self) -> None:
        if self.fresh:
            self.cache.set_many(self.fresh)
