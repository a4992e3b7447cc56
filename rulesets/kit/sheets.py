"""How a ruleset's pure operations meet the database: one binding per ruleset.

``systems/`` defines each operation on the state shape that suits its game (a sheet; a sheet and the
hope chest; the threat and every character...). A binding translates between those shapes and what the
database stores: the campaign rules state (JSON) and each character's sheet (JSON). It stays free of
queries: the characters service locks and loads the rows, asks the binding, and writes the result.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import BaseModel

from systems.registry import Operation

JSON = dict[str, Any]


class Who:
    """Who may apply an operation (the GMs always may)."""

    GM = "gm"
    OWNER = "owner"  # the player who owns the character the operation is applied to


@dataclass(frozen=True)
class Targets:
    """What an operation reads and writes: the campaign rules state and/or some characters."""

    campaign_state: bool
    character_ids: tuple[int, ...] = ()
    # Also every approved player character of the campaign (a session's end touches every sheet).
    all_characters: bool = False


@dataclass(frozen=True)
class Outcome:
    """What an operation produced, ready to store."""

    campaign_state: JSON | None
    sheets: Mapping[int, JSON] = field(default_factory=dict)


class SheetBinding(Protocol):
    key: str

    def initial_campaign_state(self, settings: BaseModel | None) -> JSON:
        """The campaign rules state of a new campaign (empty pools, the spec's starting values)."""
        ...

    def new_sheet(self, data: JSON, settings: BaseModel | None, *, is_npc: bool) -> JSON:
        """Validate a submitted sheet with the ruleset's creation rules; return it normalized.

        Raises RulesError or pydantic.ValidationError with the rule that is broken."""
        ...

    def draft_sheet(self, data: JSON, settings: BaseModel | None) -> JSON:
        """Light checks for a sheet still being written (types and ranges, not completeness)."""
        ...

    def who_may(self, operation: Operation) -> frozenset[str]:
        """``{Who.GM}`` or ``{Who.GM, Who.OWNER}``: who may ask for this operation."""
        ...

    def pools_public(self, settings: BaseModel | None) -> bool:
        """Whether the whole table sees the campaign pools (else the GMs only)."""
        ...

    def targets(self, operation: Operation, params: BaseModel, character_id: int | None) -> Targets: ...

    def apply(
        self,
        operation: Operation,
        params: BaseModel,
        settings: BaseModel | None,
        campaign_state: JSON | None,
        sheets: Mapping[int, JSON],
        character_id: int | None,
    ) -> Outcome:
        """Run the pure operation on the loaded state and return what to store (RulesError refuses)."""
        ...

    def pool_values(self, campaign_state: JSON | None, sheets: Mapping[int, JSON]) -> dict[str, int]:
        """Every numeric pool in this state, keyed ``campaign.<pool>`` or ``character.<id>.<pool>``:
        the ledger records how each moved, and pages show them."""
        ...
