"""Fate Accelerated: the sheet JSON ↔ ``FaeSheet``, the GM fate point pool ↔ ``GmPool``.

Stored shapes:
- a character's sheet is ``FaeSheet.model_dump(mode="json")`` (approaches, aspects, stunts, refresh,
  fate points, the three stress boxes, the three consequence slots, scene status);
- the campaign rules state is ``{"gm_fate_points": n}`` (§6.7.4: only used when ``gm_fate_point_pool``
  is on; otherwise the GM's fate points are unlimited and the number stays 0), plus ``"aspect_grants"``:
  the free invocations (§2.7) held on sheet aspects that have no room for them in the sheet (high
  concept, trouble, other aspects), by aspect key. A consequence keeps its own in its slot.

The action flow spends, returns and grants those free invocations through three flow-only operations
(``FLOW_OPERATIONS``), each one a ledger entry in the step's transaction.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator
from pydantic import ValidationError as PydanticValidationError

from rulesets.kit.sheets import JSON, Outcome, Targets, Who
from systems.errors import RulesError
from systems.fate_accelerated.actions import Action, Approach
from systems.fate_accelerated.aspects import Aspect, AspectKind, FreeInvocationGrant, Moment, Severity
from systems.fate_accelerated.operations import AbsorbHitParams, ConcedeParams, GmPool
from systems.fate_accelerated.settings import FaeSettings, settings_or_default
from systems.fate_accelerated.sheet import CharacterKind, ConsequenceSlots, FaeSheet, SceneStatus, new_character
from systems.fate_accelerated.stunts import StuntTemplate
from systems.registry import Names, Operation, Scope

GM_POOL = "gm_fate_points"
ASPECT_GRANTS = "aspect_grants"
DEFAULT_NAME = {False: "PJ", True: "PNJ"}  # the sheet's own name, used in the rules' messages

# Who may ask for each operation (the GMs always may). Spends and marks on one's own sheet are the
# owner's; awards, corrections, recoveries (the GM confirms them), scene/session timers and the GM pool
# are the GM's.
_OWNER_OPS = frozenset(
    {
        "spend_fate_point",  # pay an invocation
        "fund_compel_offer",  # pay the fate point offered when compelling another character
        "refuse_compel",  # refusing costs one fate point
        "absorb_hit",  # the defender chooses the box and consequences (§5.2)
        "take_out",  # being taken out may be chosen
        "concede",  # the player concedes; the rules count the fate points
        "rename_consequence",  # the defender writes (and rewrites) the consequence
        "use_stunt",  # once-per-session stunts
    }
)
_GM_OPS = frozenset(
    {
        "gain_fate_point",
        "adjust_fate_points",
        "refresh_fate_points",
        "accept_compel",  # mints a fate point: the GM records the accepted compel
        "recover_consequence",  # needs the GM's "makes sense in the story"
        "end_scene",
        "start_scene",
        "start_session",
        "gm_pool_scene_start",
        "gm_pool_spend",
        "gm_pool_gain",
    }
)
# Timers the GM may fire for the whole table at once (applied without a character: every approved PC).
TABLE_OPS = frozenset({"end_scene", "start_scene", "start_session", "refresh_fate_points"})
# Fields of the live state: a new character starts fresh, whatever the draft held.
_LIVE_FIELDS = ("refresh", "fate_points", "stress", "consequences", "scene_status", "refresh_bonus", "approach_raises")


def _settings(settings: BaseModel | None) -> FaeSettings:
    return settings if isinstance(settings, FaeSettings) else settings_or_default(None)


def normalize(sheet: FaeSheet) -> JSON:
    """The stored JSON of a sheet, with sets dumped in a stable order (so equal sheets compare equal)."""
    data = sheet.model_dump(mode="json")
    for stunt in data["stunts"]:
        stunt["actions"] = sorted(stunt["actions"])
    for aspect in data["other_aspects"]:
        aspect["known_by"] = sorted(aspect["known_by"])
    for slot in data["consequences"].values():
        if slot is not None:
            slot["known_by"] = sorted(slot["known_by"])
    return data


# --- Drafts: types and ranges only ------------------------------------------------------------------


class _DraftStunt(BaseModel):
    model_config = ConfigDict(extra="forbid")

    key: str = Field("", max_length=100)
    template: StuntTemplate | None = None
    because: str = Field("", max_length=500)
    actions: tuple[Action, ...] = Field((), max_length=2)
    restrictive_circumstance: bool = False
    approach: Approach | None = None
    circumstance: str = Field("", max_length=500)
    bonus: int = Field(2, ge=2, le=2)
    effect: str = Field("", max_length=500)
    uses_per_session: int = Field(1, ge=1, le=1)
    last_used_session: int | None = Field(None, ge=0)
    gm_approved: bool = False
    text: str = Field("", max_length=1000)


class _DraftAspect(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str = Field("", max_length=200)
    hidden: bool = False
    known_by: tuple[str, ...] = ()


class _Draft(BaseModel):
    """A sheet being written: every field optional, each one of the right type and within its range."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field("", max_length=200)
    kind: CharacterKind = CharacterKind.PC
    description: str = Field("", max_length=5000)
    approaches: dict[Approach, int] = {}
    high_concept: str = Field("", max_length=200)
    trouble: str = Field("", max_length=200)
    other_aspects: tuple[_DraftAspect, ...] = ()
    stunts: tuple[_DraftStunt, ...] = ()
    refresh: int | None = Field(None, ge=0, le=20)
    refresh_bonus: int = Field(0, ge=0, le=10)
    approach_raises: int = Field(0, ge=0, le=30)
    fate_points: int | None = Field(None, ge=0)
    stress: tuple[bool, bool, bool] = (False, False, False)
    consequences: ConsequenceSlots = ConsequenceSlots()
    scene_status: SceneStatus = SceneStatus.ACTIVE

    @field_validator("other_aspects", mode="before")
    @classmethod
    def _plain_strings(cls, value: Any) -> Any:
        if isinstance(value, list | tuple):
            return tuple({"text": v} if isinstance(v, str) else v for v in value)
        return value

    @model_validator(mode="after")
    def _ranges(self, info: ValidationInfo) -> _Draft:
        s = settings_or_default((info.context or {}).get("settings"))
        top = s.approach_max_after_advancement if self.approach_raises else s.approach_max
        for approach, value in self.approaches.items():
            if not s.approach_min <= value <= top:
                raise ValueError(f"{approach.value}: every approach must be between {s.approach_min} and +{top}")
        if len(self.other_aspects) > s.other_aspects_max:
            raise ValueError(f"at most {s.other_aspects_max} other character aspects")
        if len(self.stunts) > s.stunts_max:
            raise ValueError(f"at most {s.stunts_max} stunts")
        return self


