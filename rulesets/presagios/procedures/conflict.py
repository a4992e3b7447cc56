"""The conflict (conflicto, spec §3.3 and §5.2) as a step table around the pure ``systems.presagios.conflict``.

The GM opens it between two characters; each side posts (a player for a main character, the GMs for an
NPC). The first side stays sealed: no dice exist until the second side is in, then the server rolls both
and shows them together (A-AMB-22). Ties go to the main character or are rerolled by the server; one omen
check on the combined omens; anyone may activate a quality to force the winner; the GM finalizes; a
dangerous conflict damages the loser (1 + the winner's omens) with protection by kind.

Secret: the threat the conflict was rolled at, whether the omen check hit, and the traits a sealed side
named (until both sides are in).
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Any, cast

from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _
from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, field_serializer

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
from rulesets.kit.refusals import refuse
from rulesets.kit.rolls import RollSpec
from rulesets.kit.table import GM, Actor, Reads, Table, in_both
from rulesets.presagios.procedures import common as c
from rulesets.presagios.procedures.common import (
    DamageParams,
    ForceParams,
    JudgeParams,
    PendingDamage,
    RollParams,
    SideKey,
    ThreatGain,
    ThreatGainParams,
    line,
)
from systems.dice import ScriptedDice
from systems.presagios import conflict as cf
from systems.presagios.damage import conflict_damage
from systems.presagios.dice import CoreRoll, pool_size
from systems.presagios.qualities import Force
from systems.presagios.sheet import CharKey, Kind
from systems.presagios.table import Table as RulesTable
from systems.presagios.traits import NamedTrait, chosen_trait
from systems.registry import Names

Stage = cf.ConflictStage
SIDES: tuple[SideKey, SideKey] = ("a", "b")
MAX_AUTO_REROLLS = 50  # ties end with probability 1; this only bounds a broken dice source


class ConflictOpen(BaseModel):
    model_config = ConfigDict(extra="forbid")

    a_character_id: int
    a_characteristic: CharKey
    a_tool_dice: int = 0
    b_character_id: int
    b_characteristic: CharKey
    b_tool_dice: int = 0
    dangerous: bool = False
    conflict: str = Field("", max_length=100)


class SideFacts(BaseModel):
    model_config = ConfigDict(extra="forbid")

    character_id: int
    name: str
    kind: Kind
    roller: Actor
    characteristic: Names


class ConflictState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = ""
    a: SideFacts
    b: SideFacts
    players: list[int]
    machine: cf.ConflictFlow  # the threat at the roll and the omen check blanked (the secret)
    ready: list[SideKey] = Field(default_factory=list)  # sides that posted (sealed until both did)
    pair_roll_ids: list[list[int]] = Field(default_factory=list)
    winner: SideKey | None = None
    damage_characteristic: CharKey | None = None  # the GM may send the damage elsewhere (A-AMB-16)
    damage_by: Actor | None = None
    threat_gain: ThreatGain | None = None

    # The threat at the roll and the omen check never enter the stored state (an API client reads it).
    @field_serializer("machine", mode="wrap")
    def _without_secret(self, machine: cf.ConflictFlow, dump: SerializerFunctionWrapHandler) -> Any:
        data = dump(machine)
        data.pop("threat_at_roll", None)
        data.pop("omen_hit", None)
        return data

    def side(self, key: SideKey) -> SideFacts:
        return self.a if key == "a" else self.b


class ConflictSecret(BaseModel):
    model_config = ConfigDict(extra="forbid")

    threat_at_roll: int | None = None
    omen_hit: bool = False
    sealed: dict[SideKey, list[NamedTrait]] = Field(default_factory=dict)


class FinalizeParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    characteristic: CharKey | None = None


class BreakTieParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    winner: SideKey


def _join(state: ConflictState, secret: BaseModel | None) -> tuple[cf.ConflictFlow, ConflictSecret]:
    assert isinstance(secret, ConflictSecret)
    return replace(state.machine, threat_at_roll=secret.threat_at_roll, omen_hit=secret.omen_hit), secret


def _split(machine: cf.ConflictFlow, sealed: dict[SideKey, list[NamedTrait]]) -> tuple[cf.ConflictFlow, ConflictSecret]:
    secret = ConflictSecret(threat_at_roll=machine.threat_at_roll, omen_hit=machine.omen_hit, sealed=sealed)
    return replace(machine, threat_at_roll=None, omen_hit=False), secret


# --- Who, by the rules ------------------------------------------------------------------------------


def _at(state: ConflictState, *stages: Stage) -> bool:
    return state.threat_gain is None and state.machine.stage in stages


def _who_roll(s: ConflictState) -> set[Actor]:
    return {s.side(k).roller for k in SIDES if k not in s.ready} if _at(s, Stage.AWAITING_ROLLS) else set()


def _who_before_dice(s: ConflictState) -> set[Actor]:
    return {GM} if _at(s, Stage.AWAITING_ROLLS) else set()


def _who_declare(s: ConflictState) -> set[Actor]:
    return {GM} if _at(s, Stage.AWAITING_ROLLS) and not s.machine.dangerous and not s.ready else set()


def _who_judge(s: ConflictState) -> set[Actor]:
    return {GM} if _at(s, Stage.REVEALED) else set()


def _who_break_tie(s: ConflictState) -> set[Actor]:
    return {GM} if _at(s, Stage.TIE_REROLL) else set()


def _who_force(s: ConflictState) -> set[Actor]:
    return {GM, *s.players} if _at(s, Stage.RESPONSE) and s.machine.forced_winner is None else set()


def _danger_unavailable(state: ConflictState, table: Table, viewer: policy.Viewer | None) -> Names | None:
    """Danger costs 1 threat below 8 unless against a monstruo (A-AMB-26, A-AMB-27)."""
    rt = c.rules_table(table, _ids(state))
    return c.refused_words(lambda: cf.declare_dangerous(state.machine, rt, c.rules_of(table)))


def _force_unavailable(state: ConflictState, table: Table, viewer: policy.Viewer | None) -> Names | None:
    return c.quality_unpayable(table, viewer)


def _who_finalize(s: ConflictState) -> set[Actor]:
    return {GM} if _at(s, Stage.RESPONSE) else set()


def _who_damage(s: ConflictState) -> set[Actor]:
    return {s.damage_by or GM} if _at(s, Stage.DAMAGE_PENDING) else set()


def _who_threat_gain(s: ConflictState) -> set[Actor]:
    return {GM} if s.threat_gain is not None else set()


# --- Shared ends of every step ----------------------------------------------------------------------


def _ids(state: ConflictState) -> list[int]:
    return [state.a.character_id, state.b.character_id]


def _pending(state: ConflictState, machine: cf.ConflictFlow, table: Table) -> PendingDamage:
    """1 plus the winner's omens to the loser, where the GM sent it at finalize (A-AMB-16)."""
    loser = machine.loser
    assert loser is not None
    participant = machine.participant(loser)
    omens_a, omens_b = machine.counted_omens(c.rules_of(table))
    return PendingDamage(
        target=int(participant.character_id),
        characteristic=state.damage_characteristic or participant.characteristic,
        amount=conflict_damage(omens_a if machine.winner == "a" else omens_b),
        threat_at_roll=machine.threat_at_roll,
        reason="Conflicto peligroso",
    )


