"""Interactions settled by a *desafío* (§5, §6.4, §8 A-18..A-22, A-25, A-30, A-31).

Each participant seals a split of their pool into a left fist (who wins) and a right fist (who
narrates). The reveal happens atomically when the last participant commits; each fist is won by the
most dice, and a tie is broken by the tied participants' dice (highest die, or *Desafío total*).
The flow is an explicit state machine over an immutable :class:`Interaction`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from systems.dice import DiceSource
from systems.errors import RulesError
from systems.event.bets import Bet, BetKind, require_agreement
from systems.event.rolling import DiceRules, reroll_one, roll_pool
from systems.event.settings import DEFAULT_SETTINGS, EventSettings

GM = "GM"


class Side(StrEnum):
    LEFT = "LEFT"  # puño izquierdo: who wins the challenge
    RIGHT = "RIGHT"  # puño derecho: who narrates


class Verdict(StrEnum):
    WIN = "WIN"
    DRAW = "DRAW"  # empate (left)
    JOINT = "JOINT"  # narración conjunta (right)
    GM = "GM"  # right 0-0 with empty_right_tie = "gm"


class DecidedBy(StrEnum):
    COUNT = "COUNT"
    HIGHEST_DIE = "HIGHEST_DIE"
    TOTAL = "TOTAL"
    EMPTY = "EMPTY"  # 0-0: no dice to roll, each highest die taken as 0


class Stage(StrEnum):
    COMMITTING = "COMMITTING"
    LEFT_TIEBREAK = "LEFT_TIEBREAK"
    RIGHT_TIEBREAK = "RIGHT_TIEBREAK"
    NARRATION = "NARRATION"
    CANCELLED = "CANCELLED"


Pairs = tuple[tuple[str, Any], ...]  # immutable mapping as ordered pairs


@dataclass(frozen=True, slots=True)
class Split:
    left: int
    right: int


def check_split(pool: int, left: int, right: int) -> Split:
    """Every die placed, either hand may be empty (§5.3, A-20)."""
    if left < 0 or right < 0:
        raise RulesError(
            "SPLIT_NEGATIVE",
            "Ningún puño puede tener dados negativos.",
            "A fist cannot hold a negative number of dice.",
        )
    if left + right != pool:
        raise RulesError(
            "SPLIT_SUM",
            f"Debes repartir exactamente tus {pool} dados entre los dos puños.",
            f"You must split exactly your {pool} dice between both fists.",
        )
    return Split(left, right)


def commitment_digest(interaction_id: str, participant_id: str, split: Split, nonce: str) -> str:
    """Optional audit (§5.3): published at commit, checkable with the nonce published at reveal."""
    raw = f"{interaction_id}|{participant_id}|{split.left}|{split.right}|{nonce}"
    return hashlib.sha256(raw.encode()).hexdigest()


# --- comparing fists ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FistResult:
    side: Side
    counts: Pairs
    verdict: Verdict
    winners: tuple[str, ...]  # the winner, or those who draw / share the narration
    by: DecidedBy
    rolls: Pairs = ()  # tie-break dice per tied participant (final, after talent/reckless)
    points: Pairs = ()  # Desafío total points

    def winner(self) -> str | None:
        return self.winners[0] if self.verdict is Verdict.WIN else None


def leaders(counts: Mapping[str, int]) -> tuple[str, ...]:
    top = max(counts.values())
    return tuple(p for p, c in counts.items() if c == top)


def highest_die(rolls: Mapping[str, Sequence[int]]) -> tuple[str, ...]:
    """Base tie-break: only each participant's highest die counts; an empty fist counts 0 (A-18)."""
    best = {p: max(d, default=0) for p, d in rolls.items()}
    top = max(best.values())
    return tuple(p for p, b in best.items() if b == top)


