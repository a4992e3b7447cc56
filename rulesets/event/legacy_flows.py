"""Event flows in the thread, on top of the pure state machines in ``systems.event``.

- ``action`` (Acción): the GM calls an action on a character with a public difficulty (and the one related
  skill she accepts). The pool is built from the sheet and the automatic-outcome gate applies: more dice
  than the difficulty is an automatic absolute success; otherwise the character's player (the GM for an
  NPC) chooses to roll or to take the partial success / failure offered. The server rolls; a talent-built
  pool may reroll one die (a follow-up under the roll). Then the narration: an absolute success is the
  player's, anything else the GM's. Optional rules, when the campaign switches them on (§6.7, §6.9-§6.11):
  a player's pool first stays open for a communal die (vetoable by the table under ``veto_on_take``,
  consumed through the ledger at the lock) and a wild die (won with a bet the GM accepts, rejects or
  counters; it forces the roll); after a real roll the player may bet for one reckless roll, a new Roll
  that replaces the old one. Each agreed bet triggers on a rolled failure or critical failure.
- ``desafio`` (Desafío, an interaction): the GM names the participants (characters, or NPC pools she sets).
  Each participant's controller commits a sealed split of the pool between the left fist (who wins) and
  the right fist (who narrates), and may amend it until the reveal, which is automatic and atomic when the
  last one commits. Ties are rolled by the server (a ``fist_tiebreak`` roll per fist). Then the narration:
  the right-fist winner, the GM (an NPC won it), or a joint narration in seat order that the GM closes.
- Narration vetoes (§4) in both, when the campaign switched ``core.narration_veto`` on: the GM and the
  players vote, two or more vetoes contest the narration; its author answers once (defend or
  reformulate); two or more vetoes in review overrule it (an action's absolute success becomes a partial
  success) and the GM narrates.

Secrecy. A sealed split is hidden from everyone, the GM included (§5.3): the runner shows a flow's
``secret_state`` to GMs, so splits (and sealed talent decisions) are stored there *encrypted* with a key
from ``tintero.sealing`` (AES-GCM, bound to the flow and the participant, keys that rotate); the step
row records only the participant and the commitment's hash (``StepResult.step_params``), never the
numbers. The hashes are public at commit and their nonces at the reveal, so anyone can check them.
"""

from __future__ import annotations

import secrets
from dataclasses import asdict, replace
from datetime import datetime, timedelta
from typing import Any

from django.core.exceptions import PermissionDenied
from django.utils import timezone
from django.utils.translation import gettext as _
from pydantic import BaseModel, ConfigDict, Field
from pydantic import ValidationError as PydanticValidationError

from campaigns import policy
from campaigns.events import Event, EventType, publish
from campaigns.models import Membership, Role
from characters.models import Character, CharacterStatus
from characters.services import pydantic_to_validation_error
from rolls.flows import JSON, FollowUpSpec, LedgerOp, StepContext, StepResult, flow_audience
from rolls.models import Flow, FlowStatus, FlowStep
from rolls.services import RollSpec
from rulesets.event.rolls import (
    ACTION,
    FIST_TIEBREAK,
    FlowExtras,
    action_extras,
    action_summary,
    dice_text,
    outcome_name,
    settings_of,
)
from rulesets.event.sheet import communal
from systems.dice import ScriptedDice
from systems.errors import RulesError
from systems.event import desafio as ix_rules
from systems.event import narration as narr
from systems.event import reactions as rx
from systems.event.action import ActionStage, ActionState, Choice, Gate, decline_talent, start_action, talent_reroll
from systems.event.bets import (
    Bet,
    BetKind,
    BetStatus,
    gm_accept,
    gm_counter,
    gm_reject,
    player_accept_counter,
    player_reject_counter,
    propose_bet,
)
from systems.event.communal import one_communal_die
from systems.event.desafio import DecidedBy, FistResult, Interaction, Participant, Side, Split, Stage, Tiebreak, Verdict
from systems.event.ladder import Outcome
from systems.event.pool import PoolBreakdown
from systems.event.rolling import DiceRules
from systems.event.settings import EventSettings
from systems.event.sheet import EventSheet, is_talent, unknown_skill
from systems.event.veto import CloseReason, VetoWindow, VoteKind, close_if_everyone_voted, open_window
from systems.event.veto import Verdict as VetoVerdict
from systems.event.veto import cast as veto_cast
from systems.event.veto import close as veto_close
from tintero.sealing import seal, unseal

GM = "GM"  # the GMs' single voice in votes and narrations (the GM counts as one voter, like anyone)


# --- Helpers --------------------------------------------------------------------------------------


def _refuse(code: str, es: str, en: str) -> RulesError:
    return RulesError(code, es, en)


def _out_of_order() -> RulesError:
    return _refuse("STEP_OUT_OF_ORDER", "Ese paso no toca ahora.", "That step is not due now.")


def _parse(model: type[BaseModel], params: JSON) -> Any:
    try:
        return model.model_validate(params)
    except PydanticValidationError as exc:
        raise pydantic_to_validation_error(exc, "params") from None


def _kept(secret: JSON) -> JSON:
    """Only what is still sealed (an empty secret state shows nothing on the GM's page)."""
    return {key: value for key, value in secret.items() if value}


def _rules(ctx: StepContext) -> EventSettings:
    return settings_of(ctx.settings)


def _waiting(step: str, es: str, en: str, users: Any = (), gm: bool = False) -> JSON:
    waiting: JSON = {"step": step, "label_es": es, "label_en": en, "users": sorted({int(u) for u in users})}
    if gm:
        waiting["who"] = "gm"
    return waiting


def controller(character: Character) -> str | int:
    """Who acts for a character: its player, or the GMs for an NPC."""
    return "gm" if character.is_npc or character.owner_id is None else int(character.owner_id)


def _voice(ctx: StepContext) -> str:
    """The actor as a voter or narrator: ``GM`` for any GM, the user id (as text) for a player."""
    return GM if ctx.viewer.is_gm else str(ctx.actor.pk)


def _require_gm(ctx: StepContext) -> None:
    if not policy.may_run_gm_procedure(ctx.viewer):
        raise PermissionDenied(_("Solo un máster puede hacer esto."))


def _character(ctx: StepContext, pk: Any) -> Character:
    character = ctx.characters.get(int(pk)) if pk not in (None, "") else None
    if character is None or character.status != CharacterStatus.APPROVED:
        raise _refuse(
            "unknown_character",
            "Ese personaje no está aprobado en esta partida.",
            "That character is not approved in this campaign.",
        )
    return character


def _sheet(character: Character, rules: EventSettings) -> EventSheet:
    return EventSheet.model_validate(character.sheet or {}, context={"settings": rules})


def _people(ctx: StepContext) -> JSON:
    """Names for the fragment: ``GM`` and each player's user id (as text)."""
    people: JSON = {GM: str(_("Máster"))}
    for m in Membership.objects.filter(campaign_id=ctx.flow.campaign_id, role=Role.PLAYER).select_related("user"):
        people[str(m.user_id)] = m.user.public_name
    return people


def _voters(ctx: StepContext) -> list[str]:
    """Who may veto a narration: the GM and the campaign's players (§4.2)."""
    players = Membership.objects.filter(campaign_id=ctx.flow.campaign_id, role=Role.PLAYER)
    return [GM, *(str(uid) for uid in players.values_list("user_id", flat=True))]


def _as_actor(voice: str) -> str | int:
    return "gm" if voice == GM else int(voice)


# --- Narration and its vetoes (§4), shared by both flows --------------------------------------------


def window_json(w: VetoWindow | None) -> JSON | None:
    if w is None:
        return None
    return {
        "author": w.author,
        "eligible": sorted(w.eligible),
        "votes": [[v, k.value] for v, k in w.votes],
        "closed": w.closed,
        "verdict": w.verdict.value,
        "close_reason": w.close_reason.value if w.close_reason else None,
        "vetoes": sorted(w.vetoes),
    }


def window_of(d: JSON | None) -> VetoWindow | None:
    if d is None:
        return None
    return VetoWindow(
        author=d["author"],
        eligible=frozenset(d["eligible"]),
        votes=tuple((v, VoteKind(k)) for v, k in d["votes"]),
        closed=d["closed"],
        verdict=VetoVerdict(d["verdict"]),
        close_reason=CloseReason(d["close_reason"]) if d.get("close_reason") else None,
    )