def _settle(
    state: ConflictState, machine: cf.ConflictFlow, rt: RulesTable, table: Table, protect: bool
) -> tuple[cf.ConflictFlow, RulesTable, LedgerOp, RecordLine, ThreatGain | None]:
    rules = c.rules_of(table)
    damage = _pending(state, machine, table)
    before = rt.character(str(damage.target)).current_of(damage.characteristic)
    machine, rt = cf.settle_damage(machine, rt, rules, protect=protect, characteristic=damage.characteristic)
    outcome = machine.damage[-1]
    character = table.character(damage.target)
    words = c.damage_line(outcome, character.name, before, table)
    return machine, rt, c.damage_op(damage, protect, rules), words, c.pending_threat_gain(outcome, character)


def _chooser(state: ConflictState, machine: cf.ConflictFlow, rt: RulesTable, table: Table) -> Actor | None:
    damage = _pending(state, machine, table)
    loser = state.side(machine.loser or "a")
    return c.damage_chooser(rt, damage, c.rules_of(table), loser.roller)


def _finish(
    state: ConflictState,
    machine: cf.ConflictFlow,
    sealed: dict[SideKey, list[NamedTrait]],
    rt: RulesTable,
    table: Table,
    ledger: list[LedgerOp],
    record: list[RecordLine],
) -> Outcome[ConflictState]:
    gain = state.threat_gain
    damage_by = None
    if machine.stage is Stage.DAMAGE_PENDING:
        damage_by = _chooser(state, machine, rt, table)
        if damage_by is None:
            machine, rt, op, words, gain = _settle(state, machine, rt, table, False)
            ledger, record = [*ledger, op], [*record, words]
    public, secret = _split(machine, sealed)
    new = state.model_copy(
        update={
            "machine": public,
            "winner": machine.winner,
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


# --- Rolling both sides -----------------------------------------------------------------------------


class _Dice(BaseModel):
    model_config = ConfigDict(extra="ignore")

    dice: list[int] = Field(default_factory=list)


def _roll_both(given: StepInput[ConflictState, RollParams], label: str) -> dict[SideKey, tuple[int, list[int]]]:
    """The server rolls both sides now, each as its own controller's roll: (stored roll id, faces)."""
    state, machine = given.state, given.state.machine
    rolled: dict[SideKey, tuple[int, list[int]]] = {}
    for key in SIDES:
        p = machine.participant(key)
        spec = RollSpec(
            kind="roll",
            data={"characteristic": p.characteristic, "tool_dice": p.tool_dice},
            character_id=state.side(key).character_id,
            label=label[:120],
            for_controller=True,
        )
        stored = given.roll(spec)
        rolled[key] = (stored.id, _Dice.model_validate(stored.result).dice)
    return rolled


def _pair_lines(state: ConflictState, pair: tuple[CoreRoll, CoreRoll], ids: list[int]) -> list[RecordLine]:
    return [
        line(partial(c.roll_words, state.side(k).name, state.side(k).characteristic, roll), rolls=[rid])
        for k, roll, rid in zip(SIDES, pair, ids, strict=True)
    ]


def _tie_words(total: int) -> str:
    return _("Empate a %(total)s: se repite la tirada de los dos bandos.") % {"total": total}


def _unbreakable(machine: cf.ConflictFlow, rt: RulesTable) -> bool:
    """Neither side has dice: every reroll ties again, so the GM decides (not in the spec)."""
    return all(
        pool_size(rt.character(p.character_id).current_of(p.characteristic), p.tool_dice) == 0
        for p in (machine.a, machine.b)
    )


def _rerolls(
    given: StepInput[ConflictState, RollParams] | StepInput[ConflictState, JudgeParams],
    state: ConflictState,
    machine: cf.ConflictFlow,
    rt: RulesTable,
) -> tuple[ConflictState, cf.ConflictFlow, RulesTable, list[RecordLine]]:
    """Ties the rules reroll: the server rolls both sides again until someone wins (or no dice can)."""
    record: list[RecordLine] = []
    rules = c.rules_of(given.table)
    for _attempt in range(MAX_AUTO_REROLLS):
        if machine.stage is not Stage.TIE_REROLL or _unbreakable(machine, rt):
            break
        total = machine.pairs[-1][0].total
        record.append(line(partial(_tie_words, total)))
        rolled = _roll_both(cast(StepInput[ConflictState, RollParams], given), state.name or _("Conflicto"))
        machine, rt = cf.reroll(machine, rt, ScriptedDice([*rolled["a"][1], *rolled["b"][1]]), rules)
        ids = [rolled["a"][0], rolled["b"][0]]
        state = state.model_copy(update={"pair_roll_ids": [*state.pair_roll_ids, ids]})
        record += _pair_lines(state, machine.pairs[-1], ids)
    if machine.stage is Stage.TIE_REROLL:
        record.append(line(lambda: _("Ningún bando tiene dados: el empate no se rompe tirando; decide el director.")))
    return state, machine, rt, record


def _decided(
    state: ConflictState, machine: cf.ConflictFlow, rt: RulesTable, table: Table
) -> tuple[list[LedgerOp], list[RecordLine]]:
    """«Lucía 3 contra Hugo 5: gana Hugo», and the one omen check on both sides' omens."""
    omens_a, omens_b = machine.counted_omens(c.rules_of(table))
    pa, pb = machine.pairs[-1]
    winner = state.side(machine.natural_winner or "a").name

    def words() -> str:
        text = _("%(a)s %(ta)s contra %(b)s %(tb)s: gana %(winner)s.") % {
            "a": state.a.name,
            "ta": pa.total,
            "b": state.b.name,
            "tb": pb.total,
            "winner": winner,
        }
        return text + (" " + _("(Empate: gana el personaje principal.)") if pa.total == pb.total else "")

    assert machine.threat_at_roll is not None
    hit = machine.omen_hit
    ledger = [c.omen_op(omens_a + omens_b, machine.threat_at_roll)] if hit else []
    return ledger, [line(words), *c.omen_lines(omens_a + omens_b, machine.threat_at_roll, hit, rt.threat, table)]


def _after_compare(
    given: StepInput[ConflictState, RollParams] | StepInput[ConflictState, JudgeParams],
    state: ConflictState,
    machine: cf.ConflictFlow,
    rt: RulesTable,
    was_decided: bool,
) -> tuple[ConflictState, cf.ConflictFlow, RulesTable, list[LedgerOp], list[RecordLine]]:
    state, machine, rt, record = _rerolls(given, state, machine, rt)
    if machine.stage is Stage.RESPONSE and not was_decided:
        ledger, more = _decided(state, machine, rt, given.table)
        return state, machine, rt, ledger, [*record, *more]
    return state, machine, rt, [], record


# --- Opening ------------------------------------------------------------------------------------------


def _side_facts(table: Table, character_id: int, key: CharKey) -> SideFacts:
    character = table.character(character_id)
    return SideFacts(
        character_id=character.id,
        name=character.name,
        kind=c.kind_of(character),
        roller=character.actor,
        characteristic=c.label_of(key, table),
    )


def _open(given: OpeningInput[ConflictOpen]) -> Outcome[ConflictState]:
    c.require_gm(given.viewer)
    p, table = given.params, given.table
    if p.a_character_id == p.b_character_id:
        raise refuse(
            "same_character",
            "Un conflicto enfrenta a dos personajes distintos.",
            "A conflict opposes two different characters.",
        )
    a, b = (
        _side_facts(table, p.a_character_id, p.a_characteristic),
        _side_facts(table, p.b_character_id, p.b_characteristic),
    )
    rt = c.rules_table(table, [a.character_id, b.character_id])
    machine = cf.open_conflict(
        f"conflict:{given.procedure_id}",
        cf.Participant.of(rt, str(a.character_id), p.a_characteristic, p.a_tool_dice),
        cf.Participant.of(rt, str(b.character_id), p.b_characteristic, p.b_tool_dice),
    )
    state = ConflictState(name=p.conflict.strip(), a=a, b=b, players=c.players(table), machine=machine)
    record = [_opening_line(state)]
    ledger: list[LedgerOp] = []
    if p.dangerous:
        before = rt.threat
        machine, rt = cf.declare_dangerous(machine, rt, c.rules_of(table))
        ledger.append(_danger_op(machine, state.name))
        record.append(c.danger_line(before, rt.threat, table))
    return _finish(state, cf.confirm_setup(machine), {}, rt, table, ledger, record)


def _opening_line(state: ConflictState) -> RecordLine:
    def render() -> str:
        lang = get_language() or "es"
        words = _("El director abre un conflicto: %(a)s (%(la)s) contra %(b)s (%(lb)s)") % {
            "a": state.a.name,
            "la": state.a.characteristic.get(lang),
            "b": state.b.name,
            "lb": state.b.characteristic.get(lang),
        }
        return words + (f" «{state.name}»." if state.name else ".")

    return line(render)


def _danger_op(machine: cf.ConflictFlow, name: str) -> LedgerOp:
    return c.danger_op(name, against_monster=Kind.MONSTRUO in (machine.a.kind, machine.b.kind))


# --- Steps --------------------------------------------------------------------------------------------


def _side_for(state: ConflictState, viewer: policy.Viewer, wanted: SideKey | None) -> SideKey:
    """The side the actor posts for: their own character's, or an NPC's for a GM (``side`` if both)."""
    options = [
        k for k in SIDES if k not in state.ready and policy.may_act_in_flow(viewer, frozenset({state.side(k).roller}))
    ]
    if wanted is not None:
        if wanted in state.ready:
            raise refuse("already_rolled", "Ese bando ya ha tirado.", "That side has already rolled.")
        if wanted not in options:
            raise refuse("not_your_side", "Ese bando no te corresponde.", "That side is not yours.")
        return wanted
    if len(options) == 1:
        return options[0]
    if not options:
        raise refuse("already_rolled", "Tu bando ya ha tirado.", "Your side has already rolled.")
    raise refuse("side_required", "Indica por qué bando tiras.", "Say which side you roll for.")


def _roll(given: StepInput[ConflictState, RollParams]) -> Outcome[ConflictState]:
    state, table = given.state, given.table
    machine, secret = _join(state, given.secret)
    side = _side_for(state, given.viewer, given.params.side)
    rt = c.rules_table(table, _ids(state))
    sheet = rt.character(machine.participant(side).character_id)
    if not sheet.in_story:
        raise refuse(
            "not_in_story",
            f"{sheet.name} está fuera de la historia y no puede tirar.",
            f"{sheet.name} is out of the story and can't roll.",
        )
    traits = c.named_traits(sheet, given.params.names())
    sealed: dict[SideKey, list[NamedTrait]] = {**secret.sealed, side: list(traits)}
    state = state.model_copy(update={"ready": sorted({*state.ready, side})})
    name = state.side(side).name
    if len(state.ready) < 2:
        words = line(
            lambda: _("%(name)s ya ha tirado: su tirada queda sellada hasta que tire el otro bando.") % {"name": name}
        )
        return _finish(state, machine, sealed, rt, table, [], [words])
    # Both sides are in: the server rolls both now and shows them together (A-AMB-22).
    rolled = _roll_both(given, state.name or _("Conflicto"))
    rules = c.rules_of(table)
    for key in SIDES:
        machine, rt = cf.post_roll(machine, rt, key, ScriptedDice(rolled[key][1]), rules, tuple(sealed.get(key, ())))
    ids = [rolled["a"][0], rolled["b"][0]]
    state = state.model_copy(update={"pair_roll_ids": [*state.pair_roll_ids, ids]})
    pair = machine.pairs[-1] if machine.pairs else (machine.pending[0], machine.pending[1])
    record = _pair_lines(state, cast(tuple[CoreRoll, CoreRoll], pair), ids)
    for key in SIDES:
        named = sealed.get(key, [])
        if named:
            record.append(line(partial(c.proposed_words, state.side(key).name, named)))
    state, machine, rt, ledger, more = _after_compare(given, state, machine, rt, False)
    return _finish(state, machine, {}, rt, table, ledger, [*record, *more])


def _unjudged(machine: cf.ConflictFlow, wanted: SideKey | None) -> SideKey:
    open_sides = [k for k, i in (("a", 0), ("b", 1)) if machine.pending[i] is not None and machine.bonus[i] is None]
    if wanted is not None and wanted in open_sides:
        return wanted
    if wanted is None and len(open_sides) == 1:
        return cast(SideKey, open_sides[0])
    raise refuse("side_required", "Indica de qué bando son los rasgos.", "Say which side's traits these are.")


def _judge(given: StepInput[ConflictState, JudgeParams]) -> Outcome[ConflictState]:
    state, table = given.state, given.table
    machine, _secret = _join(state, given.secret)
    side = _unjudged(machine, given.params.side)
    index = SIDES.index(side)
    proposed = machine.proposed[index]
    c.check_accepted(proposed, given.params.accepted)
    chosen = chosen_trait(proposed, given.params.accepted)
    rt = c.rules_table(table, _ids(state))
    was_decided = machine.natural_winner is not None
    machine, rt = cf.judge_traits(machine, rt, side, given.params.accepted, c.rules_of(table))
    facts = state.side(side)
    record = [line(lambda: c.judged_words(facts.name, proposed, chosen))]
    ledger: list[LedgerOp] = []
    if chosen is not None and chosen.supernatural:
        op, words = _supernatural(facts, chosen.name, table)
        ledger.append(op)
        record.append(words)
    state, machine, rt, more_ops, more = _after_compare(given, state, machine, rt, was_decided)
    return _finish(state, machine, {}, rt, table, [*ledger, *more_ops], [*record, *more])


def _supernatural(facts: SideFacts, trait: str, table: Table) -> tuple[LedgerOp, RecordLine]:
    cid = str(facts.character_id)
    if facts.kind is Kind.PRINCIPAL:
        params = {"character_id": cid, "use": "supernatural_trait"}
        op = LedgerOp("spend_overcome", params, facts.character_id, "Rasgo sobrenatural", by_rules=True)
        words = line(
            lambda: (
                _("%(name)s paga 1 punto de superación por el rasgo sobrenatural %(trait)s.")
                % {"name": facts.name, "trait": trait}
            )
        )
        return op, words
    params = {"use": "supernatural_trait", "for_character_id": cid}
    op = LedgerOp("spend_threat", params, facts.character_id, "Rasgo sobrenatural", by_rules=True)
    words = c.threat_line(
        lambda: _("El director paga 1 punto de amenaza por el rasgo sobrenatural %(trait)s.") % {"trait": trait}, table
    )
    return op, words


def _break_tie(given: StepInput[ConflictState, BreakTieParams]) -> Outcome[ConflictState]:
    state, table = given.state, given.table
    machine, _secret = _join(state, given.secret)
    rt = c.rules_table(table, _ids(state))
    machine, rt = cf.break_tie(machine, rt, given.params.winner, c.rules_of(table))
    ledger, record = _decided(state, machine, rt, table)
    return _finish(state, machine, {}, rt, table, ledger, record)


def _force(given: StepInput[ConflictState, ForceParams]) -> Outcome[ConflictState]:
    state, table, p = given.state, given.table, given.params
    if p.side is None:
        raise refuse("side_required", "Indica qué bando gana o pierde.", "Say which side wins or loses.")
    payer = c.activator_of(table, given.viewer, p.activator)
    owner = table.character(p.quality_owner)
    machine, _secret = _join(state, given.secret)
    rt = c.rules_table(table, [*_ids(state), owner.id, *([payer.id] if payer else [])])
    c.quality_check(rt.character(str(owner.id)), p.quality, p.quality_text)
    # Against its owner when the owner is the side it makes lose.
    forced_loser = cf.other(p.side) if p.force is Force.SUCCESS else p.side
    against = str(owner.id) == machine.participant(forced_loser).character_id
    machine, rt = cf.force_outcome(machine, rt, p.side, p.force, c.activation(p, payer, owner, against))
    winner = state.side(machine.winner or "a").name
    words = c.force_words(p, payer, owner, lambda: _("gana %(name)s") % {"name": winner})
    return _finish(state, machine, {}, rt, table, [c.force_op(p, payer, owner, against)], [RecordLine(words)])


def _declare(given: StepInput[ConflictState, NoParams]) -> Outcome[ConflictState]:
    state, table = given.state, given.table
    machine, secret = _join(state, given.secret)
    rt = c.rules_table(table, _ids(state))
    before = rt.threat
    machine, rt = cf.declare_dangerous(machine, rt, c.rules_of(table))
    record = [c.danger_line(before, rt.threat, table)]
    return _finish(state, machine, secret.sealed, rt, table, [_danger_op(machine, state.name)], record)


def _finalize(given: StepInput[ConflictState, FinalizeParams]) -> Outcome[ConflictState]:
    state, table = given.state, given.table
    machine, _secret = _join(state, given.secret)
    rt = c.rules_table(table, _ids(state))
    machine, rt = cf.finalize(machine, rt)
    state = state.model_copy(update={"damage_characteristic": given.params.characteristic})
    winner = state.side(machine.winner or "a").name
    words = line(lambda: _("El director cierra el resultado: gana %(name)s.") % {"name": winner})
    return _finish(state, machine, {}, rt, table, [], [words])


def _damage(given: StepInput[ConflictState, DamageParams]) -> Outcome[ConflictState]:
    state, table = given.state, given.table
    machine, _secret = _join(state, given.secret)
    rt = c.rules_table(table, _ids(state))
    machine, rt, op, words, gain = _settle(state, machine, rt, table, given.params.protect)
    return _finish(state.model_copy(update={"threat_gain": gain}), machine, {}, rt, table, [op], [words])


def _cancel(given: StepInput[ConflictState, NoParams]) -> Outcome[ConflictState]:
    state, table = given.state, given.table
    machine, _secret = _join(state, given.secret)
    rt = c.rules_table(table, _ids(state))
    refund = machine.danger_paid and not machine.pairs
    machine, rt = cf.cancel(machine, rt)
    record = [line(lambda: _("El director cancela el conflicto."))]
    if refund:
        record.append(c.threat_line(lambda: _("Se devuelve el punto de amenaza del peligro."), table))
    return _finish(state, machine, {}, rt, table, [c.refund_op(given.procedure_id)] if refund else [], record)


def _threat_gain(given: StepInput[ConflictState, ThreatGainParams]) -> Outcome[ConflictState]:
    state, table = given.state, given.table
    assert state.threat_gain is not None
    machine, _secret = _join(state, given.secret)
    rt = c.rules_table(table, _ids(state))
    ledger, record = c.threat_gain_step(state.threat_gain, given.params.confirm, table)
    return _finish(state.model_copy(update={"threat_gain": None}), machine, {}, rt, table, ledger, record)


# --- Pickers --------------------------------------------------------------------------------------


def _opening_choices(table: Table, viewer: policy.Viewer) -> dict[str, list[Choice]]:
    if not policy.may_run_gm_procedure(viewer):
        return {}
    return {"character": c.character_choices(table), "characteristic": c.characteristic_choices(table)}


def _sides(state: ConflictState, keys: list[SideKey]) -> list[Choice]:
    return [Choice(k, state.side(k).name) for k in keys]


def _roll_choices(state: ConflictState, table: Table, viewer: policy.Viewer) -> dict[str, list[Choice]]:
    mine = [
        k for k in SIDES if k not in state.ready and policy.may_act_in_flow(viewer, frozenset({state.side(k).roller}))
    ]
    traits: list[Choice] = []
    for k in mine:
        facts = state.side(k)
        sheet = c.load_sheet(table.character(facts.character_id).sheet, facts.name)
        traits += [c.trait_choice(t, facts.name if len(mine) > 1 else "") for t in c.sheet_traits(sheet)]
    return {"side": _sides(state, mine) if len(mine) > 1 else [], "traits": traits}


def _judge_choices(state: ConflictState, table: Table, viewer: policy.Viewer) -> dict[str, list[Choice]]:
    m = state.machine
    open_sides = [k for k, i in (("a", 0), ("b", 1)) if m.pending[i] is not None and m.bonus[i] is None]
    traits = [
        c.trait_choice(t, state.side(k).name) for k in SIDES if k in open_sides for t in m.proposed[SIDES.index(k)]
    ]
    return {"side": _sides(state, cast(list[SideKey], open_sides)), "accepted": traits}


def _force_choices(state: ConflictState, table: Table, viewer: policy.Viewer) -> dict[str, list[Choice]]:
    return {
        **c.force_choices(table, viewer),
        "side": _sides(state, list(SIDES)),
        "force": [Choice("success", _("que gane")), Choice("failure", _("que pierda"))],
    }


def _finalize_choices(state: ConflictState, table: Table, viewer: policy.Viewer) -> dict[str, list[Choice]]:
    if not state.machine.dangerous:
        return {}
    return {"characteristic": c.characteristic_choices(table)}


def _damage_choices(state: ConflictState, table: Table, viewer: policy.Viewer) -> dict[str, list[Choice]]:
    return {"protect": c.protect_choices()}


def _threat_gain_choices(state: ConflictState, table: Table, viewer: policy.Viewer) -> dict[str, list[Choice]]:
    return {"confirm": c.confirm_choices(state.threat_gain)}


def _break_tie_choices(state: ConflictState, table: Table, viewer: policy.Viewer) -> dict[str, list[Choice]]:
    return {"winner": _sides(state, list(SIDES))}


def _waiting_roll(state: ConflictState, table: Table) -> Names:
    names = [state.side(k).name for k in SIDES if k not in state.ready]
    return in_both(lambda: _("la tirada de %(name)s") % {"name": ", ".join(names)})


CONFLICT: Procedure[ConflictState] = Procedure(
    key="conflict",
    title=gettext_lazy("Conflicto"),
    state=ConflictState,
    secret=ConflictSecret,
    reads=Reads(rules_state=True),
    opening=Opening(params=ConflictOpen, run=_open, choices=_opening_choices),
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
            key="break_tie",
            label=gettext_lazy("Decidir el empate"),
            params=BreakTieParams,
            who=_who_break_tie,
            run=_break_tie,
            form="presagios/steps/choice.html",
            choices=_break_tie_choices,
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
            key="finalize",
            label=gettext_lazy("Cerrar el resultado"),
            params=FinalizeParams,
            who=_who_finalize,
            run=_finalize,
            form="presagios/steps/finalize.html",
            choices=_finalize_choices,
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
