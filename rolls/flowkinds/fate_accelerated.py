"""Fate Accelerated flows in the thread, on top of the pure rules in ``systems.fate_accelerated``.

- ``action`` (Acción): an action roll and its invocation window. It either adopts a roll already made in
  a post (``roll``) or is declared first (a GM may set a secret difficulty, or name the opponent who will
  Defend) and then rolled by the character's player. While the window is open anyone at the table may
  invoke aspects (+2, reroll, aid an ally, oppose; paid with a fate point or a free invocation; once per
  aspect per roll); a GM may veto an invocation (its fate point comes back) and closes the window by
  settling: the outcome table applies (situation aspects and boosts on the scene board with their free
  invocations, an overcome's cost, an attack's shifts). A hit waits for the defender's absorption choice
  (one stress box and any empty consequence slots) or being taken out.
- ``compel`` (Forzado): offered by the GM or a player, accepted or refused by the target's player; the GM
  hands over the accepted fate point (a GM-only ledger operation), a refusal costs the target one.
- ``concession`` (Rendición): declared before the opponent rolls; the GM confirms the terms, and the
  rules count the fate points.

Sheets and pools change only through the characters ledger (``LedgerOp``); scene aspects through
``campaigns.services`` in the step's transaction. The pure roll (``ActionRoll``) is stored as JSON in the
flow's state; a secret difficulty lives only in ``secret_state`` and in the roll's GM-only ``secret``.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from django.core.exceptions import PermissionDenied
from django.utils.translation import gettext as _
from pydantic import BaseModel, ConfigDict, Field

from campaigns import policy
from campaigns import services as campaign_services
from campaigns.models import SceneAspect
from characters.models import Character, CharacterStatus
from characters.services import rules_state
from rolls.flows import JSON, FollowUpSpec, LedgerOp, StepContext, StepResult, parse_params
from rolls.models import Flow, FlowStatus, Roll
from rolls.services import RollSpec
from rulesets.fate_accelerated.rolls import ACTION_KINDS, faces_text, outcome_words
from rulesets.fate_accelerated.sheet import owner_of, sheet_aspect, stored_grants
from systems.errors import RulesError
from systems.fate_accelerated import compels as pure_compels
from systems.fate_accelerated import fate_points as pure_fp
from systems.fate_accelerated.actions import Action, Approach, CAMode, FailChoice
from systems.fate_accelerated.aspects import (
    GM,
    SEVERITY_NAMES,
    SLOT_VALUES,
    Aspect,
    AspectKind,
    AspectStatus,
    FreeInvocationGrant,
    Severity,
    situation_aspect,
)
from systems.fate_accelerated.invocations import invoke
from systems.fate_accelerated.ladder import classify, ladder_label
from systems.fate_accelerated.outcomes import Role
from systems.fate_accelerated.resolution import apply_advantage, settle_action
from systems.fate_accelerated.rolls import ActionRoll, Invocation, InvokeEffect, InvokePayment, RollPhase
from systems.fate_accelerated.settings import FaeSettings, settings_or_default
from systems.fate_accelerated.sheet import FaeSheet
from systems.fate_accelerated.stress import absorption_options, validate_absorption
from systems.registry import Names

BOOST_PREFIX = "Impulso: "  # boosts live on the scene board as one-use aspects with this prefix
EFFECT_NAMES = {
    InvokeEffect.BONUS: Names("+2", "+2"),
    InvokeEffect.REROLL: Names("volver a tirar", "reroll"),
    InvokeEffect.AID_ALLY: Names("+2 a un aliado", "+2 to an ally"),
    InvokeEffect.OPPOSE: Names("+2 a la oposición", "+2 to the opposition"),
}
PAYMENT_NAMES = {
    InvokePayment.FATE_POINT: Names("1 punto de destino", "1 fate point"),
    InvokePayment.FREE: Names("invocación gratuita", "free invocation"),
}


# --- Shared helpers -------------------------------------------------------------------------------


def _refuse(code: str, es: str, en: str) -> RulesError:
    return RulesError(code, es, en)


def _settings(ctx: StepContext) -> FaeSettings:
    return ctx.settings if isinstance(ctx.settings, FaeSettings) else settings_or_default(None)


def _character(ctx: StepContext, pk: int | None) -> Character:
    character = ctx.characters.get(int(pk)) if pk is not None else None
    if character is None or character.status != CharacterStatus.APPROVED:
        raise _refuse(
            "unknown_character",
            "Ese personaje no está aprobado en esta partida.",
            "That character is not approved in this campaign.",
        )
    return character


def controller(character: Character) -> str | int:
    """Who acts for a character: its player, or the GMs for an NPC."""
    return "gm" if character.is_npc or character.owner_id is None else int(character.owner_id)


def _require_controls(ctx: StepContext, character: Character) -> None:
    if not policy.controls_character(ctx.viewer, character):
        raise PermissionDenied(_("Ese personaje no es tuyo."))


def _sheet(ctx: StepContext, character: Character) -> FaeSheet:
    return FaeSheet.model_validate(character.sheet, context={"settings": _settings(ctx)})


def _waiting(step: str, who: str | int, es: str, en: str) -> JSON:
    base: JSON = {"step": step, "label_es": es, "label_en": en}
    if who == "gm":
        return {**base, "who": "gm"}
    return {**base, "users": [who]}


def _name(ctx: StepContext, party: str) -> str:
    if party == GM:
        return "DJ"
    character = ctx.characters.get(int(party)) if party.isdigit() else None
    return character.name if character is not None else party


def _conflict(flow: Flow) -> str:
    """[P] a conflict is scene-scoped here: consequences count for a concession within the same scene."""
    return f"scene-{flow.scene_id}"


def _moment(flow: Flow) -> JSON:
    return {"adventure": 0, "session": 0, "scene": flow.scene_id, "conflict": _conflict(flow)}


# --- The pure roll as JSON ------------------------------------------------------------------------


def roll_to_json(roll: ActionRoll) -> JSON:
    data = asdict(roll)
    data["action"] = roll.action.value
    data["approach"] = roll.approach.value
    data["phase"] = roll.phase.value
    data["stunts"] = list(roll.stunts)
    data["helpers"] = list(roll.helpers)
    data["face_history"] = list(roll.face_history)
    data["invocations"] = [
        {**asdict(i), "effect": i.effect.value, "payment": i.payment.value} for i in roll.invocations
    ]
    data["difficulty"] = None  # the difficulty lives in the flow's state or secret_state
    return data


def roll_from_json(data: JSON, difficulty: int | None) -> ActionRoll:
    return ActionRoll(
        key=data["key"],
        actor=data["actor"],
        action=Action(data["action"]),
        approach=Approach(data["approach"]),
        approach_rating=int(data["approach_rating"]),
        difficulty=difficulty,
        target=data.get("target"),
        on_behalf_of=data.get("on_behalf_of"),
        stunts=tuple(data.get("stunts", ())),
        stunt_bonus=int(data.get("stunt_bonus", 0)),
        helpers=tuple(data.get("helpers", ())),
        faces=data.get("faces"),
        face_history=tuple(data.get("face_history", ())),
        invocations=tuple(
            Invocation(
                i["aspect_key"],
                i["invoker"],
                InvokeEffect(i["effect"]),
                InvokePayment(i["payment"]),
                bool(i["same_roll_stacking"]),
                i["justification"],
                i.get("grant_holder"),
            )
            for i in data.get("invocations", ())
        ),
        phase=RollPhase(data["phase"]),
    )


def roll_from_row(row: Roll, target: int | None) -> tuple[ActionRoll, int | None]:
    """The pure roll of a stored action roll (its faces, approach and bonuses), and its difficulty."""
    request = row.request
    difficulty = row.secret.get("difficulty", request.get("difficulty"))
    roll = ActionRoll(
        key=str(row.pk),
        actor=str(row.character_id),
        action=Action(row.kind),
        approach=Approach(request["approach"]),
        approach_rating=int(request["approach_rating"]),
        difficulty=difficulty,
        target=str(target) if target is not None else None,
        stunts=tuple(request.get("stunts", ())),
        stunt_bonus=int(request.get("stunt_bonus", 0)),
        helpers=tuple(f"helper-{i}" for i in range(int(request.get("helpers", 0)))),
        faces=row.result["faces"],
        phase=RollPhase.ROLLED,
    )
    return roll, difficulty


# --- Action: roll, invocation window, settlement, absorption ---------------------------------------


class ActionStart(BaseModel):
    model_config = ConfigDict(extra="forbid")

    roll: int | None = None  # adopt a roll already made in a post
    open_last: bool = False  # adopt the opener's latest action roll in the scene (the default)
    character: int | None = None  # or declare one
    action: Action | None = None
    difficulty: int | None = Field(None, ge=-10, le=30)
    difficulty_secret: bool = False
    target: int | None = None  # the character the action is aimed at (who Defends when opposed)


class RollParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    approach: Approach
    stunts: list[str] = Field(default_factory=list, max_length=5)
    helpers: int = Field(0, ge=0, le=10)


class InvokeParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    aspect: str = Field(min_length=1, max_length=250)
    effect: InvokeEffect = InvokeEffect.BONUS
    payment: InvokePayment = InvokePayment.FATE_POINT
    justification: str = Field(min_length=1, max_length=500)
    character: int | None = None  # the invoker's character (default: yours in this roll)
    roll: str | None = Field(None, pattern="^(action|defense)$")  # whose number changes (aid/oppose)
    grant_holder: int | None = None  # an ally's free invocation on a sheet aspect, lent by whoever controls it


class VetoParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    invocation: int = Field(ge=0)
    roll: str = Field("action", pattern="^(action|defense)$")


class SettleParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ca_mode: CAMode | None = None
    fail_choice: FailChoice | None = None
    trade: bool = False  # an attack's success with style: one shift for a boost
    aspect_text: str = Field("", max_length=200)  # the new situation aspect (create)
    scene_aspect: int | None = None  # the aspect discovered, exploited, or removed by an overcome
    sheet_aspect: str = Field("", max_length=250)  # or a character's aspect discovered or exploited
    boost_actor: str = Field("", max_length=150)
    boost_defender: str = Field("", max_length=150)
    note: str = Field("", max_length=300)  # the cost or twist, in the GM's words


class AbsorbParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    taken_out: bool = False
    box: int | None = Field(None, ge=1, le=3)
    slots: list[Severity] = Field(default_factory=list, max_length=3)
    text_mild: str = Field("", max_length=200)
    text_moderate: str = Field("", max_length=200)
    text_severe: str = Field("", max_length=200)


def _form_value(value: Any) -> Any:
    """HTML forms send "" for an empty field."""
    return None if value == "" else value


def _clean(params: JSON, *, lists: tuple[str, ...] = ()) -> JSON:
    cleaned = {k: _form_value(v) for k, v in params.items()}
    for key in lists:
        value = cleaned.get(key)
        if value is None:
            cleaned.pop(key, None)
        elif not isinstance(value, list):
            cleaned[key] = [value]
    return {k: v for k, v in cleaned.items() if v is not None}


class ActionFlow:
    key = "action"
    names = Names("Acción", "Action")

    # -- who acts --------------------------------------------------------------------------------
    def actors(self, flow: Flow, step: str) -> frozenset[str | int]:
        state = flow.state
        phase = state.get("phase")
        if step == "roll" and phase == "roll":
            return frozenset({state["roller"]})
        if step == "defend" and phase == "defend":
            return frozenset({state["defender"]})
        if step == "invoke" and phase == "window":
            return frozenset({"gm", *state.get("players", ())})
        if step in ("settle", "veto") and phase == "window":
            return frozenset({"gm"})
        if step == "absorb" and phase == "absorb":
            return frozenset({state["defender"]})
        return frozenset()

    # -- start -----------------------------------------------------------------------------------
    def start(self, ctx: StepContext, params: JSON) -> StepResult:
        p: ActionStart = parse_params(ActionStart, _clean(params))
        players = sorted(
            {
                int(c.owner_id)
                for c in ctx.characters.values()
                if not c.is_npc and c.owner_id and c.status == CharacterStatus.APPROVED
            }
        )
        target = _character(ctx, p.target) if p.target is not None else None
        base: JSON = {
            "players": players,
            "target_name": target.name if target else "",
            "target": target.pk if target else None,
            "defender": controller(target) if target else None,
            "free_used": {},
        }
        if p.roll is not None or p.character is None:
            return self._adopt(ctx, p, base, target)
        character = _character(ctx, p.character)
        if p.action is None or p.action is Action.DEFEND:
            raise _refuse(
                "action_required",
                "Elige la acción: crear una ventaja, superar o atacar (defender es una reacción).",
                "Choose the action: create an advantage, overcome or attack (defend is a reaction).",
            )
        if not policy.may_open_character_procedure(ctx.viewer, character):
            _require_controls(ctx, character)
        if p.difficulty_secret and not policy.may_run_gm_procedure(ctx.viewer):
            raise PermissionDenied(_("Solo un máster fija dificultades secretas."))
        if p.difficulty is None and target is None:
            raise _refuse(
                "opposition_required",
                "Indica una dificultad o el personaje que se opone.",
                "Give a difficulty or the opposing character.",
            )
        secret = p.difficulty_secret and p.difficulty is not None
        state = {
            **base,
            "phase": "roll",
            "action": p.action.value,
            "character": character.pk,
            "roller": controller(character),
            "character_name": character.name,
            "aspects": _aspect_choices(ctx, [character, target]),
            "difficulty": None if secret else p.difficulty,
            "difficulty_secret": secret,
            "opposed": p.difficulty is None,
        }
        return StepResult(
            state=state,
            secret_state={"difficulty": p.difficulty} if secret else {},
            waiting_for=_waiting(
                "roll",
                state["roller"],
                f"tirada de {character.name}",
                f"{character.name}'s roll",
            ),
        )

    def _adopt(self, ctx: StepContext, p: ActionStart, base: JSON, target: Character | None) -> StepResult:
        rows = Roll.objects.filter(
            scene=ctx.flow.scene, ruleset="fate-accelerated", kind__in=ACTION_KINDS - {"defend"}, flow__isnull=True
        ).exclude(character=None)
        if p.roll is not None:
            row = rows.filter(pk=p.roll).first()
        else:
            row = rows.filter(roller=ctx.actor).order_by("-id").first()
        if row is None:
            raise _refuse(
                "no_roll_to_open",
                "No hay ninguna tirada de acción sin procedimiento que abrir aquí.",
                "There is no action roll without a procedure to open here.",
            )
        if not policy.may_open_roll_window(ctx.viewer, roller_id=row.roller_id, gm_only=row.gm_only):
            raise PermissionDenied(_("Solo quien hizo la tirada o un máster abre sus invocaciones."))
        # The one link a flow adds to a stored roll (as the flow runner's roll maker does): nothing of
        # the evidence changes, and a roll belongs to one flow only.
        if not Roll.objects.filter(pk=row.pk, flow__isnull=True).update(flow=ctx.flow):
            raise _refuse(
                "roll_has_flow", "Esa tirada ya tiene su procedimiento.", "That roll already has its procedure."
            )
        character = _character(ctx, row.character_id)
        roll, difficulty = roll_from_row(row, target.pk if target else None)
        secret = "difficulty" in row.secret
        state = {
            **base,
            "action": row.kind,
            "character": character.pk,
            "roller": controller(character),
            "character_name": character.name,
            "aspects": _aspect_choices(ctx, [character, target]),
            "difficulty": None if secret else difficulty,
            "difficulty_secret": secret,
            "opposed": difficulty is None,
            "roll_id": row.pk,
            "roll": roll_to_json(roll),
        }
        if difficulty is None and target is None:
            raise _refuse(
                "opposition_required",
                "Esta tirada no tiene dificultad: indica el personaje que se opone.",
                "This roll has no difficulty: name the opposing character.",
            )
        return self._after_roll(ctx, state, {"difficulty": difficulty} if secret else {})

    def _after_roll(self, ctx: StepContext, state: JSON, secret_state: JSON, **extra: Any) -> StepResult:
        if state["opposed"] and state.get("defend") is None:
            target = ctx.characters[state["target"]]
            state = {**state, "phase": "defend"}
            return StepResult(
                state=state,
                secret_state=secret_state,
                waiting_for=_waiting(
                    "defend", state["defender"], f"defensa de {target.name}", f"{target.name}'s defence"
                ),
                **extra,
            )
        state = {**state, "phase": "window", **self._provisional(state, secret_state)}
        return StepResult(
            state=state,
            secret_state=secret_state,
            waiting_for=_waiting(
                "settle",
                "gm",
                "invocaciones abiertas; el DJ cierra y resuelve",
                "invocations open; the GM closes and settles",
            ),
            **extra,
        )

    # -- the pure rolls of the flow --------------------------------------------------------------
    @staticmethod
    def _difficulty(state: JSON, secret_state: JSON) -> int | None:
        return secret_state.get("difficulty") if state.get("difficulty_secret") else state.get("difficulty")

    def _rolls(self, state: JSON, secret_state: JSON) -> tuple[ActionRoll, ActionRoll | None]:
        roll = roll_from_json(state["roll"], self._difficulty(state, secret_state))
        defend = roll_from_json(state["defend"], None) if state.get("defend") else None
        return roll, defend

    def _provisional(self, state: JSON, secret_state: JSON) -> JSON:
        """The outcome shown during the window (recomputed after each invocation)."""
        roll, defend = self._rolls(state, secret_state)
        if defend is not None:
            outcome, shifts = classify(roll.total, defend.total)
            return {"total": roll.total, "defense_total": defend.total, "outcome": outcome.value, "shifts": shifts}
        outcome, shifts = classify(roll.total, roll.target_number)
        shown: JSON = {"total": roll.total, "outcome": outcome.value}
        if not state.get("difficulty_secret"):
            shown.update(shifts=shifts, target_number=roll.target_number)
        return shown

    def _words(self, state: JSON, language: str) -> str:
        """The provisional result in words: «Total Enorme (+4) · Éxito (1 aumento)»."""
        head = "Total " + ladder_label(int(state["total"]), language)
        if state.get("defense_total") is not None:
            vs = ladder_label(int(state["defense_total"]), language)
            head += f" vs {vs}"
        shifts = None if state.get("difficulty_secret") else state.get("shifts")
        return f"{head} · {outcome_words(state['outcome'], shifts, language)}"

    # -- steps -----------------------------------------------------------------------------------
    def step(self, ctx: StepContext, step: str, params: JSON) -> StepResult:
        state = dict(ctx.flow.state)
        phase = state.get("phase")
        handlers = {
            ("roll", "roll"): self._roll,
            ("defend", "defend"): self._defend,
            ("invoke", "window"): self._invoke,
            ("veto", "window"): self._veto,
            ("settle", "window"): self._settle,
            ("absorb", "absorb"): self._absorb,
        }
        handler = handlers.get((step, phase))
        if handler is None:
            raise _refuse("out_of_order", "Ese paso no toca ahora.", "That step is not due now.")
        return handler(ctx, state, params)

    def _roll_spec(self, kind: str, character: Character, p: RollParams, difficulty: JSON) -> RollSpec:
        data = {"approach": p.approach.value, "stunts": p.stunts, "helpers": p.helpers, **difficulty}
        return RollSpec(kind=kind, data=data, character_id=character.pk)

    def _roll(self, ctx: StepContext, state: JSON, params: JSON) -> StepResult:
        p: RollParams = parse_params(RollParams, _clean(params, lists=("stunts",)))
        character = ctx.characters[state["character"]]
        secret = dict(ctx.flow.secret_state)
        difficulty = self._difficulty(state, secret)
        extra: JSON = {"difficulty": difficulty, "difficulty_secret": bool(state.get("difficulty_secret"))}
        if difficulty is None:
            extra = {}
        row = ctx.roll_maker(self._roll_spec(state["action"], character, p, extra))
        roll, _difficulty = roll_from_row(row, state.get("target"))
        state = {**state, "roll_id": row.pk, "roll": roll_to_json(roll)}
        return self._after_roll(ctx, state, secret)

    def _defend(self, ctx: StepContext, state: JSON, params: JSON) -> StepResult:
        p: RollParams = parse_params(RollParams, _clean(params, lists=("stunts",)))
        target = ctx.characters[state["target"]]
        row = ctx.roll_maker(self._roll_spec("defend", target, p, {}))
        defend, _none = roll_from_row(row, None)
        state = {**state, "defend_roll_id": row.pk, "defend": roll_to_json(defend)}
        return self._after_roll(ctx, state, dict(ctx.flow.secret_state))

    def _invoker(self, ctx: StepContext, state: JSON, p: InvokeParams) -> tuple[str, Character | None]:
        if p.character is not None:
            character = _character(ctx, p.character)
            _require_controls(ctx, character)
            return str(character.pk), character
        mine = [
            ctx.characters[pk]
            for pk in (state.get("character"), state.get("target"))
            if pk is not None and pk in ctx.characters
        ]
        for character in mine:
            if controller(character) == ("gm" if ctx.viewer.is_gm else ctx.viewer.user_id):
                return str(character.pk), character
        if ctx.viewer.is_gm:
            return GM, None
        own = [
            c
            for c in ctx.characters.values()
            if c.owner_id == ctx.viewer.user_id and not c.is_npc and c.status == CharacterStatus.APPROVED
        ]
        if not own:
            raise PermissionDenied(_("Necesitas un personaje aprobado para invocar."))
        return str(own[0].pk), own[0]

    def _aspect(self, ctx: StepContext, ref: str, invoker: str, free_used: JSON) -> tuple[Aspect, SceneAspect | None]:
        """The pure aspect behind a reference: ``scene:<id>`` (the scene board) or a sheet aspect key
        ``<character id>:high_concept|trouble|aspect:<n>|<severity>:...``."""
        if ref.startswith("scene:"):
            row = SceneAspect.objects.filter(pk=ref[6:] if ref[6:].isdigit() else 0, scene=ctx.flow.scene).first()
            if row is None or (row.hidden and not ctx.viewer.is_gm):
                raise _refuse("aspect_unknown", "No conoces ese aspecto.", "You do not know that aspect.")
            left = row.free_invocations - int(free_used.get(str(row.pk), 0))
            grants = (FreeInvocationGrant(holder=invoker, remaining=left),) if left > 0 else ()
            if row.text.startswith(BOOST_PREFIX):
                # A boost: one free use by whoever holds it on the board ([P] holders are not recorded).
                aspect = Aspect(key=ref, text=row.text, kind=AspectKind.BOOST, character=invoker, scene=row.scene_id)
                if left <= 0:
                    aspect = aspect.model_copy(update={"status": AspectStatus.REMOVED})
                return aspect, row
            aspect = situation_aspect(ref, row.text, row.scene_id, hidden=row.hidden)
            return aspect.model_copy(update={"grants": grants}), row
        owner = ref.split(":", 1)[0]
        character = ctx.characters.get(int(owner)) if owner.isdigit() else None
        if character is not None:
            # A sheet aspect with its free invocations: a consequence's in its slot (the attacker's, §5.3
            # step 7), the others' in the campaign state (a create an advantage on the character, §4.3.4).
            aspect = sheet_aspect(_sheet(ctx, character), ref, rules_state(ctx.flow.campaign))
            if aspect is not None:
                return aspect, None
        raise _refuse("aspect_unknown", "No conoces ese aspecto.", "You do not know that aspect.")

    def _grant_holder(
        self, ctx: StepContext, aspect: Aspect, invoker: str, character: Character | None, p: InvokeParams
    ) -> tuple[str, bool]:
        """Whose free invocation on a sheet aspect pays, and whether its holder lets the invoker use it.

        The holder may let an ally use it (§4.3.1): an ally's is lent by whoever controls the ally (a
        player's two characters, or the GM). The GM side (the GM and every NPC) shares its own.
        """
        if p.grant_holder is not None:
            lender = _character(ctx, p.grant_holder)
            return str(lender.pk), policy.controls_character(ctx.viewer, lender)
        if aspect.free_for(invoker) > 0:
            return invoker, True
        if invoker == GM or (character is not None and character.is_npc):
            for grant in aspect.grants:
                holder = ctx.characters.get(int(grant.holder)) if grant.holder.isdigit() else None
                gm_side = grant.holder == GM or (holder is not None and holder.is_npc)
                if gm_side and grant.remaining > 0:
                    return grant.holder, True
        return invoker, False

    def _invoke(self, ctx: StepContext, state: JSON, params: JSON) -> StepResult:
        p: InvokeParams = parse_params(InvokeParams, _clean(params))
        secret = dict(ctx.flow.secret_state)
        roll, defend = self._rolls(state, secret)
        invoker, character = self._invoker(ctx, state, p)
        which = p.roll
        if which is None:
            which = "defense" if defend is not None and defend.actor == invoker else "action"
        if which == "defense" and defend is None:
            raise _refuse("no_defense_roll", "No hay tirada de defensa.", "There is no defence roll.")
        target_roll = defend if which == "defense" else roll
        assert target_roll is not None
        free_used = dict(state.get("free_used", {}))
        aspect, scene_row = self._aspect(ctx, p.aspect, invoker, free_used)
        fp: int | None = None
        if character is not None and not character.is_npc:
            fp = _sheet(ctx, character).fate_points
        on_sheet = scene_row is None
        holder, consents = invoker, False
        if on_sheet and p.payment is InvokePayment.FREE:
            holder, consents = self._grant_holder(ctx, aspect, invoker, character, p)
        result = invoke(
            target_roll,
            aspect,
            invoker=invoker,
            effect=p.effect,
            payment=p.payment,
            invoker_fate_points=fp,
            justification=p.justification,
            dice=ctx.dice,
            grant_holder=holder if on_sheet else None,
            holder_consents=consents,
            settings=_settings(ctx),
        )
        ledger: list[LedgerOp] = []
        sheet_spent = list(state.get("sheet_free_spent", ()))
        if on_sheet and p.payment is InvokePayment.FREE:
            used = _used_grant(aspect, result.aspect)
            spent = {"aspect": aspect.key, "holder": used.holder, "source": used.source}
            spent["same_roll_stacking"] = used.same_roll_stacking
            # Spent now, through the ledger, in this step's transaction: the owner's sheet row is locked
            # and the rules refuse a count below zero, so two windows never spend the same one.
            ledger.append(
                LedgerOp("use_free_invocation", spent, owner_of(aspect.key), "invocación gratuita", by_rules=True)
            )
            which_roll = "defend" if which == "defense" else "roll"
            sheet_spent.append({**spent, "roll": which_roll, "index": len(target_roll.invocations)})
        if p.payment is InvokePayment.FATE_POINT and aspect.kind is not AspectKind.BOOST:
            if fp is not None and character is not None:
                ledger.append(LedgerOp("spend_fate_point", {"amount": 1}, character.pk, "invocación"))
            elif _settings(ctx).gm_fate_point_pool:
                ledger.append(LedgerOp("gm_pool_spend", {"amount": 1}, None, "invocación"))
        if p.payment is InvokePayment.FREE and scene_row is not None:
            free_used[str(scene_row.pk)] = int(free_used.get(str(scene_row.pk), 0)) + 1
        key = "defend" if which == "defense" else "roll"
        state = {**state, key: roll_to_json(result.roll), "free_used": free_used, "sheet_free_spent": sheet_spent}
        if on_sheet and p.payment is InvokePayment.FREE:
            state["aspects"] = _with_free_counts(state.get("aspects", ()), aspect.key, -1)
        state.update(self._provisional(state, secret))
        roll_id = state["defend_roll_id"] if which == "defense" else state["roll_id"]
        who = character.name if character is not None else "DJ"
        effect = EFFECT_NAMES[p.effect]
        paid = PAYMENT_NAMES[InvokePayment.FREE if aspect.kind is AspectKind.BOOST else p.payment]
        rerolled = ""
        if p.effect is InvokeEffect.REROLL and result.roll.faces:
            rerolled = f" {faces_text(result.roll.faces)}"
        follow_up = FollowUpSpec(
            roll_id=roll_id,
            kind="invoke",
            character_id=character.pk if character is not None else None,
            summary_es=f"{who} invoca «{aspect.text}» ({effect.es}, {paid.es}){rerolled}. {self._words(state, 'es')}",
            summary_en=f"{who} invokes '{aspect.text}' ({effect.en}, {paid.en}){rerolled}. {self._words(state, 'en')}",
            data={"aspect": p.aspect, "effect": p.effect.value, "payment": p.payment.value, "invoker": invoker},
            result=self._public_result(state, key),
        )
        return StepResult(
            state=state,
            secret_state=secret,
            waiting_for=ctx.flow.waiting_for,
            follow_ups=[follow_up],
            ledger=ledger,
        )

    def _public_result(self, state: JSON, key: str) -> JSON:
        shown = {"faces": state[key]["faces"], "total": state["total"], "outcome": state["outcome"]}
        if state.get("defense_total") is not None:
            shown["defense_total"] = state["defense_total"]
        if not state.get("difficulty_secret") and state.get("shifts") is not None:
            shown["shifts"] = state["shifts"]
        return shown

    def _veto(self, ctx: StepContext, state: JSON, params: JSON) -> StepResult:
        """A GM rejects an invocation's justification (§4.3.1): it is struck from the roll (a reroll's
        earlier faces come back) and a paid fate point is returned."""
        p: VetoParams = parse_params(VetoParams, _clean(params))
        secret = dict(ctx.flow.secret_state)
        key = "defend" if p.roll == "defense" else "roll"
        if not state.get(key) or p.invocation >= len(state[key]["invocations"]):
            raise _refuse("unknown_invocation", "No existe esa invocación.", "There is no such invocation.")
        data = dict(state[key])
        invocations = list(data["invocations"])
        if p.invocation != len(invocations) - 1:
            raise _refuse(
                "veto_last_only",
                "Solo se puede vetar la última invocación de la tirada.",
                "Only the roll's last invocation can be vetoed.",
            )
        vetoed = invocations.pop()
        if vetoed["effect"] == InvokeEffect.REROLL.value:
            history = list(data["face_history"])
            data["faces"] = history.pop()
            data["face_history"] = history
        data["invocations"] = invocations
        free_used = dict(state.get("free_used", {}))
        ledger: list[LedgerOp] = []
        ref = vetoed["aspect_key"]
        sheet_spent = list(state.get("sheet_free_spent", ()))
        if vetoed["payment"] == InvokePayment.FREE.value and ref.startswith("scene:"):
            free_used[ref[6:]] = max(0, int(free_used.get(ref[6:], 0)) - 1)
        elif vetoed["payment"] == InvokePayment.FREE.value:
            spent = next(
                (x for x in sheet_spent if x["roll"] == key and x["index"] == p.invocation and x["aspect"] == ref),
                None,
            )
            if spent is not None:  # the free invocation goes back to its holder, through the ledger
                sheet_spent.remove(spent)
                params = {k: spent[k] for k in ("aspect", "holder", "source", "same_roll_stacking")}
                ledger.append(
                    LedgerOp("return_free_invocation", params, owner_of(ref), "invocación vetada", by_rules=True)
                )
                state["aspects"] = _with_free_counts(state.get("aspects", ()), ref, +1)
        elif vetoed["payment"] == InvokePayment.FATE_POINT.value:
            character = ctx.characters.get(int(vetoed["invoker"])) if vetoed["invoker"].isdigit() else None
            if character is not None and not character.is_npc:
                ledger.append(LedgerOp("gain_fate_point", {"amount": 1}, character.pk, "invocación vetada"))
            elif _settings(ctx).gm_fate_point_pool:
                # §6.7.4: the GM paid from the pool (an NPC's or the GM's own invocation): it comes back.
                ledger.append(LedgerOp("gm_pool_gain", {"amount": 1}, None, "invocación vetada"))
        state = {**state, key: data, "free_used": free_used, "sheet_free_spent": sheet_spent}
        state.update(self._provisional(state, secret))
        roll_id = state["defend_roll_id"] if key == "defend" else state["roll_id"]
        text = _aspect_text(ctx, ref)
        return StepResult(
            state=state,
            secret_state=secret,
            waiting_for=ctx.flow.waiting_for,
            ledger=ledger,
            follow_ups=[
                FollowUpSpec(
                    roll_id=roll_id,
                    kind="veto",
                    summary_es=f"El DJ veta la invocación de «{text}». {self._words(state, 'es')}",
                    summary_en=f"The GM vetoes the invocation of '{text}'. {self._words(state, 'en')}",
                    data={"invocation": p.invocation},
                    result=self._public_result(state, key),
                )
            ],
        )

    def _settle(self, ctx: StepContext, state: JSON, params: JSON) -> StepResult:
        p: SettleParams = parse_params(SettleParams, _clean(params))
        secret = dict(ctx.flow.secret_state)
        roll, defend = self._rolls(state, secret)
        s = _settings(ctx)
        action = Action(state["action"])
        settlement = settle_action(
            roll,
            defend,
            ca_mode=p.ca_mode if action is Action.CREATE_ADVANTAGE else None,
            fail_choice=p.fail_choice,
            trade_shift_for_boost=p.trade,
            settings=s,
        )
        effects = settlement.effects
        scene = ctx.flow.scene
        words_es: list[str] = []
        words_en: list[str] = []
        # Free invocations spent on the scene board during the window (boosts vanish when used).
        for pk, used in state.get("free_used", {}).items():
            row = SceneAspect.objects.filter(pk=int(pk), scene=scene).first()
            if row is None or not used:
                continue
            left = max(0, row.free_invocations - int(used))
            if row.text.startswith(BOOST_PREFIX) and left == 0:
                campaign_services.delete_scene_aspect(actor=ctx.actor, aspect=row)
            else:
                campaign_services.update_scene_aspect(actor=ctx.actor, aspect=row, free_invocations=left)
        ledger: list[LedgerOp] = []
        on_sheet = bool(p.sheet_aspect.strip()) and (p.ca_mode is not CAMode.CREATE or effects.aspect is None)
        if action is Action.CREATE_ADVANTAGE and (effects.aspect is not None or effects.grants) and on_sheet:
            ledger += self._advantage_on_sheet(ctx, settlement, p.sheet_aspect.strip(), words_es, words_en)
        elif action is Action.CREATE_ADVANTAGE and (effects.aspect is not None or effects.grants):
            existing = None
            if p.ca_mode is not CAMode.CREATE or effects.aspect is None:
                row = SceneAspect.objects.filter(pk=p.scene_aspect or 0, scene=scene).first()
                if row is None:
                    raise _refuse("aspect_required", "Indica el aspecto afectado.", "Name the aspect concerned.")
                existing = (row, situation_aspect(f"scene:{row.pk}", row.text, scene.pk, hidden=row.hidden))
            created = apply_advantage(
                settlement,
                aspect=existing[1] if existing else None,
                new_key="new",
                new_text=p.aspect_text.strip() or None,
                scene=scene.pk,
                opponent=GM,
            )
            assert created is not None
            free = sum(g.remaining for g in created.grants)
            if existing is None:
                campaign_services.add_scene_aspect(
                    actor=ctx.actor, scene=scene, text=created.text, free_invocations=min(free, 20)
                )
                words_es.append(f"nuevo aspecto «{created.text}» con {free} invocación(es) gratuita(s)")
                words_en.append(f"new aspect '{created.text}' with {free} free invocation(s)")
            else:
                row = existing[0]
                fresh = SceneAspect.objects.get(pk=row.pk)
                campaign_services.update_scene_aspect(
                    actor=ctx.actor,
                    aspect=fresh,
                    hidden=created.hidden,
                    free_invocations=min(20, fresh.free_invocations + free),
                )
                words_es.append(f"«{row.text}» gana {free} invocación(es) gratuita(s)")
                words_en.append(f"'{row.text}' gains {free} free invocation(s)")
        if action is Action.OVERCOME:
            if effects.goal_reached:
                cost = {
                    "minor": ("a un coste leve", "at a minor cost"),
                    "major": ("a un coste importante", "at a serious cost"),
                }
                extra = cost.get(effects.cost.value if effects.cost else "", ("", ""))
                words_es.append(f"consigue su objetivo {extra[0]}".strip())
                words_en.append(f"reaches the goal {extra[1]}".strip())
                if p.scene_aspect:
                    row = SceneAspect.objects.filter(pk=p.scene_aspect, scene=scene).first()
                    if row is not None:
                        campaign_services.delete_scene_aspect(actor=ctx.actor, aspect=row)
                        words_es.append(f"«{row.text}» desaparece")
                        words_en.append(f"'{row.text}' is removed")
            else:
                words_es.append("no consigue su objetivo")
                words_en.append("does not reach the goal")
        if p.note.strip():
            words_es.append(p.note.strip())
            words_en.append(p.note.strip())
        for role in effects.boosts:
            holder = settlement.holder(role, GM)
            holder_name = _name(ctx, holder)
            given = p.boost_defender if role is Role.DEFENDER else p.boost_actor
            text = (given.strip() or f"de {holder_name}")[:150]
            campaign_services.add_scene_aspect(
                actor=ctx.actor, scene=scene, text=BOOST_PREFIX + text, free_invocations=1
            )
            words_es.append(f"{holder_name} gana un impulso: «{text}»")
            words_en.append(f"{holder_name} gains a boost: '{text}'")
        shown_shifts = None if state.get("difficulty_secret") else settlement.shifts
        outcome_es = outcome_words(settlement.outcome.value, shown_shifts, "es")
        outcome_en = outcome_words(settlement.outcome.value, shown_shifts, "en")
        state = {
            **state,
            "roll": roll_to_json(settlement.roll),
            "defend": roll_to_json(settlement.defend) if settlement.defend else state.get("defend"),
            "free_used": {},
            "settled_outcome": settlement.outcome.value,
            "harm": effects.harm,
        }
        harm = effects.harm
        target_pk = state.get("target")
        if harm > 0:
            words_es.append(f"impacto de {harm} aumento(s)")
            words_en.append(f"a {harm}-shift hit")
        follow_up = FollowUpSpec(
            roll_id=state["roll_id"],
            kind="settle",
            summary_es=f"Resuelta: {outcome_es}" + (f" · {'; '.join(words_es)}" if words_es else ""),
            summary_en=f"Settled: {outcome_en}" + (f" · {'; '.join(words_en)}" if words_en else ""),
            data={"outcome": settlement.outcome.value, "harm": harm},
            result={"total": settlement.total, "outcome": settlement.outcome.value}
            | ({} if state.get("difficulty_secret") else {"shifts": settlement.shifts}),
        )
        if harm > 0 and target_pk is not None:
            target = ctx.characters[target_pk]
            sheet = _sheet(ctx, target)
            options = [
                {"box": o.box, "slots": [x.value for x in o.slots], "absorbed": o.absorbed}
                for o in absorption_options(sheet, harm)
            ]
            state = {**state, "phase": "absorb", "options": options}
            return StepResult(
                state=state,
                secret_state=secret,
                waiting_for=_waiting(
                    "absorb",
                    state["defender"],
                    f"{target.name} absorbe {harm} aumento(s) o queda derrotado",
                    f"{target.name} absorbs {harm} shift(s) or is taken out",
                ),
                follow_ups=[follow_up],
                ledger=ledger,
            )
        return StepResult(
            state={**state, "phase": "done"},
            secret_state=secret,
            waiting_for={},
            settled=True,
            follow_ups=[follow_up],
            ledger=ledger,
        )

    def _advantage_on_sheet(
        self, ctx: StepContext, settlement: Any, ref: str, words_es: list[str], words_en: list[str]
    ) -> list[LedgerOp]:
        """Create an advantage discovering or exploiting a character's aspect (§3.8.1, §4.3.4): its free
        invocations (and a discovery's reveal) go onto the character's aspect through the ledger."""
        owner = ref.split(":", 1)[0]
        character = ctx.characters.get(int(owner)) if owner.isdigit() else None
        aspect = None
        if character is not None:
            aspect = sheet_aspect(_sheet(ctx, character), ref, rules_state(ctx.flow.campaign))
        if character is None or aspect is None:
            raise _refuse("aspect_required", "Indica el aspecto afectado.", "Name the aspect concerned.")
        created = apply_advantage(settlement, aspect=aspect, opponent=GM)
        assert created is not None
        reveal = aspect.hidden and not created.hidden
        ledger = []
        for grant in created.grants[len(aspect.grants) :]:
            params = {
                "aspect": ref,
                "holder": grant.holder,
                "source": grant.source,
                "same_roll_stacking": grant.same_roll_stacking,
                "count": grant.remaining,
                "reveal": reveal,
            }
            ledger.append(LedgerOp("grant_free_invocations", params, character.pk, "crear una ventaja", by_rules=True))
            who = _name(ctx, grant.holder)
            n = grant.remaining
            words_es.append(f"«{aspect.text}» de {character.name}: {n} invocación(es) gratuita(s) de {who}")
            words_en.append(f"{character.name}'s '{aspect.text}': {n} free invocation(s) held by {who}")
        return ledger

    def _absorb(self, ctx: StepContext, state: JSON, params: JSON) -> StepResult:
        p: AbsorbParams = parse_params(AbsorbParams, _clean(params, lists=("slots",)))
        target = ctx.characters[state["target"]]
        attacker = str(state["character"])
        shifts = int(state["harm"])
        if p.taken_out:
            ledger = [LedgerOp("take_out", {}, target.pk, "derrotado")]
            es, en = f"{target.name} queda derrotado", f"{target.name} is taken out"
        else:
            texts = {Severity.MILD: p.text_mild, Severity.MODERATE: p.text_moderate, Severity.SEVERE: p.text_severe}
            boxes = [p.box] if p.box is not None else []
            validate_absorption(_sheet(ctx, target), shifts, boxes, p.slots, _settings(ctx))
            for slot in p.slots:
                if not texts[slot].strip():
                    raise _refuse(
                        "consequence_text_required",
                        "Escribe el aspecto de la consecuencia.",
                        "Write the consequence aspect.",
                    )
            ledger = [
                LedgerOp(
                    "absorb_hit",
                    {
                        "owner": str(target.pk),
                        "attacker": attacker,
                        "shifts": shifts,
                        "box": p.box,
                        "slots": [x.value for x in p.slots],
                        "texts": {x.value: texts[x].strip() for x in p.slots},
                        "moment": _moment(ctx.flow),
                        "source": f"roll-{state['roll_id']}",
                    },
                    target.pk,
                    "absorber daño",
                )
            ]
            parts_es = [f"casilla {p.box}"] if p.box else []
            parts_en = [f"box {p.box}"] if p.box else []
            parts_es += [f"{SEVERITY_NAMES[x].es.lower()} «{texts[x].strip()}»" for x in p.slots]
            parts_en += [f"{SEVERITY_NAMES[x].en.lower()} '{texts[x].strip()}'" for x in p.slots]
            absorbed = (p.box or 0) + sum(SLOT_VALUES[x] for x in p.slots)
            es = f"{target.name} absorbe {shifts} aumento(s) ({absorbed}) con " + " + ".join(parts_es)
            en = f"{target.name} absorbs {shifts} shift(s) ({absorbed}) with " + " + ".join(parts_en)
        return StepResult(
            state={**state, "phase": "done", "options": []},
            secret_state=dict(ctx.flow.secret_state),
            waiting_for={},
            settled=True,
            ledger=ledger,
            follow_ups=[
                FollowUpSpec(
                    roll_id=state["roll_id"],
                    kind="absorb",
                    character_id=target.pk,
                    summary_es=es,
                    summary_en=en,
                    data=p.model_dump(mode="json"),
                )
            ],
        )


def _aspect_choices(ctx: StepContext, characters: list[Character | None]) -> list[JSON]:
    """The sheet aspects everyone knows, for the invoke form: those of the characters in the roll, and
    any other sheet aspect carrying free invocations (a consequence someone inflicted), with their count."""
    state = rules_state(ctx.flow.campaign)
    in_roll = {c.pk for c in characters if c is not None}
    choices = []
    for character in sorted(ctx.characters.values(), key=lambda c: c.pk):
        if character.status != CharacterStatus.APPROVED:
            continue
        sheet = _sheet(ctx, character)
        for aspect in sheet.aspects(str(character.pk)):
            if aspect.kind is not AspectKind.CONSEQUENCE:
                aspect = aspect.model_copy(update={"grants": stored_grants(state, aspect.key)})
            free = sum(g.remaining for g in aspect.grants)
            if aspect.hidden or (character.pk not in in_roll and free == 0):
                continue
            holders = sorted({_name(ctx, g.holder) for g in aspect.grants if g.remaining > 0})
            choices.append(
                {
                    "ref": aspect.key,
                    "text": aspect.text,
                    "character": character.name,
                    "free": free,
                    "holders": ", ".join(holders),
                }
            )
    return choices


def _with_free_counts(choices: Any, ref: str, delta: int) -> list[JSON]:
    """The invoke form's choices after one free invocation on ``ref`` was spent (-1) or given back (+1)."""
    return [{**c, "free": max(0, int(c.get("free", 0)) + delta)} if c["ref"] == ref else dict(c) for c in choices]


def _used_grant(before: Aspect, after: Aspect) -> FreeInvocationGrant:
    """The free-invocation record the rules spent (the one whose count went down)."""
    for old, new in zip(before.grants, after.grants, strict=True):
        if new.remaining < old.remaining:
            return old
    raise AssertionError("a free invocation was accepted without spending a grant")


def _gm_pool(ctx: StepContext) -> int:
    return int(rules_state(ctx.flow.campaign).get("gm_fate_points", 0))


def _aspect_text(ctx: StepContext, ref: str) -> str:
    if ref.startswith("scene:"):
        row = SceneAspect.objects.filter(pk=ref[6:] if ref[6:].isdigit() else 0).first()
        return row.text if row else ref
    owner = ref.split(":", 1)[0]
    character = ctx.characters.get(int(owner)) if owner.isdigit() else None
    if character is not None:
        for aspect in _sheet(ctx, character).aspects(owner):
            if aspect.key == ref:
                return aspect.text
    return ref


# --- Compel ---------------------------------------------------------------------------------------


class CompelStart(BaseModel):
    model_config = ConfigDict(extra="forbid")

    target: int
    aspect: str = Field(min_length=1, max_length=250)
    kind: pure_compels.CompelKind = pure_compels.CompelKind.DECISION
    proposal: str = Field(min_length=1, max_length=1000)
    compeller: int | None = None  # the compelling character (a player's own); none: the GM


class NegotiateParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    proposal: str = Field(min_length=1, max_length=1000)


def compel_to_json(compel: pure_compels.Compel) -> JSON:
    return {**asdict(compel), "kind": compel.kind.value, "status": compel.status.value}


def compel_from_json(data: JSON) -> pure_compels.Compel:
    return pure_compels.Compel(
        target=data["target"],
        aspect_key=data["aspect_key"],
        kind=pure_compels.CompelKind(data["kind"]),
        compeller=data["compeller"],
        proposal=data["proposal"],
        fp_source=data["fp_source"],
        status=pure_compels.CompelStatus(data["status"]),
    )


class CompelFlow:
    key = "compel"
    names = Names("Forzado", "Compel")

    def actors(self, flow: Flow, step: str) -> frozenset[str | int]:
        state = flow.state
        phase = state.get("phase")
        if phase == "offered" and step in ("accept", "refuse", "negotiate"):
            return frozenset({state["target_controller"]})
        if phase == "offered" and step == "withdraw":
            return frozenset({state["compeller_controller"], "gm"})
        if phase == "accepted" and step == "deliver":
            return frozenset({"gm"})
        return frozenset()

    def start(self, ctx: StepContext, params: JSON) -> StepResult:
        p: CompelStart = parse_params(CompelStart, _clean(params))
        target = _character(ctx, p.target)
        if not p.aspect.startswith("scene:") and not p.aspect.split(":", 1)[0].isdigit():
            # "trouble", "high_concept", "aspect:0": an aspect of the target's sheet
            p = p.model_copy(update={"aspect": f"{target.pk}:{p.aspect}"})
        compeller_id, compeller_fp, compeller_controller = GM, None, "gm"
        if p.compeller is not None:
            compeller = _character(ctx, p.compeller)
            _require_controls(ctx, compeller)
            compeller_id = str(compeller.pk)
            compeller_controller = controller(compeller)
            compeller_fp = None if compeller.is_npc else _sheet(ctx, compeller).fate_points
            if compeller.is_npc:
                compeller_id = GM  # the GM compels through an NPC: the GM funds it
        elif not ctx.viewer.is_gm:
            raise PermissionDenied(_("Para forzar como jugador elige tu personaje."))
        text = self._aspect_text(ctx, target, p.aspect, compeller_id)
        compel = pure_compels.offer_compel(
            str(target.pk),
            p.aspect,
            p.kind,
            compeller_id,
            p.proposal,
            compeller_fate_points=compeller_fp,
            settings=_settings(ctx),
        )
        state = {
            "phase": "offered",
            "compel": compel_to_json(compel),
            "aspect_text": text,
            "target_name": target.name,
            "compeller_name": _name(ctx, compeller_id) if compeller_id != GM else "DJ",
            "target_controller": controller(target),
            "compeller_controller": compeller_controller,
        }
        return StepResult(state=state, waiting_for=self._offer_waiting(target))

    @staticmethod
    def _offer_waiting(target: Character) -> JSON:
        return _waiting(
            "accept",
            controller(target),
            f"{target.name} acepta o rechaza el forzado",
            f"{target.name} accepts or refuses the compel",
        )

    @staticmethod
    def _aspect_text(ctx: StepContext, target: Character, ref: str, compeller: str) -> str:
        if ref.startswith("scene:"):
            row = SceneAspect.objects.filter(pk=ref[6:] if ref[6:].isdigit() else 0, scene=ctx.flow.scene).first()
            if row is not None and (not row.hidden or ctx.viewer.is_gm):
                return row.text
        else:
            for aspect in _sheet(ctx, target).aspects(str(target.pk)):
                if aspect.key == ref and aspect.known_to(GM if ctx.viewer.is_gm else compeller):
                    return aspect.text
        raise _refuse("aspect_unknown", "No conoces ese aspecto.", "You do not know that aspect.")

    def step(self, ctx: StepContext, step: str, params: JSON) -> StepResult:
        state = dict(ctx.flow.state)
        compel = compel_from_json(state["compel"])
        target = ctx.characters[int(compel.target)]
        if step == "negotiate" and state["phase"] == "offered":
            p: NegotiateParams = parse_params(NegotiateParams, _clean(params))
            compel = pure_compels.negotiate_compel(compel, p.proposal)
            return StepResult(
                state={**state, "compel": compel_to_json(compel)}, waiting_for=self._offer_waiting(target)
            )
        if step == "accept" and state["phase"] == "offered":
            done = pure_compels.accept_compel(compel)
            state = {**state, "compel": compel_to_json(done.compel)}
            if controller(target) == "gm":  # an NPC's compel: the GM takes and records it at once
                return self._deliver(ctx, state, done.compel)
            return StepResult(
                state={**state, "phase": "accepted"},
                waiting_for=_waiting(
                    "deliver",
                    "gm",
                    f"el DJ entrega el punto de destino a {target.name}",
                    f"the GM hands {target.name} the fate point",
                ),
            )
        if step == "deliver" and state["phase"] == "accepted":
            return self._deliver(ctx, state, compel)
        if step == "refuse" and state["phase"] == "offered":
            ledger = [LedgerOp("refuse_compel", {}, target.pk, "forzado rechazado")]
            if target.is_npc:
                # §6.7.4: with the GM's pool an NPC refusing pays from it (none left, no refusal); without
                # it the GM's fate points are unlimited. A PC's refusal point leaves play.
                pool = _settings(ctx).gm_fate_point_pool
                fp = _gm_pool(ctx) if pool else 1
                ledger = [LedgerOp("gm_pool_spend", {"amount": 1}, None, "forzado rechazado")] if pool else []
            else:
                fp = _sheet(ctx, target).fate_points
            done = pure_compels.refuse_compel(compel, fp)
            return StepResult(
                state={**state, "phase": "refused", "compel": compel_to_json(done.compel)},
                waiting_for={},
                settled=True,
                ledger=ledger,
            )
        if step == "withdraw" and state["phase"] == "offered":
            done = pure_compels.withdraw_compel(compel)
            return StepResult(
                state={**state, "phase": "withdrawn", "compel": compel_to_json(done.compel)},
                waiting_for={},
                cancelled=True,
            )
        raise _refuse("out_of_order", "Ese paso no toca ahora.", "That step is not due now.")

    def _deliver(self, ctx: StepContext, state: JSON, compel: pure_compels.Compel) -> StepResult:
        ledger: list[LedgerOp] = []
        if compel.fp_source != GM:
            ledger.append(LedgerOp("fund_compel_offer", {}, int(compel.fp_source), "forzado: pago de la oferta"))
        target = ctx.characters[int(compel.target)]
        if not target.is_npc:
            ledger.append(LedgerOp("accept_compel", {}, target.pk, "forzado aceptado"))
        elif compel.fp_source != GM and _settings(ctx).gm_fate_point_pool:
            # §6.7.4: the fate point a player pays to compel an NPC's aspect goes to the GM's pool ([P] at
            # once: the flow cannot tell whether the compel ends the scene).
            ledger.append(LedgerOp("gm_pool_gain", {"amount": 1}, None, "forzado a un PNJ"))
        return StepResult(state={**state, "phase": "delivered"}, waiting_for={}, settled=True, ledger=ledger)


# --- Concession -----------------------------------------------------------------------------------


class ConcessionStart(BaseModel):
    model_config = ConfigDict(extra="forbid")

    character: int
    terms: str = Field(min_length=1, max_length=1000)


def _pending_against(flow: Flow, character_id: int) -> bool:
    """A-08: an action aimed at the character with dice on the table and not yet resolved."""
    return (
        Flow.objects.filter(scene_id=flow.scene_id, kind="action", status=FlowStatus.OPEN)
        .exclude(pk=flow.pk)
        .filter(state__target=character_id, state__phase__in=["defend", "window", "absorb"])
        .exists()
    )


class ConcessionFlow:
    key = "concession"
    names = Names("Rendición", "Concession")

    def actors(self, flow: Flow, step: str) -> frozenset[str | int]:
        if flow.state.get("phase") != "declared":
            return frozenset()
        if step == "confirm":
            return frozenset({"gm"})
        if step == "withdraw":
            return frozenset({flow.state["controller"]})
        return frozenset()

    def _check(self, ctx: StepContext, character: Character) -> int:
        sheet = _sheet(ctx, character)
        result = pure_fp.concede(
            sheet,
            str(character.pk),
            _conflict(ctx.flow),
            opposing_rolls_pending=(_pending_against(ctx.flow, character.pk),),
        )
        return result.awarded

    def start(self, ctx: StepContext, params: JSON) -> StepResult:
        p: ConcessionStart = parse_params(ConcessionStart, _clean(params))
        character = _character(ctx, p.character)
        _require_controls(ctx, character)
        awarded = self._check(ctx, character)
        state = {
            "phase": "declared",
            "character": character.pk,
            "name": character.name,
            "controller": controller(character),
            "terms": p.terms.strip(),
            "fate_points": awarded,
        }
        return StepResult(
            state=state,
            waiting_for=_waiting(
                "confirm",
                "gm",
                f"el DJ confirma la rendición de {character.name}",
                f"the GM confirms {character.name}'s concession",
            ),
        )

    def step(self, ctx: StepContext, step: str, params: JSON) -> StepResult:
        state = dict(ctx.flow.state)
        if state.get("phase") != "declared":
            raise _refuse("out_of_order", "Ese paso no toca ahora.", "That step is not due now.")
        character = ctx.characters[state["character"]]
        if step == "confirm":
            awarded = self._check(ctx, character)
            ledger = [
                LedgerOp(
                    "concede",
                    {"character": str(character.pk), "conflict": _conflict(ctx.flow)},
                    character.pk,
                    "rendición",
                )
            ]
            return StepResult(
                state={**state, "phase": "conceded", "fate_points": awarded},
                waiting_for={},
                settled=True,
                ledger=ledger,
            )
        if step == "withdraw":
            return StepResult(state={**state, "phase": "withdrawn"}, waiting_for={}, cancelled=True)
        raise _refuse("out_of_order", "Ese paso no toca ahora.", "That step is not due now.")


FLOW_KINDS = {"action": ActionFlow(), "compel": CompelFlow(), "concession": ConcessionFlow()}

__all__ = ["BOOST_PREFIX", "FLOW_KINDS", "ActionFlow", "CompelFlow", "ConcessionFlow", "controller"]
