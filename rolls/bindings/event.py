"""Event rolls in posts: an action (pool against a public difficulty, with the automatic-outcome gate), a
fist tie-break of a *desafío*, and the question-3 order roll.

``prepare`` builds the action's pool from the character's sheet (1 base die, plus 1 + improvements of the
one related skill the writer names) and the writer's choice at the gate (roll, or take the partial success
or the failure offered). Event's difficulty is announced publicly [SRC §3.1], so there is no secret
difficulty here; a GM's NPC action can still be a secret roll (``gm_only``). Summaries name the complexity
level with its number, the dice, the outcome and who narrates, in Spanish and English.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from rolls.bindings.base import JSON, DieFace, Prepared, Resolved
from systems.dice import DiceSource
from systems.errors import RulesError
from systems.event.action import ActionState, Choice, Gate
from systems.event.creation import OrderRoll
from systems.event.desafio import FistResult, Side, Verdict
from systems.event.ladder import LEVEL_NAMES, OUTCOME_NAMES, Narrator, Outcome, level_of
from systems.event.pool import PoolBreakdown
from systems.event.requests import ActionRollRequest, FistTiebreakRequest, OrderRollRequest, resolve
from systems.event.settings import EventSettings
from systems.event.sheet import EventSheet, is_talent, unknown_skill

KEY = "event"
ACTION = "action"
FIST_TIEBREAK = "fist_tiebreak"
ORDER_ROLL = "order_roll"
KINDS = frozenset({ACTION, FIST_TIEBREAK, ORDER_ROLL})

CHOICE_NAMES = {
    Choice.ROLL: ("tira", "rolls"),
    Choice.TAKE_PARTIAL: ("toma el éxito parcial sin tirar", "takes the partial success without rolling"),
    Choice.TAKE_FAILURE: ("toma el fallo sin tirar", "takes the failure without rolling"),
}
SIDE_NAMES = {Side.LEFT: ("puño izquierdo", "left fist"), Side.RIGHT: ("puño derecho", "right fist")}


class ActionChoice(BaseModel):
    """What the writer chose for an action roll; the skill's dice come from the sheet."""

    model_config = ConfigDict(extra="forbid")

    difficulty: int = Field(ge=1, le=1000)
    skill: str | None = Field(None, max_length=80)
    choice: Choice = Choice.ROLL
    dice: int | None = Field(None, ge=1, le=30)  # without a character: the pool the GM sets (an NPC)


class FistChoice(BaseModel):
    model_config = ConfigDict(extra="forbid")

    side: Side = Side.LEFT
    counts: dict[str, int] = Field(min_length=2, max_length=20)
    names: dict[str, str] = Field(default_factory=dict)  # participant -> name, for the summary


_REACTION_DICE: ContextVar[int] = ContextVar("event_reaction_dice", default=0)


@contextmanager
def reaction_dice(dice: int) -> Iterator[None]:
    """Add a valued reaction's dice (0..3) to the action rolled inside: only the action flow, which has
    checked and used the reaction under its row lock, sets it (a post's roll cannot claim extra dice)."""
    token = _REACTION_DICE.set(dice)
    try:
        yield
    finally:
        _REACTION_DICE.reset(token)


def settings_of(settings: BaseModel | None) -> EventSettings:
    return settings if isinstance(settings, EventSettings) else EventSettings()


def _lang(language: str) -> int:
    return 1 if language.startswith("en") else 0


def level_label(difficulty: int, settings: EventSettings, language: str) -> str:
    """«Común (3)»: the complexity level's name with the difficulty's number."""
    try:
        level = level_of(difficulty, settings.scale)
    except RulesError:
        return str(difficulty)
    return f"{LEVEL_NAMES[level].get(language)} ({difficulty})"


def outcome_name(outcome: str | None, language: str) -> str:
    return OUTCOME_NAMES[Outcome(outcome)].get(language) if outcome else ""


def narrator_words(narrator: str | None, language: str) -> str:
    if narrator == Narrator.PLAYER:
        return "narra el jugador" if not language.startswith("en") else "the player narrates"
    return "narra el máster" if not language.startswith("en") else "the GM narrates"


def dice_text(dice: Any) -> str:
    return "".join(f"[{d}]" for d in dice)


