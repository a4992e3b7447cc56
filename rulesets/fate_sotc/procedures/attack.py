"""``attack``: the attack roll against the defender's skill; after the window, the defender absorbs the hit
(a stress box or a consequence; a hit that cannot be absorbed takes them out) or offers a concession, which
the attacker accepts or refuses and the GM rules reasonable or not (fate points per spec §5.6)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from pydantic import Field

from campaigns import policy
from rulesets.fate_sotc.procedures.common import (
    SEVERITY,
    Params,
    character_choices,
    fate_points_words,
    language,
    line,
    own_character_choices,
    rating_of,
    resolve_skill,
    settings_of,
    sheet_of,
    side_from_roll,
    skill_choices,
    skill_name,
    wallet_of,
)
from rulesets.fate_sotc.procedures.results import two_sides
from rulesets.fate_sotc.procedures.window import WindowState, close_record, spin_available, window_steps
from rulesets.fate_sotc.rolls import TRACK_NAMES
from rulesets.kit.procedures import (
    Choice,
    FollowUp,
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
from rulesets.kit.table import GM, Actor, CharacterFacts, Reads, Table, in_both
from systems.fate_sotc.defeat import resolve_concession
from systems.fate_sotc.operations import TakeHitParams, take_hit
from systems.fate_sotc.resolution import Track, resolve_attack
from systems.fate_sotc.sheet import FateSotcSheet
from systems.fate_sotc.stress import Marked, apply_hit
from systems.registry import Names


class AttackState(WindowState):
    track: Track = Track.HEALTH
    hit: int = 0
    spin: bool = False  # the defender earned spin (a defence won by 3 or more)
    terms: str = ""
    accepted: bool | None = None
    concession_refused: bool = False


class AttackOpen(Params):
    attacker: int
    skill: str = Field(min_length=1, max_length=40)
    defender: int
    defense_skill: str = Field(min_length=1, max_length=40)
    track: Track = Track.HEALTH
    full_defense: bool = False


class AbsorbParams(Params):
    choice: Literal["box", "consequence", "concede"]
    text: str = Field(default="", max_length=120)
    terms: str = Field(default="", max_length=500)


class AnswerParams(Params):
    accept: bool


class RuleParams(Params):
    reasonable: bool


def track_name(track: Track) -> str:
    es, en = TRACK_NAMES[track.value]
    return en if language().startswith("en") else es


def open_attack(given: OpeningInput[AttackOpen]) -> Outcome[AttackState]:
    chosen, table = given.params, given.table
    settings = settings_of(table)
    attacker = table.character(chosen.attacker)
    defender = table.character(chosen.defender)
    if not policy.controls_character(given.viewer, attacker):
        raise refuse("not_your_side", "Solo atacas con tu propio personaje.", "You attack with your own character.")
    skill = resolve_skill(chosen.skill, settings)
    defense = resolve_skill(chosen.defense_skill, settings, "defense_skill")
    roll = given.roll(
        RollSpec(
            kind="attack",
            data={
                "skill": skill,
                "opposition": rating_of(defender, defense),
                "opposition_skill": defense,
                "opposition_name": defender.name,
                "track": chosen.track.value,
                "full_defense": chosen.full_defense,
            },
            character_id=attacker.id,
            label=_("Ataque de %(a)s a %(d)s") % {"a": attacker.name, "d": defender.name},
        )
    )
    state = AttackState(
        roll=roll.id,
        sides={"a": side_from_roll(roll, 0, attacker, skill), "b": side_from_roll(roll, 1, defender, defense)},
        track=chosen.track,
        spin_use=spin_available(table),
    )
    words = line(
        lambda: (
            _("%(a)s ataca a %(d)s con %(skill)s (%(track)s); %(d)s se defiende con %(defense)s")
            % {
                "a": attacker.name,
                "d": defender.name,
                "skill": skill_name(settings, skill),
                "defense": skill_name(settings, defense),
                "track": track_name(chosen.track),
            }
        ),
        rolls=[roll.id],
    )
    return Outcome(state=state, record=[words])


def after_close(given: StepInput[AttackState, NoParams], state: AttackState) -> Outcome[AttackState]:
    a, b = state.sides["a"], state.sides["b"]
    result = resolve_attack(a.effort, b.effort, state.track, settings_of(given.table))
    final = two_sides(state, given.table, "attack", state.track)
    follow, record = close_record(state, final)
    state = state.model_copy(update={"hit": result.hit, "spin": result.defender_spin, "final": final})
    if result.hit <= 0:
        return Outcome(
            state=state.model_copy(update={"phase": "done"}), closes="settled", follow_ups=[follow], record=[record]
        )
    return Outcome(state=state.model_copy(update={"phase": "absorb"}), follow_ups=[follow], record=[record])


# --- absorb / concede ------------------------------------------------------------------------------


def _absorbed_words(defender: CharacterFacts, sheet: FateSotcSheet, after: FateSotcSheet, state: AttackState) -> Names:
    if after.status != sheet.status:
        return in_both(lambda: _("%(name)s queda derrotado") % {"name": defender.name})
    if after.consequences != sheet.consequences:
        new = after.consequences[-1]
        return in_both(
            lambda: (
                _("%(name)s recibe una consecuencia %(severity)s: «%(text)s»")
                % {"name": defender.name, "severity": str(SEVERITY[new.severity]), "text": new.text}
            )
        )
    marked, _boxes = apply_hit(sheet.stress.get(state.track), state.hit, False, False)
    box = marked.box if isinstance(marked, Marked) else state.hit
    return in_both(
        lambda: (
            _("%(name)s marca la casilla %(box)d de %(track)s")
            % {"name": defender.name, "box": box, "track": track_name(state.track)}
        )
    )


def _absorb(given: StepInput[AttackState, AbsorbParams], defender: CharacterFacts) -> Outcome[AttackState]:
    state, chosen = given.state, given.params
    params = TakeHitParams(
        track=state.track,
        hit=state.hit,
        choose_consequence=chosen.choice == "consequence",
        consequence_text=chosen.text.strip() or None,
    )
    sheet = sheet_of(defender)
    after = take_hit(sheet, params, settings_of(given.table))  # the rules decide (and refuse); the ledger stores
    words = _absorbed_words(defender, sheet, after, state)
    reason = _("Ataque: %(hit)d") % {"hit": state.hit}
    op = LedgerOp("take_hit", params.model_dump(mode="json", exclude_none=True), defender.id, reason)
    follow = FollowUp(
        state.roll, "absorbed", words, data={"hit": state.hit, "choice": chosen.choice}, character_id=defender.id
    )
    done = state.model_copy(update={"phase": "done"})
    return Outcome(state=done, closes="settled", ledger=[op], follow_ups=[follow], record=[RecordLine(words)])


def run_absorb(given: StepInput[AttackState, AbsorbParams]) -> Outcome[AttackState]:
    state, chosen = given.state, given.params
    defender = given.table.character(state.sides["b"].character_id)
    if chosen.choice != "concede":
        return _absorb(given, defender)
    if state.concession_refused:
        raise refuse(
            "concession_refused",
            "Tu rendición ya fue rechazada: absorbe el golpe.",
            "Your concession was refused: absorb the hit.",
        )
    terms = chosen.terms.strip() or chosen.text.strip()
    if not terms:
        raise refuse("terms_required", "Escribe los términos de tu rendición.", "Write the terms of your concession.")
    words = in_both(lambda: (_("%(name)s ofrece rendirse: %(terms)s") % {"name": defender.name, "terms": terms})[:300])
    follow = FollowUp(state.roll, "concession_offered", words, data={"terms": terms}, character_id=defender.id)
    return Outcome(
        state=state.model_copy(update={"phase": "concession", "terms": terms}),
        follow_ups=[follow],
        record=[RecordLine(words)],
    )


def run_answer(given: StepInput[AttackState, AnswerParams]) -> Outcome[AttackState]:
    state, accept = given.state, given.params.accept
    attacker = state.sides["a"]
    words = in_both(
        lambda: (
            (
                _("%(name)s acepta la rendición; el DJ juzga si era razonable")
                if accept
                else _("%(name)s rechaza la rendición; el DJ juzga si era razonable")
            )
            % {"name": attacker.name}
        )
    )
    follow = FollowUp(state.roll, "concession_answered", words, character_id=attacker.character_id)
    return Outcome(
        state=state.model_copy(update={"phase": "ruling", "accepted": accept}),
        follow_ups=[follow],
        record=[RecordLine(words)],
    )


def run_rule(given: StepInput[AttackState, RuleParams]) -> Outcome[AttackState]:
    state, reasonable = given.state, given.params.reasonable
    table = given.table
    defender = table.character(state.sides["b"].character_id)
    attacker = table.character(state.sides["a"].character_id)
    accepted = bool(state.accepted)
    outcome = resolve_concession(wallet_of(defender), wallet_of(attacker), accepted, reasonable, settings_of(table))
    ops: list[LedgerOp] = []
    if outcome.conceder.fate_points > wallet_of(defender).fate_points:
        ops.append(LedgerOp("concession_reward", {}, defender.id, _("Rendición razonable")))
        ops.append(LedgerOp("concession_refused_penalty", {}, attacker.id, _("Rechazar una rendición razonable")))
    values = {"d": defender.name, "a": attacker.name, "fp": ""}

    def ruling() -> str:
        return _("razonable") if reasonable else _("no razonable")

    if accepted:
        ops.append(LedgerOp("set_status", {"status": "conceded"}, defender.id, _("Rendición aceptada")))
        words = in_both(lambda: _("%(d)s se rinde en sus términos (DJ: %(ruling)s)") % {**values, "ruling": ruling()})
        follow = FollowUp(state.roll, "conceded", words, character_id=defender.id)
        done = state.model_copy(update={"phase": "done"})
        return Outcome(state=done, closes="settled", ledger=ops, follow_ups=[follow], record=[RecordLine(words)])

    def refused() -> str:
        values["fp"] = fate_points_words(1)
        if ops:
            return _(
                "Rendición rechazada (DJ: %(ruling)s): %(d)s gana %(fp)s y %(a)s pierde %(fp)s; %(d)s absorbe el golpe"
            ) % {**values, "ruling": ruling()}
        return _("Rendición rechazada (DJ: %(ruling)s); %(d)s absorbe el golpe") % {**values, "ruling": ruling()}

    words = in_both(refused)
    follow = FollowUp(state.roll, "concession_refused", words, character_id=defender.id)
    state = state.model_copy(update={"phase": "absorb", "concession_refused": True})
    return Outcome(state=state, ledger=ops, follow_ups=[follow], record=[RecordLine(words)])


# --- The table ---------------------------------------------------------------------------------------


def _side_actor(state: AttackState, key: str, phase: str) -> set[Actor]:
    return {state.sides[key].actor} if state.phase == phase else set()  # type: ignore[index]


def _absorb_waiting(state: AttackState, table: Table) -> Names:
    return in_both(
        lambda: (
            _("%(name)s: absorber %(hit)d de estrés en %(track)s (casilla o consecuencia) o rendirse")
            % {"name": state.sides["b"].name, "hit": state.hit, "track": track_name(state.track)}
        )
    )


def absorb_choices(state: AttackState, table: Table, viewer: policy.Viewer) -> Mapping[str, Sequence[Choice]]:
    choices = [Choice("box", _("Marcar una casilla de estrés")), Choice("consequence", _("Tomar una consecuencia"))]
    if not state.concession_refused:
        choices.append(Choice("concede", _("Rendirse")))
    return {"choice": choices}


def opening_choices(table: Table, viewer: policy.Viewer) -> Mapping[str, Sequence[Choice]]:
    settings = settings_of(table)
    return {
        "attacker": own_character_choices(table, viewer),
        "defender": character_choices(table),
        "skill": skill_choices(settings),
        "defense_skill": skill_choices(settings),
        "track": [Choice(t.value, track_name(t)) for t in Track],
    }


FIELDS = "fate_sotc/procedures/fields/"

ATTACK: Procedure[Any] = Procedure(
    key="attack",
    title=gettext_lazy("Ataque"),
    state=AttackState,
    reads=Reads(board=True, earlier_procedures=True),
    opening=Opening(params=AttackOpen, run=open_attack, choices=opening_choices),
    steps=(
        *window_steps(after_close),
        Step(
            key="absorb",
            label=gettext_lazy("Absorber el golpe"),
            params=AbsorbParams,
            who=lambda s: _side_actor(s, "b", "absorb"),
            run=run_absorb,
            form=FIELDS + "absorb.html",
            choices=absorb_choices,
            waiting=_absorb_waiting,
        ),
        Step(
            key="answer",
            label=gettext_lazy("Responder a la rendición"),
            params=AnswerParams,
            who=lambda s: _side_actor(s, "a", "concession"),
            run=run_answer,
            form=FIELDS + "answer.html",
            waiting=lambda s, t: in_both(
                lambda: _("%(name)s: aceptar o rechazar la rendición") % {"name": s.sides["a"].name}
            ),
        ),
        Step(
            key="rule",
            label=gettext_lazy("Juzgar la rendición"),
            params=RuleParams,
            who=lambda s: {GM} if s.phase == "ruling" else set(),
            run=run_rule,
            form=FIELDS + "rule.html",
            waiting=lambda s, t: in_both(lambda: _("El DJ juzga si la rendición es razonable")),
        ),
    ),
)
