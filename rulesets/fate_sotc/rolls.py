"""FATE 3.0 (Spirit of the Century) rolls in the thread: 4dF plus a skill rating from the sheet.

Kinds (``systems.fate_sotc.rolls``): ``effort`` (a bare roll), ``simple`` (against a difficulty, which a GM
may keep secret), ``opposed``, ``attack``, ``maneuver``, ``block`` and ``sprint``. The writer names the
skill; its rating comes from the character's sheet (unlisted skills are Mediocre). The other side of an
opposed roll is a rating the writer gives (the GM knows the NPC's) or, in flows, the opponent's sheet.

A secret difficulty lives only in ``Prepared.secret``/``Resolved.secret``: the public result and the
summaries say "Éxito"/"Fallo" (and "éxito crítico"), never the difficulty, the shifts or the margin.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from django.utils import translation
from django.utils.translation import get_language, ngettext, pgettext
from django.utils.translation import gettext as _
from pydantic import BaseModel, ConfigDict, Field

from rulesets.kit.refusals import refuse
from rulesets.kit.rolls import JSON, DieFace, Prepared, Resolved
from rulesets.kit.table import in_both
from systems.dice import DiceSource
from systems.errors import RulesError
from systems.fate_sotc import FateSotcSettings
from systems.fate_sotc.ladder import ladder_label
from systems.fate_sotc.resolution import Modifier, ModifierSource, SimpleOutcome, Track
from systems.fate_sotc.rolls import REQUEST_MODELS, EffortRoll, resolve
from systems.fate_sotc.settings import DEFAULT_SETTINGS

KEY = "fate-sotc"
KINDS = ("effort", "simple", "opposed", "attack", "maneuver", "block", "sprint")
GLYPHS = {-1: "−", 0: " ", 1: "+"}
KIND_NAMES = {
    "effort": ("Tirada", "Roll"),
    "simple": ("Acción simple", "Simple action"),
    "opposed": ("Acción opuesta", "Opposed action"),
    "attack": ("Ataque", "Attack"),
    "maneuver": ("Maniobra", "Maneuver"),
    "block": ("Bloqueo", "Block"),
    "sprint": ("Desplazarse", "Sprint"),
}
TRACK_NAMES = {"health": ("Salud", "Health"), "composure": ("Serenidad", "Composure")}


class RollData(BaseModel):
    """What the composer or the API sends for a SotC roll (the ratings come from the sheet)."""

    model_config = ConfigDict(extra="forbid")

    skill: str | None = Field(default=None, max_length=40)
    skill_rating: int | None = Field(default=None, ge=-10, le=20)  # only without a character (a GM's extra)
    modifier: int = Field(default=0, ge=-10, le=10)  # a GM-imposed or stunt modifier
    difficulty: int | None = Field(default=None, ge=-10, le=20)
    secret: bool = False  # the GM keeps the difficulty secret
    opposition: int | None = Field(default=None, ge=-10, le=20)  # the other side's rating
    opposition_skill: str | None = Field(default=None, max_length=40)
    opposition_name: str = Field(default="", max_length=100)
    track: Track = Track.HEALTH
    full_defense: bool = False
    gm_penalty: int = Field(default=0, ge=-20, le=0)
    borders: tuple[int, ...] = Field(default=(0,), max_length=30)
    carried_weight: int = Field(default=0, ge=0, le=20)


def sotc_settings(settings: Any) -> FateSotcSettings:
    if isinstance(settings, FateSotcSettings):
        return settings
    if isinstance(settings, Mapping):
        return FateSotcSettings.model_validate(dict(settings))
    return DEFAULT_SETTINGS


def _error(code: str, es: str, en: str) -> RulesError:
    return RulesError(code, es, en)


def skill_key(value: str, settings: FateSotcSettings, field: str = "skill") -> str:
    """The catalogue key of a skill given by key or by its name in either language ("Atletismo",
    "athletics", "Athletics"). Anything else is refused: a skill typed wrong never rolls at Mediocre."""
    wanted = value.strip().casefold()
    for skill in settings.skill_catalogue:
        if wanted in (skill.key.casefold(), skill.label_es.casefold(), skill.label_en.casefold()):
            return skill.key
    raise refuse(
        "unknown_skill",
        f"«{value}» no es una habilidad de la lista.",
        f"'{value}' is not a skill on the list.",
        field=field,
    )


def with_skill_keys(chosen: RollData, settings: FateSotcSettings) -> RollData:
    """The request with its skills as catalogue keys (a name typed as the page shows it resolves)."""
    update = {
        name: skill_key(value, settings, name)
        for name, value in (("skill", chosen.skill), ("opposition_skill", chosen.opposition_skill))
        if value
    }
    return chosen.model_copy(update=update) if update else chosen


def skill_rating(sheet: Mapping[str, Any] | None, skill: str | None, fallback: int | None = None) -> int:
    """The rating of ``skill`` on the sheet: unlisted skills are Mediocre (0)."""
    if sheet is not None:
        if not skill:
            return 0
        value = (sheet.get("skills") or {}).get(skill, 0)
        return int(value) if isinstance(value, int) else 0
    return fallback or 0


def _side(skill: str | None, rating: int, modifier: int = 0) -> JSON:
    mods = [{"source": ModifierSource.GM.value, "value": modifier}] if modifier else []
    return {"skill_key": skill, "skill_rating": rating, "modifiers": mods}


class FateSotcRollBinding:
    key = KEY

    def kind_allowed(self, kind: str, *, gm_kinds: bool) -> bool:
        return kind in KINDS

    def input_model(self, kind: str) -> type[BaseModel]:
        """What a post's roll ``data`` accepts for ``kind``, exactly (unknown keys are refused): the rolls
        service validates with it and /api/rulesets/ publishes its JSON schema."""
        if kind not in KINDS:
            raise _error("unknown_roll_kind", "Tipo de tirada desconocido.", "Unknown roll kind.")
        return RollData

    def prepare(self, kind: str, data: JSON, sheet: JSON | None, settings: BaseModel | None) -> Prepared:
        if kind not in KINDS:
            raise _error("unknown_roll_kind", "Tipo de tirada desconocido.", "Unknown roll kind.")
        cfg = sotc_settings(settings)
        chosen = with_skill_keys(RollData.model_validate(data), cfg)
        rating = skill_rating(sheet, chosen.skill, chosen.skill_rating)
        me = _side(chosen.skill, rating, chosen.modifier)
        other = _side(chosen.opposition_skill, chosen.opposition or 0)
        request: dict[str, Any]
        if kind in ("effort",):
            request = me
        elif kind == "simple":
            difficulty = chosen.difficulty if chosen.difficulty is not None else cfg.default_simple_difficulty
            request = {**me, "difficulty": difficulty}
        elif kind == "opposed":
            request = {"a": me, "b": other}
        elif kind == "attack":
            request = {"attacker": me, "defender": other, "defender_full_defense": chosen.full_defense}
            request["track"] = chosen.track.value
        elif kind == "maneuver":
            request = {"maneuverer": me, "target": other, "target_full_defense": chosen.full_defense}
        elif kind == "block":
            request = {**me, "gm_penalty": chosen.gm_penalty}
        else:
            request = {**me, "borders_on_path": list(chosen.borders), "carried_weight": chosen.carried_weight}
        model = REQUEST_MODELS[kind].model_validate(request)
        public = {
            "kind": kind,
            "skill": chosen.skill,
            "skill_label": cfg.skill_label(chosen.skill) if chosen.skill else "",
            "skill_label_en": cfg.skill_label(chosen.skill, "en") if chosen.skill else "",
            **model.model_dump(mode="json"),
        }
        if chosen.opposition_name:
            public["opposition_name"] = chosen.opposition_name
        if chosen.opposition_skill:
            public["opposition_label"] = cfg.skill_label(chosen.opposition_skill)
            public["opposition_label_en"] = cfg.skill_label(chosen.opposition_skill, "en")
        secret: JSON = {}
        if kind == "simple" and chosen.secret:
            secret = {"difficulty": public.pop("difficulty")}
            public["secret_difficulty"] = True
        return Prepared(request=model, public=public, secret=secret)

    def resolve(self, kind: str, prepared: Prepared, dice: DiceSource, settings: BaseModel | None) -> Resolved:
        cfg = sotc_settings(settings)
        raw: Any = resolve(kind, prepared.request, dice, cfg)
        public = prepared.public
        skill = (public.get("skill_label") or "", public.get("skill_label_en") or "")
        result: JSON = {"kind": kind, "sides": []}
        secret: JSON = {}
        if kind == "effort":
            result["sides"] = [side_json("roll", raw, skill)]
            words = {"es": "", "en": ""}
        elif kind in ("simple", "sprint"):
            roll = raw.roll
            result["sides"] = [side_json("roll", roll, skill)]
            difficulty = raw.difficulty if kind == "simple" else cfg.sprint_difficulty
            hidden = bool(public.get("secret_difficulty"))
            result["outcome"] = outcome_json(raw.outcome, hidden)
            if hidden:
                secret = {
                    "difficulty": difficulty,
                    "difficulty_label": ladder_label(difficulty),
                    "shifts": raw.outcome.shifts,
                    "failure_margin": raw.outcome.failure_margin,
                }
            else:
                result["difficulty"] = difficulty
            if kind == "sprint":
                result["zones"] = raw.zones
            words = simple_words(raw.outcome, None if hidden else difficulty, getattr(raw, "zones", None))
        elif kind == "block":
            result["sides"] = [side_json("roll", raw.roll, skill)]
            result["strength"] = raw.strength
            words = _pair(
                lambda: (
                    _("fuerza del bloqueo %(strength)s")
                    % {"strength": ladder_label(raw.strength, get_language() or "es")}
                )
            )
        else:
            other = (public.get("opposition_label") or "", public.get("opposition_label_en") or "")
            first: Any
            second: Any
            first, second = {
                "opposed": (raw.a if kind == "opposed" else None, raw.b if kind == "opposed" else None),
                "attack": (getattr(raw, "attack", None), getattr(raw, "defense", None)),
                "maneuver": (getattr(raw, "maneuver", None), getattr(raw, "resistance", None)),
            }[kind]
            result["sides"] = [side_json("a", first, skill), side_json("b", second, other)]
            if kind == "attack":
                res = raw.result
                result["outcome"] = {
                    "hit": res.hit,
                    "track": res.track.value,
                    "defender_spin": res.defender_spin,
                    "winner": "a" if res.hit > 0 else ("b" if res.defense_margin > 0 else None),
                }
                words = attack_words(res.hit, res.track.value, res.defender_spin, res.defense_margin)
            else:
                outcome = raw.outcome
                result["outcome"] = {"winner": outcome.winner, "shifts": outcome.shifts, "critical": outcome.critical}
                if kind == "maneuver":
                    result["outcome"]["succeeded"] = raw.succeeded
                words = opposed_words(outcome.winner, outcome.shifts, kind == "maneuver")
        name_es, name_en = KIND_NAMES[kind]
        summary_es = f"{name_es}: {sides_words(result['sides'], 'es')}"
        summary_en = f"{name_en}: {sides_words(result['sides'], 'en')}"
        if words["es"]:
            summary_es += f" — {words['es']}"
            summary_en += f" — {words['en']}"
        return Resolved(result=result, secret=secret, summary_es=summary_es, summary_en=summary_en)

    def faces(self, kind: str, result: JSON) -> list[DieFace]:
        drawn: list[DieFace] = []
        for index, side in enumerate(result.get("sides", [])):
            note = "" if index == 0 else "opposition"
            for face in side.get("dice", {}).get("faces", []):
                drawn.append(DieFace("fudge", int(face), GLYPHS.get(int(face), "?"), True, note))
        return drawn


# --- JSON and words (shared with the flows) ---------------------------------------------------------


def dice_json(roll: EffortRoll) -> JSON:
    return {"d6": list(roll.dice.d6), "faces": list(roll.dice.faces), "total": roll.dice.total}


def side_json(role: str, roll: EffortRoll, skill: tuple[str, str]) -> JSON:
    return {
        "role": role,
        "skill_label": skill[0],
        "skill_label_en": skill[1],
        "rating": roll.skill_rating,
        "modifiers": [{"source": m.source.value, "value": m.value, "ref": m.ref} for m in roll.modifiers],
        "dice": dice_json(roll),
        "effort": roll.effort,
        "effort_label": ladder_label(roll.effort),
        "effort_label_en": ladder_label(roll.effort, "en"),
    }


def glyphs(faces: list[int]) -> str:
    return " ".join({-1: "[-]", 0: "[ ]", 1: "[+]"}[int(f)] for f in faces)


def sides_words(sides: list[JSON], language: str) -> str:
    en = language.startswith("en")
    parts = []
    for side in sides:
        label = side.get("skill_label_en" if en else "skill_label") or ""
        rating = ladder_label(int(side.get("rating", 0)), language)
        dice = side.get("dice", {})
        mods = sum(int(m.get("value", 0)) for m in side.get("modifiers", []))
        mod_text = f" {mods:+d}" if mods else ""
        effort = side.get("effort_label_en" if en else "effort_label", "")
        head = f"{label} {rating}" if label else rating
        with translation.override("en" if en else "es"):
            word = str(_("esfuerzo"))
        parts.append(
            f"{head}{mod_text}, {glyphs(dice.get('faces', []))} = {int(dice.get('total', 0)):+d}: {word} {effort}"
        )
    return " / ".join(parts)


def _shifts(shifts: int) -> str:
    return ngettext("%(n)d aumento", "%(n)d aumentos", shifts) % {"n": shifts}


def _pair(render: Callable[[], str]) -> dict[str, str]:
    words = in_both(render)
    return {"es": words.es, "en": words.en}


def shifts_words(shifts: int) -> tuple[str, str]:
    words = in_both(lambda: _shifts(shifts))
    return words.es, words.en


def outcome_json(outcome: SimpleOutcome, hidden: bool) -> JSON:
    if hidden:
        return {"success": outcome.success, "critical": outcome.critical}
    return {
        "success": outcome.success,
        "shifts": outcome.shifts,
        "critical": outcome.critical,
        "failure_margin": outcome.failure_margin,
    }


def simple_words(outcome: SimpleOutcome, difficulty: int | None, zones: int | None = None) -> dict[str, str]:
    """ "Éxito (2 aumentos)" against a known difficulty; only "Éxito"/"Fallo" against a secret one."""

    def render() -> str:
        if outcome.success:
            # SotC's own word: FAE's "Éxito crítico" is a success with style.
            result = pgettext("fate-sotc", "Éxito crítico") if outcome.critical else _("Éxito")
            if difficulty is not None:
                result = _("%(result)s (%(shifts)s)") % {"result": result, "shifts": _shifts(outcome.shifts)}
        else:
            result = _("Fallo")
        if difficulty is not None:
            text = _("dificultad %(difficulty)s: %(result)s") % {
                "difficulty": ladder_label(difficulty, get_language() or "es"),
                "result": result,
            }
        else:
            text = _("dificultad secreta: %(result)s") % {"result": result}
        if zones is not None:
            text += ngettext("; avanza %(n)d zona", "; avanza %(n)d zonas", zones) % {"n": zones}
        return text

    return _pair(render)


def opposed_words(winner: str | None, shifts: int, maneuver: bool = False) -> dict[str, str]:
    def render() -> str:
        values = {"shifts": _shifts(shifts)}
        if winner is None:
            return _("Empate: nadie gana")
        if maneuver:
            if winner == "a":
                return _("La maniobra tiene éxito (%(shifts)s)") % values
            return _("La maniobra fracasa (%(shifts)s en contra)") % values
        if winner == "a":
            return _("Gana quien tira (%(shifts)s)") % values
        return _("Gana la oposición (%(shifts)s)") % values

    return _pair(render)


def attack_words(hit: int, track: str, spin: bool, margin: int) -> dict[str, str]:
    def render() -> str:
        if hit > 0:
            names = TRACK_NAMES.get(track, (track, track))
            name = names[1] if (get_language() or "es").startswith("en") else names[0]
            return _("Impacto de %(hit)d en %(track)s") % {"hit": hit, "track": name}
        if spin:
            return _("El ataque falla; el defensor logra un éxito crítico")
        if margin == 0:
            return _("Empate: sin estrés")
        return _("El ataque falla")

    return _pair(render)


def modifiers_of(side: JSON) -> tuple[Modifier, ...]:
    return tuple(
        Modifier(ModifierSource(m["source"]), int(m["value"]), m.get("ref")) for m in side.get("modifiers", [])
    )


BINDING = FateSotcRollBinding()
