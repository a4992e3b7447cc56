"""No te Duermas flows in the thread: the conflict (§3.10, §5.1, §5.2), on the pure state machine of
``systems.dont_rest_your_head.conflict`` and ``settlement``.

``conflict`` (Conflicto):
1. opened by the leader's player (naming helpers) or by a GM (who may set the pain at once);
2. ``oppose`` (GM): the public pain count ("fijar", or "calcular" from the opponents' pain) and any
   madness price;
3. ``roll_leader`` (the leader's player: voluntary +1 exhaustion, temporary madness 0..6, major use,
   madness talent), ``roll_pain`` (GM) and ``roll_helper`` (each helper's player), in any order. With
   ``seal_rolls`` a pain roll made before the player's is a GM-only roll ("tirada sellada") and its dice stay
   in ``secret_state``, so the player's choices can't depend on them (B-AMB-30); it is revealed when every
   roll is in. The GM may ``drop_helper`` or ``void`` the conflict before that;
   A group action with an unclear leader (``participants`` instead of ``leader``, §5.1) has every
   participant's player ``roll_leader`` full pools; at the reveal the most successes (all their own dice)
   leads and the others become helpers counting discipline successes only; on a tie the conflict waits in
   ``REVEALED`` for the GM's ``pick_leader`` among the tied (by default the first to post, B-AMB-31);
4. the adjustment window: the leader's player spends ``hope`` (a 1 in discipline per coin), proposes a
   ``minor_use`` (the GM confirms it with ``confirm_minor``) or invokes a ``scar`` to reroll one of their
   pools (§3.6: before any shading, once per scar per session; the GM confirms the connection with
   ``confirm_scar``, and only then is the pool rerolled, keeping the hope 1s, and the scar marked on the
   sheet through the ledger); the GM ``shade``s with despair (add or remove
   a 6 in a pool in play); either side may ``pass``; both passes close the window, or the GM's
   ``resolve`` when the player has had the chance to answer the last shading;
5. settlement: each involved player ``choose``s the discipline benefit or the box to check when their pool
   dominates; then the GM ``settle``s with the optional failure consequence (only the allowed ones). The
   effects (exhaustion, boxes, crash, snap, Nightmare, helpers too), the despair coin and the spent
   despair moving to hope happen at once.

Every roll is made by the server (``ctx.roll_maker``) and its stored faces are replayed into the pure
step; every coin and sheet change is a ``LedgerOp`` of ``rulesets.dont_rest_your_head.sheet``, which
re-runs the same pure step under the ledger's locks (the conflict's record in the campaign rules state says
who is in an unsettled conflict and how much hope is pending).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any, Literal

from django.core.exceptions import PermissionDenied
from django.utils import timezone
from django.utils.translation import gettext as _
from pydantic import BaseModel, ConfigDict, Field, field_validator

from campaigns import policy
from characters.models import Character, CharacterStatus
from characters.services import rules_state
from rolls.flows import JSON, FollowUpSpec, LedgerOp, StepContext, StepResult, parse_params
from rolls.models import Flow, Roll
from rolls.services import RollSpec, reveal_roll
from rulesets.dont_rest_your_head.rolls import outcome_json, outcome_words, pain_dice, settings_of
from rulesets.dont_rest_your_head.sheet import dump_conflict, is_opposition, load_conflict, load_sheet
from systems.dice import ScriptedDice
from systems.dont_rest_your_head import conflict as rules
from systems.dont_rest_your_head.coins import Chest
from systems.dont_rest_your_head.conflict import Conflict, ConflictState, Table
from systems.dont_rest_your_head.domination import DOMINANT_PHRASE_EN, DOMINANT_PHRASE_ES
from systems.dont_rest_your_head.refusals import refuse
from systems.dont_rest_your_head.roll import HelperRollRequest, LeaderRollRequest, PainRoll, prepare_leader_roll
from systems.dont_rest_your_head.settings import Settings
from systems.dont_rest_your_head.settlement import SettlementChoices, settle, settlement_options
from systems.dont_rest_your_head.sheet import Status
from systems.errors import RulesError

GM = "gm"
_FROZEN = ConfigDict(frozen=True, extra="ignore")
GM_STEPS = frozenset(
    {
        "oppose",
        "roll_pain",
        "drop_helper",
        "void",
        "shade",
        "confirm_minor",
        "confirm_scar",
        "pick_leader",
        "resolve",
        "settle",
    }
)
LEADER_STEPS = frozenset({"roll_leader", "hope", "minor_use", "scar"})
PLAYER_POOLS = ("discipline", "exhaustion", "madness")
POOL_ES = {"discipline": "la disciplina", "exhaustion": "el agotamiento", "madness": "la locura", "pain": "el dolor"}
PHASE_WORDS = {
    "DECLARED": ("declarado: falta la oposición", "declared: waiting for the opposition"),
    "AWAITING_ROLLS": ("esperando tiradas", "waiting for rolls"),
    "REVEALED": ("empate: el DJ elige al protagonista principal", "tie: the GM picks the leader"),
    "ADJUSTING": ("ventana de ajustes", "adjustment window"),
    "SETTLING": ("resolviendo", "settling"),
    "CLOSED": ("cerrado", "closed"),
    "VOID": ("anulado", "void"),
}


def _truthy(value: Any) -> bool:
    if isinstance(value, list):
        value = value[-1] if value else ""
    return str(value).strip().lower() in ("1", "true", "on", "yes", "si", "sí")


def _int_list(value: Any) -> list[int]:
    if value in (None, ""):
        return []
    if isinstance(value, str):
        value = value.replace(";", ",").replace(" ", ",").split(",")
    if not isinstance(value, list | tuple):
        value = [value]
    return [int(v) for v in value if str(v).strip() != ""]


def _blank_none(value: Any) -> Any:
    return None if value in ("", None, "none") else value


class StartParams(BaseModel):
    """A conflict with a leader (and helpers), or an unclear-leader group action naming ``participants``
    (§5.1): everyone rolls full pools and the most successes leads."""

    model_config = _FROZEN

    leader: int | None = None
    helpers: list[int] = Field(default_factory=list, max_length=6)
    participants: list[int] = Field(default_factory=list, max_length=7)
    pain: int | None = Field(None, ge=-99, le=30)
    opponents: list[int] = Field(default_factory=list, max_length=20)
    madness_price: int | None = Field(None, ge=1, le=6)

    _lists = field_validator("helpers", "participants", "opponents", mode="before")(_int_list)
    _nones = field_validator("leader", "pain", "madness_price", mode="before")(_blank_none)


class OpposeParams(BaseModel):
    model_config = _FROZEN

    pain: int | None = Field(None, ge=-99, le=30)
    opponents: list[int] = Field(default_factory=list, max_length=20)
    madness_price: int | None = Field(None, ge=1, le=6)

    _lists = field_validator("opponents", mode="before")(_int_list)
    _nones = field_validator("pain", "madness_price", mode="before")(_blank_none)


class LeaderParams(BaseModel):
    model_config = _FROZEN

    pc: int | None = None  # a group conflict: which of the player's participants rolls
    voluntary_increase: bool = False
    temp_madness: int = Field(0, ge=-99, le=99)
    talent_use: Literal["major"] | None = None  # the minor use is declared after the reveal
    madness_talent: bool = False

    _bools = field_validator("voluntary_increase", "madness_talent", mode="before")(_truthy)
    _nones = field_validator("pc", "talent_use", mode="before")(_blank_none)

    @field_validator("temp_madness", mode="before")
    @classmethod
    def _zero(cls, value: Any) -> Any:
        return 0 if value in ("", None) else value


class PcParams(BaseModel):
    model_config = _FROZEN

    pc: int | None = None
    _nones = field_validator("pc", mode="before")(_blank_none)


class ScarParams(BaseModel):
    """Invoke a scar (§3.6): which of the leader's scars (its place on the sheet) and the pool to reroll."""

    model_config = _FROZEN

    scar: int = Field(ge=0, le=99)
    pool: Literal["discipline", "exhaustion", "madness"]


