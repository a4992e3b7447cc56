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
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from rulesets.event.refusals import by_the_rules
from rulesets.kit.refusals import refuse
from rulesets.kit.rolls import JSON, DieFace, Prepared, Resolved
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
    # Omitted: roll unless the gate grants the automatic success. Sent explicitly, it is refused when the
    # success is automatic (§9.2 row 16): there is nothing to choose.
    choice: Choice | None = None
    dice: int | None = Field(None, ge=1, le=30)  # without a character: the pool the GM sets (an NPC)


class OrderRollChoice(BaseModel):
    """The order roll takes no choice: anything sent is refused, never dropped."""

    model_config = ConfigDict(extra="forbid")


class FistChoice(BaseModel):
    model_config = ConfigDict(extra="forbid")

    side: Side = Side.LEFT
    counts: dict[str, int] = Field(min_length=2, max_length=20)
    names: dict[str, str] = Field(default_factory=dict)  # participant -> name, for the summary


@dataclass(frozen=True, slots=True)
class FlowExtras:
    """The extras of an action's pool that only the action flow grants (§6.11 step 2), and whether the roll
    is a reckless roll (§6.9): a post's roll cannot claim any of them."""

    reaction: int = 0  # a valued reaction's dice (0..3), used under the reaction flow's row lock
    communal: bool = False  # one die taken from the communal pool, consumed through the ledger at lock
    wild: bool = False  # the wild die, granted by an agreed bet
    reckless: bool = False  # the same pool thrown again from scratch after an agreed bet


_FLOW_EXTRAS: ContextVar[FlowExtras | None] = ContextVar("event_flow_extras", default=None)
NO_EXTRAS = FlowExtras()


@contextmanager
def action_extras(extras: FlowExtras) -> Iterator[None]:
    """Roll the action inside with these extras: only the action flow, which has checked each one (the
    reaction used, the communal die taken, the bet agreed), sets them."""
    token = _FLOW_EXTRAS.set(extras)
    try:
        yield
    finally:
        _FLOW_EXTRAS.reset(token)


@contextmanager
def reaction_dice(dice: int) -> Iterator[None]:
    """Add a valued reaction's dice (0..3) to the action rolled inside (see :func:`action_extras`)."""
    with action_extras(FlowExtras(reaction=dice)):
        yield


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
    """The stored result of an action: every die (initial, exploded, rerolled), the gate and the outcome.

    The initial dice are thrown in the pool's order (§3.9, §6.11): base, skill, communal die, reaction,
    wild die; ``communal_index`` and ``wild_index`` name those dice so the thread can draw them apart."""
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
        "communal_index": pool.base + pool.skill_dice if pool.communal else None,
        "wild_index": pool.total - 1 if pool.wild else None,
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


def _extras_words(result: JSON, en: bool) -> str:
    """«1 comunal, 1 alocado»: the extras a flow granted, named in the summary (§3.9 pool breakdown)."""
    breakdown = result.get("breakdown") or {}
    words = []
    if breakdown.get("communal"):
        words.append("1 communal" if en else "1 comunal")
    if breakdown.get("wild"):
        words.append("1 wild" if en else "1 alocado")
    return ", ".join(words)


def action_summary(result: JSON, settings: EventSettings, language: str) -> str:
    """«Atletismo++ (4 dados) contra Común (3): [6][2][3][4] → Éxito absoluto; narra el jugador»."""
    en = language.startswith("en")
    pool = int(result.get("pool", 1))
    dice_word = ("die" if pool == 1 else "dice") if en else ("dado" if pool == 1 else "dados")
    extras = _extras_words(result, en)
    size = f"{pool} {dice_word}" + (f": {extras}" if extras else "")
    head = f"{result['skill']} ({size})" if result.get("skill") else size
    if result.get("reckless"):
        head = ("Reckless roll, " if en else "Tirada temeraria, ") + head
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


def _action_die_note(result: JSON, index: int, initial: int) -> str:
    """How the thread tells a die apart: the wild die (§6.10), the communal die (§6.7), an explosion."""
    if index >= initial:
        return "exploded"
    if result.get("wild_index") is not None and index == int(result["wild_index"]):
        return "wild"
    if result.get("communal_index") is not None and index == int(result["communal_index"]):
        return "communal"
    return ""


