"""A step the table offers but that cannot succeed now (``Step.unavailable``), on the test duel: it is shown
disabled with its reason to whoever may take it (both languages), the runner refuses it with one code and
changes nothing, and the procedure does not wait for it while something else can be done."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.exceptions import PermissionDenied
from django.test import Client

from campaigns.policy import Viewer
from characters.models import Character
from rolls import runner
from rolls.models import Flow, FlowStep
from rolls.selectors import flow_views
from rulesets import registry
from rulesets.kit.procedures import NoParams, Procedure, Step
from rulesets.kit.table import GM, Reads, Table
from systems.dice import ScriptedDice
from systems.errors import RulesError
from systems.registry import Names
from tests.personas import Table as Personas
from tests.rolls.duel import DUEL, DuelState

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.rolls.test_views_rolls")]

PUT_AWAY = Names("Lucía no tiene dados.", "Lucía has no dice.")


def _no_dice(state: DuelState, table: Table, viewer: Viewer | None) -> Names | None:
    """The player's roll needs a die on their character's sheet (the test game's stand-in for a pool)."""
    dice = [c.sheet.get("dice", 1) for c in table.characters.values() if c.owner_id == state.player_id]
    return PUT_AWAY if dice and not any(dice) else None


BLOCKED: Procedure[DuelState] = dataclasses.replace(
    DUEL, steps=(dataclasses.replace(DUEL.steps[0], unavailable=_no_dice), *DUEL.steps[1:])
)


@pytest.fixture
def blocked() -> Iterator[Procedure[DuelState]]:
    """The duel whose player roll needs a die, added to the table's game for one test."""
    plugin = registry.plugin("presagios")
    templates = dataclasses.replace(
        plugin.templates, procedures={**plugin.templates.procedures, "duel": "rolls/_empty.html"}
    )
    registry._PLUGINS["presagios"] = dataclasses.replace(
        plugin, procedures={**plugin.procedures, "duel": BLOCKED}, templates=templates
    )
    try:
        yield BLOCKED
    finally:
        registry._PLUGINS["presagios"] = plugin


def open_duel(table: Personas) -> Flow:
    return runner.start_procedure(actor=table.gm, scene=table.scene, kind="duel", params={"player": table.player.pk})


def empty_pool(table: Personas) -> None:
    Character.objects.filter(pk=table.character.pk).update(sheet={"dice": 0})


def test_an_unavailable_step_is_refused_with_its_reason_and_changes_nothing(
    table: Personas, blocked: Procedure[Any]
) -> None:
    flow = open_duel(table)
    empty_pool(table)
    with pytest.raises(RulesError) as exc:
        runner.take_step(actor=table.player, flow=flow, step="player_roll", dice=ScriptedDice([5]))
    assert exc.value.code == "step_unavailable"
    assert exc.value.message("es") == "Lucía no tiene dados." and exc.value.message("en") == "Lucía has no dice."
    flow.refresh_from_db()
    assert flow.state["step"] == "player" and not FlowStep.objects.exists() and not flow.rolls.exists()
    # Who may not take it at all hears that first, never the reason.
    with pytest.raises(PermissionDenied):
        runner.take_step(actor=table.player2, flow=flow, step="player_roll")
    Character.objects.filter(pk=table.character.pk).update(sheet={"dice": 1})
    runner.take_step(actor=table.player, flow=flow, step="player_roll", dice=ScriptedDice([5]))
    assert FlowStep.objects.count() == 1


def test_an_unavailable_step_is_shown_disabled_with_its_reason_in_both_languages(
    table: Personas, blocked: Procedure[Any]
) -> None:
    flow = open_duel(table)
    empty_pool(table)
    url = f"/scenes/{table.scene.pk}/flows/"
    for language, reason in (("es", "Lucía no tiene dados."), ("en", "Lucía has no dice.")):
        client = Client(HTTP_ACCEPT_LANGUAGE=language)
        client.force_login(table.player)
        html = client.get(url).content.decode()
        assert reason in html and 'aria-disabled="true"' in html and " disabled " in html
        assert f"/flows/{flow.pk}/steps/player_roll/" not in html  # nothing to post
    viewer = runner.policy.viewer_for(table.player, table.campaign)
    [action] = flow_views(viewer, [flow], "en")[0].actions
    assert (action.step, action.unavailable) == ("player_roll", "Lucía has no dice.")
    assert not flow_views(viewer, [flow], "en")[0].may_act
    other = Client(HTTP_ACCEPT_LANGUAGE="es")
    other.force_login(table.player2)
    assert "Lucía no tiene dados." not in other.get(url).content.decode()  # listed only for who may take it
    Character.objects.filter(pk=table.character.pk).update(sheet={"dice": 1})
    player = Client(HTTP_ACCEPT_LANGUAGE="es")
    player.force_login(table.player)
    html = player.get(url).content.decode()
    assert f"/flows/{flow.pk}/steps/player_roll/" in html and "aria-disabled" not in html


def _fold(state: DuelState) -> set[Any]:
    return {GM} if state.step == "player" else set()


def test_the_procedure_waits_for_what_can_be_done_and_else_says_why(table: Personas) -> None:
    state = DuelState(step="player", player_id=table.player.pk)
    empty_pool(table)
    facts = runner.scene_table(table.scene, Reads(), lock=False)
    # Only the unavailable step is awaited: the procedure waits for it, saying why.
    [stuck] = BLOCKED.waiting(state, facts)
    assert (stuck.step, stuck.users) == ("player_roll", (table.player.pk,))
    assert stuck.label == Names("tirada del jugador: Lucía no tiene dados.", "the player's roll: Lucía has no dice.")
    # Another awaited step can be taken: the procedure waits for that one only.
    fold = Step(key="fold", label="fold", params=NoParams, who=_fold, run=lambda given: NotImplemented)
    with_fold = dataclasses.replace(BLOCKED, steps=(*BLOCKED.steps, fold))
    assert [w.step for w in with_fold.waiting(state, facts)] == ["fold"]
    Character.objects.filter(pk=table.character.pk).update(sheet={"dice": 2})
    facts = runner.scene_table(table.scene, Reads(), lock=False)
    assert [w.step for w in with_fold.waiting(state, facts)] == ["player_roll", "fold"]
    assert BLOCKED.waiting(state, facts)[0].label == Names("tirada del jugador", "the player's roll")
