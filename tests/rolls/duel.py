"""A test procedure for the runner's own behaviour, as a step table: the player rolls, the GM settles; the
difficulty to beat is secret. The ``duel`` fixture (tests/rolls/conftest.py) adds it to the table's game."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from rulesets.kit.procedures import (
    FollowUp,
    NoParams,
    Opening,
    OpeningInput,
    Outcome,
    Procedure,
    RecordLine,
    Step,
    StepInput,
)
from rulesets.kit.rolls import RollSpec
from rulesets.kit.table import GM
from systems.registry import Names

FLOW_SECRET = 13579


class DuelState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    step: str
    player_id: int
    player: int | None = None
    player_roll: int | None = None


class DuelSecret(BaseModel):
    difficulty: int


class DuelOpen(BaseModel):
    player: int


def _open(given: OpeningInput[DuelOpen]) -> Outcome[DuelState]:
    secret_words = Names(f"Dificultad secreta: {FLOW_SECRET}", f"Secret difficulty: {FLOW_SECRET}")
    return Outcome(
        state=DuelState(step="player", player_id=given.params.player),
        secret=DuelSecret(difficulty=FLOW_SECRET),
        record=[RecordLine(secret_words, gm_only=True)],
    )


def _player_roll(given: StepInput[DuelState, NoParams]) -> Outcome[DuelState]:
    roll = given.roll(RollSpec(kind="notation", data={"expression": "1d6"}))
    state = given.state.model_copy(
        update={"step": "settle", "player": roll.result["totals"][0], "player_roll": roll.id}
    )
    return Outcome(state=state)


def _settle(given: StepInput[DuelState, NoParams]) -> Outcome[DuelState]:
    state = given.state
    assert state.player_roll is not None
    follow_up = FollowUp(state.player_roll, "settle", Names("Resuelto a favor", "Settled in favour"))
    return Outcome(state=state.model_copy(update={"step": "done"}), closes="settled", follow_ups=[follow_up])


DUEL: Procedure[DuelState] = Procedure(
    key="duel",
    title="duel",
    state=DuelState,
    secret=DuelSecret,
    opening=Opening(params=DuelOpen, run=_open),
    steps=(
        Step(
            key="player_roll",
            label="player roll",
            params=NoParams,
            who=lambda s: {s.player_id} if s.step == "player" else set(),
            run=_player_roll,
            waiting=lambda s, t: Names("tirada del jugador", "the player's roll"),
        ),
        Step(
            key="settle",
            label="settle",
            params=NoParams,
            who=lambda s: {GM} if s.step == "settle" else set(),
            run=_settle,
        ),
    ),
)