def narration_json(n: narr.Narration) -> JSON:
    return {
        "kind": n.kind.value,
        "author": n.author,
        "narrator": n.narrator,
        "text": n.text,
        "status": n.status.value,
        "vetoable": n.vetoable,
        "window": window_json(n.window),
        "phase": n.phase,
        "history": list(n.history),
        "path": [s.value for s in n.path],
        "responded": n.responded,
        "outcome": n.outcome.value if n.outcome else None,
        "argument": n.argument,
        "gm_text": n.gm_text,
        "overruled": n.overruled,
    }


def narration_of(d: JSON) -> narr.Narration:
    return narr.Narration(
        kind=narr.NarrationKind(d["kind"]),
        author=d["author"],
        narrator=d["narrator"],
        text=d["text"],
        status=narr.NarrationStatus(d["status"]),
        vetoable=d["vetoable"],
        window=window_of(d.get("window")),
        phase=d.get("phase"),
        history=tuple(d.get("history") or ()),
        path=tuple(narr.NarrationStatus(s) for s in d.get("path") or ()),
        responded=bool(d.get("responded")),
        outcome=Outcome(d["outcome"]) if d.get("outcome") else None,
        argument=d.get("argument"),
        gm_text=d.get("gm_text"),
    )


class TextIn(BaseModel):
    model_config = ConfigDict(extra="ignore")
    text: str = Field(min_length=1, max_length=10_000)


class ArgumentIn(BaseModel):
    model_config = ConfigDict(extra="ignore")
    argument: str = Field("", max_length=10_000)


NARRATION_STEPS = frozenset(
    {"narrate", "veto", "no_veto", "withdraw", "close_votes", "defend", "reformulate", "concede", "no_answer"}
    | {"gm_narrate", "narrate_part", "close_joint"}
)


def narration_actors(state: JSON, step: str) -> frozenset[str | int]:
    """Who may take a narration step now, from the stored narration."""
    pending = state.get("narration_pending")  # the narrator(s) before anything is posted
    n = state.get("narration")
    joint = state.get("joint")
    if step == "narrate" and pending and n is None:
        return frozenset({_as_actor(pending)})
    if joint is not None:
        if step == "narrate_part" and not joint.get("closed"):  # the rules say whose part it is
            return frozenset(_as_actor(who) for who in joint["order"])
        if step == "close_joint":
            return frozenset({"gm"})
        return frozenset()
    if n is None:
        return frozenset()
    window = n.get("window") or {}
    if step in ("veto", "no_veto", "withdraw"):
        return frozenset(_as_actor(v) for v in window.get("eligible", []))
    if step in ("defend", "reformulate", "concede"):
        return frozenset({_as_actor(n["author"])})
    if step in ("close_votes", "no_answer", "gm_narrate"):
        return frozenset({"gm"})
    return frozenset()


def narration_waiting(state: JSON) -> JSON:
    """What the narration waits for, in words."""
    people = state.get("people", {})
    pending = state.get("narration_pending")
    n = state.get("narration")
    joint = state.get("joint")
    if joint is not None:
        if joint.get("next") and len(joint.get("parts", [])) < len(joint.get("order", [])):
            nxt = joint["next"]
            return _waiting(
                "narrate_part",
                f"Parte de la narración conjunta de {people.get(nxt, nxt)}",
                f"{people.get(nxt, nxt)}'s part of the joint narration",
                [] if nxt == GM else [nxt],
                nxt == GM,
            )
        return _waiting(
            "close_joint", "Cerrar la narración conjunta (o pedir otra ronda)", "Close the joint narration", gm=True
        )
    if n is None:
        who = pending or GM
        return _waiting(
            "narrate",
            f"Narración de {people.get(who, who)}",
            f"{people.get(who, who)}'s narration",
            [] if who == GM else [who],
            who == GM,
        )
    status = n["status"]
    window = n.get("window") or {}
    if status in ("PROPOSED", "DEFENDED", "REFORMULATED"):
        voted = {v for v, _k in window.get("votes", [])}
        missing = [v for v in window.get("eligible", []) if v not in voted]
        return _waiting(
            "veto",
            "Votos sobre la narración (¡Veto! o sin objeción); el máster puede cerrar la votación",
            "Votes on the narration (veto or no objection); the GM may close the vote",
            [v for v in missing if v != GM],
            True,
        )
    if status == "CONTESTED":
        author = n["author"]
        return _waiting(
            "defend",
            f"{people.get(author, author)}: defender su postura o reformular",
            f"{people.get(author, author)}: defend the narration or reformulate it",
            [author],
        )
    if status == "GM_NARRATION":
        return _waiting(
            "gm_narrate", "Narración del máster (narración anulada)", "The GM's narration (overruled)", gm=True
        )
    return {}


def narration_step(ctx: StepContext, state: JSON, step: str, params: JSON, rules: EventSettings) -> JSON:
    """Apply one narration step to ``state`` (returns the new state); the pure rules refuse the rest."""
    state = dict(state)
    voice = _voice(ctx)
    if step == "narrate":
        if state.get("narration") is not None or state.get("joint") is not None or not state.get("narration_pending"):
            raise _out_of_order()
        author = state["narration_pending"]
        if voice != author:
            raise PermissionDenied(_("Esta narración no te corresponde."))
        text = _parse(TextIn, params).text
        kind = narr.NarrationKind(state["narration_kind"]) if author != GM else narr.NarrationKind.GM
        outcome = Outcome(state["outcome"]) if state.get("outcome") else None
        n = narr.propose(kind, author, text, _voters(ctx), rules.core.narration_veto, outcome=outcome)
        state["narration"] = narration_json(n)
        return state
    if step in ("narrate_part", "close_joint"):
        joint_state = state.get("joint")
        if joint_state is None:
            raise _out_of_order()
        joint = narr.JointNarration(
            order=tuple(joint_state["order"]),
            parts=tuple((a, t) for a, t in joint_state["parts"]),
            closed=joint_state["closed"],
        )
        if step == "narrate_part":
            joint = narr.post_part(joint, voice, _parse(TextIn, params).text)
        else:
            joint = narr.close_joint(joint, voice)
        state["joint"] = {
            "order": list(joint.order),
            "parts": [list(p) for p in joint.parts],
            "closed": joint.closed,
            "next": joint.next_author,
        }
        return state
    data = state.get("narration")
    if data is None:
        raise _out_of_order()
    n = narration_of(data)
    if step in ("veto", "no_veto"):
        n = narr.vote(n, voice, VoteKind.VETO if step == "veto" else VoteKind.NO_VETO)
        if n.window is not None and n.window.everyone_voted:
            n = narr.close_window(n, CloseReason.ALL_VOTED)
    elif step == "withdraw":
        n = narr.withdraw_vote(n, voice)
    elif step == "close_votes":
        n = narr.close_window(n, CloseReason.GM)
    elif step == "defend":
        n = narr.defend(n, voice, _parse(ArgumentIn, params).argument)
    elif step == "reformulate":
        n = narr.reformulate(n, voice, _parse(TextIn, params).text)
    elif step == "concede":
        n = narr.concede(n, voice)
    elif step == "no_answer":
        contested_at = state.get("contested_at")
        hours = rules.core.veto_response_hours
        deadline = datetime.fromisoformat(contested_at) + timedelta(hours=hours) if contested_at else None
        if n.status is narr.NarrationStatus.CONTESTED and deadline is not None and timezone.now() < deadline:
            raise _refuse(
                "RESPONSE_TIME_LEFT",
                f"El autor aún tiene tiempo para responder ({hours:g} h desde el veto).",
                f"The author still has time to answer ({hours:g} h from the veto).",
            )
        n = narr.response_deadline_passed(n)
    elif step == "gm_narrate":
        n = narr.post_gm_narration(n, voice, _parse(TextIn, params).text)
    else:
        raise _out_of_order()
    if n.status is narr.NarrationStatus.CONTESTED and data["status"] != "CONTESTED":
        state["contested_at"] = timezone.now().isoformat()
    state["narration"] = narration_json(n)
    return state


def narration_final(state: JSON) -> bool:
    joint = state.get("joint")
    if joint is not None:
        return bool(joint.get("closed"))
    n = state.get("narration")
    return n is not None and n["status"] == "FINAL"


