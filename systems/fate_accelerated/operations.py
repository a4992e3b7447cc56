"""The named state transitions a service exposes generically (one endpoint + one ledger entry each)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from systems.errors import RulesError
from systems.fate_accelerated import consequences, fate_points, scenes, stress
from systems.fate_accelerated.aspects import Moment, Severity
from systems.fate_accelerated.consequences import TimeEvent, TimeEventKind
from systems.fate_accelerated.settings import FaeSettings
from systems.fate_accelerated.sheet import FaeSheet
from systems.fate_accelerated.stunts import use_once_per_session
from systems.registry import Names, Operation, Scope


class _Params(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class NoParams(_Params):
    pass


class AmountParams(_Params):
    amount: int = Field(1, ge=1, le=50)


class AdjustParams(_Params):
    delta: int = Field(ge=-50, le=50)


class AbsorbHitParams(_Params):
    owner: str
    attacker: str
    shifts: int = Field(ge=1, le=50)
    box: int | None = Field(None, ge=1, le=3)
    slots: tuple[Severity, ...] = ()
    texts: dict[Severity, str] = {}
    moment: Moment | None = None
    source: str | None = None
    # The same texts as flat fields, one per slot, for a plain form (no JSON to build): folded into ``texts``.
    text_mild: str = Field("", max_length=200)
    text_moderate: str = Field("", max_length=200)
    text_severe: str = Field("", max_length=200)

    @model_validator(mode="before")
    @classmethod
    def _fold_flat_texts(cls, data: Any) -> Any:
        if not isinstance(data, dict) or not any(f"text_{s.value}" in data for s in Severity):
            return data
        data = dict(data)
        texts = dict(data.get("texts") or {})
        for severity in Severity:
            text = data.pop(f"text_{severity.value}", "")
            if isinstance(text, str) and text.strip():
                texts.setdefault(severity.value, text.strip())
        return {**data, "texts": texts}


class ConcedeParams(_Params):
    character: str
    conflict: str
    opposing_roll_pending: bool = False


class RecoverParams(_Params):
    severity: Severity
    event: TimeEventKind
    adventure: int = Field(ge=0)
    session: int = Field(ge=0)
    scene: int = Field(ge=0)
    justification: str = Field(min_length=1, max_length=2000)
    gm_confirms: bool
    rest_available: bool = False


class RenameParams(_Params):
    severity: Severity
    new_text: str = Field(min_length=1, max_length=200)


class UseStuntParams(_Params):
    stunt: str
    session: int = Field(ge=0)


class GmPool(BaseModel):
    """[P] §6.7.4 the GM's fate points, when ``gm_fate_point_pool`` is on."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    fate_points: int = Field(0, ge=0)


class SceneStartParams(_Params):
    pcs_in_scene: int = Field(ge=0, le=50)
    carried_in: int = Field(0, ge=0, le=50)


def _refuse_compel(sheet: FaeSheet, p: NoParams, s: FaeSettings | None) -> FaeSheet:
    if sheet.fate_points < 1:
        raise RulesError(
            "cannot_refuse_compel",
            "Sin puntos de destino no puedes rechazar un forzado.",
            "With no fate points you cannot refuse a compel.",
        )
    return fate_points.spend_fate_point(sheet)


def _absorb(sheet: FaeSheet, p: AbsorbHitParams, s: FaeSettings | None) -> FaeSheet:
    return stress.apply_hit(
        sheet,
        p.owner,
        p.attacker,
        p.shifts,
        boxes=() if p.box is None else (p.box,),
        slots=p.slots,
        texts=p.texts,
        moment=p.moment,
        source=p.source,
        settings=s,
    ).sheet


def _recover(sheet: FaeSheet, p: RecoverParams, s: FaeSettings | None) -> FaeSheet:
    event = TimeEvent(p.event, p.adventure, p.session, p.scene)
    return consequences.recover_consequence(
        sheet,
        p.severity,
        event,
        justification=p.justification,
        gm_confirms=p.gm_confirms,
        rest_available=p.rest_available,
    )


def _use_stunt(sheet: FaeSheet, p: UseStuntParams, s: FaeSettings | None) -> FaeSheet:
    used = use_once_per_session(sheet.stunt(p.stunt), p.session)
    return sheet.with_changes(stunts=tuple(used if x.key == used.key else x for x in sheet.stunts))


def _gm_pool_enabled(s: FaeSettings | None) -> None:
    if s is None or not s.gm_fate_point_pool:
        raise RulesError(
            "gm_pool_disabled",
            "Esta campaña no usa reserva de puntos de destino del DJ.",
            "This campaign does not use a GM fate point pool.",
        )


