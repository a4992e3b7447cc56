"""Exchanges (Intercambio) and asking for help (Buscar ayuda, spec §3.9, A-19, A-23)."""

from __future__ import annotations

from dataclasses import dataclass

from systems.errors import RulesError


@dataclass(frozen=True, slots=True)
class Exchange:
    """Who has used their action in one exchange of a conflict."""

    key: str
    acted: frozenset[str] = frozenset()

    def has_acted(self, character: str) -> bool:
        return character in self.acted

    def mark_acted(self, *characters: str) -> Exchange:
        for c in characters:
            if c in self.acted:
                raise RulesError(
                    "already_acted",
                    f"«{c}» ya ha usado su acción en este intercambio.",
                    f"'{c}' already used their action in this exchange.",
                )
        return Exchange(self.key, self.acted | frozenset(characters))


def check_helpers(actor: str, helpers: tuple[str, ...], exchange: Exchange | None, cap: int) -> None:
    """Helpers give up their action this exchange for +1 each; the GM caps how many (``cap``)."""
    if len(set(helpers)) != len(helpers) or actor in helpers:
        raise RulesError(
            "invalid_helpers",
            "Cada aliado ayuda una sola vez, y nadie se ayuda a sí mismo.",
            "Each ally helps once, and nobody helps themselves.",
        )
    if len(helpers) > cap:
        raise RulesError(
            "too_many_helpers",
            f"Solo pueden ayudar {cap} aliados en esta tirada.",
            f"Only {cap} allies may help on this roll.",
            cap=cap,
        )
    if exchange is not None:
        for h in helpers:
            if exchange.has_acted(h):
                raise RulesError(
                    "helper_already_acted",
                    f"«{h}» ya ha usado su acción en este intercambio y no puede ayudar.",
                    f"'{h}' already used their action in this exchange and cannot help.",
                )
