"""Presagios: the campaign threat and each character's sheet, as the pure rules' ``Table`` wants them.

Every operation of ``systems.presagios.operations`` takes a ``Table`` (threat plus the characters it
touches, keyed by id as a string) and returns a new one. The stored shapes are:

* campaign rules state: ``{"threat": int}``;
* a sheet: ``PresagiosSheet.model_dump(mode="json")`` without ``name`` (the character row holds the
  name), with ``challenge_locks`` sorted so equal sheets are equal JSON.

Operations a player may ask for on their own character (spend overcome, activate a quality, mark damage)
are always paid by that character: the character the request is made for must be the payer, so nobody
spends someone else's points or the GM's threat. GM-paid activations go through the campaign endpoint.
Retries and forced outcomes change a roll's state (locks, once per roll): they belong to the challenge
and conflict flows, not to these plain operations.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints
from pydantic import ValidationError as PydanticValidationError

from rulesets.kit.sheets import JSON, Outcome, Targets, Who
from systems.errors import RulesError
from systems.presagios import points
from systems.presagios.points import Purpose, Use
from systems.presagios.qualities import Force, QualityActivation, pay_for_force
from systems.presagios.settings import PresagiosSettings, ThreatVisibility
from systems.presagios.sheet import (
    CHAR_KEYS,
    NPC_CHAR_MAX,
    TRAIT_MAX,
    TRAIT_MIN,
    CharKey,
    Kind,
    PresagiosSheet,
    QualityKind,
    create_character,
)
from systems.presagios.table import Table
from systems.registry import Names, Operation, Scope

# The pure sheet needs a name; the stored sheet leaves it to the character row.
_NAME_PLACEHOLDER = "—"
# Parts of a stored sheet that creation computes (current = base, 5 overcome...): a draft never keeps them.
_DERIVED = ("name", "current", "overcome", "status", "status_reason", "challenge_locks")
# Characteristics are damage tracks: their current value may drop below zero (out of the story).
SIGNED_TRACKS = frozenset(CHAR_KEYS)


def _needs_roll() -> RulesError:
    return RulesError(
        "operation_needs_roll",
        "Esto se hace desde la tirada (reto o conflicto) a la que afecta.",
        "This is done from the roll (challenge or conflict) it affects.",
    )


# --- Drafts: types and ranges only --------------------------------------------------------------------

Text = Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)]
Rating = Annotated[int, Field(ge=0, le=NPC_CHAR_MAX)]


class DraftTrait(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=80)]
    characteristic: CharKey
    value: int = Field(ge=TRAIT_MIN, le=TRAIT_MAX)
    supernatural: bool = False


class DraftSheet(BaseModel):
    """A sheet still being written: every field optional, each typed and within its range."""

    model_config = ConfigDict(extra="forbid")

    kind: Kind = Kind.PRINCIPAL
    concept: Text = ""
    base: tuple[Rating, Rating, Rating] | None = None
    traits: list[DraftTrait] = Field(default_factory=list, max_length=30)
    hitos: list[Text] = Field(default_factory=list, max_length=10)
    complications: list[Text] = Field(default_factory=list, max_length=10)
    descriptors: list[Text] = Field(default_factory=list, max_length=20)
    weaknesses: list[Text] = Field(default_factory=list, max_length=20)


def _without_derived(data: Mapping[str, Any]) -> dict[str, Any]:
    payload = {key: value for key, value in data.items() if key not in _DERIVED}
    if "complication" in payload:  # the spec's single field; stored as a list so it can be counted
        text = payload.pop("complication")
        payload.setdefault("complications", [text] if text else [])
    return payload


def _trait_order(trait: Mapping[str, Any]) -> int:
    key = trait.get("characteristic")
    return CHAR_KEYS.index(key) if key in CHAR_KEYS else len(CHAR_KEYS)


def _dump(sheet: PresagiosSheet) -> JSON:
    data = sheet.model_dump(mode="json", exclude={"name"})
    data["challenge_locks"] = sorted(data["challenge_locks"])
    data["traits"] = sorted(data["traits"], key=_trait_order)  # stable: by characteristic, as on paper
    return data


def _load(data: Mapping[str, Any]) -> PresagiosSheet:
    try:
        return PresagiosSheet.model_validate({**data, "name": _NAME_PLACEHOLDER})
    except PydanticValidationError:
        raise RulesError(
            "SHEET_INVALID",
            "La hoja guardada de este personaje no es válida para Presagios.",
            "This character's stored sheet is not a valid Presagios sheet.",
        ) from None


# --- Which state each operation reads and writes ------------------------------------------------------


@dataclass(frozen=True)
class _Spec:
    """How one pure operation meets the stored state."""

    campaign: bool  # reads/writes the campaign threat
    who: frozenset[str]
    ids: Callable[[Any], tuple[str | None, ...]] = lambda params: ()
    payer: Callable[[Any], str | None] | None = None  # owner operations: the character that pays or is marked


_GM = frozenset({Who.GM})
_GM_OR_OWNER = frozenset({Who.GM, Who.OWNER})


def _character(params: Any) -> str | None:
    return params.character_id  # type: ignore[no-any-return]


SPECS: dict[str, _Spec] = {
    "spend_overcome": _Spec(True, _GM_OR_OWNER, lambda p: (p.character_id,), _character),
    "spend_threat": _Spec(True, _GM, lambda p: (p.for_character_id,)),
    "activate_quality": _Spec(True, _GM_OR_OWNER, lambda p: (p.activator_id, p.owner_id), lambda p: p.activator_id),
    "award_roleplay": _Spec(False, _GM, lambda p: (p.character_id,)),
    "declare_danger": _Spec(True, _GM),
    "omen_check": _Spec(True, _GM),
    "apply_damage": _Spec(True, _GM_OR_OWNER, lambda p: (p.character_id,), _character),
    "confirm_threat_gain": _Spec(True, _GM),
    "set_threat": _Spec(True, _GM),
    "restore_characteristic": _Spec(False, _GM, lambda p: (p.character_id,)),
    "lock_challenge": _Spec(False, _GM, lambda p: (p.character_id,)),
}


# --- Flow-only operations ---------------------------------------------------------------------------
# A retry, a forced outcome and a cancelled danger's refund change a roll's state as well as points, so
# the plain endpoints refuse them (``operation_needs_roll``). The challenge and conflict flows
# (``rulesets.presagios.procedures``) apply them through the ledger; ``characters.services`` finds them with
# ``flow_operation(key)``. Only GMs may ask for them outside a flow (a GM may move any point anyway).


class _FlowParams(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class RetryParams(_FlowParams):
    character_id: str
    challenge_id: str = Field(max_length=120)


class ForceOutcomeParams(_FlowParams):
    activator_id: str | None = None  # None: the GM pays threat
    owner_id: str
    quality: QualityKind
    force: Force
    against_owner: bool  # derived by the flow from whom the forced outcome hurts


class RefundDangerParams(_FlowParams):
    flow_id: int


def _pay_retry(table: Table, params: RetryParams, settings: PresagiosSettings | None) -> Table:
    return points.pay(table, params.character_id, Use.RETRY, _settings(settings))


def _force_outcome(table: Table, params: ForceOutcomeParams, settings: PresagiosSettings | None) -> Table:
    activation = QualityActivation(params.owner_id, params.quality, params.against_owner, params.activator_id)
    return pay_for_force(table, activation, params.force)


def _refund_danger(table: Table, params: RefundDangerParams, settings: PresagiosSettings | None) -> Table:
    return table.with_threat(table.threat + 1)  # a challenge or conflict cancelled before any dice (R, §5.1)


def _flow_op(key: str, es: str, en: str, params: type[BaseModel], apply: Callable[..., Any]) -> Operation:
    return Operation(key=key, names=Names(es=es, en=en), target=Scope.CAMPAIGN, params_model=params, apply=apply)


FLOW_OPERATIONS: tuple[Operation, ...] = (
    _flow_op("pay_retry", "Volver a intentar", "Retry", RetryParams, _pay_retry),
    _flow_op("force_outcome", "Forzar el resultado", "Force the outcome", ForceOutcomeParams, _force_outcome),
    _flow_op("refund_danger", "Devolver el peligro", "Refund danger", RefundDangerParams, _refund_danger),
)
SPECS.update(
    {
        "pay_retry": _Spec(True, _GM, lambda p: (p.character_id,), _character),
        "force_outcome": _Spec(True, _GM, lambda p: (p.activator_id, p.owner_id), lambda p: p.activator_id),
        "refund_danger": _Spec(True, _GM),
    }
)


def _spec(operation: Operation) -> _Spec:
    try:
        return SPECS[operation.key]
    except KeyError:
        raise RulesError(
            "operation_not_bound",
            f"La operación «{operation.key}» no está disponible en las hojas de Presagios.",
            f"The operation '{operation.key}' is not available on Presagios sheets.",
        ) from None


def _as_id(value: str | None) -> int | None:
    if value is None or not str(value).strip():
        return None
    try:
        return int(str(value).strip())
    except ValueError:
        raise RulesError(
            "UNKNOWN_CHARACTER",
            "Ese personaje no está en la partida.",
            "That character is not in this campaign.",
            character_id=value,
        ) from None


def _mismatch(message_es: str, message_en: str) -> RulesError:
    return RulesError("character_mismatch", message_es, message_en)


def _blank_to_none(params: BaseModel, *names: str) -> BaseModel:
    """A form's empty select means "nobody" (the GM pays, no NPC named)."""
    update = {name: None for name in names if getattr(params, name) == ""}
    return params.model_copy(update=update) if update else params


