"""A step's reason for being disabled is worked out from the table; when working it out meets a refusal of the
rules (a character no longer approved, as an imported archive or a GM's change can leave one), that refusal is
the reason: the page lists the step disabled instead of failing (found by the import fuzzing)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from rulesets.kit.procedures import Step
from rulesets.kit.table import Table
from systems.registry import Names


class _State(BaseModel):
    character_id: int = 7


class _Params(BaseModel):
    pass


def _table() -> Table:
    return Table(campaign_id=1, scene_id=1, language="es", settings=None, characters={}, rolls=())


def _never_run(step_input: Any) -> Any:
    raise AssertionError("only the reason is asked")


def _reason_from_the_character(state: _State, table: Table, viewer: object) -> Names | None:
    table.character(state.character_id)  # refused: the table holds no approved character 7
    return None


def test_a_refusal_met_while_working_out_the_reason_is_the_reason() -> None:
    step: Step[_State, _Params] = Step(
        key="press",
        label="Apretar",
        params=_Params,
        who=lambda state: ("gm",),
        run=_never_run,
        unavailable=_reason_from_the_character,
    )
    reason = step.why_unavailable(_State(), _table())
    assert isinstance(reason, Names) and reason.es and reason.en


def test_a_step_without_a_reason_is_available() -> None:
    step: Step[_State, _Params] = Step(
        key="press", label="Apretar", params=_Params, who=lambda state: ("gm",), run=_never_run
    )
    assert step.why_unavailable(_State(), _table()) is None