class HopeParams(BaseModel):
    model_config = _FROZEN

    coins: int = Field(1, ge=1, le=20)


class ShadeParams(BaseModel):
    model_config = _FROZEN

    kind: Literal["add6", "remove6"]
    pool: str = Field(max_length=20)


class ConfirmParams(BaseModel):
    model_config = _FROZEN

    confirm: bool = True
    _bools = field_validator("confirm", mode="before")(_truthy)


class ChooseParams(BaseModel):
    model_config = _FROZEN

    pc: int | None = None
    benefit: Literal["nothing", "exhaustion-1", "clear_fight", "clear_flight"] | None = None
    box: Literal["fight", "flight"] | None = None
    _nones = field_validator("pc", "benefit", "box", mode="before")(_blank_none)


class SettleParams(BaseModel):
    model_config = _FROZEN

    consequence: Literal["none", "exhaustion+1", "check_box"] = "none"
    consequence_box: Literal["fight", "flight"] | None = None
    _nones = field_validator("consequence_box", mode="before")(_blank_none)

    @field_validator("consequence", mode="before")
    @classmethod
    def _none(cls, value: Any) -> Any:
        return "none" if value in ("", None) else value


def _error(code: str, es: str, en: str) -> RulesError:
    return RulesError(code, es, en)


# --- the stored conflict ----------------------------------------------------------------------------


def _conflict(flow: Flow) -> Conflict:
    """The pure conflict from the flow: the public state plus a sealed pain roll kept for GMs."""
    conflict = load_conflict(flow.state["conflict"])
    sealed = (flow.secret_state or {}).get("pain_dice")
    if sealed and conflict.pain_roll is None:
        conflict = replace(conflict, pain_roll=PainRoll(dice=tuple(int(d) for d in sealed)))
    return conflict


def _chest(ctx: StepContext) -> Chest:
    state = rules_state(ctx.flow.campaign)
    return Chest.model_validate({k: state[k] for k in Chest.model_fields if k in state})


def _table(ctx: StepContext, conflict: Conflict, settings: Settings) -> Table:
    sheets = {}
    for pc in {*conflict.involved, *conflict.helpers}:
        character = ctx.characters.get(int(pc))
        if character is not None and not is_opposition(character.sheet):
            sheets[pc] = load_sheet(character.sheet, settings)
    return Table(conflict=conflict, chest=_chest(ctx), sheets=sheets)


def _pc_name(state: JSON, pc: str) -> str:
    return str((state.get("names") or {}).get(pc, pc))


def _owner(state: JSON, pc: str) -> int | None:
    owner = (state.get("owners") or {}).get(pc)
    return int(owner) if owner is not None else None


def _people(state: JSON, conflict: Conflict) -> list[JSON]:
    if conflict.unclear_leader and conflict.leader is None:  # a group action before the leader is known
        rolled_full = {r.pc for r in conflict.participant_rolls}
        return [
            {
                "pc": pc,
                "name": _pc_name(state, pc),
                "owner": _owner(state, pc),
                "role": "participant",
                "rolled": pc in rolled_full,
                "dropped": False,
            }
            for pc in conflict.participants
        ]
    rolled = {h.pc for h in conflict.helper_rolls}
    people = []
    for pc in ((conflict.leader,) if conflict.leader else ()) + conflict.helpers:
        is_leader = pc == conflict.leader
        people.append(
            {
                "pc": pc,
                "name": _pc_name(state, pc),
                "owner": _owner(state, pc),
                "role": "leader" if is_leader else "helper",
                "rolled": conflict.leader_roll is not None if is_leader else pc in rolled,
                "dropped": pc in conflict.dropped,
            }
        )
    return people


def _asks(state: JSON, table: Table, settings: Settings) -> tuple[list[JSON], JSON]:
    """The choices settlement needs from each involved player, and the GM's allowed consequences."""
    options = settlement_options(table, settings)
    chosen = state.get("choices") or {}
    asks = []
    for pc in table.conflict.involved:
        benefits = list(options.discipline_benefits.get(pc, ()))
        boxes = list(options.madness_boxes.get(pc, ()))
        needed = len(benefits) > 1 or len(boxes) > 1  # "nothing" alone asks nothing (B-AMB-33)
        asks.append(
            {
                "pc": pc,
                "name": _pc_name(state, pc),
                "owner": _owner(state, pc),
                "benefits": benefits,
                "boxes": boxes if len(boxes) > 1 else [],
                "needed": needed,
                "chosen": chosen.get(pc),
                "snaps": options.dominant_pool == "madness" and not boxes,
            }
        )
    gm = {"consequences": list(options.consequences), "success": options.success, "dominant": options.dominant_pool}
    return asks, gm


