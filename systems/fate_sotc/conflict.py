"""Conflicts (spec §3.9): initiative order, the turn flow of an exchange (hold, full defense), spin."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from systems.dice import DiceSource
from systems.fate_sotc.errors import fate_error
from systems.fate_sotc.resolution import ConflictType, Modifier, ModifierSource
from systems.fate_sotc.settings import DEFAULT_SETTINGS, FateSotcSettings, FinalTiebreak, InitiativeMode


@dataclass(frozen=True)
class Participant:
    """Someone in the initiative order: a character, or a minion group (led or not)."""

    key: str
    skills: Mapping[str, int] = field(default_factory=dict)
    kind: str = "pc"  # pc, npc, minion_group
    quality: int = 0  # minion group quality (§2.9)
    leader_skills: Mapping[str, int] | None = None  # a named character leading the group

    def rating(self, skill: str) -> int:
        """Unlisted skills are Mediocre (0) (§2.3)."""
        if self.kind == "minion_group" and self.leader_skills is not None:
            return self.leader_skills.get(skill, 0)
        return self.skills.get(skill, 0)

    def initiative_value(self, skill: str) -> int:
        if self.kind == "minion_group" and self.leader_skills is None:
            return self.quality  # an unled group acts at its quality
        return self.rating(skill)


def initiative_skill(conflict_type: ConflictType, settings: FateSotcSettings = DEFAULT_SETTINGS) -> str:
    skill: str = getattr(settings.initiative_skill, ConflictType(conflict_type).value)
    return skill


def initiative_order(
    participants: Sequence[Participant],
    conflict_type: ConflictType,
    settings: FateSotcSettings = DEFAULT_SETTINGS,
    gm_tiebreak: Sequence[str] = (),
    dice: DiceSource | None = None,
) -> tuple[Participant, ...]:
    """Highest key skill first; ties by Coraje; then the final tie-break (A15).

    ``gm_tiebreak`` lists keys in the GM's order (``gm_order``); ``random`` draws from ``dice``.
    """
    key_skill = initiative_skill(conflict_type, settings)
    tiebreak_skill = settings.initiative_tiebreak_skill
    final: dict[str, int] = {}
    mode = settings.initiative_final_tiebreak
    for index, p in enumerate(participants):
        if mode is FinalTiebreak.GM_ORDER and p.key in gm_tiebreak:
            final[p.key] = list(gm_tiebreak).index(p.key)
        elif mode is FinalTiebreak.RANDOM and dice is not None:
            final[p.key] = dice.roll(1_000_000)
        else:
            final[p.key] = len(gm_tiebreak) + index  # join order
    return tuple(
        sorted(
            participants,
            key=lambda p: (-p.initiative_value(key_skill), -p.rating(tiebreak_skill), final[p.key]),
        )
    )


def rotating_order(base_order: Sequence[str], exchange_no: int) -> tuple[str, ...]:
    """Alternate initiative (A16): whoever went first goes last next exchange."""
    if not base_order:
        return ()
    k = (exchange_no - 1) % len(base_order)
    return tuple(base_order[k:]) + tuple(base_order[:k])


@dataclass(frozen=True)
class ExchangeState:
    """One exchange (*asalto*): who acted, who holds, who is on full defense. Immutable."""

    base_order: tuple[str, ...]
    exchange_no: int = 1
    mode: InitiativeMode = InitiativeMode.SKILL
    cursor: int = 0  # index in ``order`` of the next regular turn
    turns: tuple[str, ...] = ()  # the turns actually taken, in order
    held: frozenset[str] = frozenset()
    full_defense: frozenset[str] = frozenset()
    forfeited: frozenset[str] = frozenset()

    @property
    def order(self) -> tuple[str, ...]:
        if self.mode is InitiativeMode.ROTATING:
            return rotating_order(self.base_order, self.exchange_no)
        return self.base_order  # the same order every exchange (§3.9)

    @property
    def next_up(self) -> str | None:
        order = self.order
        i = self.cursor
        while i < len(order) and order[i] in self.forfeited:
            i += 1
        return order[i] if i < len(order) else None

    def _check_member(self, who: str) -> None:
        if who not in self.base_order:
            raise fate_error("not_in_order", who=who)

    def _after_turn_of(self, who: str) -> ExchangeState:
        order = self.order
        i = self.cursor
        while order[i] in self.forfeited:
            i += 1
        assert order[i] == who
        return replace(self, cursor=i + 1)


def start_exchange(
    base_order: Sequence[str], exchange_no: int = 1, settings: FateSotcSettings = DEFAULT_SETTINGS
) -> ExchangeState:
    return ExchangeState(tuple(base_order), exchange_no, settings.initiative_mode)


def take_turn(state: ExchangeState, who: str) -> ExchangeState:
    """``who`` acts: on their regular turn, or now if they held their action earlier this exchange."""
    state._check_member(who)
    if who in state.held:
        # A held action goes between two turns, never interrupting one (turns are atomic here).
        return replace(state, held=state.held - {who}, turns=(*state.turns, who))
    if state.next_up != who:
        raise fate_error("not_your_turn", who=who, next_up=state.next_up)
    moved = state._after_turn_of(who)
    return replace(moved, turns=(*state.turns, who))


def hold_action(state: ExchangeState, who: str) -> ExchangeState:
    """Skip the turn now and act later this exchange (an unused hold is lost at its end)."""
    state._check_member(who)
    if state.next_up != who:
        raise fate_error("not_your_turn", who=who, next_up=state.next_up)
    moved = state._after_turn_of(who)
    return replace(moved, held=state.held | {who})


def declare_full_defense(state: ExchangeState, who: str) -> ExchangeState:
    """+2 to every defense this exchange, paid for with the action; only before acting (§3.9)."""
    state._check_member(who)
    if who in state.turns or who in state.forfeited or (who not in state.held and _already_passed(state, who)):
        raise fate_error("out_of_order", who=who)
    return replace(
        state,
        full_defense=state.full_defense | {who},
        forfeited=state.forfeited | {who},
        held=state.held - {who},
    )


def _already_passed(state: ExchangeState, who: str) -> bool:
    return state.order.index(who) < state.cursor


def full_defense_modifier(state: ExchangeState, who: str) -> tuple[Modifier, ...]:
    return (Modifier(ModifierSource.FULL_DEFENSE, 2),) if who in state.full_defense else ()


def end_exchange(state: ExchangeState) -> ExchangeState:
    """Start the next exchange with the same base order; holds and full defenses lapse (A37)."""
    return ExchangeState(state.base_order, state.exchange_no + 1, state.mode)


# --- Spin (§3.6, A2) ---


@dataclass(frozen=True)
class Spin:
    """+1 or -1 on one roll of the very next action in the scene; lost if not used on it."""

    holder: str
    status: str = "available"  # available, used, lapsed


def apply_spin(spin: Spin, effort_value: int, sign: int) -> tuple[Spin, int]:
    if spin.status != "available":
        raise fate_error("spin_expired", holder=spin.holder)
    if sign not in (1, -1):
        raise fate_error("invalid_value", sign=sign)
    return replace(spin, status="used"), effort_value + sign


def action_passed(spin: Spin) -> Spin:
    """The next action resolved: unused spin is gone."""
    return spin if spin.status == "used" else replace(spin, status="lapsed")
