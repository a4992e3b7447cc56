"""No te Duermas (Don't Rest Your Head): the pure operations of ``systems.dont_rest_your_head`` on stored JSON.

Stored shapes:

* campaign rules state: the coin chests, ``{"despair", "hope", "session_number", "session_open"}``
  (``systems.dont_rest_your_head.Chest``); other keys (the conflicts of issue 5) are kept untouched;
* a protagonist's sheet: ``Sheet.model_dump(mode="json")`` without ``name``/``player`` (the character
  row holds the name), plus ``questions``: the five questions of the paper sheet;
* an NPC of the opposition: ``{"pain": n}`` (§2.3); an NPC may also carry a protagonist's sheet (a
  Nightmare that was a PC).

Every out-of-conflict change of this game needs the GM's word (a breather "when the GM allows", a
recovery "after calm reflection", scars "if the GM agrees", the crash steps): those operations are the
GMs', and a GM applying one is that confirmation. The players' own moves (rolls, hope 1s, scar
invocations, minor uses) happen inside a conflict, which is the rolls issue's flow.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter
from pydantic import ValidationError as PydanticValidationError

from rulesets.kit.sheets import JSON, Outcome, Targets, Who
from systems.dice import ScriptedDice
from systems.dont_rest_your_head import Chest, PcAndChest, Sheet
from systems.dont_rest_your_head import conflict as conflict_rules
from systems.dont_rest_your_head.coins import open_session
from systems.dont_rest_your_head.conflict import Conflict, Table
from systems.dont_rest_your_head.operations import Party
from systems.dont_rest_your_head.roll import LeaderRollRequest, prepare_leader_roll
from systems.dont_rest_your_head.settings import DEFAULT_SETTINGS, Settings
from systems.dont_rest_your_head.settlement import SettlementChoices, settle
from systems.dont_rest_your_head.sheet import MadnessTalent, PriceRule, Talent, check_creation
from systems.errors import RulesError
from systems.registry import Names, Operation, Scope

KEY = "dont-rest-your-head"

# The questions of the paper sheet (answered at creation), in the order the sheet asks them.
QUESTIONS: tuple[tuple[str, str, str], ...] = (
    ("awake", "¿Qué te ha mantenido despierto?", "What has been keeping you awake?"),
    ("just_happened", "¿Qué te acaba de pasar?", "What just happened to you?"),
    ("surface", "¿Qué hay en la superficie?", "What's on the surface?"),
    ("beneath", "¿Qué hay debajo?", "What lies beneath?"),
    ("path", "¿Cuál es tu camino?", "What's your path?"),
)
QUESTION_KEYS = tuple(key for key, _es, _en in QUESTIONS)
QUESTION_MAX = 2000

# Operations on one sheet; ``_CHEST_SHEET_OPS`` also read and write the hope chest.
_SHEET_OPS = frozenset(
    {"create_scar", "transform_scar", "carry_out_crash", "crash_disaster", "wake_up", "complete_recovery", "end_scene"}
)
_CHEST_SHEET_OPS = frozenset({"take_breather", "recover_discipline"})
_CHEST_OPS = frozenset({"open_session", "close_session"})
# Params that record the GM's word: only GMs apply these operations, so applying one confirms it.
_GM_FLAGS = ("gm_approves", "gm_confirms", "gm_allows", "gm_agrees")

_PLACEHOLDER_NAME = "-"  # the pure Sheet wants a name; the character row holds the real one
_NOT_STORED = ("name", "player", "questions")


class Opposition(BaseModel):
    """A GM's NPC: an obstacle or opponent with its pain score (§2.3; R, B-AMB-26)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    pain: int = Field(1, ge=1, le=30)