def narration_summary(state: JSON) -> tuple[str, str] | None:
    """A follow-up under the roll when a narration changes status (vetoed, overruled, accepted)."""
    n = state.get("narration")
    if n is None:
        return None
    status = n["status"]
    path = n.get("path", [])
    if status == "CONTESTED":
        count = len((n.get("window") or {}).get("vetoes", []))
        return f"Narración vetada ({count} vetos)", f"Narration vetoed ({count} vetoes)"
    if status == "GM_NARRATION" and "OVERRULED" in path:
        if n.get("kind") == "ACTION_ABSOLUTE":
            return (
                "Narración anulada → éxito parcial; narra el máster",
                "Narration overruled → partial success; the GM narrates",
            )
        return "Narración anulada: narra el máster (el resultado del desafío se mantiene)", (
            "Narration overruled: the GM narrates (the challenge result stands)"
        )
    if status == "FINAL" and "ACCEPTED" in path:
        return "Narración aceptada", "Narration accepted"
    return None


# --- The action flow (§3, with §6.7 communal die, §6.9 reckless roll, §6.10 wild die) ---------------------


class ActionStart(BaseModel):
    model_config = ConfigDict(extra="ignore")

    character: int
    difficulty: int = Field(ge=1, le=1000)
    skill: str | None = Field(None, max_length=80)
    reaction_flow: int | None = None  # a valued, unused reaction of the acting character: its extra dice


class ChooseIn(BaseModel):
    model_config = ConfigDict(extra="ignore")
    choice: Choice


class TalentIn(BaseModel):
    model_config = ConfigDict(extra="ignore")
    index: int | None = Field(None, ge=0, le=100)  # None: decline


class BetIn(BaseModel):
    model_config = ConfigDict(extra="ignore")
    text: str = Field(min_length=1, max_length=500)


# The steps of the optional rules. Their actors do not depend on the stage, so a step taken out of order (or
# twice) reaches the rules and is refused with a code instead of a bare "not yours".
CONTROLLER_STEPS = frozenset(
    {"take_communal", "propose_wild", "propose_reckless", "accept_counter", "reject_counter", "keep_result"}
)
GM_BET_STEPS = frozenset({"accept_bet", "reject_bet", "counter_bet"})
TAKE_VOTE_STEPS = frozenset({"veto_take", "no_veto_take"})
BET_STEPS = GM_BET_STEPS | {"propose_wild", "propose_reckless", "accept_counter", "reject_counter"}


def _action_state(result: JSON, rules: EventSettings) -> ActionState:
    """Rebuild the pure action from the stored roll's result (the roll is the evidence)."""
    b = result["breakdown"]
    return ActionState(
        pool=PoolBreakdown(
            skill=result.get("skill"),
            skill_dice=b["skill"],
            communal=b["communal"],
            reaction=b["reaction"],
            wild=b["wild"],
            npc=result.get("npc", False),
            talent_built=result.get("talent_built", False),
        ),
        difficulty=int(result["difficulty"]),
        gate=Gate(result["gate"]),
        stage=ActionStage(result["stage"]),
        rules=DiceRules.for_scope(rules, "actions"),
        talent_eligible=bool(result.get("talent_eligible")),
        # The flow runs the reckless roll itself (a new Roll after the bet steps), never the pure one here.
        reckless_allowed=False,
        choice=Choice(result["choice"]) if result.get("choice") else None,
        outcome=Outcome(result["outcome"]) if result.get("outcome") else None,
        thrown=tuple(result.get("thrown", [])),
        dice=tuple(result.get("dice", [])),
        rerolled_index=result.get("rerolled_index"),
    )


def bet_json(bet: Bet | None) -> JSON | None:
    if bet is None:
        return None
    return {
        "kind": bet.kind.value,
        "player_text": bet.player_text,
        "status": bet.status.value,
        "gm_counter_text": bet.gm_counter_text,
        "terms": bet.terms,
    }


def bet_of(d: JSON | None) -> Bet | None:
    if not d:
        return None
    return Bet(BetKind(d["kind"]), d["player_text"], BetStatus(d["status"]), d.get("gm_counter_text"))


BET_NAMES = {BetKind.WILD_DIE: ("dado alocado", "wild die"), BetKind.RECKLESS: ("tirada temeraria", "reckless roll")}


def _communal_left(ctx: StepContext) -> int:
    from characters.services import rules_state

    return communal(rules_state(ctx.flow.campaign))


def _communal_empty() -> RulesError:
    return _refuse("COMMUNAL_EMPTY", "La reserva comunal está vacía.", "The communal pool is empty.")


def _npc_not_allowed() -> RulesError:
    return _refuse(
        "NPC_NOT_ALLOWED",
        "Los PNJ no usan la reserva comunal, el dado alocado ni la tirada temeraria.",
        "NPCs do not use the communal pool, the wild die or the reckless roll.",
    )


def _bet_pending() -> RulesError:
    return _refuse(
        "BET_PENDING",
        "Hay una apuesta sin cerrar: el máster (o el jugador, ante una contraoferta) debe responder antes.",
        "A bet is still being negotiated: it must be answered first.",
    )


