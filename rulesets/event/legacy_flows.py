"""Event's desafío, still an old-style handler run by ``rolls/flows.py`` (the action and the reaction are
step tables in ``rulesets/event/procedures/``).

- ``desafio`` (Desafío, an interaction): the GM names the participants (characters, or NPC pools she sets).
  Each participant's controller commits a sealed split of the pool between the left fist (who wins) and
  the right fist (who narrates), and may amend it until the reveal, which is automatic and atomic when the
  last one commits. Ties are rolled by the server (a ``fist_tiebreak`` roll per fist). Then the narration:
  the right-fist winner, the GM (an NPC won it), or a joint narration in seat order that the GM closes.
- Narration vetoes (§4), when the campaign switched ``core.narration_veto`` on: the GM and the
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
from campaigns.models import Membership, Role
from characters.models import Character, CharacterStatus
from characters.services import pydantic_to_validation_error
from rolls.flows import JSON, FollowUpSpec, StepContext, StepResult
from rolls.models import Flow
from rolls.services import RollSpec
from rulesets.event.rolls import (
    FIST_TIEBREAK,
    dice_text,
    settings_of,
)
from systems.dice import ScriptedDice
from systems.errors import RulesError
from systems.event import desafio as ix_rules
from systems.event import narration as narr
from systems.event.desafio import DecidedBy, FistResult, Interaction, Participant, Side, Split, Stage, Tiebreak, Verdict
from systems.event.ladder import Outcome
from systems.event.rolling import DiceRules
from systems.event.settings import EventSettings
from systems.event.sheet import EventSheet, is_talent, unknown_skill
from systems.event.veto import CloseReason, VetoWindow, VoteKind
from systems.event.veto import Verdict as VetoVerdict
from systems.registry import Names
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
    names = Names("Desafío", "Challenge")  # the title on the page, until this becomes a step table

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


FLOW_KINDS = {"desafio": DesafioFlow()}

__all__ = ["FLOW_KINDS", "DesafioFlow"]
