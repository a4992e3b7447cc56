"""Presagios rolls in posts: a plain roll, a challenge against a secret difficulty, a whole conflict.

``prepare`` reads the current rating of the chosen characteristic and the named trait from the
character's sheet; tool dice (0..3) are the writer's choice. The difficulty of a challenge is always
secret (spec A-AMB-22): it goes to ``Prepared.secret`` with the margin, and the public result, the
request and the summaries only say "Éxito" or "Fallo". Dice are drawn as d6, and the face that would
show 1 as an omen (pool ``omen``). Challenges and conflicts with points, danger, damage, retries and
qualities are flows (``rulesets.presagios.procedures``); these kinds are the plain dice.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic import ValidationError as PydanticValidationError

from rulesets.kit.rolls import JSON, DieFace, Prepared, Resolved
from systems.dice import DiceSource
from systems.errors import RulesError
from systems.presagios.challenge import ChallengeResult, check_difficulty
from systems.presagios.conflict import ConflictResult
from systems.presagios.dice import OMEN_FACE, CoreRoll, check_tool_dice
from systems.presagios.outcome import UNSETTLING_LABEL
from systems.presagios.rejections import reject
from systems.presagios.rolls import MAX_RATING, ChallengeRequest, ConflictRequest, RollRequest, resolve
from systems.presagios.settings import DEFAULT_SETTINGS, PresagiosSettings
from systems.presagios.sheet import CHAR_KEYS, TRAIT_MAX, CharKey, Kind, PresagiosSheet, char_index
from systems.presagios.traits import NamedTrait

KEY = "presagios"
ROLL, CHALLENGE, CONFLICT = "roll", "challenge", "conflict"
KINDS = (ROLL, CHALLENGE, CONFLICT)
GM_KINDS = frozenset({CHALLENGE, CONFLICT})  # the GM sets the secret difficulty / both sides
OMEN_GLYPH = "☠"
OUTCOME_WORDS = {"success": {"es": "Éxito", "en": "Success"}, "failure": {"es": "Fallo", "en": "Failure"}}
KIND_WORDS = {
    "principal": ("principal", "main"),
    "secundario": ("secundario", "secondary"),
    "monstruo": ("monstruo", "monster"),
}


def settings_of(settings: BaseModel | None) -> PresagiosSettings:
    if isinstance(settings, PresagiosSettings):
        return settings
    if settings is None:
        return DEFAULT_SETTINGS
    return PresagiosSettings.model_validate(settings.model_dump())


def characteristic_label(key: str, settings: BaseModel | None, language: str = "es") -> str:
    """The campaign's label (A-AMB-05); English has no campaign labels, so the defaults are translated."""
    labels = settings_of(settings).characteristic_labels
    label = labels[char_index(key)] if key in CHAR_KEYS else key
    if language.startswith("en"):
        return {"Acción": "Action", "Interacción": "Interaction", "Cognición": "Cognition"}.get(label, label)
    return label


def load_sheet(sheet: JSON, name: str = "—") -> PresagiosSheet:
    """A stored sheet (the row holds the name) as the pure sheet; a broken one is refused in words."""
    try:
        return PresagiosSheet.model_validate({**sheet, "name": name})
    except (PydanticValidationError, RulesError):
        raise RulesError(
            "SHEET_INVALID",
            "La hoja de este personaje no es válida para Presagios.",
            "This character's sheet is not a valid Presagios sheet.",
        ) from None


def sheet_trait(sheet: PresagiosSheet, name: str) -> NamedTrait:
    return NamedTrait.from_sheet(sheet, name)  # NO_TRAIT when the sheet has none by that name


# --- What the writer chooses -----------------------------------------------------------------------


class RollChoice(BaseModel):
    """A roll with a character: the characteristic and the trait come from its sheet."""

    model_config = ConfigDict(extra="forbid")

    characteristic: CharKey = "c1"
    tool_dice: int = 0
    trait: str = Field("", max_length=80)
    # Without a character (a GM's quick roll for something unnamed): the rating and trait as numbers.
    current: int | None = Field(None, ge=0, le=MAX_RATING)
    trait_bonus: int = Field(0, ge=0, le=TRAIT_MAX)


class ChallengeChoice(RollChoice):
    difficulty: int  # always secret in Presagios