class ActionFlow:
    """Acción: (pool: communal die, wild die) → gate → choice → (talent) → (reckless) → narration → settled.

    The pool stage opens only for a player's character when the campaign switched the communal pool or the
    wild die on (§3.10 POOL_PENDING): the player takes a communal die (vetoable when ``veto_on_take``) and/or
    negotiates a wild die's bet, then locks the pool. §6.11's order: extras add up; at the lock the communal
    die is consumed through the ledger and the gate applies unless the wild die forces a roll; roll and
    explode; talent; evaluate; the optional reckless roll (its own bet, a new Roll replacing the old one,
    talent eligible again); then whether each bet triggered, and the narration.
    """

    key = "action"

    def start(self, ctx: StepContext, params: JSON) -> StepResult:
        _require_gm(ctx)  # the GM calls the action and announces its difficulty (§3.1, §3.10)
        data = _parse(ActionStart, params)
        rules = _rules(ctx)
        character = _character(ctx, data.character)
        sheet = _sheet(character, rules)
        pool = PoolBreakdown(npc=character.is_npc)
        if data.skill:
            skill = sheet.skill(data.skill)
            if skill is None:
                raise unknown_skill(data.skill)
            talent = rules.talent_enabled and is_talent(sheet, skill.name)
            pool = PoolBreakdown(skill=skill.display, skill_dice=skill.dice, npc=character.is_npc, talent_built=talent)
        used: JSON | None = None
        if data.reaction_flow:
            used = use_reaction_flow(ctx, data.reaction_flow, character)
            pool = replace(pool, reaction=used["dice"])
        start_action(pool, data.difficulty, rules)  # refuses a difficulty out of range before anything else
        state: JSON = {
            "stage": "pool",
            "character": character.pk,
            "character_name": character.name,
            "controller": controller(character),
            "npc": character.is_npc,
            "difficulty": data.difficulty,
            "skill": data.skill,
            "skill_dice": pool.skill_dice,
            "talent_built": pool.talent_built,
            "communal": 0,
            "wild": 0,
            "pool": pool.total,
            "people": _people(ctx),
            "narration_kind": narr.NarrationKind.ACTION_ABSOLUTE.value,
            "bet": None,
            "bets": [],
        }
        if used is not None:
            state["reaction_flow"] = used["flow"]
            state["reaction_dice"] = used["dice"]
        if self._pool_open(state, rules):
            optional = rules.optional
            state["extras_on"] = {"communal": optional.communal_pool.enabled, "wild": optional.wild_die.enabled}
            return StepResult(state=state, waiting_for=self._pool_waiting(state))
        return self._lock(ctx, state)

    # --- Pool building (§6.7, §6.10) -----------------------------------------------------------------

    @staticmethod
    def _pool_open(state: JSON, rules: EventSettings) -> bool:
        """Extras a player may add before the lock: only for a player's character (§8 A-22)."""
        optional = rules.optional
        return state["controller"] != "gm" and (optional.communal_pool.enabled or optional.wild_die.enabled)

    @staticmethod
    def _pool(state: JSON) -> PoolBreakdown:
        return PoolBreakdown(
            skill=state.get("skill"),
            skill_dice=int(state.get("skill_dice") or 0),
            communal=int(state.get("communal") or 0),
            reaction=int(state.get("reaction_dice") or 0),
            wild=int(state.get("wild") or 0),
            npc=bool(state.get("npc")),
            talent_built=bool(state.get("talent_built")),
        )

    @staticmethod
    def _extras(state: JSON, reckless: bool = False) -> FlowExtras:
        return FlowExtras(
            reaction=int(state.get("reaction_dice") or 0),
            communal=bool(state.get("communal")),
            wild=bool(state.get("wild")),
            reckless=reckless,
        )

    @staticmethod
    def _player(state: JSON) -> list[Any]:
        who = state["controller"]
        return [] if who == "gm" else [who]

    def _bet_waiting(self, state: JSON, es_for: str, en_for: str) -> JSON | None:
        """Who an open bet (wild die or reckless roll: one negotiation, §6.10) waits for; None without one."""
        name = state["character_name"]
        bet = state.get("bet") or {}
        if bet.get("status") == BetStatus.PROPOSED:
            return _waiting(
                "accept_bet",
                f"Apuesta de {name} por {es_for}: aceptar, rechazar o contraofertar",
                f"{name}'s bet for {en_for}: accept, reject or counter",
                gm=True,
            )
        if bet.get("status") == BetStatus.COUNTERED:
            return _waiting(
                "accept_counter",
                f"{name}: aceptar o rechazar la contraoferta del máster",
                f"{name}: accept or reject the GM's counter",
                self._player(state),
            )
        return None

    def _pool_waiting(self, state: JSON) -> JSON:
        name = state["character_name"]
        betting = self._bet_waiting(state, "el dado alocado", "the wild die")
        if betting is not None:
            return betting
        take = state.get("communal_take")
        if take and not take.get("closed"):
            voted = {v for v, _k in take.get("votes", [])}
            missing = [v for v in take.get("eligible", []) if v not in voted]
            return _waiting(
                "veto_take",
                f"Votos sobre el dado comunal de {name} (¡Veto! o sin objeción); el máster puede cerrar",
                f"Votes on {name}'s communal die (veto or no objection); the GM may close the vote",
                [v for v in missing if v != GM],
                True,
            )
        return _waiting(
            "lock_pool",
            f"{name}: coger un dado comunal o pedir el dado alocado, y cerrar la reserva",
            f"{name}: take a communal die or ask for the wild die, then lock the pool",
            self._player(state),
        )

    def _take_communal(self, ctx: StepContext, state: JSON, rules: EventSettings) -> JSON:
        """A player takes one die (at most one per pool); under ``veto_on_take`` the table votes first."""
        if state.get("communal") or state.get("communal_take"):
            raise one_communal_die()
        if _communal_left(ctx) <= 0:
            raise _communal_empty()  # checked again under the ledger's row lock when the pool locks
        if not rules.optional.communal_pool.veto_on_take:
            return {**state, "communal": 1, "pool": state["pool"] + 1}
        window = open_window(str(state["controller"]), _voters(ctx))
        return {**state, "communal_take": window_json(window)}

    def _take_vote(self, ctx: StepContext, state: JSON, step: str) -> JSON:
        window = window_of(state.get("communal_take"))
        if window is None:
            raise _out_of_order()
        voice = _voice(ctx)
        if step == "close_take_votes":
            window = veto_close(window, CloseReason.GM)
        else:
            window = veto_cast(window, voice, VoteKind.VETO if step == "veto_take" else VoteKind.NO_VETO)
            window = close_if_everyone_voted(window)
        state = {**state, "communal_take": window_json(window)}
        if window.closed and window.verdict is VetoVerdict.ACCEPTED:
            state = {**state, "communal": 1, "pool": state["pool"] + 1}
        return state

    def _lock(self, ctx: StepContext, state: JSON) -> StepResult:
        """§6.11 step 3: lock the pool, consume the communal die, apply the gate unless a wild die forces a roll."""
        rules = _rules(ctx)
        if (state.get("bet") or {}).get("status") in (BetStatus.PROPOSED, BetStatus.COUNTERED):
            raise _bet_pending()
        take = state.get("communal_take")
        if take and not take.get("closed"):
            raise _refuse(
                "WINDOW_OPEN",
                "La votación sobre el dado comunal sigue abierta.",
                "The veto window on the communal take is still open.",
            )
        pool = self._pool(state)
        gate = start_action(pool, int(state["difficulty"]), rules)
        state = {
            **state,
            "stage": "choice",
            "pool": pool.total,
            "gate": gate.gate.value,
            "offered": [c.value for c in gate.offered],
        }
        ledger: list[LedgerOp] = []
        if pool.communal:
            if _communal_left(ctx) <= 0:
                raise _communal_empty()
            take_params: JSON = {}
            if rules.optional.communal_pool.veto_on_take:
                take_params["veto_verdict"] = (take or {}).get("verdict")  # the pure rule checks the vote again
            ledger.append(
                LedgerOp(
                    "take_communal_die",
                    take_params,
                    character_id=state["character"],
                    reason=str(_("Dado comunal para una acción de %(name)s") % {"name": state["character_name"]}),
                    by_rules=True,  # the runner checked the actor; the die is consumed at the lock (§8 A-28)
                )
            )
        if gate.gate in (Gate.AUTO_ABSOLUTE, Gate.FORCED_ROLL):
            # Automatic: recorded without dice. Forced by the wild die: rolled now, no choice (§6.10, A-31).
            automatic = gate.gate is Gate.AUTO_ABSOLUTE  # nothing to choose: the binding grants it
            with action_extras(self._extras(state)):
                roll = ctx.roll_maker(self._spec(state, None if automatic else Choice.ROLL))
            result = self._after_roll(ctx, state, roll.result, roll.pk)
        else:
            name = state["character_name"]
            who = state["controller"]
            result = StepResult(
                state=state,
                waiting_for=_waiting(
                    "choose",
                    f"{name}: tirar o tomar el resultado ofrecido",
                    f"{name}: roll or take the offered outcome",
                    [] if who == "gm" else [who],
                    who == "gm",
                ),
            )
        return replace(result, ledger=[*ledger, *result.ledger])

    # --- Bets (§6.9, §6.10): the player proposes, the GM accepts, rejects or counters -----------------

    def _bet_step(self, ctx: StepContext, state: JSON, step: str, params: JSON) -> StepResult:
        stage = state.get("stage")
        kind = BetKind.WILD_DIE if stage == "pool" else BetKind.RECKLESS
        current = bet_of(state.get("bet"))
        if step in ("propose_wild", "propose_reckless"):
            bet = propose_bet(kind, _parse(BetIn, params).text, current)
        elif current is None:
            raise _refuse("NO_BET", "No hay ninguna apuesta que responder.", "There is no bet to answer.")
        elif step == "accept_bet":
            bet = gm_accept(current)
        elif step == "reject_bet":
            bet = gm_reject(current)
        elif step == "counter_bet":
            bet = gm_counter(current, _parse(BetIn, params).text)
        elif step == "accept_counter":
            bet = player_accept_counter(current)
        else:
            bet = player_reject_counter(current)
        state = {**state, "bet": bet_json(bet)}
        if not bet.agreed:
            waiting = self._pool_waiting(state) if stage == "pool" else self._reckless_waiting(state)
            return StepResult(state=state, waiting_for=waiting)
        agreed = {**(bet_json(bet) or {}), "triggered": False}
        state = {**state, "bet": None, "bets": [*state.get("bets", []), agreed]}
        if kind is BetKind.WILD_DIE:  # +1 die, at most one per pool (§6.10)
            state = {**state, "wild": 1, "pool": state["pool"] + 1}
            return StepResult(state=state, waiting_for=self._pool_waiting(state))
        return self._reckless_roll(ctx, state)

    def _check_bet_step(self, state: JSON, step: str, rules: EventSettings) -> None:
        """Each bet step's own refusals, before the stage's: the rule switched off, an NPC, one per pool."""
        stage = state.get("stage")
        if step == "propose_wild":
            if not rules.optional.wild_die.enabled:
                raise _refuse("WILD_DISABLED", "El dado alocado no está activo en esta campaña.", "Wild die is off.")
            if state.get("npc"):
                raise _npc_not_allowed()
            if state.get("wild"):
                raise _refuse("ONE_WILD_DIE", "Solo hay un dado alocado por reserva.", "Only one wild die per pool.")
            if stage != "pool":
                raise _out_of_order()
        elif step == "propose_reckless":
            if not rules.reckless_allowed("action_roll"):
                raise _refuse(
                    "RECKLESS_DISABLED",
                    "La tirada temeraria no está activa en esta campaña.",
                    "The reckless roll is off in this campaign.",
                )
            if state.get("npc"):
                raise _npc_not_allowed()
            if stage in ("narration", "done") and not state.get("rolled"):
                raise _refuse(
                    "NO_ROLL",
                    "Un resultado sin tirada no admite tirada temeraria.",
                    "An outcome without a roll allows no reckless roll.",
                )
            if state.get("reckless_used"):
                raise _refuse(
                    "RECKLESS_ALREADY_USED",
                    "Ya hiciste una tirada temeraria en esta acción.",
                    "You already made a reckless roll on this action.",
                )
            if stage != "reckless":
                raise _out_of_order()
        elif stage not in ("pool", "reckless"):
            raise _out_of_order()

    def _reckless_waiting(self, state: JSON) -> JSON:
        name = state["character_name"]
        betting = self._bet_waiting(state, "una tirada temeraria", "a reckless roll")
        if betting is not None:
            return betting
        return _waiting(
            "propose_reckless",
            f"{name}: proponer una apuesta para una tirada temeraria, o quedarse con el resultado",
            f"{name}: propose a bet for a reckless roll, or keep the result",
            self._player(state),
        )

    def _reckless_roll(self, ctx: StepContext, state: JSON) -> StepResult:
        """§6.9: the same pool from scratch (explosions and talent again); the new roll replaces the old
        one even if worse. The old roll stays as evidence, with a follow-up pointing at its replacement."""
        old = int(state["roll"])
        with action_extras(self._extras(state, reckless=True)):
            roll = ctx.roll_maker(self._spec(state, Choice.ROLL))
        state = {**state, "reckless_used": True, "superseded_rolls": [*state.get("superseded_rolls", []), old]}
        follow = FollowUpSpec(
            old,
            "reckless",
            f"Sustituida por una tirada temeraria: {dice_text(roll.result['dice'])} → "
            + outcome_name(roll.result.get("outcome"), "es"),
            f"Replaced by a reckless roll: {dice_text(roll.result['dice'])} → "
            + outcome_name(roll.result.get("outcome"), "en"),
            data={"replaced_by": roll.pk},
            character_id=state["character"],
        )
        result = self._after_roll(ctx, state, roll.result, roll.pk)
        return replace(result, follow_ups=[follow, *result.follow_ups])

    # --- Roll, talent, evaluation --------------------------------------------------------------------

    @staticmethod
    def _spec(state: JSON, choice: Choice | None) -> RollSpec:
        data: JSON = {"difficulty": state["difficulty"]}
        if choice is not None:
            data["choice"] = choice.value
        if state.get("skill"):
            data["skill"] = state["skill"]
        return RollSpec(kind=ACTION, data=data, character_id=state["character"])

    def _after_roll(self, ctx: StepContext, state: JSON, result: JSON, roll_id: int) -> StepResult:
        rolled = not result.get("automatic") and result.get("choice") == Choice.ROLL
        state = {
            **state,
            "roll": roll_id,
            "outcome": result["outcome"],
            "dice": result.get("dice", []),
            "rolled": rolled,
        }
        if result.get("stage") == ActionStage.TALENT_DECISION:
            who = state["controller"]
            return StepResult(
                state={**state, "stage": "talent"},
                waiting_for=_waiting(
                    "talent",
                    "Talento destacado: repetir un dado o renunciar",
                    "Highlighted talent: reroll one die or decline",
                    [] if who == "gm" else [who],
                    who == "gm",
                ),
            )
        return self._evaluated(ctx, state)

    def _evaluated(self, ctx: StepContext, state: JSON) -> StepResult:
        """§6.11 step 7: a player unhappy with a real roll may ask for one reckless roll (§3.10 EVALUATED)."""
        rules = _rules(ctx)
        reckless_open = (
            rules.reckless_allowed("action_roll")
            and not state.get("npc")
            and state["controller"] != "gm"
            and state.get("rolled")
            and not state.get("reckless_used")
        )
        if reckless_open:
            state = {**state, "stage": "reckless", "bet": None}
            return StepResult(state=state, waiting_for=self._reckless_waiting(state))
        return self._to_narration(state)

    def _to_narration(self, state: JSON) -> StepResult:
        """§6.11 step 8: whether each agreed bet triggered (a rolled failure or critical failure), then who
        narrates. The GM works a triggered bet into her narration of the failure."""
        outcome = state["outcome"]
        failed = bool(state.get("rolled")) and outcome in (Outcome.FAILURE, Outcome.CRITICAL_FAILURE)
        bets = [{**b, "triggered": failed} for b in state.get("bets", [])]
        follow_ups = []
        for b in bets:
            if b["triggered"] and state.get("roll"):
                es, en = BET_NAMES[BetKind(b["kind"])]
                follow_ups.append(
                    FollowUpSpec(
                        state["roll"],
                        "bet",
                        f"Apuesta activada ({es}): {b['terms']}",
                        f"Bet triggered ({en}): {b['terms']}",
                        data={"bet": b},
                        character_id=state["character"],
                    )
                )
        if outcome == Outcome.ABSOLUTE_SUCCESS and state["controller"] != "gm":
            pending = str(state["controller"])  # the player narrates an absolute success (§3.6)
        else:
            pending = GM
        state = {
            **state,
            "stage": "narration",
            "narration_pending": pending,
            "narration": None,
            "bets": bets,
            "bets_triggered": sum(1 for b in bets if b["triggered"]),
        }
        return StepResult(state=state, waiting_for=narration_waiting(state), follow_ups=follow_ups)

    def actors(self, flow: Flow, step: str) -> frozenset[str | int]:
        state = flow.state
        stage = state.get("stage")
        if (step == "choose" and stage == "choice") or (step == "talent" and stage == "talent"):
            return frozenset({state["controller"]})
        if step in NARRATION_STEPS and stage == "narration":
            return narration_actors(state, step)
        if step in CONTROLLER_STEPS:
            return frozenset({state["controller"]})
        if step == "lock_pool":
            return frozenset({state["controller"], "gm"})
        if step in GM_BET_STEPS or step in ("close_take_votes", "cancel"):
            return frozenset({"gm"})
        if step in TAKE_VOTE_STEPS:
            take = state.get("communal_take") or {}
            voices = take.get("eligible") or list(state.get("people", {}))
            return frozenset(_as_actor(v) for v in voices)
        return frozenset()

    def step(self, ctx: StepContext, step: str, params: JSON) -> StepResult:
        state = dict(ctx.flow.state)
        rules = _rules(ctx)
        stage = state.get("stage")
        if step == "cancel" and stage in ("pool", "choice"):  # before the lock nothing was consumed
            return StepResult(state={**state, "stage": "cancelled"}, waiting_for={}, cancelled=True)
        if step == "take_communal":
            if not rules.optional.communal_pool.enabled:
                raise _refuse(
                    "COMMUNAL_DISABLED",
                    "La reserva comunal no está activa en esta campaña.",
                    "The communal pool is off in this campaign.",
                )
            if state.get("npc"):
                raise _npc_not_allowed()
            if stage != "pool":
                raise _out_of_order()
            state = self._take_communal(ctx, state, rules)
            return StepResult(state=state, waiting_for=self._pool_waiting(state))
        if step in TAKE_VOTE_STEPS or step == "close_take_votes":
            if stage != "pool":
                raise _out_of_order()
            state = self._take_vote(ctx, state, step)
            return StepResult(state=state, waiting_for=self._pool_waiting(state))
        if step in BET_STEPS:
            self._check_bet_step(state, step, rules)
            return self._bet_step(ctx, state, step, params)
        if step == "lock_pool":
            if stage != "pool":
                raise _out_of_order()
            return self._lock(ctx, state)
        if step == "keep_result":
            if stage != "reckless":
                raise _out_of_order()
            if (state.get("bet") or {}).get("status") in (BetStatus.PROPOSED, BetStatus.COUNTERED):
                raise _bet_pending()
            return self._to_narration({**state, "bet": None})
        if step == "choose" and stage == "choice":
            choice = _parse(ChooseIn, params).choice
            if choice.value not in state["offered"]:
                raise _refuse(
                    "CHOICE_NOT_OFFERED",
                    "Esa opción no se ofrece con esta reserva y esta dificultad.",
                    "That choice is not offered with this pool and difficulty.",
                )
            with action_extras(self._extras(state)):
                roll = ctx.roll_maker(self._spec(state, choice))
            return self._after_roll(ctx, state, roll.result, roll.pk)
        if step == "talent" and stage == "talent":
            roll = next(r for r in ctx.rolls if r.pk == state["roll"])
            pure = _action_state(roll.result, rules)
            index = _parse(TalentIn, params).index
            if index is None:
                pure = decline_talent(pure)
                follow = FollowUpSpec(roll.pk, "talent", "Renuncia al talento", "Talent declined")
            else:
                pure = talent_reroll(pure, index, ctx.dice)
                outcome = pure.outcome.value if pure.outcome else None
                new = {**roll.result, "dice": list(pure.dice), "rerolled_index": index, "outcome": outcome}
                new["narrator"] = pure.narrator.value if pure.narrator else None
                old = roll.result["dice"]
                follow = FollowUpSpec(
                    roll.pk,
                    "talent",
                    f"Talento: repite el dado {old[index]} → {dice_text(pure.dice)}; "
                    + action_summary(new, rules, "es"),
                    f"Talent: rerolls the {old[index]} → {dice_text(pure.dice)}; " + action_summary(new, rules, "en"),
                    data={"index": index, "before": old},
                    result=new,
                    character_id=state["character"],
                )
            state = {**state, "outcome": pure.outcome.value if pure.outcome else None, "dice": list(pure.dice)}
            result = self._evaluated(ctx, state)
            return replace(result, follow_ups=[follow, *result.follow_ups])
        if step in NARRATION_STEPS and stage == "narration":
            before = (state.get("narration") or {}).get("status")
            state = narration_step(ctx, state, step, params, rules)
            follow_ups = []
            n = state.get("narration") or {}
            if n.get("outcome") and n["outcome"] != state["outcome"]:
                state["outcome"] = n["outcome"]  # overruled: the absolute success became a partial success
            said = narration_summary(state) if n.get("status") != before else None
            if said and state.get("roll"):
                follow_ups.append(
                    FollowUpSpec(state["roll"], "narration", said[0], said[1], data={"status": n["status"]})
                )
            if narration_final(state):
                return StepResult(state={**state, "stage": "done"}, waiting_for={}, settled=True, follow_ups=follow_ups)
            return StepResult(state=state, waiting_for=narration_waiting(state), follow_ups=follow_ups)
        raise _out_of_order()


