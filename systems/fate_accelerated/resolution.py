"""Step 6: settling an action roll (and its Defend roll) and applying the outcome (spec §3.6, §3.12)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from systems.errors import RulesError
from systems.fate_accelerated.actions import Action, CAMode, Cost, FailChoice
from systems.fate_accelerated.aspects import (
    Aspect,
    FreeInvocationGrant,
    RemovedReason,
    add_grant,
    remove_aspect,
    reveal,
    situation_aspect,
)
from systems.fate_accelerated.ladder import Outcome, classify
from systems.fate_accelerated.outcomes import (
    ActionEffects,
    AspectChange,
    Role,
    resolve_attack,
    resolve_create_advantage,
    resolve_defend,
    resolve_overcome,
)
from systems.fate_accelerated.rolls import ActionRoll, RollPhase
from systems.fate_accelerated.settings import FaeSettings, settings_or_default


@dataclass(frozen=True, slots=True)
class HarmEvent:
    """A hit to absorb (stress.apply_hit): ``defender`` is whoever rolled Defend, or the target."""

    attacker: str
    defender: str | None
    shifts: int
    source_roll: str


@dataclass(frozen=True, slots=True)
class Settlement:
    roll: ActionRoll  # resolved
    defend: ActionRoll | None  # resolved
    total: int
    target: int
    outcome: Outcome
    shifts: int
    defender_outcome: Outcome | None
    defender_shifts: int | None
    effects: ActionEffects
    ca_mode: CAMode | None

    @property
    def defender(self) -> str | None:
        """Who takes any bad result: the character who rolled Defend (maybe for someone else)."""
        return self.defend.actor if self.defend is not None else self.roll.target

    def holder(self, role: Role, opponent: str | None = None) -> str:
        if role is Role.ACTOR:
            return self.roll.actor
        who = self.defender if role is Role.DEFENDER else (opponent or self.defender)
        if who is None:
            # A-13: with passive opposition the GM designates who receives option (b)'s invocation.
            raise RulesError(
                "recipient_required",
                "El DJ debe designar quién recibe la invocación gratuita.",
                "The GM must designate who receives the free invocation.",
            )
        return who

    @property
    def boost_holders(self) -> tuple[str, ...]:
        return tuple(self.holder(r) for r in self.effects.boosts)

    def harm_event(self) -> HarmEvent | None:
        if self.effects.harm <= 0:
            return None
        return HarmEvent(self.roll.actor, self.defender, self.effects.harm, self.roll.key)


def settle_action(
    roll: ActionRoll,
    defend: ActionRoll | None = None,
    *,
    ca_mode: CAMode | None = None,
    fail_choice: FailChoice | None = None,
    trade_shift_for_boost: bool = False,
    settings: FaeSettings | None = None,
) -> Settlement:
    """Close the invocation window and resolve; a resolved roll cannot be settled again."""
    s = settings_or_default(settings)
    _require_open(roll)
    if roll.action is Action.DEFEND:
        raise RulesError(
            "defend_not_active",
            "Una tirada de Defender se resuelve junto con la acción a la que se opone.",
            "A Defend roll is settled together with the action it opposes.",
        )
    if (roll.action is Action.CREATE_ADVANTAGE) != (ca_mode is not None):
        raise RulesError(
            "ca_mode_required",
            "Crear una ventaja necesita un modo (crear, descubrir, sacar ventaja); las demás acciones no.",
            "Create an advantage needs a mode (create, discover, exploit); other actions take none.",
        )
    if defend is None:
        if roll.opposed:
            raise RulesError(
                "defend_roll_required",
                "Esta tirada tiene oposición activa: falta la tirada de Defender.",
                "This roll has active opposition: the Defend roll is missing.",
            )
        total, target = roll.total, roll.target_number
        d_outcome = d_shifts = None
    else:
        _require_open(defend)
        if defend.action is not Action.DEFEND or not roll.opposed:
            raise RulesError(
                "defend_mismatch",
                "Solo una tirada de Defender se opone a una tirada sin dificultad fija.",
                "Only a Defend roll opposes a roll without a fixed difficulty.",
            )
        total, target = roll.total, defend.total
        d_outcome, d_shifts = classify(target, total)
    outcome, shifts = classify(total, target)
    blocked = s.defend_sws_blocks_cost_success and d_outcome is Outcome.SUCCESS_WITH_STYLE
    if (
        outcome is Outcome.FAIL
        and blocked
        and fail_choice in (FailChoice.SUCCESS_AT_MAJOR_COST, FailChoice.GRANT_OPPONENT)
    ):
        # A-12 with the option on: the defender's SwS denies the actor everything it wanted.
        raise RulesError(
            "fail_option_blocked",
            "El éxito crítico del defensor impide esa opción: solo cabe fallar.",
            "The defender's success with style blocks that option: only a plain fail remains.",
        )
    if roll.action is Action.CREATE_ADVANTAGE:
        assert ca_mode is not None
        effects = resolve_create_advantage(ca_mode, outcome, fail_choice)
    elif roll.action is Action.OVERCOME:
        effects = resolve_overcome(outcome, fail_choice)
    else:
        effects = resolve_attack(outcome, shifts, trade_shift_for_boost)
    if d_outcome is not None and resolve_defend(d_outcome).defender_boost:
        effects = effects.with_boost(Role.DEFENDER)
    return Settlement(
        roll=replace(roll, phase=RollPhase.RESOLVED),
        defend=replace(defend, phase=RollPhase.RESOLVED) if defend is not None else None,
        total=total,
        target=target,
        outcome=outcome,
        shifts=shifts,
        defender_outcome=d_outcome,
        defender_shifts=d_shifts,
        effects=effects,
        ca_mode=ca_mode,
    )


def _require_open(roll: ActionRoll) -> None:
    if roll.phase is RollPhase.RESOLVED:
        raise RulesError(
            "roll_already_settled",
            "Esta tirada ya está resuelta.",
            "This roll is already settled.",
        )
    if roll.phase is RollPhase.DECLARED:
        raise RulesError("roll_not_rolled", "Aún no se han tirado los dados.", "The dice have not been rolled yet.")


def apply_advantage(
    settlement: Settlement,
    *,
    aspect: Aspect | None = None,
    new_key: str | None = None,
    new_text: str | None = None,
    scene: int | None = None,
    opponent: str | None = None,
) -> Aspect | None:
    """The aspect after a create-an-advantage: created (``new_key``/``new_text``/``scene``), revealed
    or given free invocations (``aspect``). ``opponent`` is the GM-designated recipient of option (b)
    when nobody rolled Defend. Boosts are named by their holders: see ``Settlement.boost_holders``."""
    effects = settlement.effects
    mode = settlement.ca_mode
    if mode is None:
        raise RulesError(
            "not_an_advantage", "No es una tirada de crear una ventaja.", "Not a create-an-advantage roll."
        )
    result = aspect
    if effects.aspect is AspectChange.CREATE_OR_REVEAL:
        if mode is CAMode.CREATE:
            if not (new_key and new_text and scene is not None):
                raise RulesError(
                    "aspect_text_required",
                    "Escribe el nuevo aspecto temporal.",
                    "Write the new situation aspect.",
                )
            result = situation_aspect(new_key, new_text, scene)
        else:
            result = reveal(_required(aspect))
    elif effects.grants:
        result = _required(aspect)
    for award in effects.grants:
        holder = settlement.holder(award.role, opponent)
        grant = FreeInvocationGrant(
            holder=holder,
            remaining=award.count,
            same_roll_stacking=award.same_roll_stacking,
            source=settlement.roll.key,
        )
        result = add_grant(_required(result), grant)
    return result


def apply_overcome(settlement: Settlement, removing: Aspect | None = None) -> Aspect | None:
    """When the goal was removing a situation aspect, a reached goal removes it and its grants (A-27)."""
    if settlement.roll.action is not Action.OVERCOME:
        raise RulesError("not_an_overcome", "No es una tirada de superar.", "Not an overcome roll.")
    if removing is not None and settlement.effects.goal_reached:
        return remove_aspect(removing, RemovedReason.OVERCOME)
    return removing


def goal_cost(settlement: Settlement) -> Cost | None:
    return settlement.effects.cost


def _required(aspect: Aspect | None) -> Aspect:
    if aspect is None:
        raise RulesError("aspect_required", "Indica el aspecto afectado.", "Name the aspect concerned.")
    return aspect
