"""Fate Accelerated rolls in posts: the four actions (4dF + approach + stunts + help) and bare 4dF.

``prepare`` reads the approach rating and the stunt bonuses from the character's sheet (the rules check
that each stunt applies to the action and approach) and splits a secret difficulty off into
``Prepared.secret``. With a secret difficulty the public result keeps the faces, the total and the
outcome in words, never the difficulty nor the shifts. Summaries name the ladder adjective with its
number and the outcome, in Spanish and English.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from rulesets.kit.rolls import JSON, DieFace, Prepared, Resolved
from systems.dice import DiceSource
from systems.errors import RulesError
from systems.fate_accelerated.actions import ACTION_NAMES, APPROACH_NAMES, Action, Approach
from systems.fate_accelerated.dice import FACE_VALUE
from systems.fate_accelerated.ladder import OUTCOME_NAMES, Outcome, ladder_label
from systems.fate_accelerated.roll_kinds import FATE_DICE, ActionRollRequest, FateDiceRequest, resolve
from systems.fate_accelerated.rolls import declare_action
from systems.fate_accelerated.settings import FaeSettings, settings_or_default
from systems.fate_accelerated.sheet import FaeSheet
from systems.fate_accelerated.stunts import Stunt, StuntTemplate

KEY = "fate-accelerated"
ACTION_KINDS = frozenset(a.value for a in Action)
GLYPHS = {"-": "−", "0": " ", "+": "+"}


class ActionChoice(BaseModel):
    """What the writer chose for an action roll; the ratings come from the sheet."""

    model_config = ConfigDict(extra="forbid")

    approach: Approach
    stunts: tuple[str, ...] = Field((), max_length=5)
    helpers: int = Field(0, ge=0, le=10)
    helpers_gm_override: bool = False
    difficulty: int | None = Field(None, ge=-10, le=30)
    difficulty_secret: bool = False


class FateDiceChoice(BaseModel):
    model_config = ConfigDict(extra="forbid")

    modifier: int = Field(0, ge=-10, le=20)
    difficulty: int | None = Field(None, ge=-10, le=30)
    difficulty_secret: bool = False


def _settings(settings: BaseModel | None) -> FaeSettings:
    return settings if isinstance(settings, FaeSettings) else settings_or_default(None)


def faces_text(faces: str) -> str:
    """``[+][−][ ][+]``: the four dice as printed in a summary."""
    return "".join(f"[{GLYPHS[f]}]" for f in faces)


def outcome_words(outcome: str | None, shifts: int | None, language: str) -> str:
    """«Éxito (2 aumentos)»; without ``shifts`` (a secret difficulty) only the outcome's name."""
    if outcome is None:
        return ""
    name = OUTCOME_NAMES[Outcome(outcome)].get(language)
    if shifts is None or outcome == Outcome.TIE:
        return name
    n = abs(shifts)
    if language.startswith("en"):
        return f"{name} ({n} shift{'s' if n != 1 else ''})"
    return f"{name} ({n} aumento{'s' if n != 1 else ''})"


def stunt_sentence(stunt: Stunt, language: str) -> str:
    """A stunt by its words, never its key: the bonus template's sentence, or its own text."""
    en = language == "en"
    if stunt.template is StuntTemplate.BONUS and stunt.approach is not None:
        actions = (" and " if en else " y ").join(ACTION_NAMES[a].get(language) for a in sorted(stunt.actions))
        approach = APPROACH_NAMES[stunt.approach].get(language)
        values = {
            "because": stunt.because.strip().rstrip("."),
            "bonus": stunt.bonus,
            "actions": actions,
            "approach": approach,
            "when": stunt.circumstance.strip().rstrip("."),
        }
        if en:
            return "Because {because}, +{bonus} to {actions} {approach}ly {when}".format(**values).strip()
        return "Debido a que {because}, +{bonus} para {actions} de modo {approach} {when}".format(**values).strip()
    return (stunt.text or stunt.effect or stunt.because or stunt.key).strip()


def _stunts_named(fae: FaeSheet, keys: tuple[str, ...]) -> JSON:
    """The chosen stunts in words (both languages), kept with the roll so its record explains its bonus."""
    chosen = [fae.stunt(key) for key in keys]
    return {"es": [stunt_sentence(s, "es") for s in chosen], "en": [stunt_sentence(s, "en") for s in chosen]}


def summary(result: JSON, language: str, *, secret: bool) -> str:
    """One line in words: action and approach, the dice, the total on the ladder, the outcome."""
    kind = result.get("kind", "")
    parts: list[str] = []
    if kind in ACTION_KINDS:
        head = ACTION_NAMES[Action(kind)].get(language)
        if result.get("approach"):
            head += f" ({APPROACH_NAMES[Approach(result['approach'])].get(language)})"
        parts.append(head)
    else:
        parts.append("Dados Fate" if language != "en" else "Fate dice")
    total = int(result["total"])
    dice = f"{faces_text(result['faces'])} {result['dice_sum']:+d} {int(result['modifier']):+d}"
    parts.append(f"{dice} = {ladder_label(total, language)}")
    named = (result.get("stunts_named") or {}).get("en" if language == "en" else "es") or []
    if named and result.get("stunt_bonus"):
        # The bonus in the total, explained by the stunts that gave it.
        word = "Stunt" if language == "en" else "Proeza"
        parts.append(f"{word} +{int(result['stunt_bonus'])}: " + "; ".join(named))
    if result.get("outcome"):
        against = ""
        if not secret and result.get("difficulty") is not None:
            diff = ladder_label(int(result["difficulty"]), language)
            against = f" vs {diff}"
        elif secret:
            against = " (dificultad secreta)" if language != "en" else " (secret difficulty)"
        parts.append(outcome_words(result["outcome"], None if secret else result.get("shifts"), language) + against)
    return " · ".join(parts)


