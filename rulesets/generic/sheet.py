"""Generic games: the sheet is free-form notes, there are no pools and no operations."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel

from rulesets.kit.sheets import JSON, Outcome, Targets, Who
from systems.errors import RulesError
from systems.generic.sheet import GenericSheet
from systems.registry import Operation


class GenericBinding:
    key = "generic"

    def initial_campaign_state(self, settings: BaseModel | None) -> JSON:
        return {}

    def new_sheet(self, data: JSON, settings: BaseModel | None, *, is_npc: bool) -> JSON:
        return GenericSheet.model_validate(data).model_dump(mode="json")

    def draft_sheet(self, data: JSON, settings: BaseModel | None) -> JSON:
        return GenericSheet.model_validate(data).model_dump(mode="json")

    def who_may(self, operation: Operation) -> frozenset[str]:
        return frozenset({Who.GM})

    def pools_public(self, settings: BaseModel | None) -> bool:
        return True

    def targets(self, operation: Operation, params: BaseModel | None, character_id: int | None) -> Targets:
        raise RulesError("no_operations", "Este sistema no tiene operaciones.", "This ruleset has no operations.")

    def apply(
        self,
        operation: Operation,
        params: BaseModel | None,
        settings: BaseModel | None,
        campaign_state: JSON | None,
        sheets: Mapping[int, JSON],
        character_id: int | None,
    ) -> Outcome:
        raise RulesError("no_operations", "Este sistema no tiene operaciones.", "This ruleset has no operations.")

    def pool_values(self, campaign_state: JSON | None, sheets: Mapping[int, JSON]) -> dict[str, int]:
        return {}


BINDING = GenericBinding()
