"""Acción: an action roll and its invocation window (spec §3.1, §3.7, §3.8, §4.3, §5).

It either adopts a roll already made in a post (``roll``, or the opener's latest) or is declared first (a
GM may set a secret difficulty, or name the opponent who will Defend) and rolled by the character's
player. While the window is open anyone at the table may invoke aspects (+2, reroll, aid an ally, oppose;
paid with a fate point or a free invocation; once per aspect per roll); a GM may veto the last invocation
of a roll (its payment comes back) and closes the window by settling: the outcome table applies (situation
aspects and boosts on the scene board with their free invocations, an overcome's cost, an attack's
shifts). A hit waits for the defender's absorption (one stress box and any empty consequence slots) or
being taken out. The roll is the pure ``ActionRoll`` in the typed state; a secret difficulty lives only in
the secret.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from enum import StrEnum
from typing import Annotated, Any, Literal

from django.core.exceptions import PermissionDenied
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, override
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from campaigns import policy
from campaigns.policy import Viewer
from rulesets.fate.aspects import AspectRef, AspectRefField, board_aspect, is_boost
from rulesets.fate.free_invocations import (
    BoardFreeUses,
    add_boost,
    add_free_invocations,
    add_situation_aspect,
)
from rulesets.fate.pickers import aspect_choices, board_choices, character_aspect_choices, picked
from rulesets.fate_accelerated.procedures.common import (
    action_name,
    approach_name,
    aspects_of,
    conflict_of,
    fae_settings,
    ladder,
    language,
    outcome,
    party_name,
    pure_aspect,
    require_controls,
    sheet_of,
    words,
)
from rulesets.fate_accelerated.rolls import ACTION_KINDS, faces_text, stunt_sentence
from rulesets.fate_accelerated.sheet import owner_of
from rulesets.kit.procedures import (
    BoardChange,
    Choice,
    FollowUp,
    LedgerOp,
    Opening,
    OpeningInput,
    Outcome,
    Procedure,
    RecordLine,
    RemoveAspect,
    Step,
    StepInput,
)
from rulesets.kit.refusals import refuse
from rulesets.kit.rolls import RollSpec
from rulesets.kit.table import GM, Actor, CharacterFacts, Reads, StoredRoll, Table
from systems.errors import RulesError
from systems.fate_accelerated.actions import Action, Approach, CAMode, FailChoice
from systems.fate_accelerated.aspects import (
    GM as PURE_GM,
)
from systems.fate_accelerated.aspects import (
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
from systems.fate_accelerated.ladder import Outcome as RollOutcome
from systems.fate_accelerated.ladder import classify
from systems.fate_accelerated.outcomes import Role
from systems.fate_accelerated.resolution import Settlement, apply_advantage, settle_action
from systems.fate_accelerated.rolls import ActionRoll, InvokeEffect, InvokePayment, RollPhase
from systems.fate_accelerated.sheet import SceneStatus
from systems.fate_accelerated.stress import absorption_options, validate_absorption
from systems.registry import Names


def _listed(value: Any) -> Any:
    """An HTML form sends one checked box as a string, several as a list."""
    return [value] if isinstance(value, str) else value


Listed = Annotated[list[str], BeforeValidator(_listed)]
Side = Literal["action", "defense"]


# --- State -----------------------------------------------------------------------------------------


class Phase(StrEnum):
    ROLL = "roll"
    DEFEND = "defend"
    WINDOW = "window"
    ABSORB = "absorb"
    DONE = "done"


class SheetFreeSpent(BaseModel):
    """A free invocation spent from a sheet aspect during the window (to give back on a veto)."""

    model_config = ConfigDict(extra="forbid")

    aspect: str  # the pure key of the sheet aspect
    holder: str
    source: str | None = None
    same_roll_stacking: bool = False
    side: Side
    index: int


class Invoked(BaseModel):
    """An invocation in words (the veto's picker and the record name it by its aspect)."""

    model_config = ConfigDict(extra="forbid")

    side: Side
    ref: str
    text: str
    who: str


class AbsorbOption(BaseModel):
    model_config = ConfigDict(extra="forbid")

    box: int | None
    slots: list[Severity]
    absorbed: int


class ActionState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    phase: Phase
    action: Action
    character: int
    character_name: str
    roller: Actor
    players: list[int] = Field(default_factory=list)
    target: int | None = None
    target_name: str = ""
    defender: Actor | None = None
    difficulty: int | None = None  # public only: None when secret or opposed
    difficulty_secret: bool = False
    opposed: bool = False
    roll_id: int | None = None
    roll: ActionRoll | None = None  # stored without its difficulty (that lives here or in the secret)
    defend_roll_id: int | None = None
    defend: ActionRoll | None = None
    board_free: BoardFreeUses = Field(default_factory=BoardFreeUses)
    sheet_free_spent: list[SheetFreeSpent] = Field(default_factory=list)
    invoked: list[Invoked] = Field(default_factory=list)
    # The provisional result shown while the window is open (recomputed after each invocation).
    total: int | None = None
    defense_total: int | None = None
    outcome: RollOutcome | None = None
    shifts: int | None = None  # None while the difficulty is secret
    harm: int = 0
    options: list[AbsorbOption] = Field(default_factory=list)


class ActionSecret(BaseModel):
    model_config = ConfigDict(extra="forbid")

    difficulty: int | None = None


def _secret_difficulty(given_secret: BaseModel | None) -> int | None:
    return given_secret.difficulty if isinstance(given_secret, ActionSecret) else None


def _difficulty(state: ActionState, secret: BaseModel | None) -> int | None:
    return _secret_difficulty(secret) if state.difficulty_secret else state.difficulty


# --- The stored rolls, typed ---------------------------------------------------------------------------


class StoredRequest(BaseModel):
    """What an action roll stored as its public request (``rulesets.fate_accelerated.rolls``)."""

    model_config = ConfigDict(extra="ignore")

    approach: Approach
    approach_rating: int
    stunts: list[str] = Field(default_factory=list)
    stunt_bonus: int = 0
    helpers: int = 0
    difficulty: int | None = None


class StoredSecret(BaseModel):
    model_config = ConfigDict(extra="ignore")

    difficulty: int | None = None


class StoredResult(BaseModel):
    model_config = ConfigDict(extra="ignore")

    faces: str
    total: int


def _pure_roll(stored: StoredRoll, target: int | None) -> tuple[ActionRoll, int | None, bool]:
    """The pure roll of a stored action roll (without its difficulty), its difficulty, whether secret."""
    request = StoredRequest.model_validate(stored.request)
    hidden = StoredSecret.model_validate(stored.secret)
    roll = ActionRoll(
        key=str(stored.id),
        actor=str(stored.character_id),
        action=Action(stored.kind),
        approach=request.approach,
        approach_rating=request.approach_rating,
        target=str(target) if target is not None else None,
        stunts=tuple(request.stunts),
        stunt_bonus=request.stunt_bonus,
        helpers=tuple(f"helper-{i}" for i in range(request.helpers)),
        faces=StoredResult.model_validate(stored.result).faces,
        phase=RollPhase.ROLLED,
    )
    secret = hidden.difficulty is not None
    return roll, hidden.difficulty if secret else request.difficulty, secret


def _rolls(state: ActionState, secret: BaseModel | None) -> tuple[ActionRoll, ActionRoll | None]:
    if state.roll is None:
        raise refuse("not_rolled", "Todavía no hay tirada.", "There is no roll yet.")
    return replace(state.roll, difficulty=_difficulty(state, secret)), state.defend


def _provisional(state: ActionState, secret: BaseModel | None) -> ActionState:
    roll, defend = _rolls(state, secret)
    if defend is not None:
        result, shifts = classify(roll.total, defend.total)
        return state.model_copy(
            update={"total": roll.total, "defense_total": defend.total, "outcome": result, "shifts": shifts}
        )
    result, shifts = classify(roll.total, roll.target_number)
    shown = None if state.difficulty_secret else shifts
    return state.model_copy(update={"total": roll.total, "outcome": result, "shifts": shown})


def result_words(state: ActionState) -> str:
    """The result so far in words: «Total Grande (+3) contra Bueno (+2) · Éxito (1 aumento)»."""
    if state.total is None or state.outcome is None:
        return ""
    if state.defense_total is not None:
        head = _("Total %(total)s contra %(defense)s") % {
            "total": ladder(state.total),
            "defense": ladder(state.defense_total),
        }
    elif state.difficulty is not None:
        head = _("Total %(total)s contra %(difficulty)s") % {
            "total": ladder(state.total),
            "difficulty": ladder(state.difficulty),
        }
    else:
        head = _("Total %(total)s") % {"total": ladder(state.total)}
    return f"{head} · {outcome(state.outcome.value, state.shifts)}"


# --- Opening ---------------------------------------------------------------------------------------


class ActionOpen(BaseModel):
    model_config = ConfigDict(extra="forbid")

    roll: int | None = None  # adopt a roll already made in a post
    open_last: bool = False  # adopt the opener's latest action roll in the scene (the default)
    character: int | None = None  # or declare one
    action: Action | None = None
    difficulty: int | None = Field(None, ge=-10, le=30)
    difficulty_secret: bool = False
    target: int | None = None  # the character the action is aimed at (who Defends when opposed)


def _open_rolls(table: Table) -> list[StoredRoll]:
    kinds = ACTION_KINDS - {Action.DEFEND.value}
    return [r for r in table.open_rolls if r.kind in kinds and r.character_id is not None]


def _opening(given: OpeningInput[ActionOpen]) -> Outcome[ActionState]:
    p, table = given.params, given.table
    target = table.character(p.target) if p.target is not None else None
    if p.roll is not None or p.character is None:
        return _adopt(given, target)
    character = table.character(p.character)
    if p.action is None or p.action is Action.DEFEND:
        raise refuse(
            "action_required",
            "Elige la acción: crear una ventaja, superar o atacar (defender es una reacción).",
            "Choose the action: create an advantage, overcome or attack (defend is a reaction).",
        )
    if not policy.may_open_character_procedure(given.viewer, character):
        raise PermissionDenied(_("Ese personaje no es tuyo."))
    if p.difficulty_secret and not policy.may_run_gm_procedure(given.viewer):
        raise PermissionDenied(_("Solo un máster fija dificultades secretas."))
    if p.difficulty is None and target is None:
        raise refuse(
            "opposition_required",
            "Indica una dificultad o el personaje que se opone.",
            "Give a difficulty or the opposing character.",
        )
    secret = p.difficulty_secret and p.difficulty is not None
    state = _base(table, character, target, p.action).model_copy(
        update={
            "phase": Phase.ROLL,
            "difficulty": None if secret else p.difficulty,
            "difficulty_secret": secret,
            "opposed": p.difficulty is None,
        }
    )
    record = [RecordLine(words(lambda: _declared_words(state)))]
    if secret:
        record.append(
            RecordLine(
                words(lambda: _("Dificultad secreta: %(difficulty)s") % {"difficulty": ladder(p.difficulty or 0)}),
                gm_only=True,
            )
        )
    return Outcome(state=state, secret=ActionSecret(difficulty=p.difficulty if secret else None), record=record)


def _declared_words(state: ActionState) -> str:
    args = {"name": state.character_name, "action": action_name(state.action), "target": state.target_name}
    if state.opposed:
        return _("%(name)s declara «%(action)s» contra %(target)s, que se defenderá.") % args
    if state.difficulty is not None:
        return _("%(name)s declara «%(action)s» contra una dificultad %(difficulty)s.") % {
            **args,
            "difficulty": ladder(state.difficulty),
        }
    return _("%(name)s declara «%(action)s» contra una dificultad secreta.") % args


def _base(table: Table, character: CharacterFacts, target: CharacterFacts | None, action: Action) -> ActionState:
    return ActionState(
        phase=Phase.ROLL,
        action=action,
        character=character.id,
        character_name=character.name,
        roller=character.actor,
        players=list(table.player_ids()),
        target=target.id if target else None,
        target_name=target.name if target else "",
        defender=target.actor if target else None,
    )


def _adopt(given: OpeningInput[ActionOpen], target: CharacterFacts | None) -> Outcome[ActionState]:
    p, table, viewer = given.params, given.table, given.viewer
    candidates = _open_rolls(table)
    if p.roll is not None:
        stored = next((r for r in candidates if r.id == p.roll), None)
    else:
        stored = next((r for r in candidates if r.roller_id == viewer.user_id), None)
    if stored is None:
        raise refuse(
            "no_roll_to_open",
            "No hay ninguna tirada de acción sin procedimiento que abrir aquí.",
            "There is no action roll without a procedure to open here.",
        )
    if not policy.may_open_roll_window(viewer, roller_id=stored.roller_id, gm_only=stored.gm_only):
        raise PermissionDenied(_("Solo quien hizo la tirada o un máster abre sus invocaciones."))
    character = table.character(stored.character_id)
    roll, difficulty, secret = _pure_roll(stored, target.id if target else None)
    if difficulty is None and target is None:
        raise refuse(
            "opposition_required",
            "Esta tirada no tiene dificultad: indica el personaje que se opone.",
            "This roll has no difficulty: name the opposing character.",
        )
    state = _base(table, character, target, roll.action).model_copy(
        update={
            "difficulty": None if secret else difficulty,
            "difficulty_secret": secret,
            "opposed": difficulty is None,
            "roll_id": stored.id,
            "roll": roll,
        }
    )
    hidden = ActionSecret(difficulty=difficulty if secret else None)
    line = RecordLine(words(lambda: _rolled_words(state)), rolls=(stored.id,))
    return _after_roll(state, hidden, [line], adopt=(stored.id,))


def _rolled_words(state: ActionState) -> str:
    assert state.roll is not None
    return _("%(name)s tira «%(action)s» con su estilo %(approach)s.") % {
        "name": state.character_name,
        "action": action_name(state.action),
        "approach": approach_name(state.roll.approach),
    }


def _after_roll(
    state: ActionState, secret: ActionSecret | BaseModel | None, record: list[RecordLine], adopt: tuple[int, ...] = ()
) -> Outcome[ActionState]:
    if state.opposed and state.defend is None:
        return Outcome(
            state=state.model_copy(update={"phase": Phase.DEFEND}), secret=secret, record=record, adopt=adopt
        )
    state = _provisional(state.model_copy(update={"phase": Phase.WINDOW}), secret)
    record = [*record, RecordLine(words(lambda: result_words(state)))]
    return Outcome(state=state, secret=secret, record=record, adopt=adopt)


def _roll_label(stored: StoredRoll, table: Table) -> str:
    character = table.characters.get(stored.character_id or 0)
    request = StoredRequest.model_validate(stored.request)
    total = StoredResult.model_validate(stored.result).total
    label = _("%(name)s: %(action)s (%(approach)s), %(total)s") % {
        "name": character.name if character else "—",
        "action": action_name(Action(stored.kind)),
        "approach": approach_name(request.approach),
        "total": ladder(total),
    }
    if stored.post_number:
        label = _("%(roll)s (mensaje n.º %(post)s)") % {"roll": label, "post": stored.post_number}
    return label


def opening_choices(table: Table, viewer: Viewer) -> dict[str, list[Choice]]:
    """The opening's pickers: the rolls this viewer may open, the characters they may declare for, the
    possible opponents, the actions."""
    rolls = [
        Choice(str(r.id), _roll_label(r, table))
        for r in _open_rolls(table)
        if policy.may_open_roll_window(viewer, roller_id=r.roller_id, gm_only=r.gm_only)
    ]
    approved = sorted((c for c in table.characters.values() if c.approved), key=lambda c: c.name)
    mine = [Choice(str(c.id), c.name) for c in approved if policy.may_open_character_procedure(viewer, c)]
    actions = [Choice(a.value, action_name(a)) for a in Action if a is not Action.DEFEND]
    choices = {
        "roll": rolls,
        "character": mine,
        "target": [Choice(str(c.id), c.name) for c in approved],
        "action": actions,
        "difficulty": [Choice(str(v), ladder(v)) for v in range(8, -3, -1)],
    }
    if policy.may_run_gm_procedure(viewer):  # a secret difficulty is the GM's to set
        choices["difficulty_secret"] = [Choice("true", _("Dificultad secreta"))]
    return choices


# --- Roll and defend --------------------------------------------------------------------------------


class RollParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    approach: Approach
    stunts: Listed = Field(default_factory=list, max_length=5)
    helpers: int = Field(0, ge=0, le=10)


def _roll_data(p: RollParams, difficulty: int | None, secret: bool) -> dict[str, Any]:
    data: dict[str, Any] = {"approach": p.approach.value, "stunts": p.stunts, "helpers": p.helpers}
    if difficulty is not None:
        data.update(difficulty=difficulty, difficulty_secret=secret)
    return data


def _roll(given: StepInput[ActionState, RollParams]) -> Outcome[ActionState]:
    state = given.state
    difficulty = _difficulty(state, given.secret)
    spec = RollSpec(
        kind=state.action.value,
        data=_roll_data(given.params, difficulty, state.difficulty_secret),
        character_id=state.character,
    )
    stored = given.roll(spec)
    roll, _difficulty_again, _secret = _pure_roll(stored, state.target)
    state = state.model_copy(update={"roll_id": stored.id, "roll": roll})
    line = RecordLine(words(lambda: _rolled_words(state)), rolls=(stored.id,))
    return _after_roll(state, given.secret, [line])


def _defend(given: StepInput[ActionState, RollParams]) -> Outcome[ActionState]:
    state = given.state
    stored = given.roll(
        RollSpec(kind=Action.DEFEND.value, data=_roll_data(given.params, None, False), character_id=state.target)
    )
    defend, _difficulty_none, _secret = _pure_roll(stored, None)
    state = state.model_copy(update={"defend_roll_id": stored.id, "defend": defend})
    line = RecordLine(
        words(
            lambda: (
                _("%(name)s se defiende con su estilo %(approach)s.")
                % {"name": state.target_name, "approach": approach_name(defend.approach)}
            )
        ),
        rolls=(stored.id,),
    )
    return _after_roll(state, given.secret, [line])


def roll_choices(state: ActionState, table: Table, viewer: Viewer) -> dict[str, list[Choice]]:
    """The approaches with their ratings and the stunts, from the sheet of whoever rolls now."""
    who = state.target if state.phase is Phase.DEFEND else state.character
    try:
        sheet = sheet_of(table, table.character(who))
    except RulesError:
        return {}  # nothing to pick: the step itself refuses with the reason
    ratings = sheet.approaches
    approaches = [
        Choice(a.value, f"{approach_name(a)} ({ratings.rating(a):+d})")
        for a in sorted(Approach, key=lambda a: -ratings.rating(a))
    ]
    stunts = [Choice(s.key, stunt_sentence(s, language())) for s in sheet.stunts]
    return {"approach": approaches, "stunts": stunts}


# --- Invoke -------------------------------------------------------------------------------------------


class InvokeParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    aspect: AspectRefField
    effect: InvokeEffect = InvokeEffect.BONUS
    payment: InvokePayment = InvokePayment.FATE_POINT
    justification: str = Field(min_length=1, max_length=500)
    character: int | None = None  # the invoker's character (default: yours in this roll)
    # The roll helped (bonus, reroll, aid), or for an oppose the roll opposed (default: the other side's).
    roll: Side | None = None
    grant_holder: int | None = None  # an ally's free invocation on a sheet aspect, lent by whoever controls it


EFFECT_WORDS = {
    InvokeEffect.BONUS: gettext_lazy("+2"),
    InvokeEffect.REROLL: gettext_lazy("volver a tirar"),
    InvokeEffect.AID_ALLY: gettext_lazy("+2 a un aliado"),
    InvokeEffect.OPPOSE: gettext_lazy("+2 a la oposición"),
}
PAYMENT_WORDS = {
    InvokePayment.FATE_POINT: gettext_lazy("1 punto de destino"),
    InvokePayment.FREE: gettext_lazy("invocación gratuita"),
}


def _invoker(table: Table, viewer: Viewer, state: ActionState, p: InvokeParams) -> tuple[str, CharacterFacts | None]:
    """Who invokes (a character id, or the GM side) and their character."""
    if p.character is not None:
        chosen = table.character(p.character)
        require_controls(viewer, chosen)
        return str(chosen.id), chosen
    for pk in (state.character, state.target):
        character = table.characters.get(pk or 0)
        if character is not None and policy.controls_character(viewer, character):
            return str(character.id), character
    if policy.may_run_gm_procedure(viewer):
        return PURE_GM, None
    own = [c for c in table.characters.values() if c.approved and not c.is_npc and c.owner_id == viewer.user_id]
    if not own:
        raise refuse(
            "character_required",
            "Necesitas un personaje aprobado para invocar.",
            "You need an approved character to invoke.",
        )
    return str(own[0].id), own[0]


def _board_pure(table: Table, ref: AspectRef, viewer: Viewer, invoker: str, state: ActionState) -> Aspect:
    """A board aspect as the pure rules see it: its free invocations left in this window are the invoker's
    to use (a boost: one use by whoever holds it; [P] holders are not recorded)."""
    board = board_aspect(table, ref, viewer)
    left = state.board_free.left(board)
    if is_boost(board):
        status = AspectStatus.ACTIVE if left > 0 else AspectStatus.REMOVED
        return Aspect(key=str(ref), text=board.text, kind=AspectKind.BOOST, character=invoker, status=status)
    grants = (FreeInvocationGrant(holder=invoker, remaining=left),) if left > 0 else ()
    aspect = situation_aspect(str(ref), board.text, table.scene_id, hidden=board.hidden)
    return aspect.model_copy(update={"grants": grants})


def _grant_holder(
    table: Table, viewer: Viewer, aspect: Aspect, invoker: str, character: CharacterFacts | None, p: InvokeParams
) -> tuple[str, bool]:
    """Whose free invocation on a sheet aspect pays, and whether its holder lets the invoker use it.

    The holder may let an ally use it (§4.3.1): an ally's is lent by whoever controls the ally. The GM side
    (the GM and every NPC) shares its own.
    """
    if p.grant_holder is not None:
        lender = table.character(p.grant_holder)
        return str(lender.id), policy.controls_character(viewer, lender)
    if aspect.free_for(invoker) > 0:
        return invoker, True
    if invoker == PURE_GM or (character is not None and character.is_npc):
        for grant in aspect.grants:
            holder = table.characters.get(int(grant.holder)) if grant.holder.isdigit() else None
            gm_side = grant.holder == PURE_GM or (holder is not None and holder.is_npc)
            if gm_side and grant.remaining > 0:
                return grant.holder, True
    return invoker, False


def _used_grant(before: Aspect, after: Aspect) -> FreeInvocationGrant:
    """The free-invocation record the rules spent (the one whose count went down)."""
    for old, new in zip(before.grants, after.grants, strict=True):
        if new.remaining < old.remaining:
            return old
    raise AssertionError("a free invocation was accepted without spending a grant")


def invoke_choices(state: ActionState, table: Table, viewer: Viewer) -> dict[str, list[Choice]]:
    mine = [c for c in table.characters.values() if c.approved and policy.controls_character(viewer, c)]
    sides = [Choice("action", state.character_name)]
    if state.defend is not None:
        sides.append(Choice("defense", state.target_name))
    return {
        "aspect": aspect_choices(table, viewer, aspects_of),
        "character": [Choice(str(c.id), c.name) for c in sorted(mine, key=lambda c: c.name)],
        "roll": sides,
        "effect": [Choice(e.value, str(w)) for e, w in EFFECT_WORDS.items()],
        "payment": [Choice(k.value, str(w)) for k, w in PAYMENT_WORDS.items()],
    }


def _payment_ledger(
    table: Table, p: InvokeParams, aspect: Aspect, character: CharacterFacts | None, fp: int | None
) -> list[LedgerOp]:
    if p.payment is not InvokePayment.FATE_POINT or aspect.kind is AspectKind.BOOST:
        return []
    if fp is not None and character is not None:
        return [LedgerOp("spend_fate_point", {"amount": 1}, character.id, "invocación")]
    if fae_settings(table).gm_fate_point_pool:
        return [LedgerOp("gm_pool_spend", {"amount": 1}, None, "invocación")]
    return []


def _booked_on(
    p: InvokeParams, invoker: str, roll: ActionRoll, defend: ActionRoll | None
) -> tuple[Side, ActionRoll | None]:
    """The roll whose number an invocation changes, and for an ``oppose`` in a contest the roll it is aimed
    at. ``roll`` names the roll opposed for ``oppose`` (default: the other side's); otherwise the roll helped
    (default: the invoker's side). In a contest an oppose's +2 goes on the other side's roll, whose total is
    the opposed roll's target (A-11); against a fixed difficulty it raises the opposed roll's difficulty."""
    if p.effect is InvokeEffect.OPPOSE:
        aimed: Side = p.roll or ("defense" if defend is not None and roll.actor == invoker else "action")
    else:
        aimed = p.roll or ("defense" if defend is not None and defend.actor == invoker else "action")
    if aimed == "defense" and defend is None:
        raise refuse("no_defense_roll", "No hay tirada de defensa.", "There is no defence roll.")
    if p.effect is not InvokeEffect.OPPOSE or defend is None:
        return aimed, None
    if aimed == "action":
        return "defense", roll
    return "action", defend


def _status_of(table: Table, character: CharacterFacts | None) -> SceneStatus:
    """The invoker's place in the scene: a character taken out or who conceded invokes nothing (§5.4, §5.6).
    The GM invoking as themselves is always in the scene."""
    if character is None:
        return SceneStatus.ACTIVE
    try:
        return SceneStatus(character.sheet.get("scene_status", SceneStatus.ACTIVE.value))
    except ValueError:
        return SceneStatus.ACTIVE


def _no_invoker_in_scene(state: ActionState, table: Table, viewer: Viewer | None) -> Names | None:
    """A player whose every character here was taken out or conceded has nobody to invoke with (§5.4, §5.6);
    the GM always invokes (as the GM side)."""
    if viewer is None or policy.may_run_gm_procedure(viewer):
        return None
    mine = [c for c in table.characters.values() if c.approved and policy.controls_character(viewer, c)]
    if not mine or any(_status_of(table, c) is SceneStatus.ACTIVE for c in mine):
        return None
    return words(lambda: _("Tus personajes están fuera de la escena: no pueden invocar aspectos."))


def _invoke(given: StepInput[ActionState, InvokeParams]) -> Outcome[ActionState]:
    state, table, viewer, p = given.state, given.table, given.viewer, given.params
    ref = picked(p.aspect, aspect_choices(table, viewer, aspects_of))
    invoker, character = _invoker(table, viewer, state, p)
    roll, defend = _rolls(state, given.secret)
    side, opposing = _booked_on(p, invoker, roll, defend)
    target_roll = defend if side == "defense" and defend is not None else roll
    aspect = _board_pure(table, ref, viewer, invoker, state) if ref.on_board else pure_aspect(table, ref)
    fp = sheet_of(table, character).fate_points if character is not None and not character.is_npc else None
    free_on_sheet = not ref.on_board and p.payment is InvokePayment.FREE
    holder, consents = (
        _grant_holder(table, viewer, aspect, invoker, character, p) if free_on_sheet else (invoker, False)
    )
    result = invoke(
        target_roll,
        aspect,
        invoker=invoker,
        effect=p.effect,
        payment=p.payment,
        invoker_fate_points=fp,
        justification=p.justification,
        dice=given.dice,
        grant_holder=None if ref.on_board else holder,
        holder_consents=consents,
        settings=fae_settings(table),
        opposing=opposing,
        invoker_status=_status_of(table, character),
    )
    ledger = _payment_ledger(table, p, aspect, character, fp)
    update: dict[str, Any] = {}
    if free_on_sheet:
        used = _used_grant(aspect, result.aspect)
        spent = SheetFreeSpent(
            aspect=aspect.key,
            holder=used.holder,
            source=used.source,
            same_roll_stacking=used.same_roll_stacking,
            side=side,
            index=len(target_roll.invocations),
        )
        # Spent now, through the ledger, in this step's transaction: the owner's sheet row is locked and the
        # rules refuse a count below zero, so two windows never spend the same one.
        ledger.append(LedgerOp("use_free_invocation", _grant_params(spent), owner_of(aspect.key), "invocación", True))
        update["sheet_free_spent"] = [*state.sheet_free_spent, spent]
    if ref.on_board and (p.payment is InvokePayment.FREE or aspect.kind is AspectKind.BOOST):
        update["board_free"] = state.board_free.spend(board_aspect(table, ref, viewer))
    who = character.name if character is not None else None
    update["invoked"] = [*state.invoked, Invoked(side=side, ref=str(ref), text=aspect.text, who=who or "")]
    key = "defend" if side == "defense" else "roll"
    update[key] = replace(result.roll, difficulty=None)
    state = _provisional(state.model_copy(update=update), given.secret)
    paid = InvokePayment.FREE if aspect.kind is AspectKind.BOOST else p.payment
    rerolled = faces_text(result.roll.faces) if p.effect is InvokeEffect.REROLL and result.roll.faces else ""

    def said() -> str:
        line = _("%(who)s invoca «%(aspect)s» (%(effect)s, %(payment)s)") % {
            "who": who or _("El DJ"),
            "aspect": aspect.text,
            "effect": EFFECT_WORDS[p.effect],
            "payment": PAYMENT_WORDS[paid],
        }
        return f"{line} {rerolled}. {result_words(state)}" if rerolled else f"{line}. {result_words(state)}"

    roll_id = state.defend_roll_id if side == "defense" else state.roll_id
    assert roll_id is not None
    follow_up = FollowUp(
        roll_id=roll_id,
        kind="invoke",
        summary=words(said),
        data={"aspect": str(ref), "effect": p.effect.value, "payment": p.payment.value, "invoker": invoker},
        result=_public_result(state, key),
        character_id=character.id if character is not None else None,
    )
    return Outcome(state=state, ledger=ledger, follow_ups=[follow_up], record=[RecordLine(words(said))])


def _grant_params(spent: SheetFreeSpent) -> dict[str, Any]:
    return {
        "aspect": spent.aspect,
        "holder": spent.holder,
        "source": spent.source,
        "same_roll_stacking": spent.same_roll_stacking,
    }


def _public_result(state: ActionState, key: str) -> dict[str, Any]:
    rolled = state.defend if key == "defend" else state.roll
    shown: dict[str, Any] = {
        "faces": rolled.faces if rolled else "",
        "total": state.total,
        "outcome": state.outcome.value if state.outcome else None,
    }
    if state.defense_total is not None:
        shown["defense_total"] = state.defense_total
    if state.shifts is not None:
        shown["shifts"] = state.shifts
    return shown


# --- Veto ---------------------------------------------------------------------------------------------


class VetoParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    roll: Side = "action"
    invocation: int | None = Field(None, ge=0)  # the roll's last one (the only one a veto may strike)


def veto_choices(state: ActionState, table: Table, viewer: Viewer) -> dict[str, list[Choice]]:
    """The last invocation of each roll, by its aspect and who invoked it."""
    last: dict[str, Invoked] = {}
    for invoked in state.invoked:
        last[invoked.side] = invoked
    return {
        "roll": [
            Choice(side, _("«%(aspect)s» (%(who)s)") % {"aspect": i.text, "who": i.who or _("El DJ")})
            for side, i in last.items()
        ]
    }


def _veto(given: StepInput[ActionState, VetoParams]) -> Outcome[ActionState]:
    """A GM rejects an invocation's justification (§4.3.1): it is struck from the roll (a reroll's earlier
    faces come back) and its payment returns."""
    state, p = given.state, given.params
    key = "defend" if p.roll == "defense" else "roll"
    rolled: ActionRoll | None = state.defend if key == "defend" else state.roll
    if rolled is None or not rolled.invocations:
        raise refuse("unknown_invocation", "No existe esa invocación.", "There is no such invocation.")
    last = len(rolled.invocations) - 1
    if p.invocation is not None and p.invocation != last:
        raise refuse(
            "veto_last_only",
            "Solo se puede vetar la última invocación de la tirada.",
            "Only the roll's last invocation can be vetoed.",
        )
    vetoed = rolled.invocations[last]
    faces, history = rolled.faces, rolled.face_history
    if vetoed.effect is InvokeEffect.REROLL and history:
        faces, history = history[-1], history[:-1]
    update: dict[str, Any] = {
        key: replace(rolled, invocations=rolled.invocations[:last], faces=faces, face_history=history)
    }
    ledger = _veto_ledger(given, vetoed.aspect_key, vetoed.payment, vetoed.invoker, p.roll, last, update)
    invoked = [i for i in state.invoked if i.side == p.roll]
    text = invoked[-1].text if invoked else vetoed.aspect_key
    if invoked:
        drop = invoked[-1]
        update["invoked"] = [i for i in state.invoked if i is not drop]
    state = _provisional(state.model_copy(update=update), given.secret)
    said = words(
        lambda: (
            _("El DJ veta la invocación de «%(aspect)s». %(result)s") % {"aspect": text, "result": result_words(state)}
        )
    )
    roll_id = state.defend_roll_id if key == "defend" else state.roll_id
    assert roll_id is not None
    follow_up = FollowUp(roll_id, "veto", said, {"invocation": last}, _public_result(state, key))
    returned = [RecordLine(words(_returned_words(given.table, op))) for op in ledger]
    return Outcome(state=state, ledger=ledger, follow_ups=[follow_up], record=[RecordLine(said), *returned])


def _returned_words(table: Table, op: LedgerOp) -> Callable[[], str]:
    """A vetoed invocation's payment coming back, in words."""

    def render() -> str:
        if op.operation == "gain_fate_point":
            return _("%(name)s recupera 1 punto de destino.") % {"name": party_name(table, str(op.character_id))}
        if op.operation == "gm_pool_gain":
            return _("La reserva del DJ recupera 1 punto de destino.")
        holder = party_name(table, str(op.params.get("holder", "")))
        return _("La invocación gratuita vuelve a %(name)s.") % {"name": holder}

    return render


def _veto_ledger(
    given: StepInput[ActionState, VetoParams],
    ref: str,
    payment: InvokePayment,
    invoker: str,
    side: Side,
    index: int,
    update: dict[str, Any],
) -> list[LedgerOp]:
    state, table = given.state, given.table
    on_board = ref.startswith(("scene:", "boost:"))
    if payment is InvokePayment.FREE and on_board:
        update["board_free"] = state.board_free.give_back(AspectRef.parse(ref).id)
        return []
    if payment is InvokePayment.FREE:
        spent = next(
            (s for s in state.sheet_free_spent if s.side == side and s.index == index and s.aspect == ref), None
        )
        if spent is None:
            return []
        update["sheet_free_spent"] = [s for s in state.sheet_free_spent if s is not spent]
        return [LedgerOp("return_free_invocation", _grant_params(spent), owner_of(ref), "invocación vetada", True)]
    character = table.characters.get(int(invoker)) if invoker.isdigit() else None
    if character is not None and not character.is_npc:
        return [LedgerOp("gain_fate_point", {"amount": 1}, character.id, "invocación vetada")]
    if fae_settings(table).gm_fate_point_pool:
        # §6.7.4: the GM paid from the pool (an NPC's or the GM's own invocation): it comes back.
        return [LedgerOp("gm_pool_gain", {"amount": 1}, None, "invocación vetada")]
    return []


# --- Settle -------------------------------------------------------------------------------------------


class SettleParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ca_mode: CAMode | None = None
    fail_choice: FailChoice | None = None
    trade: bool = False  # an attack's success with style: one shift for a boost
    aspect_text: str = Field("", max_length=200)  # the new situation aspect (create)
    aspect: AspectRefField | None = None  # the aspect discovered, exploited, or removed by an overcome
    boost_actor: str = Field("", max_length=150)
    boost_defender: str = Field("", max_length=150)
    note: str = Field("", max_length=300)  # the cost or twist, in the GM's words


class Settled:
    """What the settlement produces besides the new state: collected by the helpers below."""

    def __init__(self) -> None:
        self.board: list[BoardChange] = []
        self.ledger: list[LedgerOp] = []
        self.lines: list[Names] = []


def settle_choices(state: ActionState, table: Table, viewer: Viewer) -> dict[str, list[Choice]]:
    modes = [
        Choice(CAMode.CREATE.value, _("Crear un aspecto")),
        Choice(CAMode.DISCOVER.value, _("Descubrir un aspecto")),
        Choice(CAMode.EXPLOIT.value, _("Sacar ventaja de un aspecto ya existente")),
    ]
    if state.action is Action.OVERCOME:
        fails = [
            Choice(FailChoice.FAIL.value, _("Fallar")),
            Choice(FailChoice.SUCCESS_AT_MAJOR_COST.value, _("Éxito a un coste importante")),
        ]
    else:
        fails = [
            Choice(FailChoice.NOTHING.value, _("Nada")),
            Choice(FailChoice.GRANT_OPPONENT.value, _("El aspecto existe, la invocación gratuita es del oponente")),
        ]
    aspects = board_choices(table, viewer)
    if state.action is Action.CREATE_ADVANTAGE:
        aspects += character_aspect_choices(table, viewer, aspects_of)
    return {"ca_mode": modes, "fail_choice": fails, "aspect": aspects}


def _settle(given: StepInput[ActionState, SettleParams]) -> Outcome[ActionState]:
    state, table, p = given.state, given.table, given.params
    roll, defend = _rolls(state, given.secret)
    if p.aspect is not None:
        picked(p.aspect, settle_choices(state, table, given.viewer)["aspect"])
    settlement = settle_action(
        roll,
        defend,
        ca_mode=p.ca_mode if state.action is Action.CREATE_ADVANTAGE else None,
        fail_choice=p.fail_choice,
        trade_shift_for_boost=p.trade,
        settings=fae_settings(table),
    )
    done = Settled()
    done.board += state.board_free.board_changes(table)
    if state.action is Action.CREATE_ADVANTAGE:
        _advantage(table, state, settlement, p, done)
    if state.action is Action.OVERCOME:
        _overcome(table, settlement, p, done)
    _boosts(table, settlement, p, done)
    if p.note.strip():
        note = p.note.strip()
        done.lines.append(words(lambda: _("Narración del DJ: %(note)s") % {"note": note}))
    state = state.model_copy(
        update={
            "roll": replace(settlement.roll, difficulty=None),
            "defend": replace(settlement.defend, difficulty=None) if settlement.defend else state.defend,
            "board_free": BoardFreeUses(),
            "harm": settlement.effects.harm,
        }
    )
    return _after_settle(given, state, settlement, done)


def _final_words(state: ActionState, settlement: Settlement, *, secret: bool) -> str:
    """The outcome in words with ladder words: «Resultado de Ana (Superar): Grande (+3) contra Bueno (+2) ·
    Éxito (1 aumento)»."""
    shifts = None if secret else settlement.shifts
    args = {
        "name": state.character_name,
        "action": action_name(state.action),
        "total": ladder(settlement.total),
        "against": ladder(settlement.target),
        "outcome": outcome(settlement.outcome.value, shifts),
    }
    if secret:
        return _("Resultado de %(name)s (%(action)s): %(total)s · %(outcome)s") % args
    return _("Resultado de %(name)s (%(action)s): %(total)s contra %(against)s · %(outcome)s") % args


def _after_settle(
    given: StepInput[ActionState, SettleParams], state: ActionState, settlement: Settlement, done: Settled
) -> Outcome[ActionState]:
    secret = state.difficulty_secret
    rolls = tuple(r for r in (state.roll_id, state.defend_roll_id) if r is not None)
    record = [RecordLine(words(lambda: _final_words(state, settlement, secret=secret)), rolls=rolls)]
    if secret:
        record.append(RecordLine(words(lambda: _final_words(state, settlement, secret=False)), gm_only=True))
    record += [RecordLine(line) for line in done.lines]
    harm = settlement.effects.harm
    if harm > 0 and state.target is not None:
        record.append(
            RecordLine(
                words(
                    lambda: (
                        ngettext(
                            "%(name)s recibe un impacto de %(n)d aumento.",
                            "%(name)s recibe un impacto de %(n)d aumentos.",
                            harm,
                        )
                        % {"name": state.target_name, "n": harm}
                    )
                )
            )
        )
    assert state.roll_id is not None
    follow_up = FollowUp(
        roll_id=state.roll_id,
        kind="settle",
        summary=words(lambda: "; ".join([_final_words(state, settlement, secret=secret), *_texts(done)])),
        data={"outcome": settlement.outcome.value, "harm": harm},
        result={"total": settlement.total, "outcome": settlement.outcome.value}
        | ({} if secret else {"shifts": settlement.shifts}),
    )
    common: dict[str, Any] = {"board": done.board, "ledger": done.ledger, "follow_ups": [follow_up], "record": record}
    if harm > 0 and state.target is not None:
        target = given.table.character(state.target)
        options = [
            AbsorbOption(box=o.box, slots=list(o.slots), absorbed=o.absorbed)
            for o in absorption_options(sheet_of(given.table, target), harm)
        ]
        return Outcome(state=state.model_copy(update={"phase": Phase.ABSORB, "options": options}), **common)
    return Outcome(state=state.model_copy(update={"phase": Phase.DONE}), closes="settled", **common)


def _texts(done: Settled) -> list[str]:
    return [line.get(language()) for line in done.lines]


def _advantage(table: Table, state: ActionState, settlement: Settlement, p: SettleParams, done: Settled) -> None:
    effects = settlement.effects
    if effects.aspect is None and not effects.grants:
        return
    creating = p.ca_mode is CAMode.CREATE and effects.aspect is not None
    if p.aspect is not None and not p.aspect.on_board and not creating:
        _advantage_on_sheet(table, settlement, p.aspect, done)
        return
    existing = None
    if not creating:
        if p.aspect is None or not p.aspect.on_board:
            raise refuse("aspect_required", "Indica el aspecto afectado.", "Name the aspect concerned.")
        existing = board_aspect(table, p.aspect, None)
    pure = situation_aspect(str(p.aspect), existing.text, table.scene_id, hidden=existing.hidden) if existing else None
    created = apply_advantage(
        settlement,
        aspect=pure,
        new_key="new",
        new_text=p.aspect_text.strip() or None,
        scene=table.scene_id,
        opponent=PURE_GM,
    )
    assert created is not None
    free = sum(g.remaining for g in created.grants)
    if existing is None:
        done.board.append(add_situation_aspect(created.text, free))
        done.lines.append(words(_new_aspect_words(created.text, free, new=True)))
    else:
        left = state.board_free.left(existing)
        done.board.append(add_free_invocations(replace(existing, free_invocations=left), free, hidden=created.hidden))
        done.lines.append(words(_new_aspect_words(existing.text, free, new=False)))


def _new_aspect_words(text: str, free: int, *, new: bool) -> Callable[[], str]:
    def render() -> str:
        if new:
            return ngettext(
                "Nuevo aspecto «%(aspect)s» con %(n)d invocación gratuita.",
                "Nuevo aspecto «%(aspect)s» con %(n)d invocaciones gratuitas.",
                free,
            ) % {"aspect": text, "n": free}
        return ngettext(
            "«%(aspect)s» gana %(n)d invocación gratuita.", "«%(aspect)s» gana %(n)d invocaciones gratuitas.", free
        ) % {"aspect": text, "n": free}

    return render


def _advantage_on_sheet(table: Table, settlement: Settlement, ref: AspectRef, done: Settled) -> None:
    """Create an advantage discovering or exploiting a character's aspect (§3.8.1, §4.3.4): its free
    invocations (and a discovery's reveal) go onto the character's aspect through the ledger."""
    character = table.character(ref.character_id)
    aspect = pure_aspect(table, ref)
    created = apply_advantage(settlement, aspect=aspect, opponent=PURE_GM)
    assert created is not None
    reveal = aspect.hidden and not created.hidden
    for grant in created.grants[len(aspect.grants) :]:
        params = {
            "aspect": aspect.key,
            "holder": grant.holder,
            "source": grant.source,
            "same_roll_stacking": grant.same_roll_stacking,
            "count": grant.remaining,
            "reveal": reveal,
        }
        done.ledger.append(LedgerOp("grant_free_invocations", params, character.id, "crear una ventaja", by_rules=True))
        done.lines.append(words(_granted_words(table, aspect.text, character.name, grant.holder, grant.remaining)))


def _granted_words(table: Table, aspect: str, character: str, holder: str, n: int) -> Callable[[], str]:
    def render() -> str:
        return ngettext(
            "«%(aspect)s» de %(character)s: %(n)d invocación gratuita para %(holder)s.",
            "«%(aspect)s» de %(character)s: %(n)d invocaciones gratuitas para %(holder)s.",
            n,
        ) % {"aspect": aspect, "character": character, "n": n, "holder": party_name(table, holder)}

    return render


def _overcome(table: Table, settlement: Settlement, p: SettleParams, done: Settled) -> None:
    effects = settlement.effects
    if not effects.goal_reached:
        done.lines.append(words(lambda: _("No consigue su objetivo.")))
        return
    if effects.cost is None:
        done.lines.append(words(lambda: _("Consigue su objetivo.")))
    elif effects.cost.value == "minor":
        done.lines.append(words(lambda: _("Consigue su objetivo a un coste leve.")))
    else:
        done.lines.append(words(lambda: _("Consigue su objetivo a un coste importante.")))
    if p.aspect is not None and p.aspect.on_board:
        removed = board_aspect(table, p.aspect, None)
        done.board.append(RemoveAspect(removed.id))
        done.lines.append(words(lambda: _("«%(aspect)s» desaparece de la escena.") % {"aspect": removed.text}))


def _boosts(table: Table, settlement: Settlement, p: SettleParams, done: Settled) -> None:
    for role in settlement.effects.boosts:
        holder = settlement.holder(role, PURE_GM)
        given = p.boost_defender if role is Role.DEFENDER else p.boost_actor
        text = given.strip()[:150] or _boost_default(table, holder)
        done.board.append(add_boost(text))
        done.lines.append(words(_boost_words(table, holder, text)))


def _boost_default(table: Table, holder: str) -> str:
    """A boost the GM did not name: «de Ana» (the board stores one language: the campaign's)."""
    with override(table.language or "es"):
        return _("de %(name)s") % {"name": party_name(table, holder)}


def _boost_words(table: Table, holder: str, text: str) -> Callable[[], str]:
    def render() -> str:
        return _("%(name)s gana un impulso: «%(boost)s».") % {"name": party_name(table, holder), "boost": text}

    return render


# --- Absorb -------------------------------------------------------------------------------------------


class AbsorbParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    taken_out: bool = False
    box: int | None = Field(None, ge=1, le=3)
    slots: Annotated[list[Severity], BeforeValidator(_listed)] = Field(default_factory=list, max_length=3)
    text_mild: str = Field("", max_length=200)
    text_moderate: str = Field("", max_length=200)
    text_severe: str = Field("", max_length=200)


def absorb_choices(state: ActionState, table: Table, viewer: Viewer) -> dict[str, list[Choice]]:
    """The defender's empty stress boxes and consequence slots."""
    try:
        sheet = sheet_of(table, table.character(state.target))
    except RulesError:
        return {}  # nothing to pick: the step itself refuses with the reason
    boxes = [
        Choice(str(b), _("Casilla %(n)d") % {"n": b})
        for b in (1, 2, 3)
        if b <= len(sheet.stress) and not sheet.box_checked(b)
    ]
    slots = [
        Choice(s.value, f"{SEVERITY_NAMES[s].get(language())} ({SLOT_VALUES[s]})")
        for s in Severity
        if sheet.consequences.get(s) is None
    ]
    return {"box": boxes, "slots": slots}


def _absorb(given: StepInput[ActionState, AbsorbParams]) -> Outcome[ActionState]:
    state, table, p = given.state, given.table, given.params
    target = table.character(state.target)
    shifts = state.harm
    if p.taken_out:
        ledger = [LedgerOp("take_out", {}, target.id, "derrotado")]
        said = words(lambda: _("%(name)s queda derrotado.") % {"name": target.name})
    else:
        texts = {Severity.MILD: p.text_mild, Severity.MODERATE: p.text_moderate, Severity.SEVERE: p.text_severe}
        boxes = [p.box] if p.box is not None else []
        validate_absorption(sheet_of(table, target), shifts, boxes, p.slots, fae_settings(table))
        if any(not texts[slot].strip() for slot in p.slots):
            raise refuse(
                "consequence_text_required",
                "Escribe el aspecto de la consecuencia.",
                "Write the consequence aspect.",
            )
        params = {
            "owner": str(target.id),
            "attacker": str(state.character),
            "shifts": shifts,
            "box": p.box,
            "slots": [x.value for x in p.slots],
            "texts": {x.value: texts[x].strip() for x in p.slots},
            "moment": {"adventure": 0, "session": 0, "scene": table.scene_id, "conflict": conflict_of(table)},
            "source": f"roll-{state.roll_id}",
        }
        ledger = [LedgerOp("absorb_hit", params, target.id, "absorber daño")]
        said = words(lambda: _absorbed_words(target.name, shifts, p, texts))
    assert state.roll_id is not None
    follow_up = FollowUp(state.roll_id, "absorb", said, p.model_dump(mode="json"), character_id=target.id)
    done = state.model_copy(update={"phase": Phase.DONE, "options": []})
    return Outcome(state=done, closes="settled", ledger=ledger, follow_ups=[follow_up], record=[RecordLine(said)])


def _absorbed_words(name: str, shifts: int, p: AbsorbParams, texts: dict[Severity, str]) -> str:
    parts = [_("la casilla %(n)d") % {"n": p.box}] if p.box else []
    parts += [
        _("%(slot)s «%(text)s»") % {"slot": SEVERITY_NAMES[x].get(language()).lower(), "text": texts[x].strip()}
        for x in p.slots
    ]
    return ngettext(
        "%(name)s absorbe %(n)d aumento con %(parts)s.", "%(name)s absorbe %(n)d aumentos con %(parts)s.", shifts
    ) % {"name": name, "n": shifts, "parts": _(" y ").join(parts)}


# --- The table ----------------------------------------------------------------------------------------


def _waiting_roll(state: ActionState, table: Table) -> Names:
    return words(lambda: _("la tirada de %(name)s") % {"name": state.character_name})


def _waiting_defend(state: ActionState, table: Table) -> Names:
    return words(lambda: _("la defensa de %(name)s") % {"name": state.target_name})


def _waiting_settle(state: ActionState, table: Table) -> Names:
    return words(lambda: _("invocaciones abiertas; el DJ cierra y resuelve"))


def _waiting_absorb(state: ActionState, table: Table) -> Names:
    return words(
        lambda: (
            ngettext(
                "%(name)s absorbe %(n)d aumento o queda derrotado",
                "%(name)s absorbe %(n)d aumentos o queda derrotado",
                state.harm,
            )
            % {"name": state.target_name, "n": state.harm}
        )
    )


def _when(phase: Phase, *actors: Actor | None) -> Any:
    def who(state: ActionState) -> set[Actor]:
        return {a for a in actors if a is not None} if state.phase is phase else set()

    return who


ACTION: Procedure[ActionState] = Procedure(
    key="action",
    title=gettext_lazy("Acción"),
    state=ActionState,
    secret=ActionSecret,
    reads=Reads(board=True, rules_state=True, open_rolls=True),
    opening=Opening(params=ActionOpen, run=_opening, choices=opening_choices),
    steps=(
        Step(
            key="roll",
            label=gettext_lazy("Tirar 4dF"),
            params=RollParams,
            who=lambda s: {s.roller} if s.phase is Phase.ROLL else set(),
            run=_roll,
            waiting=_waiting_roll,
            form="fate_accelerated/steps/roll.html",
            choices=roll_choices,
        ),
        Step(
            key="defend",
            label=gettext_lazy("Tirar Defender"),
            params=RollParams,
            who=lambda s: {s.defender} if s.phase is Phase.DEFEND and s.defender is not None else set(),
            run=_defend,
            waiting=_waiting_defend,
            form="fate_accelerated/steps/roll.html",
            choices=roll_choices,
        ),
        Step(
            key="invoke",
            label=gettext_lazy("Invocar un aspecto"),
            params=InvokeParams,
            who=lambda s: {GM, *s.players} if s.phase is Phase.WINDOW else set(),
            run=_invoke,
            awaited=False,
            form="fate_accelerated/steps/invoke.html",
            choices=invoke_choices,
            unavailable=_no_invoker_in_scene,
        ),
        Step(
            key="veto",
            label=gettext_lazy("Vetar la última invocación"),
            params=VetoParams,
            who=lambda s: {GM} if s.phase is Phase.WINDOW and s.invoked else set(),
            run=_veto,
            awaited=False,
            form="fate_accelerated/steps/veto.html",
            choices=veto_choices,
        ),
        Step(
            key="settle",
            label=gettext_lazy("Resolver"),
            params=SettleParams,
            who=lambda s: {GM} if s.phase is Phase.WINDOW else set(),
            run=_settle,
            waiting=_waiting_settle,
            form="fate_accelerated/steps/settle.html",
            choices=settle_choices,
        ),
        Step(
            key="absorb",
            label=gettext_lazy("Absorber"),
            params=AbsorbParams,
            who=lambda s: {s.defender} if s.phase is Phase.ABSORB and s.defender is not None else set(),
            run=_absorb,
            waiting=_waiting_absorb,
            form="fate_accelerated/steps/absorb.html",
            choices=absorb_choices,
        ),
    ),
)

__all__ = ["ACTION", "ActionState"]
