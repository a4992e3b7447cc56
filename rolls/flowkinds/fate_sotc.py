"""FATE 3.0 (Spirit of the Century) flows: the rules of ``systems.fate_sotc`` across posts and hours.

Every flow that rolls opens an *invocation window* (spec §3.13) on its roll: the sides ask to invoke
aspects (+2 or reroll, paid with a PD or a free invocation; once per aspect per roll), the GM approves or
rejects each request (the GM's own requests for NPCs are approved at once), the roller may buy +1 with a PD,
and the GM closes the window. Then each kind goes on:

- ``invocation``: a window on a roll already posted (a simple action, an opposed roll...). Settles on close.
- ``compel`` (forzado): the GM offers; the target accepts (+stake) or declines; the GM escalates or stands
  (the target pays the stake). Off-screen compels cannot be refused.
- ``attack``: the attack roll; after the window, the defender absorbs the hit (a stress box or a
  consequence; a hit that cannot be absorbed takes them out) or offers a concession, which the attacker
  accepts or refuses and the GM rules reasonable or not (PD per spec §5.6).
- ``advantage`` (maniobra): a maneuver on a character (the target accepts the aspect or pays a PD to avoid
  it, then the GM places it, fragile or sticky) or on the scene (the GM places a scene aspect); the creator
  gets its free invocation.
- ``declaration`` (hacer una declaración, §4.7; provocar un efecto with one's own aspect, §4.6): a player
  asks to make a small fact true; the GM approves (1 PD) or vetoes (nothing spent, A34).

Inside every window a side may also *guess* an aspect it suspects (adivinar aspectos, §4.11: the PD is
charged at once, the GM rules close enough / miss / deceived), and the holder of *spin* (§3.6, a defence
won by 3 or more in the scene's previous action) may put +1 or −1 on one roll of this, the very next action.

State is JSON rebuilt into the pure types (``RollState``, ``Compel``) at each step; the rules decide.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from django.utils.translation import gettext as _
from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic import ValidationError as PydanticValidationError

from campaigns import policy
from campaigns import services as campaign_services
from campaigns.models import SceneAspect
from characters.models import Character, CharacterStatus
from rolls.flows import FollowUpSpec, LedgerOp, StepContext, StepResult
from rolls.models import Flow, FlowStatus, Roll
from rolls.services import RollSpec
from rulesets.fate_sotc.rolls import (
    TRACK_NAMES,
    attack_words,
    glyphs,
    modifiers_of,
    opposed_words,
    simple_words,
    skill_rating,
    sotc_settings,
)
from rulesets.fate_sotc.sheet import load_sheet
from systems.dice import ScriptedDice
from systems.errors import RulesError
from systems.fate_sotc.aspects import Aspect, FreeInvocation, HolderType, Origin, Persistence, Visibility
from systems.fate_sotc.compels import (
    Compel,
    CompelKind,
    CompelStatus,
    accept_compel,
    buy_off_compel,
    decline_compel,
    escalate_compel,
)
from systems.fate_sotc.conflict import Spin, apply_spin
from systems.fate_sotc.defeat import resolve_concession
from systems.fate_sotc.dice import FateDice
from systems.fate_sotc.errors import fate_error
from systems.fate_sotc.fate_points import FpKind, FpRequest, Wallet, approve_request, request_spend, veto_request
from systems.fate_sotc.guessing import Guess, GuessRuling, rule_guess, start_guess
from systems.fate_sotc.invocation import InvokeMode, Payment, RollState, buy_advantage, close_window, invoke
from systems.fate_sotc.ladder import ladder_label
from systems.fate_sotc.maneuvers import resolve_maneuver_on_character
from systems.fate_sotc.operations import TakeHitParams, take_hit
from systems.fate_sotc.resolution import (
    Modifier,
    ModifierSource,
    Track,
    resolve_attack,
    resolve_opposed,
    resolve_simple,
)
from systems.fate_sotc.settings import FateSotcSettings
from systems.fate_sotc.sheet import FateSotcSheet
from systems.fate_sotc.stress import Marked, apply_hit

JSON = dict[str, Any]
GM = "gm"
WINDOW_STEPS = ("invoke", "approve", "reject", "advantage", "close", "guess", "rule_guess", "spin")
ROLLING_KINDS = ("invocation", "attack", "advantage")  # the flows that are an action with a roll


def _err(code: str, es: str, en: str, **details: Any) -> RulesError:
    return RulesError(code, es, en, **details)


def out_of_order() -> RulesError:
    return fate_error("out_of_order")


# --- Params (untrusted: forms send strings, pydantic's lax mode reads them) ---------------------------


class _In(BaseModel):
    model_config = ConfigDict(extra="ignore")

    @model_validator(mode="before")
    @classmethod
    def _blank_is_missing(cls, data: Any) -> Any:
        """An empty form field means "not given" (forms send every input, filled or not)."""
        if isinstance(data, dict):
            return {k: v for k, v in data.items() if v != ""}
        return data


class InvokeIn(_In):
    side: str = Field(default="a", pattern="^[ab]$")
    aspect: str = Field(min_length=3, max_length=80)
    mode: InvokeMode = InvokeMode.BONUS
    payment: Payment = Payment.PAID
    detrimental: bool = False  # invoked against its owner: the PD goes to them at the window's end


class RequestIn(_In):
    request: int | None = None


class SideIn(_In):
    side: str = Field(default="a", pattern="^[ab]$")


class InvocationStartIn(_In):
    roll: int
    opponent: int | None = None  # the character on the other side of an opposed roll


class CompelStartIn(_In):
    character: int
    aspect: str = Field(min_length=1, max_length=120)
    description: str = Field(default="", max_length=500)
    kind: CompelKind = CompelKind.GM


class AttackStartIn(_In):
    attacker: int
    skill: str = Field(min_length=1, max_length=40)
    defender: int
    defense_skill: str = Field(min_length=1, max_length=40)
    track: Track = Track.HEALTH
    full_defense: bool = False


class AbsorbIn(_In):
    choice: str = Field(pattern="^(box|consequence|concede)$")
    text: str = Field(default="", max_length=120)
    terms: str = Field(default="", max_length=500)


class AnswerIn(_In):
    accept: bool


class RuleIn(_In):
    reasonable: bool


class AdvantageStartIn(_In):
    character: int
    skill: str = Field(min_length=1, max_length=40)
    target: str = Field(min_length=1, max_length=20)  # "scene" or a character id
    defense_skill: str = Field(default="", max_length=40)
    difficulty: int | None = Field(default=None, ge=-10, le=20)
    text: str = Field(min_length=1, max_length=120)


class GuessIn(_In):
    side: str = Field(default="a", pattern="^[ab]$")
    text: str = Field(min_length=1, max_length=120)  # the aspect the side suspects
    justification: str = Field(min_length=1, max_length=500)  # "there must always be a justification"
    mode: InvokeMode = InvokeMode.BONUS


class RuleGuessIn(_In):
    guess: int | None = None
    ruling: GuessRuling
    aspect: str = Field(default="", max_length=80)  # close enough: the real aspect
    deceiver: int | None = None
    returns_point: bool = False  # deceived: the deceiver gives the point back
    place_text: str = Field(default="", max_length=120)  # ... and may place how they fooled the guesser


class SpinIn(_In):
    side: str = Field(default="a", pattern="^[ab]$")
    sign: int = Field(ge=-1, le=1)


class DeclarationStartIn(_In):
    character: int
    text: str = Field(min_length=1, max_length=500)
    aspect: str = Field(default="", max_length=80)  # an own aspect: invoke for effect (§4.6)


class PlaceIn(_In):
    text: str = Field(default="", max_length=120)
    sticky: bool = False


def parse(model: type[_In], params: JSON) -> Any:
    try:
        return model.model_validate(params)
    except PydanticValidationError as exc:
        fields = ", ".join(str(e["loc"][0]) for e in exc.errors() if e.get("loc"))
        raise _err(
            "invalid_params",
            f"Faltan datos o no son válidos: {fields}.",
            f"Missing or invalid data: {fields}.",
            fields=fields,
        ) from None


# --- Characters, actors, wallets ---------------------------------------------------------------------


def character_of(ctx: StepContext, character_id: int | None) -> Character:
    character = ctx.characters.get(int(character_id)) if character_id is not None else None
    if character is None or character.status != CharacterStatus.APPROVED:
        raise _err(
            "unknown_character",
            "Ese personaje no está aprobado en esta partida.",
            "That character is not approved in this campaign.",
        )
    return character


def actor_of(character: Character) -> str | int:
    """Who speaks for a character in a flow: its player, or the GMs for NPCs."""
    return GM if character.is_npc else character.owner_id


def may_speak_for(ctx: StepContext, character: Character) -> bool:
    return policy.controls_character(ctx.viewer, character)


def sheet_of(character: Character) -> FateSotcSheet:
    return load_sheet(character.sheet)


def wallet_of(character: Character) -> Wallet:
    return sheet_of(character).wallet()


def who(actor: str | int) -> JSON:
    return {"who": GM} if actor == GM else {"users": [actor]}


def waiting(step: str, actor: str | int, es: str, en: str) -> JSON:
    return {"step": step, **who(actor), "label_es": es, "label_en": en}


def cfg(ctx: StepContext) -> FateSotcSettings:
    return sotc_settings(ctx.settings)


# --- Roll states (the invocation window) -------------------------------------------------------------


def dice_of(data: JSON) -> FateDice:
    return FateDice(tuple(data.get("d6", ())), tuple(data["faces"]), int(data["total"]))


def dice_json(dice: FateDice) -> JSON:
    return {"d6": list(dice.d6), "faces": list(dice.faces), "total": dice.total}


def roll_state_json(rs: RollState) -> JSON:
    return {
        "roller_id": rs.roller_id,
        "dice": dice_json(rs.dice),
        "skill_rating": rs.skill_rating,
        "modifiers": [{"source": m.source.value, "value": m.value, "ref": m.ref} for m in rs.modifiers],
        "history": [dice_json(d) for d in rs.history],
        "invoked": sorted(rs.invoked_aspect_ids),
        "free_used": rs.free_invocations_used,
        "advantages": rs.fp_advantages,
        "window_open": rs.window_open,
        "effort": rs.effort,
        "effort_label": ladder_label(rs.effort),
        "effort_label_en": ladder_label(rs.effort, "en"),
    }


def roll_state_of(side: JSON) -> RollState:
    return RollState(
        roller_id=str(side["roller_id"]),
        dice=dice_of(side["dice"]),
        skill_rating=int(side["skill_rating"]),
        modifiers=modifiers_of(side),
        history=tuple(dice_of(d) for d in side.get("history", [])),
        invoked_aspect_ids=frozenset(side.get("invoked", [])),
        free_invocations_used=int(side.get("free_used", 0)),
        fp_advantages=int(side.get("advantages", 0)),
        window_open=bool(side.get("window_open", True)),
    )


def new_side(roll: Roll, index: int, character: Character | None, skill: str = "") -> JSON:
    stored = roll.result["sides"][index]
    rs = RollState(
        roller_id=str(character.pk) if character else "",
        dice=dice_of(stored["dice"]),
        skill_rating=int(stored["rating"]),
        modifiers=modifiers_of(stored),
    )
    return {
        **roll_state_json(rs),
        "roll_id": roll.pk,
        "index": index,
        "character_id": character.pk if character else None,
        "name": character.name if character else "",
        "actor": actor_of(character) if character else GM,
        "skill": skill,
        "skill_label": stored.get("skill_label", ""),
    }


def side_actor(state: JSON, side: str) -> str | int:
    return state["sides"][side]["actor"] if side in state.get("sides", {}) else GM


def window_waiting(state: JSON) -> JSON:
    """While the window is open the GM closes it, or approves the oldest request, or rules a guess."""
    if state.get("guesses"):
        return waiting("rule_guess", GM, "El DJ juzga el aspecto adivinado", "The GM rules on the guessed aspect")
    if state.get("requests"):
        return waiting("approve", GM, "Aprobar o rechazar la invocación", "Approve or reject the invocation")
    return waiting(
        "close",
        GM,
        "Invocaciones de los bandos; el DJ cierra la ventana",
        "Invocations from each side; the GM closes the window",
    )


def window_actors(state: JSON, step: str) -> frozenset[str | int]:
    if step in ("invoke", "advantage", "guess"):
        return frozenset({GM, *(s["actor"] for s in state.get("sides", {}).values())})
    if step in ("approve", "reject", "close", "rule_guess"):
        return frozenset({GM})
    spin = state.get("spin_use") or {}
    if step == "spin" and spin.get("status") == "available":
        return frozenset({GM, spin["actor"]})
    return frozenset()


def resolve_aspect(ctx: StepContext, ref: str, invoker_id: str) -> tuple[Aspect, JSON]:
    """``c:<character>:<aspect id>``, ``k:<character>:<severity>`` (a consequence) or ``s:<scene aspect>``.

    Returns the pure aspect (its id is the reference, so "once per roll" holds across sheets) and where it
    is stored, to write back a used free invocation or a fragile aspect that is gone."""
    kind, _, rest = ref.partition(":")
    unknown = _err("unknown_aspect", "Ese aspecto no existe aquí.", "There is no such aspect here.")
    if kind == "s" and rest.isdigit():
        row = SceneAspect.objects.filter(pk=int(rest), scene=ctx.flow.scene).first()
        if row is None:
            raise unknown
        aspect = Aspect(
            id=ref,
            text=row.text,
            holder_type=HolderType.SCENE,
            holder_id=str(row.scene_id),
            origin=Origin.SCENE,
            visibility=Visibility.HIDDEN if row.hidden else Visibility.PUBLIC,
            # A scene aspect's free invocations are the table's; the GM rules who uses them (§4.5).
            free_invocations=tuple(
                FreeInvocation(holder_character_id=invoker_id, expires_scene_id=str(row.scene_id))
                for _ in range(row.free_invocations)
            ),
        )
        return aspect, {"store": "scene", "pk": row.pk, "free": row.free_invocations}
    owner_id, _, key = rest.partition(":")
    if kind not in ("c", "k") or not owner_id.isdigit() or int(owner_id) not in ctx.characters:
        raise unknown
    sheet = sheet_of(ctx.characters[int(owner_id)])
    if kind == "k":
        for consequence in sheet.consequences:
            if consequence.severity.value == key:
                return (
                    Aspect(
                        id=ref,
                        text=consequence.text,
                        holder_id=owner_id,
                        origin=Origin.CONSEQUENCE,
                        persistence=Persistence.STICKY,
                    ),
                    {"store": "none"},
                )
        raise unknown
    for group, stored in (("aspects", sheet.aspects), ("temporary", sheet.temporary_aspects)):
        for aspect in stored:
            if aspect.id == key:
                update: JSON = {"id": ref, "holder_id": aspect.holder_id or owner_id}
                if group == "aspects":
                    update["free_invocations"] = ()  # free invocations come with temporary aspects only
                where = {"store": group, "character_id": int(owner_id), "aspect_id": key, "original": aspect}
                return aspect.model_copy(update=update), where
    raise unknown


def aspect_choices(ctx_characters: dict[int, Character], scene_aspects: list[SceneAspect], is_gm: bool) -> list[JSON]:
    """Every aspect a side could invoke, as ``{"ref", "text", "holder"}`` (hidden scene aspects: GMs)."""
    choices: list[JSON] = []
    for row in scene_aspects:
        if row.hidden and not is_gm:
            continue
        choices.append({"ref": f"s:{row.pk}", "text": row.text, "holder": "", "free": row.free_invocations})
    for character in ctx_characters.values():
        if character.status != CharacterStatus.APPROVED:
            continue
        try:
            sheet = sheet_of(character)
        except PydanticValidationError:
            continue
        for aspect in (*sheet.aspects, *sheet.temporary_aspects):
            if aspect.active and (aspect.visibility is Visibility.PUBLIC or is_gm):
                free = sum(1 for fi in aspect.free_invocations if not fi.used)
                ref = f"c:{character.pk}:{aspect.id}"
                choices.append({"ref": ref, "text": aspect.text, "holder": character.name, "free": free})
        for consequence in sheet.consequences:
            choices.append(
                {
                    "ref": f"k:{character.pk}:{consequence.severity.value}",
                    "text": consequence.text,
                    "holder": character.name,
                    "free": 0,
                }
            )
    return choices


def written_back(ctx: StepContext, where: JSON, before: Aspect, after: Aspect, free: bool) -> list[LedgerOp]:
    """Store what the invocation did to the aspect: a used free invocation, a fragile aspect gone."""
    if where["store"] == "scene" and free:
        row = SceneAspect.objects.get(pk=where["pk"])
        campaign_services.update_scene_aspect(actor=ctx.actor, aspect=row, free_invocations=max(0, where["free"] - 1))
        return []
    if where["store"] != "temporary" or (after.active and after.free_invocations == before.free_invocations):
        return []
    original: Aspect = where["original"]
    cid = where["character_id"]
    ops = [LedgerOp("remove_temporary_aspect", {"aspect_id": original.id}, cid, "Invocación")]
    if after.active:
        kept = original.model_copy(update={"free_invocations": after.free_invocations})
        ops.append(LedgerOp("add_temporary_aspect", {"aspect": kept.model_dump(mode="json")}, cid, "Invocación"))
    return ops


def side_name(side: JSON) -> str:
    return side.get("name") or side.get("skill_label") or "—"


def effort_words(side: JSON) -> tuple[str, str]:
    return side["effort_label"], side["effort_label_en"]


def apply_request(ctx: StepContext, state: JSON, request: JSON) -> tuple[JSON, list[FollowUpSpec], list[LedgerOp]]:
    """The GM approved ``request``: the pure ``invoke`` decides; its effects become ledger operations."""
    side = state["sides"][request["side"]]
    character = character_of(ctx, side["character_id"])
    invoker = str(character.pk)
    aspect, where = resolve_aspect(ctx, request["aspect"], invoker)
    owner_character = None
    owner_id = aspect.owner_character_id
    if owner_id is not None and owner_id != invoker and int(owner_id) in ctx.characters:
        owner_character = ctx.characters[int(owner_id)]
    mode, payment = InvokeMode(request["mode"]), Payment(request["payment"])
    dice = None
    reroll: Roll | None = None
    if mode is InvokeMode.REROLL:
        reroll = ctx.roll_maker(
            RollSpec(
                kind="effort",
                data={"skill": side.get("skill") or None},
                character_id=character.pk,
                label=_("Repetir la tirada: %(aspect)s") % {"aspect": aspect.text[:80]},
            )
        )
        dice = ScriptedDice(reroll.result["sides"][0]["dice"]["d6"])
    before_free = aspect.free_invocations
    outcome = invoke(
        roll_state_of(side),
        invoker,
        wallet_of(character),
        aspect,
        mode,
        payment,
        gm_approved=True,
        dice=dice,
        detrimental_to_owner=bool(request.get("detrimental")),
        owner=wallet_of(owner_character) if owner_character else None,
        current_scene_id=str(ctx.flow.scene_id),
        settings=cfg(ctx),
    )
    ops: list[LedgerOp] = []
    reason = f"Invocar «{aspect.text}»"[:300]
    if payment is Payment.PAID:
        own = owner_id == invoker
        ops.append(LedgerOp("invoke_own" if own else "invoke_other", {"gm_approved": True}, character.pk, reason))
        if (
            outcome.owner is not None
            and owner_character is not None
            and outcome.owner.pending > wallet_of(owner_character).pending
        ):
            ops.append(LedgerOp("tag_compensation", {}, owner_character.pk, reason))
    ops += written_back(
        ctx, where, aspect.model_copy(update={"free_invocations": before_free}), outcome.aspect, payment is Payment.FREE
    )
    new_side = {**side, **roll_state_json(outcome.roll)}
    state = {**state, "sides": {**state["sides"], request["side"]: new_side}}
    if outcome.owner is not None and owner_character is not None:
        state["pending_release"] = sorted({*state.get("pending_release", []), owner_character.pk})
    paid_es = "gratis" if payment is Payment.FREE else "1 PD"
    paid_en = "free" if payment is Payment.FREE else "1 fate point"
    if mode is InvokeMode.REROLL:
        new_dice = outcome.roll.dice
        es = f"{character.name} invoca «{aspect.text}» ({paid_es}) y repite la tirada: {glyphs(list(new_dice.faces))}"
        en = f"{character.name} invokes '{aspect.text}' ({paid_en}) and rerolls: {glyphs(list(new_dice.faces))}"
    else:
        es = f"{character.name} invoca «{aspect.text}» ({paid_es}): +2"
        en = f"{character.name} invokes '{aspect.text}' ({paid_en}): +2"
    label_es, label_en = effort_words(new_side)
    es += f"; esfuerzo {label_es}"
    en += f"; effort {label_en}"
    follow = FollowUpSpec(
        side["roll_id"],
        "reroll" if mode is InvokeMode.REROLL else "invoke",
        es,
        en,
        data={
            "side": request["side"],
            "aspect": aspect.text,
            "mode": mode.value,
            "payment": payment.value,
            "reroll_roll": reroll.pk if reroll else None,
        },
        result=result_now(state, request["side"]),
        character_id=character.pk,
    )
    return state, [follow], ops


def result_now(state: JSON, side: str) -> JSON:
    s = state["sides"][side]
    return {"side": side, "effort": s["effort"], "dice": s["dice"], "modifiers": s["modifiers"]}


class Window:
    """The invocation window steps every rolling flow shares; ``after_close`` continues the flow."""

    def window_step(self, ctx: StepContext, step: str, params: JSON) -> StepResult:
        result = self._window_step(ctx, step, params)
        if result.state.get("phase") == "window":
            result = replace(result, state=with_choices(ctx, result.state))
        return result

    def _window_step(self, ctx: StepContext, step: str, params: JSON) -> StepResult:
        state = dict(ctx.flow.state)
        if state.get("phase") != "window":
            raise fate_error("window_closed")
        if step == "invoke":
            return self._invoke(ctx, state, parse(InvokeIn, params))
        if step in ("approve", "reject"):
            chosen = parse(RequestIn, params)
            requests = list(state.get("requests", []))
            if not requests:
                raise _err("no_request", "No hay invocaciones pendientes.", "There is no pending invocation.")
            index = 0
            if chosen.request is not None:
                ids = [r["id"] for r in requests]
                if chosen.request not in ids:
                    raise _err("no_request", "Esa invocación ya no está pendiente.", "That invocation is not pending.")
                index = ids.index(chosen.request)
            request = requests.pop(index)
            state["requests"] = requests
            if step == "reject":
                side = state["sides"][request["side"]]
                follow = FollowUpSpec(
                    side["roll_id"],
                    "invoke_rejected",
                    f"El DJ no aprueba invocar «{request['aspect_text']}»; no se gasta ningún PD",
                    f"The GM rejects invoking '{request['aspect_text']}'; no fate point is spent",
                    data={"side": request["side"], "aspect": request["aspect_text"]},
                    character_id=side["character_id"],
                )
                return StepResult(state, window_waiting(state), follow_ups=[follow])
            state, follow_ups, ops = apply_request(ctx, state, request)
            return StepResult(state, window_waiting(state), follow_ups=follow_ups, ledger=ops)
        if step == "advantage":
            side_key = parse(SideIn, params).side
            side = state["sides"].get(side_key)
            if side is None or side["character_id"] is None:
                raise out_of_order()
            character = character_of(ctx, side["character_id"])
            if not may_speak_for(ctx, character):
                raise _err(
                    "not_your_side", "Solo puedes mejorar tu propia tirada.", "You may only improve your own roll."
                )
            rs, _wallet = buy_advantage(roll_state_of(side), wallet_of(character), cfg(ctx))
            new_side = {**side, **roll_state_json(rs)}
            state["sides"] = {**state["sides"], side_key: new_side}
            label_es, label_en = effort_words(new_side)
            follow = FollowUpSpec(
                side["roll_id"],
                "fp_advantage",
                f"{character.name} gana una ventaja (+1) con 1 PD; esfuerzo {label_es}",
                f"{character.name} gains a +1 advantage for 1 fate point; effort {label_en}",
                result=result_now(state, side_key),
                character_id=character.pk,
            )
            op = LedgerOp("fp_advantage", {}, character.pk, "Ganar una ventaja (+1)")
            return StepResult(state, window_waiting(state), follow_ups=[follow], ledger=[op])
        if step == "guess":
            return self._guess(ctx, state, parse(GuessIn, params))
        if step == "rule_guess":
            return self._rule_guess(ctx, state, parse(RuleGuessIn, params))
        if step == "spin":
            return self._spin(ctx, state, parse(SpinIn, params))
        if step == "close":
            if state.get("requests") or state.get("guesses"):
                raise _err(
                    "requests_pending",
                    "Aprueba o rechaza antes las invocaciones pendientes.",
                    "Approve or reject the pending invocations first.",
                )
            for key, side in state["sides"].items():
                state["sides"][key] = {**side, **roll_state_json(close_window(roll_state_of(side)))}
            release = [
                LedgerOp("release_pending", {}, cid, "Fin de la ventana de invocaciones")
                for cid in state.pop("pending_release", [])
                if cid in ctx.characters and sheet_of(ctx.characters[cid]).fate_points_pending > 0
            ]
            result = self.after_close(ctx, state)
            return replace(result, ledger=[*release, *result.ledger])
        raise out_of_order()

    def _own_side(self, ctx: StepContext, state: JSON, side_key: str) -> tuple[JSON, Character]:
        """The side a step acts on and its character, refused unless the actor speaks for that character."""
        side = state["sides"].get(side_key)
        if side is None or side["character_id"] is None:
            raise _err("no_character", "Ese bando no tiene personaje.", "That side has no character.")
        character = character_of(ctx, side["character_id"])
        if not may_speak_for(ctx, character):
            raise _err(
                "not_your_side", "Solo puedes actuar sobre tu propia tirada.", "You may only act on your own roll."
            )
        return side, character

    def _invoke(self, ctx: StepContext, state: JSON, chosen: InvokeIn) -> StepResult:
        side, character = self._own_side(ctx, state, chosen.side)
        aspect, _where = resolve_aspect(ctx, chosen.aspect, str(character.pk))
        # Refuse now what the rules would refuse on approval (the GM's approval is the only missing piece).
        rs = roll_state_of(side)
        pending = {r["aspect"] for r in state.get("requests", []) if r["side"] == chosen.side}
        if aspect.id in rs.invoked_aspect_ids or chosen.aspect in pending:
            raise fate_error("aspect_already_invoked_on_roll")
        if not aspect.active:
            raise fate_error("aspect_inactive")
        if not aspect.known_to(str(character.pk)):
            raise fate_error("aspect_unknown_to_invoker")
        if chosen.payment is Payment.PAID and wallet_of(character).fate_points < 1 + sum(
            1 for r in state.get("requests", []) if r["side"] == chosen.side and r["payment"] == Payment.PAID.value
        ):
            raise fate_error("insufficient_fate_points", have=wallet_of(character).fate_points, need=1)
        if chosen.payment is Payment.FREE:
            if aspect.free_invocation_index(str(character.pk), str(ctx.flow.scene_id)) is None:
                raise fate_error("free_invocation_unavailable")
            limit = cfg(ctx).max_free_invocations_per_roll
            pending_free = sum(
                1 for r in state.get("requests", []) if r["side"] == chosen.side and r["payment"] == "free"
            )
            if limit is not None and rs.free_invocations_used + pending_free >= limit:
                raise fate_error("free_invocation_limit")
        number = int(state.get("next_request", 1))
        request = {
            "id": number,
            "side": chosen.side,
            "aspect": chosen.aspect,
            "aspect_text": aspect.text,
            "mode": chosen.mode.value,
            "payment": chosen.payment.value,
            "detrimental": chosen.detrimental,
            "by": ctx.actor.pk,
        }
        state["next_request"] = number + 1
        if ctx.viewer.is_gm:  # the GM's own request (an NPC's) needs no one else's approval
            state, follow_ups, ops = apply_request(ctx, state, request)
            return StepResult(state, window_waiting(state), follow_ups=follow_ups, ledger=ops)
        state["requests"] = [*state.get("requests", []), request]
        mode_es = "repetir la tirada" if chosen.mode is InvokeMode.REROLL else "+2"
        mode_en = "reroll" if chosen.mode is InvokeMode.REROLL else "+2"
        follow = FollowUpSpec(
            side["roll_id"],
            "invoke_requested",
            f"{character.name} pide invocar «{aspect.text}» ({mode_es}); espera al DJ",
            f"{character.name} asks to invoke '{aspect.text}' ({mode_en}); waiting for the GM",
            data={"side": chosen.side, "aspect": aspect.text, "request": number},
            character_id=character.pk,
        )
        return StepResult(state, window_waiting(state), follow_ups=[follow])

    def _guess(self, ctx: StepContext, state: JSON, chosen: GuessIn) -> StepResult:
        """§4.11: invoke an aspect one suspects exists; the PD is charged now (A34), the GM rules next."""
        side, character = self._own_side(ctx, state, chosen.side)
        start_guess(str(character.pk), chosen.text, wallet_of(character))  # refuses without a PD
        number = int(state.get("next_request", 1))
        state["next_request"] = number + 1
        guess = {"id": number, "side": chosen.side, "text": chosen.text, "mode": chosen.mode.value}
        state["guesses"] = [*state.get("guesses", []), {**guess, "justification": chosen.justification}]
        op = LedgerOp(FpKind.GUESS.value, {}, character.pk, f"Adivinar «{chosen.text}»"[:300])
        follow = FollowUpSpec(
            side["roll_id"],
            "guess",
            f"{character.name} cree que hay «{chosen.text}» y lo invoca (1 PD): {chosen.justification}"[:300],
            f"{character.name} suspects '{chosen.text}' and invokes it (1 PD): {chosen.justification}"[:300],
            data={"side": chosen.side, "text": chosen.text, "guess": number},
            character_id=character.pk,
        )
        return StepResult(state, window_waiting(state), follow_ups=[follow], ledger=[op])

    def _rule_guess(self, ctx: StepContext, state: JSON, chosen: RuleGuessIn) -> StepResult:
        guesses = list(state.get("guesses", []))
        ids = [g["id"] for g in guesses]
        if not guesses or (chosen.guess is not None and chosen.guess not in ids):
            raise _err("no_guess", "No hay ningún aspecto adivinado pendiente.", "There is no pending guess.")
        guess = guesses.pop(ids.index(chosen.guess) if chosen.guess is not None else 0)
        side = state["sides"][guess["side"]]
        guesser = character_of(ctx, side["character_id"])
        real, where = None, None
        if chosen.ruling is GuessRuling.CLOSE_ENOUGH:
            if not chosen.aspect:
                raise _err("aspect_required", "Indica el aspecto real.", "Name the real aspect.")
            real, where = resolve_aspect(ctx, chosen.aspect, str(guesser.pk))
        deceiver = character_of(ctx, chosen.deceiver) if chosen.deceiver is not None else None
        mode = InvokeMode(guess["mode"])
        dice = None
        if real is not None and mode is InvokeMode.REROLL:
            reroll = ctx.roll_maker(
                RollSpec(kind="effort", data={"skill": side.get("skill") or None}, character_id=guesser.pk)
            )
            dice = ScriptedDice(reroll.result["sides"][0]["dice"]["d6"])
        placed_id = f"deception-{ctx.flow.pk}-{guess['id']}"
        outcome = rule_guess(
            Guess(str(guesser.pk), guess["text"]),
            wallet_of(guesser),
            chosen.ruling,
            real_aspect=real,
            roll=roll_state_of(side) if real is not None else None,
            mode=mode,
            dice=dice,
            deceiver_id=str(deceiver.pk) if deceiver else None,
            deceiver_returns_point=chosen.returns_point,
            deceiver_places_aspect=bool(chosen.place_text.strip()),
            placed_aspect_id=placed_id,
            placed_text=chosen.place_text.strip(),
            scene_id=str(ctx.flow.scene_id),
            settings=cfg(ctx),
        )
        state["guesses"] = guesses
        ops: list[LedgerOp] = []
        reason = f"Adivinar «{guess['text']}»"[:300]
        name = guesser.name
        if outcome.roll is not None and real is not None and where is not None and outcome.revealed is not None:
            new_side = {**side, **roll_state_json(outcome.roll)}
            state["sides"] = {**state["sides"], guess["side"]: new_side}
            ops += written_back(ctx, where, real, outcome.revealed, False)
            label_es, label_en = effort_words(new_side)
            es = f"El DJ da por buena la suposición: es «{real.text}»; {name} lo invoca con ese PD; esfuerzo {label_es}"
            en = f"The GM rules it close enough: it is '{real.text}'; {name} invokes it with that PD; effort {label_en}"
        elif chosen.ruling is GuessRuling.MISS_NOT_SECRET:
            ops.append(LedgerOp(FpKind.GUESS_REFUND.value, {}, guesser.pk, reason))
            es, en = f"No existe; {name} recupera su PD", f"No such aspect; {name} gets the PD back"
        elif chosen.ruling is GuessRuling.MISS_SECRET:
            es, en = "No existe, y eso dice algo: el PD se pierde", "No such aspect, and that tells something: PD spent"
        elif outcome.guesser.fate_points > wallet_of(guesser).fate_points:
            ops.append(LedgerOp(FpKind.DECEIVER_RETURNS_POINT.value, {}, guesser.pk, reason))
            es, en = f"Era un engaño; el engañador devuelve el PD a {name}", f"A deception; {name} gets the PD back"
            if outcome.placed is not None:
                aspect = outcome.placed.model_dump(mode="json")
                ops.append(LedgerOp("add_temporary_aspect", {"aspect": aspect}, guesser.pk, reason))
                es += f" y le deja «{outcome.placed.text}»"
                en += f" and leaves them '{outcome.placed.text}'"
        else:
            es, en = f"Era un engaño; {name} pierde el PD", f"A deception; {name} loses the PD"
        follow = FollowUpSpec(
            side["roll_id"],
            "guess_ruled",
            es[:300],
            en[:300],
            data={"guess": guess["id"], "ruling": chosen.ruling.value},
            result=result_now(state, guess["side"]),
            character_id=guesser.pk,
        )
        return StepResult(state, window_waiting(state), follow_ups=[follow], ledger=ops)

    def _spin(self, ctx: StepContext, state: JSON, chosen: SpinIn) -> StepResult:
        """§3.6 [PROPOSED·SotC]: +1 or −1 on any single roll of the very next action, once."""
        spin = dict(state.get("spin_use") or {})
        if not spin:
            raise fate_error("spin_expired", holder="")
        if chosen.sign == 0:
            raise fate_error("invalid_value", sign=0)
        side = state["sides"].get(chosen.side)
        if side is None:
            raise out_of_order()
        used, _effort = apply_spin(Spin(str(spin["holder"]), spin["status"]), int(side["effort"]), chosen.sign)
        rs = roll_state_of(side)
        rs = replace(rs, modifiers=(*rs.modifiers, Modifier(ModifierSource.SPIN, chosen.sign, str(spin["holder"]))))
        new_side = {**side, **roll_state_json(rs)}
        state["sides"] = {**state["sides"], chosen.side: new_side}
        state["spin_use"] = {**spin, "status": used.status}
        label_es, label_en = effort_words(new_side)
        sign = f"{chosen.sign:+d}"
        follow = FollowUpSpec(
            side["roll_id"],
            "spin",
            f"{spin['name']} usa su ventaja de la defensa ({sign}) en {side_name(side)}; esfuerzo {label_es}",
            f"{spin['name']} uses their spin ({sign}) on {side_name(side)}; effort {label_en}",
            data={"side": chosen.side, "sign": chosen.sign, "holder": spin["holder"]},
            result=result_now(state, chosen.side),
        )
        return StepResult(state, window_waiting(state), follow_ups=[follow])

    def after_close(self, ctx: StepContext, state: JSON) -> StepResult:  # pragma: no cover - overridden
        raise NotImplementedError


def open_window(ctx: StepContext, state: JSON) -> JSON:
    state = {**state, "phase": "window", "requests": [], "next_request": 1}
    spin = spin_available(ctx)
    if spin:  # (``spin`` is what an attack earns; ``spin_use`` what this action may use)
        state["spin_use"] = spin
    return with_choices(ctx, state)


def spin_available(ctx: StepContext) -> JSON:
    """The spin this action may use (§3.6): earned by the defender in the scene's previous action (the last
    rolling flow opened before this one); any later action finds it lapsed."""
    previous = (
        Flow.objects.filter(scene_id=ctx.flow.scene_id, kind__in=ROLLING_KINDS, pk__lt=ctx.flow.pk)
        .exclude(status=FlowStatus.CANCELLED)
        .order_by("-pk")
        .first()
    )
    if previous is None or previous.kind != "attack" or previous.state.get("spin") is not True:
        return {}
    b = previous.state["sides"]["b"]
    if b.get("character_id") is None:
        return {}
    return {
        "holder": b["character_id"],
        "name": b["name"],
        "actor": b["actor"],
        "from_flow": previous.pk,
        "status": "available",
    }


def with_choices(ctx: StepContext, state: JSON) -> JSON:
    """The aspects the sides may name (their sheets' and the scene's visible ones), for the forms."""
    ids = {s["character_id"] for s in state.get("sides", {}).values() if s.get("character_id")}
    characters = {pk: c for pk, c in ctx.characters.items() if pk in ids}
    rows = list(SceneAspect.objects.filter(scene_id=ctx.flow.scene_id, hidden=False))
    return {**state, "aspects": aspect_choices(characters, rows, False)}


def final_words(state: JSON, kind: str, secret: JSON, settings: FateSotcSettings) -> tuple[str, str, JSON]:
    """The result once the window closed, in words, and as JSON (a secret difficulty stays out of both)."""
    sides = state["sides"]
    a = sides["a"]
    if "b" in sides:
        b = sides["b"]
        if kind == "attack":
            res = resolve_attack(a["effort"], b["effort"], Track(state.get("track", "health")), settings)
            words = attack_words(res.hit, res.track.value, res.defender_spin, res.defense_margin)
            data: JSON = {"hit": res.hit, "defender_spin": res.defender_spin}
        else:
            opp = resolve_opposed(a["effort"], b["effort"], settings)
            words = opposed_words(opp.winner, opp.shifts, kind == "maneuver")
            data = {"winner": opp.winner, "shifts": opp.shifts, "critical": opp.critical}
        es = f"{side_name(a)} {a['effort_label']} contra {side_name(b)} {b['effort_label']}: {words['es']}"
        en = f"{side_name(a)} {a['effort_label_en']} vs {side_name(b)} {b['effort_label_en']}: {words['en']}"
        return es, en, data
    difficulty = secret.get("difficulty", state.get("difficulty"))
    if difficulty is None:
        return f"Esfuerzo final {a['effort_label']}", f"Final effort {a['effort_label_en']}", {"effort": a["effort"]}
    outcome = resolve_simple(a["effort"], int(difficulty), settings)
    hidden = "difficulty" in secret
    words = simple_words(outcome, None if hidden else int(difficulty))
    data = {"success": outcome.success, "critical": outcome.critical}
    if not hidden:
        data.update(shifts=outcome.shifts, failure_margin=outcome.failure_margin)
    es = f"Esfuerzo final {a['effort_label']}, {words['es']}"
    en = f"Final effort {a['effort_label_en']}, {words['en']}"
    return es, en, data


# --- invocation: a window on a roll already posted ----------------------------------------------------


class InvocationFlow(Window):
    key = "invocation"

    def start(self, ctx: StepContext, params: JSON) -> StepResult:
        chosen = parse(InvocationStartIn, params)
        roll = (
            Roll.objects.select_for_update().filter(pk=chosen.roll, scene=ctx.flow.scene, ruleset="fate-sotc").first()
        )
        if roll is None:
            raise _err("unknown_roll", "Esa tirada no está en esta escena.", "That roll is not in this scene.")
        if roll.gm_only and not hasattr(roll, "reveal"):
            raise _err(
                "secret_roll", "Revela antes la tirada secreta.", "Reveal the secret roll before opening its window."
            )
        if roll.flow_id is not None and Flow.objects.filter(pk=roll.flow_id).exclude(pk=ctx.flow.pk).exists():
            raise _err(
                "window_exists",
                "Esa tirada ya tiene su ventana de invocaciones.",
                "That roll already has its invocation window.",
            )
        if not policy.may_open_roll_window(ctx.viewer, roller_id=roll.roller_id, gm_only=False):
            raise _err(
                "not_your_roll",
                "Solo quien tiró o el DJ abren la ventana de invocaciones.",
                "Only the roller or the GM opens the invocation window.",
            )
        character = character_of(ctx, roll.character_id) if roll.character_id else None
        Roll.objects.filter(pk=roll.pk).update(flow=ctx.flow)
        sides = {"a": new_side(roll, 0, character, str(roll.request.get("skill") or ""))}
        if len(roll.result.get("sides", [])) > 1:
            opponent = character_of(ctx, chosen.opponent) if chosen.opponent else None
            sides["b"] = new_side(roll, 1, opponent, "")
        state = open_window(
            ctx, {"roll": roll.pk, "roll_kind": roll.kind, "sides": sides, "track": roll.request.get("track")}
        )
        if "difficulty" in roll.result:
            state["difficulty"] = roll.result["difficulty"]
        secret = {"difficulty": roll.secret["difficulty"]} if "difficulty" in (roll.secret or {}) else {}
        return StepResult(state, window_waiting(state), secret_state=secret)

    def actors(self, flow: Flow, step: str) -> frozenset[str | int]:
        return window_actors(flow.state, step)

    def step(self, ctx: StepContext, step: str, params: JSON) -> StepResult:
        return self.window_step(ctx, step, params)

    def after_close(self, ctx: StepContext, state: JSON) -> StepResult:
        es, en, data = final_words(state, state.get("roll_kind", ""), ctx.flow.secret_state or {}, cfg(ctx))
        state = {**state, "phase": "done", "final": data, "final_es": es, "final_en": en}
        follow = FollowUpSpec(
            state["roll"], "window_closed", f"Ventana cerrada. {es}", f"Window closed. {en}", result=data
        )
        return StepResult(state, {}, settled=True, follow_ups=[follow])


# --- compel --------------------------------------------------------------------------------------------


def compel_of(state: JSON) -> Compel:
    data = state["compel"]
    return Compel(CompelKind(data["kind"]), int(data["stake"]), CompelStatus(data["status"]), int(data["credited"]))


def compel_json(compel: Compel) -> JSON:
    return {
        "kind": compel.kind.value,
        "stake": compel.stake,
        "status": compel.status.value,
        "credited": compel.credited,
    }


class CompelFlow:
    key = "compel"

    def start(self, ctx: StepContext, params: JSON) -> StepResult:
        if not ctx.viewer.is_gm:
            raise _err("gm_only", "Solo el DJ ofrece un forzado.", "Only the GM offers a compel.")
        chosen = parse(CompelStartIn, params)
        character = character_of(ctx, chosen.character)
        compel = Compel(chosen.kind)
        state: JSON = {
            "phase": "offered",
            "character_id": character.pk,
            "name": character.name,
            "actor": actor_of(character),
            "aspect": chosen.aspect,
            "description": chosen.description,
            "compel": compel_json(compel),
        }
        if chosen.kind is CompelKind.OFFSCREEN:  # the GM gives the PD; it cannot be refused (§4.9)
            compel, _wallet = accept_compel(compel, wallet_of(character))
            state.update(phase="done", compel=compel_json(compel))
            op = LedgerOp("offscreen_compel", {}, character.pk, f"Forzado fuera de escena: «{chosen.aspect}»"[:300])
            return StepResult(state, {}, settled=True, ledger=[op])
        return StepResult(state, self._waiting(state, character))

    def _waiting(self, state: JSON, character: Character) -> JSON:
        stake = state["compel"]["stake"]
        return waiting(
            "accept",
            state["actor"],
            f"{character.name}: aceptar el forzado (+{stake} PD) o rechazarlo (−{stake} PD)",
            f"{character.name}: accept the compel (+{stake} FP) or refuse it (−{stake} FP)",
        )

    def actors(self, flow: Flow, step: str) -> frozenset[str | int]:
        if step in ("accept", "decline"):
            return frozenset({flow.state["actor"]})
        if step in ("escalate", "stand"):
            return frozenset({GM})
        return frozenset()

    def step(self, ctx: StepContext, step: str, params: JSON) -> StepResult:
        state = dict(ctx.flow.state)
        character = character_of(ctx, state["character_id"])
        compel = compel_of(state)
        wallet = wallet_of(character)
        aspect = state["aspect"]
        phase = state.get("phase")
        if (step in ("accept", "decline") and phase != "offered") or (
            step in ("escalate", "stand") and phase != "declined"
        ):
            raise fate_error("already_settled") if phase == "done" else out_of_order()
        if step == "accept":
            before = compel.credited
            compel, _wallet = accept_compel(compel, wallet)
            earned = compel.stake - before
            state.update(phase="done", compel=compel_json(compel))
            if compel.kind is CompelKind.FORESHADOW:
                op = LedgerOp("gm_foreshadow_gift", {}, character.pk, f"Forzado: «{aspect}»"[:300], by_rules=True)
            else:
                params_ = {"amount": earned}
                op = LedgerOp("compel_accepted", params_, character.pk, f"Forzado: «{aspect}»"[:300], by_rules=True)
            return StepResult(state, {}, settled=True, ledger=[op])
        if step == "decline":
            compel = decline_compel(compel, wallet)
            if compel.kind is CompelKind.FORESHADOW:  # refusing the gift costs one of their own at once
                compel, _wallet = buy_off_compel(compel, wallet)
                state.update(phase="done", compel=compel_json(compel))
                op = LedgerOp("refuse_gm_gift", {}, character.pk, f"Rechaza el punto del DJ: «{aspect}»"[:300])
                return StepResult(state, {}, settled=True, ledger=[op])
            state.update(phase="declined", compel=compel_json(compel))
            return StepResult(
                state,
                waiting(
                    "stand",
                    GM,
                    f"El DJ sube el forzado o lo deja en {compel.stake} PD",
                    f"The GM escalates the compel or leaves it at {compel.stake} FP",
                ),
            )
        if step == "escalate":
            compel = escalate_compel(compel, cfg(ctx))
            state.update(phase="offered", compel=compel_json(compel))
            return StepResult(state, self._waiting(state, character))
        if step == "stand":
            compel, _wallet = buy_off_compel(compel, wallet)
            state.update(phase="done", compel=compel_json(compel))
            op = LedgerOp(
                "compel_buy_off", {"amount": compel.stake}, character.pk, f"Evita el forzado: «{aspect}»"[:300]
            )
            return StepResult(state, {}, settled=True, ledger=[op])
        raise out_of_order()


# --- attack -----------------------------------------------------------------------------------------------


class AttackFlow(Window):
    key = "attack"

    def start(self, ctx: StepContext, params: JSON) -> StepResult:
        chosen = parse(AttackStartIn, params)
        attacker = character_of(ctx, chosen.attacker)
        defender = character_of(ctx, chosen.defender)
        if not may_speak_for(ctx, attacker):
            raise _err("not_your_side", "Solo atacas con tu propio personaje.", "You attack with your own character.")
        settings = cfg(ctx)
        roll = ctx.roll_maker(
            RollSpec(
                kind="attack",
                data={
                    "skill": chosen.skill,
                    "opposition": skill_rating(defender.sheet, chosen.defense_skill),
                    "opposition_skill": chosen.defense_skill,
                    "opposition_name": defender.name,
                    "track": chosen.track.value,
                    "full_defense": chosen.full_defense,
                },
                character_id=attacker.pk,
                label=_("Ataque de %(a)s a %(d)s") % {"a": attacker.name, "d": defender.name},
            )
        )
        sides = {
            "a": new_side(roll, 0, attacker, chosen.skill),
            "b": new_side(roll, 1, defender, chosen.defense_skill),
        }
        sides["b"]["skill_label"] = settings.skill_label(chosen.defense_skill)
        state = open_window(ctx, {"roll": roll.pk, "sides": sides, "track": chosen.track.value})
        return StepResult(state, window_waiting(state))

    def actors(self, flow: Flow, step: str) -> frozenset[str | int]:
        state = flow.state
        if step in WINDOW_STEPS:
            return window_actors(state, step)
        if step == "absorb":
            return frozenset({side_actor(state, "b")})
        if step == "answer":
            return frozenset({side_actor(state, "a")})
        if step == "rule":
            return frozenset({GM})
        return frozenset()

    def after_close(self, ctx: StepContext, state: JSON) -> StepResult:
        a, b = state["sides"]["a"], state["sides"]["b"]
        result = resolve_attack(a["effort"], b["effort"], Track(state["track"]), cfg(ctx))
        es, en, data = final_words(state, "attack", {}, cfg(ctx))
        state = {**state, "hit": result.hit, "spin": result.defender_spin}
        follow = FollowUpSpec(
            state["roll"], "window_closed", f"Ventana cerrada. {es}", f"Window closed. {en}", result=data
        )
        if result.hit <= 0:
            return StepResult({**state, "phase": "done"}, {}, settled=True, follow_ups=[follow])
        state["phase"] = "absorb"
        return StepResult(state, self._absorb_waiting(state), follow_ups=[follow])

    def _absorb_waiting(self, state: JSON) -> JSON:
        b = state["sides"]["b"]
        track_es, track_en = TRACK_NAMES[state["track"]]
        return waiting(
            "absorb",
            b["actor"],
            f"{b['name']}: absorber {state['hit']} de estrés en {track_es} (casilla o consecuencia) o rendirse",
            f"{b['name']}: absorb {state['hit']} stress on {track_en} (a box or a consequence) or concede",
        )

    def step(self, ctx: StepContext, step: str, params: JSON) -> StepResult:
        if step in WINDOW_STEPS:
            return self.window_step(ctx, step, params)
        state = dict(ctx.flow.state)
        phase = state.get("phase")
        a, b = state["sides"]["a"], state["sides"]["b"]
        defender = character_of(ctx, b["character_id"])
        attacker = character_of(ctx, a["character_id"])
        if step == "absorb" and phase == "absorb":
            chosen = parse(AbsorbIn, params)
            if chosen.choice == "concede":
                if state.get("concession_refused"):
                    raise _err(
                        "concession_refused",
                        "Tu rendición ya fue rechazada: absorbe el golpe.",
                        "Your concession was refused: absorb the hit.",
                    )
                terms = chosen.terms.strip() or chosen.text.strip()
                if not terms:
                    raise _err(
                        "terms_required", "Escribe los términos de tu rendición.", "Write the terms of your concession."
                    )
                state.update(phase="concession", terms=terms)
                follow = FollowUpSpec(
                    state["roll"],
                    "concession_offered",
                    f"{defender.name} ofrece rendirse: {terms}"[:300],
                    f"{defender.name} offers to concede: {terms}"[:300],
                    data={"terms": terms},
                    character_id=defender.pk,
                )
                wait = waiting(
                    "answer",
                    a["actor"],
                    f"{attacker.name}: aceptar o rechazar la rendición",
                    f"{attacker.name}: accept or refuse the concession",
                )
                return StepResult(state, wait, follow_ups=[follow])
            return self._absorb(ctx, state, defender, chosen)
        if step == "answer" and phase == "concession":
            accept = parse(AnswerIn, params).accept
            state.update(phase="ruling", accepted=accept)
            word_es, word_en = ("acepta", "accepts") if accept else ("rechaza", "refuses")
            follow = FollowUpSpec(
                state["roll"],
                "concession_answered",
                f"{attacker.name} {word_es} la rendición; el DJ juzga si era razonable",
                f"{attacker.name} {word_en} the concession; the GM rules whether it was reasonable",
                character_id=attacker.pk,
            )
            wait = waiting("rule", GM, "El DJ juzga si la rendición es razonable", "The GM rules on the concession")
            return StepResult(state, wait, follow_ups=[follow])
        if step == "rule" and phase == "ruling":
            reasonable = parse(RuleIn, params).reasonable
            accepted = bool(state["accepted"])
            outcome = resolve_concession(wallet_of(defender), wallet_of(attacker), accepted, reasonable, cfg(ctx))
            ops: list[LedgerOp] = []
            if outcome.conceder.fate_points > wallet_of(defender).fate_points:
                ops.append(LedgerOp("concession_reward", {}, defender.pk, "Rendición razonable"))
                ops.append(LedgerOp("concession_refused_penalty", {}, attacker.pk, "Rechazar una rendición razonable"))
            word_es = "razonable" if reasonable else "no razonable"
            word_en = "reasonable" if reasonable else "unreasonable"
            if accepted:
                ops.append(LedgerOp("set_status", {"status": "conceded"}, defender.pk, "Rendición aceptada"))
                follow = FollowUpSpec(
                    state["roll"],
                    "conceded",
                    f"{defender.name} se rinde en sus términos (DJ: {word_es})",
                    f"{defender.name} concedes on their own terms (GM: {word_en})",
                    character_id=defender.pk,
                )
                return StepResult({**state, "phase": "done"}, {}, settled=True, follow_ups=[follow], ledger=ops)
            state.update(phase="absorb", concession_refused=True)
            extra_es = ": gana 1 PD y el atacante pierde 1" if ops else ""
            extra_en = ": they gain 1 FP and the attacker loses 1" if ops else ""
            follow = FollowUpSpec(
                state["roll"],
                "concession_refused",
                f"Rendición rechazada (DJ: {word_es}){extra_es}; {defender.name} absorbe el golpe",
                f"Concession refused (GM: {word_en}){extra_en}; {defender.name} absorbs the hit",
                character_id=defender.pk,
            )
            return StepResult(state, self._absorb_waiting(state), follow_ups=[follow], ledger=ops)
        raise out_of_order()

    def _absorb(self, ctx: StepContext, state: JSON, defender: Character, chosen: AbsorbIn) -> StepResult:
        track = Track(state["track"])
        text = chosen.text.strip() or None
        hit = int(state["hit"])
        params = TakeHitParams(
            track=track, hit=hit, choose_consequence=chosen.choice == "consequence", consequence_text=text
        )
        sheet = sheet_of(defender)
        settings = cfg(ctx)
        after = take_hit(sheet, params, settings)  # the rules decide (and refuse); the ledger stores the same
        track_es, track_en = TRACK_NAMES[track.value]
        if after.status != sheet.status:
            es, en = f"{defender.name} queda derrotado", f"{defender.name} is taken out"
        elif after.consequences != sheet.consequences:
            new = after.consequences[-1]
            es = f"{defender.name} recibe una consecuencia {new.severity.value}: «{new.text}»"
            en = f"{defender.name} takes a {new.severity.value} consequence: '{new.text}'"
        else:
            marked, _boxes = apply_hit(sheet.stress.get(track), hit, False, False)
            box = marked.box if isinstance(marked, Marked) else hit
            es, en = (
                f"{defender.name} marca la casilla {box} de {track_es}",
                f"{defender.name} marks box {box} of {track_en}",
            )
        op = LedgerOp("take_hit", params.model_dump(mode="json", exclude_none=True), defender.pk, f"Ataque: {hit}")
        follow = FollowUpSpec(
            state["roll"], "absorbed", es, en, data={"hit": hit, "choice": chosen.choice}, character_id=defender.pk
        )
        return StepResult(
            {**state, "phase": "done", "absorbed": es}, {}, settled=True, follow_ups=[follow], ledger=[op]
        )


# --- advantage: a maneuver that places an aspect ---------------------------------------------------------


class AdvantageFlow(Window):
    key = "advantage"

    def start(self, ctx: StepContext, params: JSON) -> StepResult:
        chosen = parse(AdvantageStartIn, params)
        character = character_of(ctx, chosen.character)
        if not may_speak_for(ctx, character):
            raise _err(
                "not_your_side", "Solo maniobras con tu propio personaje.", "You maneuver with your own character."
            )
        settings = cfg(ctx)
        label = _("Maniobra de %(a)s: «%(text)s»") % {"a": character.name, "text": chosen.text[:60]}
        if chosen.target == "scene":
            difficulty = chosen.difficulty if chosen.difficulty is not None else settings.default_simple_difficulty
            roll = ctx.roll_maker(
                RollSpec(
                    kind="simple",
                    data={"skill": chosen.skill, "difficulty": difficulty},
                    character_id=character.pk,
                    label=label,
                )
            )
            sides = {"a": new_side(roll, 0, character, chosen.skill)}
            state = open_window(ctx, {"roll": roll.pk, "sides": sides, "target": "scene", "difficulty": difficulty})
        else:
            if not chosen.target.isdigit():
                raise _err("invalid_params", "Elige el objetivo de la maniobra.", "Choose the maneuver's target.")
            target = character_of(ctx, int(chosen.target))
            roll = ctx.roll_maker(
                RollSpec(
                    kind="maneuver",
                    data={
                        "skill": chosen.skill,
                        "opposition": skill_rating(target.sheet, chosen.defense_skill or None),
                        "opposition_skill": chosen.defense_skill or None,
                        "opposition_name": target.name,
                    },
                    character_id=character.pk,
                    label=label,
                )
            )
            sides = {
                "a": new_side(roll, 0, character, chosen.skill),
                "b": new_side(roll, 1, target, chosen.defense_skill),
            }
            if chosen.defense_skill:
                sides["b"]["skill_label"] = settings.skill_label(chosen.defense_skill)
            state = open_window(ctx, {"roll": roll.pk, "sides": sides, "target": target.pk})
        state["text"] = chosen.text
        return StepResult(state, window_waiting(state))

    def actors(self, flow: Flow, step: str) -> frozenset[str | int]:
        state = flow.state
        if step in WINDOW_STEPS:
            return window_actors(state, step)
        if step in ("accept", "avoid"):
            return frozenset({side_actor(state, "b")})
        if step in ("place", "deny"):
            return frozenset({GM})
        return frozenset()

    def after_close(self, ctx: StepContext, state: JSON) -> StepResult:
        settings = cfg(ctx)
        a = state["sides"]["a"]
        kind = "simple" if state["target"] == "scene" else "maneuver"
        es, en, data = final_words(state, kind, {}, settings)
        follow = FollowUpSpec(
            state["roll"], "window_closed", f"Ventana cerrada. {es}", f"Window closed. {en}", result=data
        )
        if state["target"] == "scene":
            succeeded = resolve_simple(a["effort"], int(state["difficulty"]), settings).success
            shifts = a["effort"] - int(state["difficulty"])
        else:
            outcome = resolve_opposed(a["effort"], state["sides"]["b"]["effort"], settings)
            succeeded = outcome.winner == "a" and outcome.shifts >= 1  # a tie fails (§3.5)
            shifts = outcome.shifts if outcome.winner == "a" else 0
        state = {**state, "shifts": max(0, shifts)}
        if not succeeded:
            return StepResult({**state, "phase": "done", "placed": False}, {}, settled=True, follow_ups=[follow])
        if state["target"] == "scene":
            state["phase"] = "place"
            return StepResult(state, self._place_waiting(state), follow_ups=[follow])
        b = state["sides"]["b"]
        state["phase"] = "target"
        wait = waiting(
            "accept",
            b["actor"],
            f"{b['name']}: aceptar el aspecto «{state['text']}» o pagar 1 PD para evitarlo",
            f"{b['name']}: accept the aspect '{state['text']}' or pay 1 FP to avoid it",
        )
        return StepResult(state, wait, follow_ups=[follow])

    def _place_waiting(self, state: JSON) -> JSON:
        return waiting(
            "place",
            GM,
            f"El DJ aprueba el aspecto «{state['text']}» (efímero o duradero)",
            f"The GM approves the aspect '{state['text']}' (fragile or sticky)",
        )

    def step(self, ctx: StepContext, step: str, params: JSON) -> StepResult:
        if step in WINDOW_STEPS:
            return self.window_step(ctx, step, params)
        state = dict(ctx.flow.state)
        phase = state.get("phase")
        settings = cfg(ctx)
        a = state["sides"]["a"]
        maneuverer = character_of(ctx, a["character_id"])
        if phase == "target" and step in ("accept", "avoid"):
            b = state["sides"]["b"]
            target = character_of(ctx, b["character_id"])
            if step == "avoid":
                outcome = resolve_maneuver_on_character(
                    a["effort"],
                    b["effort"],
                    aspect_id=f"m{ctx.flow.pk}",
                    proposed_text=state["text"],
                    maneuverer_id=str(maneuverer.pk),
                    target_id=str(target.pk),
                    target=wallet_of(target),
                    target_avoids=True,
                    settings=settings,
                )
                op = LedgerOp("avoid_maneuver_aspect", {}, target.pk, f"Evita «{state['text']}»"[:300])
                follow = FollowUpSpec(
                    state["roll"],
                    "aspect_avoided",
                    f"{target.name} paga 1 PD y evita el aspecto «{state['text']}»",
                    f"{target.name} pays 1 fate point to avoid the aspect '{state['text']}'",
                    character_id=target.pk,
                )
                state.update(phase="done", placed=False, status=outcome.status)
                return StepResult(state, {}, settled=True, follow_ups=[follow], ledger=[op])
            state["phase"] = "place"
            follow = FollowUpSpec(
                state["roll"],
                "aspect_accepted",
                f"{target.name} acepta el aspecto «{state['text']}»; el DJ lo aprueba",
                f"{target.name} accepts the aspect '{state['text']}'; the GM approves it",
                character_id=target.pk,
            )
            return StepResult(state, self._place_waiting(state), follow_ups=[follow])
        if phase == "place" and step == "deny":
            follow = FollowUpSpec(
                state["roll"],
                "aspect_denied",
                f"El DJ no aprueba el aspecto «{state['text']}»",
                f"The GM does not approve the aspect '{state['text']}'",
            )
            return StepResult({**state, "phase": "done", "placed": False}, {}, settled=True, follow_ups=[follow])
        if phase == "place" and step == "place":
            chosen = parse(PlaceIn, params)
            text = chosen.text.strip() or state["text"]
            if state["target"] == "scene":
                row = campaign_services.add_scene_aspect(
                    actor=ctx.actor, scene=ctx.flow.scene, text=text, free_invocations=1
                )
                follow = FollowUpSpec(
                    state["roll"],
                    "aspect_placed",
                    f"Nuevo aspecto de escena «{row.text}», con 1 invocación gratuita para {maneuverer.name}",
                    f"New scene aspect '{row.text}', with 1 free invocation for {maneuverer.name}",
                    data={"scene_aspect": row.pk},
                    character_id=maneuverer.pk,
                )
                state.update(phase="done", placed=True, text=text, scene_aspect=row.pk)
                return StepResult(state, {}, settled=True, follow_ups=[follow])
            b = state["sides"]["b"]
            target = character_of(ctx, b["character_id"])
            outcome = resolve_maneuver_on_character(
                a["effort"],
                b["effort"],
                aspect_id=f"m{ctx.flow.pk}",
                proposed_text=text,
                maneuverer_id=str(maneuverer.pk),
                target_id=str(target.pk),
                target=wallet_of(target),
                target_avoids=False,
                gm_wants_sticky=chosen.sticky,
                scene_id=str(ctx.flow.scene_id),
                settings=settings,
            )
            if outcome.aspect is None:
                raise out_of_order()
            op = LedgerOp(
                "add_temporary_aspect",
                {"aspect": outcome.aspect.model_dump(mode="json")},
                target.pk,
                f"Maniobra de {maneuverer.name}"[:300],
            )
            kind_es = "duradero" if outcome.aspect.persistence is Persistence.STICKY else "efímero"
            kind_en = "sticky" if outcome.aspect.persistence is Persistence.STICKY else "fragile"
            note_es = " (el DJ lo quería duradero, pero hace falta un éxito crítico)" if outcome.sticky_denied else ""
            note_en = " (the GM wanted it sticky, but that needs a critical success)" if outcome.sticky_denied else ""
            follow = FollowUpSpec(
                state["roll"],
                "aspect_placed",
                f"«{text}» ({kind_es}) sobre {target.name}, con 1 invocación gratuita para {maneuverer.name}{note_es}",
                f"'{text}' ({kind_en}) on {target.name}, with 1 free invocation for {maneuverer.name}{note_en}",
                data={"aspect_id": outcome.aspect.id, "persistence": outcome.aspect.persistence.value},
                character_id=target.pk,
            )
            state.update(phase="done", placed=True, text=text, persistence=outcome.aspect.persistence.value)
            return StepResult(state, {}, settled=True, follow_ups=[follow], ledger=[op])
        raise out_of_order()


# --- declaration -----------------------------------------------------------------------------------------


class DeclarationFlow:
    """§4.7 (and §4.6 with one's own aspect): ask, then the GM approves (1 PD) or vetoes (free, A34)."""

    key = "declaration"

    def start(self, ctx: StepContext, params: JSON) -> StepResult:
        chosen = parse(DeclarationStartIn, params)
        character = character_of(ctx, chosen.character)
        if not may_speak_for(ctx, character):
            raise _err(
                "not_your_character",
                "Solo puedes declarar con tu propio personaje.",
                "You may only declare with your own character.",
            )
        kind, aspect_text = FpKind.DECLARATION, ""
        if chosen.aspect:
            aspect, _where = resolve_aspect(ctx, chosen.aspect, str(character.pk))
            if aspect.owner_character_id != str(character.pk):
                raise _err(
                    "not_own_aspect",
                    "Para provocar un efecto con un aspecto ajeno hay que forzarlo (§4.6).",
                    "Invoking for effect with someone else's aspect sets up a compel (§4.6).",
                )
            kind, aspect_text = FpKind.INVOKE_EFFECT_OWN, aspect.text
        request_spend(kind, wallet_of(character))  # refused now without a PD; paid only on approval
        state = {
            "phase": "requested",
            "character": character.pk,
            "name": character.name,
            "actor": actor_of(character),
            "text": chosen.text.strip(),
            "kind": kind.value,
            "aspect_text": aspect_text,
        }
        return StepResult(state, self._waiting(state))

    @staticmethod
    def _waiting(state: JSON) -> JSON:
        return waiting(
            "approve",
            GM,
            f"El DJ aprueba o veta la declaración de {state['name']}",
            f"The GM approves or vetoes {state['name']}'s declaration",
        )

    def actors(self, flow: Flow, step: str) -> frozenset[str | int]:
        if flow.state.get("phase") != "requested":
            return frozenset()
        if step in ("approve", "veto"):
            return frozenset({GM})
        if step == "withdraw":
            return frozenset({flow.state["actor"], GM})
        return frozenset()

    def step(self, ctx: StepContext, step: str, params: JSON) -> StepResult:
        state = dict(ctx.flow.state)
        if state.get("phase") != "requested":
            raise out_of_order()
        character = character_of(ctx, state["character"])
        request = FpRequest(FpKind(state["kind"]), 1)
        if step == "approve":
            approve_request(request, wallet_of(character))  # refuses if the PD was spent meanwhile
            op = LedgerOp(state["kind"], {"gm_approved": True}, character.pk, f"Declaración: {state['text']}"[:300])
            return StepResult({**state, "phase": "approved"}, {}, settled=True, ledger=[op])
        if step == "veto":
            veto_request(request)
            return StepResult({**state, "phase": "vetoed"}, {}, settled=True)
        if step == "withdraw":
            return StepResult({**state, "phase": "withdrawn"}, {}, cancelled=True)
        raise out_of_order()


FLOW_KINDS = {
    "invocation": InvocationFlow(),
    "compel": CompelFlow(),
    "attack": AttackFlow(),
    "advantage": AdvantageFlow(),
    "declaration": DeclarationFlow(),
}

__all__ = ["FLOW_KINDS", "FlowStatus", "aspect_choices"]