# --- The desafío flow (§5) ----------------------------------------------------------------------------


class ParticipantIn(BaseModel):
    model_config = ConfigDict(extra="ignore")

    character: int | None = None
    skill: str | None = Field(None, max_length=80)
    name: str = Field("", max_length=80)  # an NPC without a character
    dice: int | None = Field(None, ge=1, le=30)  # an NPC's pool, set by the GM (§8 A-22)


class DesafioStart(BaseModel):
    model_config = ConfigDict(extra="ignore")

    ability: str = Field("", max_length=120)
    participants: list[ParticipantIn] = Field(min_length=2, max_length=12)


class CommitIn(BaseModel):
    model_config = ConfigDict(extra="ignore")

    participant: str | None = Field(None, max_length=20)
    left: int = Field(ge=-100, le=100)
    right: int = Field(ge=-100, le=100)


class ParticipantStepIn(BaseModel):
    model_config = ConfigDict(extra="ignore")

    participant: str | None = Field(None, max_length=20)
    index: int | None = Field(None, ge=0, le=100)


def _start_params(params: JSON) -> JSON:
    """Form posts send ``characters[]`` with ``skill_<id>`` / ``dice_<id>``; the API sends ``participants``."""
    if "participants" in params:
        return params
    ids = params.get("characters") or []
    ids = [ids] if isinstance(ids, str) else list(ids)
    people: list[JSON] = []
    for raw in ids:
        people.append(
            {
                "character": raw,
                "skill": params.get(f"skill_{raw}") or None,
                "dice": params.get(f"dice_{raw}") or None,
            }
        )
    if params.get("npc_name") and params.get("npc_dice"):
        people.append({"name": params["npc_name"], "dice": params["npc_dice"]})
    return {"ability": params.get("ability", ""), "participants": people}


