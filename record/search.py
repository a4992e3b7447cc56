"""Turning what a user typed into a query for each engine (no Django here beyond plain data)."""

from __future__ import annotations

import re
from dataclasses import dataclass

_PHRASE = re.compile(r'"([^"]*)"|(\S+)')
_WORD = re.compile(r"\w+", re.UNICODE)
# Private-use characters mark a match in the engine's snippet: they cannot come from a post (the text is
# escaped after the engine returns it, and only these become <mark>).
MARK_START = "\ue000"
MARK_END = "\ue001"


@dataclass(frozen=True)
class Terms:
    """The words and quoted phrases of a query, each phrase a tuple of words."""

    phrases: tuple[tuple[str, ...], ...]

    @property
    def is_empty(self) -> bool:
        return not self.phrases

    def fts5(self, column: str | None = None) -> str:
        """An FTS5 MATCH expression: every phrase must appear (AND); words are quoted, so no operator of the
        FTS5 syntax can come from the user."""
        expression = " ".join('"' + " ".join(words) + '"' for words in self.phrases)
        return f"{column} : ({expression})" if column else expression

    def websearch(self) -> str:
        """The same query for PostgreSQL's ``websearch_to_tsquery`` (quoted phrases, implicit AND)."""
        return " ".join('"' + " ".join(words) + '"' if len(words) > 1 else words[0] for words in self.phrases)


def parse_terms(text: str) -> Terms:
    phrases: list[tuple[str, ...]] = []
    for quoted, bare in _PHRASE.findall(text or ""):
        # A quoted phrase, or a hyphenated word ("TEXTO-PARA-TODOS"), is one phrase: its words in order.
        words = tuple(_WORD.findall(quoted or bare))
        if words:
            phrases.append(words)
    return Terms(tuple(phrases[:20]))
