"""``advantage`` (maniobra): a maneuver on a character (the target accepts the aspect or pays a fate point
to avoid it, then the GM places it, fragile or sticky) or on the scene (the GM places a scene aspect); the
maneuverer gets its free invocation. A tie fails (§3.5)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from pydantic import Field

from campaigns import policy
from rulesets.fate_sotc.procedures.common import (
    Params,
    Side,
    ladder,
    line,
    own_character_choices,
    rating_of,
    resolve_skill,
    settings_of,
    side_from_roll,
    skill_choices,
    skill_name,
    wallet_of,
)
from rulesets.fate_sotc.procedures.results import one_side, two_sides
from rulesets.fate_sotc.procedures.window import SideKey, WindowState, close_record, spin_available, window_steps
from rulesets.kit.procedures import (
    AddAspect,
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
from systems.fate_sotc.aspects import Persistence
from systems.fate_sotc.maneuvers import resolve_maneuver_on_character
from systems.fate_sotc.resolution import resolve_opposed, resolve_simple
from systems.registry import Names

SCENE: Literal["scene"] = "scene"


class AdvantageState(WindowState):
    target: Literal["scene"] | int
    text: str
    difficulty: int | None = None
    shifts: int = 0
    placed: bool | None = None
    persistence: Persistence | None = None


class AdvantageOpen(Params):
    character: int
    skill: str = Field(min_length=1, max_length=40)
    target: str = Field(min_length=1, max_length=20)  # the scene, or a character (picked by name)
    defense_skill: str = Field(default="", max_length=40)
    difficulty: int | None = Field(default=None, ge=-10, le=20)
    text: str = Field(min_length=1, max_length=120)


class PlaceParams(Params):
    text: str = Field(default="", max_length=120)
    sticky: bool = False


def _target(given: OpeningInput[AdvantageOpen]) -> CharacterFacts | None:
    target = given.params.target
    if target == SCENE:
        return None
    if not target.isdigit():
        raise refuse("invalid_target", "Elige el objetivo de la maniobra.", "Choose the maneuver's target.")
    return given.table.character(int(target))


def open_advantage(given: OpeningInput[AdvantageOpen]) -> Outcome[AdvantageState]:
    chosen, table = given.params, given.table
    settings = settings_of(table)
    character = table.character(chosen.character)
    if not policy.controls_character(given.viewer, character):
        raise refuse(
            "not_your_side", "Solo maniobras con tu propio personaje.", "You maneuver with your own character."
        )
    skill = resolve_skill(chosen.skill, settings)
    target = _target(given)
    label = _("Maniobra de %(a)s: «%(text)s»") % {"a": character.name, "text": chosen.text[:60]}
    if target is None:
        difficulty = chosen.difficulty if chosen.difficulty is not None else settings.default_simple_difficulty
        data: dict[str, Any] = {"skill": skill, "difficulty": difficulty}
        roll = given.roll(RollSpec(kind="simple", data=data, character_id=character.id, label=label))
        sides: dict[SideKey, Side] = {"a": side_from_roll(roll, 0, character, skill)}
        state = AdvantageState(
            roll=roll.id,
            sides=sides,
            target=SCENE,
            difficulty=difficulty,
            text=chosen.text,
            spin_use=spin_available(table),
        )
        words = line(
            lambda: (
                _("%(name)s maniobra con %(skill)s para crear «%(text)s» en la escena (dificultad %(d)s)")
                % {
                    "name": character.name,
                    "skill": skill_name(settings, skill),
                    "text": chosen.text,
                    "d": ladder(difficulty),
                }
            ),
            rolls=[roll.id],
        )
        return Outcome(state=state, record=[words])
    defense = resolve_skill(chosen.defense_skill, settings, "defense_skill") if chosen.defense_skill else ""
    data = {
        "skill": skill,
        "opposition": rating_of(target, defense) if defense else 0,
        "opposition_skill": defense or None,
        "opposition_name": target.name,
    }
    roll = given.roll(RollSpec(kind="maneuver", data=data, character_id=character.id, label=label))
    both: dict[SideKey, Side] = {
        "a": side_from_roll(roll, 0, character, skill),
        "b": side_from_roll(roll, 1, target, defense),
    }
    state = AdvantageState(
        roll=roll.id,
        sides=both,
        target=target.id,
        text=chosen.text,
        spin_use=spin_available(table),
    )
    words = line(
        lambda: (
            _("%(name)s maniobra con %(skill)s para dejar «%(text)s» sobre %(target)s")
            % {"name": character.name, "skill": skill_name(settings, skill), "text": chosen.text, "target": target.name}
        ),
        rolls=[roll.id],
    )
    return Outcome(state=state, record=[words])


def after_close(given: StepInput[AdvantageState, NoParams], state: AdvantageState) -> Outcome[AdvantageState]:
    settings = settings_of(given.table)
    a = state.sides["a"]
    if state.target == SCENE:
        difficulty = int(state.difficulty or 0)
        final = one_side(state, given.table, difficulty, hidden=False)
        succeeded = resolve_simple(a.effort, difficulty, settings).success
        shifts = a.effort - difficulty
    else:
        final = two_sides(state, given.table, "maneuver")
        outcome = resolve_opposed(a.effort, state.sides["b"].effort, settings)
        succeeded = outcome.winner == "a" and outcome.shifts >= 1  # a tie fails (§3.5)
        shifts = outcome.shifts if outcome.winner == "a" else 0
    follow, record = close_record(state, final)
    state = state.model_copy(update={"shifts": max(0, shifts), "final": final})
    if not succeeded:
        done = state.model_copy(update={"phase": "done", "placed": False})
        return Outcome(state=done, closes="settled", follow_ups=[follow], record=[record])
    phase = "place" if state.target == SCENE else "target"
    return Outcome(state=state.model_copy(update={"phase": phase}), follow_ups=[follow], record=[record])


# --- The target answers, the GM places ---------------------------------------------------------------


def _maneuver(given: StepInput[AdvantageState, Any], text: str, avoids: bool, sticky: bool = False) -> Any:
    state = given.state
    a, b = state.sides["a"], state.sides["b"]
    target = given.table.character(b.character_id)
    return resolve_maneuver_on_character(
        a.effort,
        b.effort,
        aspect_id=f"m{given.procedure_id}",
        proposed_text=text,
        maneuverer_id=str(a.character_id),
        target_id=str(target.id),
        target=wallet_of(target),
        target_avoids=avoids,
        gm_wants_sticky=sticky,
        scene_id=str(given.table.scene_id),
        settings=settings_of(given.table),
    )


def run_avoid(given: StepInput[AdvantageState, NoParams]) -> Outcome[AdvantageState]:
    state = given.state
    target = given.table.character(state.sides["b"].character_id)
    _maneuver(given, state.text, avoids=True)  # the rules refuse without a point
    op = LedgerOp("avoid_maneuver_aspect", {}, target.id, (_("Evita «%(text)s»") % {"text": state.text})[:300])
    words = in_both(
        lambda: (
            _("%(name)s paga un punto de destino y evita el aspecto «%(text)s»")
            % {"name": target.name, "text": state.text}
        )
    )
    follow = FollowUp(state.roll, "aspect_avoided", words, character_id=target.id)
    done = state.model_copy(update={"phase": "done", "placed": False})
    return Outcome(state=done, closes="settled", ledger=[op], follow_ups=[follow], record=[RecordLine(words)])


def run_accept(given: StepInput[AdvantageState, NoParams]) -> Outcome[AdvantageState]:
    state = given.state
    target = state.sides["b"]
    words = in_both(
        lambda: _("%(name)s acepta el aspecto «%(text)s»; el DJ lo aprueba") % {"name": target.name, "text": state.text}
    )
    follow = FollowUp(state.roll, "aspect_accepted", words, character_id=target.character_id)
    return Outcome(state=state.model_copy(update={"phase": "place"}), follow_ups=[follow], record=[RecordLine(words)])


def run_deny(given: StepInput[AdvantageState, NoParams]) -> Outcome[AdvantageState]:
    state = given.state
    words = in_both(lambda: _("El DJ no aprueba el aspecto «%(text)s»") % {"text": state.text})
    follow = FollowUp(state.roll, "aspect_denied", words)
    done = state.model_copy(update={"phase": "done", "placed": False})
    return Outcome(state=done, closes="settled", follow_ups=[follow], record=[RecordLine(words)])


def _place_on_scene(given: StepInput[AdvantageState, PlaceParams], text: str) -> Outcome[AdvantageState]:
    state = given.state
    maneuverer = state.sides["a"]
    words = in_both(
        lambda: (
            _("Nuevo aspecto de escena «%(text)s», con 1 invocación gratuita para %(name)s")
            % {"text": text, "name": maneuverer.name}
        )
    )
    follow = FollowUp(state.roll, "aspect_placed", words, character_id=maneuverer.character_id)
    done = state.model_copy(update={"phase": "done", "placed": True, "text": text})
    return Outcome(
        state=done,
        closes="settled",
        board=[AddAspect(text, free_invocations=1)],
        follow_ups=[follow],
        record=[RecordLine(words)],
    )


def _placed_words(text: str, target: str, maneuverer: str, sticky: bool, denied: bool) -> Names:
    values = {"text": text, "target": target, "name": maneuverer}

    def render() -> str:
        words = (
            _("«%(text)s» (duradero) sobre %(target)s, con 1 invocación gratuita para %(name)s")
            if sticky
            else _("«%(text)s» (efímero) sobre %(target)s, con 1 invocación gratuita para %(name)s")
        ) % values
        if denied:
            words += _(" (el DJ lo quería duradero, pero hace falta un éxito crítico)")
        return words

    return in_both(render)


def run_place(given: StepInput[AdvantageState, PlaceParams]) -> Outcome[AdvantageState]:
    state = given.state
    text = given.params.text.strip() or state.text
    if state.target == SCENE:
        return _place_on_scene(given, text)
    target = given.table.character(state.sides["b"].character_id)
    maneuverer = state.sides["a"]
    outcome = _maneuver(given, text, avoids=False, sticky=given.params.sticky)
    if outcome.aspect is None:
        raise refuse("nothing_to_place", "No hay aspecto que colocar.", "There is no aspect to place.")
    reason = (_("Maniobra de %(name)s") % {"name": maneuverer.name})[:300]
    op = LedgerOp("add_temporary_aspect", {"aspect": outcome.aspect.model_dump(mode="json")}, target.id, reason)
    sticky = outcome.aspect.persistence is Persistence.STICKY
    words = _placed_words(text, target.name, maneuverer.name, sticky, bool(outcome.sticky_denied))
    follow = FollowUp(
        state.roll,
        "aspect_placed",
        words,
        data={"aspect_id": outcome.aspect.id, "persistence": outcome.aspect.persistence.value},
        character_id=target.id,
    )
    done = state.model_copy(
        update={"phase": "done", "placed": True, "text": text, "persistence": outcome.aspect.persistence}
    )
    return Outcome(state=done, closes="settled", ledger=[op], follow_ups=[follow], record=[RecordLine(words)])


# --- The table ---------------------------------------------------------------------------------------


def _target_actor(state: AdvantageState) -> set[Actor]:
    return {state.sides["b"].actor} if state.phase == "target" else set()


def _gm_places(state: AdvantageState) -> set[Actor]:
    return {GM} if state.phase == "place" else set()


def opening_choices(table: Table, viewer: policy.Viewer) -> Mapping[str, Sequence[Choice]]:
    settings = settings_of(table)
    targets = [Choice(SCENE, _("La escena"))] + [
        Choice(str(c.id), c.name) for c in sorted(table.characters.values(), key=lambda c: c.name) if c.approved
    ]
    return {
        "character": own_character_choices(table, viewer),
        "skill": skill_choices(settings),
        "target": targets,
        "defense_skill": skill_choices(settings),
    }


FIELDS = "fate_sotc/procedures/fields/"

ADVANTAGE: Procedure[Any] = Procedure(
    key="advantage",
    title=gettext_lazy("Maniobra"),
    state=AdvantageState,
    reads=Reads(board=True, earlier_procedures=True),
    opening=Opening(params=AdvantageOpen, run=open_advantage, choices=opening_choices),
    steps=(
        *window_steps(after_close),
        Step(
            key="accept",
            label=gettext_lazy("Aceptar el aspecto"),
            params=NoParams,
            who=_target_actor,
            run=run_accept,
            waiting=lambda s, t: in_both(
                lambda: (
                    _("%(name)s: aceptar el aspecto «%(text)s» o pagar un punto de destino para evitarlo")
                    % {"name": s.sides["b"].name, "text": s.text}
                )
            ),
        ),
        Step(
            key="avoid",
            label=gettext_lazy("Pagar un punto de destino para evitarlo"),
            params=NoParams,
            who=_target_actor,
            run=run_avoid,
            awaited=False,
        ),
        Step(
            key="place",
            label=gettext_lazy("Aprobar el aspecto"),
            params=PlaceParams,
            who=_gm_places,
            run=run_place,
            form=FIELDS + "place.html",
            waiting=lambda s, t: in_both(
                lambda: _("El DJ aprueba el aspecto «%(text)s» (efímero o duradero)") % {"text": s.text}
            ),
        ),
        Step(
            key="deny",
            label=gettext_lazy("No aprobarlo"),
            params=NoParams,
            who=_gm_places,
            run=run_deny,
            awaited=False,
        ),
    ),
)
