"""Offered means legal (issue 22): for every procedure kind the registry lists, in states reached by random
play through ``rolls.runner``, what a viewer is offered is what the runner accepts.

In each state, for the GM and both players, with the actions the page offers them (``flow_views``):

- a step offered **without a reason** is never refused for being unavailable, out of turn or someone else's
  (``step_unavailable``, ``step_not_available``, PermissionDenied), nor with a 500; a button (a step without
  params) succeeds when taken, whatever the state; a step with params succeeds with some params its pickers
  offer (random values the form could send; a refusal of one particular value is that value's error);
- a step offered **with a reason** is refused ``step_unavailable`` with exactly those words;
- a step **not offered** to the viewer never succeeds: it is refused ``step_not_available`` or
  PermissionDenied.

Each probe runs in a savepoint rolled back; then one legal (viewer, step, params) is taken for real and the
walk goes on. Params are what the viewer's form could send: a random pick from each picker it offers, small
numbers and short texts otherwise; ``HINTS`` fills the few forms whose pickers depend on each other (a quality
and its owner, a side and its traits, a split of one pool). Bounded: two derandomized examples per kind, six
steps each, no shrinking, deadline off (about 20 s of CPU for the 16 kinds).

What it found and what was fixed: Presagios' «Declarar peligroso» offered at threat 0 (``NO_THREAT``) and SotC's
invoke/guess/advantage offered to the GM on a roll between two players (``not_your_side``).
"""

from __future__ import annotations

import random
import typing
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from enum import Enum
from typing import Any

import annotated_types
import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from accounts.models import User
from campaigns import policy
from campaigns import services as campaign_services
from characters.models import Character
from rolls import runner
from rolls.models import Flow, FlowStatus
from rolls.selectors import ActionView, flow_views
from rolls.services import RollSpec, create_post_with_rolls
from rulesets import registry
from rulesets.kit.procedures import Procedure
from rulesets.presagios.procedures.common import qualities_of
from rulesets.presagios.rolls import load_sheet
from systems.dice import ScriptedDice, SeededDice
from systems.errors import RulesError
from tests.rulesets.shipped import SHIPPED_GAMES

pytestmark = pytest.mark.django_db

STRUCTURAL = {"step_unavailable", "step_not_available"}
WALK = 6  # steps taken for real per example
TRIES = 5  # params tried for an offered step before calling it refused


@dataclass
class World:
    flow: Flow
    users: tuple[User, ...]  # the GM first, then the players


# --- One opening per procedure kind ----------------------------------------------------------------------


def _sotc(kind: str) -> World:
    from rulesets.fate_sotc.tests.scene_fixtures import PLUS2, ZERO, aspect_ref, build_scene, start

    s = build_scene()
    users = (s.gm, s.t.player, s.t.player2)
    hero, rival = s.t.hero.pk, s.t.rival.pk
    if kind == "invocation":
        post = create_post_with_rolls(
            author=s.t.player,
            scene=s.scene,
            body="Piloto a fondo.",
            voice="character",
            character=s.t.hero,
            rolls=[RollSpec(kind="simple", data={"skill": "academics", "difficulty": 3}, character_id=hero)],
            dice=ScriptedDice(ZERO),
        )
        return World(start(s.t.player, s.scene, "invocation", roll=post.rolls.get().pk), users)
    if kind == "compel":
        return World(start(s.gm, s.scene, "compel", character=hero, aspect=aspect_ref(s.t.hero)), users)
    if kind == "attack":
        params = {"attacker": hero, "skill": "guns", "defender": rival, "defense_skill": "athletics"}
        return World(start(s.t.player, s.scene, "attack", dice=PLUS2 + ZERO, **params), users)
    if kind == "advantage":
        params = {"character": hero, "skill": "athletics", "target": str(rival), "text": "Fuera de equilibrio"}
        return World(
            start(s.t.player, s.scene, "advantage", dice=PLUS2 + ZERO, defense_skill="athletics", **params), users
        )
    return World(start(s.t.player, s.scene, "declaration", character=hero, text="Llevo un mechero encima."), users)


def _fae(kind: str) -> World:
    from rulesets.fate_accelerated.tests.roll_fixtures import build_scene

    fae = build_scene()
    users = (fae.gm, fae.player, fae.player2)
    campaign_services.add_scene_aspect(actor=fae.gm, scene=fae.scene, text="Multitud enfurecida")
    if kind == "action":
        params: dict[str, Any] = {"character": fae.bruno.pk, "action": "attack", "target": fae.ana.pk}
        opener = fae.gm
    elif kind == "compel":
        params = {
            "target": fae.ana.pk,
            "aspect": f"character:{fae.ana.pk}:trouble",
            "kind": "decision",
            "proposal": "Te quedas con tu hermano.",
        }
        opener = fae.gm
    else:
        params, opener = {"character": fae.ana.pk, "terms": "Huyo."}, fae.player
    return World(runner.start_procedure(actor=opener, scene=fae.scene, kind=kind, params=params), users)