def _prepare_stunts(stunts: Any) -> Any:
    """Give every stunt a unique key (S1, S2...) and record that the GM approves custom and two-action
    stunts together with the character (the GM reviews the whole sheet before approving it)."""
    if not isinstance(stunts, list | tuple):
        return stunts
    prepared: list[Any] = []
    used = {s.get("key") for s in stunts if isinstance(s, Mapping) and s.get("key")}
    n = 0
    for stunt in stunts:
        if not isinstance(stunt, Mapping):
            prepared.append(stunt)
            continue
        stunt = dict(stunt)
        if not stunt.get("key"):
            n += 1
            while f"S{n}" in used:
                n += 1
            stunt["key"] = f"S{n}"
            used.add(stunt["key"])
        if stunt.get("template") == StuntTemplate.CUSTOM.value or (
            stunt.get("template") == StuntTemplate.BONUS.value and stunt.get("restrictive_circumstance")
        ):
            stunt["gm_approved"] = True
        prepared.append(stunt)
    return prepared


# --- Free invocations on sheet aspects (flow-only operations) -----------------------------------------


class SheetGrantParams(BaseModel):
    """One free-invocation record on a sheet aspect: its aspect key (``<owner id>:...``), holder and source."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    aspect: str = Field(pattern=r"^[0-9]+:", min_length=3, max_length=200)
    holder: str = Field(min_length=1, max_length=50)
    source: str | None = Field(None, max_length=100)
    same_roll_stacking: bool = False


class GrantParams(SheetGrantParams):
    count: int = Field(1, ge=1, le=2)  # §4.3.4: one, or two on a success with style
    reveal: bool = False  # a discovery puts a hidden aspect on the table (§4.2)


def _no_op(*_args: Any) -> Any:  # flow operations are applied by the binding itself
    raise NotImplementedError


FLOW_OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "use_free_invocation",
        Names("Usar una invocación gratuita", "Use a free invocation"),
        Scope.CHARACTER,
        SheetGrantParams,
        _no_op,
    ),
    Operation(
        "return_free_invocation",
        Names("Devolver una invocación gratuita vetada", "Return a vetoed free invocation"),
        Scope.CHARACTER,
        SheetGrantParams,
        _no_op,
    ),
    Operation(
        "grant_free_invocations",
        Names("Ganar invocaciones gratuitas", "Gain free invocations"),
        Scope.CHARACTER,
        GrantParams,
        _no_op,
    ),
)
FLOW_OPERATION_KEYS = frozenset(op.key for op in FLOW_OPERATIONS)


def owner_of(aspect_key: str) -> int:
    return int(aspect_key.split(":", 1)[0])


def stored_grants(campaign_state: Mapping[str, Any] | None, aspect_key: str) -> tuple[FreeInvocationGrant, ...]:
    """The free invocations the campaign state keeps on a (non-consequence) sheet aspect."""
    raw = ((campaign_state or {}).get(ASPECT_GRANTS) or {}).get(aspect_key) or ()
    return tuple(FreeInvocationGrant.model_validate(g) for g in raw)


def sheet_aspect(sheet: FaeSheet, aspect_key: str, campaign_state: Mapping[str, Any] | None) -> Aspect | None:
    """A sheet aspect with every free invocation on it (its own, or the campaign state's)."""
    for aspect in sheet.aspects(str(owner_of(aspect_key))):
        if aspect.key == aspect_key:
            if aspect.kind is AspectKind.CONSEQUENCE:
                return aspect
            return aspect.model_copy(update={"grants": stored_grants(campaign_state, aspect_key)})
    return None


def _matches(grant: FreeInvocationGrant, p: SheetGrantParams) -> bool:
    return grant.holder == p.holder and grant.source == p.source and grant.same_roll_stacking == p.same_roll_stacking


def _change_grants(grants: tuple[FreeInvocationGrant, ...], key: str, p: BaseModel) -> tuple[FreeInvocationGrant, ...]:
    assert isinstance(p, SheetGrantParams)
    if key == "grant_free_invocations":
        assert isinstance(p, GrantParams)
        new = FreeInvocationGrant(
            holder=p.holder, remaining=p.count, same_roll_stacking=p.same_roll_stacking, source=p.source
        )
        return (*grants, new)
    delta = -1 if key == "use_free_invocation" else 1
    for i, g in enumerate(grants):
        if _matches(g, p) and g.remaining + delta >= 0:
            return (*grants[:i], g.model_copy(update={"remaining": g.remaining + delta}), *grants[i + 1 :])
    if delta > 0:  # the record ran out and was dropped: bring it back
        new = FreeInvocationGrant(
            holder=p.holder, remaining=1, same_roll_stacking=p.same_roll_stacking, source=p.source
        )
        return (*grants, new)
    raise RulesError(
        "no_free_invocation",
        "No quedan invocaciones gratuitas de ese poseedor en ese aspecto.",
        "That holder has no free invocation left on that aspect.",
    )


def apply_sheet_grant(
    key: str, p: BaseModel, sheet: FaeSheet, campaign_state: Mapping[str, Any] | None
) -> tuple[FaeSheet, JSON]:
    """Use, return or add free invocations on a sheet aspect: a consequence's live in its slot, the
    others' in the campaign state. The counts never go below zero; a vetoed one whose aspect has gone
    (recovered, A-27) is not brought back."""
    assert isinstance(p, SheetGrantParams)
    state: JSON = dict(campaign_state or {})
    aspect = sheet_aspect(sheet, p.aspect, campaign_state)
    if aspect is None:
        if key == "return_free_invocation":
            return sheet, state
        raise RulesError("aspect_gone", "Ese aspecto ya no está en la hoja.", "That aspect is no longer on the sheet.")
    grants = _change_grants(aspect.grants, key, p)
    reveal = isinstance(p, GrantParams) and p.reveal
    if aspect.kind is AspectKind.CONSEQUENCE:
        assert aspect.severity is not None
        slot = aspect.model_copy(update={"grants": grants, "hidden": False if reveal else aspect.hidden})
        return sheet.with_changes(consequences=sheet.consequences.replace(Severity(aspect.severity), slot)), state
    all_grants = dict(state.get(ASPECT_GRANTS) or {})
    all_grants[p.aspect] = [g.model_dump(mode="json") for g in grants if g.remaining > 0]
    if not all_grants[p.aspect]:
        del all_grants[p.aspect]
    state[ASPECT_GRANTS] = all_grants
    if reveal and aspect.kind is AspectKind.CHARACTER:
        index = int(p.aspect.rsplit(":", 1)[1])
        others = list(sheet.other_aspects)
        others[index] = others[index].model_copy(update={"hidden": False})
        sheet = sheet.with_changes(other_aspects=tuple(others))
    return sheet, state


class FateAcceleratedBinding:
    key = "fate-accelerated"

    def initial_campaign_state(self, settings: BaseModel | None) -> JSON:
        return {GM_POOL: 0}

    def new_sheet(self, data: JSON, settings: BaseModel | None, *, is_npc: bool) -> JSON:
        """Creation (§2.8, §6.7.1): the approach array, high concept and trouble, at most three more
        aspects, stunts within the maximum, refresh from the stunt count, starting fate points = refresh,
        empty stress and consequences."""
        s = _settings(settings)
        data = {k: v for k, v in data.items() if k not in _LIVE_FIELDS}
        if not str(data.get("name") or "").strip():
            data["name"] = DEFAULT_NAME[is_npc]
        kind = data.get("kind") or CharacterKind.PC.value
        if is_npc and kind == CharacterKind.PC.value:
            kind = CharacterKind.NPC_MAIN.value
        if not is_npc and kind != CharacterKind.PC.value:
            raise RulesError(
                "pc_kind",
                "Un personaje jugador (PJ) no puede ser de un tipo de PNJ.",
                "A player character cannot have a non-player character kind.",
            )
        data["kind"] = kind
        for name in ("high_concept", "trouble"):
            if isinstance(data.get(name), str):
                data[name] = data[name].strip()  # a blank aspect is no aspect
        if isinstance(data.get("other_aspects"), list | tuple):
            data["other_aspects"] = [
                a
                for a in data["other_aspects"]
                if (a.strip() if isinstance(a, str) else str((a or {}).get("text", "")).strip())
            ]
        data["stunts"] = _prepare_stunts(data.get("stunts", []))
        return normalize(new_character(data, s))

    def draft_sheet(self, data: JSON, settings: BaseModel | None) -> JSON:
        draft = _Draft.model_validate(data, context={"settings": _settings(settings)})
        out = draft.model_dump(mode="json", exclude_unset=True)
        for stunt in out.get("stunts", []):
            if "actions" in stunt:
                stunt["actions"] = sorted(stunt["actions"])
        return out

    flow_operations = FLOW_OPERATIONS  # read by characters.selectors (the ledger names)

    def flow_operation(self, key: str) -> Operation | None:
        """The action flow's own operations on free invocations (``characters.services`` looks here)."""
        return next((op for op in FLOW_OPERATIONS if op.key == key), None)

    def who_may(self, operation: Operation) -> frozenset[str]:
        if operation.key in _OWNER_OPS:
            return frozenset({Who.GM, Who.OWNER})
        return frozenset({Who.GM})

    def pools_public(self, settings: BaseModel | None) -> bool:
        return True  # the GM's fate points are on the table, like the players' (§6.7.4)

    def targets(self, operation: Operation, params: BaseModel | None, character_id: int | None) -> Targets:
        if operation.key in FLOW_OPERATION_KEYS:  # the aspect's owner, and the state holding the others' grants
            assert isinstance(params, SheetGrantParams)
            return Targets(campaign_state=True, character_ids=(owner_of(params.aspect),))
        if operation.target is Scope.CAMPAIGN:
            return Targets(campaign_state=True)
        if character_id is None:
            if operation.key in TABLE_OPS:
                return Targets(campaign_state=False, all_characters=True)
            raise RulesError(
                "operation_needs_character",
                f"«{operation.names.es}» se hace sobre un personaje.",
                f"'{operation.names.en}' is applied to a character.",
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
        s = _settings(settings)
        try:
            if operation.key in FLOW_OPERATION_KEYS:
                assert isinstance(params, SheetGrantParams)
                owner = owner_of(params.aspect)
                sheet = FaeSheet.model_validate(sheets[owner], context={"settings": s})
                new_sheet, new_state = apply_sheet_grant(operation.key, params, sheet, campaign_state)
                stored = normalize(FaeSheet.model_validate(normalize(new_sheet), context={"settings": s}))
                return Outcome(new_state, {owner: stored})
            if operation.target is Scope.CAMPAIGN:
                state = dict(campaign_state or self.initial_campaign_state(s))
                pool = GmPool(fate_points=int(state.get(GM_POOL, 0)))
                new_pool = operation.apply(pool, params, s)
                return Outcome({**state, GM_POOL: new_pool.fate_points}, {})
            if character_id is None and operation.key in TABLE_OPS:
                return Outcome(
                    None, {pk: self._apply_one(operation, params, s, sheet, pk) for pk, sheet in sheets.items()}
                )
            if character_id is None or character_id not in sheets:
                raise RulesError(
                    "operation_needs_character",
                    f"«{operation.names.es}» se hace sobre un personaje.",
                    f"'{operation.names.en}' is applied to a character.",
                )
            return Outcome(
                None, {character_id: self._apply_one(operation, params, s, sheets[character_id], character_id)}
            )
        except PydanticValidationError as exc:
            first = exc.errors()[0]["msg"] if exc.errors() else str(exc)
            raise RulesError(
                "invalid_sheet",
                f"La hoja no cumple las reglas: {first}",
                f"The sheet breaks the rules: {first}",
            ) from None

    def _apply_one(
        self, operation: Operation, params: BaseModel | None, s: FaeSettings, stored: JSON, character_id: int
    ) -> JSON:
        sheet = FaeSheet.model_validate(stored, context={"settings": s})
        new = operation.apply(sheet, self._bind_params(params, character_id), s)
        # Transitions copy without validating: check the invariants again before storing.
        return normalize(FaeSheet.model_validate(normalize(new), context={"settings": s}))

    @staticmethod
    def _bind_params(params: BaseModel | None, character_id: int) -> BaseModel | None:
        """The character the operation is applied to is the one that absorbs or concedes."""
        me = str(character_id)
        if isinstance(params, AbsorbHitParams):
            update: dict[str, Any] = {"owner": me}
            if params.moment is None:
                # Without a moment from a roll flow the consequence counts as taken at the start of the
                # campaign: its recovery then only waits for the GM's confirmation at the right event.
                update["moment"] = Moment(adventure=0, session=0, scene=0)
            return params.model_copy(update=update)
        if isinstance(params, ConcedeParams):
            return params.model_copy(update={"character": me})
        return params

    def pool_values(self, campaign_state: JSON | None, sheets: Mapping[int, JSON]) -> dict[str, int]:
        values: dict[str, int] = {}
        if campaign_state is not None:
            values[f"campaign.{GM_POOL}"] = int(campaign_state.get(GM_POOL, 0))
        for pk, sheet in sheets.items():
            values[f"character.{pk}.fate_points"] = int(sheet.get("fate_points") or 0)
            values[f"character.{pk}.stress"] = sum(1 for box in sheet.get("stress") or () if box)
            consequences = sheet.get("consequences") or {}
            values[f"character.{pk}.consequences"] = sum(1 for c in consequences.values() if c)
        return values


BINDING = FateAcceleratedBinding()