def automatic_outcome() -> RulesError:
    return refuse(
        "automatic_outcome",
        "La reserva supera la dificultad: el éxito absoluto es automático y no se elige nada ni se tira.",
        "The pool beats the difficulty: the absolute success is automatic, with nothing to choose or roll.",
    )


def _rolled(request: Any) -> Any:
    """The request as rolled when the writer left the choice out: roll (the gate offers no automatic success)."""
    return request if request.choice is not None else request.model_copy(update={"choice": Choice.ROLL})


class EventRollBinding:
    key = KEY

    def kind_allowed(self, kind: str, *, gm_kinds: bool) -> bool:
        # The fist tie-break is rolled by the server inside a desafío (as whoever's step closed the reveal).
        return kind in KINDS

    def input_model(self, kind: str) -> type[BaseModel]:
        """What a post's roll ``data`` accepts for ``kind``, exactly (unknown keys are refused): the rolls
        service validates with it and /api/rulesets/ publishes its JSON schema."""
        models: dict[str, type[BaseModel]] = {
            ACTION: ActionChoice,
            FIST_TIEBREAK: FistChoice,
            ORDER_ROLL: OrderRollChoice,
        }
        if kind not in models:
            raise RulesError(
                "unknown_roll_kind", f"«{kind}» no es una tirada de Event.", f"'{kind}' is not an Event roll."
            )
        return models[kind]

    def prepare(self, kind: str, data: JSON, sheet: JSON | None, settings: BaseModel | None) -> Prepared:
        return by_the_rules(lambda: self._prepare(kind, data, sheet, settings))

    def _prepare(self, kind: str, data: JSON, sheet: JSON | None, settings: BaseModel | None) -> Prepared:
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
            extras = _FLOW_EXTRAS.get() or NO_EXTRAS
            request = ActionRollRequest(
                difficulty=choice.difficulty,
                skill_dice=pool.skill_dice,
                talent_built=pool.talent_built,
                npc=pool.npc,
                choice=choice.choice,
                reaction_dice=extras.reaction,
                communal_die=extras.communal,
                wild_die=extras.wild,
            )
            public = {**request.model_dump(mode="json"), "skill": pool.skill, "pool": request.pool.total}
            public["reckless"] = extras.reckless
            return Prepared(request=request, public=public)
        if kind == FIST_TIEBREAK:
            fist = FistChoice.model_validate(data)
            tiebreak = FistTiebreakRequest(side=fist.side, counts=fist.counts)
            return Prepared(request=tiebreak, public={**tiebreak.model_dump(mode="json"), "names": fist.names})
        if kind == ORDER_ROLL:
            OrderRollChoice.model_validate(data)
            return Prepared(request=OrderRollRequest(), public={})
        raise RulesError("unknown_roll_kind", f"«{kind}» no es una tirada de Event.", f"'{kind}' is not an Event roll.")

    def resolve(self, kind: str, prepared: Prepared, dice: DiceSource, settings: BaseModel | None) -> Resolved:
        return by_the_rules(lambda: self._resolve(kind, prepared, dice, settings))

    def _resolve(self, kind: str, prepared: Prepared, dice: DiceSource, settings: BaseModel | None) -> Resolved:
        s = settings_of(settings)
        request: Any = prepared.request
        if kind == ACTION:
            gate: ActionState = resolve(ACTION, request.model_copy(update={"choice": None}), dice, s)  # type: ignore[assignment]
            # An automatic absolute success is granted by the gate: the app offers no roll (§3.4, A-8), and a
            # choice sent anyway is refused rather than silently ignored (§9.2 row 16).
            if gate.gate is Gate.AUTO_ABSOLUTE and request.choice is not None:
                raise automatic_outcome()
            state = gate if gate.gate is Gate.AUTO_ABSOLUTE else resolve(ACTION, _rolled(request), dice, s)
            result = action_result(state, s)  # type: ignore[arg-type]
            result["skill"] = prepared.public.get("skill")
            result["reckless"] = bool(prepared.public.get("reckless"))
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
            drawn.append(DieFace(pool, int(d), str(d), note=_action_die_note(result, i, initial)))
        return drawn


BINDING = EventRollBinding()