def fist_json(r: FistResult | None) -> JSON | None:
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


def fist_of(d: JSON | None) -> FistResult | None:
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
    if ix.reckless_log or (ix.tiebreak is not None and ix.tiebreak.reckless):
        raise _refuse("RECKLESS_UNSUPPORTED", "Tirada temeraria no disponible aquí.", "No reckless roll here.")
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
        "left": fist_json(ix.left),
        "right": fist_json(ix.right),
        "tiebreak": None
        if tb is None
        else {
            "side": tb.side.value,
            "counts": [[p, c] for p, c in tb.counts],
            "tied": list(tb.tied),
            "rolls": [[p, list(d)] for p, d in tb.rolls],
            "talent_pending": sorted(tb.talent_pending),
            "provisional": fist_json(tb.provisional),
        },
    }


def interaction_of(d: JSON, commitments: tuple[tuple[str, Any], ...], talent_choices: tuple = ()) -> Interaction:
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
        left=fist_of(d.get("left")),
        right=fist_of(d.get("right")),
        tiebreak=None
        if tb is None
        else Tiebreak(
            side=Side(tb["side"]),
            counts=tuple((p, int(c)) for p, c in tb["counts"]),
            tied=tuple(tb["tied"]),
            rolls=tuple((p, tuple(x)) for p, x in tb["rolls"]),
            talent_pending=frozenset(tb["talent_pending"]),
            talent_choices=talent_choices,
            provisional=fist_of(tb.get("provisional")),
        ),
    )


