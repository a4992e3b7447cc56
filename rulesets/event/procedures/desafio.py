"""Desafío (§5, an interaction): the GM names the participants (characters, or NPC pools she sets). Each
participant's controller commits a sealed split of the pool between the left fist (who wins) and the right
fist (who narrates), and may amend it until the reveal, automatic when the last one commits. Ties are rolled
by the server (a ``fist_tiebreak`` roll per fist; a talent may reroll one die, decided sealed). Then the
narration: the right-fist winner's, the GM's (an NPC won it), or a joint narration in seat order.

Secrecy (§5.3): a split is hidden from everyone, GMs included, so it is sealed (``tintero.sealing``, bound to
the procedure and the participant) in the procedure's secret; the step's row keeps only the commitment's
hash, public at once, and its nonce is published at the reveal, so anyone can check it.

The pure interaction (``systems.event.desafio.Interaction``) keeps its stored public form
(``interaction_json``: splits only once revealed, talent choices never), because its pairs are typed ``Any``.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import asdict, replace
from functools import partial
from typing import Any, Literal

from django.core.exceptions import PermissionDenied
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _
from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer, model_validator

from campaigns import policy
from rulesets.event.procedures import narration as talk
from rulesets.event.procedures.common import by_the_rules, rules_of, sheet_of
from rulesets.event.rolls import FIST_TIEBREAK, dice_text, fist_summary
from rulesets.kit.procedures import (
    Choice,
    FollowUp,
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
from rulesets.kit.table import GM, Actor, CharacterFacts, Table, in_both
from systems.dice import ScriptedDice
from systems.errors import RulesError
from systems.event import desafio as ix_rules
from systems.event import narration as narr
from systems.event.desafio import (
    DecidedBy,
    FistResult,
    Interaction,
    Participant,
    Side,
    Split,
    Stage,
    Tiebreak,
    Verdict,
)
from systems.event.ladder import Outcome as Result
from systems.event.rolling import DiceRules
from systems.event.sheet import is_talent, unknown_skill
from systems.registry import Names
from tintero.sealing import seal, unseal

KEY = "desafio"
JSON = dict[str, Any]


class Seat(BaseModel):
    """A participant as the table sees it (its split stays sealed until the reveal)."""

    model_config = ConfigDict(extra="forbid")

    id: str
    name: str
    controller: Actor
    skill: str | None = None
    pool: int
    character: int | None = None


class DesafioState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    stage: Literal["committing", "tiebreak", "narration", "done", "cancelled"]
    ability: str = ""
    participants: list[Seat]
    committed: list[str] = Field(default_factory=list)
    digests: dict[str, str] = Field(default_factory=dict)
    nonces: dict[str, str] = Field(default_factory=dict)
    ix: JSON  # interaction_json of the pure interaction
    tiebreak_rolls: list[int] = Field(default_factory=list)
    winners: list[str] = Field(default_factory=list)
    narrators: list[str] = Field(default_factory=list)
    voters: list[str] = Field(default_factory=list)
    narration_pending: str | None = None
    narration: narr.Narration | None = None
    contested_at: str | None = None
    outcome: Result | None = None  # an interaction has no action outcome (the narration's protocol asks)
    joint: narr.JointNarration | None = None

    def voice_name(self, voice: str) -> str:
        names = [seat.name for seat in self.participants if str(seat.controller) == voice]
        return ", ".join(names) or str(_("el máster"))

    def seat(self, pid: str) -> Seat:
        for seat in self.participants:
            if seat.id == pid:
                return seat
        raise refuse("not_a_participant", "No participa en este desafío.", "Not a participant of this challenge.")


class DesafioSecret(BaseModel):
    """Sealed splits and sealed talent decisions, by participant (opaque to everyone until the reveal)."""

    model_config = ConfigDict(extra="forbid")

    sealed: dict[str, str] = Field(default_factory=dict)
    talent: dict[str, str] = Field(default_factory=dict)

    @model_serializer(mode="wrap")
    def _only_what_is_sealed(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Stored without empty parts: nothing sealed is left after the reveal."""
        return {key: value for key, value in handler(self).items() if value}