def total_challenge(rolls: Mapping[str, Sequence[int]]) -> tuple[tuple[str, ...], dict[str, int]]:
    """*Desafío total* (§5.8): sort high to low, compare position by position where at least two hold a
    die; every holder of the top value scores 1. Most points wins; equal points stay tied."""
    ordered = {p: sorted(d, reverse=True) for p, d in rolls.items()}
    points = dict.fromkeys(ordered, 0)
    longest = max((len(d) for d in ordered.values()), default=0)
    for i in range(longest):
        holders = [p for p, d in ordered.items() if len(d) > i]
        if len(holders) < 2:
            continue  # an unmatched die scores nothing
        top = max(ordered[p][i] for p in holders)
        for p in holders:
            if ordered[p][i] == top:
                points[p] += 1
    best = max(points.values())
    return tuple(p for p, v in points.items() if v == best), points


def _tie_verdict(side: Side, empty_right_tie: str, all_empty: bool) -> Verdict:
    if side is Side.LEFT:
        return Verdict.DRAW
    if all_empty and empty_right_tie == "gm":
        return Verdict.GM
    return Verdict.JOINT


def compare_tiebreak(
    side: Side,
    counts: Mapping[str, int],
    rolls: Mapping[str, Sequence[int]],
    use_total: bool,
    empty_right_tie: str = "joint",
) -> FistResult:
    """Compare the tied participants' dice (only they roll, A-19); a second tie is a draw / joint."""
    if use_total:
        winners, points = total_challenge(rolls)
        by = DecidedBy.TOTAL
    else:
        winners, points, by = highest_die(rolls), {}, DecidedBy.HIGHEST_DIE
    verdict = Verdict.WIN if len(winners) == 1 else _tie_verdict(side, empty_right_tie, False)
    return FistResult(
        side=side,
        counts=tuple(counts.items()),
        verdict=verdict,
        winners=winners,
        by=by,
        rolls=tuple((p, tuple(d)) for p, d in rolls.items()),
        points=tuple(points.items()),
    )


def compare_counts(side: Side, counts: Mapping[str, int], empty_right_tie: str = "joint") -> FistResult | None:
    """Most dice wins outright; 0-0 needs no roll (A-18). ``None`` means the tied participants must roll."""
    tied = leaders(counts)
    if len(tied) == 1:
        return FistResult(side, tuple(counts.items()), Verdict.WIN, tied, DecidedBy.COUNT)
    if counts[tied[0]] == 0:
        verdict = _tie_verdict(side, empty_right_tie, True)
        winners = () if verdict is Verdict.GM else tied
        return FistResult(side, tuple(counts.items()), verdict, winners, DecidedBy.EMPTY)
    return None


def resolve_fist(
    side: Side,
    counts: Mapping[str, int],
    dice: DiceSource,
    rules: DiceRules,
    use_total: bool = False,
    empty_right_tie: str = "joint",
) -> FistResult:
    """One fist in one go (no talent or reckless decisions): counts, then the tied participants roll."""
    decided = compare_counts(side, counts, empty_right_tie)
    if decided is not None:
        return decided
    rolls = {p: roll_pool(dice, counts[p], rules) for p in leaders(counts)}
    return compare_tiebreak(side, counts, rolls, use_total, empty_right_tie)


# --- the interaction state machine -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Participant:
    id: str
    pool: int
    narrator: str  # the player who narrates for this character; "GM" for an NPC
    seat: int | None = None  # None for NPCs (they go last in joint narration)
    npc: bool = False
    talent_built: bool = False
    wild_die: bool = False


@dataclass(frozen=True, slots=True)
class Tiebreak:
    side: Side
    counts: Pairs
    tied: tuple[str, ...]
    rolls: Pairs = ()  # participant -> current dice
    talent_pending: frozenset[str] = frozenset()  # eligible participants who have not decided yet
    talent_choices: Pairs = ()  # sealed until everyone decided: participant -> index or None
    reckless: Pairs = ()  # participant -> agreed Bet
    provisional: FistResult | None = None

    @property
    def rolled(self) -> bool:
        return bool(self.rolls)