class DesafioFlow:
    """Desafío: sealed commits → automatic reveal → fists (server tie-breaks) → narration → settled."""

    key = "desafio"

    # -- reading and writing the pure interaction --

    @staticmethod
    def _bound(flow: Flow, pid: str, what: str = "split") -> str:
        return f"{flow.pk}|{pid}|{what}"

    def _load(self, flow: Flow, state: JSON) -> Interaction:
        d = state["ix"]
        sealed = (flow.secret_state or {}).get("sealed", {})
        if d.get("commitments") is not None:
            commitments = tuple((p, Split(int(left), int(right))) for p, left, right in d["commitments"])
        else:
            order = [p["id"] for p in d["participants"]]
            opened = {pid: unseal(token, self._bound(flow, pid)) for pid, token in sealed.items()}
            commitments = tuple(
                (pid, Split(int(opened[pid]["left"]), int(opened[pid]["right"]))) for pid in order if pid in opened
            )
        talent = (flow.secret_state or {}).get("talent", {})
        choices = tuple(
            (pid, unseal(tok, self._bound(flow, pid, "talent")).get("index")) for pid, tok in talent.items()
        )
        return interaction_of(d, commitments, choices)

    def start(self, ctx: StepContext, params: JSON) -> StepResult:
        _require_gm(ctx)  # the GM declares the interaction and its participants (§5.9)
        data = _parse(DesafioStart, _start_params(params))
        rules = _rules(ctx)
        participants: list[Participant] = []
        info: list[JSON] = []
        seat = 0
        for i, p in enumerate(data.participants, start=1):
            if p.character is None:
                if not p.name or p.dice is None:
                    raise _refuse(
                        "NPC_POOL",
                        "Un PNJ sin ficha necesita un nombre y una reserva.",
                        "An NPC without a sheet needs a name and a pool.",
                    )
                participants.append(Participant(f"n{i}", p.dice, GM, None, npc=True))
                info.append({"id": f"n{i}", "name": p.name, "controller": "gm", "skill": None, "pool": p.dice})
                continue
            character = _character(ctx, p.character)
            pid = f"c{character.pk}"
            who = controller(character)
            if character.is_npc:
                if p.dice is not None:
                    pool = p.dice
                else:
                    sheet = _sheet(character, rules)
                    found = sheet.skill(p.skill) if p.skill else None
                    if p.skill and found is None:
                        raise unknown_skill(p.skill)
                    pool = 1 + (found.dice if found else 0)
                participants.append(Participant(pid, pool, GM, None, npc=True))
                info.append({"id": pid, "name": character.name, "controller": "gm", "skill": p.skill, "pool": pool})
                continue
            sheet = _sheet(character, rules)
            found = sheet.skill(p.skill) if p.skill else None
            if p.skill and found is None:
                raise unknown_skill(p.skill)
            pool = 1 + (found.dice if found else 0)
            seat += 1
            talent = found is not None and rules.talent_enabled and is_talent(sheet, found.name)
            participants.append(Participant(pid, pool, str(who), seat, talent_built=talent))
            info.append(
                {"id": pid, "name": character.name, "controller": who, "skill": found.display if found else None}
                | {"pool": pool, "character": character.pk}
            )
        ix = ix_rules.start_interaction(participants, rules)  # refuses duplicates and fewer than two
        state: JSON = {
            "stage": "committing",
            "ability": data.ability,
            "participants": info,
            "committed": [],
            "digests": {},
            "people": {**_people(ctx), **{p["id"]: p["name"] for p in info}},
            "narration_kind": narr.NarrationKind.INTERACTION.value,
            "ix": interaction_json(ix),
        }
        return StepResult(state=state, waiting_for=self._waiting(state), secret_state={})

    def _info(self, state: JSON, pid: str) -> JSON:
        for p in state["participants"]:
            if p["id"] == pid:
                return dict(p)
        raise _refuse("NOT_A_PARTICIPANT", "No participa en este desafío.", "Not a participant of this challenge.")

    def _waiting(self, state: JSON) -> JSON:
        stage = state["stage"]
        if stage == "committing":
            missing = [p for p in state["participants"] if p["id"] not in state["committed"]]
            return _waiting(
                "commit",
                "Repartos sellados de los dados entre el puño izquierdo (ganar) y el derecho (narrar): faltan "
                + ", ".join(p["name"] for p in missing),
                "Sealed splits of the dice between the left fist (win) and the right fist (narrate): waiting for "
                + ", ".join(p["name"] for p in missing),
                [p["controller"] for p in missing if p["controller"] != "gm"],
                any(p["controller"] == "gm" for p in missing),
            )
        if stage == "tiebreak":
            tb = state["ix"]["tiebreak"] or {}
            pending = [self._info(state, pid) for pid in tb.get("talent_pending", [])]
            if pending:
                return _waiting(
                    "talent",
                    "Talento destacado en el desempate: repetir un dado o renunciar (decisión sellada)",
                    "Highlighted talent in the tie-break: reroll one die or decline (sealed decision)",
                    [p["controller"] for p in pending if p["controller"] != "gm"],
                    any(p["controller"] == "gm" for p in pending),
                )
            return _waiting("settle_tiebreak", "Cerrar el desempate", "Settle the tie-break", gm=True)
        if stage == "narration":
            return narration_waiting(state)
        return {}

    def _controller_of(self, ctx: StepContext, state: JSON, requested: str | None, pending: list[str]) -> JSON:
        """The participant this actor acts for: named, or the only one they control among ``pending``."""
        mine = [
            p
            for p in state["participants"]
            if (p["controller"] == "gm" and ctx.viewer.is_gm) or p["controller"] == ctx.actor.pk
        ]
        if requested:
            for p in mine:
                if p["id"] == requested:
                    return dict(p)
            raise PermissionDenied(_("Ese participante no es tuyo."))
        candidates = [p for p in mine if p["id"] in pending] or mine
        if len(candidates) != 1:
            raise _refuse("PARTICIPANT_REQUIRED", "Indica por qué participante actúas.", "Say which participant.")
        return dict(candidates[0])

    def actors(self, flow: Flow, step: str) -> frozenset[str | int]:
        state = flow.state
        stage = state.get("stage")
        if step == "commit" and stage != "cancelled":  # amending until the reveal; the rules refuse it after
            return frozenset(p["controller"] for p in state["participants"])
        if step == "cancel" and stage == "committing":
            return frozenset({"gm"})
        if stage == "tiebreak":
            if step == "talent":
                pending = set((state["ix"].get("tiebreak") or {}).get("talent_pending", []))
                return frozenset(p["controller"] for p in state["participants"] if p["id"] in pending)
            if step == "settle_tiebreak":
                return frozenset({"gm"})
        if step in NARRATION_STEPS and stage == "narration":
            return narration_actors(state, step)
        return frozenset()

    def step(self, ctx: StepContext, step: str, params: JSON) -> StepResult:
        state = dict(ctx.flow.state)
        rules = _rules(ctx)
        stage = state.get("stage")
        secret = {"sealed": {}, "talent": {}, **(ctx.flow.secret_state or {})}
        if step == "cancel" and stage == "committing":
            ix = ix_rules.cancel(self._load(ctx.flow, state))
            state = {**state, "stage": "cancelled", "ix": interaction_json(ix)}
            return StepResult(state=state, waiting_for={}, secret_state={}, cancelled=True)
        if step == "commit":
            return self._commit(ctx, state, secret, params)
        if step == "talent" and stage == "tiebreak":
            data = _parse(ParticipantStepIn, params)
            tb = state["ix"].get("tiebreak") or {}
            me = self._controller_of(ctx, state, data.participant, tb.get("talent_pending", []))
            before = self._load(ctx.flow, state)
            ix = ix_rules.talent_decision(before, me["id"], data.index, ctx.dice)
            sealed_talent = dict(secret.get("talent", {}))
            follow_ups: list[FollowUpSpec] = []
            if ix.tiebreak is not None and ix.tiebreak.talent_pending:
                sealed_talent[me["id"]] = seal({"index": data.index}, self._bound(ctx.flow, me["id"], "talent"))
            else:  # every decision is in: applied all together, shown under the tie-break roll
                sealed_talent = {}
                assert before.tiebreak is not None
                side = before.tiebreak.side
                same = ix.tiebreak is not None and ix.tiebreak.side is side
                rolled = dict(ix.tiebreak.rolls if same and ix.tiebreak else self._last_rolls(ix, side))
                names = self._names(state)
                text = ", ".join(f"{names.get(p, p)} {dice_text(d)}" for p, d in rolled.items())
                roll_ids = state.get("tiebreak_rolls") or []
                if roll_ids:
                    follow_ups.append(
                        FollowUpSpec(
                            roll_ids[-1], "talent", f"Talento destacado: {text}", f"Highlighted talent: {text}"
                        )
                    )
            result = self._advance(ctx, state, ix, {**secret, "talent": sealed_talent})
            return replace(result, step_params={"participant": me["id"]}, follow_ups=[*follow_ups, *result.follow_ups])
        if step == "settle_tiebreak" and stage == "tiebreak":
            ix = ix_rules.settle_tiebreak(self._load(ctx.flow, state))
            return self._advance(ctx, state, ix, secret)
        if step in NARRATION_STEPS and stage == "narration":
            state = narration_step(ctx, state, step, params, rules)
            follow_ups = []
            n = state.get("narration") or {}
            said = narration_summary(state)
            roll_ids = state.get("tiebreak_rolls") or []
            if said and roll_ids and n.get("status") != (ctx.flow.state.get("narration") or {}).get("status"):
                follow_ups.append(FollowUpSpec(roll_ids[-1], "narration", said[0], said[1]))
            if narration_final(state):
                return StepResult(state={**state, "stage": "done"}, waiting_for={}, settled=True, follow_ups=follow_ups)
            return StepResult(state=state, waiting_for=narration_waiting(state), follow_ups=follow_ups)
        raise _out_of_order()

    def _commit(self, ctx: StepContext, state: JSON, secret: JSON, params: JSON) -> StepResult:
        data = _parse(CommitIn, params)
        missing = [p["id"] for p in state["participants"] if p["id"] not in state["committed"]]
        me = self._controller_of(ctx, state, data.participant, missing)
        ix = self._load(ctx.flow, state)
        ix = ix_rules.commit(ix, me["id"], data.left, data.right)  # refuses a bad split, or after the reveal
        nonce = secrets.token_hex(16)
        split = Split(data.left, data.right)
        digest = ix_rules.commitment_digest(str(ctx.flow.pk), me["id"], split, nonce)
        sealed = dict(secret.get("sealed", {}))
        sealed[me["id"]] = seal(
            {"left": data.left, "right": data.right, "nonce": nonce}, self._bound(ctx.flow, me["id"])
        )
        committed = [*[p for p in state["committed"] if p != me["id"]], me["id"]]
        state = {**state, "committed": committed, "digests": {**state["digests"], me["id"]: digest}}
        recorded = {"participant": me["id"], "digest": digest}
        if not ix.revealed:
            state["ix"] = interaction_json(ix)
            return StepResult(
                state=state,
                waiting_for=self._waiting(state),
                secret_state=_kept({**secret, "sealed": sealed}),
                step_params=recorded,
            )
        # The reveal: every split becomes public and immutable, with the nonces of the commitments.
        nonces = {pid: unseal(tok, self._bound(ctx.flow, pid))["nonce"] for pid, tok in sealed.items()}
        state["nonces"] = nonces
        result = self._advance(ctx, state, ix, {"sealed": {}, "talent": {}})
        return replace(result, step_params=recorded)

    def _advance(self, ctx: StepContext, state: JSON, ix: Interaction, secret: JSON) -> StepResult:
        """After the reveal: the server rolls each tie-break; stop where a decision is due."""
        rolls = list(state.get("tiebreak_rolls") or [])
        follow_ups: list[FollowUpSpec] = []
        while ix.stage in (Stage.LEFT_TIEBREAK, Stage.RIGHT_TIEBREAK) and ix.tiebreak and not ix.tiebreak.rolled:
            tb = ix.tiebreak
            roll = ctx.roll_maker(
                RollSpec(
                    kind=FIST_TIEBREAK,
                    data={"side": tb.side.value, "counts": dict(tb.counts), "names": self._names(state)},
                    label=str(_("Desafío: desempate")),
                )
            )
            stream = [int(d) for _p, dice in roll.result["rolls"] for d in dice]
            ix = ix_rules.roll_tiebreak(ix, ScriptedDice(stream))  # the pure machine reads the stored faces
            rolls.append(roll.pk)
        state = {**state, "ix": interaction_json(ix), "tiebreak_rolls": rolls}
        if ix.stage in (Stage.LEFT_TIEBREAK, Stage.RIGHT_TIEBREAK):
            state["stage"] = "tiebreak"
            return StepResult(
                state=state, waiting_for=self._waiting(state), secret_state=_kept(secret), follow_ups=follow_ups
            )
        # Both fists are resolved: who narrates.
        narrators = list(ix.narrators)
        state["winners"] = list(ix.left.winners) if ix.left else []
        state["left_verdict"] = ix.left.verdict.value if ix.left else None
        state["narrators"] = narrators
        state["stage"] = "narration"
        if len(narrators) > 1:
            state["joint"] = {"order": narrators, "parts": [], "closed": False, "next": narrators[0]}
            state["narration_pending"] = None
        else:
            state["narration_pending"] = narrators[0] if narrators else GM
        state["narration"] = None
        if rolls and ix.right is not None:
            follow_ups.append(FollowUpSpec(rolls[-1], "desafio", *self._verdict_words(state, ix)))
        return StepResult(
            state=state, waiting_for=self._waiting(state), secret_state=_kept(secret), follow_ups=follow_ups
        )

    @staticmethod
    def _last_rolls(ix: Interaction, side: Side) -> tuple[tuple[str, Any], ...]:
        settled = ix.left if side is Side.LEFT else ix.right
        return settled.rolls if settled is not None else ()

    @staticmethod
    def _names(state: JSON) -> JSON:
        return {p["id"]: p["name"] for p in state["participants"]}

    def _verdict_words(self, state: JSON, ix: Interaction) -> tuple[str, str]:
        names = self._names(state)
        people = state.get("people", {})
        left = ix.left
        assert left is not None
        if left.verdict is Verdict.WIN:
            es, en = f"Gana el desafío {names[left.winners[0]]}", f"{names[left.winners[0]]} wins the challenge"
        else:
            tied = ", ".join(names[p] for p in left.winners)
            es, en = f"Empate entre {tied}", f"Draw between {tied}"
        who = ", ".join(people.get(n, n) for n in ix.narrators)
        return f"{es}; narra {who}", f"{en}; {who} narrates"