class ParticipantOpen(BaseModel):
    model_config = ConfigDict(extra="forbid")

    character: int | None = None
    skill: str | None = Field(None, max_length=80)
    name: str = Field("", max_length=80)  # an NPC without a character
    dice: int | None = Field(None, ge=1, le=30)  # an NPC's pool, set by the GM (§8 A-22)


class DesafioOpen(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ability: str = Field("", max_length=120)
    participants: list[ParticipantOpen] = Field(min_length=2, max_length=12)

    @model_validator(mode="before")
    @classmethod
    def _from_the_form(cls, data: Any) -> Any:
        """The scene's form sends ``characters`` with ``skill_<id>`` / ``dice_<id>`` and an unsheeted NPC."""
        if not isinstance(data, dict) or "participants" in data:
            return data
        ids = data.get("characters") or []
        ids = [ids] if isinstance(ids, str) else list(ids)
        people: list[JSON] = [
            {"character": raw, "skill": data.get(f"skill_{raw}") or None, "dice": data.get(f"dice_{raw}") or None}
            for raw in ids
        ]
        if data.get("npc_name") and data.get("npc_dice"):
            people.append({"name": data["npc_name"], "dice": data["npc_dice"]})
        return {"ability": data.get("ability", ""), "participants": people}


class CommitParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    participant: str | None = Field(None, max_length=20)
    left: int = Field(ge=-100, le=100)
    right: int = Field(ge=-100, le=100)


class TalentParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    participant: str | None = Field(None, max_length=20)
    index: int | None = Field(None, ge=0, le=100)


class PartParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str = Field(min_length=1, max_length=10_000)


# --- The stored interaction ---------------------------------------------------------------------------


def _fist_json(r: FistResult | None) -> JSON | None:
    if r is None:
        return None
    return {
        "side": r.side.value,
        "counts": [[p, c] for p, c in r.counts],
        "verdict": r.verdict.value,
        "winners": list(r.winners),
        "by": r.by.value,
        "rolls": [[p, list(d)] for p, d in r.rolls],
        "points": [[p, v] for p, v in r.points],
    }


def _fist_of(d: JSON | None) -> FistResult | None:
    if d is None:
        return None
    return FistResult(
        side=Side(d["side"]),
        counts=tuple((p, int(c)) for p, c in d["counts"]),
        verdict=Verdict(d["verdict"]),
        winners=tuple(d["winners"]),
        by=DecidedBy(d["by"]),
        rolls=tuple((p, tuple(x)) for p, x in d["rolls"]),
        points=tuple((p, int(v)) for p, v in d["points"]),
    )


def interaction_json(ix: Interaction) -> JSON:
    """The public part: splits only once revealed, talent choices never (they stay sealed)."""
    tb = ix.tiebreak
    return {
        "participants": [asdict(p) for p in ix.participants],
        "stage": ix.stage.value,
        "rules": asdict(ix.rules),
        "use_total": ix.use_total,
        "talent_in_tiebreaks": ix.talent_in_tiebreaks,
        "reckless_allowed": ix.reckless_allowed,
        "empty_right_tie": ix.empty_right_tie,
        "commitments": [[p, s.left, s.right] for p, s in ix.commitments] if ix.revealed else None,
        "left": _fist_json(ix.left),
        "right": _fist_json(ix.right),
        "tiebreak": None
        if tb is None
        else {
            "side": tb.side.value,
            "counts": [[p, c] for p, c in tb.counts],
            "tied": list(tb.tied),
            "rolls": [[p, list(d)] for p, d in tb.rolls],
            "talent_pending": sorted(tb.talent_pending),
            "provisional": _fist_json(tb.provisional),
        },
    }


def interaction_of(
    d: JSON, commitments: tuple[tuple[str, Any], ...], choices: tuple[tuple[str, Any], ...]
) -> Interaction:
    tb = d.get("tiebreak")
    return Interaction(
        participants=tuple(Participant(**p) for p in d["participants"]),
        stage=Stage(d["stage"]),
        rules=DiceRules(**d["rules"]),
        use_total=d["use_total"],
        talent_in_tiebreaks=d["talent_in_tiebreaks"],
        reckless_allowed=d["reckless_allowed"],
        empty_right_tie=d["empty_right_tie"],
        commitments=commitments,
        left=_fist_of(d.get("left")),
        right=_fist_of(d.get("right")),
        tiebreak=None
        if tb is None
        else Tiebreak(
            side=Side(tb["side"]),
            counts=tuple((p, int(c)) for p, c in tb["counts"]),
            tied=tuple(tb["tied"]),
            rolls=tuple((p, tuple(x)) for p, x in tb["rolls"]),
            talent_pending=frozenset(tb["talent_pending"]),
            talent_choices=choices,
            provisional=_fist_of(tb.get("provisional")),
        ),
    )


def _bound(procedure_id: int, pid: str, what: str = "split") -> str:
    return f"{procedure_id}|{pid}|{what}"


def _interaction(state: DesafioState, secret: DesafioSecret, procedure_id: int) -> Interaction:
    """The pure interaction: public splits once revealed, else opened from their seals (server only)."""
    if state.ix.get("commitments") is not None:
        commitments = tuple((p, Split(int(left), int(right))) for p, left, right in state.ix["commitments"])
    else:
        opened = {pid: unseal(token, _bound(procedure_id, pid)) for pid, token in secret.sealed.items()}
        order = [seat.id for seat in state.participants]
        commitments = tuple(
            (pid, Split(int(opened[pid]["left"]), int(opened[pid]["right"]))) for pid in order if pid in opened
        )
    choices = tuple(
        (pid, unseal(token, _bound(procedure_id, pid, "talent")).get("index")) for pid, token in secret.talent.items()
    )
    return interaction_of(state.ix, commitments, choices)


def _secret(given: StepInput[DesafioState, Any]) -> DesafioSecret:
    return given.secret if isinstance(given.secret, DesafioSecret) else DesafioSecret()


# --- Opening ----------------------------------------------------------------------------------------


def _seat_of(character: CharacterFacts, wanted: ParticipantOpen, table: Table, number: int) -> tuple[Seat, Participant]:
    rules = rules_of(table)
    pid = f"c{character.id}"
    if wanted.dice is not None and not character.is_npc:
        # A player's pool is their sheet's (1 + the skill's dice): a typed pool is refused, never replaced.
        raise refuse(
            "pool_from_sheet",
            f"La reserva de {character.name} sale de su ficha: elige una de sus habilidades, no un número de dados.",
            f"{character.name}'s pool comes from their sheet: choose one of their skills, not a number of dice.",
        )
    if wanted.dice is not None and wanted.skill:
        raise refuse(
            "pool_or_skill",
            f"Para {character.name}, elige una habilidad o una reserva, no las dos.",
            f"For {character.name}, choose a skill or a pool, not both.",
        )
    pool = wanted.dice if character.is_npc and wanted.dice is not None else None
    found = None
    if pool is None:
        sheet = sheet_of(character, rules)
        found = sheet.skill(wanted.skill) if wanted.skill else None
        if wanted.skill and found is None:  # a skill the sheet lacks is refused, never rolled as none
            raise by_the_rules(lambda: _raise(unknown_skill(wanted.skill or "")))
        pool = 1 + (found.dice if found else 0)
    skill = found.display if found else wanted.skill
    seat = Seat(id=pid, name=character.name, controller=character.actor, skill=skill, pool=pool, character=character.id)
    if character.is_npc:
        return seat.model_copy(update={"controller": GM}), Participant(pid, pool, talk.VOICE_GM, None, npc=True)
    talent = found is not None and rules.talent_enabled and is_talent(sheet_of(character, rules), found.name)
    return seat, Participant(pid, pool, str(character.actor), number, talent_built=talent)


def _raise(error: Exception) -> Any:
    raise error


def _open(given: OpeningInput[DesafioOpen]) -> Outcome[DesafioState]:
    if not policy.may_run_gm_procedure(given.viewer):  # the GM declares it and its participants (§5.9)
        raise PermissionDenied(_("Solo un máster puede hacer esto."))
    seats: list[Seat] = []
    participants: list[Participant] = []
    number = 0
    for i, wanted in enumerate(given.params.participants, start=1):
        if wanted.character is None:
            if not wanted.name or wanted.dice is None:
                raise refuse(
                    "npc_pool",
                    "Un PNJ sin ficha necesita un nombre y una reserva.",
                    "An NPC without a sheet needs a name and a pool.",
                )
            seats.append(Seat(id=f"n{i}", name=wanted.name, controller=GM, pool=wanted.dice))
            participants.append(Participant(f"n{i}", wanted.dice, talk.VOICE_GM, None, npc=True))
            continue
        character = given.table.character(wanted.character)
        number += 0 if character.is_npc else 1
        seat, participant = _seat_of(character, wanted, given.table, number)
        seats.append(seat)
        participants.append(participant)
    rules = rules_of(given.table)
    ix = by_the_rules(lambda: ix_rules.start_interaction(participants, rules))  # two distinct, none empty
    state = DesafioState(
        stage="committing",
        ability=given.params.ability,
        participants=seats,
        ix=interaction_json(ix),
        voters=[talk.VOICE_GM, *(str(uid) for uid in given.table.player_ids())],
    )
    names = ", ".join(seat.name for seat in seats)
    ability = given.params.ability
    words = in_both(
        lambda: (
            (_("El máster declara un desafío de %(ability)s: %(names)s.") % {"ability": ability, "names": names})
            if ability
            else _("El máster declara un desafío: %(names)s.") % {"names": names}
        )
    )
    return Outcome(state=state, secret=DesafioSecret(), record=[RecordLine(words)])


# --- Commitments and the reveal ------------------------------------------------------------------------


def _mine(viewer: policy.Viewer, seat: Seat) -> bool:
    """Whether this viewer decides for this participant (its player; the GMs for an NPC)."""
    if seat.controller == GM:
        return policy.may_run_gm_procedure(viewer)
    return viewer.is_member and viewer.user_id == seat.controller


def _seat_for(given: StepInput[DesafioState, Any], requested: str | None, pending: Sequence[str]) -> Seat:
    """The participant this viewer acts for: named, or the only one they control among ``pending``."""
    mine = [seat for seat in given.state.participants if _mine(given.viewer, seat)]
    if requested:
        for seat in mine:
            if seat.id == requested:
                return seat
        raise PermissionDenied(_("Ese participante no es tuyo."))
    candidates = [seat for seat in mine if seat.id in pending] or mine
    if len(candidates) != 1:
        raise refuse("participant_required", "Indica por qué participante actúas.", "Say which participant.")
    return candidates[0]


def _commit(given: StepInput[DesafioState, CommitParams]) -> Outcome[DesafioState]:
    missing = [seat.id for seat in given.state.participants if seat.id not in given.state.committed]
    return _seal_split(given, _seat_for(given, given.params.participant, missing))


def _amend(given: StepInput[DesafioState, CommitParams]) -> Outcome[DesafioState]:
    mine = [seat for seat in given.state.participants if seat.id in given.state.committed and _mine(given.viewer, seat)]
    return _seal_split(given, _seat_for(given, given.params.participant, [seat.id for seat in mine]))


def _seal_split(given: StepInput[DesafioState, CommitParams], me: Seat) -> Outcome[DesafioState]:
    state, params, secret = given.state, given.params, _secret(given)
    ix = by_the_rules(
        lambda: ix_rules.commit(_interaction(state, secret, given.procedure_id), me.id, params.left, params.right)
    )
    nonce = secrets.token_hex(16)
    digest = ix_rules.commitment_digest(str(given.procedure_id), me.id, Split(params.left, params.right), nonce)
    sealed = {
        **secret.sealed,
        me.id: seal({"left": params.left, "right": params.right, "nonce": nonce}, _bound(given.procedure_id, me.id)),
    }
    amended = me.id in state.committed
    state = state.model_copy(
        update={
            "committed": [*[p for p in state.committed if p != me.id], me.id],
            "digests": {**state.digests, me.id: digest},
        }
    )
    # In words only: the commitment's hash is for checking («Comprobación de los repartos»), not for reading.
    words = in_both(
        lambda: (
            (_("%(name)s cambia su reparto sellado.") if amended else _("%(name)s sella su reparto."))
            % {"name": me.name}
        )
    )
    recorded = {"participant": me.id, "digest": digest}
    if not ix.revealed:
        state = state.model_copy(update={"ix": interaction_json(ix)})
        return Outcome(
            state=state, secret=DesafioSecret(sealed=sealed), record=[RecordLine(words)], step_params=recorded
        )
    # The reveal: every split becomes public and immutable, with the nonces of the commitments.
    nonces = {pid: str(unseal(token, _bound(given.procedure_id, pid))["nonce"]) for pid, token in sealed.items()}
    shown = ", ".join(f"{state.seat(pid).name} {split.left}/{split.right}" for pid, split in ix.commitments)
    revealed = in_both(lambda: _("Se revelan los repartos (izquierdo/derecho): %(splits)s.") % {"splits": shown})
    after = _advance(given.table, given.roll, state.model_copy(update={"nonces": nonces}), ix, DesafioSecret())
    return replace(after, record=[RecordLine(words), RecordLine(revealed), *after.record], step_params=recorded)


def _advance(
    table: Table, roll: Any, state: DesafioState, ix: Interaction, secret: DesafioSecret
) -> Outcome[DesafioState]:
    """After the reveal: the server rolls each tie-break; stop where a decision is due, else who narrates."""
    rolls, lines = list(state.tiebreak_rolls), []
    names = {seat.id: seat.name for seat in state.participants}
    while ix.stage in (Stage.LEFT_TIEBREAK, Stage.RIGHT_TIEBREAK) and ix.tiebreak and not ix.tiebreak.rolled:
        tb = ix.tiebreak
        spec = RollSpec(
            kind=FIST_TIEBREAK,
            data={"side": tb.side.value, "counts": dict(tb.counts), "names": names},
            label=str(_("Desafío: desempate")),
        )
        stored = roll(spec)
        stream = [int(d) for _p, dice in stored.result["rolls"] for d in dice]
        ix = by_the_rules(partial(ix_rules.roll_tiebreak, ix, ScriptedDice(stream)))  # the stored faces
        rolls.append(stored.id)
        lines.append(RecordLine(in_both(partial(_fist_words, stored.result)), rolls=(stored.id,)))
    state = state.model_copy(update={"ix": interaction_json(ix), "tiebreak_rolls": rolls})
    if ix.stage in (Stage.LEFT_TIEBREAK, Stage.RIGHT_TIEBREAK):
        return Outcome(state=state.model_copy(update={"stage": "tiebreak"}), secret=secret, record=lines)
    narrators = list(ix.narrators)
    update: dict[str, Any] = {
        "stage": "narration",
        "winners": list(ix.left.winners) if ix.left else [],
        "narrators": narrators,
        "narration": None,
        "narration_pending": None if len(narrators) > 1 else (narrators[0] if narrators else talk.VOICE_GM),
        "joint": narr.JointNarration(order=tuple(narrators)) if len(narrators) > 1 else None,
    }
    state = state.model_copy(update=update)
    verdict = _verdict_words(state, ix)
    follow_ups = [FollowUp(rolls[-1], "desafio", verdict)] if rolls and ix.right is not None else []
    return Outcome(state=state, secret=secret, record=[*lines, RecordLine(verdict)], follow_ups=follow_ups)


def _fist_words(result: JSON) -> str:
    return fist_summary(result, get_language() or "es")


def _verdict_words(state: DesafioState, ix: Interaction) -> Names:
    names = {seat.id: seat.name for seat in state.participants}
    left = ix.left
    assert left is not None  # both fists are resolved here
    narrators = list(ix.narrators)

    def words() -> str:
        who = ", ".join(talk.who_named(state, n) for n in narrators)
        if left.verdict is Verdict.WIN:
            return _("Gana el desafío %(winner)s; narra %(who)s") % {"winner": names[left.winners[0]], "who": who}
        tied = ", ".join(names[p] for p in left.winners)
        return _("Empate entre %(tied)s; narra %(who)s") % {"tied": tied, "who": who}

    return in_both(words)


def _talent(given: StepInput[DesafioState, TalentParams]) -> Outcome[DesafioState]:
    state, params, secret = given.state, given.params, _secret(given)
    pending = list((state.ix.get("tiebreak") or {}).get("talent_pending", []))
    me = _seat_for(given, params.participant, pending)
    before = _interaction(state, secret, given.procedure_id)
    ix = by_the_rules(lambda: ix_rules.talent_decision(before, me.id, params.index, given.dice))
    talent = dict(secret.talent)
    follow_ups: list[FollowUp] = []
    lines: list[RecordLine] = []
    decided = in_both(lambda: _("%(name)s decide sobre su talento (sellado).") % {"name": me.name})
    if ix.tiebreak is not None and ix.tiebreak.talent_pending:
        talent[me.id] = seal({"index": params.index}, _bound(given.procedure_id, me.id, "talent"))
    else:  # every decision is in: applied all together, shown under the tie-break roll
        talent = {}
        assert before.tiebreak is not None
        side = before.tiebreak.side
        same = ix.tiebreak is not None and ix.tiebreak.side is side
        settled = ix.left if side is Side.LEFT else ix.right
        rolled = dict(ix.tiebreak.rolls if same and ix.tiebreak else (settled.rolls if settled else ()))
        names = {seat.id: seat.name for seat in state.participants}
        text = ", ".join(f"{names.get(p, p)} {dice_text(d)}" for p, d in rolled.items())
        said = in_both(lambda: _("Talento destacado: %(dice)s") % {"dice": text})
        lines.append(RecordLine(said))
        if state.tiebreak_rolls:
            follow_ups.append(FollowUp(state.tiebreak_rolls[-1], "talent", said))
    after = _advance(given.table, given.roll, state, ix, DesafioSecret(sealed=secret.sealed, talent=talent))
    return replace(
        after,
        record=[RecordLine(decided), *lines, *after.record],
        follow_ups=[*follow_ups, *after.follow_ups],
        step_params={"participant": me.id},
    )


def _settle_tiebreak(given: StepInput[DesafioState, NoParams]) -> Outcome[DesafioState]:
    secret = _secret(given)
    ix = by_the_rules(lambda: ix_rules.settle_tiebreak(_interaction(given.state, secret, given.procedure_id)))
    return _advance(given.table, given.roll, given.state, ix, secret)


def _cancel(given: StepInput[DesafioState, NoParams]) -> Outcome[DesafioState]:
    ix = by_the_rules(lambda: ix_rules.cancel(_interaction(given.state, _secret(given), given.procedure_id)))
    words = in_both(lambda: _("El máster cancela el desafío."))
    state = given.state.model_copy(update={"stage": "cancelled", "ix": interaction_json(ix)})
    return Outcome(state=state, secret=DesafioSecret(), closes="cancelled", record=[RecordLine(words)])


# --- The narration: one narrator with the table's vetoes, or a joint narration ------------------------------


def _narrated(given: StepInput[DesafioState, Any], after: narr.Narration) -> Outcome[DesafioState]:
    state, before = given.state, given.state.narration
    update: dict[str, Any] = {"narration": after}
    if after.status is narr.NarrationStatus.CONTESTED and (before is None or before.status is not after.status):
        from django.utils import timezone

        update["contested_at"] = timezone.now().isoformat()
    state = state.model_copy(update=update)
    lines = talk.changed_lines(state, before, after)
    said = talk.status_words(after) if before is not None and before.status is not after.status else None
    follow_ups = [FollowUp(state.tiebreak_rolls[-1], "narration", said)] if said and state.tiebreak_rolls else []
    if talk.is_final(after):
        done = state.model_copy(update={"stage": "done"})
        return Outcome(state=done, closes="settled", record=lines, follow_ups=follow_ups)
    return Outcome(state=state, record=lines, follow_ups=follow_ups)


def _narrate_part(given: StepInput[DesafioState, PartParams]) -> Outcome[DesafioState]:
    state = given.state
    assert state.joint is not None
    voice = talk.voice_of(given.viewer)
    joint = by_the_rules(lambda: narr.post_part(state.joint, voice, given.params.text))  # type: ignore[arg-type]
    text = given.params.text
    words = in_both(lambda: _("Parte de %(who)s: «%(text)s»") % {"who": talk.who_named(state, voice), "text": text})
    return Outcome(state=state.model_copy(update={"joint": joint}), record=[RecordLine(words)])


def _close_joint(given: StepInput[DesafioState, NoParams]) -> Outcome[DesafioState]:
    state = given.state
    assert state.joint is not None
    voice = talk.voice_of(given.viewer)
    joint = by_the_rules(lambda: narr.close_joint(state.joint, voice))  # type: ignore[arg-type]
    words = in_both(lambda: _("El máster cierra la narración conjunta."))
    done = state.model_copy(update={"joint": joint, "stage": "done"})
    return Outcome(state=done, closes="settled", record=[RecordLine(words)])


# --- Who may take each step now ---------------------------------------------------------------------


def _committers(state: DesafioState) -> set[Actor]:
    """The controllers of the participants yet to commit."""
    if state.stage != "committing":
        return set()
    return {seat.controller for seat in state.participants if seat.id not in state.committed}


def _amenders(state: DesafioState) -> set[Actor]:
    """The controllers of the participants who committed: a split may be amended until the reveal."""
    if state.stage != "committing":
        return set()
    return {seat.controller for seat in state.participants if seat.id in state.committed}


def _talent_deciders(state: DesafioState) -> set[Actor]:
    if state.stage != "tiebreak":
        return set()
    pending = set((state.ix.get("tiebreak") or {}).get("talent_pending", []))
    return {seat.controller for seat in state.participants if seat.id in pending}


def _gm_settles(state: DesafioState) -> set[Actor]:
    pending = (state.ix.get("tiebreak") or {}).get("talent_pending", [])
    return {GM} if state.stage == "tiebreak" and not pending else set()


def _joint_author(state: DesafioState) -> set[Actor]:
    joint = state.joint
    if state.stage != "narration" or joint is None or joint.closed or joint.next_author is None:
        return set()
    return {talk.actor_of(joint.next_author)}


def _gm_closes_joint(state: DesafioState) -> set[Actor]:
    joint = state.joint
    done = joint is not None and not joint.closed and len(joint.parts) >= len(joint.order)
    return {GM} if state.stage == "narration" and done else set()


# --- Pickers and waiting lines ------------------------------------------------------------------------


def _my_seats(state: DesafioState, table: Table, viewer: policy.Viewer) -> Mapping[str, Sequence[Choice]]:
    return {"participant": [Choice(seat.id, seat.name) for seat in state.participants if _mine(viewer, seat)]}


def _talent_choices(state: DesafioState, table: Table, viewer: policy.Viewer) -> Mapping[str, Sequence[Choice]]:
    tb = state.ix.get("tiebreak") or {}
    pending = set(tb.get("talent_pending", []))
    seats = [seat for seat in state.participants if seat.id in pending and _mine(viewer, seat)]
    dice = {pid: faces for pid, faces in tb.get("rolls", [])}
    options = [Choice("", str(_("Renunciar al talento")))]
    for seat in seats[:1]:
        options += [Choice(str(i), _("Repetir el %(face)d") % {"face": d}) for i, d in enumerate(dice.get(seat.id, []))]
    return {"participant": [Choice(seat.id, seat.name) for seat in seats], "index": options}


def _commit_waiting(state: DesafioState, table: Table) -> Names:
    missing = ", ".join(seat.name for seat in state.participants if seat.id not in state.committed)
    return in_both(
        lambda: (
            _("Repartos sellados entre el puño izquierdo (ganar) y el derecho (narrar): faltan %(names)s")
            % {"names": missing}
        )
    )


def _opening_choices(table: Table, viewer: policy.Viewer) -> Mapping[str, Sequence[Choice]]:
    """The GM's form: participants by name, each with the skills of their sheet (``skill_<id>``, labelled with
    the pool they give), and ``npc``: the NPCs, whose pool the GM may set instead."""
    if not policy.may_run_gm_procedure(viewer):
        return {}
    rules = rules_of(table)
    approved = [c for c in table.characters.values() if c.approved]
    choices: dict[str, Sequence[Choice]] = {
        "character": [Choice(str(c.id), c.name) for c in approved],
        "npc": [Choice(str(c.id), c.name) for c in approved if c.is_npc],
    }
    for character in approved:
        try:
            skills = sheet_of(character, rules).skills
        except RulesError:  # a sheet that no longer validates offers no skills
            skills = ()
        choices[f"skill_{character.id}"] = [
            Choice(skill.name, _("%(skill)s (%(n)d dados)") % {"skill": skill.display, "n": 1 + skill.dice})
            for skill in skills
        ]
    return choices


DESAFIO: Procedure[DesafioState] = Procedure(
    key=KEY,
    title=gettext_lazy("Desafío"),
    state=DesafioState,
    secret=DesafioSecret,
    opening=Opening(params=DesafioOpen, run=_open, choices=_opening_choices),
    steps=(
        Step(
            key="commit",
            label=gettext_lazy("Sellar mi reparto"),
            params=CommitParams,
            who=_committers,
            run=_commit,
            form="event/procedures/commit_fields.html",
            choices=_my_seats,
            waiting=_commit_waiting,
        ),
        Step(
            key="amend",
            label=gettext_lazy("Cambiar mi reparto"),
            params=CommitParams,
            who=_amenders,
            run=_amend,
            awaited=False,  # until the reveal
            form="event/procedures/commit_fields.html",
            choices=_my_seats,
        ),
        Step(
            key="cancel",
            label=gettext_lazy("Cancelar el desafío"),
            params=NoParams,
            who=lambda s: {GM} if s.stage == "committing" else set(),
            run=_cancel,
            awaited=False,
        ),
        Step(
            key="talent",
            label=gettext_lazy("Decidir (sellado)"),
            params=TalentParams,
            who=_talent_deciders,
            run=_talent,
            form="event/procedures/desafio_talent_fields.html",
            choices=_talent_choices,
            waiting=lambda s, t: in_both(
                lambda: _("Talento destacado en el desempate: repetir un dado o renunciar (decisión sellada)")
            ),
        ),
        Step(
            key="settle_tiebreak",
            label=gettext_lazy("Cerrar el desempate"),
            params=NoParams,
            who=_gm_settles,
            run=_settle_tiebreak,
        ),
        *talk.narration_steps(_narrated, narr.NarrationKind.INTERACTION),
        Step(
            key="narrate_part",
            label=gettext_lazy("Narrar mi parte"),
            params=PartParams,
            who=_joint_author,
            run=_narrate_part,
            form="event/procedures/part_fields.html",
            waiting=lambda s, t: in_both(
                lambda: (
                    _("Parte de la narración conjunta de %(who)s")
                    % {"who": talk.who_named(s, s.joint.next_author if s.joint and s.joint.next_author else "")}
                )
            ),
        ),
        Step(
            key="close_joint",
            label=gettext_lazy("Cerrar la narración conjunta"),
            params=NoParams,
            who=_gm_closes_joint,
            run=_close_joint,
        ),
    ),
)