@dataclass(frozen=True, slots=True)
class Interaction:
    participants: tuple[Participant, ...]
    stage: Stage
    rules: DiceRules
    use_total: bool = False
    talent_in_tiebreaks: bool = True
    reckless_allowed: bool = False
    empty_right_tie: str = "joint"
    commitments: Pairs = ()  # participant -> Split; hidden from everyone until the reveal
    left: FistResult | None = None
    right: FistResult | None = None
    tiebreak: Tiebreak | None = None
    reckless_log: tuple[tuple[str, Bet, bool], ...] = ()  # (participant, bet, triggered)

    def participant(self, pid: str) -> Participant:
        for p in self.participants:
            if p.id == pid:
                return p
        raise RulesError(
            "NOT_A_PARTICIPANT",
            f"«{pid}» no participa en este desafío.",
            f"'{pid}' is not a participant of this challenge.",
        )

    @property
    def revealed(self) -> bool:
        return self.stage is not Stage.COMMITTING and self.stage is not Stage.CANCELLED

    @property
    def splits(self) -> dict[str, Split]:
        """Public only after the reveal."""
        if not self.revealed:
            raise RulesError(
                "NOT_REVEALED",
                "Los repartos siguen en secreto hasta que todos se hayan comprometido.",
                "The splits stay sealed until everyone has committed.",
            )
        return dict(self.commitments)

    @property
    def narrators(self) -> tuple[str, ...]:
        """Who narrates: the right-fist winner, the joint narrators (seat order, NPC/GM last), or the GM."""
        if self.right is None:
            return ()
        if self.right.verdict is Verdict.GM:
            return (GM,)
        people = sorted(
            (self.participant(pid) for pid in self.right.winners),
            key=lambda p: (p.seat is None, p.seat or 0),
        )
        seen: list[str] = []
        for p in people:
            if p.narrator not in seen:
                seen.append(p.narrator)
        return tuple(seen)

    @property
    def wild_bets_triggered(self) -> dict[str, bool]:
        """§6.10: losing the left fist triggers a wild-die bet; winning or a draw does not."""
        if self.left is None:
            return {}
        return {p.id: p.id not in self.left.winners for p in self.participants if p.wild_die}


def public_view(ix: Interaction) -> dict[str, Any]:
    """What any reader (the GM included) may see: before the reveal, only who has committed."""
    committed = {pid for pid, _ in ix.commitments}
    if not ix.revealed:
        return {"stage": ix.stage.value, "committed": {p.id: p.id in committed for p in ix.participants}}
    view: dict[str, Any] = {
        "stage": ix.stage.value,
        "splits": {pid: {"left": s.left, "right": s.right} for pid, s in ix.commitments},
        "left": ix.left,
        "right": ix.right,
        "narrators": ix.narrators,
    }
    if ix.tiebreak is not None:
        view["tiebreak"] = {"side": ix.tiebreak.side.value, "rolls": dict(ix.tiebreak.rolls)}
    return view


def start_interaction(participants: Iterable[Participant], settings: EventSettings | None = None) -> Interaction:
    """Pools (and wild-die bets) are locked before the first commitment (§5.3)."""
    settings = settings or DEFAULT_SETTINGS
    people = tuple(participants)
    ids = [p.id for p in people]
    if len(people) < 2 or len(set(ids)) != len(ids):
        raise RulesError(
            "PARTICIPANTS",
            "Un desafío necesita al menos dos participantes distintos.",
            "A challenge needs at least two distinct participants.",
        )
    if any(p.pool < 1 for p in people):
        raise RulesError("EMPTY_POOL", "Una reserva de dados nunca está vacía.", "A dice pool is never empty.")
    return Interaction(
        participants=people,
        stage=Stage.COMMITTING,
        rules=DiceRules.for_scope(settings, "interactions"),
        use_total=settings.optional.total_challenge.enabled,
        talent_in_tiebreaks=settings.talent_enabled and settings.optional.talent.in_desafio_tiebreaks,
        reckless_allowed=settings.reckless_allowed("desafio_tiebreak"),
        empty_right_tie=settings.interpretations.empty_right_tie,
    )


