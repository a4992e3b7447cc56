"""The operation catalogue: every sheet, pool and conflict transition, for generic endpoints.

Each ``apply(state, params, settings, dice=None)`` is pure and returns the new state. States:
``Sheet`` (character ops), ``PcAndChest`` (hope spent on one PC), ``Chest`` (session open),
``Party`` (session close) and ``conflict.Table`` (conflict steps; the rolling steps need ``dice``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from systems.dice import DiceSource
from systems.dont_rest_your_head import coins, conflict, crash, scars, settlement
from systems.dont_rest_your_head.coins import BreatherUse, Chest, HopeUse
from systems.dont_rest_your_head.pain import combined_pain
from systems.dont_rest_your_head.refusals import refuse
from systems.dont_rest_your_head.roll import HelperRollRequest, LeaderRollRequest
from systems.dont_rest_your_head.settings import DEFAULT_SETTINGS, Settings
from systems.dont_rest_your_head.sheet import Sheet
from systems.registry import Names, Operation, Scope

_FROZEN = ConfigDict(frozen=True, extra="forbid")


@dataclass(frozen=True)
class PcAndChest:
    sheet: Sheet
    chest: Chest


@dataclass(frozen=True)
class Party:
    chest: Chest
    sheets: Mapping[str, Sheet] = field(default_factory=dict)


class NoParams(BaseModel):
    model_config = _FROZEN


class CreateScarParams(BaseModel):
    model_config = _FROZEN
    text: str = Field(min_length=1, max_length=500)
    session: int = Field(ge=0)
    gm_approves: bool = False


class TransformScarParams(BaseModel):
    model_config = _FROZEN
    scar_index: int = Field(ge=0)
    benefit: scars.TransformBenefit
    gm_confirms: bool = False


class CrashDisasterParams(BaseModel):
    model_config = _FROZEN
    gm_agrees: bool = False
    player_agrees: bool = False


class EndSceneParams(BaseModel):
    model_config = _FROZEN
    scene_id: str


class BreatherParams(BaseModel):
    model_config = _FROZEN
    uses: tuple[BreatherUse, ...] = Field(min_length=1)
    gm_allows: bool = False
    in_conflict: bool = False


class RecoverParams(BaseModel):
    model_config = _FROZEN
    gm_confirms: bool = False
    in_conflict: bool = False


class CloseSessionParams(BaseModel):
    model_config = _FROZEN
    spends: dict[str, tuple[HopeUse, ...]] = {}
    open_conflicts: int = Field(0, ge=0)


class OpposeParams(BaseModel):
    """Either ``pain`` ("fijar") or ``opponents`` (their pain scores, "calcular")."""

    model_config = _FROZEN
    pain: int | None = Field(None, ge=-99, le=99)
    opponents: tuple[int, ...] = ()
    madness_price: int | None = Field(None, ge=1, le=6)


class RollLeaderParams(BaseModel):
    model_config = _FROZEN
    pc: str
    request: LeaderRollRequest = LeaderRollRequest()


class RollHelperParams(BaseModel):
    model_config = _FROZEN
    pc: str
    request: HelperRollRequest = HelperRollRequest()


class PcParams(BaseModel):
    model_config = _FROZEN
    pc: str


class PickLeaderParams(BaseModel):
    model_config = _FROZEN
    gm_choice: str | None = None


class MinorUseParams(BaseModel):
    model_config = _FROZEN
    by_pc: str
    gm_confirms: bool = False


class SpendHopeParams(BaseModel):
    model_config = _FROZEN
    by_pc: str
    coins: int = Field(1, ge=1, le=20)


class ShadeParams(BaseModel):
    model_config = _FROZEN
    kind: Literal["add6", "remove6"]
    pool: str  # checked by the rule, so helper dice get POOL_NOT_IN_PLAY


class InvokeScarParams(BaseModel):
    model_config = _FROZEN
    by_pc: str
    scar_index: int = Field(ge=0)
    pool: str
    gm_confirms: bool = False


class PassParams(BaseModel):
    model_config = _FROZEN
    side: Literal["player", "gm"]


class ResolveParams(BaseModel):
    model_config = _FROZEN
    player_notified_and_timed_out: bool = False


def _settings(settings: Settings | None) -> Settings:
    return settings if settings is not None else DEFAULT_SETTINGS


def _dice(dice: DiceSource | None) -> DiceSource:
    if dice is None:
        raise TypeError("this operation rolls dice: pass dice=")
    return dice


def end_scene(sheet: Sheet, scene_id: str) -> Sheet:
    """Scene-scoped talent swaps end; the snap episode lasts at least the rest of its scene (S)."""
    swaps = tuple(s for s in sheet.talent_swaps if not (s.scope == "scene" and s.scene_id == scene_id))
    return sheet.model_copy(update={"talent_swaps": swaps, "snap_episode": False, "snap_scene_id": None})


def _oppose(t: conflict.Table, p: OpposeParams, s: Settings | None, dice: Any = None) -> conflict.Table:
    if p.opponents:
        pain = combined_pain(p.opponents)
    elif p.pain is not None:
        pain = p.pain
    else:
        refuse("PAIN_RANGE", pain=None)
    return conflict.replace(t, conflict=conflict.oppose(t.conflict, pain, p.madness_price))


def _start(t: conflict.Table, p: NoParams, s: Settings | None, dice: Any = None) -> conflict.Table:
    return conflict.replace(t, conflict=conflict.start_rolls(t.conflict))


def _op(
    key: str, es: str, en: str, target: Scope, params: type[BaseModel] | None, apply: Callable[..., Any]
) -> Operation:
    return Operation(key=key, names=Names(es=es, en=en), target=target, params_model=params, apply=apply)


C, P = Scope.CHARACTER, Scope.CAMPAIGN

OPERATIONS: tuple[Operation, ...] = (
    # --- one sheet ---
    _op(
        "create_scar",
        "Crear cicatriz",
        "Create a scar",
        C,
        CreateScarParams,
        lambda st, p, s=None, dice=None: scars.create_scar(st, p.text, p.session, p.gm_approves),
    ),
    _op(
        "transform_scar",
        "Transformar cicatriz",
        "Transform a scar",
        C,
        TransformScarParams,
        lambda st, p, s=None, dice=None: scars.transform_scar(st, p.scar_index, p.benefit, p.gm_confirms, _settings(s)),
    ),
    _op(
        "carry_out_crash",
        "Colapsar (dormirse)",
        "Carry out the crash (fall asleep)",
        C,
        NoParams,
        lambda st, p, s=None, dice=None: crash.carry_out_crash(st),
    ),
    _op(
        "crash_disaster",
        "Colapso: desastre en lugar de sueño",
        "Crash: disaster instead of sleep",
        C,
        CrashDisasterParams,
        lambda st, p, s=None, dice=None: crash.crash_disaster(st, p.gm_agrees, p.player_agrees),
    ),
    _op("wake_up", "Despertar", "Wake up", C, NoParams, lambda st, p, s=None, dice=None: crash.wake_up(st)),
    _op(
        "complete_recovery",
        "Recuperación completa",
        "Complete the recovery",
        C,
        NoParams,
        lambda st, p, s=None, dice=None: crash.complete_recovery(st),
    ),
    _op(
        "end_scene",
        "Fin de escena",
        "End of scene",
        C,
        EndSceneParams,
        lambda st, p, s=None, dice=None: end_scene(st, p.scene_id),
    ),
    # --- one sheet and the hope chest ---
    _op(
        "take_breather",
        "Tomarse un respiro",
        "Take a breather",
        C,
        BreatherParams,
        lambda st, p, s=None, dice=None: PcAndChest(
            *coins.take_breather(st.sheet, st.chest, p.uses, p.gm_allows, p.in_conflict, _settings(s))
        ),
    ),
    _op(
        "recover_discipline",
        "Recuperar disciplina",
        "Recover discipline",
        C,
        RecoverParams,
        lambda st, p, s=None, dice=None: PcAndChest(
            *coins.recover_discipline(st.sheet, st.chest, p.gm_confirms, p.in_conflict, _settings(s))
        ),
    ),
    # --- the chests and the session ---
    _op(
        "open_session",
        "Abrir sesión",
        "Open the session",
        P,
        NoParams,
        lambda st, p, s=None, dice=None: coins.open_session(st, _settings(s)),
    ),
    _op(
        "close_session",
        "Cerrar sesión (reparto de esperanza)",
        "Close the session (hope distribution)",
        P,
        CloseSessionParams,
        lambda st, p, s=None, dice=None: Party(
            *coins.close_session(st.chest, st.sheets, p.spends, p.open_conflicts, _settings(s))
        ),
    ),
    # --- conflict steps (state: conflict.Table) ---
    _op("conflict_oppose", "Fijar oposición y dolor", "Set opposition and pain", P, OpposeParams, _oppose),
    _op("conflict_start_rolls", "Abrir tiradas", "Open the rolls", P, NoParams, _start),
    _op(
        "conflict_roll_leader",
        "Tirada del protagonista",
        "Leader's roll",
        P,
        RollLeaderParams,
        lambda st, p, s=None, dice=None: conflict.roll_leader(st, p.pc, p.request, _dice(dice), _settings(s)),
    ),
    _op(
        "conflict_roll_helper",
        "Tirada de ayuda",
        "Helper's roll",
        P,
        RollHelperParams,
        lambda st, p, s=None, dice=None: conflict.roll_helper(st, p.pc, p.request, _dice(dice)),
    ),
    _op(
        "conflict_roll_pain",
        "Tirada de dolor",
        "Pain roll",
        P,
        NoParams,
        lambda st, p, s=None, dice=None: conflict.roll_pain(st, _dice(dice)),
    ),
    _op(
        "conflict_drop_helper",
        "Retirar ayudante",
        "Drop a helper",
        P,
        PcParams,
        lambda st, p, s=None, dice=None: conflict.drop_helper(st, p.pc),
    ),
    _op(
        "conflict_void",
        "Anular conflicto",
        "Void the conflict",
        P,
        NoParams,
        lambda st, p, s=None, dice=None: conflict.void(st),
    ),
    _op(
        "conflict_pick_leader",
        "Elegir protagonista principal",
        "Pick the leader",
        P,
        PickLeaderParams,
        lambda st, p, s=None, dice=None: conflict.pick_leader(st, p.gm_choice),
    ),
    _op(
        "conflict_minor_use",
        "Uso menor del talento",
        "Minor talent use",
        P,
        MinorUseParams,
        lambda st, p, s=None, dice=None: conflict.declare_minor_use(st, p.by_pc, p.gm_confirms),
    ),
    _op(
        "conflict_spend_hope",
        "Mejorar los éxitos (iluminar)",
        "Improve successes (shine)",
        P,
        SpendHopeParams,
        lambda st, p, s=None, dice=None: conflict.spend_hope(st, p.by_pc, p.coins),
    ),
    _op(
        "conflict_shade",
        "Ensombrecer",
        "Shade",
        P,
        ShadeParams,
        lambda st, p, s=None, dice=None: conflict.shade(st, p.kind, p.pool),
    ),
    _op(
        "conflict_invoke_scar",
        "Invocar cicatriz",
        "Invoke a scar",
        P,
        InvokeScarParams,
        lambda st, p, s=None, dice=None: conflict.invoke_scar(
            st, p.by_pc, p.scar_index, p.pool, p.gm_confirms, _dice(dice)
        ),
    ),
    _op(
        "conflict_pass", "Pasar", "Pass", P, PassParams, lambda st, p, s=None, dice=None: conflict.pass_turn(st, p.side)
    ),
    _op(
        "conflict_resolve",
        "Resolver",
        "Resolve",
        P,
        ResolveParams,
        lambda st, p, s=None, dice=None: conflict.gm_resolve(st, p.player_notified_and_timed_out),
    ),
    _op(
        "conflict_settle",
        "Aplicar efectos y cerrar",
        "Settle and close",
        P,
        settlement.SettlementChoices,
        lambda st, p, s=None, dice=None: settlement.settle(st, p, _settings(s)),
    ),
)

# Operations whose ``apply`` needs a dice source.
ROLLING_OPERATIONS = frozenset(
    {"conflict_roll_leader", "conflict_roll_helper", "conflict_roll_pain", "conflict_invoke_scar"}
)
