"""No te Duermas (Don't Rest Your Head) rolls in posts: the leader's pools, a helper's discipline, pain,
and a whole conflict in one roll.

``prepare`` reads the dice counts from the protagonist's sheet: all discipline dice, one exhaustion die per
point of exhaustion, the permanent madness dice plus the temporary ones the player chooses (0..6); a
helper rolls discipline only; pain is the GM's count ("fijar") or the combined pain of the opponents
("calcular"). The voluntary +1 exhaustion (and the major talent use that is that increase) changes the
sheet, so it is only taken inside a conflict flow (``rulesets.dont_rest_your_head.procedures.conflict``), which
writes it through the ledger. Nothing here is secret: a sealed pain roll is a GM-only roll of the flow.

Dice are drawn per pool (``discipline`` white, ``exhaustion`` black, ``madness`` red, ``pain``); the
result in words follows the glossary (éxitos, potencia, domina la disciplina/el agotamiento/...).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from rulesets.dont_rest_your_head.sheet import is_opposition, load_sheet
from rulesets.kit.rolls import JSON, DieFace, Prepared, Resolved
from systems.dice import DiceSource, roll_many
from systems.dont_rest_your_head.domination import (
    DEGREE_WORD_EN,
    DOMINANT_PHRASE_EN,
    DOMINANT_PHRASE_ES,
    strength,
    successes,
    superior,
)
from systems.dont_rest_your_head.outcome import Outcome
from systems.dont_rest_your_head.pain import combined_pain
from systems.dont_rest_your_head.refusals import refuse
from systems.dont_rest_your_head.resolve import (
    ConflictRoll,
    ConflictRollRequest,
    HelperDiceRequest,
    LeaderDiceRequest,
    PainDiceRequest,
    resolve,
)
from systems.dont_rest_your_head.roll import (
    HelperRoll,
    HelperRollRequest,
    LeaderRoll,
    LeaderRollRequest,
    PainRoll,
    prepare_leader_roll,
)
from systems.dont_rest_your_head.settings import DEFAULT_SETTINGS, Settings
from systems.dont_rest_your_head.sheet import Sheet
from systems.errors import RulesError

KEY = "dont-rest-your-head"
LEADER, HELPER, PAIN, CONFLICT, SCAR_REROLL = "leader", "helper", "pain", "conflict", "scar_reroll"
KINDS = (LEADER, HELPER, PAIN, CONFLICT, SCAR_REROLL)
GM_KINDS = frozenset({PAIN, CONFLICT})  # the pain dice (alone or in a whole conflict) are the GM's
PLAYER_POOLS = ("discipline", "exhaustion", "madness")
POOLS = (*PLAYER_POOLS, "pain")
POOL_WORDS = {
    "discipline": ("Disciplina", "Discipline"),
    "exhaustion": ("Agotamiento", "Exhaustion"),
    "madness": ("Locura", "Madness"),
    "pain": ("Dolor", "Pain"),
}
_FROZEN = ConfigDict(frozen=True, extra="forbid")


class LeaderChoices(BaseModel):
    """What the player chooses before rolling (§3.10 step 3); ``flow`` and ``madness_price`` come from the
    conflict flow, never from the composer."""

    model_config = _FROZEN

    temp_madness: int = Field(0, ge=-99, le=99)  # 0..6 enforced as MADNESS_RANGE
    voluntary_increase: bool = False
    talent_use: str | None = None
    madness_talent: bool = False
    madness_price: int | None = Field(None, ge=1, le=6)
    scene_id: str | None = Field(None, max_length=40)
    flow: int | None = Field(None, ge=1)


class HelperChoices(HelperRollRequest):
    """A helper's roll: the rules' request plus the conflict it belongs to (the conflict flow sends it)."""

    flow: int | None = Field(None, ge=1)


class PainChoices(BaseModel):
    model_config = _FROZEN

    pain: int | None = Field(None, ge=-99, le=30)
    opponents: tuple[int, ...] = Field((), max_length=20)
    flow: int | None = Field(None, ge=1)


class ScarRerollChoices(BaseModel):
    """A scar invoked in a conflict rerolls one of the leader's pools with as many dice as it rolled (§3.6).
    Only the conflict flow makes it (after the GM confirms the scar): ``flow`` is required."""

    model_config = _FROZEN

    pool: Literal["discipline", "exhaustion", "madness"]
    dice: int = Field(ge=1, le=30)
    flow: int | None = Field(None, ge=1)


class ConflictChoices(BaseModel):
    """A whole conflict in one post. With a character the player's pools come from the sheet; without
    one (the GM's quick roll) the counts are given."""

    model_config = _FROZEN

    temp_madness: int = Field(0, ge=-99, le=99)
    discipline: int | None = Field(None, ge=1, le=6)
    exhaustion: int | None = Field(None, ge=0, le=7)
    madness: int | None = Field(None, ge=0, le=24)
    pain: int | None = Field(None, ge=-99, le=30)
    opponents: tuple[int, ...] = Field((), max_length=20)
    helpers: tuple[int, ...] = Field((), max_length=6)  # each helper's discipline dice
    talent_use: str | None = None


def settings_of(settings: BaseModel | None) -> Settings:
    return settings if isinstance(settings, Settings) else DEFAULT_SETTINGS


def protagonist(sheet: JSON | None, settings: BaseModel | None) -> Sheet:
    """The pure sheet of the rolling character: an opposition NPC (a pain score) has no pools to roll."""
    if sheet is None:
        raise RulesError(
            "character_required",
            "Elige el protagonista que tira.",
            "Choose the protagonist who rolls.",
        )
    if is_opposition(sheet):
        raise RulesError(
            "not_a_protagonist",
            "La oposición no tira disciplina: tira dolor.",
            "The opposition doesn't roll discipline: it rolls pain.",
        )
    return load_sheet(sheet, settings_of(settings))


def pain_dice(pain: int | None, opponents: tuple[int, ...]) -> int:
    """ "Calcular" (combined pain of the opponents) or "fijar" (a count set directly), §2.3."""
    if opponents:
        if any(score < 1 for score in opponents):
            refuse("PAIN_RANGE", pain=list(opponents))
        return combined_pain(list(opponents))
    if pain is None:
        refuse("PAIN_RANGE", pain=None)
    if pain < 1:
        refuse("PAIN_RANGE", pain=pain)
    return pain


def _talent_use(value: str | None) -> str | None:
    if value in (None, "", "none"):
        return None
    if value not in ("minor", "major"):
        raise RulesError("talent_use", "Uso de talento desconocido.", "Unknown talent use.", talent_use=value)
    return value


def _pool_line(pools: dict[str, list[int]], language: str) -> str:
    parts = []
    for name in POOLS:
        dice = pools.get(name)
        if dice is None:
            continue
        es, en = POOL_WORDS[name]
        parts.append(f"{en if language == 'en' else es} {successes(dice)}")
    return " · ".join(parts)


def _success_words(n: int, language: str) -> str:
    if language == "en":
        return f"{n} success" + ("" if n == 1 else "es")
    return f"{n} éxito" + ("" if n == 1 else "s")


def outcome_words(outcome: Outcome, language: str = "es") -> str:
    """The outcome in the glossary's words: "Éxito con 2 (impresionante); domina la disciplina"."""
    dom = outcome.dominant_pool or "pain"
    if language == "en":
        head = (
            f"Success with {outcome.player_degree} ({DEGREE_WORD_EN[outcome.descriptor or 'mínimo']})"
            if outcome.success
            else f"Failure ({outcome.player_degree} against {outcome.gm_degree})"
        )
        return f"{head}; {DOMINANT_PHRASE_EN[dom]} dominates"
    head = (
        f"Éxito con {outcome.player_degree} ({outcome.descriptor})"
        if outcome.success
        else f"Fracaso ({outcome.player_degree} contra {outcome.gm_degree})"
    )
    return f"{head}; domina {DOMINANT_PHRASE_ES[dom]}"


def outcome_json(outcome: Outcome) -> JSON:
    """The public outcome: degrees, winner, dominating and top pools, strengths, the words."""
    return {
        "pools": {k: list(v) for k, v in outcome.pools.as_dict().items()},
        "raw_successes": outcome.raw_successes,
        "leader_degree": outcome.leader_degree,
        "helper_successes": outcome.helper_successes,
        "player_degree": outcome.player_degree,
        "gm_degree": outcome.gm_degree,
        "success": outcome.success,
        "dominant_pool": outcome.dominant_pool,
        "superior_pool": outcome.superior_pool,
        "strengths": dict(outcome.strengths),
        "despair_gain": outcome.despair_gain,
        "descriptor": outcome.descriptor,
        "words_es": outcome_words(outcome, "es"),
        "words_en": outcome_words(outcome, "en"),
    }


class DontRestYourHeadRollBinding:
    key = KEY

    def kind_allowed(self, kind: str, *, gm_kinds: bool) -> bool:
        return kind in KINDS and (gm_kinds or kind not in GM_KINDS)

    # --- prepare ------------------------------------------------------------------------------------

    def input_model(self, kind: str) -> type[BaseModel]:
        """What a post's roll ``data`` accepts for ``kind``, exactly (unknown keys are refused): the rolls
        service validates with it and /api/rulesets/ publishes its JSON schema."""
        models: dict[str, type[BaseModel]] = {
            LEADER: LeaderChoices,
            HELPER: HelperChoices,
            PAIN: PainChoices,
            SCAR_REROLL: ScarRerollChoices,
            CONFLICT: ConflictChoices,
        }
        if kind not in models:
            raise RulesError(
                "unknown_roll_kind",
                f"«{kind}» no es una tirada de No te Duermas.",
                f"'{kind}' is not a roll kind of Don't Rest Your Head.",
            )
        return models[kind]

    def prepare(self, kind: str, data: JSON, sheet: JSON | None, settings: BaseModel | None) -> Prepared:
        preparers = {
            LEADER: self._prepare_leader,
            HELPER: self._prepare_helper,
            PAIN: self._prepare_pain,
            SCAR_REROLL: self._prepare_scar_reroll,
            CONFLICT: self._prepare_conflict,
        }
        if kind not in preparers:
            raise RulesError(
                "unknown_roll_kind",
                f"«{kind}» no es una tirada de No te Duermas.",
                f"'{kind}' is not a roll kind of Don't Rest Your Head.",
            )
        return preparers[kind](data, sheet, settings_of(settings))

    def _prepare_leader(self, data: JSON, sheet: JSON | None, s: Settings) -> Prepared:
        choices = LeaderChoices.model_validate(data)
        talent_use = _talent_use(choices.talent_use)
        if (choices.voluntary_increase or talent_use == "major") and choices.flow is None:
            raise RulesError(
                "needs_conflict",
                "El aumento voluntario de agotamiento (y el uso mayor) se hace en un conflicto: ábrelo "
                "y tira desde él, así queda en la hoja.",
                "The voluntary exhaustion increase (and the major use) happens in a conflict: open one "
                "and roll from it, so the sheet keeps it.",
            )
        request = LeaderRollRequest(
            voluntary_increase=choices.voluntary_increase,
            temp_madness=choices.temp_madness,
            talent_use=talent_use,  # type: ignore[arg-type]
            madness_talent=choices.madness_talent,
        )
        pc = protagonist(sheet, s)
        after, exhaustion, madness = prepare_leader_roll(pc, request, s, choices.madness_price, choices.scene_id)
        dice = LeaderDiceRequest(discipline=after.discipline, exhaustion=exhaustion, madness=madness)
        public = {
            **dice.model_dump(mode="json"),
            "temp_madness": request.temp_madness,
            "permanent_madness": after.permanent_madness,
            "voluntary_increase": request.voluntary_increase or talent_use == "major",
            "talent_use": talent_use,
            "madness_talent": request.madness_talent,
            "exhaustion_at_roll": exhaustion,
        }
        if choices.flow is not None:
            public["flow"] = choices.flow
        return Prepared(request=dice, public=public)

    def _prepare_helper(self, data: JSON, sheet: JSON | None, s: Settings) -> Prepared:
        helper = HelperChoices.model_validate(data)
        if helper.talent_use or helper.madness_talent:
            refuse("HELPER_NO_TALENTS")
        pc = protagonist(sheet, s)
        if not pc.can_roll:
            refuse("CANNOT_ROLL", status=pc.status.value)
        dice = HelperDiceRequest(discipline=pc.discipline)
        return Prepared(request=dice, public=dice.model_dump(mode="json"))

    def _prepare_pain(self, data: JSON, sheet: JSON | None, s: Settings) -> Prepared:
        choices = PainChoices.model_validate(data)
        pain = pain_dice(choices.pain, choices.opponents)
        request = PainDiceRequest(pain=pain)
        public: JSON = {"pain": pain}
        if choices.opponents:
            public["opponents"] = list(choices.opponents)
        return Prepared(request=request, public=public)

    def _prepare_scar_reroll(self, data: JSON, sheet: JSON | None, s: Settings) -> Prepared:
        reroll = ScarRerollChoices.model_validate(data)
        if reroll.flow is None:
            raise RulesError(
                "needs_conflict",
                "Una cicatriz se invoca en la ventana de ajustes de un conflicto, y el DJ la confirma.",
                "A scar is invoked in a conflict's adjustment window, and the GM confirms it.",
            )
        protagonist(sheet, s)
        return Prepared(request=reroll, public=reroll.model_dump(mode="json"))

    def _prepare_conflict(self, data: JSON, sheet: JSON | None, s: Settings) -> Prepared:
        choices = ConflictChoices.model_validate(data)
        talent_use = _talent_use(choices.talent_use)
        if talent_use == "major":
            raise RulesError(
                "needs_conflict",
                "El uso mayor sube el agotamiento: hazlo en un conflicto abierto.",
                "The major use raises exhaustion: make it in an open conflict.",
            )
        if not 0 <= choices.temp_madness <= 6:
            refuse("MADNESS_RANGE", temp_madness=choices.temp_madness)
        if sheet is not None:
            pc = protagonist(sheet, s)
            if not pc.can_roll:
                refuse("CANNOT_ROLL", status=pc.status.value)
            discipline, exhaustion = pc.discipline, pc.exhaustion
            madness = pc.permanent_madness + choices.temp_madness
        else:
            discipline = choices.discipline or 3
            exhaustion = choices.exhaustion or 0
            madness = choices.madness if choices.madness is not None else choices.temp_madness
        if talent_use == "minor" and exhaustion < 1:
            refuse("MINOR_NEEDS_EXHAUSTION")
        request = ConflictRollRequest(
            discipline=discipline,
            exhaustion=exhaustion,
            madness=madness,
            pain=pain_dice(choices.pain, choices.opponents),
            helpers=choices.helpers,
            talent_use=talent_use,  # type: ignore[arg-type]
        )
        return Prepared(request=request, public=request.model_dump(mode="json"))

    # --- resolve ------------------------------------------------------------------------------------

    def resolve(self, kind: str, prepared: Prepared, dice: DiceSource, settings: BaseModel | None) -> Resolved:
        if kind == SCAR_REROLL:
            assert isinstance(prepared.request, ScarRerollChoices)
            pool = prepared.request.pool
            return self._pools_result(kind, {pool: list(roll_many(dice, prepared.request.dice, 6))})
        rolled: Any = resolve(kind, prepared.request, dice)
        if kind == LEADER:
            assert isinstance(rolled, LeaderRoll)
            pools = {"discipline": list(rolled.discipline), "exhaustion": list(rolled.exhaustion)}
            pools["madness"] = list(rolled.madness)
            return self._pools_result(kind, pools)
        if kind == HELPER:
            assert isinstance(rolled, HelperRoll)
            return self._pools_result(kind, {"discipline": list(rolled.discipline)})
        if kind == PAIN:
            assert isinstance(rolled, PainRoll)
            return self._pools_result(kind, {"pain": list(rolled.dice)})
        assert isinstance(rolled, ConflictRoll)
        outcome = rolled.outcome
        result = {
            "pools": {
                "discipline": list(rolled.leader.discipline),
                "exhaustion": list(rolled.leader.exhaustion),
                "madness": list(rolled.leader.madness),
                "pain": list(rolled.pain.dice),
            },
            "helpers": [list(h.discipline) for h in rolled.helpers],
            "outcome": outcome_json(outcome),
        }
        top = outcome.superior_pool
        extra_es = f"; potencia superior: {DOMINANT_PHRASE_ES[top]}" if top else ""
        extra_en = f"; top pool: {DOMINANT_PHRASE_EN[top]}" if top else ""
        return Resolved(
            result=result,
            secret={},
            summary_es=outcome_words(outcome, "es") + extra_es,
            summary_en=outcome_words(outcome, "en") + extra_en,
        )

    @staticmethod
    def _pools_result(kind: str, pools: dict[str, list[int]]) -> Resolved:
        total = sum(successes(d) for d in pools.values())
        strengths = {name: strength(d) for name, d in pools.items()}
        result: JSON = {"pools": pools, "successes": total, "strengths": strengths}
        lines = {lang: _pool_line(pools, lang) for lang in ("es", "en")}
        if kind == LEADER:
            top = superior(pools)
            result["superior_pool"] = top
            top_es = f"; potencia superior: {DOMINANT_PHRASE_ES[top]} ({strengths[top]})" if top else ""
            top_en = f"; top pool: {DOMINANT_PHRASE_EN[top]} ({strengths[top]})" if top else ""
            summary_es = f"{_success_words(total, 'es')} ({lines['es']}){top_es}"
            summary_en = f"{_success_words(total, 'en')} ({lines['en']}){top_en}"
        elif kind == SCAR_REROLL:
            pool = next(iter(pools))
            es, en = POOL_WORDS[pool]
            summary_es = f"Cicatriz: {es} de nuevo, {_success_words(total, 'es')}"
            summary_en = f"Scar: {en} rerolled, {_success_words(total, 'en')}"
        elif kind == PAIN:
            summary_es = f"Dolor: {_success_words(total, 'es')}, potencia {strengths['pain']}"
            summary_en = f"Pain: {_success_words(total, 'en')}, strength {strengths['pain']}"
        else:
            summary_es = f"Ayuda: {_success_words(total, 'es')} de disciplina"
            summary_en = f"Help: {_success_words(total, 'en')} from discipline"
        return Resolved(result=result, secret={}, summary_es=summary_es, summary_en=summary_en)

    # --- faces --------------------------------------------------------------------------------------

    def faces(self, kind: str, result: JSON) -> list[DieFace]:
        drawn: list[DieFace] = []
        pools = result.get("pools") or {}
        for name in POOLS:
            for face in pools.get(name) or ():
                drawn.append(DieFace(name, int(face), str(face), True, "success" if int(face) <= 3 else ""))
        for helper in result.get("helpers") or ():
            for face in helper:
                drawn.append(DieFace("discipline", int(face), str(face), True, "helper"))
        return drawn


BINDING = DontRestYourHeadRollBinding()