class _DraftTalent(BaseModel):
    """A talent while it is being written: the name may still be empty."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field("", max_length=120)
    description: str = Field("", max_length=2000)
    price_rule: PriceRule | None = None


def _error(code: str, es: str, en: str, **details: Any) -> RulesError:
    return RulesError(code, es, en, **details)


def _settings(settings: BaseModel | None) -> Settings:
    return settings if isinstance(settings, Settings) else DEFAULT_SETTINGS


def is_opposition(data: Mapping[str, Any]) -> bool:
    """An NPC of the opposition (a pain score) rather than a protagonist's sheet."""
    return "pain" in data and "exhaustion_talent" not in data and "madness_talent" not in data


def _questions(data: Mapping[str, Any], *, complete: bool) -> dict[str, str]:
    raw = data.get("questions") or {}
    if not isinstance(raw, Mapping):
        raise _error("questions", "Las preguntas de la hoja tienen que ser un objeto.", "Questions must be an object.")
    unknown = set(raw) - set(QUESTION_KEYS)
    if unknown:
        raise _error(
            "questions", "Pregunta desconocida en la hoja.", "Unknown question on the sheet.", keys=sorted(unknown)
        )
    answers: dict[str, str] = {}
    for key, es, en in QUESTIONS:
        value = raw.get(key, "")
        if not isinstance(value, str):
            raise _error("questions", f"«{es}» tiene que ser texto.", f"'{en}' must be text.", question=key)
        value = value.strip()
        if len(value) > QUESTION_MAX:
            raise _error(
                "questions",
                f"«{es}»: como mucho {QUESTION_MAX} caracteres.",
                f"'{en}': at most {QUESTION_MAX} characters.",
                question=key,
            )
        if complete and not value:
            raise _error(
                "CREATION_RULES",
                f"Reglas de creación: responde a «{es}».",
                f"Creation rules: answer '{en}'.",
                fields=["questions"],
                question=key,
            )
        answers[key] = value
    return answers


def load_sheet(data: Mapping[str, Any], settings: BaseModel | None = None) -> Sheet:
    """The pure protagonist sheet from stored (or submitted) JSON, checked against the campaign's settings."""
    fields = {k: v for k, v in data.items() if k not in _NOT_STORED}
    return Sheet.model_validate({"name": _PLACEHOLDER_NAME, **fields}, context={"settings": _settings(settings)})


def dump_sheet(sheet: Sheet, questions: Mapping[str, str] | None = None) -> JSON:
    """The JSON to store for a protagonist (the questions ride along, untouched by the rules)."""
    out = sheet.model_dump(mode="json", exclude={"name", "player"})
    out["questions"] = {key: (questions or {}).get(key, "") for key in QUESTION_KEYS}
    return out


def _load_pc(data: Mapping[str, Any], settings: BaseModel | None, character_id: int) -> Sheet:
    if is_opposition(data):
        raise _error(
            "not_a_protagonist",
            "Este personaje no tiene hoja de protagonista (es oposición con puntuación de dolor).",
            "This character has no protagonist sheet (it is opposition with a pain score).",
            character=character_id,
        )
    return load_sheet(data, settings)


def _chest(state: Mapping[str, Any] | None) -> Chest:
    state = state or {}
    return Chest.model_validate({k: state[k] for k in Chest.model_fields if k in state})


def _with_chest(state: Mapping[str, Any] | None, chest: Chest) -> JSON:
    return {**(state or {}), **chest.model_dump(mode="json")}


_CREATION_TEXTS = {
    "discipline": ("la disciplina empieza en 3", "discipline starts at 3"),
    "exhaustion": ("el agotamiento empieza en 0", "exhaustion starts at 0"),
    "responses": ("todas las casillas de respuesta (lucha y huida) empiezan sin marcar", "all response boxes clear"),
    "permanent_madness": ("sin locura permanente", "no permanent madness"),
    "scars": ("sin cicatrices ni talentos cambiados", "no scars nor talent swaps"),
    "status": ("el protagonista empieza despierto", "the protagonist starts awake"),
}