def _waiting(state: JSON, conflict: Conflict) -> JSON:
    """What the flow waits for and from whom, in the game's words."""
    phase = conflict.state
    if phase == ConflictState.DECLARED:
        return {
            "step": "oppose",
            "who": GM,
            "label_es": "Oposición y dados de dolor",
            "label_en": "Opposition and pain",
        }
    if phase == ConflictState.AWAITING_ROLLS:
        users: list[int] = []
        names_es: list[str] = []
        names_en: list[str] = []
        who: list[str] = []
        if conflict.pain_roll is None:
            who.append(GM)
            names_es.append("dolor")
            names_en.append("pain")
        for person in _people(state, conflict):
            if not person["rolled"] and not person["dropped"] and person["owner"] is not None:
                users.append(person["owner"])
                names_es.append(person["name"])
                names_en.append(person["name"])
        return {
            "step": "rolls",
            "who": who,
            "users": sorted(set(users)),
            "label_es": "Tiradas: " + ", ".join(names_es),
            "label_en": "Rolls: " + ", ".join(names_en),
        }
    leader_owner = _owner(state, conflict.leader or "")
    if phase == ConflictState.REVEALED:  # (R, B-AMB-31) a tie for the most successes: the GM picks
        return {
            "step": "pick_leader",
            "who": GM,
            "label_es": "Empate: el DJ elige al protagonista principal",
            "label_en": "Tie: the GM picks the leader",
        }
    if phase == ConflictState.ADJUSTING:
        if state.get("pending_scar"):
            return {
                "step": "confirm_scar",
                "who": GM,
                "label_es": "El DJ confirma que la cicatriz viene al caso",
                "label_en": "The GM confirms the scar applies",
            }
        if state.get("pending_minor"):
            return {
                "step": "confirm_minor",
                "who": GM,
                "label_es": "El DJ confirma el uso menor del talento",
                "label_en": "The GM confirms the minor talent use",
            }
        users = [leader_owner] if leader_owner is not None and "player" not in conflict.passed else []
        return {
            "step": "adjust",
            "who": [] if "gm" in conflict.passed else [GM],
            "users": users,
            "label_es": "Ventana de ajustes: iluminar, ensombrecer o pasar",
            "label_en": "Adjustment window: shine, shade or pass",
        }
    if phase == ConflictState.SETTLING:
        pending = [a["owner"] for a in state.get("asks") or [] if a["needed"] and not a["chosen"] and a["owner"]]
        if pending:
            return {
                "step": "choose",
                "users": sorted(set(pending)),
                "label_es": "Cada jugador elige su efecto",
                "label_en": "Each player chooses their effect",
            }
        return {"step": "settle", "who": GM, "label_es": "El DJ resuelve el conflicto", "label_en": "The GM settles"}
    return {}


def _store(
    state: JSON, conflict: Conflict, table: Table | None, settings: Settings, **extra: Any
) -> tuple[JSON, JSON, JSON]:
    """New public state, waiting_for and secret_state: a sealed pain roll's dice never reach the state."""
    state = {**state, **extra}
    sealed = bool(state.get("pain_sealed")) and conflict.pain_roll is not None
    public = replace(conflict, pain_roll=None) if sealed else conflict
    state["conflict"] = dump_conflict(public)
    state["phase"] = conflict.state.value
    state["pain_rolled"] = conflict.pain_roll is not None
    state["people"] = _people(state, conflict)
    state["leader_owner"] = _owner(state, conflict.leader or "")
    if conflict.state == ConflictState.REVEALED:
        state["candidates"] = _candidates(state, conflict)
    if conflict.state == ConflictState.ADJUSTING and table is not None and conflict.leader in table.sheets:
        state["leader_scars"] = _scars(table, conflict.leader)
    if conflict.state in (ConflictState.ADJUSTING, ConflictState.SETTLING) and table is not None:
        result = rules.outcome(conflict)
        state["outcome"] = outcome_json(result)
        state["asks"], state["gm_options"] = _asks(state, replace(table, conflict=conflict), settings)
        state["pools_in_play"] = [p for p in ("discipline", "exhaustion", "madness", "pain") if conflict.rolled_size(p)]  # type: ignore[arg-type]
    secret = {"pain_dice": list(conflict.pain_roll.dice)} if sealed and conflict.pain_roll else {}
    return state, _waiting(state, conflict), secret


def _candidates(state: JSON, conflict: Conflict) -> list[JSON]:
    """Each participant of a group action with their successes counting all their own dice (§5.1)."""
    best = max((r.all_successes() for r in conflict.participant_rolls), default=0)
    return [
        {
            "pc": r.pc,
            "name": _pc_name(state, r.pc),
            "successes": r.all_successes(),
            "tied": r.all_successes() == best,
        }
        for r in conflict.participant_rolls
    ]


def _scars(table: Table, pc: str) -> list[JSON]:
    """The leader's scars for the window: which may still be invoked this session (§3.6)."""
    return [
        {
            "index": i,
            "text": scar.text,
            "crossed_out": scar.crossed_out,
            "invoked": scar.invoked_this_session,
            "usable": not scar.crossed_out and not scar.invoked_this_session,
        }
        for i, scar in enumerate(table.sheet(pc).scars)
    ]


def _roll(ctx: StepContext, roll_id: int | None) -> Roll | None:
    return next((r for r in ctx.rolls if r.pk == roll_id), None)


def _faces(roll: Roll, *pools: str) -> ScriptedDice:
    """The stored faces replayed into the pure step, in the order it draws them."""
    stored = roll.result.get("pools") or {}
    return ScriptedDice([int(f) for pool in pools for f in stored.get(pool) or ()])


