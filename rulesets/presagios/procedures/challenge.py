"""The challenge (reto, spec §3.2 and §5.1) as a step table around the pure ``systems.presagios.challenge``.

The GM opens it with a sealed difficulty; the character's player rolls (the GMs for an NPC), naming traits
the GM judges; the outcome is only «Éxito» or «Fallo»; a failure may be retried for a point, anyone may
activate a quality to force the outcome, the GM finalizes; a dangerous failure deals damage, with script
protection; a character out of the story leaves the GM the +1 threat question.

The difficulty and the threat each roll was judged at are the secret (GMs only); the state keeps the pure
machine with those fields blanked.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Literal

from django.utils.text import slugify
from django.utils.translation import get_language, gettext_lazy, ngettext
from django.utils.translation import gettext as _
from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, field_serializer, field_validator

from campaigns import policy
from rulesets.kit.procedures import (
    Choice,
    LedgerOp,
    NoParams,
    Opening,
    OpeningInput,
    Outcome,
    Procedure,
    RecordLine,
    Step,
    StepInput,
)
from rulesets.kit.rolls import RollSpec
from rulesets.kit.table import GM, Actor, Reads, Table, in_both
from rulesets.presagios.procedures import common as c
from rulesets.presagios.procedures.common import (
    DamageParams,
    ForceParams,
    JudgeParams,
    PendingDamage,
    RollParams,
    ThreatGain,
    ThreatGainParams,
    line,
)
from systems.dice import ScriptedDice
from systems.presagios import challenge as ch
from systems.presagios.damage import challenge_damage
from systems.presagios.qualities import Force
from systems.presagios.sheet import CharKey, Kind
from systems.presagios.table import Table as RulesTable
from systems.presagios.traits import chosen_trait
from systems.registry import Names

Stage = ch.ChallengeStage


class ChallengeOpen(BaseModel):
    model_config = ConfigDict(extra="forbid")

    character_id: int
    characteristic: CharKey
    difficulty: int  # sealed: only the secret keeps it
    tool_dice: int = 0
    dangerous: bool = False
    challenge: str = Field("", max_length=100)  # the same name for the same challenge: a failure locks it


class ChallengeState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = ""
    character_id: int
    character_name: str
    characteristic: Names
    roller: Actor  # the character's player, or the GMs for an NPC
    players: list[int]  # who may activate a quality with their main character's points
    locked: bool = False  # the character already failed this challenge: rolling fails unless a retry is paid
    discards_damage: bool = True  # A-AMB-14: a retry discards the failed roll's pending damage
    machine: ch.ChallengeFlow  # the difficulty and each roll's threat and omen check blanked (the secret)
    roll_ids: list[int | None] = Field(default_factory=list)
    outcome: Literal["success", "failure"] | None = None
    damage_by: Actor | None = None
    threat_gain: ThreatGain | None = None

    # The secret fields never enter the stored state (an API client reads it): dropped when dumped, blank
    # when loaded; ``_join`` puts the secret back for the step.
    @field_serializer("machine", mode="wrap")
    def _without_secret(self, machine: ch.ChallengeFlow, dump: SerializerFunctionWrapHandler) -> Any:
        data = dump(machine)
        data.pop("difficulty", None)
        for attempt in data.get("attempts", []):
            attempt.pop("threat_at_roll", None)
            attempt.pop("omen_hit", None)
        return data

    @field_validator("machine", mode="before")
    @classmethod
    def _blank_secret(cls, value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        attempts = [{**a, "threat_at_roll": 0, "omen_hit": False} for a in value.get("attempts", [])]
        return {**value, "difficulty": 0, "attempts": attempts}


class ChallengeSecret(BaseModel):
    model_config = ConfigDict(extra="forbid")

    difficulty: int
    threat_at_roll: list[int] = Field(default_factory=list)
    omen_hit: list[bool] = Field(default_factory=list)


# --- The machine: public state + secret -------------------------------------------------------------


def _join(state: ChallengeState, secret: BaseModel | None) -> ch.ChallengeFlow:
    assert isinstance(secret, ChallengeSecret)
    attempts = tuple(
        replace(a, threat_at_roll=t, omen_hit=h)
        for a, t, h in zip(state.machine.attempts, secret.threat_at_roll, secret.omen_hit, strict=True)
    )
    return replace(state.machine, difficulty=secret.difficulty, attempts=attempts)


def _split(machine: ch.ChallengeFlow) -> tuple[ch.ChallengeFlow, ChallengeSecret]:
    public = replace(
        machine, difficulty=0, attempts=tuple(replace(a, threat_at_roll=0, omen_hit=False) for a in machine.attempts)
    )
    secret = ChallengeSecret(
        difficulty=machine.difficulty,
        threat_at_roll=[a.threat_at_roll for a in machine.attempts],
        omen_hit=[a.omen_hit for a in machine.attempts],
    )
    return public, secret


def _early_damage(state: ChallengeState) -> bool:
    """A-AMB-14's alternative: a failed dangerous roll's damage is settled before any retry."""
    m = state.machine
    if m.stage is not Stage.RESPONSE or not m.attempts or state.discards_damage or not m.dangerous:
        return False
    last = m.attempts[-1]
    return last.success is False and last.forced is None and not last.damage_settled


# --- Who, by the rules ------------------------------------------------------------------------------


def _at(state: ChallengeState, *stages: Stage) -> bool:
    return state.threat_gain is None and state.machine.stage in stages


def _who_roll(s: ChallengeState) -> set[Actor]:
    return {s.roller} if _at(s, Stage.AWAITING_ROLL) else set()


def _who_retry(s: ChallengeState) -> set[Actor]:
    m = s.machine
    if _at(s, Stage.AWAITING_ROLL):
        return {s.roller} if s.locked and not m.retry_paid else set()
    if _at(s, Stage.RESPONSE) and not _early_damage(s):
        last = m.attempts[-1]
        return {s.roller} if last.success is False and last.forced is None else set()
    return set()


def _who_before_dice(s: ChallengeState) -> set[Actor]:
    return {GM} if _at(s, Stage.AWAITING_ROLL) else set()


def _who_declare(s: ChallengeState) -> set[Actor]:
    return {GM} if _at(s, Stage.AWAITING_ROLL) and not s.machine.dangerous and not s.machine.attempts else set()


def _who_judge(s: ChallengeState) -> set[Actor]:
    return {GM} if _at(s, Stage.ROLLED) else set()


def _who_force(s: ChallengeState) -> set[Actor]:
    if _at(s, Stage.RESPONSE) and s.machine.attempts[-1].forced is None:
        return {GM, *s.players}
    return set()


def _who_finalize(s: ChallengeState) -> set[Actor]:
    return {GM} if _at(s, Stage.RESPONSE) else set()


def _who_damage(s: ChallengeState) -> set[Actor]:
    due = _at(s, Stage.DAMAGE_PENDING) or (s.threat_gain is None and _early_damage(s))
    return {s.damage_by or GM} if due else set()


def _who_threat_gain(s: ChallengeState) -> set[Actor]:
    return {GM} if s.threat_gain is not None else set()


# --- Shared ends of every step ----------------------------------------------------------------------


def _pending(machine: ch.ChallengeFlow) -> PendingDamage:
    last = machine.last
    return PendingDamage(
        target=int(machine.character_id),
        characteristic=machine.characteristic,
        amount=challenge_damage(last.omens),
        threat_at_roll=last.threat_at_roll,
        reason="Reto peligroso",
    )


def _settle(
    state: ChallengeState, machine: ch.ChallengeFlow, rt: RulesTable, table: Table, protect: bool
) -> tuple[ch.ChallengeFlow, RulesTable, LedgerOp, RecordLine, ThreatGain | None]:
    rules = c.rules_of(table)
    damage = _pending(machine)
    before = rt.character(machine.character_id).current_of(machine.characteristic)
    machine, rt = ch.settle_damage(machine, rt, rules, protect=protect)
    outcome = machine.damage[-1]
    character = table.character(state.character_id)
    words = c.damage_line(outcome, character.name, before, table)
    return machine, rt, c.damage_op(damage, protect, rules), words, c.pending_threat_gain(outcome, character)


def _finish(
    state: ChallengeState,
    machine: ch.ChallengeFlow,
    rt: RulesTable,
    table: Table,
    ledger: list[LedgerOp],
    record: list[RecordLine],
) -> Outcome[ChallengeState]:
    """After every step: damage nobody may choose to avoid is settled at once; then who chooses the next
    damage, the outcome so far, and whether the procedure closes."""
    rules = c.rules_of(table)
    gain = state.threat_gain
    if machine.stage is Stage.DAMAGE_PENDING and c.damage_chooser(rt, _pending(machine), rules, state.roller) is None:
        machine, rt, op, words, gain = _settle(state, machine, rt, table, False)
        ledger, record = [*ledger, op], [*record, words]
    damage_by = None
    if machine.stage in (Stage.DAMAGE_PENDING, Stage.RESPONSE) and machine.attempts and machine.last.success is False:
        damage_by = c.damage_chooser(rt, _pending(machine), rules, state.roller)
    last = machine.attempts[-1] if machine.attempts else None
    outcome = None if last is None or last.success is None else ("success" if last.success else "failure")
    public, secret = _split(machine)
    new = state.model_copy(
        update={
            "machine": public,
            "outcome": outcome,
            "damage_by": damage_by,
            "threat_gain": gain,
            "players": c.players(table),  # a player who joined since may activate qualities too
        }
    )
    closes = None
    if machine.stage is Stage.CANCELLED:
        closes = "cancelled"
    elif machine.stage is Stage.CLOSED and gain is None:
        closes = "settled"
    return Outcome(state=new, secret=secret, closes=closes, ledger=ledger, record=record)  # type: ignore[arg-type]


def _begin(given: StepInput[ChallengeState, Any]) -> tuple[ch.ChallengeFlow, RulesTable]:
    return _join(given.state, given.secret), c.rules_table(given.table, [given.state.character_id])


def _published(
    state: ChallengeState, machine: ch.ChallengeFlow, rt: RulesTable, table: Table, trait: str
) -> tuple[list[LedgerOp], list[RecordLine]]:
    """The outcome is out: «Resultado 7: Éxito», the omen check through the ledger and in words."""
    last = machine.last
    assert last.roll is not None
    roll = last.roll

    def words() -> str:
        bonus = _(" (con %(trait)s +%(value)s)") % {"trait": trait, "value": roll.trait_bonus} if trait else ""
        return _("Resultado %(total)s%(bonus)s: %(outcome)s.") % {
            "total": roll.total,
            "bonus": bonus,
            "outcome": c.outcome_word(last.natural_success),
        }

    ledger = [c.omen_op(roll.omens, last.threat_at_roll)] if last.omen_hit else []
    lines = [
        line(words),
        *c.omen_lines(roll.omens, last.threat_at_roll, last.omen_hit, rt.threat, table, machine.difficulty),
    ]
    return ledger, lines


def _lock_ops(machine: ch.ChallengeFlow) -> list[LedgerOp]:
    """A final failure locks the challenge for this character (S)."""
    if machine.stage in (Stage.CLOSED, Stage.DAMAGE_PENDING) and machine.last.success is False:
        params = {"character_id": machine.character_id, "challenge_id": machine.challenge_id}
        return [LedgerOp("lock_challenge", params, int(machine.character_id), "Reto fallido", by_rules=True)]
    return []


# --- Opening ------------------------------------------------------------------------------------------


def _open(given: OpeningInput[ChallengeOpen]) -> Outcome[ChallengeState]:
    c.require_gm(given.viewer)
    p, table = given.params, given.table
    character = table.character(p.character_id)
    rules = c.rules_of(table)
    name = p.challenge.strip()
    challenge_id = f"reto:{slugify(name)[:100]}" if slugify(name) else f"flow:{given.procedure_id}"
    rt = c.rules_table(table, [character.id])
    sheet = rt.character(str(character.id))
    machine = ch.open_challenge(challenge_id, str(character.id), p.characteristic, p.difficulty, p.tool_dice)
    label = c.label_of(p.characteristic, table)
    state = ChallengeState(
        name=name,
        character_id=character.id,
        character_name=character.name,
        characteristic=label,
        roller=character.actor,
        players=c.players(table),
        locked=challenge_id in sheet.challenge_locks,
        discards_damage=rules.retry_discards_pending_damage,
        machine=machine,
    )
    record = [
        _opening_line(state, p, label),
        line(lambda: _("Dificultad secreta: %(difficulty)s.") % {"difficulty": p.difficulty}, gm_only=True),
    ]
    ledger: list[LedgerOp] = []
    if p.dangerous:
        before = rt.threat
        machine, rt = ch.declare_dangerous(machine, rt, rules)
        ledger.append(c.danger_op(name))
        record.append(c.danger_line(before, rt.threat, table))
    return _finish(state, ch.confirm_setup(machine), rt, table, ledger, record)


def _opening_line(state: ChallengeState, p: ChallengeOpen, label: Names) -> RecordLine:
    def render() -> str:
        words = _("El director abre un reto para %(name)s: %(label)s") % {
            "name": state.character_name,
            "label": label.get(get_language() or "es"),
        }
        if state.name:
            words += f" «{state.name}»"
        if p.tool_dice:
            tools = ngettext("%(n)s dado de herramientas", "%(n)s dados de herramientas", p.tool_dice)
            words += " · " + tools % {"n": p.tool_dice}
        return words + ". " + _("La dificultad es secreta: solo se anunciará Éxito o Fallo.")

    return line(render)


# --- Steps --------------------------------------------------------------------------------------------


class _Dice(BaseModel):
    """The faces of a stored roll (what the pure machine is fed)."""

    model_config = ConfigDict(extra="ignore")

    dice: list[int] = Field(default_factory=list)


def _roll(given: StepInput[ChallengeState, RollParams]) -> Outcome[ChallengeState]:
    state, table = given.state, given.table
    machine, rt = _begin(given)
    rules = c.rules_of(table)
    sheet = rt.character(machine.character_id)
    traits = c.named_traits(sheet, given.params.names())
    if machine.challenge_id in sheet.challenge_locks and not machine.retry_paid:
        # (S) a failed challenge again without paying: an automatic failure, no dice, no omen check
        machine, rt = ch.roll_challenge(machine, rt, ScriptedDice([]), rules, traits)
        record = [
            line(
                lambda: (
                    _("%(name)s ya falló este reto y no pagó por volver a intentarlo: Fallo automático, sin dados.")
                    % {"name": state.character_name}
                )
            )
        ]
        state = state.model_copy(update={"roll_ids": [*state.roll_ids, None]})
        return _finish(state, machine, rt, table, _lock_ops(machine), record)
    spec = RollSpec(
        kind="roll",
        data={"characteristic": machine.characteristic, "tool_dice": machine.tool_dice},
        character_id=state.character_id,
        label=(state.name or _("Reto"))[:120],
        for_controller=True,
    )
    stored = given.roll(spec)
    faces = _Dice.model_validate(stored.result).dice
    machine, rt = ch.roll_challenge(machine, rt, ScriptedDice(faces), rules, traits)
    state = state.model_copy(update={"roll_ids": [*state.roll_ids, stored.id]})
    last_roll = machine.last.roll
    assert last_roll is not None
    record = [line(lambda: c.roll_words(state.character_name, state.characteristic, last_roll), rolls=[stored.id])]
    ledger: list[LedgerOp] = []
    if traits:
        record.append(line(lambda: c.proposed_words(state.character_name, traits)))
    else:
        ledger, more = _published(state, machine, rt, table, "")
        record += more
    return _finish(state, machine, rt, table, ledger, record)


def _judge(given: StepInput[ChallengeState, JudgeParams]) -> Outcome[ChallengeState]:
    state, table = given.state, given.table
    machine, rt = _begin(given)
    c.check_accepted(machine.proposed_traits, given.params.accepted)
    chosen = chosen_trait(machine.proposed_traits, given.params.accepted)
    proposed = machine.proposed_traits
    machine, rt = ch.judge_traits(machine, rt, given.params.accepted, c.rules_of(table))
    record = [line(lambda: c.judged_words(state.character_name, proposed, chosen))]
    ledger: list[LedgerOp] = []
    if chosen is not None and chosen.supernatural:
        op, words = _supernatural(state, table, chosen.name)
        ledger.append(op)
        record.append(words)
    more_ops, more = _published(state, machine, rt, table, chosen.name if chosen else "")
    return _finish(state, machine, rt, table, [*ledger, *more_ops], [*record, *more])


def _supernatural(state: ChallengeState, table: Table, trait: str) -> tuple[LedgerOp, RecordLine]:
    """(S) a supernatural trait costs its owner 1 overcome point; for an NPC, the GM pays 1 threat."""
    character = table.character(state.character_id)
    cid = str(character.id)
    if c.kind_of(character) is Kind.PRINCIPAL:
        params = {"character_id": cid, "use": "supernatural_trait"}
        op = LedgerOp("spend_overcome", params, character.id, "Rasgo sobrenatural", by_rules=True)
        words = line(
            lambda: (
                _("%(name)s paga 1 punto de superación por el rasgo sobrenatural %(trait)s.")
                % {"name": character.name, "trait": trait}
            )
        )
        return op, words
    op = LedgerOp(
        "spend_threat",
        {"use": "supernatural_trait", "for_character_id": cid},
        character.id,
        "Rasgo sobrenatural",
        by_rules=True,
    )
    words = c.threat_line(
        lambda: _("El director paga 1 punto de amenaza por el rasgo sobrenatural %(trait)s.") % {"trait": trait}, table
    )
    return op, words


def _retry(given: StepInput[ChallengeState, NoParams]) -> Outcome[ChallengeState]:
    """Volver a intentar: a main character pays 1 overcome point; for an NPC, the GM 1 threat point."""
    state, table = given.state, given.table
    machine, rt = _begin(given)
    machine, rt = ch.pay_retry(machine, rt, c.rules_of(table))
    params = {"character_id": machine.character_id, "challenge_id": machine.challenge_id}
    op = LedgerOp("pay_retry", params, state.character_id, "Volver a intentar", by_rules=True)
    if c.kind_of(table.character(state.character_id)) is Kind.PRINCIPAL:
        words = line(
            lambda: (
                _("%(name)s paga 1 punto de superación para volver a intentar el reto.")
                % {"name": state.character_name}
            )
        )
    else:
        words = c.threat_line(lambda: _("El director paga 1 punto de amenaza para volver a intentar el reto."), table)
    state = state.model_copy(update={"locked": False})
    return _finish(state, machine, rt, table, [op], [words])


def _force(given: StepInput[ChallengeState, ForceParams]) -> Outcome[ChallengeState]:
    state, table, p = given.state, given.table, given.params
    payer = c.activator_of(table, given.viewer, p.activator)
    owner = table.character(p.quality_owner)
    machine = _join(state, given.secret)
    rt = c.rules_table(table, [state.character_id, owner.id, *([payer.id] if payer else [])])
    c.quality_check(rt.character(str(owner.id)), p.quality, p.quality_text)
    # Against its owner when it makes the owner's own roll fail (then a main character earns the point).
    against = owner.id == state.character_id and p.force is Force.FAILURE
    machine, rt = ch.force_outcome(machine, rt, p.force, c.activation(p, payer, owner, against))

    def result() -> str:
        return _("Éxito forzado") if p.force is Force.SUCCESS else _("Fallo forzado")

    record = [RecordLine(c.force_words(p, payer, owner, result))]
    return _finish(state, machine, rt, table, [c.force_op(p, payer, owner, against)], record)


def _declare(given: StepInput[ChallengeState, NoParams]) -> Outcome[ChallengeState]:
    state, table = given.state, given.table
    machine, rt = _begin(given)
    before = rt.threat
    machine, rt = ch.declare_dangerous(machine, rt, c.rules_of(table))
    return _finish(state, machine, rt, table, [c.danger_op(state.name)], [c.danger_line(before, rt.threat, table)])


def _finalize(given: StepInput[ChallengeState, NoParams]) -> Outcome[ChallengeState]:
    state, table = given.state, given.table
    machine, rt = _begin(given)
    machine, rt = ch.finalize(machine, rt)
    success = machine.last.success

    def words() -> str:
        final = _("El director cierra el resultado: %(outcome)s.") % {"outcome": c.outcome_word(success)}
        if success:
            return final
        return (
            final
            + " "
            + _("%(name)s no podrá volver a intentar este reto sin pagar un punto.") % {"name": state.character_name}
        )

    return _finish(state, machine, rt, table, _lock_ops(machine), [line(words)])


def _damage(given: StepInput[ChallengeState, DamageParams]) -> Outcome[ChallengeState]:
    state, table = given.state, given.table
    machine, rt = _begin(given)
    machine, rt, op, words, gain = _settle(state, machine, rt, table, given.params.protect)
    return _finish(state.model_copy(update={"threat_gain": gain}), machine, rt, table, [op], [words])


def _cancel(given: StepInput[ChallengeState, NoParams]) -> Outcome[ChallengeState]:
    state, table = given.state, given.table
    machine, rt = _begin(given)
    refund = machine.danger_paid and not machine.attempts
    machine, rt = ch.cancel(machine, rt)
    record = [line(lambda: _("El director cancela el reto."))]
    ledger = [c.refund_op(given.procedure_id)] if refund else []
    if refund:
        record.append(c.threat_line(lambda: _("Se devuelve el punto de amenaza del peligro."), table))
    return _finish(state, machine, rt, table, ledger, record)


def _threat_gain(given: StepInput[ChallengeState, ThreatGainParams]) -> Outcome[ChallengeState]:
    state, table = given.state, given.table
    assert state.threat_gain is not None
    machine, rt = _begin(given)
    ledger, record = c.threat_gain_step(state.threat_gain, given.params.confirm, table)
    return _finish(state.model_copy(update={"threat_gain": None}), machine, rt, table, ledger, record)


# --- Pickers --------------------------------------------------------------------------------------


def _opening_choices(table: Table, viewer: policy.Viewer) -> dict[str, list[Choice]]:
    if not policy.may_run_gm_procedure(viewer):
        return {}
    return {"character": c.character_choices(table), "characteristic": c.characteristic_choices(table)}


def _roll_choices(state: ChallengeState, table: Table, viewer: policy.Viewer) -> dict[str, list[Choice]]:
    character = table.character(state.character_id)
    sheet = c.load_sheet(character.sheet, character.name)
    return {"traits": [c.trait_choice(t) for t in c.sheet_traits(sheet)]}


def _judge_choices(state: ChallengeState, table: Table, viewer: policy.Viewer) -> dict[str, list[Choice]]:
    return {"accepted": [c.trait_choice(t) for t in state.machine.proposed_traits]}


def _force_choices(state: ChallengeState, table: Table, viewer: policy.Viewer) -> dict[str, list[Choice]]:
    return {
        **c.force_choices(table, viewer),
        "force": [Choice("success", _("Forzar el éxito")), Choice("failure", _("Forzar el fallo"))],
    }


def _damage_choices(state: ChallengeState, table: Table, viewer: policy.Viewer) -> dict[str, list[Choice]]:
    return {"protect": c.protect_choices()}


def _threat_gain_choices(state: ChallengeState, table: Table, viewer: policy.Viewer) -> dict[str, list[Choice]]:
    return {"confirm": c.confirm_choices(state.threat_gain)}


def _retry_unavailable(state: ChallengeState, table: Table, viewer: policy.Viewer | None) -> Names | None:
    return c.retry_unpayable(table, state.character_id)


def _danger_unavailable(state: ChallengeState, table: Table, viewer: policy.Viewer | None) -> Names | None:
    """Danger costs 1 threat below 8 (A-AMB-26): with none to pay the button says so (the difficulty, sealed
    apart, plays no part)."""
    rt = c.rules_table(table, [state.character_id])
    return c.refused_words(lambda: ch.declare_dangerous(state.machine, rt, c.rules_of(table)))


def _force_unavailable(state: ChallengeState, table: Table, viewer: policy.Viewer | None) -> Names | None:
    return c.quality_unpayable(table, viewer)


def _waiting_roll(state: ChallengeState, table: Table) -> Names:
    return in_both(lambda: _("la tirada de %(name)s") % {"name": state.character_name})


CHALLENGE: Procedure[ChallengeState] = Procedure(
    key="challenge",
    title=gettext_lazy("Reto"),
    state=ChallengeState,
    secret=ChallengeSecret,
    reads=Reads(rules_state=True),
    opening=Opening(params=ChallengeOpen, run=_open, choices=_opening_choices),
    steps=(
        Step(
            key="roll",
            label=gettext_lazy("Tirar"),
            params=RollParams,
            who=_who_roll,
            run=_roll,
            waiting=_waiting_roll,
            form="presagios/steps/roll.html",
            choices=_roll_choices,
        ),
        Step(
            key="judge_traits",
            label=gettext_lazy("Aceptar o rechazar los rasgos"),
            params=JudgeParams,
            who=_who_judge,
            run=_judge,
            form="presagios/steps/judge.html",
            choices=_judge_choices,
        ),
        Step(
            key="retry",
            label=gettext_lazy("Volver a intentar (1 punto)"),
            params=NoParams,
            who=_who_retry,
            run=_retry,
            awaited=False,
            unavailable=_retry_unavailable,
        ),
        Step(
            key="force",
            label=gettext_lazy("Activar una cualidad (1 punto)"),
            params=ForceParams,
            who=_who_force,
            run=_force,
            awaited=False,
            form="presagios/steps/force.html",
            choices=_force_choices,
            unavailable=_force_unavailable,
        ),
        Step(
            key="declare_danger",
            label=gettext_lazy("Declarar peligroso"),
            params=NoParams,
            who=_who_declare,
            run=_declare,
            awaited=False,
            unavailable=_danger_unavailable,
        ),
        Step(
            key="finalize", label=gettext_lazy("Cerrar el resultado"), params=NoParams, who=_who_finalize, run=_finalize
        ),
        Step(
            key="damage",
            label=gettext_lazy("Daño: protección de guión o aceptarlo"),
            params=DamageParams,
            who=_who_damage,
            run=_damage,
            form="presagios/steps/choice.html",
            choices=_damage_choices,
        ),
        Step(
            key="threat_gain",
            label=gettext_lazy("Amenaza por la salida de un personaje"),
            params=ThreatGainParams,
            who=_who_threat_gain,
            run=_threat_gain,
            form="presagios/steps/choice.html",
            choices=_threat_gain_choices,
        ),
        Step(
            key="cancel",
            label=gettext_lazy("Cancelar"),
            params=NoParams,
            who=_who_before_dice,
            run=_cancel,
            awaited=False,
        ),
    ),
)