class DontRestYourHeadBinding:
    key = KEY

    # --- state and sheets -------------------------------------------------------------------------

    def initial_campaign_state(self, settings: BaseModel | None) -> JSON:
        return Chest().model_dump(mode="json")

    def new_sheet(self, data: JSON, settings: BaseModel | None, *, is_npc: bool) -> JSON:
        if is_npc:
            if is_opposition(data):
                return Opposition.model_validate(data).model_dump(mode="json")
            # A GM's NPC may be a protagonist-shaped sheet (a former PC): ranges only.
            return dump_sheet(load_sheet(data, settings), _questions(data, complete=False))
        if is_opposition(data):
            raise _error(
                "CREATION_RULES",
                "Un protagonista necesita talentos, no una puntuación de dolor.",
                "A protagonist needs talents, not a pain score.",
                fields=["talents"],
            )
        sheet = load_sheet(data, settings)  # pydantic: both talents, with names, are required
        try:
            check_creation(sheet)
        except RulesError as exc:
            broken = [_CREATION_TEXTS[f] for f in exc.details.get("fields", ()) if f in _CREATION_TEXTS]
            raise _error(
                exc.code,
                "Reglas de creación: " + "; ".join(es for es, _en in broken) + ".",
                "Creation rules: " + "; ".join(en for _es, en in broken) + ".",
                **exc.details,
            ) from None
        return dump_sheet(sheet, _questions(data, complete=True))

    def draft_sheet(self, data: JSON, settings: BaseModel | None) -> JSON:
        """Types and ranges only: talents may still be unnamed, questions unanswered."""
        if is_opposition(data):
            return Opposition.model_validate(data).model_dump(mode="json")
        talents: dict[str, JSON | None] = {}
        probe = {k: v for k, v in data.items() if k not in _NOT_STORED}
        for key in ("exhaustion_talent", "madness_talent"):
            raw = probe.get(key)
            if raw is None:
                talents[key] = None
                probe[key] = {"name": _PLACEHOLDER_NAME}
                continue
            talent = _DraftTalent.model_validate(raw)
            if key == "exhaustion_talent" and talent.price_rule is not None:
                raise _error(
                    "price_rule",
                    "Solo el talento de locura tiene precio.",
                    "Only the madness talent has a price.",
                )
            dumped = talent.model_dump(mode="json")
            if dumped["price_rule"] is None:
                del dumped["price_rule"]
            if key == "madness_talent":
                dumped.setdefault("price_rule", PriceRule().model_dump(mode="json"))
            talents[key] = dumped
            probe[key] = {**dumped, "name": talent.name or _PLACEHOLDER_NAME}
        sheet = load_sheet(probe, settings)
        out = dump_sheet(sheet, _questions(data, complete=False))
        for key, value in talents.items():
            if value is None:
                del out[key]
            else:
                out[key] = value
        return out

    # --- who and what ---------------------------------------------------------------------------------

    def who_may(self, operation: Operation) -> frozenset[str]:
        # Every out-of-conflict step needs the GM's word (§4 "GM-confirmed", §3.8 "when the GM allows"), and
        # applying one sets that word (``_GM_FLAGS``): Who.OWNER would let a player give it to themselves.
        # A player asks through a procedure instead (a breather: ``procedures.breather``), the GM answers.
        return frozenset({Who.GM})

    @property
    def flow_operations(self) -> tuple[Operation, ...]:  # read by characters.selectors (the ledger names)
        return FLOW_OPERATIONS

    def flow_operation(self, key: str) -> Operation | None:
        """An operation of the conflict flow besides the ruleset's own (``characters.services`` looks here)."""
        return flow_operation(key)

    def pools_public(self, settings: BaseModel | None) -> bool:
        return True  # (S) the chests are always public: the campaign has a scene to check them

    def targets(self, operation: Operation, params: BaseModel | None, character_id: int | None) -> Targets:
        key = operation.key
        if key in FLOW_OPERATION_KEYS:
            return _flow_targets(key, params, character_id)
        if key in _SHEET_OPS or key in _CHEST_SHEET_OPS:
            if character_id is None:
                raise _error(
                    "character_required",
                    "Esta operación se aplica a un personaje.",
                    "This operation applies to a character.",
                )
            # create_scar reads the session number from the chest; the hope ops spend from it.
            reads_chest = key in _CHEST_SHEET_OPS or key == "create_scar"
            return Targets(campaign_state=reads_chest, character_ids=(character_id,))
        if key in _CHEST_OPS:
            if key == "close_session":  # every PC: scar marks and scene swaps end with the session
                ids = tuple(self._pc_id(pc) for pc in getattr(params, "spends", {}))
                return Targets(campaign_state=True, character_ids=ids, all_characters=True)
            return Targets(campaign_state=True)
        if key.startswith("conflict_"):
            raise _error(
                "operation_needs_roll",
                f"«{operation.names.es}» es un paso de un conflicto: se hace desde la tirada del conflicto.",
                f"'{operation.names.en}' is a conflict step: it happens from the conflict's roll.",
                operation=key,
            )
        raise _error(
            "unknown_operation",
            f"«{operation.names.es}» no está disponible aquí.",
            f"'{operation.names.en}' is not available here.",
            operation=key,
        )

    @staticmethod
    def _pc_id(pc: str) -> int:
        try:
            return int(pc)
        except (TypeError, ValueError):
            raise _error(
                "NOT_INVOLVED",
                "Los protagonistas se nombran por su número de personaje.",
                "Protagonists are named by their character id.",
                pc=pc,
            ) from None

    # --- apply ----------------------------------------------------------------------------------------

    def apply(
        self,
        operation: Operation,
        params: BaseModel | None,
        settings: BaseModel | None,
        campaign_state: JSON | None,
        sheets: Mapping[int, JSON],
        character_id: int | None,
    ) -> Outcome:
        key = operation.key
        s = _settings(settings)
        if params is not None:  # only GMs apply these operations: applying one is the GM's word
            flags = {flag: True for flag in _GM_FLAGS if flag in type(params).model_fields}
            if flags:
                params = params.model_copy(update=flags)
        if key in _SHEET_OPS:
            return self._apply_sheet_op(operation, params, s, campaign_state, sheets, character_id)
        if key in FLOW_OPERATION_KEYS:
            return _apply_flow_op(key, params, s, campaign_state, sheets, character_id)
        if key in _CHEST_SHEET_OPS:
            return self._apply_hope_op(operation, params, s, campaign_state, sheets, character_id)
        if key == "open_session":
            if _chest(campaign_state).session_open:
                raise _error(
                    "SESSION_OPEN",
                    "Ya hay una sesión abierta: ciérrala antes de abrir otra.",
                    "A session is already open: close it first.",
                )
            return Outcome(campaign_state=_with_chest(campaign_state, open_session(_chest(campaign_state), s)))
        if key == "close_session":
            return self._close_session(operation, params, s, campaign_state, sheets)
        self.targets(operation, params, character_id)  # refuses the conflict steps with their reason
        raise _error("unknown_operation", "Operación desconocida.", "Unknown operation.", operation=key)

    def _apply_sheet_op(
        self,
        operation: Operation,
        params: BaseModel | None,
        s: Settings,
        campaign_state: JSON | None,
        sheets: Mapping[int, JSON],
        character_id: int | None,
    ) -> Outcome:
        assert character_id is not None
        stored = sheets[character_id]
        sheet = _load_pc(stored, s, character_id)
        if operation.key == "create_scar":
            assert params is not None
            # The scar belongs to the campaign's current session, whatever the request said.
            params = params.model_copy(update={"session": _chest(campaign_state).session_number})
        new = operation.apply(sheet, params, s)
        return Outcome(campaign_state=None, sheets={character_id: self._store(new, stored, s)})

    def _apply_hope_op(
        self,
        operation: Operation,
        params: BaseModel | None,
        s: Settings,
        campaign_state: JSON | None,
        sheets: Mapping[int, JSON],
        character_id: int | None,
    ) -> Outcome:
        assert character_id is not None
        stored = sheets[character_id]
        sheet = _load_pc(stored, s, character_id)
        if (
            params is not None
            and "in_conflict" in type(params).model_fields
            and in_open_conflict(campaign_state, character_id)
        ):  # (S) only when not involved in a conflict: the open conflict flows say so
            params = params.model_copy(update={"in_conflict": True})
        result: PcAndChest = operation.apply(PcAndChest(sheet, _chest(campaign_state)), params, s)
        return Outcome(
            campaign_state=_with_chest(campaign_state, result.chest),
            sheets={character_id: self._store(result.sheet, stored, s)},
        )

    def _close_session(
        self,
        operation: Operation,
        params: BaseModel | None,
        s: Settings,
        campaign_state: JSON | None,
        sheets: Mapping[int, JSON],
    ) -> Outcome:
        pcs: dict[str, Sheet] = {}
        for pk, data in sheets.items():
            try:
                pcs[str(pk)] = _load_pc(data, s, pk)
            except (RulesError, PydanticValidationError):
                if str(pk) in {str(pc) for pc in getattr(params, "spends", {})}:
                    raise  # a PC named in the hope distribution must have a protagonist's sheet
                continue  # a PC without a protagonist's sheet yet has nothing to reset
        params = self._with_open_conflicts(params, campaign_state)
        party: Party = operation.apply(Party(_chest(campaign_state), pcs), params, s)
        return Outcome(
            campaign_state=_with_chest(campaign_state, party.chest),
            sheets={int(pc): self._store(sheet, sheets[int(pc)], s) for pc, sheet in party.sheets.items()},
        )

    @staticmethod
    def _with_open_conflicts(params: BaseModel | None, campaign_state: JSON | None) -> BaseModel | None:
        """Count the unsettled conflicts the campaign state knows of (never fewer than the request says)."""
        conflicts = (campaign_state or {}).get("conflicts") or {}
        items = conflicts.values() if isinstance(conflicts, Mapping) else conflicts
        open_count = sum(
            1 for c in items if isinstance(c, Mapping) and str(c.get("state", "")) not in ("CLOSED", "VOID")
        )
        if params is None or not open_count:
            return params
        return params.model_copy(update={"open_conflicts": max(open_count, getattr(params, "open_conflicts", 0))})

    @staticmethod
    def _store(sheet: Sheet, stored: Mapping[str, Any], settings: Settings) -> JSON:
        load_sheet(sheet.model_dump(mode="json"), settings)  # the result must still be a valid sheet
        return dump_sheet(sheet, _questions(stored, complete=False))

    # --- numbers --------------------------------------------------------------------------------------

    def pool_values(self, campaign_state: JSON | None, sheets: Mapping[int, JSON]) -> dict[str, int]:
        values: dict[str, int] = {}
        if campaign_state is not None:
            chest = _chest(campaign_state)
            values["campaign.despair"] = chest.despair
            values["campaign.hope"] = chest.hope
            values["campaign.despair_spent"] = pending_hope(campaign_state)
        for pk, data in sheets.items():
            if is_opposition(data):
                values[f"character.{pk}.pain"] = int(data.get("pain", 0))
                continue
            for pool in ("discipline", "exhaustion", "fight", "flight", "permanent_madness"):
                if pool in data:
                    values[f"character.{pk}.{pool}"] = int(data[pool])
        return values