class ConflictFlow:
    """Conflicto: the player's roll (and helpers') against the GM's pain, open for hope and despair until
    the GM settles it."""

    key = "conflict"

    # --- who --------------------------------------------------------------------------------------

    def actors(self, flow: Flow, step: str) -> frozenset[str | int]:
        state = flow.state or {}
        conflict = state.get("conflict") or {}
        leader = str(conflict.get("leader") or "")
        leader_owner = _owner(state, leader)
        if step in GM_STEPS:
            return frozenset({GM})
        if step == "roll_leader" and conflict.get("unclear_leader") and not leader:
            # A group action: each participant's player rolls full pools for their own protagonist.
            rolled = {str(r.get("pc")) for r in conflict.get("participant_rolls") or ()}
            participants = [str(pc) for pc in conflict.get("participants") or () if str(pc) not in rolled]
            return frozenset(o for pc in participants if (o := _owner(state, pc)) is not None)
        if step in LEADER_STEPS:
            return frozenset({leader_owner} if leader_owner is not None else set())
        if step == "roll_helper":
            helpers = [str(h) for h in conflict.get("helpers") or ()]
            return frozenset(o for h in helpers if (o := _owner(state, h)) is not None)
        if step == "choose":
            return frozenset(a["owner"] for a in state.get("asks") or [] if a.get("owner") is not None)
        if step in ("pass", "adjust"):
            return frozenset({GM, *([leader_owner] if leader_owner is not None else [])})
        if step == "rolls":
            return frozenset(flow.waiting_for.get("users") or []) | frozenset(
                [GM] if GM in (flow.waiting_for.get("who") or []) else []
            )
        return frozenset()

    # --- start --------------------------------------------------------------------------------------

    def start(self, ctx: StepContext, params: JSON) -> StepResult:
        settings = settings_of(ctx.settings)
        p = parse_params(StartParams, params)
        if p.participants:
            pcs, conflict = self._group(ctx, p, settings)
        else:
            if p.leader is None:
                raise _error(
                    "leader_required",
                    "Nombra al protagonista principal, o a los participantes de una acción de grupo.",
                    "Name the leader, or the participants of a group action.",
                )
            leader = self._protagonist(ctx, p.leader, settings)
            if not policy.may_open_character_procedure(ctx.viewer, leader):
                raise PermissionDenied(_("Solo el jugador del protagonista o un máster abre su conflicto."))
            helpers: list[Character] = []
            for helper_id in dict.fromkeys(p.helpers):
                if helper_id != p.leader:
                    helpers.append(self._protagonist(ctx, helper_id, settings))
            pcs = [leader, *helpers]
            conflict = rules.declare(
                str(ctx.flow.pk), str(leader.pk), [str(h.pk) for h in helpers], str(ctx.flow.scene_id)
            )
        if p.pain is not None or p.opponents:
            if not policy.may_run_gm_procedure(ctx.viewer):
                raise PermissionDenied(_("Los dados de dolor los fija el máster."))
            conflict = rules.start_rolls(rules.oppose(conflict, pain_dice(p.pain, tuple(p.opponents)), p.madness_price))
        base = {
            "names": {str(c.pk): c.name for c in pcs},
            "owners": {str(c.pk): c.owner_id for c in pcs},
            "rolls": {"leader": None, "pain": None, "helpers": {}},
            "pain_sealed": False,
            "pending_minor": False,
            "choices": {},
            "opponents": list(p.opponents),
        }
        state, waiting, secret = _store(base, conflict, None, settings)
        opened = LedgerOp(
            "conflict_opened",
            {"flow": ctx.flow.pk, "involved": [c.pk for c in pcs]},
            pcs[0].pk,
            f"Conflicto #{ctx.flow.pk}",
            by_rules=True,
        )
        return StepResult(state=state, waiting_for=waiting, secret_state=secret, ledger=[opened])

    def _group(self, ctx: StepContext, p: StartParams, settings: Settings) -> tuple[list[Character], Conflict]:
        """An unclear-leader group action (§5.1): at least two protagonists, all rolling full pools. The
        opener is a GM or the player of one of them (as a leader's player names helpers)."""
        if p.leader is not None or p.helpers:
            raise _error(
                "group_or_leader",
                "Una acción de grupo no tiene protagonista principal ni ayudantes fijados: lo deciden las tiradas.",
                "A group action names no leader nor helpers: the rolls decide.",
            )
        pcs = [self._protagonist(ctx, pk, settings) for pk in dict.fromkeys(p.participants)]
        if len(pcs) < 2:
            raise _error(
                "group_needs_two",
                "Una acción de grupo necesita al menos dos protagonistas.",
                "A group action needs at least two protagonists.",
            )
        if not any(policy.may_open_character_procedure(ctx.viewer, pc) for pc in pcs):
            raise PermissionDenied(_("Solo el jugador de un participante o un máster abre la acción de grupo."))
        conflict = rules.declare_group(str(ctx.flow.pk), [str(pc.pk) for pc in pcs], str(ctx.flow.scene_id))
        return pcs, conflict

    @staticmethod
    def _protagonist(ctx: StepContext, character_id: int, settings: Settings) -> Character:
        character = ctx.characters.get(character_id)
        if (
            character is None
            or character.is_npc
            or character.status != CharacterStatus.APPROVED
            or is_opposition(character.sheet)
        ):
            raise _error(
                "not_a_protagonist",
                "En un conflicto tiran protagonistas aprobados de esta partida.",
                "A conflict is rolled by approved protagonists of this campaign.",
            )
        load_sheet(character.sheet, settings)
        return character

    # --- steps --------------------------------------------------------------------------------------

    def step(self, ctx: StepContext, step: str, params: JSON) -> StepResult:
        settings = settings_of(ctx.settings)
        state = dict(ctx.flow.state)
        conflict = _conflict(ctx.flow)
        handler = getattr(self, f"_step_{step}", None)
        if handler is None:
            raise _error("unknown_step", f"«{step}» no es un paso del conflicto.", f"'{step}' is not a conflict step.")
        return handler(ctx, state, conflict, settings, params)  # type: ignore[no-any-return]

    def _result(
        self,
        state: JSON,
        conflict: Conflict,
        table: Table | None,
        settings: Settings,
        *,
        follow_ups: list[FollowUpSpec] | None = None,
        ledger: list[LedgerOp] | None = None,
        settled: bool = False,
        cancelled: bool = False,
        **extra: Any,
    ) -> StepResult:
        new_state, waiting, secret = _store(state, conflict, table, settings, **extra)
        return StepResult(
            state=new_state,
            waiting_for={} if (settled or cancelled) else waiting,
            secret_state=secret,
            settled=settled,
            cancelled=cancelled,
            follow_ups=follow_ups or [],
            ledger=ledger or [],
        )

    def _step_oppose(self, ctx: StepContext, state: JSON, c: Conflict, s: Settings, params: JSON) -> StepResult:
        p = parse_params(OpposeParams, params)
        c = rules.start_rolls(rules.oppose(c, pain_dice(p.pain, tuple(p.opponents)), p.madness_price))
        return self._result(state, c, None, s, opponents=list(p.opponents))

    # rolls ---------------------------------------------------------------------------------------------

    def _before_roll(self, c: Conflict) -> None:
        rules.require_state(c, ConflictState.AWAITING_ROLLS)

    def _step_roll_leader(self, ctx: StepContext, state: JSON, c: Conflict, s: Settings, params: JSON) -> StepResult:
        p = parse_params(LeaderParams, params)
        self._before_roll(c)
        pc = self._roller(ctx, state, c, p)
        request = LeaderRollRequest(
            voluntary_increase=p.voluntary_increase,
            temp_madness=p.temp_madness,
            talent_use=p.talent_use,
            madness_talent=p.madness_talent,
        )
        table = _table(ctx, c, s)
        # Refuse before rolling (EXHAUSTION_CAP, MADNESS_RANGE, MADNESS_PRICE, CANNOT_ROLL...).
        prepare_leader_roll(table.sheet(pc), request, s, c.madness_price, c.scene_id)
        roll = ctx.roll_maker(
            RollSpec(
                kind="leader",
                data={**request.model_dump(mode="json"), "madness_price": c.madness_price, "scene_id": c.scene_id}
                | {"flow": ctx.flow.pk},
                character_id=int(pc),
                label=f"Conflicto #{ctx.flow.pk}: {_pc_name(state, pc)}",
            )
        )
        table = rules.roll_leader(table, pc, request, _faces(roll, "discipline", "exhaustion", "madness"), s)
        made = table.conflict.leader_roll if not c.unclear_leader else table.conflict.participant_rolls[-1]
        ledger = []
        if made is not None and made.voluntary_increase:
            ledger.append(
                LedgerOp(
                    "conflict_voluntary_exhaustion",
                    {
                        "flow": ctx.flow.pk,
                        "request": request.model_dump(mode="json"),
                        "madness_price": c.madness_price,
                        "scene_id": c.scene_id,
                    },
                    int(pc),
                    f"Conflicto #{ctx.flow.pk}",
                    by_rules=True,
                )
            )
        if c.unclear_leader:
            state["rolls"] = {**state["rolls"], "participants": {**state["rolls"].get("participants", {}), pc: roll.pk}}
        else:
            state["rolls"] = {**state["rolls"], "leader": roll.pk}
        return self._after_roll(ctx, state, table, s, ledger, [roll])

    @staticmethod
    def _roller(ctx: StepContext, state: JSON, c: Conflict, p: LeaderParams) -> str:
        """Who rolls full pools: the leader, or in a group action the actor's participant yet to roll."""
        if not c.unclear_leader:
            if c.leader_roll is not None:
                refuse("DUPLICATE_ROLL", pc=c.leader)
            assert c.leader is not None
            return c.leader
        rolled = {r.pc for r in c.participant_rolls}
        if p.pc is not None and str(p.pc) in rolled:
            refuse("DUPLICATE_ROLL", pc=str(p.pc))
        mine = [pc for pc in c.participants if _owner(state, pc) == ctx.actor.pk and pc not in rolled]
        pc = str(p.pc) if p.pc is not None else (mine[0] if len(mine) == 1 else "")
        if pc not in mine:
            refuse("NOT_INVOLVED", pc=pc)
        return pc

    def _step_roll_pain(self, ctx: StepContext, state: JSON, c: Conflict, s: Settings, params: JSON) -> StepResult:
        self._before_roll(c)
        if c.pain_roll is not None:
            refuse("DUPLICATE_ROLL", pc="gm")
        # (R, B-AMB-30) a pain roll before the player's stays sealed: a GM-only roll until the reveal.
        if c.unclear_leader:
            everyone_rolled = {r.pc for r in c.participant_rolls} >= set(c.participants)
        else:
            everyone_rolled = c.leader_roll is not None
        sealed = s.seal_rolls and not everyone_rolled
        roll = ctx.roll_maker(
            RollSpec(
                kind="pain",
                data={"pain": c.pain, "flow": ctx.flow.pk},
                gm_only=sealed,
                label=f"Conflicto #{ctx.flow.pk}: dolor",
            )
        )
        table = rules.roll_pain(_table(ctx, c, s), _faces(roll, "pain"))
        state["rolls"] = {**state["rolls"], "pain": roll.pk}
        state["pain_sealed"] = sealed
        return self._after_roll(ctx, state, table, s, [], [roll])

    def _step_roll_helper(self, ctx: StepContext, state: JSON, c: Conflict, s: Settings, params: JSON) -> StepResult:
        p = parse_params(PcParams, params)
        self._before_roll(c)
        mine = [h for h in c.helpers if _owner(state, h) == ctx.actor.pk and h not in c.dropped]
        mine = [h for h in mine if all(r.pc != h for r in c.helper_rolls)]
        pc = str(p.pc) if p.pc is not None else (mine[0] if len(mine) == 1 else "")
        if pc not in mine:
            refuse("NOT_INVOLVED", pc=pc)
        roll = ctx.roll_maker(
            RollSpec(kind="helper", data={}, character_id=int(pc), label=f"Conflicto #{ctx.flow.pk}: ayuda")
        )
        table = rules.roll_helper(_table(ctx, c, s), pc, HelperRollRequest(), _faces(roll, "discipline"))
        state["rolls"] = {**state["rolls"], "helpers": {**state["rolls"].get("helpers", {}), pc: roll.pk}}
        return self._after_roll(ctx, state, table, s, [], [roll])

    def _step_drop_helper(self, ctx: StepContext, state: JSON, c: Conflict, s: Settings, params: JSON) -> StepResult:
        p = parse_params(PcParams, params)
        table = rules.drop_helper(_table(ctx, c, s), str(p.pc))
        return self._after_roll(ctx, state, table, s, [], [])

    def _after_roll(
        self, ctx: StepContext, state: JSON, table: Table, s: Settings, ledger: list[LedgerOp], made: list[Roll]
    ) -> StepResult:
        c = table.conflict
        follow_ups: list[FollowUpSpec] = []
        rolls = [*ctx.rolls, *made]
        if c.state in (ConflictState.REVEALED, ConflictState.ADJUSTING):  # every roll is in: the reveal (§3.10)
            pain_roll = _roll_in(rolls, state["rolls"].get("pain"))
            if state.get("pain_sealed") and pain_roll is not None and pain_roll.gm_only:
                reveal_roll(actor=pain_roll.roller, roll=pain_roll)
            state["pain_sealed"] = False
        if c.state == ConflictState.REVEALED and len([x for x in _candidates(state, c) if x["tied"]]) == 1:
            # (§5.1) the server picks the leader: most successes counting all their own dice.
            table = rules.pick_leader(table)
            c = table.conflict
            state["rolls"] = {**state["rolls"], "leader": state["rolls"]["participants"][c.leader]}
        if c.state == ConflictState.ADJUSTING:
            follow_ups += self._revealed(state, c, rolls)
        return self._result(state, c, table, s, follow_ups=follow_ups, ledger=ledger)

    @staticmethod
    def _revealed(state: JSON, c: Conflict, rolls: Any) -> list[FollowUpSpec]:
        """The provisional result under the leader's roll; a group action also says who leads and why."""
        state["last_change_at"] = _now()
        leader_roll = _roll_in(rolls, state["rolls"].get("leader"))
        if leader_roll is None:
            return []
        es, en = "Revelado", "Revealed"
        if c.unclear_leader and c.leader is not None:
            name = _pc_name(state, c.leader)
            es += f"; protagonista principal: {name}, los demás ayudan con sus éxitos de disciplina"
            en += f"; leader: {name}, the others help with their discipline successes"
        return [_outcome_follow_up(leader_roll, "reveal", es, en, rules.outcome(c))]

    def _step_pick_leader(self, ctx: StepContext, state: JSON, c: Conflict, s: Settings, params: JSON) -> StepResult:
        """(R, B-AMB-31) a tie for the most successes in a group action: the GM picks among the tied;
        without a choice, the one who posted first."""
        p = parse_params(PcParams, params)
        table = rules.pick_leader(_table(ctx, c, s), None if p.pc is None else str(p.pc))
        c = table.conflict
        assert c.leader is not None
        state["rolls"] = {**state["rolls"], "leader": state["rolls"]["participants"][c.leader]}
        follow_ups = self._revealed(state, c, ctx.rolls)
        return self._result(state, c, table, s, follow_ups=follow_ups)

    def _step_void(self, ctx: StepContext, state: JSON, c: Conflict, s: Settings, params: JSON) -> StepResult:
        table = rules.void(_table(ctx, c, s))
        op = LedgerOp("conflict_voided", {"flow": ctx.flow.pk}, None, f"Conflicto #{ctx.flow.pk}")
        return self._result(state, table.conflict, None, s, ledger=[op], cancelled=True)

    # the adjustment window -------------------------------------------------------------------------------

    def _step_hope(self, ctx: StepContext, state: JSON, c: Conflict, s: Settings, params: JSON) -> StepResult:
        p = parse_params(HopeParams, params)
        assert c.leader is not None
        table = rules.spend_hope(_table(ctx, c, s), c.leader, p.coins)
        op = LedgerOp(
            "conflict_hope_spent",
            {"flow": ctx.flow.pk, "conflict": dump_conflict(c), "coins": p.coins},
            int(c.leader),
            f"Conflicto #{ctx.flow.pk}",
            by_rules=True,
        )
        name = _pc_name(state, c.leader)
        result = rules.outcome(table.conflict)
        es = f"{name} ilumina: +{p.coins} {'dado' if p.coins == 1 else 'dados'} de disciplina con un 1"
        en = f"{name} shines: +{p.coins} discipline {'die' if p.coins == 1 else 'dice'} showing 1"
        follow_ups = self._adjust_follow_up(ctx, state, "hope", es, en, result, "discipline")
        return self._result(state, table.conflict, table, s, follow_ups=follow_ups, ledger=[op], last_change_at=_now())

    def _step_minor_use(self, ctx: StepContext, state: JSON, c: Conflict, s: Settings, params: JSON) -> StepResult:
        assert c.leader is not None
        rules.declare_minor_use(_table(ctx, c, s), c.leader, gm_confirms=True)  # refuses what the rules refuse
        if state.get("pending_minor"):
            refuse("TALENT_USE_EXCLUSIVE")
        return self._result(state, c, _table(ctx, c, s), s, pending_minor=True)

    def _step_confirm_minor(self, ctx: StepContext, state: JSON, c: Conflict, s: Settings, params: JSON) -> StepResult:
        p = parse_params(ConfirmParams, params)
        if not state.get("pending_minor"):
            refuse("WRONG_STATE", state=c.state.value)
        assert c.leader is not None
        table = _table(ctx, c, s)
        name = _pc_name(state, c.leader)
        if not p.confirm:
            roll = _roll_in(ctx.rolls, state["rolls"].get("leader"))
            follow_ups = (
                [
                    FollowUpSpec(
                        roll.pk,
                        "minor_use_refused",
                        f"El DJ no acepta el uso menor del talento de {name}",
                        f"The GM does not accept {name}'s minor talent use",
                    )
                ]
                if roll
                else []
            )
            return self._result(state, c, table, s, follow_ups=follow_ups, pending_minor=False)
        table = rules.declare_minor_use(table, c.leader, gm_confirms=True)
        result = rules.outcome(table.conflict)
        follow_ups = self._adjust_follow_up(
            ctx,
            state,
            "minor_use",
            f"Uso menor del talento de {name}: éxito mínimo {table.conflict.leader_roll.exhaustion_at_roll}",  # type: ignore[union-attr]
            f"{name}'s minor talent use: at least {table.conflict.leader_roll.exhaustion_at_roll}",  # type: ignore[union-attr]
            result,
            "discipline",
        )
        return self._result(
            state, table.conflict, table, s, follow_ups=follow_ups, pending_minor=False, last_change_at=_now()
        )

    def _step_scar(self, ctx: StepContext, state: JSON, c: Conflict, s: Settings, params: JSON) -> StepResult:
        """The leader's player invokes a scar to reroll one of their pools (§3.6): refused as the rules refuse
        it (SCAR_AFTER_SHADING, SCAR_ALREADY_INVOKED, SCAR_CROSSED_OUT, POOL_NOT_IN_PLAY...), then the GM
        confirms the connection; nothing is rolled or marked before that."""
        p = parse_params(ScarParams, params)
        self._no_pending_scar(state)
        size = c.rolled_size(p.pool) if c.leader_roll is not None else 0
        probe = ScriptedDice([1] * max(size, 1))  # a dry run: the real dice are rolled on the GM's word
        rules.invoke_scar(_table(ctx, c, s), c.leader or "", p.scar, p.pool, True, probe)
        pending = {"scar": p.scar, "pool": p.pool}
        return self._result(state, c, _table(ctx, c, s), s, pending_scar=pending)

    def _step_confirm_scar(self, ctx: StepContext, state: JSON, c: Conflict, s: Settings, params: JSON) -> StepResult:
        p = parse_params(ConfirmParams, params)
        pending = state.get("pending_scar")
        if not pending:
            refuse("WRONG_STATE", state=c.state.value)
        assert c.leader is not None
        name = _pc_name(state, c.leader)
        table = _table(ctx, c, s)
        pool = pending["pool"]
        if p.confirm:  # the sheet may have changed since the proposal (a GM's transform): re-check, dry
            probe = ScriptedDice([1] * c.rolled_size(pool))
            rules.invoke_scar(table, c.leader, pending["scar"], pool, True, probe)
        scars = table.sheet(c.leader).scars
        scar_text = scars[pending["scar"]].text if pending["scar"] < len(scars) else "?"
        leader_roll = _roll_in(ctx.rolls, state["rolls"].get("leader"))
        if not p.confirm:
            follow_ups = (
                [
                    FollowUpSpec(
                        leader_roll.pk,
                        "scar_refused",
                        f"El DJ no acepta la cicatriz «{scar_text}» de {name}",
                        f"The GM does not accept {name}'s scar '{scar_text}'",
                    )
                ]
                if leader_roll
                else []
            )
            return self._result(state, c, table, s, follow_ups=follow_ups, pending_scar=None)
        roll = ctx.roll_maker(
            RollSpec(
                kind="scar_reroll",
                data={"pool": pool, "dice": c.rolled_size(pool), "flow": ctx.flow.pk},
                character_id=int(c.leader),
                label=f"Conflicto #{ctx.flow.pk}: cicatriz de {name}",
            )
        )
        faces = [int(f) for f in (roll.result.get("pools") or {}).get(pool) or ()]
        table = rules.invoke_scar(table, c.leader, pending["scar"], pool, True, ScriptedDice(faces))
        op = LedgerOp(
            "conflict_scar_invoked",
            {"flow": ctx.flow.pk, "conflict": dump_conflict(c), "scar_index": pending["scar"], "pool": pool}
            | {"dice": faces},
            int(c.leader),
            f"Conflicto #{ctx.flow.pk}: {scar_text}"[:300],
            by_rules=True,
        )
        before = ", ".join(str(d) for d in c.dice(pool))
        after = ", ".join(str(d) for d in faces)
        es = f"{name} invoca la cicatriz «{scar_text}»: {POOL_ES[pool]} pasa de [{before}] a [{after}]"
        en = f"{name} invokes the scar '{scar_text}': {DOMINANT_PHRASE_EN[pool]} goes from [{before}] to [{after}]"
        follow_ups = (
            [_outcome_follow_up(leader_roll, "scar", es, en, rules.outcome(table.conflict))] if leader_roll else []
        )
        return self._result(
            state,
            table.conflict,
            table,
            s,
            follow_ups=follow_ups,
            ledger=[op],
            pending_scar=None,
            last_change_at=_now(),
        )

    @staticmethod
    def _no_pending_scar(state: JSON) -> None:
        """A proposed scar waits for the GM's answer: no second proposal, no shading, no closing the window
        under it (the player acted first, and a shading would forbid the scar, B-AMB-20)."""
        if state.get("pending_scar"):
            raise _error(
                "SCAR_PENDING",
                "Hay una cicatriz esperando la respuesta del DJ.",
                "A scar is waiting for the GM's answer.",
            )

    def _step_shade(self, ctx: StepContext, state: JSON, c: Conflict, s: Settings, params: JSON) -> StepResult:
        p = parse_params(ShadeParams, params)
        self._no_pending_scar(state)
        table = rules.shade(_table(ctx, c, s), p.kind, p.pool)  # type: ignore[arg-type]
        op = LedgerOp(
            "conflict_despair_spent",
            {"flow": ctx.flow.pk, "conflict": dump_conflict(c), "kind": p.kind, "pool": p.pool},
            None,
            f"Conflicto #{ctx.flow.pk}",
        )
        result = rules.outcome(table.conflict)
        verb_es = "añade un 6 a" if p.kind == "add6" else "quita un 6 de"
        verb_en = "adds a 6 to" if p.kind == "add6" else "removes a 6 from"
        es = f"El DJ ensombrece: {verb_es} {POOL_ES[p.pool]}"
        en = f"The GM shades: {verb_en} {DOMINANT_PHRASE_EN[p.pool]}"
        follow_ups = self._adjust_follow_up(ctx, state, "shade", es, en, result, p.pool)
        return self._result(state, table.conflict, table, s, follow_ups=follow_ups, ledger=[op], last_change_at=_now())

    def _step_pass(self, ctx: StepContext, state: JSON, c: Conflict, s: Settings, params: JSON) -> StepResult:
        self._no_pending_scar(state)
        leader_owner = _owner(state, c.leader or "")
        player = ctx.actor.pk == leader_owner and (not ctx.viewer.is_gm or params.get("side") == "player")
        table = rules.pass_turn(_table(ctx, c, s), "player" if player else "gm")
        return self._result(state, table.conflict, table, s)

    def _step_resolve(self, ctx: StepContext, state: JSON, c: Conflict, s: Settings, params: JSON) -> StepResult:
        self._no_pending_scar(state)
        since = state.get("last_change_at")
        timed_out = bool(since) and timezone.now() - datetime.fromisoformat(since) >= timedelta(
            hours=s.adjustment_timeout_hours
        )
        table = rules.gm_resolve(_table(ctx, c, s), timed_out)
        return self._result(state, table.conflict, table, s)

    def _adjust_follow_up(
        self, ctx: StepContext, state: JSON, kind: str, es: str, en: str, result: Any, pool: str
    ) -> list[FollowUpSpec]:
        roll_id = state["rolls"].get("pain") if pool == "pain" else state["rolls"].get("leader")
        roll = _roll_in(ctx.rolls, roll_id)
        if roll is None:
            return []
        return [_outcome_follow_up(roll, kind, es, en, result)]

    # settlement -------------------------------------------------------------------------------------------

    def _step_choose(self, ctx: StepContext, state: JSON, c: Conflict, s: Settings, params: JSON) -> StepResult:
        p = parse_params(ChooseParams, params)
        rules.require_state(c, ConflictState.SETTLING)
        mine = [a for a in state.get("asks") or [] if a["owner"] == ctx.actor.pk and a["needed"]]
        if p.pc is not None:
            mine = [a for a in mine if a["pc"] == str(p.pc)]
        if len(mine) != 1:
            refuse("NOT_INVOLVED", pc=p.pc)
        ask = mine[0]
        if ask["benefits"]:
            if p.benefit not in ask["benefits"]:
                refuse("CHOICE_NOT_ALLOWED", pc=ask["pc"], choice=p.benefit)
            choice = p.benefit
        else:
            if p.box not in ask["boxes"]:
                refuse("CHOICE_NOT_ALLOWED", pc=ask["pc"], choice=p.box)
            choice = p.box
        choices = {**(state.get("choices") or {}), ask["pc"]: choice}
        return self._result(state, c, _table(ctx, c, s), s, choices=choices)

    def _step_settle(self, ctx: StepContext, state: JSON, c: Conflict, s: Settings, params: JSON) -> StepResult:
        p = parse_params(SettleParams, params)
        rules.require_state(c, ConflictState.SETTLING)
        table = _table(ctx, c, s)
        asks, _gm = _asks(state, table, s)
        missing = [a["name"] for a in asks if a["needed"] and not a["chosen"]]
        if missing:
            raise RulesError(
                "CHOICE_REQUIRED",
                "Falta la elección de: " + ", ".join(missing) + ".",
                "Still waiting for the choice of: " + ", ".join(missing) + ".",
                missing=missing,
            )
        res = rules.outcome(c)
        chosen = state.get("choices") or {}
        choices = SettlementChoices(
            discipline_benefits={a["pc"]: chosen[a["pc"]] for a in asks if a["benefits"] and a["pc"] in chosen},
            madness_boxes={a["pc"]: chosen[a["pc"]] for a in asks if a["boxes"] and a["pc"] in chosen},
            consequence=p.consequence,
            consequence_boxes={c.leader: p.consequence_box} if c.leader and p.consequence_box else {},
        )
        done = settle(table, choices, s)
        record = done.conflict.settlement
        assert record is not None and c.leader is not None
        words = _settlement_words(state, table, done, record)
        op = LedgerOp(
            "conflict_settled",
            {"flow": ctx.flow.pk, "conflict": dump_conflict(c), "choices": choices.model_dump(mode="json")},
            int(c.leader),
            f"Conflicto #{ctx.flow.pk}",
        )
        roll = _roll_in(ctx.rolls, state["rolls"].get("leader"))
        follow_ups = (
            [
                FollowUpSpec(
                    roll.pk,
                    "settle",
                    (outcome_words(res, "es") + ". " + words["es"])[:300],
                    (outcome_words(res, "en") + ". " + words["en"])[:300],
                    data={"choices": choices.model_dump(mode="json"), "effects": [list(e) for e in record.effects]},
                    result=outcome_json(res),
                )
            ]
            if roll
            else []
        )
        settlement = {
            "effects": [list(e) for e in record.effects],
            "despair_gained": record.despair_gained,
            "hope_from_shading": record.hope_from_shading,
            "nightmares": dict(record.nightmares),
            "words_es": words["es"],
            "words_en": words["en"],
        }
        return self._result(
            state, done.conflict, None, s, follow_ups=follow_ups, ledger=[op], settled=True, settlement=settlement
        )