def _settings(settings: BaseModel | None) -> PresagiosSettings:
    if isinstance(settings, PresagiosSettings):
        return settings
    return PresagiosSettings.model_validate(settings.model_dump() if settings is not None else {})


class PresagiosBinding:
    key = "presagios"
    signed_tracks = SIGNED_TRACKS
    flow_operations = FLOW_OPERATIONS  # the flows' own operations (ledger names in characters.selectors)

    def flow_operation(self, key: str) -> Operation | None:
        """A retry, a forced outcome or a danger refund (``characters.services`` looks here)."""
        return next((op for op in FLOW_OPERATIONS if op.key == key), None)

    def initial_campaign_state(self, settings: BaseModel | None) -> JSON:
        return {"threat": _settings(settings).initial_threat}

    def new_sheet(self, data: JSON, settings: BaseModel | None, *, is_npc: bool) -> JSON:
        """Spec §2.3 for a main character (concept, 9 points 1..5, traits summing to each rating, 2
        milestones, 1 complication, 5 overcome); NPCs are secondaries or monsters with free ratings."""
        payload = _without_derived(data)
        kind = payload.get("kind", Kind.PRINCIPAL.value)
        if not is_npc and kind != Kind.PRINCIPAL.value:
            raise RulesError(
                "PC_KIND",
                "Un personaje de jugador es un personaje principal.",
                "A player's character is a main character.",
            )
        if is_npc and kind == Kind.PRINCIPAL.value:
            raise RulesError(
                "NPC_KIND",
                "Un PNJ es un personaje secundario o un monstruo.",
                "An NPC is a secondary character or a monster.",
            )
        return _dump(create_character({**payload, "name": _NAME_PLACEHOLDER}))

    def draft_sheet(self, data: JSON, settings: BaseModel | None) -> JSON:
        draft = DraftSheet.model_validate(_without_derived(data)).model_dump(mode="json", exclude_none=True)
        draft["traits"] = sorted(draft["traits"], key=_trait_order)
        return draft

    def who_may(self, operation: Operation) -> frozenset[str]:
        return _spec(operation).who

    def pools_public(self, settings: BaseModel | None) -> bool:
        return _settings(settings).threat_visibility is ThreatVisibility.PUBLIC

    def targets(self, operation: Operation, params: BaseModel | None, character_id: int | None) -> Targets:
        spec = _spec(operation)
        if params is not None:
            self._refuse_flow_steps(operation, params)
        ids = tuple(dict.fromkeys(i for i in (_as_id(v) for v in spec.ids(params)) if i is not None))
        if character_id is not None:
            if spec.payer is not None:
                payer = _as_id(spec.payer(params))
                if payer is None:
                    raise _mismatch(
                        "Los puntos de amenaza del director se gastan desde la partida, no desde una hoja.",
                        "The GM's threat points are spent from the campaign, not from a sheet.",
                    )
                if payer != character_id:
                    raise _mismatch(
                        "Desde una hoja solo se gastan o marcan los puntos de ese personaje.",
                        "A sheet only spends or marks its own character's points.",
                    )
            elif character_id not in ids:
                raise _mismatch(
                    "Esa operación no es de este personaje.",
                    "That operation does not concern this character.",
                )
        return Targets(campaign_state=spec.campaign, character_ids=ids)

    @staticmethod
    def _refuse_flow_steps(operation: Operation, params: BaseModel) -> None:
        use = getattr(params, "use", None)
        purpose = getattr(params, "purpose", None)
        if use is Use.RETRY or purpose in (Purpose.FORCE_SUCCESS, Purpose.FORCE_FAILURE):
            raise _needs_roll()

    def apply(
        self,
        operation: Operation,
        params: BaseModel | None,
        settings: BaseModel | None,
        campaign_state: JSON | None,
        sheets: Mapping[int, JSON],
        character_id: int | None,
    ) -> Outcome:
        spec = _spec(operation)
        if params is not None:
            self._refuse_flow_steps(operation, params)
            params = _blank_to_none(params, *(n for n in ("activator_id", "for_character_id") if hasattr(params, n)))
        threat = int((campaign_state or {}).get("threat", 0)) if spec.campaign else 0
        table = Table(threat, {str(pk): _load(sheet) for pk, sheet in sheets.items()})
        result = operation.apply(table, params, _settings(settings))
        new_state = {**(campaign_state or {}), "threat": result.threat} if spec.campaign else None
        return Outcome(campaign_state=new_state, sheets={pk: _dump(result.character(str(pk))) for pk in sheets})

    def pool_values(self, campaign_state: JSON | None, sheets: Mapping[int, JSON]) -> dict[str, int]:
        """``campaign.threat``; per character ``overcome`` (main characters) and the current value of
        each characteristic (``c1``..``c3``, which may be negative: out of the story)."""
        values: dict[str, int] = {}
        if campaign_state is not None:
            values["campaign.threat"] = int(campaign_state.get("threat", 0))
        for pk, sheet in sheets.items():
            if sheet.get("kind", Kind.PRINCIPAL.value) == Kind.PRINCIPAL.value:
                values[f"character.{pk}.overcome"] = int(sheet.get("overcome", 0) or 0)
            current = sheet.get("current") or sheet.get("base")
            if isinstance(current, list | tuple) and len(current) == len(CHAR_KEYS):
                for key, value in zip(CHAR_KEYS, current, strict=True):
                    values[f"character.{pk}.{key}"] = int(value)
        return values


BINDING = PresagiosBinding()
