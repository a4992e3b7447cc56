"""Guessing aspects (*adivinar aspectos*, spec §4.11): the PD is charged first, then the GM rules.

State machine: start_guess (charges 1 PD) -> rule_guess (once). A second ruling is refused.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from systems.dice import DiceSource
from systems.fate_sotc.aspects import Aspect, HolderType, Origin, Persistence, reveal, temporary_aspect
from systems.fate_sotc.errors import fate_error
from systems.fate_sotc.fate_points import FpKind, Wallet, credit, spend
from systems.fate_sotc.invocation import InvokeMode, Payment, RollState, invoke
from systems.fate_sotc.settings import DEFAULT_SETTINGS, FateSotcSettings


class GuessRuling(StrEnum):
    CLOSE_ENOUGH = "close_enough"
    MISS_NOT_SECRET = "miss_not_secret"
    MISS_SECRET = "miss_secret"
    DECEIVED = "deceived"


@dataclass(frozen=True)
class Guess:
    guesser_id: str
    guessed_text: str
    status: str = "open"  # open, settled
    ruling: GuessRuling | None = None


def start_guess(guesser_id: str, guessed_text: str, wallet: Wallet) -> tuple[Guess, Wallet]:
    """Spend the PD provisionally (A34: guesses are charged before the ruling)."""
    return Guess(guesser_id, guessed_text), spend(wallet, 1, FpKind.GUESS)


@dataclass(frozen=True)
class GuessOutcome:
    guess: Guess
    guesser: Wallet
    revealed: Aspect | None = None  # the real aspect, now known to the guesser
    roll: RollState | None = None  # the roll after the paid-for invocation (close enough)
    placed: Aspect | None = None  # how the deceiver fooled the guesser


def rule_guess(
    guess: Guess,
    guesser: Wallet,
    ruling: GuessRuling,
    *,
    real_aspect: Aspect | None = None,
    roll: RollState | None = None,
    mode: InvokeMode = InvokeMode.BONUS,
    dice: DiceSource | None = None,
    deceiver_id: str | None = None,
    deceiver_returns_point: bool = False,
    deceiver_places_aspect: bool = False,
    placed_aspect_id: str = "",
    placed_text: str = "",
    scene_id: str | None = None,
    settings: FateSotcSettings = DEFAULT_SETTINGS,
) -> GuessOutcome:
    if guess.status != "open":
        raise fate_error("already_settled")
    settled = replace(guess, status="settled", ruling=ruling)
    if ruling is GuessRuling.CLOSE_ENOUGH:
        if real_aspect is None:
            raise fate_error("invalid_value", reason="the real aspect is needed")
        revealed = reveal(real_aspect, guess.guesser_id)
        new_roll = None
        if roll is not None:
            # The guess's PD pays for this invocation.
            result = invoke(
                roll,
                guess.guesser_id,
                guesser,
                revealed,
                mode,
                Payment.PAID,
                gm_approved=True,
                dice=dice,
                current_scene_id=scene_id,
                settings=settings,
                prepaid=True,
            )
            new_roll, revealed = result.roll, result.aspect
        return GuessOutcome(settled, guesser, revealed, new_roll)
    if ruling is GuessRuling.MISS_NOT_SECRET:
        return GuessOutcome(settled, credit(guesser, 1, FpKind.GUESS_REFUND))
    if ruling is GuessRuling.MISS_SECRET:
        return GuessOutcome(settled, guesser)  # the absence itself is meaningful: the PD stays spent
    # Deceived: the deceiver chooses; they never gain the point themselves.
    if not deceiver_returns_point:
        return GuessOutcome(settled, guesser)
    guesser = credit(guesser, 1, FpKind.DECEIVER_RETURNS_POINT)
    placed = None
    if deceiver_places_aspect:
        if deceiver_id is None or not placed_text:
            raise fate_error("invalid_value", reason="the deceiver and the aspect text are needed")
        placed = temporary_aspect(
            placed_aspect_id or f"deception-{guess.guesser_id}",
            placed_text,
            HolderType.CHARACTER,
            guess.guesser_id,
            created_by=deceiver_id,
            scene_id=scene_id,
            origin=Origin.DECEPTION,
            persistence=Persistence.FRAGILE,
        )
    return GuessOutcome(settled, guesser, placed=placed)