def _event(kind: str) -> World:
    from rulesets.event.tests.roll_fixtures import RULES, build_event_roll_table

    t = build_event_roll_table(rules={**RULES, "optional": {"reactions": {"enabled": True}}})
    users = (t.gm, t.daria, t.paco, t.jenny)
    if kind == "action":
        params: dict[str, Any] = {"character": t.gorton.pk, "difficulty": 3}
        opener = t.gm
    elif kind == "desafio":
        params = {"ability": "Destreza", "participants": [{"character": t.khan.pk}, {"character": t.valy.pk}]}
        opener = t.gm
    else:
        params, opener = {"character": t.gorton.pk, "text": "Si me atacan, me defiendo."}, t.paco
    return World(runner.start_procedure(actor=opener, scene=t.scene, kind=kind, params=params), users)


def _presagios(kind: str) -> World:
    from rulesets.presagios.tests.rolls_fixtures import build, challenge, conflict

    t = build()
    users = (t.gm, t.player, t.player2)
    if kind == "challenge":
        return World(challenge(t, t.lucia, 5, challenge="Saltar el foso"), users)
    return World(conflict(t, t.lucia, t.cosa), users)


def _dryh(kind: str) -> World:
    from rulesets.dont_rest_your_head.tests.rolls_fixtures import build_dryh_rolls

    t = build_dryh_rolls()
    t.set_chest(hope=6, despair=2)
    users = (t.gm, t.player, t.player2)
    if kind == "conflict":
        return World(t.open(helpers=[t.gavin.pk]), users)
    if kind == "breather":
        t.set_sheet(t.alia, exhaustion=2)
        params: dict[str, Any] = {"character": t.alia.pk, "exhaustion": 1}
        return World(runner.start_procedure(actor=t.player, scene=t.scene, kind="breather", params=params), users)
    t.set_sheet(t.gavin, discipline=2, permanent_madness=1)
    params = {"character": t.gavin.pk}
    return World(runner.start_procedure(actor=t.player2, scene=t.scene, kind="recovery", params=params), users)


OPENINGS: dict[str, Callable[[str], World]] = {
    "fate-sotc": _sotc,
    "fate-accelerated": _fae,
    "event": _event,
    "presagios": _presagios,
    "dont-rest-your-head": _dryh,
}


def _kinds() -> list[str]:
    return sorted(
        f"{key}/{name}"
        for key, plugin in registry.plugins().items()
        if key in SHIPPED_GAMES
        for name in plugin.procedures
    )


def test_every_kind_the_registry_lists_is_walked() -> None:
    assert len(_kinds()) == 16 and {k.split("/")[0] for k in _kinds()} == set(OPENINGS)


# --- Params a viewer's form could send -------------------------------------------------------------------


def _types(annotation: Any) -> list[Any]:
    args = typing.get_args(annotation)
    return (
        [a for a in args if a is not type(None)]
        if args and typing.get_origin(annotation) in (typing.Union, type(int | None))
        else [annotation]
    )


def _bounds(field: FieldInfo) -> tuple[int, int]:
    """Small numbers a form would send, inside the field's bounds."""
    low, high = 0, 6
    for meta in field.metadata:
        if isinstance(meta, annotated_types.Ge):
            low = int(meta.ge)  # type: ignore[call-overload]
        if isinstance(meta, annotated_types.Gt):
            low = int(meta.gt) + 1  # type: ignore[call-overload]
        if isinstance(meta, annotated_types.Le):
            high = int(meta.le)  # type: ignore[call-overload]
    low = max(low, min(high, 0))
    return low, max(low, min(high, low + 6))


def _filler(field: FieldInfo, rng: random.Random) -> Any:
    kind = _types(field.annotation)[0]
    origin = typing.get_origin(kind)
    if kind is bool:
        return rng.choice([True, False])
    if kind is int:
        return rng.randint(*_bounds(field))
    if isinstance(kind, type) and issubclass(kind, Enum):
        return rng.choice(list(kind)).value
    if origin is typing.Literal:
        return rng.choice(typing.get_args(kind))
    if origin in (list, tuple, set):
        return []
    return "Algo que cuenta la escena"


def _is_list(field: FieldInfo) -> bool:
    return any(typing.get_origin(t) in (list, tuple, set) for t in _types(field.annotation))


