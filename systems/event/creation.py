"""Character creation turns (§2.2, §2.3, §8 A-1, A-2, A-6): Q1/Q2 order, the Q3 order roll, the
round-robin queue that skips full sheets and sends invalidated players to the back."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from systems.dice import DiceSource
from systems.errors import RulesError
from systems.event.rolling import DiceRules, roll_pool
from systems.event.settings import DEFAULT_SETTINGS, EventSettings
from systems.event.sheet import Question
from systems.event.veto import Verdict

ORDER_DICE = 3


def event_rule_a_met(active_players: Iterable[str], accepted: Iterable[str]) -> bool:
    """Rule A of the campaign's event (§1.3): every active player agrees that it really happened [INT]."""
    return set(active_players) <= set(accepted)


def q12_order(seats: Sequence[str], question: Question, mode: str = "fixed") -> tuple[str, ...]:
    """Q1 and Q2 start at seat 1 (the GM's left) and go clockwise; ``rotate`` starts Q2 one seat later."""
    order = tuple(seats)
    if mode == "rotate" and question is Question.APPEARANCE and order:
        return order[1:] + order[:1]
    return order


@dataclass(frozen=True, slots=True)
class OrderRoll:
    """The Q3 turn-order roll: 3 dice of the campaign's size, more if exploding covers ``creation_order``."""

    dice: tuple[int, ...]

    @property
    def total(self) -> int:
        return sum(self.dice)


def roll_order(source: DiceSource, settings: EventSettings = DEFAULT_SETTINGS) -> OrderRoll:
    """CV9: the server rolls it."""
    return OrderRoll(roll_pool(source, ORDER_DICE, DiceRules.for_scope(settings, "creation_order")))


def top_contenders(seats: Sequence[str], totals: Mapping[str, int]) -> tuple[str, ...]:
    best = max(totals[p] for p in seats if p in totals)
    return tuple(p for p in seats if totals.get(p) == best)


def clockwise_from(seats: Sequence[str], first: str) -> tuple[str, ...]:
    """The rest follow in seat order from the winner, not by descending totals [SRC]."""
    i = list(seats).index(first)
    return tuple(seats[i:]) + tuple(seats[:i])


def q3_turn_order(
    seats: Sequence[str],
    totals: Mapping[str, int],
    reroll: Callable[[tuple[str, ...]], Mapping[str, int]],
) -> tuple[str, ...]:
    """Highest total goes first; only players tied at the top re-roll, until one is highest (§8 A-2)."""
    contenders = top_contenders(seats, totals)
    while len(contenders) > 1:
        contenders = top_contenders(contenders, reroll(contenders))
    return clockwise_from(seats, contenders[0])


def roll_q3_order(
    seats: Sequence[str], source: DiceSource, settings: EventSettings = DEFAULT_SETTINGS
) -> tuple[tuple[str, ...], tuple[dict[str, OrderRoll], ...]]:
    """Roll the whole Q3 order with the server's dice; returns the order and every attempt's rolls."""
    attempts: list[dict[str, OrderRoll]] = []

    def roll_for(players: Sequence[str]) -> dict[str, int]:
        rolls = {p: roll_order(source, settings) for p in players}
        attempts.append(rolls)
        return {p: r.total for p, r in rolls.items()}

    order = q3_turn_order(seats, roll_for(seats), roll_for)
    return order, tuple(attempts)


@dataclass(frozen=True, slots=True)
class TurnQueue:
    """Whose turn it is in one round of a question. Invalidated players go to the back, FIFO (§8 A-6)."""

    question: Question
    round: int
    queue: tuple[str, ...]

    @property
    def current(self) -> str | None:
        return self.queue[0] if self.queue else None

    @property
    def done(self) -> bool:
        return not self.queue


def start_q12(seats: Sequence[str], question: Question, settings: EventSettings = DEFAULT_SETTINGS) -> TurnQueue:
    return TurnQueue(question, 1, q12_order(seats, question, settings.core.creation_q12_order))


def start_q3_round(order: Sequence[str], picks: Mapping[str, int], round_no: int, max_picks: int = 6) -> TurnQueue:
    """A round of Q3: characters with ``max_picks`` picks are skipped [SRC]."""
    return TurnQueue(Question.ABILITIES, round_no, tuple(p for p in order if picks.get(p, 0) < max_picks))


def check_turn(queue: TurnQueue, player: str) -> None:
    """CV2: only the player whose turn it is may answer."""
    if queue.current != player:
        raise RulesError(
            "NOT_YOUR_TURN",
            "No es tu turno de responder.",
            "It is not your turn to answer.",
        )


def record_answer(queue: TurnQueue, player: str, verdict: Verdict) -> TurnQueue:
    """After the answer's veto window closes: accepted leaves the queue, invalid goes to the back."""
    check_turn(queue, player)
    if verdict is Verdict.PENDING:
        raise RulesError(
            "WINDOW_OPEN",
            "La votación de la respuesta sigue abierta.",
            "The answer's veto window is still open.",
        )
    rest = queue.queue[1:]
    return replace(queue, queue=(*rest, player) if verdict is Verdict.INVALID else rest)