def commit(ix: Interaction, participant_id: str, left: int, right: int) -> Interaction:
    """Seal (or amend) a split; the reveal is automatic when the last participant commits."""
    if ix.stage is not Stage.COMMITTING:
        raise RulesError(
            "ALREADY_REVEALED",
            "Los repartos ya se han revelado y no se pueden cambiar.",
            "The splits are already revealed and cannot change.",
        )
    split = check_split(ix.participant(participant_id).pool, left, right)
    others = tuple(c for c in ix.commitments if c[0] != participant_id)
    ix = replace(ix, commitments=(*others, (participant_id, split)))
    if len(ix.commitments) < len(ix.participants):
        return ix
    ordered = tuple((p.id, dict(ix.commitments)[p.id]) for p in ix.participants)
    return _open_side(replace(ix, commitments=ordered), Side.LEFT)  # left first, then right [SRC]


def cancel(ix: Interaction) -> Interaction:
    if ix.stage is not Stage.COMMITTING:
        raise RulesError(
            "ALREADY_REVEALED",
            "Solo se puede cancelar un desafío antes de revelar.",
            "A challenge can only be cancelled before the reveal.",
        )
    return replace(ix, stage=Stage.CANCELLED)


def _open_side(ix: Interaction, side: Side) -> Interaction:
    splits = dict(ix.commitments)
    counts = {p.id: (splits[p.id].left if side is Side.LEFT else splits[p.id].right) for p in ix.participants}
    decided = compare_counts(side, counts, ix.empty_right_tie)
    if decided is not None:
        return _settled(ix, decided)
    stage = Stage.LEFT_TIEBREAK if side is Side.LEFT else Stage.RIGHT_TIEBREAK
    return replace(ix, stage=stage, tiebreak=Tiebreak(side, tuple(counts.items()), leaders(counts)))


def _settled(ix: Interaction, result: FistResult) -> Interaction:
    if result.side is Side.LEFT:
        return _open_side(replace(ix, left=result, tiebreak=None), Side.RIGHT)
    return replace(ix, right=result, tiebreak=None, stage=Stage.NARRATION)


def _require_tiebreak(ix: Interaction) -> Tiebreak:
    if ix.tiebreak is None or ix.stage not in (Stage.LEFT_TIEBREAK, Stage.RIGHT_TIEBREAK):
        raise RulesError(
            "NO_TIEBREAK",
            "Ahora no hay ningún desempate en curso.",
            "There is no tie-break in progress.",
        )
    return ix.tiebreak


def _talent_eligible(ix: Interaction, p: Participant) -> bool:
    return ix.talent_in_tiebreaks and p.talent_built and not p.npc


def roll_tiebreak(ix: Interaction, dice: DiceSource) -> Interaction:
    """The server rolls the tied participants' fists, in participant order (§5.4)."""
    tb = _require_tiebreak(ix)
    if tb.rolled:
        raise RulesError("ALREADY_ROLLED", "El desempate ya se ha tirado.", "The tie-break was already rolled.")
    counts = dict(tb.counts)
    rolls = tuple((pid, roll_pool(dice, counts[pid], ix.rules)) for pid in tb.tied)
    pending = frozenset(pid for pid in tb.tied if _talent_eligible(ix, ix.participant(pid)))
    return _compare_or_wait(ix, replace(tb, rolls=rolls, talent_pending=pending))


def _compare_or_wait(ix: Interaction, tb: Tiebreak) -> Interaction:
    if tb.talent_pending:
        return replace(ix, tiebreak=tb)
    result = compare_tiebreak(tb.side, dict(tb.counts), dict(tb.rolls), ix.use_total, ix.empty_right_tie)
    tb = replace(tb, provisional=result)
    reckless_users = {pid for pid, _ in tb.reckless}
    can_risk = ix.reckless_allowed and any(not ix.participant(pid).npc and pid not in reckless_users for pid in tb.tied)
    if can_risk:  # someone may still ask for a reckless roll: wait for settle_tiebreak
        return replace(ix, tiebreak=tb)
    return _finish_tiebreak(ix, tb)


