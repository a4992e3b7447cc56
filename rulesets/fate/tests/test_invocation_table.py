"""Every cell of ``rulesets/fate/invocations.md``: who an invocation helps, in a contest and against a fixed
difficulty, for every effect, in both FATE games, through ``rolls.runner``. Each test id is the cell's id."""

from __future__ import annotations

from typing import Any

import pytest

from campaigns import services as campaign_services
from rolls import runner
from rolls.models import Flow
from rolls.services import RollSpec, create_post_with_rolls
from rulesets.fate_accelerated.tests.roll_fixtures import FaeScene, fate
from rulesets.fate_accelerated.tests.roll_fixtures import build_scene as build_fae
from rulesets.fate_accelerated.tests.roll_fixtures import step as fae_step
from rulesets.fate_sotc.tests.scene_fixtures import PLUS2, ZERO, SotcScene, aspect_ref, sheet, start
from rulesets.fate_sotc.tests.scene_fixtures import build_scene as build_sotc
from rulesets.fate_sotc.tests.scene_fixtures import step as sotc_step
from systems.dice import ScriptedDice
from systems.errors import RulesError

pytestmark = pytest.mark.django_db

# --- Fate Accelerated ------------------------------------------------------------------------------------


def _fae_contest(fae: FaeScene) -> Flow:
    """Bruno (forceful +2, faces ++00) attacks Ana (quick +2, faces +000): A 4 vs D 3."""
    flow = runner.start_procedure(
        actor=fae.gm,
        scene=fae.scene,
        kind="action",
        params={"character": fae.bruno.pk, "action": "attack", "target": fae.ana.pk},
    )
    flow = fae_step(fae.gm, flow, "roll", {"approach": "forceful"}, dice=fate("++00"))
    flow = fae_step(fae.player, flow, "defend", {"approach": "quick"}, dice=fate("+000"))
    assert (flow.state["total"], flow.state["defense_total"]) == (4, 3)
    return flow


def _fae_fixed(fae: FaeScene) -> Flow:
    """Ana's overcome (quick +2, faces 0000) against difficulty 3: total 2."""
    create_post_with_rolls(
        author=fae.player,
        scene=fae.scene,
        body="Salto.",
        rolls=[RollSpec(kind="overcome", data={"approach": "quick", "difficulty": 3}, character_id=fae.ana.pk)],
        dice=fate("0000"),
    )
    flow = runner.start_procedure(actor=fae.player, scene=fae.scene, kind="action", params={})
    assert (flow.state["total"], flow.state["outcome"], flow.state["shifts"]) == (2, "fail", -1)
    return flow


def _fae_invoke(fae: FaeScene, flow: Flow, who: str, effect: str, roll: str | None, **more: Any) -> Flow:
    actor = {"gm": fae.gm, "ana": fae.player, "carla": fae.player2}[who]
    aspect = campaign_services.add_scene_aspect(actor=fae.gm, scene=fae.scene, text=f"Niebla {effect} {who}")
    params: dict[str, Any] = {"aspect": f"scene:{aspect.pk}", "effect": effect, "justification": "Así ayuda."}
    if roll is not None:
        params["roll"] = roll
    return fae_step(actor, flow, "invoke", {**params, **more})


# (cell, contest?, invoker, effect, roll, expected (A, D) or (total, shifts))
FAE_CELLS = [
    ("fae-contest-bonus-attacker", True, "gm", "bonus", None, (6, 3)),
    ("fae-contest-bonus-defender", True, "ana", "bonus", None, (4, 5)),
    ("fae-contest-aid-defence", True, "carla", "aid_ally", "defense", (4, 5)),
    ("fae-contest-oppose-attack", True, "carla", "oppose", "action", (4, 5)),
    ("fae-contest-oppose-defence", True, "gm", "oppose", "defense", (6, 3)),
    ("fae-fixed-bonus", False, "ana", "bonus", None, (4, 1)),
    ("fae-fixed-aid", False, "carla", "aid_ally", "action", (4, 1)),
    ("fae-fixed-oppose", False, "gm", "oppose", None, (2, -3)),
]


@pytest.mark.parametrize(
    ("cell", "contest", "who", "effect", "roll", "expected"), FAE_CELLS, ids=[c[0] for c in FAE_CELLS]
)
def test_fae_cell(cell: str, contest: bool, who: str, effect: str, roll: str | None, expected: tuple[int, int]) -> None:
    fae = build_fae(prefix="fit_")
    flow = _fae_contest(fae) if contest else _fae_fixed(fae)
    flow = _fae_invoke(fae, flow, who, effect, roll)
    second = flow.state["defense_total"] if contest else flow.state["shifts"]
    assert (flow.state["total"], second) == expected


def test_fae_cell_reroll_in_a_contest_changes_only_the_invokers_dice() -> None:
    """fae-contest-reroll-defender"""
    fae = build_fae(prefix="fit_")
    flow = _fae_invoke(fae, _fae_contest(fae), "ana", "reroll", None)  # the scripted dice are gone: any faces
    assert flow.state["total"] == 4 and flow.state["defend"]["face_history"] == ["+000"]
    assert flow.state["roll"]["face_history"] == []