def _params(model: type[BaseModel], action: ActionView, rng: random.Random) -> dict[str, Any]:
    chosen: dict[str, Any] = {}
    for name, field in model.model_fields.items():
        options = [c.value for c in action.choices.get(name, ())]
        if options:
            if _is_list(field):  # an optional list is often left empty (a stunt applies only sometimes)
                size = 1 if field.is_required() else rng.choice([0, 0, 1])
                chosen[name] = rng.sample(options, min(size, len(options)))
            elif field.is_required() or rng.random() < 0.7:
                chosen[name] = rng.choice(options)
        elif field.is_required() or (rng.random() < 0.4 and _types(field.annotation)[0] in (str, bool)):
            chosen[name] = _filler(field, rng)
    return chosen


def _presagios_force(flow: Flow, user: User, action: ActionView, rng: random.Random) -> dict[str, Any]:
    """The force form's pickers are one list each (whose quality, which kind, its text): the form sends one
    quality that is on its owner's sheet."""
    offered = [int(c.value) for c in action.choices.get("quality_owner", ())]
    owned = []
    for character in Character.objects.filter(pk__in=offered):
        for kind, texts in qualities_of(load_sheet(character.sheet, character.name)).items():
            owned += [(character.pk, kind, text) for text in texts]
    owner, kind, text = rng.choice(owned)
    chosen = {"force": rng.choice(["success", "failure"]), "quality_owner": owner, "quality": str(kind)}
    payers = [c.value for c in action.choices.get("activator", ())]
    sides = [c.value for c in action.choices.get("side", ())]
    if sides:
        chosen["side"] = rng.choice(sides)
    return {**chosen, "quality_text": text, **({"activator": rng.choice(payers)} if payers else {})}


def _presagios_judge(flow: Flow, user: User, action: ActionView, rng: random.Random) -> dict[str, Any]:
    """One side's traits at a time (the picker lists every open side's): the GM rules on that side's."""
    sides = [c.value for c in action.choices.get("side", ())]
    return {"side": rng.choice(sides), "accepted": []} if sides else {"accepted": []}


def _event_split(flow: Flow, user: User, action: ActionView, rng: random.Random) -> dict[str, Any]:
    """A desafío split: one of the viewer's seats, its whole pool between the two fists."""
    seat = rng.choice([c.value for c in action.choices.get("participant", ())])
    pool = next(p["pool"] for p in flow.state["participants"] if p["id"] == seat)
    left = rng.randint(0, pool)
    return {"participant": seat, "left": left, "right": pool - left}


def _fae_invoke(flow: Flow, user: User, action: ActionView, rng: random.Random) -> dict[str, Any]:
    """A paid invocation that fits the invoker: the roll's own characters help their own roll; anyone else
    opposes the action (the form's effect picker offers all four to everyone)."""
    chosen: dict[str, Any] = {
        "aspect": rng.choice([c.value for c in action.choices["aspect"]]),
        "payment": "fate_point",
        "justification": "Así ayuda aquí.",
    }
    mine = {int(c.value) for c in action.choices.get("character", ())}
    state = flow.state
    if mine & {state["character"], state.get("target")}:
        chosen["effect"] = "bonus"
    elif mine:
        chosen |= {"effect": "oppose", "character": rng.choice(sorted(mine))}
    else:
        chosen["effect"] = "bonus"  # the GM, for the NPC in the roll
    return chosen


def _sotc_own_side(flow: Flow, user: User, action: ActionView, rng: random.Random) -> dict[str, Any]:
    """A side acts on its own roll: the form preselects the viewer's side (the GM's: an NPC's)."""
    gm = policy.viewer_for(user, flow.campaign).is_gm
    mine = [k for k, side in flow.state["sides"].items() if side["actor"] == user.pk or (gm and side["actor"] == "gm")]
    chosen: dict[str, Any] = {"side": rng.choice(mine)} if mine else {}
    if "aspect" in action.choices:
        chosen |= {"aspect": rng.choice([c.value for c in action.choices["aspect"]]), "payment": "paid"}
        chosen["mode"] = rng.choice(["bonus", "reroll"])
    return chosen


# Steps whose pickers are related (one choice narrows another): how the form fills them in.
HINTS: dict[str, Callable[[Flow, User, ActionView, random.Random], dict[str, Any]]] = {
    "presagios/force": _presagios_force,
    "presagios/judge_traits": _presagios_judge,
    "event/commit": _event_split,
    "event/reveal": lambda flow, user, action, rng: {"text": "Si me atacan, me defiendo."},  # the sealed words
    "event/amend": _event_split,
    "fate-accelerated/invoke": _fae_invoke,
    "fate-sotc/invoke": _sotc_own_side,
    "fate-sotc/advantage": _sotc_own_side,
    "fate-sotc/guess": lambda flow, user, action, rng: {
        **_sotc_own_side(flow, user, action, rng),
        "text": "Tiene miedo a las alturas",
        "justification": "Lo he visto dudar en el puente.",
    },
}