def pending_hope(campaign_state: Mapping[str, Any] | None) -> int:
    """Despair spent on shading in unsettled conflicts ("pendientes"): hope only when they close."""
    state = campaign_state or {}
    if "despair_spent" in state:
        return int(state["despair_spent"])
    conflicts = state.get("conflicts") or {}
    items = conflicts.values() if isinstance(conflicts, Mapping) else conflicts
    return sum(
        int(c.get("despair_spent", 0))
        for c in items
        if isinstance(c, Mapping) and str(c.get("state", "")) not in ("CLOSED", "VOID")
    )


# --- A conflict's coins and sheets, moved by the rolls issue's conflict flow ---------------------------
#
# The conflict itself lives in its flow (``rulesets.dont_rest_your_head.procedures.conflict``, ``Flow.state``). What it
# does to the chests and the sheets goes through these operations, so every coin and every mark is in the
# ledger: each one re-runs the pure step of ``systems.dont_rest_your_head.conflict`` (or ``settlement``) on
# the conflict as it stood before the step, under the service's locks. The campaign rules state keeps a
# small record of each open conflict (``conflicts[<flow id>]``: who is involved and the despair spent,
# "pendientes"), so the chest view shows pending hope, a breather or a recovery knows who is in an
# unsettled conflict, and a session does not close over an open conflict.