def _now() -> str:
    return timezone.now().isoformat()


def _roll_in(rolls: Any, roll_id: int | None) -> Roll | None:
    return next((r for r in rolls if r.pk == roll_id), None) if roll_id else None


def _outcome_follow_up(roll: Roll, kind: str, es: str, en: str, result: Any) -> FollowUpSpec:
    return FollowUpSpec(
        roll.pk,
        kind,
        f"{es}. {outcome_words(result, 'es')}"[:300],
        f"{en}. {outcome_words(result, 'en')}"[:300],
        result=outcome_json(result),
    )


_EFFECT_WORDS = {
    "discipline:nothing": ("no toma el beneficio de la disciplina", "takes no discipline benefit"),
    "discipline:exhaustion-1": ("−1 agotamiento", "−1 exhaustion"),
    "discipline:clear_fight": ("desmarca una casilla de lucha", "clears a fight box"),
    "discipline:clear_flight": ("desmarca una casilla de huida", "clears a flight box"),
    "exhaustion+1": ("+1 agotamiento", "+1 exhaustion"),
    "check_fight": ("marca una casilla de lucha", "checks a fight box"),
    "check_flight": ("marca una casilla de huida", "checks a flight box"),
    "snap": ("estalla (−1 disciplina, +1 locura permanente)", "snaps (−1 discipline, +1 permanent madness)"),
    "nightmare": ("estalla y se convierte en Pesadilla", "snaps and becomes a Nightmare"),
}