def _gm_spend(pool: GmPool, p: AmountParams, s: FaeSettings | None) -> GmPool:
    _gm_pool_enabled(s)
    if pool.fate_points < p.amount:
        raise RulesError(
            "gm_pool_empty",
            "La reserva del DJ no tiene puntos de destino suficientes.",
            "The GM pool does not have enough fate points.",
        )
    return GmPool(fate_points=pool.fate_points - p.amount)


def _gm_gain(pool: GmPool, p: AmountParams, s: FaeSettings | None) -> GmPool:
    _gm_pool_enabled(s)
    return GmPool(fate_points=pool.fate_points + p.amount)


def _gm_scene_start(pool: GmPool, p: SceneStartParams, s: FaeSettings | None) -> GmPool:
    _gm_pool_enabled(s)
    return GmPool(fate_points=scenes.gm_pool_at_scene_start(p.pcs_in_scene, p.carried_in))


def _op(key: str, es: str, en: str, params: type[BaseModel], apply: Callable[..., Any], target: Scope) -> Operation:
    return Operation(key=key, names=Names(es, en), target=target, params_model=params, apply=apply)


C, G = Scope.CHARACTER, Scope.CAMPAIGN

OPERATIONS: tuple[Operation, ...] = (
    _op(
        "spend_fate_point",
        "Gastar punto de destino",
        "Spend a fate point",
        AmountParams,
        lambda st, p, s: fate_points.spend_fate_point(st, p.amount),
        C,
    ),
    _op(
        "gain_fate_point",
        "Ganar punto de destino",
        "Gain a fate point",
        AmountParams,
        lambda st, p, s: fate_points.gain_fate_points(st, p.amount),
        C,
    ),
    _op(
        "adjust_fate_points",
        "Ajuste del DJ (puntos de destino)",
        "GM fate point adjustment",
        AdjustParams,
        lambda st, p, s: fate_points.adjust_fate_points(st, p.delta),
        C,
    ),
    _op(
        "refresh_fate_points",
        "Recuperación (puntos de destino)",
        "Refresh fate points",
        NoParams,
        lambda st, p, s: fate_points.refresh_fate_points(st),
        C,
    ),
    _op(
        "fund_compel_offer",
        "Pagar la oferta de un forzado",
        "Pay a compel offer",
        NoParams,
        lambda st, p, s: fate_points.spend_fate_point(st),
        C,
    ),
    _op(
        "accept_compel",
        "Aceptar un forzado",
        "Accept a compel",
        NoParams,
        lambda st, p, s: fate_points.gain_fate_points(st),
        C,
    ),
    _op("refuse_compel", "Rechazar un forzado", "Refuse a compel", NoParams, _refuse_compel, C),
    _op(
        "absorb_hit",
        "Absorber daño (estrés y consecuencias)",
        "Absorb a hit (stress and consequences)",
        AbsorbHitParams,
        _absorb,
        C,
    ),
    _op("take_out", "Quedar derrotado", "Be taken out", NoParams, lambda st, p, s: stress.take_out(st), C),
    _op(
        "concede",
        "Rendirse",
        "Concede",
        ConcedeParams,
        lambda st, p, s: (
            fate_points.concede(st, p.character, p.conflict, opposing_rolls_pending=(p.opposing_roll_pending,)).sheet
        ),
        C,
    ),
    _op(
        "recover_consequence",
        "Recuperarse de una consecuencia",
        "Recover from a consequence",
        RecoverParams,
        _recover,
        C,
    ),
    _op(
        "rename_consequence",
        "Cambiar el nombre de una consecuencia",
        "Rename a consequence",
        RenameParams,
        lambda st, p, s: consequences.rename_consequence(st, p.severity, p.new_text, s),
        C,
    ),
    _op(
        "use_stunt",
        "Usar una proeza (una vez por partida)",
        "Use a once-per-session stunt",
        UseStuntParams,
        _use_stunt,
        C,
    ),
    _op("end_scene", "Fin de escena", "End of scene", NoParams, lambda st, p, s: scenes.end_scene(st), C),
    _op("start_scene", "Inicio de escena", "Start of scene", NoParams, lambda st, p, s: scenes.start_scene(st, s), C),
    _op(
        "start_session",
        "Inicio de sesión",
        "Start of session",
        NoParams,
        lambda st, p, s: scenes.start_session(st, s),
        C,
    ),
    _op(
        "gm_pool_scene_start",
        "Reserva del DJ al empezar la escena",
        "GM pool at scene start",
        SceneStartParams,
        _gm_scene_start,
        G,
    ),
    _op("gm_pool_spend", "El DJ gasta un punto de destino", "GM spends a fate point", AmountParams, _gm_spend, G),
    _op("gm_pool_gain", "El DJ gana un punto de destino", "GM gains a fate point", AmountParams, _gm_gain, G),
)