_OPEN = "OPEN"


class _FlowParams(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    flow: int = Field(ge=1)


class ConflictOpenedParams(_FlowParams):
    involved: tuple[int, ...] = Field(min_length=1, max_length=12)


class VoluntaryExhaustionParams(_FlowParams):
    request: LeaderRollRequest = LeaderRollRequest()
    madness_price: int | None = Field(None, ge=1, le=6)
    scene_id: str | None = Field(None, max_length=40)


class _ConflictStepParams(_FlowParams):
    conflict: dict[str, Any]  # the conflict as it stood before the step


class HopeSpentParams(_ConflictStepParams):
    coins: int = Field(1, ge=1, le=20)


class DespairSpentParams(_ConflictStepParams):
    kind: Literal["add6", "remove6"]
    pool: str = Field(max_length=20)


class ScarInvokedParams(_ConflictStepParams):
    """A scar invoked in the adjustment window: the pool rerolled and the faces the flow's roll drew."""

    scar_index: int = Field(ge=0, le=99)
    pool: Literal["discipline", "exhaustion", "madness"]
    dice: tuple[int, ...] = Field(min_length=1, max_length=30)


class ConflictSettledParams(_ConflictStepParams):
    choices: SettlementChoices = SettlementChoices()


class ConflictVoidedParams(_FlowParams):
    pass


def _flow_op(key: str, es: str, en: str, params: type[BaseModel]) -> Operation:
    def apply(*args: Any, **kwargs: Any) -> Any:  # the binding runs these (see ``_apply_flow_op``)
        raise TypeError(f"{key} is applied by the binding")

    return Operation(key=key, names=Names(es=es, en=en), target=Scope.CAMPAIGN, params_model=params, apply=apply)


FLOW_OPERATIONS: tuple[Operation, ...] = (
    _flow_op("conflict_opened", "Conflicto abierto", "Conflict opened", ConflictOpenedParams),
    _flow_op(
        "conflict_voluntary_exhaustion",
        "Aumento voluntario de agotamiento",
        "Voluntary exhaustion increase",
        VoluntaryExhaustionParams,
    ),
    _flow_op("conflict_hope_spent", "Mejorar los éxitos (iluminar)", "Improve successes (shine)", HopeSpentParams),
    _flow_op("conflict_despair_spent", "Ensombrecer", "Shade", DespairSpentParams),
    _flow_op("conflict_scar_invoked", "Invocar cicatriz", "Invoke a scar", ScarInvokedParams),
    _flow_op(
        "conflict_settled", "Conflicto resuelto: efectos y cierre", "Conflict settled and closed", ConflictSettledParams
    ),
    _flow_op("conflict_voided", "Conflicto anulado", "Conflict voided", ConflictVoidedParams),
)
# Applied directly they are the GMs' (who_may); the conflict flow applies a player's own moves (the
# leader's voluntary increase, hope) ``by_rules``, after checking the step is that player's.
FLOW_OPERATION_KEYS = frozenset(op.key for op in FLOW_OPERATIONS)


def flow_operation(key: str) -> Operation | None:
    return next((op for op in FLOW_OPERATIONS if op.key == key), None)


def _conflict_records(state: Mapping[str, Any] | None) -> dict[str, JSON]:
    raw = (state or {}).get("conflicts") or {}
    return {str(k): dict(v) for k, v in raw.items() if isinstance(v, Mapping)} if isinstance(raw, Mapping) else {}


def open_conflict_records(state: Mapping[str, Any] | None) -> dict[str, JSON]:
    """The unsettled conflicts the campaign state knows of, by flow id."""
    return {k: v for k, v in _conflict_records(state).items() if str(v.get("state", "")) not in ("CLOSED", "VOID")}


def in_open_conflict(state: Mapping[str, Any] | None, character_id: int) -> bool:
    """(S) breathers and recovery only when not involved in a conflict: is this PC in an open one?"""
    return any(character_id in (rec.get("involved") or ()) for rec in open_conflict_records(state).values())


def _record(state: Mapping[str, Any] | None, flow: int) -> JSON:
    record = open_conflict_records(state).get(str(flow))
    if record is None:
        raise _error(
            "conflict_not_open",
            "Ese conflicto no está abierto.",
            "That conflict is not open.",
            flow=flow,
        )
    return record


def _with_record(state: Mapping[str, Any] | None, flow: int, record: JSON | None) -> JSON:
    records = _conflict_records(state)
    if record is None:
        records.pop(str(flow), None)
    else:
        records[str(flow)] = record
    return {**(state or {}), "conflicts": records}


# The conflict as stored in a ledger operation's params: pydantic reads and writes the pure dataclass as it
# is (no hand-written converter to keep in step with the rules).
_CONFLICT = TypeAdapter(Conflict)


def load_conflict(data: Mapping[str, Any]) -> Conflict:
    """The pure conflict from its stored JSON (``dump_conflict``); a malformed one is refused."""
    try:
        return _CONFLICT.validate_python(data)
    except PydanticValidationError as exc:
        raise _error(
            "bad_conflict", "El conflicto no es válido.", "The conflict is malformed.", error=str(exc)
        ) from None


def dump_conflict(conflict: Conflict) -> JSON:
    """The conflict as JSON (without its settlement record, which the procedure keeps in words)."""
    dumped: JSON = _CONFLICT.dump_python(dataclasses.replace(conflict, settlement=None), mode="json")
    return dumped


def _flow_targets(key: str, params: BaseModel | None, character_id: int | None) -> Targets:
    if key in ("conflict_despair_spent", "conflict_voided"):
        return Targets(campaign_state=True)
    if character_id is None:
        raise _error(
            "character_required",
            "Esta operación se aplica al protagonista del conflicto.",
            "This operation applies to the conflict's protagonist.",
        )
    if key == "conflict_opened" and isinstance(params, ConflictOpenedParams):
        return Targets(campaign_state=True, character_ids=tuple(sorted({character_id, *params.involved})))
    if key == "conflict_settled" and isinstance(params, ConflictSettledParams):
        involved = load_conflict(params.conflict).involved
        return Targets(campaign_state=True, character_ids=tuple(sorted({character_id, *map(_pc_int, involved)})))
    return Targets(campaign_state=True, character_ids=(character_id,))


def _pc_int(pc: str) -> int:
    return DontRestYourHeadBinding._pc_id(pc)


def _check_conflict(params: _ConflictStepParams) -> Conflict:
    conflict = load_conflict(params.conflict)
    if conflict.id != str(params.flow):
        raise _error("bad_conflict", "El conflicto no es válido.", "The conflict is malformed.", flow=params.flow)
    return conflict


def _apply_flow_op(
    key: str,
    params: BaseModel | None,
    settings: Settings,
    campaign_state: JSON | None,
    sheets: Mapping[int, JSON],
    character_id: int | None,
) -> Outcome:
    assert isinstance(params, _FlowParams)
    chest = _chest(campaign_state)
    if key == "conflict_opened":
        assert isinstance(params, ConflictOpenedParams) and character_id is not None
        if str(params.flow) in _conflict_records(campaign_state):
            raise _error("conflict_exists", "Ese conflicto ya está abierto.", "That conflict is already open.")
        for pk in {character_id, *params.involved}:
            _load_pc(sheets[pk], settings, pk)  # protagonists only: the opposition rolls pain
        opened: JSON = {"state": _OPEN, "leader": character_id, "involved": sorted({character_id, *params.involved})}
        return Outcome(campaign_state=_with_record(campaign_state, params.flow, {**opened, "despair_spent": 0}))
    record = _record(campaign_state, params.flow)
    if key == "conflict_voided":
        return Outcome(campaign_state=_with_record(campaign_state, params.flow, None))  # (S) no coins move
    if key == "conflict_despair_spent":
        assert isinstance(params, DespairSpentParams)
        table = conflict_rules.shade(Table(_check_conflict(params), chest), params.kind, params.pool)  # type: ignore[arg-type]
        record = {**record, "despair_spent": table.conflict.despair_spent}  # "pendientes" until the close
        return Outcome(campaign_state=_with_record(_with_chest(campaign_state, table.chest), params.flow, record))
    assert character_id is not None
    if character_id not in (record.get("involved") or ()):
        raise _error("NOT_INVOLVED", "Ese protagonista no participa en este conflicto.", "Not involved.")
    pc = str(character_id)
    if key == "conflict_voluntary_exhaustion":
        assert isinstance(params, VoluntaryExhaustionParams)
        stored = sheets[character_id]
        sheet, _e, _m = prepare_leader_roll(
            _load_pc(stored, settings, character_id), params.request, settings, params.madness_price, params.scene_id
        )
        return Outcome(campaign_state=None, sheets={character_id: BINDING._store(sheet, stored, settings)})
    if key == "conflict_hope_spent":
        assert isinstance(params, HopeSpentParams)
        table = conflict_rules.spend_hope(Table(_check_conflict(params), chest), pc, params.coins)
        return Outcome(campaign_state=_with_chest(campaign_state, table.chest))
    if key == "conflict_scar_invoked":  # (S) the scar is marked in pencil: once per session
        assert isinstance(params, ScarInvokedParams)
        stored = sheets[character_id]
        table = conflict_rules.invoke_scar(
            Table(_check_conflict(params), chest, {pc: _load_pc(stored, settings, character_id)}),
            pc,
            params.scar_index,
            params.pool,
            True,  # the GM confirmed the connection in the flow's confirm_scar step
            ScriptedDice(params.dice),
        )
        return Outcome(campaign_state=None, sheets={character_id: BINDING._store(table.sheets[pc], stored, settings)})
    if key == "conflict_settled":
        assert isinstance(params, ConflictSettledParams)
        conflict = _check_conflict(params)
        pcs = {p: _load_pc(sheets[_pc_int(p)], settings, _pc_int(p)) for p in conflict.involved}
        table = settle(Table(conflict, chest, pcs), params.choices, settings)
        state = _with_record(_with_chest(campaign_state, table.chest), params.flow, None)  # pending -> hope (S)
        return Outcome(
            campaign_state=state,
            sheets={
                _pc_int(p): BINDING._store(sheet, sheets[_pc_int(p)], settings) for p, sheet in table.sheets.items()
            },
        )
    raise _error("unknown_operation", "Operación desconocida.", "Unknown operation.", operation=key)


__all__ = [
    "BINDING",
    "FLOW_OPERATIONS",
    "QUESTIONS",
    "MadnessTalent",
    "Opposition",
    "Talent",
    "dump_conflict",
    "dump_sheet",
    "in_open_conflict",
    "load_conflict",
    "load_sheet",
]

BINDING = DontRestYourHeadBinding()
