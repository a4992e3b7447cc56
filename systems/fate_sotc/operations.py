"""Sheet transitions exposed as registry operations (spec §4-§5): pure ``apply(sheet, params, settings)``.

Each returns a new :class:`FateSotcSheet` or raises RulesError; the Django layer writes the ledger
entry (the operation key is the ledger kind for fate point operations).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from systems.fate_sotc.aspects import Aspect, Origin, Persistence, expire_free_invocations
from systems.fate_sotc.consequences import (
    TAKEN_OUT,
    Consequence,
    Severity,
    after_new_adventure,
    after_rest,
    after_scene_close,
    at_back_to_back_session,
    next_consequence,
    severities,
)
from systems.fate_sotc.defeat import Status, demand_alternative_defeat
from systems.fate_sotc.errors import fate_error
from systems.fate_sotc.fate_points import (
    FpKind,
    activate_stunt,
    credit,
    credit_pending,
    refresh,
    release_pending,
    spend,
    spend_up_to,
)
from systems.fate_sotc.resolution import Track
from systems.fate_sotc.settings import DEFAULT_SETTINGS, FateSotcSettings
from systems.fate_sotc.sheet import FateSotcSheet, StressTracks, normalize_tracks
from systems.fate_sotc.stress import Marked, NeedConsequence, NoEffect, TakenOut, apply_hit, clear_track
from systems.registry import Names, Operation, Scope

Sheet = FateSotcSheet


def _cfg(settings: BaseModel | None) -> FateSotcSettings:
    return settings if isinstance(settings, FateSotcSettings) else DEFAULT_SETTINGS


class _Params(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# --- Stress and consequences ---


class TakeHitParams(_Params):
    track: Track
    hit: int = Field(ge=0, le=30)
    choose_consequence: bool = False  # the player opts to take a consequence instead of a box
    consequence_text: str | None = Field(default=None, min_length=1, max_length=120)
    scene_id: str | None = None
    exchange_no: int | None = None


def take_hit(sheet: Sheet, params: TakeHitParams, settings: BaseModel | None = None) -> Sheet:
    cfg = _cfg(settings)
    held = severities(sheet.consequences)
    severe_held = Severity.SEVERA in held
    result, boxes = apply_hit(sheet.stress.get(params.track), params.hit, params.choose_consequence, severe_held)
    if isinstance(result, NoEffect):
        return sheet
    if isinstance(result, Marked):
        update = {"health": boxes} if params.track is Track.HEALTH else {"composure": boxes}
        return sheet.model_copy(update={"stress": sheet.stress.model_copy(update=update)})
    if isinstance(result, TakenOut):
        return sheet.model_copy(update={"status": Status.TAKEN_OUT})
    assert isinstance(result, NeedConsequence)
    severity = next_consequence(held, cfg)
    if severity == TAKEN_OUT:
        return sheet.model_copy(update={"status": Status.TAKEN_OUT})
    if params.consequence_text is None:
        raise fate_error("consequence_required", severity=str(severity), voluntary=result.voluntary)
    consequence = Consequence(
        severity=Severity(severity),
        track=params.track,
        text=params.consequence_text,
        taken_in_scene=params.scene_id,
        exchange_no=params.exchange_no,
    )
    return sheet.model_copy(update={"consequences": (*sheet.consequences, consequence)})


class SeverityParams(_Params):
    severity: Severity


def remove_consequence(sheet: Sheet, params: SeverityParams, settings: BaseModel | None = None) -> Sheet:
    """GM removal (early recovery thanks to Ciencia or a stunt); frees the slot."""
    kept = tuple(c for c in sheet.consequences if c.severity is not params.severity)
    return sheet.model_copy(update={"consequences": kept})


class ClearStressParams(_Params):
    track: Track | None = None  # None: both tracks


def clear_stress(sheet: Sheet, params: ClearStressParams, settings: BaseModel | None = None) -> Sheet:
    health = clear_track(sheet.stress.health) if params.track in (None, Track.HEALTH) else sheet.stress.health
    composure = (
        clear_track(sheet.stress.composure) if params.track in (None, Track.COMPOSURE) else sheet.stress.composure
    )
    return sheet.model_copy(update={"stress": StressTracks(health=health, composure=composure)})


class CloseSceneParams(_Params):
    scene_id: str | None = None
    no_breather: bool = False  # the next scene follows without a pause: stress and mild ones stay
    keep_stress: bool = False  # "unless the GM says otherwise"


def close_scene(sheet: Sheet, params: CloseSceneParams, settings: BaseModel | None = None) -> Sheet:
    cfg = _cfg(settings)
    keep = params.no_breather or params.keep_stress or not cfg.clear_stress_on_scene_end
    stress = (
        sheet.stress
        if keep
        else StressTracks(health=clear_track(sheet.stress.health), composure=clear_track(sheet.stress.composure))
    )
    temporary = tuple(a for a in sheet.temporary_aspects if a.persists_past_scene)
    aspects = sheet.aspects
    if params.scene_id is not None:
        temporary = tuple(expire_free_invocations(a, params.scene_id) for a in temporary)
        aspects = tuple(expire_free_invocations(a, params.scene_id) for a in aspects)
    return sheet.model_copy(
        update={
            "stress": stress,
            "consequences": after_scene_close(sheet.consequences, params.no_breather),
            "temporary_aspects": temporary,
            "aspects": aspects,
        }
    )


class RestParams(_Params):
    hours: float = Field(ge=0, le=10000)
    suitable: bool  # the GM confirms the rest fits the consequence


def record_rest(sheet: Sheet, params: RestParams, settings: BaseModel | None = None) -> Sheet:
    return sheet.model_copy(
        update={"consequences": after_rest(sheet.consequences, params.hours, params.suitable, _cfg(settings))}
    )


class NoParams(_Params):
    pass


def new_adventure(sheet: Sheet, params: NoParams, settings: BaseModel | None = None) -> Sheet:
    return sheet.model_copy(update={"consequences": after_new_adventure(sheet.consequences)})


class StartSessionParams(_Params):
    back_to_back: bool = False
    refresh: bool = True  # the GM may withhold refresh (cliffhanger)


def start_session(sheet: Sheet, params: StartSessionParams, settings: BaseModel | None = None) -> Sheet:
    if params.back_to_back:
        sheet = sheet.model_copy(update={"consequences": at_back_to_back_session(sheet.consequences)})
    if params.refresh:
        sheet = sheet.with_wallet(refresh(sheet.wallet(), sheet.refresh_rate))
    return sheet


def grant_refresh(sheet: Sheet, params: NoParams, settings: BaseModel | None = None) -> Sheet:
    return sheet.with_wallet(refresh(sheet.wallet(), sheet.refresh_rate))


def release_pending_points(sheet: Sheet, params: NoParams, settings: BaseModel | None = None) -> Sheet:
    return sheet.with_wallet(release_pending(sheet.wallet()))


def demand_other_defeat(sheet: Sheet, params: NoParams, settings: BaseModel | None = None) -> Sheet:
    return sheet.with_wallet(demand_alternative_defeat(sheet.status, sheet.wallet()))


class StatusParams(_Params):
    status: Status


def set_status(sheet: Sheet, params: StatusParams, settings: BaseModel | None = None) -> Sheet:
    return sheet.model_copy(update={"status": params.status})


class StuntParams(_Params):
    stunt_index: int = Field(ge=0, lt=30)


def use_stunt(sheet: Sheet, params: StuntParams, settings: BaseModel | None = None) -> Sheet:
    if params.stunt_index >= len(sheet.stunts):
        raise fate_error("invalid_value", stunt_index=params.stunt_index)
    stunt = sheet.stunts[params.stunt_index]
    return sheet.with_wallet(activate_stunt(sheet.wallet(), stunt.fp_cost, stunt.approved))


class AddAspectParams(_Params):
    aspect: Aspect


def add_temporary_aspect(sheet: Sheet, params: AddAspectParams, settings: BaseModel | None = None) -> Sheet:
    return sheet.model_copy(update={"temporary_aspects": (*sheet.temporary_aspects, params.aspect)})


class PlaceAspectParams(_Params):
    """A temporary aspect the GM writes on a sheet by hand (a form's flat fields: its words and kind)."""

    text: str = Field(min_length=1, max_length=120)
    sticky: bool = False


def place_temporary_aspect(sheet: Sheet, params: PlaceAspectParams, settings: BaseModel | None = None) -> Sheet:
    """Add a temporary aspect from its words: a fresh id on the sheet, fragile unless sticky, no free
    invocation (those come from a maneuver, §4.5)."""
    taken = {a.id for a in sheet.temporary_aspects}
    number = next(n for n in range(1, len(taken) + 2) if f"temporal-{n}" not in taken)
    aspect = Aspect(
        id=f"temporal-{number}",
        text=params.text.strip(),
        origin=Origin.GM,
        persistence=Persistence.STICKY if params.sticky else Persistence.FRAGILE,
    )
    return sheet.model_copy(update={"temporary_aspects": (*sheet.temporary_aspects, aspect)})


class AspectIdParams(_Params):
    aspect_id: str


def remove_temporary_aspect(sheet: Sheet, params: AspectIdParams, settings: BaseModel | None = None) -> Sheet:
    kept = tuple(a for a in sheet.temporary_aspects if a.id != params.aspect_id)
    return sheet.model_copy(update={"temporary_aspects": kept})


class SetSkillParams(_Params):
    skill: str = Field(min_length=1, max_length=40)
    rating: int = Field(ge=-10, le=20)


def set_skill(sheet: Sheet, params: SetSkillParams, settings: BaseModel | None = None) -> Sheet:
    """GM-controlled advancement; the stress tracks follow Vigor/Coraje."""
    skills = {**sheet.skills, params.skill: params.rating}
    updated = FateSotcSheet.model_validate({**sheet.model_dump(), "skills": skills})
    return normalize_tracks(updated, _cfg(settings))


# --- Fate point movements, one operation per ledger kind (§4.1) ---


class FpParams(_Params):
    gm_approved: bool = False
    amount: int = Field(default=1, ge=1, le=10)  # a compel's stake, a blind-guess charge


_NEEDS_APPROVAL = {
    FpKind.INVOKE_OWN,
    FpKind.INVOKE_OTHER,
    FpKind.INVOKE_EFFECT_OWN,
    FpKind.INVOKE_EFFECT_OTHER,
    FpKind.DECLARATION,
    FpKind.USE_ENVIRONMENT,
}
_SPEND_ONE = (
    FpKind.FP_ADVANTAGE,
    FpKind.INVOKE_OWN,
    FpKind.INVOKE_OTHER,
    FpKind.INVOKE_EFFECT_OWN,
    FpKind.INVOKE_EFFECT_OTHER,
    FpKind.DECLARATION,
    FpKind.REFUSE_GM_GIFT,
    FpKind.AVOID_MANEUVER_ASPECT,
    FpKind.GUESS,
    FpKind.USE_ENVIRONMENT,
)
_EARN_ONE = (
    FpKind.OFFSCREEN_COMPEL,
    FpKind.ACCIDENTAL_COMPEL,
    FpKind.GM_FORESHADOW_GIFT,
    FpKind.CONCESSION_REWARD,
    FpKind.GUESS_REFUND,
    FpKind.DECEIVER_RETURNS_POINT,
)


def _spend_op(kind: FpKind, amount_param: bool = False) -> Callable[..., Sheet]:
    def apply(sheet: Sheet, params: FpParams, settings: BaseModel | None = None) -> Sheet:
        if kind is FpKind.FP_ADVANTAGE and not _cfg(settings).allow_fp_advantage:
            raise fate_error("fp_advantage_disabled")
        if kind in _NEEDS_APPROVAL and not params.gm_approved:
            raise fate_error("gm_approval_required")
        amount = params.amount if amount_param else 1
        if kind is FpKind.COMPEL_BUY_OFF and sheet.fate_points < amount:
            raise fate_error("compel_not_refusable", stake=amount, have=sheet.fate_points)
        return sheet.with_wallet(spend(sheet.wallet(), amount, kind))

    return apply


def _earn_op(kind: FpKind, amount_param: bool = False) -> Callable[..., Sheet]:
    def apply(sheet: Sheet, params: FpParams, settings: BaseModel | None = None) -> Sheet:
        return sheet.with_wallet(credit(sheet.wallet(), params.amount if amount_param else 1, kind))

    return apply


def concession_penalty(sheet: Sheet, params: FpParams, settings: BaseModel | None = None) -> Sheet:
    return sheet.with_wallet(spend_up_to(sheet.wallet(), 1, FpKind.CONCESSION_REFUSED_PENALTY))


def blind_guess_charge(sheet: Sheet, params: FpParams, settings: BaseModel | None = None) -> Sheet:
    return sheet.with_wallet(spend_up_to(sheet.wallet(), params.amount, FpKind.GM_BLIND_GUESS_CHARGE))


def tag_compensation(sheet: Sheet, params: FpParams, settings: BaseModel | None = None) -> Sheet:
    return sheet.with_wallet(credit_pending(sheet.wallet(), 1, FpKind.TAG_COMPENSATION))


_FP_NAMES: dict[FpKind, tuple[str, str]] = {
    FpKind.FP_ADVANTAGE: ("Ganar una ventaja (+1)", "Gain an advantage (+1)"),
    FpKind.INVOKE_OWN: ("Invocar un aspecto propio", "Invoke own aspect"),
    FpKind.INVOKE_OTHER: ("Invocar un aspecto ajeno", "Tag someone else's aspect"),
    FpKind.INVOKE_EFFECT_OWN: ("Provocar un efecto", "Invoke for effect"),
    FpKind.INVOKE_EFFECT_OTHER: ("Provocar un efecto con un aspecto ajeno", "Tag for effect"),
    FpKind.DECLARATION: ("Hacer una declaración", "Make a declaration"),
    FpKind.REFUSE_GM_GIFT: ("Rechazar el punto del DJ", "Refuse the GM's gift"),
    FpKind.AVOID_MANEUVER_ASPECT: ("Evitar el aspecto de una maniobra", "Avoid a maneuver aspect"),
    FpKind.GUESS: ("Adivinar un aspecto", "Guess an aspect"),
    FpKind.USE_ENVIRONMENT: ("Usar el ambiente", "Use the environment"),
    FpKind.COMPEL_BUY_OFF: ("Evitar un forzado", "Buy off a compel"),
    FpKind.COMPEL_ACCEPTED: ("Aceptar un forzado", "Accept a compel"),
    FpKind.OFFSCREEN_COMPEL: ("Forzado fuera de escena", "Off-screen compel"),
    FpKind.ACCIDENTAL_COMPEL: ("Forzado accidental", "Accidental compel"),
    FpKind.GM_FORESHADOW_GIFT: ("Punto de Destino del DJ", "GM foreshadowing gift"),
    FpKind.CONCESSION_REWARD: ("Premio por rendición razonable", "Concession reward"),
    FpKind.GUESS_REFUND: ("Devolución por adivinar", "Guess refund"),
    FpKind.DECEIVER_RETURNS_POINT: ("El engañador devuelve el punto", "Deceiver returns the point"),
    FpKind.CONCESSION_REFUSED_PENALTY: ("Rechazar una rendición razonable", "Refuse a reasonable concession"),
    FpKind.GM_BLIND_GUESS_CHARGE: ("Cargo por adivinar a ciegas", "Blind guessing charge"),
    FpKind.TAG_COMPENSATION: ("Compensación por invocación ajena", "Tag compensation"),
}


def _op(key: str, es: str, en: str, params: type[BaseModel], apply: Callable[..., Any]) -> Operation:
    return Operation(key=key, names=Names(es=es, en=en), target=Scope.CHARACTER, params_model=params, apply=apply)


def build_operations() -> tuple[Operation, ...]:
    ops = [
        _op("take_hit", "Recibir estrés", "Take a hit", TakeHitParams, take_hit),
        _op(
            "remove_consequence", "Quitar una consecuencia", "Remove a consequence", SeverityParams, remove_consequence
        ),
        _op("clear_stress", "Borrar el estrés", "Clear stress", ClearStressParams, clear_stress),
        _op("close_scene", "Cerrar la escena", "Close the scene", CloseSceneParams, close_scene),
        _op("record_rest", "Registrar un descanso", "Record a rest", RestParams, record_rest),
        _op("new_adventure", "Nueva aventura", "New adventure", NoParams, new_adventure),
        _op("start_session", "Empezar la sesión", "Start the session", StartSessionParams, start_session),
        _op("refresh", "Recuperar los puntos de Destino", "Refresh fate points", NoParams, grant_refresh),
        _op(
            "release_pending",
            "Liberar los PD pendientes",
            "Release pending fate points",
            NoParams,
            release_pending_points,
        ),
        _op(
            "defeat_outcome_demand",
            "Exigir otra derrota",
            "Demand a different defeat",
            NoParams,
            demand_other_defeat,
        ),
        _op("set_status", "Cambiar el estado", "Set status", StatusParams, set_status),
        _op("stunt_activation", "Activar una virtud", "Activate a stunt", StuntParams, use_stunt),
        _op(
            "add_temporary_aspect",
            "Añadir un aspecto temporal",
            "Add a temporary aspect",
            AddAspectParams,
            add_temporary_aspect,
        ),
        _op(
            "place_temporary_aspect",
            "Escribir un aspecto temporal",
            "Write a temporary aspect",
            PlaceAspectParams,
            place_temporary_aspect,
        ),
        _op(
            "remove_temporary_aspect",
            "Quitar un aspecto temporal",
            "Remove a temporary aspect",
            AspectIdParams,
            remove_temporary_aspect,
        ),
        _op("set_skill", "Cambiar una habilidad", "Set a skill", SetSkillParams, set_skill),
    ]
    for kind in _SPEND_ONE:
        ops.append(_op(kind.value, *_FP_NAMES[kind], FpParams, _spend_op(kind)))
    ops.append(
        _op(
            FpKind.COMPEL_BUY_OFF.value,
            *_FP_NAMES[FpKind.COMPEL_BUY_OFF],
            FpParams,
            _spend_op(FpKind.COMPEL_BUY_OFF, True),
        )
    )
    ops.append(
        _op(
            FpKind.COMPEL_ACCEPTED.value,
            *_FP_NAMES[FpKind.COMPEL_ACCEPTED],
            FpParams,
            _earn_op(FpKind.COMPEL_ACCEPTED, True),
        )
    )
    for kind in _EARN_ONE:
        ops.append(_op(kind.value, *_FP_NAMES[kind], FpParams, _earn_op(kind)))
    ops.append(
        _op(
            FpKind.CONCESSION_REFUSED_PENALTY.value,
            *_FP_NAMES[FpKind.CONCESSION_REFUSED_PENALTY],
            FpParams,
            concession_penalty,
        )
    )
    ops.append(
        _op(FpKind.GM_BLIND_GUESS_CHARGE.value, *_FP_NAMES[FpKind.GM_BLIND_GUESS_CHARGE], FpParams, blind_guess_charge)
    )
    ops.append(_op(FpKind.TAG_COMPENSATION.value, *_FP_NAMES[FpKind.TAG_COMPENSATION], FpParams, tag_compensation))
    return tuple(ops)
