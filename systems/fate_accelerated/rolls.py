"""The action roll as a state machine (spec §3.1, §3.3, §3.7): declared → rolled → window → resolved.

Every step takes an immutable :class:`ActionRoll` and returns a new one, or refuses an out-of-order
step with a RulesError.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from systems.dice import DiceSource
from systems.errors import RulesError
from systems.fate_accelerated.actions import Action, Approach
from systems.fate_accelerated.dice import dice_sum, roll_4df
from systems.fate_accelerated.exchange import Exchange, check_helpers
from systems.fate_accelerated.settings import FaeSettings, settings_or_default
from systems.fate_accelerated.sheet import FaeSheet, SceneStatus
from systems.fate_accelerated.stunts import require_applicable


class RollPhase(StrEnum):
    DECLARED = "declared"
    ROLLED = "rolled"
    INVOCATION_WINDOW = "invocation_window"
    RESOLVED = "resolved"


class InvokeEffect(StrEnum):
    BONUS = "bonus"  # +2 to the invoker's own total
    REROLL = "reroll"  # roll the four dice again; the new faces replace the old
    OPPOSE = "oppose"  # +2 to the opposition (see ActionRoll.total / target_number)
    AID_ALLY = "aid_ally"  # +2 to an ally's roll


class InvokePayment(StrEnum):
    FATE_POINT = "fate_point"
    FREE = "free"


@dataclass(frozen=True, slots=True)
class Invocation:
    """One invocation recorded on the roll whose number it changes (A-02)."""

    aspect_key: str
    invoker: str
    effect: InvokeEffect
    payment: InvokePayment
    same_roll_stacking: bool
    justification: str
    grant_holder: str | None = None


@dataclass(frozen=True, slots=True)
class ActionRoll:
    """One 4dF roll plus its modifiers.

    ``difficulty`` set: passive opposition (fixed target). ``difficulty`` None: the target is an
    opposing roll (normally a Defend), and an ``oppose`` invocation aimed at the other side is
    recorded on *this* roll as +2 to its total, so both sides see the same margin (A-11).
    """

    key: str
    actor: str
    action: Action
    approach: Approach
    approach_rating: int  # snapshot at roll time
    difficulty: int | None = None
    target: str | None = None  # the character the action is aimed at (for concession checks)
    on_behalf_of: str | None = None  # a Defend for someone else, GM-approved (§3.8.4)
    stunts: tuple[str, ...] = ()
    stunt_bonus: int = 0
    helpers: tuple[str, ...] = ()
    faces: str | None = None
    face_history: tuple[str, ...] = ()
    invocations: tuple[Invocation, ...] = ()
    phase: RollPhase = RollPhase.DECLARED

    @property
    def opposed(self) -> bool:
        return self.difficulty is None

    @property
    def dice_total(self) -> int:
        if self.faces is None:
            raise _not_rolled()
        return dice_sum(self.faces)

    @property
    def invocation_bonus(self) -> int:
        plus = sum(2 for i in self.invocations if i.effect in (InvokeEffect.BONUS, InvokeEffect.AID_ALLY))
        if self.opposed:
            plus += sum(2 for i in self.invocations if i.effect is InvokeEffect.OPPOSE)
        return plus

    @property
    def total(self) -> int:
        return (
            self.dice_total
            + self.approach_rating
            + self.stunt_bonus
            + len(self.helpers)  # +1 per helper
            + self.invocation_bonus
        )

    @property
    def target_number(self) -> int:
        """The fixed difficulty raised +2 per ``oppose`` invocation (fixed opposition only)."""
        if self.difficulty is None:
            raise RulesError(
                "opposed_roll",
                "El número objetivo de esta tirada es el total de la tirada opuesta.",
                "This roll's target number is the opposing roll's total.",
            )
        return self.difficulty + sum(2 for i in self.invocations if i.effect is InvokeEffect.OPPOSE)

    @property
    def window_open(self) -> bool:
        return self.phase in (RollPhase.ROLLED, RollPhase.INVOCATION_WINDOW)


@dataclass(frozen=True, slots=True)
class Declared:
    roll: ActionRoll
    exchange: Exchange | None


def declare_action(
    key: str,
    actor: str,
    sheet: FaeSheet,
    action: Action,
    approach: Approach,
    *,
    difficulty: int | None = None,
    target: str | None = None,
    stunts: Sequence[str] = (),
    circumstance_confirmed: bool = True,
    helpers: Sequence[str] = (),
    exchange: Exchange | None = None,
    max_helpers_override: int | None = None,
    on_behalf_of: str | None = None,
    gm_approves_defending_other: bool = False,
    settings: FaeSettings | None = None,
) -> Declared:
    """Steps 1-3: action, approach, stunts and helpers are fixed before the dice are rolled."""
    s = settings_or_default(settings)
    if sheet.scene_status is not SceneStatus.ACTIVE:
        raise RulesError(
            "actor_out_of_scene",
            f"{sheet.name} está fuera de la escena ({sheet.scene_status.value}) y no puede actuar.",
            f"{sheet.name} is out of the scene ({sheet.scene_status.value}) and cannot act.",
        )
    if action is Action.DEFEND and difficulty is not None:
        raise RulesError(
            "defend_is_opposed",
            "Defender es siempre una reacción a la tirada de otro.",
            "Defend is always a reaction to someone else's roll.",
        )
    if on_behalf_of is not None and not (action is Action.DEFEND and gm_approves_defending_other):
        raise RulesError(
            "defend_for_other_refused",
            "Defender a otro personaje necesita una explicación aprobada por el DJ.",
            "Defending someone else needs an explanation the GM approves.",
        )
    bonus = sum(
        require_applicable(sheet.stunt(k), action, approach, circumstance_confirmed=circumstance_confirmed)
        for k in stunts
    )
    helpers = tuple(helpers)
    cap = s.max_helpers if max_helpers_override is None else max_helpers_override
    check_helpers(actor, helpers, exchange, cap)
    if exchange is not None:
        # Defend is a reaction and does not use the defender's turn; helping does.
        exchange = exchange.mark_acted(*helpers) if action is Action.DEFEND else exchange.mark_acted(actor, *helpers)
    roll = ActionRoll(
        key=key,
        actor=actor,
        action=action,
        approach=approach,
        approach_rating=sheet.rating(approach),
        difficulty=difficulty,
        target=target,
        on_behalf_of=on_behalf_of,
        stunts=tuple(stunts),
        stunt_bonus=bonus,
        helpers=helpers,
    )
    return Declared(roll, exchange)


def roll_dice(roll: ActionRoll, dice: DiceSource) -> ActionRoll:
    """Step 4: the server rolls 4dF; the invocation window opens."""
    if roll.phase is not RollPhase.DECLARED:
        raise RulesError(
            "roll_already_rolled",
            "Esta tirada ya tiene sus dados.",
            "This roll already has its dice.",
        )
    return replace(roll, faces=roll_4df(dice), phase=RollPhase.ROLLED)


def blocks_concession(roll: ActionRoll, character: str) -> bool:
    """A-08: dice on the table aimed at ``character`` must be resolved before they concede."""
    return roll.target == character and roll.window_open


def _not_rolled() -> RulesError:
    return RulesError("roll_not_rolled", "Aún no se han tirado los dados.", "The dice have not been rolled yet.")