def pool_breakdown(sheet: EventSheet | None, skill: str | None, settings: EventSettings) -> PoolBreakdown:
    """1 base die, plus 1 + improvements of the one related skill (§3.3)."""
    if not skill:
        return PoolBreakdown()
    found = sheet.skill(skill) if sheet is not None else None
    if found is None or sheet is None:
        raise unknown_skill(skill)
    return PoolBreakdown(
        skill=found.display,
        skill_dice=found.dice,
        talent_built=settings.talent_enabled and is_talent(sheet, found.name),
    )


def action_result(state: ActionState, settings: EventSettings) -> JSON:
    """The stored result of an action: every die (initial, exploded, rerolled), the gate and the outcome."""
    pool = state.pool
    return {
        "kind": ACTION,
        "sides": settings.sides,
        "skill": pool.skill,
        "pool": pool.total,
        "breakdown": {
            "base": pool.base,
            "skill": pool.skill_dice,
            "communal": pool.communal,
            "reaction": pool.reaction,
            "wild": pool.wild,
        },
        "talent_built": pool.talent_built,
        "npc": pool.npc,
        "difficulty": state.difficulty,
        "gate": state.gate.value,
        "automatic": state.gate is Gate.AUTO_ABSOLUTE,
        "choice": state.choice.value if state.choice else None,
        "thrown": list(state.thrown),
        "dice": list(state.dice),
        "rerolled_index": state.rerolled_index,
        "stage": state.stage.value,
        "talent_eligible": state.talent_eligible,
        "outcome": state.outcome.value if state.outcome else None,
        "narrator": state.narrator.value if state.narrator else None,
    }


def action_summary(result: JSON, settings: EventSettings, language: str) -> str:
    """«Atletismo++ (4 dados) contra Común (3): [6][2][3][4] → Éxito absoluto; narra el jugador»."""
    en = language.startswith("en")
    pool = int(result.get("pool", 1))
    dice_word = ("die" if pool == 1 else "dice") if en else ("dado" if pool == 1 else "dados")
    head = f"{result['skill']} ({pool} {dice_word})" if result.get("skill") else f"{pool} {dice_word}"
    against = level_label(int(result["difficulty"]), settings, language)
    vs = "against" if en else "contra"
    outcome = outcome_name(result.get("outcome"), language)
    if result.get("automatic"):
        body = f"{outcome} automático, sin tirada" if not en else f"automatic {outcome.lower()}, no roll"
    elif result.get("choice") in (Choice.TAKE_PARTIAL, Choice.TAKE_FAILURE):
        body = CHOICE_NAMES[Choice(result["choice"])][_lang(language)]
        body = ("the player " if en else "el jugador ") + body
    else:
        body = f"{dice_text(result.get('dice', []))} → {outcome}"
    return f"{head} {vs} {against}: {body}; {narrator_words(result.get('narrator'), language)}"


def fist_result(result: FistResult, names: dict[str, str]) -> JSON:
    """Ordered lists, not objects: PostgreSQL's jsonb does not keep key order and the order matters."""
    return {
        "kind": FIST_TIEBREAK,
        "side": result.side.value,
        "counts": [[p, c] for p, c in result.counts],
        "rolls": [[p, list(d)] for p, d in result.rolls],
        "verdict": result.verdict.value,
        "winners": list(result.winners),
        "by": result.by.value,
        "points": [[p, v] for p, v in result.points],
        "names": names,
    }


def fist_summary(result: JSON, language: str) -> str:
    en = language.startswith("en")
    names: dict[str, str] = result.get("names") or {}
    side = SIDE_NAMES[Side(result["side"])][_lang(language)]
    rolled = ", ".join(f"{names.get(p, p)} {dice_text(d)}" for p, d in result.get("rolls", []))
    winners = [names.get(p, p) for p in result.get("winners", [])]
    verdict = result.get("verdict")
    if verdict == Verdict.WIN:
        said = (
            (f"{winners[0]} wins" if en else f"gana {winners[0]}")
            if result["side"] == Side.LEFT
            else (f"{winners[0]} narrates" if en else f"narra {winners[0]}")
        )
    elif verdict == Verdict.DRAW:
        said = ("draw: " if en else "empate: ") + ", ".join(winners)
    elif verdict == Verdict.JOINT:
        said = ("joint narration: " if en else "narración conjunta: ") + ", ".join(winners)
    else:
        said = "the GM narrates" if en else "narra el máster"
    head = f"Tie-break of the {side}" if en else f"Desempate del {side}"
    return f"{head}: {rolled or '—'} → {said}"