class SideChoice(BaseModel):
    """One side of a quick GM conflict (the builder fills it from the chosen character's sheet)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field("", max_length=80)
    kind: Kind
    current: int = Field(ge=-MAX_RATING, le=MAX_RATING)
    tool_dice: int = 0
    trait_bonus: int = Field(0, ge=0, le=TRAIT_MAX)


class ConflictChoice(BaseModel):
    model_config = ConfigDict(extra="forbid")

    a: SideChoice
    b: SideChoice


def _rating(choice: RollChoice, sheet: JSON | None) -> tuple[int, int, str]:
    """(current rating, trait bonus, trait name) from the sheet, or from the choice without a character."""
    check_tool_dice(choice.tool_dice)
    if sheet is None:
        if choice.current is None:
            raise RulesError(
                "rating_required",
                "Sin personaje, indica cuántos dados da la característica.",
                "Without a character, say how many dice the characteristic gives.",
            )
        return choice.current, choice.trait_bonus, ""
    pure = load_sheet(sheet)
    if not pure.in_story:
        raise reject("NOT_IN_STORY")
    bonus, name = 0, ""
    if choice.trait.strip():
        trait = sheet_trait(pure, choice.trait.strip())
        if trait.supernatural:
            raise RulesError(
                "SUPERNATURAL_NEEDS_FLOW",
                "Un rasgo sobrenatural cuesta un punto: nómbralo en un reto o un conflicto.",
                "A supernatural trait costs a point: name it in a challenge or a conflict.",
            )
        bonus, name = trait.value, trait.name
    return pure.current_of(choice.characteristic), bonus, name


# --- Words -----------------------------------------------------------------------------------------


def dice_text(dice: list[int]) -> str:
    return "".join(f"[{OMEN_GLYPH if d == OMEN_FACE else d}]" for d in dice) or "—"


def omen_words(omens: int, language: str) -> str:
    if not omens:
        return ""
    lang = "en" if language.startswith("en") else "es"
    if lang == "en":
        return f"{omens} omen{'s' if omens != 1 else ''}: {UNSETTLING_LABEL['en'].lower()}"
    return f"{omens} presagio{'s' if omens != 1 else ''}: {UNSETTLING_LABEL['es'].lower()}"


def roll_words(roll: JSON, language: str, trait: str = "") -> str:
    """«[5][☠][5] → 6 + Pelear +1 = resultado 7»."""
    en = language.startswith("en")
    text = f"{dice_text(list(roll.get('dice', [])))} → {roll.get('dice_result', 0)}"
    bonus = int(roll.get("trait_bonus", 0))
    if bonus:
        text += f" + {trait} +{bonus}" if trait else f" + {'trait' if en else 'rasgo'} +{bonus}"
    return text + f" = {'result' if en else 'resultado'} {roll.get('total', 0)}"


def outcome_word(outcome: str | None, language: str) -> str:
    if outcome not in OUTCOME_WORDS:
        return ""
    return OUTCOME_WORDS[outcome]["en" if language.startswith("en") else "es"]


def summary(result: JSON, language: str, settings: BaseModel | None = None) -> str:
    """The roll in words, never the difficulty nor the margin."""
    en = language.startswith("en")
    kind = result.get("kind")
    if kind == CONFLICT:
        sides = result.get("sides", {})
        pairs = result.get("pairs", [])
        last = pairs[-1] if pairs else {"a": {}, "b": {}}
        name_a = sides.get("a", {}).get("name") or "A"
        name_b = sides.get("b", {}).get("name") or "B"
        parts = [f"{'Conflict' if en else 'Conflicto'}: {name_a} {last['a'].get('total', 0)} vs {name_b} "
                 f"{last['b'].get('total', 0)}"]  # fmt: skip
        if len(pairs) > 1:
            ties = len(pairs) - 1
            parts.append(f"{ties} {'tie(s) rerolled' if en else 'empate(s) repetido(s)'}")
        winner = name_a if result.get("winner") == "a" else name_b
        parts.append(f"{'wins' if en else 'gana'} {winner}")
        omens = omen_words(int(result.get("combined_omens", 0)), language)
        if omens:
            parts.append(omens)
        return " · ".join(parts)
    head = characteristic_label(str(result.get("characteristic", "c1")), settings, language)
    if result.get("current") is not None:
        head += f" {result['current']}"
    tools = int(result.get("tool_dice", 0))
    if tools:
        head += f" + {tools} {'tool dice' if en else 'herramientas'}"
    if kind == CHALLENGE:
        head = f"{'Challenge' if en else 'Reto'} ({head})"
    parts = [f"{head}: {roll_words(result, language, str(result.get('trait') or ''))}"]
    if kind == CHALLENGE:
        parts.append(outcome_word(result.get("outcome"), language))
    omens = omen_words(int(result.get("omens", 0)), language)
    if omens:
        parts.append(omens)
    return " · ".join(parts)


def core_json(roll: CoreRoll) -> JSON:
    return roll.public()


# --- The binding -----------------------------------------------------------------------------------


class PresagiosRollBinding:
    key = KEY

    def kind_allowed(self, kind: str, *, gm_kinds: bool) -> bool:
        if kind in GM_KINDS:
            return gm_kinds
        return kind == ROLL

    def input_model(self, kind: str) -> type[BaseModel]:
        """What a post's roll ``data`` accepts for ``kind``, exactly (unknown keys are refused): the rolls
        service validates with it and /api/rulesets/ publishes its JSON schema."""
        models: dict[str, type[BaseModel]] = {ROLL: RollChoice, CHALLENGE: ChallengeChoice, CONFLICT: ConflictChoice}
        if kind not in models:
            raise RulesError(
                "unknown_roll_kind",
                f"«{kind}» no es una tirada de Presagios.",
                f"'{kind}' is not a Presagios roll kind.",
            )
        return models[kind]

    def prepare(self, kind: str, data: JSON, sheet: JSON | None, settings: BaseModel | None) -> Prepared:
        if kind == CONFLICT:
            choice = ConflictChoice.model_validate(data)
            for key, side in (("a", choice.a), ("b", choice.b)):
                if side.current < 0:  # below zero is out of the story (A-AMB-09); exactly 0 rolls no dice
                    raise reject("NOT_IN_STORY", side=key)
            request = ConflictRequest.model_validate(
                {
                    "a": choice.a.model_dump(exclude={"name"}),
                    "b": choice.b.model_dump(exclude={"name"}),
                }
            )
            sides: JSON = {"a": choice.a.model_dump(mode="json"), "b": choice.b.model_dump(mode="json")}
            return Prepared(request=request, public=sides)
        if kind not in (ROLL, CHALLENGE):
            raise RulesError(
                "unknown_roll_kind",
                f"«{kind}» no es una tirada de Presagios.",
                f"'{kind}' is not a Presagios roll kind.",
            )
        roll_choice: RollChoice = (ChallengeChoice if kind == CHALLENGE else RollChoice).model_validate(data)
        current, bonus, trait = _rating(roll_choice, sheet)
        public: JSON = {
            "characteristic": roll_choice.characteristic,
            "current": current,
            "tool_dice": roll_choice.tool_dice,
            "trait": trait,
            "trait_bonus": bonus,
        }
        base = {"current": current, "tool_dice": roll_choice.tool_dice, "trait_bonus": bonus}
        if isinstance(roll_choice, ChallengeChoice):
            difficulty = check_difficulty(roll_choice.difficulty)
            # The difficulty never enters what players read: only GMs get ``secret``.
            return Prepared(
                request=ChallengeRequest(**base, difficulty=difficulty),
                public={**public, "difficulty_secret": True},
                secret={"difficulty": difficulty},
            )
        return Prepared(request=RollRequest(**base), public=public)

    def resolve(self, kind: str, prepared: Prepared, dice: DiceSource, settings: BaseModel | None) -> Resolved:
        rules = settings_of(settings)
        rolled = resolve(kind, prepared.request, dice, rules)
        secret: JSON = {}
        if isinstance(rolled, ConflictResult):
            result: JSON = {
                "kind": CONFLICT,
                "sides": prepared.public,
                **rolled.public(),
                "omens_a": rolled.omens_a,
                "omens_b": rolled.omens_b,
                "loser_damage": rolled.loser_damage,
            }
        else:
            request: Any = prepared.request
            core = rolled.roll if isinstance(rolled, ChallengeResult) else rolled
            result = {"kind": kind, **{k: prepared.public[k] for k in ("characteristic", "current", "tool_dice")}}
            result.update(core_json(core))
            result["trait"] = prepared.public.get("trait") or ""
            if isinstance(rolled, ChallengeResult):
                result["success"] = rolled.success
                result["outcome"] = "success" if rolled.success else "failure"
                result["difficulty_secret"] = True
                secret = {"difficulty": request.difficulty, "margin": core.total - request.difficulty}
        return Resolved(
            result=result,
            secret=secret,
            summary_es=summary(result, "es", rules),
            summary_en=summary(result, "en", rules),
        )

    def faces(self, kind: str, result: JSON) -> list[DieFace]:
        if result.get("kind") == CONFLICT or kind == CONFLICT:
            drawn: list[DieFace] = []
            pairs = result.get("pairs", [])
            for index, pair in enumerate(pairs):
                final = index == len(pairs) - 1
                for side in ("a", "b"):
                    note = f"side-{side}" if final else f"side-{side} rerolled"
                    drawn.extend(die_faces(pair.get(side, {}).get("dice", []), counts=final, note=note))
            return drawn
        return die_faces(result.get("dice", []))


def die_faces(dice: list[int], *, counts: bool = True, note: str = "") -> list[DieFace]:
    """d6 faces; the face that would show 1 shows the omen."""
    return [
        DieFace("omen", int(d), OMEN_GLYPH, counts, note)
        if int(d) == OMEN_FACE
        else DieFace("d6", int(d), str(d), counts, note)
        for d in dice
    ]


BINDING = PresagiosRollBinding()