def test_fae_cell_reroll_against_a_fixed_difficulty() -> None:
    """fae-fixed-reroll"""
    fae = build_fae(prefix="fit_")
    flow = _fae_fixed(fae)
    aspect = campaign_services.add_scene_aspect(actor=fae.gm, scene=fae.scene, text="Viento a favor")
    params = {"aspect": f"scene:{aspect.pk}", "effect": "reroll", "justification": "Así ayuda."}
    flow = fae_step(fae.player, flow, "invoke", params, dice=fate("++++"))
    assert flow.state["total"] == 6 and flow.state["roll"]["face_history"] == ["0000"]


@pytest.mark.parametrize(
    ("cell", "who", "effect", "roll", "code"),
    [
        ("fae-refused-bonus-other", "carla", "bonus", "action", "invoke_effect_not_own_roll"),
        ("fae-refused-aid-own", "ana", "aid_ally", "action", "invoke_effect_own_roll"),
        ("fae-refused-oppose-own", "ana", "oppose", "action", "invoke_effect_own_roll"),
    ],
    ids=["fae-refused-bonus-other", "fae-refused-aid-own", "fae-refused-oppose-own"],
)
def test_fae_refused_cell(cell: str, who: str, effect: str, roll: str, code: str) -> None:
    fae = build_fae(prefix="fit_")
    flow = _fae_fixed(fae)
    with pytest.raises(RulesError) as exc:
        _fae_invoke(fae, flow, who, effect, roll)
    assert exc.value.code == code


# --- Spirit of the Century ---------------------------------------------------------------------------------


def _sotc_contest(s: SotcScene) -> Flow:
    """Sally (Puntería 5) attacks Jet (Atletismo 4), both dice +0: a 5 vs b 4."""
    params = {"attacker": s.t.hero.pk, "skill": "guns", "defender": s.t.rival.pk, "defense_skill": "athletics"}
    flow = start(s.t.player, s.scene, "attack", dice=ZERO + ZERO, **params)
    assert (flow.state["sides"]["a"]["effort"], flow.state["sides"]["b"]["effort"]) == (5, 4)
    return flow


def _sotc_fixed(s: SotcScene) -> Flow:
    """Sally's Educación (+3) roll, dice +0, against difficulty 5."""
    post = create_post_with_rolls(
        author=s.t.player,
        scene=s.scene,
        body="Estudio el mapa.",
        voice="character",
        character=s.t.hero,
        rolls=[RollSpec(kind="simple", data={"skill": "academics", "difficulty": 5}, character_id=s.t.hero.pk)],
        dice=ScriptedDice(ZERO),
    )
    flow = start(s.t.player, s.scene, "invocation", roll=post.rolls.get().pk)
    assert flow.state["sides"]["a"]["effort"] == 3
    return flow


def _efforts(flow: Flow) -> tuple[int, ...]:
    return tuple(flow.state["sides"][k]["effort"] for k in ("a", "b") if k in flow.state["sides"])


@pytest.mark.parametrize(
    ("cell", "contest", "side", "mode", "dice", "expected"),
    [
        ("sotc-contest-bonus-attacker", True, "a", "bonus", None, (7, 4)),
        ("sotc-contest-bonus-defender", True, "b", "bonus", None, (5, 6)),
        ("sotc-contest-reroll-defender", True, "b", "reroll", PLUS2, (5, 6)),
        ("sotc-fixed-bonus", False, "a", "bonus", None, (5,)),
        ("sotc-fixed-reroll", False, "a", "reroll", PLUS2, (5,)),
    ],
    ids=[
        "sotc-contest-bonus-attacker",
        "sotc-contest-bonus-defender",
        "sotc-contest-reroll-defender",
        "sotc-fixed-bonus",
        "sotc-fixed-reroll",
    ],
)
def test_sotc_cell(
    cell: str, contest: bool, side: str, mode: str, dice: list[int] | None, expected: tuple[int, ...]
) -> None:
    s = build_sotc()
    flow = _sotc_contest(s) if contest else _sotc_fixed(s)
    character, user = (s.t.hero, s.t.player) if side == "a" else (s.t.rival, s.t.player2)
    flow = sotc_step(user, flow, "invoke", side=side, aspect=aspect_ref(character), mode=mode)
    flow = sotc_step(s.gm, flow, "approve", dice=dice)
    assert _efforts(flow) == expected
    if mode == "reroll":
        assert flow.state["sides"][side]["roll"]["history"][0]["total"] == 0


def test_sotc_cell_tag_against_the_owner_helps_the_tagger_and_pays_the_owner() -> None:
    """sotc-contest-tag (vector 131): +2 on the tagger's own effort; the owner's PD is pending."""
    s = build_sotc()
    flow = _sotc_contest(s)
    flow = sotc_step(s.t.player, flow, "invoke", side="a", aspect=aspect_ref(s.t.rival, "aspecto-3"), detrimental=True)
    flow = sotc_step(s.gm, flow, "approve")
    assert _efforts(flow) == (7, 4) and sheet(s.t.rival)["fate_points_pending"] == 1


def test_sotc_refused_cell_other_side() -> None:
    """sotc-refused-other-side: a side acts only on its own roll."""
    s = build_sotc()
    flow = _sotc_contest(s)
    with pytest.raises(RulesError) as exc:
        sotc_step(s.t.player2, flow, "invoke", side="a", aspect=aspect_ref(s.t.rival))
    assert exc.value.code == "not_your_side"