def _settlement_words(state: JSON, before: Table, after: Table, record: Any) -> dict[str, str]:
    es: list[str] = []
    en: list[str] = []
    for who, code in record.effects:
        if who == "campaign":
            n = code.split("+", 1)[1]
            es.append(f"+{n} desesperación para el DJ")
            en.append(f"+{n} despair for the GM")
            continue
        consequence = code.startswith("consequence:")
        base = code.split(":", 1)[1] if consequence else code
        w_es, w_en = _EFFECT_WORDS.get(base, (base, base))
        name = _pc_name(state, who)
        es.append(f"{name}: {w_es}" + (" (consecuencia del DJ)" if consequence else ""))
        en.append(f"{name}: {w_en}" + (" (GM's consequence)" if consequence else ""))
    for pc, sheet in after.sheets.items():
        was = before.sheets.get(pc)
        if sheet.status == Status.CRASH_PENDING and (was is None or was.status != Status.CRASH_PENDING):
            es.append(f"{_pc_name(state, pc)} colapsa: se dormirá al final de la escena")
            en.append(f"{_pc_name(state, pc)} crashes: falls asleep at the end of the scene")
    for pc, pain in record.nightmares.items():
        es.append(f"{_pc_name(state, pc)} es ahora una Pesadilla (dolor {pain})")
        en.append(f"{_pc_name(state, pc)} is now a Nightmare (pain {pain})")
    if record.hope_from_shading:
        es.append(f"{record.hope_from_shading} de desesperación gastada pasa al cofre de esperanza")
        en.append(f"{record.hope_from_shading} spent despair moves to the hope chest")
    if not es:
        es.append("sin efectos")
        en.append("no effects")
    dom = record.outcome.dominant_pool
    if dom:
        es.insert(0, f"Domina {DOMINANT_PHRASE_ES[dom]}")
        en.insert(0, f"{DOMINANT_PHRASE_EN[dom].capitalize()} dominates")
    return {"es": "; ".join(es), "en": "; ".join(en)}


FLOW_KINDS = {"conflict": ConflictFlow()}