# --- Reactions (§6.8, §8 A-29) ------------------------------------------------------------------------


def _reactions_on(rules: EventSettings) -> None:
    if not rules.optional.reactions.enabled:
        raise _refuse(
            "REACTIONS_DISABLED",
            "Las reacciones no están activas en esta campaña.",
            "Reactions are off in this campaign.",
        )


class ReactionStart(BaseModel):
    model_config = ConfigDict(extra="ignore")

    character: int
    session: int = Field(1, ge=1, le=100_000)
    text: str = Field(min_length=1, max_length=500)


class RevealIn(BaseModel):
    model_config = ConfigDict(extra="ignore")
    text: str = Field("", max_length=500)  # the sentence again; empty: the sealed one as it is


class ValueIn(BaseModel):
    model_config = ConfigDict(extra="ignore")
    value: int = Field(ge=-100, le=100)  # the rules refuse anything outside 0..3 with their own code
    happened: bool = True


def _reaction_bound(flow: Flow) -> str:
    return f"{flow.pk}|reaction"


def reaction_of(flow: Flow) -> rx.Reaction:
    """The pure reaction from the stored flow: the text from the seal while sealed, from the state after."""
    state = flow.state
    status = rx.ReactionStatus(state["status"])
    if status is rx.ReactionStatus.SEALED or state.get("text") is None:
        token = (flow.secret_state or {}).get("sealed")
        opened = unseal(token, _reaction_bound(flow)) if token else {"text": "", "nonce": ""}
        text, nonce = opened["text"], opened["nonce"]
    else:
        text, nonce = state["text"], state["nonce"]
    return rx.Reaction(
        session=int(state["session"]),
        text=text,
        nonce=nonce,
        digest=state["digest"],
        committed_at=state["committed_at"],
        status=status,
        value=state.get("value"),
    )


def reaction_state(state: JSON, reaction: rx.Reaction) -> JSON:
    """The public state: ``rx.public_view`` (only the hash and the timestamp while sealed)."""
    public = rx.public_view(reaction)
    if reaction.status is rx.ReactionStatus.EXPIRED and state.get("text") is None:
        public = {k: v for k, v in public.items() if k not in ("text", "nonce", "value")}  # never revealed
    kept = {k: v for k, v in state.items() if k not in ("text", "nonce", "value")}
    return {**kept, **public}


def use_reaction_flow(ctx: StepContext, flow_id: int, character: Character) -> JSON:
    """The action's pool takes a valued reaction of the acting character: the reaction flow is locked,
    marked USED and settled in the action's transaction (a second action finds it used)."""
    _reactions_on(_rules(ctx))
    if character.is_npc:
        raise _refuse("NPC_NOT_ALLOWED", "Los PNJ no usan reacciones.", "NPCs do not use reactions.")
    found = (
        Flow.objects.select_for_update(of=("self",))
        .filter(pk=flow_id, campaign_id=ctx.flow.campaign_id, kind="reaction")
        .first()
    )
    if found is None or int(found.state.get("character", 0)) != character.pk:
        raise _refuse(
            "REACTION_NOT_FOUND",
            "Esa reacción no es de este personaje en esta partida.",
            "That reaction is not this character's in this campaign.",
        )
    reaction = rx.use_reaction(reaction_of(found))  # refuses USED, EXPIRED and not yet valued
    found.state = {**reaction_state(found.state, reaction), "stage": "used", "used_in": ctx.flow.pk}
    found.waiting_for = {}
    found.status = FlowStatus.SETTLED
    found.settled_at = timezone.now()
    found.save()
    FlowStep.objects.create(flow=found, step="use", actor=ctx.actor, params={"action_flow": ctx.flow.pk})
    publish(
        Event(
            EventType.FLOW_CHANGED,
            found.campaign_id,
            {"scene_id": found.scene_id, "flow_id": found.pk, "state": found.status},
        ),
        flow_audience(found),
    )
    return {"flow": found.pk, "dice": reaction.bonus_dice}


FLOW_KINDS = {"action": ActionFlow(), "desafio": DesafioFlow()}

__all__ = ["FLOW_KINDS", "ActionFlow", "DesafioFlow"]