class EventRollBinding:
    key = KEY

    def kind_allowed(self, kind: str, *, is_gm: bool) -> bool:
        # The fist tie-break is rolled by the server inside a desafío (as whoever's step closed the reveal).
        return kind in KINDS

    def prepare(self, kind: str, data: JSON, sheet: JSON | None, settings: BaseModel | None) -> Prepared:
        s = settings_of(settings)
        if kind == ACTION:
            choice = ActionChoice.model_validate(data)
            parsed = EventSheet.model_validate(sheet, context={"settings": s}) if sheet is not None else None
            if parsed is not None and choice.dice is not None:
                raise RulesError(
                    "POOL_FROM_SHEET",
                    "La reserva de un personaje sale de su ficha: elige una habilidad, no un número de dados.",
                    "A character's pool comes from its sheet: choose a skill, not a number of dice.",
                )
            pool = pool_breakdown(parsed, choice.skill, s)
            if parsed is None and choice.dice is not None:
                pool = PoolBreakdown(skill_dice=choice.dice - 1, npc=True)
            request = ActionRollRequest(
                difficulty=choice.difficulty,
                skill_dice=pool.skill_dice,
                talent_built=pool.talent_built,
                npc=pool.npc,
                choice=choice.choice,
                reaction_dice=_REACTION_DICE.get(),
            )
            public = {**request.model_dump(mode="json"), "skill": pool.skill, "pool": request.pool.total}
            return Prepared(request=request, public=public)
        if kind == FIST_TIEBREAK:
            fist = FistChoice.model_validate(data)
            request = FistTiebreakRequest(side=fist.side, counts=fist.counts)
            return Prepared(request=request, public={**request.model_dump(mode="json"), "names": fist.names})
        if kind == ORDER_ROLL:
            return Prepared(request=OrderRollRequest(), public={})
        raise RulesError("unknown_roll_kind", f"«{kind}» no es una tirada de Event.", f"'{kind}' is not an Event roll.")

    def resolve(self, kind: str, prepared: Prepared, dice: DiceSource, settings: BaseModel | None) -> Resolved:
        s = settings_of(settings)
        request: Any = prepared.request
        if kind == ACTION:
            gate: ActionState = resolve(ACTION, request.model_copy(update={"choice": None}), dice, s)  # type: ignore[assignment]
            # An automatic absolute success is granted by the gate: the app offers no roll (§3.4, A-8).
            state = gate if gate.gate is Gate.AUTO_ABSOLUTE else resolve(ACTION, request, dice, s)
            result = action_result(state, s)  # type: ignore[arg-type]
            result["skill"] = prepared.public.get("skill")
            return Resolved(result, {}, action_summary(result, s, "es"), action_summary(result, s, "en"))
        if kind == FIST_TIEBREAK:
            fist: FistResult = resolve(FIST_TIEBREAK, request, dice, s)  # type: ignore[assignment]
            result = fist_result(fist, dict(prepared.public.get("names") or {}))
            return Resolved(result, {}, fist_summary(result, "es"), fist_summary(result, "en"))
        order: OrderRoll = resolve(ORDER_ROLL, request, dice, s)  # type: ignore[assignment]
        result = {"kind": ORDER_ROLL, "sides": s.sides, "dice": list(order.dice), "total": order.total}
        text = dice_text(order.dice)
        return Resolved(
            result,
            {},
            f"Orden de la pregunta 3: {text} = {order.total}",
            f"Question 3 order: {text} = {order.total}",
        )

    def faces(self, kind: str, result: JSON) -> list[DieFace]:
        pool = f"d{int(result.get('sides', 6))}"
        if kind == FIST_TIEBREAK:
            return [DieFace(pool, int(d), str(d)) for _p, dice in result.get("rolls", []) for d in dice]
        if kind == ORDER_ROLL:
            return [
                DieFace(pool, int(d), str(d), note="exploded" if i >= 3 else "")
                for i, d in enumerate(result.get("dice", []))
            ]
        drawn: list[DieFace] = []
        initial = int(result.get("pool", 0))
        thrown = list(result.get("thrown", []))
        final = list(result.get("dice", []))
        rerolled = result.get("rerolled_index")
        if rerolled is not None and 0 <= int(rerolled) < len(thrown):
            drawn.append(
                DieFace(pool, int(thrown[int(rerolled)]), str(thrown[int(rerolled)]), counts=False, note="rerolled")
            )
        for i, d in enumerate(final):
            drawn.append(DieFace(pool, int(d), str(d), note="exploded" if i >= initial else ""))
        return drawn


BINDING = EventRollBinding()