class FateAcceleratedRollBinding:
    key = KEY

    def kind_allowed(self, kind: str, *, gm_kinds: bool) -> bool:
        if kind == FATE_DICE:
            return gm_kinds  # a quick GM roll for a mook or an NPC group
        return kind in ACTION_KINDS

    def input_model(self, kind: str) -> type[BaseModel]:
        """What a post's roll ``data`` accepts for ``kind``, exactly (unknown keys are refused): the rolls
        service validates with it and /api/rulesets/ publishes its JSON schema."""
        if kind == FATE_DICE:
            return FateDiceChoice
        if kind not in ACTION_KINDS:
            raise RulesError(
                "unknown_roll_kind",
                f"«{kind}» no es una tirada de Fate Acelerado.",
                f"'{kind}' is not a Fate Accelerated roll kind.",
            )
        return ActionChoice

    def prepare(self, kind: str, data: JSON, sheet: JSON | None, settings: BaseModel | None) -> Prepared:
        s = _settings(settings)
        if kind == FATE_DICE:
            dice_choice = FateDiceChoice.model_validate(data)
            dice_request = FateDiceRequest(modifier=dice_choice.modifier, difficulty=dice_choice.difficulty)
            return self._split(dice_request, dice_choice.difficulty_secret, {})
        if kind not in ACTION_KINDS:
            raise RulesError(
                "unknown_roll_kind",
                f"«{kind}» no es una tirada de Fate Acelerado.",
                f"'{kind}' is not a Fate Accelerated roll kind.",
            )
        if sheet is None:
            raise RulesError(
                "character_required",
                "Una acción se tira con un personaje (su estilo sale de la hoja).",
                "An action is rolled with a character (its approach comes from the sheet).",
            )
        choice = ActionChoice.model_validate(data)
        fae = FaeSheet.model_validate(sheet, context={"settings": s})
        action = Action(kind)
        declared = declare_action(
            "roll",
            "actor",
            fae,
            action,
            choice.approach,
            difficulty=choice.difficulty,
            stunts=choice.stunts,
            helpers=tuple(f"helper-{i}" for i in range(choice.helpers)),
            max_helpers_override=choice.helpers if choice.helpers_gm_override else None,
            settings=s,
        ).roll
        request = ActionRollRequest(
            approach=choice.approach,
            approach_rating=declared.approach_rating,
            stunt_bonus=declared.stunt_bonus,
            helpers=choice.helpers,
            helpers_gm_override=choice.helpers_gm_override,
            difficulty=choice.difficulty,
        )
        extra: JSON = {"stunts": list(choice.stunts)}
        if choice.stunts:
            extra["stunts_named"] = _stunts_named(fae, tuple(choice.stunts))
        return self._split(request, choice.difficulty_secret, extra)

    @staticmethod
    def _split(request: BaseModel, secret: bool, extra: JSON) -> Prepared:
        public = {**request.model_dump(mode="json"), **extra}
        difficulty = public.get("difficulty")
        if secret and difficulty is not None:
            public.pop("difficulty")
            public["difficulty_secret"] = True
            return Prepared(request=request, public=public, secret={"difficulty": difficulty})
        return Prepared(request=request, public=public)

    def resolve(self, kind: str, prepared: Prepared, dice: DiceSource, settings: BaseModel | None) -> Resolved:
        rolled = resolve(kind, prepared.request, dice, _settings(settings))
        secret = "difficulty" in prepared.secret
        approach = getattr(prepared.request, "approach", None)
        full: dict[str, Any] = {
            "kind": kind,
            "faces": rolled.faces,
            "dice_sum": rolled.dice_sum,
            "modifier": rolled.modifier,
            "total": rolled.total,
            "approach": approach.value if approach is not None else None,
            "difficulty": rolled.difficulty,
            "outcome": rolled.outcome.value if rolled.outcome is not None else None,
            "shifts": rolled.shifts,
        }
        if prepared.public.get("stunts_named"):
            full["stunts_named"] = prepared.public["stunts_named"]
            full["stunt_bonus"] = getattr(prepared.request, "stunt_bonus", 0)
        result = dict(full)
        hidden: JSON = {}
        if secret:
            # Players see the outcome, never the number nor the margin.
            hidden = {"difficulty": result.pop("difficulty"), "shifts": result.pop("shifts")}
            result["difficulty_secret"] = True
        return Resolved(
            result=result,
            secret=hidden,
            summary_es=summary(full if not secret else result, "es", secret=secret),
            summary_en=summary(full if not secret else result, "en", secret=secret),
        )

    def faces(self, kind: str, result: JSON) -> list[DieFace]:
        return [DieFace("fudge", FACE_VALUE[f], GLYPHS[f]) for f in str(result.get("faces", ""))]


BINDING = FateAcceleratedRollBinding()
