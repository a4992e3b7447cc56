"""``invocation``: an invocation window on a roll already posted (a simple action, an opposed roll...). The
roller or a GM opens it, picking the roll by its words; it settles when the GM closes it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from campaigns import policy
from rulesets.fate_sotc.procedures.common import Params, character_choices, ladder, line, roll_words, side_from_roll
from rulesets.fate_sotc.procedures.results import one_side, two_sides
from rulesets.fate_sotc.procedures.window import WindowSecret, WindowState, close_record, spin_available, window_steps
from rulesets.kit.procedures import Choice, NoParams, Opening, OpeningInput, Outcome, Procedure, StepInput
from rulesets.kit.refusals import refuse
from rulesets.kit.table import Reads, StoredRoll, Table
from systems.fate_sotc.resolution import Track


class InvocationState(WindowState):
    roll_kind: str
    track: Track | None = None
    difficulty: int | None = None  # a public difficulty (a secret one is in the secret)


class InvocationOpen(Params):
    roll: int
    opponent: int | None = None  # the character on the other side of an opposed roll


def _secret(roll: StoredRoll) -> bool:
    return roll.gm_only and not roll.revealed


def _windowable(roll: StoredRoll, viewer: policy.Viewer) -> bool:
    return bool(roll.result.get("sides")) and policy.may_open_roll_window(
        viewer, roller_id=roll.roller_id, gm_only=_secret(roll)
    )


def _the_roll(given: OpeningInput[InvocationOpen]) -> StoredRoll:
    roll = next((r for r in given.table.open_rolls if r.id == given.params.roll), None)
    if roll is None or not roll.result.get("sides"):
        raise refuse(
            "roll_not_open",
            "Esa tirada no está en esta escena o ya tiene su ventana de invocaciones.",
            "That roll is not in this scene, or it already has its invocation window.",
        )
    if _secret(roll):
        raise refuse(
            "secret_roll", "Revela antes la tirada secreta.", "Reveal the secret roll before opening its window."
        )
    if not _windowable(roll, given.viewer):
        raise refuse(
            "not_your_roll",
            "Solo quien tiró o el DJ abren la ventana de invocaciones.",
            "Only the roller or the GM opens the invocation window.",
        )
    return roll


def open_invocation(given: OpeningInput[InvocationOpen]) -> Outcome[InvocationState]:
    table = given.table
    roll = _the_roll(given)
    character = table.character(roll.character_id) if roll.character_id else None
    sides = {"a": side_from_roll(roll, 0, character, str(roll.request.get("skill") or ""))}
    if len(roll.result["sides"]) > 1:
        opponent = table.character(given.params.opponent) if given.params.opponent else None
        sides["b"] = side_from_roll(roll, 1, opponent, str(roll.request.get("opposition_skill") or ""))
        if opponent is None and roll.request.get("opposition_name"):
            # The rival named in the roll builder keeps its name in the window and the record.
            sides["b"] = sides["b"].model_copy(update={"name": str(roll.request["opposition_name"])})
    track = roll.request.get("track")
    state = InvocationState(
        roll=roll.id,
        roll_kind=roll.kind,
        sides=sides,  # type: ignore[arg-type]
        track=Track(track) if track else None,
        difficulty=roll.result.get("difficulty"),
        spin_use=spin_available(table),
    )
    secret_difficulty = roll.secret.get("difficulty")
    record = [
        line(
            lambda: _("Se abre la ventana de invocaciones de %(roll)s") % {"roll": roll_words(roll, table)},
            rolls=[roll.id],
        )
    ]
    if secret_difficulty is not None:
        record.append(
            line(lambda: _("Dificultad secreta: %(d)s") % {"d": ladder(int(secret_difficulty))}, gm_only=True)
        )
    return Outcome(
        state=state,
        secret=WindowSecret(difficulty=secret_difficulty),
        adopt=[roll.id],
        record=record,
    )


def after_close(given: StepInput[InvocationState, NoParams], state: InvocationState) -> Outcome[InvocationState]:
    secret = given.secret if isinstance(given.secret, WindowSecret) else WindowSecret()
    if "b" in state.sides:
        kind = "attack" if state.roll_kind == "attack" else ("maneuver" if state.roll_kind == "maneuver" else "opposed")
        final = two_sides(state, given.table, kind, state.track or Track.HEALTH)
    elif secret.difficulty is not None:
        final = one_side(state, given.table, secret.difficulty, hidden=True)
    else:
        final = one_side(state, given.table, state.difficulty, hidden=False)
    follow, record = close_record(state, final)
    done = state.model_copy(update={"phase": "done", "final": final})
    return Outcome(state=done, closes="settled", follow_ups=[follow], record=[record])


def opening_choices(table: Table, viewer: policy.Viewer) -> Mapping[str, Sequence[Choice]]:
    return {
        "roll": [
            Choice(str(r.id), roll_words(r, table))
            for r in table.open_rolls
            if _windowable(r, viewer) and not _secret(r)
        ],
        "opponent": character_choices(table),
    }


INVOCATION: Procedure[Any] = Procedure(
    key="invocation",
    title=gettext_lazy("Ventana de invocaciones"),
    state=InvocationState,
    secret=WindowSecret,
    reads=Reads(board=True, open_rolls=True, earlier_procedures=True),
    opening=Opening(params=InvocationOpen, run=open_invocation, choices=opening_choices),
    steps=window_steps(after_close),
)