def _finish_tiebreak(ix: Interaction, tb: Tiebreak) -> Interaction:
    assert tb.provisional is not None
    result = tb.provisional
    log = tuple((pid, bet, pid not in result.winners) for pid, bet in tb.reckless)  # a draw does not trigger
    return _settled(replace(ix, reckless_log=(*ix.reckless_log, *log)), result)


def talent_decision(ix: Interaction, participant_id: str, index: int | None, dice: DiceSource) -> Interaction:
    """Sealed, simultaneous talent decisions: a die index or None (decline). Applied all together, in
    participant order, when the last eligible participant decides (§6.2)."""
    tb = _require_tiebreak(ix)
    if participant_id not in tb.talent_pending:
        raise RulesError(
            "TALENT_NOT_USED" if participant_id in tb.tied else "NOT_TIED",
            "No tienes ninguna repetición de talento pendiente en este desempate.",
            "You have no talent reroll pending in this tie-break.",
        )
    choices = (*tb.talent_choices, (participant_id, index))
    pending = tb.talent_pending - {participant_id}
    if pending:
        return replace(ix, tiebreak=replace(tb, talent_choices=choices, talent_pending=pending))
    chosen = dict(choices)
    counts = dict(tb.counts)
    rolls = tuple(
        (pid, d if chosen.get(pid) is None else reroll_one(d, chosen[pid], counts[pid], dice, ix.rules))
        for pid, d in tb.rolls
    )
    return _compare_or_wait(ix, replace(tb, rolls=rolls, talent_choices=(), talent_pending=frozenset()))


def talent_deadline_passed(ix: Interaction, dice: DiceSource) -> Interaction:
    """Anyone who has not decided by the deadline declines."""
    tb = _require_tiebreak(ix)
    for pid in sorted(tb.talent_pending):
        ix = talent_decision(ix, pid, None, dice)
    return ix


def reckless_tiebreak(ix: Interaction, participant_id: str, bet: Bet | None, dice: DiceSource) -> Interaction:
    """§6.9 in a tie-break: the requester's fist is rolled again from scratch and compared again; the
    bet triggers only if the requester ends up losing (a draw does not, A-30)."""
    tb = _require_tiebreak(ix)
    p = ix.participant(participant_id)
    if not tb.rolled or participant_id not in tb.tied:
        raise RulesError(
            "NO_ROLL",
            "No tiraste dados en este desempate: no hay tirada temeraria.",
            "You rolled no dice in this tie-break: no reckless roll.",
        )
    if not ix.reckless_allowed or p.npc:
        raise RulesError(
            "RECKLESS_DISABLED",
            "La tirada temeraria no está disponible aquí.",
            "The reckless roll is not available here.",
        )
    if participant_id in dict(tb.reckless):
        raise RulesError(
            "RECKLESS_ALREADY_USED",
            "Ya hiciste una tirada temeraria en este desempate.",
            "You already made a reckless roll in this tie-break.",
        )
    if tb.talent_pending:
        raise RulesError(
            "STEP_OUT_OF_ORDER",
            "Aún faltan decisiones de talento en este desempate.",
            "Talent decisions are still pending in this tie-break.",
        )
    agreed = require_agreement(bet, BetKind.RECKLESS)
    count = dict(tb.counts)[participant_id]
    fresh = roll_pool(dice, count, ix.rules)
    rolls = tuple((pid, fresh if pid == participant_id else d) for pid, d in tb.rolls)
    pending = frozenset({participant_id}) if _talent_eligible(ix, p) else frozenset()  # a new roll [INT]
    tb = replace(tb, rolls=rolls, reckless=(*tb.reckless, (participant_id, agreed)), talent_pending=pending)
    return _compare_or_wait(ix, tb)


def settle_tiebreak(ix: Interaction) -> Interaction:
    """Nobody else asks for a reckless roll: the provisional comparison becomes the fist's result."""
    tb = _require_tiebreak(ix)
    if not tb.rolled or tb.talent_pending or tb.provisional is None:
        raise RulesError(
            "STEP_OUT_OF_ORDER",
            "El desempate aún no se puede cerrar.",
            "The tie-break cannot be settled yet.",
        )
    return _finish_tiebreak(ix, tb)
