"""Every state transition of sheets and the threat pool, as registry Operations (spec §4).

Each ``apply(table, params, settings)`` takes a :class:`~systems.presagios.table.Table` (threat plus
the characters involved) and returns a new one; the service layer writes one ledger entry per call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from systems.presagios import damage, points
from systems.presagios.points import Purpose, ThreatGainReason, Use
from systems.presagios.rejections import reject
from systems.presagios.settings import DEFAULT_SETTINGS, PresagiosSettings
from systems.presagios.sheet import CharKey, Kind, QualityKind
from systems.presagios.table import Table
from systems.presagios.threat import danger_cost
from systems.registry import Names, Operation, Scope


class _Params(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class SpendOvercomeParams(_Params):
    character_id: str
    use: Use
    note: str = ""  # A-AMB-21: free text for spends with no stated mechanics


class SpendThreatParams(_Params):
    use: Use
    for_character_id: str | None = None  # the secondary or monster the GM spends for
    note: str = ""


class ActivateQualityParams(_Params):
    activator_id: str | None = None  # None: the GM pays threat
    owner_id: str
    quality: QualityKind
    purpose: Purpose
    against_owner: bool  # declared by the activator, confirmed by the GM


class CharacterParams(_Params):
    character_id: str


class DeclareDangerParams(_Params):
    against_monster: bool = False


class OmenCheckParams(_Params):
    omens: int = Field(ge=0)
    threat_at_roll: int | None = Field(default=None, ge=0)  # None: the table's threat


class DamageParams(_Params):
    character_id: str
    characteristic: CharKey
    amount: int = Field(ge=0)
    protect: bool = False
    protection_threat: int | None = Field(default=None, ge=0)


class ThreatGainParams(_Params):
    reason: ThreatGainReason
    note: str = ""


class SetThreatParams(_Params):
    value: int = Field(ge=0)


class RestoreParams(_Params):
    character_id: str
    characteristic: CharKey
    amount: int = Field(ge=1)


class LockParams(_Params):
    character_id: str
    challenge_id: str


def _rules(settings: PresagiosSettings | None) -> PresagiosSettings:
    return DEFAULT_SETTINGS if settings is None else settings


def spend_overcome(table: Table, params: SpendOvercomeParams, settings: PresagiosSettings | None) -> Table:
    if table.character(params.character_id).kind is not Kind.PRINCIPAL:
        raise reject("NOT_A_PRINCIPAL", character_id=params.character_id)
    return points.pay(table, params.character_id, params.use, _rules(settings))


def spend_threat(table: Table, params: SpendThreatParams, settings: PresagiosSettings | None) -> Table:
    if params.use is Use.PROTECTION:
        points.check_protection_allowed(table, params.for_character_id, _rules(settings), None)
    return points.spend_threat(table)


def activate_quality(table: Table, params: ActivateQualityParams, settings: PresagiosSettings | None) -> Table:
    return points.activate_quality(
        table,
        params.activator_id,
        params.owner_id,
        params.quality,
        params.purpose,
        against_owner=params.against_owner,
    )


def award_roleplay(table: Table, params: CharacterParams, settings: PresagiosSettings | None) -> Table:
    return points.award_roleplay(table, params.character_id)


def declare_danger(table: Table, params: DeclareDangerParams, settings: PresagiosSettings | None) -> Table:
    cost = danger_cost(table.threat, _rules(settings), against_monster=params.against_monster)
    return table.with_threat(table.threat - cost)


def omen_check(table: Table, params: OmenCheckParams, settings: PresagiosSettings | None) -> Table:
    at = table.threat if params.threat_at_roll is None else params.threat_at_roll
    return points.apply_omen_check(table, params.omens, _rules(settings), at)


def apply_damage(table: Table, params: DamageParams, settings: PresagiosSettings | None) -> Table:
    new_table, _ = damage.apply_damage(
        table,
        params.character_id,
        params.characteristic,
        params.amount,
        _rules(settings),
        protect=params.protect,
        protection_threat=params.protection_threat,
    )
    return new_table


def confirm_threat_gain(table: Table, params: ThreatGainParams, settings: PresagiosSettings | None) -> Table:
    return points.confirm_threat_gain(table, params.reason)


def set_threat(table: Table, params: SetThreatParams, settings: PresagiosSettings | None) -> Table:
    return points.set_threat(table, params.value)


def restore_characteristic(table: Table, params: RestoreParams, settings: PresagiosSettings | None) -> Table:
    return damage.restore_characteristic(table, params.character_id, params.characteristic, params.amount)


def lock_challenge(table: Table, params: LockParams, settings: PresagiosSettings | None) -> Table:
    sheet = table.character(params.character_id)
    locks = sheet.challenge_locks | {params.challenge_id}
    return table.with_character(params.character_id, sheet.model_copy(update={"challenge_locks": locks}))


def _op(key: str, es: str, en: str, params: type[BaseModel], apply: Callable[..., Any]) -> Operation:
    return Operation(key=key, names=Names(es=es, en=en), target=Scope.CAMPAIGN, params_model=params, apply=apply)


OPERATIONS: tuple[Operation, ...] = (
    _op("spend_overcome", "Gastar punto de superación", "Spend an overcome point", SpendOvercomeParams, spend_overcome),
    _op("spend_threat", "Gastar punto de amenaza", "Spend a threat point", SpendThreatParams, spend_threat),
    _op("activate_quality", "Activar una cualidad", "Activate a quality", ActivateQualityParams, activate_quality),
    _op("award_roleplay", "Interpretación destacada", "Outstanding roleplay", CharacterParams, award_roleplay),
    _op("declare_danger", "Declarar peligroso", "Declare dangerous", DeclareDangerParams, declare_danger),
    _op("omen_check", "Comprobación de presagios", "Omen check", OmenCheckParams, omen_check),
    _op("apply_damage", "Aplicar daño", "Apply damage", DamageParams, apply_damage),
    _op(
        "confirm_threat_gain",
        "Confirmar aumento de amenaza",
        "Confirm a threat gain",
        ThreatGainParams,
        confirm_threat_gain,
    ),
    _op("set_threat", "Fijar la amenaza inicial", "Set the starting threat", SetThreatParams, set_threat),
    _op(
        "restore_characteristic",
        "Recuperar característica",
        "Restore a characteristic",
        RestoreParams,
        restore_characteristic,
    ),
    _op("lock_challenge", "Bloquear reto fallido", "Lock a failed challenge", LockParams, lock_challenge),
)
