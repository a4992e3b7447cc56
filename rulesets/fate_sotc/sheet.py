"""FATE 3.0 — Spirit of the Century: every operation is a transition of one character's sheet.

The stored sheet is :class:`FateSotcSheet` as JSON without ``name`` (the character row holds the name).
The spec defines no campaign pool: spent fate points go to an abstract, unlimited bank (A10), so the
campaign rules state stays empty and every operation targets the character it is applied to.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel
from pydantic import ValidationError as PydanticValidationError

from rulesets.kit.sheets import JSON, Outcome, Targets, Who
from systems.errors import RulesError
from systems.fate_sotc.consequences import Severity
from systems.fate_sotc.operations import AddAspectParams, AspectIdParams, SeverityParams
from systems.fate_sotc.settings import DEFAULT_SETTINGS, FateSotcSettings
from systems.fate_sotc.sheet import CharacterKind, FateSotcSheet, new_character, normalize_tracks
from systems.registry import Operation

_PLACEHOLDER_NAME = "-"

# What the owner of an approved character may ask for on their own sheet (spec §6 "Who": Player).
# Everything else is the GM's: awards, approvals of invocations/declarations, recovery, refresh,
# status, advancement. Spends that need the GM's approval (``gm_approved``) are GM-only, so a player
# cannot approve their own invocation; the GM records them once approved.
OWNER_OPERATIONS = frozenset(
    {
        "take_hit",  # mark stress / take a consequence on one's own tracks
        "fp_advantage",  # S1: +1, no approval
        "stunt_activation",  # S7: an approved stunt
        "compel_buy_off",  # S8: refuse a compel, paying the stake
        "refuse_gm_gift",  # S9
        "avoid_maneuver_aspect",  # S10
        "guess",  # S11 (the GM refunds with guess_refund)
        "defeat_outcome_demand",  # S13: all remaining PD, only when taken out
    }
)

# Operations that belong to roll flows live outside the registry (issue 5: systems/fate_sotc/invocation.py,
# compels.py, maneuvers.py, defeat.resolve_concession); every registry operation is a plain sheet change.
ROLL_FLOW_OPERATIONS: frozenset[str] = frozenset()


def sotc_settings(settings: BaseModel | Mapping[str, Any] | None) -> FateSotcSettings:
    if isinstance(settings, FateSotcSettings):
        return settings
    if isinstance(settings, Mapping):
        return FateSotcSettings.model_validate(dict(settings))
    return DEFAULT_SETTINGS


def load_sheet(data: Mapping[str, Any]) -> FateSotcSheet:
    """The stored JSON as the pure model (the name lives on the character row)."""
    fields = {k: v for k, v in dict(data).items() if k != "name"}
    return FateSotcSheet.model_validate({**fields, "name": _PLACEHOLDER_NAME})


def dump_sheet(sheet: FateSotcSheet) -> JSON:
    """The pure model as stored JSON: no name, ``known_by`` sorted so equal sheets dump equal."""
    data = sheet.model_dump(mode="json")
    data.pop("name", None)
    for group in ("aspects", "temporary_aspects"):
        for aspect in data.get(group, []):
            aspect["known_by"] = sorted(aspect.get("known_by", []))
    return data


def _error(code: str, es: str, en: str, **details: Any) -> RulesError:
    return RulesError(code, es, en, **details)


def _check_pc_data(data: Mapping[str, Any], settings: FateSotcSettings) -> None:
    """The rules of a player character's sheet, with messages in the glossary's words."""
    skills = data.get("skills") or {}
    if not isinstance(skills, Mapping):
        return  # the model reports the type error
    known = {skill.key for skill in settings.skill_catalogue}
    for key, value in skills.items():
        if key not in known:
            raise _error(
                "unknown_skill",
                f"«{key}» no es una habilidad de esta campaña.",
                f"'{key}' is not a skill of this campaign.",
                skill=key,
            )
        if isinstance(value, int) and value < 0:
            raise _error(
                "negative_skill",
                f"Un personaje jugador no puede tener {settings.skill_label(key)} por debajo de Mediocre (+0).",
                f"A player character cannot have {settings.skill_label(key, 'en')} below Mediocre (+0).",
                skill=key,
            )
    aspects = data.get("aspects") or []
    seen: set[str] = set()
    for aspect in aspects if isinstance(aspects, list | tuple) else []:
        text = str(aspect.get("text", "")).strip().casefold() if isinstance(aspect, Mapping) else ""
        if text and text in seen:
            raise _error(
                "duplicate_aspect",
                "Dos aspectos no pueden decir lo mismo.",
                "Two aspects cannot have the same text.",
            )
        seen.add(text)


class FateSotcBinding:
    key = "fate-sotc"

    def initial_campaign_state(self, settings: BaseModel | None) -> JSON:
        return {}

    def new_sheet(self, data: JSON, settings: BaseModel | None, *, is_npc: bool) -> JSON:
        """Creation (spec §2.2-§2.5): catalogue skills in the pyramid (under ``strict``; ``warn`` leaves the
        mismatch to the GM who approves), the campaign's number of aspects and stunts, tracks sized by
        Vigor/Coraje. A player character starts fresh: PD = refresh rate, clear tracks, no consequences."""
        cfg = sotc_settings(settings)
        fields = {k: v for k, v in dict(data).items() if k != "name"}
        if is_npc:
            kind = fields.get("kind")
            fields["kind"] = kind if kind in (CharacterKind.NPC, CharacterKind.MINION_GROUP) else CharacterKind.NPC
        else:
            _check_pc_data(fields, cfg)
            fields["kind"] = CharacterKind.PC
            fields["skills"] = {k: v for k, v in (fields.get("skills") or {}).items() if v != 0}
            for key in ("fate_points", "stress", "consequences", "temporary_aspects", "tenacity", "status"):
                fields.pop(key, None)
            fields["fate_points_pending"] = 0
        stunts = fields.get("stunts") or []
        # The GM approves the stunts with the character: an approved sheet has approved stunts.
        fields["stunts"] = [{**s, "approved": True} if isinstance(s, Mapping) else s for s in stunts]
        sheet = new_character(_PLACEHOLDER_NAME, cfg, **fields)
        return dump_sheet(sheet)

    def draft_sheet(self, data: JSON, settings: BaseModel | None) -> JSON:
        """Types and ranges only: a half-written sheet saves; tracks follow Vigor/Coraje.

        The binding does not know here whether the draft is an NPC's, so a sheet without ``kind`` is checked
        with the NPC's ranges; submission fixes the kind and applies the player character's rules."""
        fields = dict(data)
        has_kind = "kind" in fields
        if not has_kind:
            fields["kind"] = CharacterKind.NPC.value
        dumped = dump_sheet(normalize_tracks(load_sheet(fields), sotc_settings(settings)))
        if not has_kind:
            dumped.pop("kind", None)
        return dumped

    def who_may(self, operation: Operation) -> frozenset[str]:
        if operation.key in OWNER_OPERATIONS:
            return frozenset({Who.GM, Who.OWNER})
        return frozenset({Who.GM})

    def pools_public(self, settings: BaseModel | None) -> bool:
        return True  # there are no campaign pools

    def targets(self, operation: Operation, params: BaseModel | None, character_id: int | None) -> Targets:
        if operation.key in ROLL_FLOW_OPERATIONS:
            raise _error(
                "operation_needs_roll",
                "Esta operación forma parte de una tirada: hazla desde la tirada.",
                "This operation belongs to a roll: apply it from the roll.",
            )
        if character_id is None:
            raise _error(
                "character_required",
                "Esta operación se aplica a la hoja de un personaje.",
                "This operation applies to a character's sheet.",
            )
        return Targets(campaign_state=False, character_ids=(character_id,))

    def apply(
        self,
        operation: Operation,
        params: BaseModel | None,
        settings: BaseModel | None,
        campaign_state: JSON | None,
        sheets: Mapping[int, JSON],
        character_id: int | None,
    ) -> Outcome:
        if character_id is None or character_id not in sheets:
            raise _error(
                "character_required",
                "Esta operación se aplica a la hoja de un personaje.",
                "This operation applies to a character's sheet.",
            )
        cfg = sotc_settings(settings)
        try:
            sheet = load_sheet(sheets[character_id])
        except PydanticValidationError:
            raise _error(
                "invalid_sheet",
                "La hoja guardada no es válida: pide al DJ que la revise.",
                "The stored sheet is not valid: ask the GM to review it.",
            ) from None
        params = self._prepare(operation, params, sheet, character_id)
        try:  # model_copy does not validate: check what the transition produced before storing it
            result = operation.apply(sheet, params, cfg)
            checked = FateSotcSheet.model_validate(result.model_dump())
        except PydanticValidationError as exc:
            raise _error(
                "invalid_value",
                "El resultado no cabe en la hoja: " + "; ".join(str(e["msg"]) for e in exc.errors()),
                "The result does not fit the sheet: " + "; ".join(str(e["msg"]) for e in exc.errors()),
            ) from None
        return Outcome(campaign_state=None, sheets={character_id: dump_sheet(checked)})

    @staticmethod
    def _prepare(operation: Operation, params: BaseModel | None, sheet: FateSotcSheet, character_id: int) -> Any:
        """Refuse the no-ops that are mistakes, and tie new aspects to the character they land on."""
        if isinstance(params, SeverityParams) and all(
            c.severity is not Severity(params.severity) for c in sheet.consequences
        ):
            raise _error(
                "no_such_consequence",
                "Este personaje no tiene esa consecuencia.",
                "This character does not hold that consequence.",
            )
        if isinstance(params, AspectIdParams) and all(a.id != params.aspect_id for a in sheet.temporary_aspects):
            raise _error(
                "unknown_aspect",
                "Este personaje no tiene ese aspecto temporal.",
                "This character has no such temporary aspect.",
            )
        if isinstance(params, AddAspectParams) and operation.key == "add_temporary_aspect":
            taken = {a.id for a in (*sheet.aspects, *sheet.temporary_aspects)}
            if params.aspect.id in taken:
                raise _error(
                    "aspect_id_taken",
                    "Ya hay un aspecto con ese identificador en la hoja.",
                    "There is already an aspect with that id on the sheet.",
                )
            if params.aspect.holder_id is None:
                params = params.model_copy(
                    update={"aspect": params.aspect.model_copy(update={"holder_id": str(character_id)})}
                )
        return params

    def pool_values(self, campaign_state: JSON | None, sheets: Mapping[int, JSON]) -> dict[str, int]:
        """Per character: PD, pending PD, marked boxes of Salud and Serenidad, consequences held."""
        values: dict[str, int] = {}
        for pk, sheet in sheets.items():
            stress = sheet.get("stress") or {}
            prefix = f"character.{pk}."
            values[prefix + "fate_points"] = int(sheet.get("fate_points", 0))
            values[prefix + "fate_points_pending"] = int(sheet.get("fate_points_pending", 0))
            values[prefix + "health"] = sum(1 for box in stress.get("health", ()) if box)
            values[prefix + "composure"] = sum(1 for box in stress.get("composure", ()) if box)
            values[prefix + "consequences"] = len(sheet.get("consequences") or ())
        return values


BINDING = FateSotcBinding()