# --- Probing ---------------------------------------------------------------------------------------------


class _Undo(Exception):
    pass


def _try(user: User, flow: Flow, step: str, params: dict[str, Any], seed: int) -> Exception | None:
    """Take the step in a savepoint rolled back: None when it succeeded, else what refused it."""
    try:
        with transaction.atomic():
            runner.take_step(actor=user, flow=flow, step=step, params=params, dice=SeededDice(seed))
            raise _Undo
    except _Undo:
        return None
    except (RulesError, ValidationError, PermissionDenied) as refused:
        return refused


def _code(error: Exception) -> str:
    if isinstance(error, RulesError):
        return error.code
    return "permission_denied" if isinstance(error, PermissionDenied) else "invalid_params"


def _offered(user: User, flow: Flow) -> dict[str, ActionView]:
    (view,) = flow_views(policy.viewer_for(user, flow.campaign), [flow], "es")
    return {action.step: action for action in view.actions}


@contextmanager
def _rolled_back() -> Iterator[None]:
    """One example's whole world, undone afterwards (the next example starts from an empty database)."""
    try:
        with transaction.atomic():
            yield
            raise _Undo
    except _Undo:
        pass


def _check_state(world: World, procedure: Procedure[Any], rng: random.Random) -> list[tuple[User, str, dict[str, Any]]]:
    """Probe what each viewer is offered in the flow's current state; return what may be taken."""
    flow = world.flow
    legal: list[tuple[User, str, dict[str, Any]]] = []
    keys = [step.key for step in procedure.steps]
    for user in world.users:
        offered = _offered(user, flow)
        where = f"{flow.kind} phase={flow.state.get('phase')} user={user.username}"
        for key in keys:
            action = offered.get(key)
            step = procedure.step(key)
            if action is None:
                if rng.random() < 0.25:  # a sample of what is not offered: it never succeeds
                    refused = _try(user, flow, key, {}, rng.randrange(1 << 30))
                    assert refused is not None, f"{where}: {key} succeeded though not offered"
                    assert _code(refused) in {"step_not_available", "permission_denied"}, (where, key, refused)
                continue
            if action.unavailable:
                refused = _try(user, flow, key, _params(step.params, action, rng), rng.randrange(1 << 30))
                assert refused is not None and _code(refused) == "step_unavailable", (where, key, refused)
                assert isinstance(refused, RulesError) and refused.message_es == action.unavailable, (where, key)
                continue
            errors: list[str] = []
            hint = HINTS.get(f"{flow.campaign.ruleset}/{key}")
            for _attempt in range(1 if not step.params.model_fields else TRIES):
                params = hint(flow, user, action, rng) if hint else _params(step.params, action, rng)
                refused = _try(user, flow, key, params, rng.randrange(1 << 30))
                if refused is None:
                    legal.append((user, key, params))
                    break
                assert _code(refused) not in STRUCTURAL | {"permission_denied"}, (where, key, params, refused)
                errors.append(f"{params} -> {_code(refused)}: {refused}")
            else:
                assert step.params.model_fields, f"{where}: the button {key} is offered but refused: {errors}"
                assert False, f"{where}: {key} is offered but no params its form offers were accepted: {errors}"
    return legal


@pytest.mark.parametrize("kind", _kinds())
@settings(
    max_examples=2,
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # a failing walk is read, not shrunk (too costly)
    derandomize=True,  # the same walks on every run: a failure is a finding, never a flake
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(seed=st.integers(min_value=0, max_value=2**31))
def test_what_is_offered_is_what_the_runner_accepts(kind: str, seed: int) -> None:
    game, name = kind.split("/")
    procedure = registry.plugin(game).procedure(name)
    rng = random.Random(seed)
    with _rolled_back():
        world = OPENINGS[game](name)
        taken = 0
        for _n in range(WALK):
            world.flow = Flow.objects.select_related("campaign", "scene").get(pk=world.flow.pk)
            if world.flow.status != FlowStatus.OPEN:
                break
            legal = _check_state(world, procedure, rng)
            if not legal:
                break
            user, key, params = rng.choice(legal)
            runner.take_step(
                actor=user, flow=world.flow, step=key, params=params, dice=SeededDice(rng.randrange(1 << 30))
            )
            taken += 1
        assert taken, f"{kind}: nothing offered at the opening could be taken"
