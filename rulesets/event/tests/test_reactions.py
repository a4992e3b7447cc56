"""Event reactions (§6.8, §8 A-29) end to end through ``rolls.runner``: written sealed by the player (nobody
reads it before the reveal, the GM included: only the hash and the timestamp are public), revealed and
checked against the commitment, valued 0..3 by the GM, used once as extra dice in an action, or expired.

Spec vectors covered: event-134 (value 4 refused, value 2 adds 2 dice), event-135 (a second reaction in the
same session refused; a used reaction refused again), event-136 (value 0: pool unchanged, status USED),
event-137 (the GM gets no text before the reveal, only ``committed_at`` and the hash)."""

from __future__ import annotations

import json

import pytest
from django.core.exceptions import PermissionDenied
from django.test import Client

from campaigns import policy
from rolls import runner
from rolls.models import Flow, FlowStatus, FlowStep
from rolls.selectors import flow_views
from rulesets.event.tests.roll_fixtures import RULES, EventRollTable, build_event_roll_table
from systems.dice import ScriptedDice
from systems.errors import RulesError
from systems.event.reactions import seal_digest
from tintero.sealing import unseal

pytestmark = pytest.mark.django_db

SENTENCE = "Robert me ataca por la espalda durante la cena"
ON = {**RULES, "optional": {"reactions": {"enabled": True}}}


@pytest.fixture
def t() -> EventRollTable:
    return build_event_roll_table(ON)


def step(flow: Flow, actor, name: str, dice: list[int] | None = None, **params) -> Flow:  # type: ignore[no-untyped-def]
    runner.take_step(
        actor=actor, flow=flow, step=name, params=params, dice=ScriptedDice(dice) if dice is not None else None
    )
    flow.refresh_from_db()
    return flow


def write(t: EventRollTable, actor=None, character=None, session: int = 1, text: str = SENTENCE) -> Flow:  # type: ignore[no-untyped-def]
    flow = runner.start_procedure(
        actor=actor or t.paco,
        scene=t.scene,
        kind="reaction",
        params={"character": (character or t.gorton).pk, "session": session, "text": text},
    )
    flow.refresh_from_db()
    return flow


def valued(t: EventRollTable, value: int) -> Flow:
    flow = step(write(t), t.paco, "reveal", text=SENTENCE)
    return step(flow, t.gm, "value", value=value)


def action(t: EventRollTable, reaction: Flow | None, dice: list[int] | None = None, **params) -> Flow:  # type: ignore[no-untyped-def]
    data = {"character": t.gorton.pk, "difficulty": 6, "skill": "Intimidar", **params}
    if reaction is not None:
        data["reaction_flow"] = reaction.pk
    flow = runner.start_procedure(
        actor=t.gm, scene=t.scene, kind="action", params=data, dice=ScriptedDice(dice) if dice else None
    )
    flow.refresh_from_db()
    return flow


def everything_visible_to(t: EventRollTable, user, flow: Flow) -> str:  # type: ignore[no-untyped-def]
    """Every byte a viewer gets about the flow: state, secret state (GMs), steps' params and the fragment."""
    view = flow_views(policy.viewer_for(user, t.campaign), [Flow.objects.get(pk=flow.pk)], "es")[0]
    client = Client()
    client.force_login(user)
    html = client.get(f"/flows/{flow.pk}/").content.decode()
    scene_html = client.get(f"/scenes/{t.scene.pk}/flows/").content.decode()
    data = {"state": view.flow.state, "secret": view.secret_state, "steps": [s.params for s in view.steps]}
    return json.dumps(data, default=str) + html + scene_html


def test_lifecycle_sealed_revealed_valued_used_134(t: EventRollTable) -> None:
    """event-134 (b) and event-137: sealed (hash and timestamp only) → revealed → valued 2 → an action with a
    skill pool of 2 (base die + Intimidar) gets 2 extra dice: pool 4 and the reaction is USED."""
    flow = write(t)
    assert flow.state["status"] == "SEALED" and flow.waiting_for["steps"][0]["users"] == [t.paco.pk]
    assert set(flow.state) >= {"digest", "committed_at", "character", "session"}
    assert flow.state["text"] is None and flow.state["nonce"] is None
    opened = unseal(flow.secret_state["sealed"], f"{flow.pk}|reaction")  # only the server opens it
    assert opened["text"] == SENTENCE
    assert seal_digest(1, SENTENCE, opened["nonce"]) == flow.state["digest"]
    with pytest.raises(PermissionDenied):
        step(flow, t.gm, "reveal")  # the player reveals, not the GM
    flow = step(flow, t.paco, "reveal", text=SENTENCE)
    assert flow.state["status"] == "REVEALED" and flow.state["text"] == SENTENCE and not flow.secret_state
    assert seal_digest(1, flow.state["text"], flow.state["nonce"]) == flow.state["digest"]  # anyone can check
    with pytest.raises(PermissionDenied):
        step(flow, t.paco, "value", value=3)  # the GM values it
    flow = step(flow, t.gm, "value", value=2)
    assert flow.state["status"] == "VALUED" and flow.state["value"] == 2
    act = action(t, flow)
    assert act.state["pool"] == 4 and act.state["reaction_dice"] == 2 and act.state["gate"] == "CHOOSE_FAILURE_OR_ROLL"
    act = step(act, t.paco, "choose", dice=[5, 4, 3, 2], choice="ROLL")
    roll = act.rolls.get()
    assert roll.result["pool"] == 4 and roll.result["breakdown"]["reaction"] == 2 and len(roll.result["dice"]) >= 4
    flow.refresh_from_db()
    assert flow.state["status"] == "USED" and flow.status == FlowStatus.SETTLED
    assert flow.state["used_in"] == act.pk and FlowStep.objects.filter(flow=flow, step="use").exists()


def test_the_gm_cannot_read_the_sealed_text_137(t: EventRollTable) -> None:
    """event-137: before the reveal nobody (GM, author's table mates, readers) gets the text anywhere."""
    flow = write(t)
    for viewer in (t.gm, t.paco, t.daria, t.reader):
        seen = everything_visible_to(t, viewer, flow)
        assert "Robert" not in seen and "cena" not in seen
    gm_seen = everything_visible_to(t, t.gm, flow)
    assert flow.state["digest"] in gm_seen and "event-reaction" in gm_seen  # the fragment shows the hash
    flow = step(flow, t.paco, "reveal")
    assert "Robert" in everything_visible_to(t, t.gm, flow)
    assert set(FlowStep.objects.get(flow=flow, step="reveal").params) == {"digest"}


def test_reveal_refuses_a_text_that_does_not_match(t: EventRollTable) -> None:
    flow = write(t)
    with pytest.raises(RulesError) as refused:
        step(flow, t.paco, "reveal", text="Alguien me ataca en la taberna")
    assert refused.value.code == "reaction_mismatch"
    flow.refresh_from_db()
    assert flow.state["status"] == "SEALED" and flow.state["text"] is None


def test_value_out_of_range_refused_134(t: EventRollTable) -> None:
    """event-134 (a): the GM assigns 4 → REACTION_VALUE_RANGE."""
    flow = step(write(t), t.paco, "reveal")
    for bad in (4, -1):
        with pytest.raises(RulesError) as refused:
            step(flow, t.gm, "value", value=bad)
        assert refused.value.code == "reaction_value_range"
    with pytest.raises(RulesError) as refused:
        step(write(t, t.jenny, t.valy), t.gm, "value", value=1)  # still sealed: the step is not offered yet
    assert refused.value.code == "step_not_available"


def test_one_reaction_per_character_and_session_135(t: EventRollTable) -> None:
    """event-135 (a): a second reaction in the same session → REACTION_ALREADY_WRITTEN; the next session is fine."""
    write(t)
    with pytest.raises(RulesError) as refused:
        write(t, text="Otra frase")
    assert refused.value.code == "reaction_already_written"
    assert write(t, session=2).state["session"] == 2
    with pytest.raises(PermissionDenied):
        write(t, actor=t.daria)  # Gorton is Paco's
    with pytest.raises(PermissionDenied):
        write(t, actor=t.gm)  # the GM does not write a player's reaction


def test_a_reaction_used_twice_is_refused_135(t: EventRollTable) -> None:
    """event-135 (b): a used reaction cannot add dice again (nor be revealed again: the flow is closed)."""
    reaction = valued(t, 1)
    action(t, reaction)
    with pytest.raises(RulesError) as refused:
        action(t, reaction)
    assert refused.value.code == "reaction_used"
    assert Flow.objects.filter(kind="action").count() == 1  # the refused action left nothing behind
    with pytest.raises(RulesError):
        step(reaction, t.paco, "reveal")


def test_reaction_valued_zero_is_used_and_adds_nothing_136(t: EventRollTable) -> None:
    """event-136: value 0, skill pool 2 → pool 2, status USED."""
    reaction = valued(t, 0)
    act = action(t, reaction)
    assert act.state["pool"] == 2 and act.state["reaction_dice"] == 0
    reaction.refresh_from_db()
    assert reaction.state["status"] == "USED"


def test_only_a_valued_reaction_of_the_acting_character(t: EventRollTable) -> None:
    sealed = write(t)
    with pytest.raises(RulesError) as refused:
        action(t, sealed)
    assert refused.value.code == "reaction_not_valued"
    others = step(step(write(t, t.jenny, t.valy), t.jenny, "reveal"), t.gm, "value", value=3)
    with pytest.raises(RulesError) as refused:
        action(t, others)  # Valy's reaction in Gorton's action
    assert refused.value.code == "reaction_not_found"


def test_expire_at_session_end(t: EventRollTable) -> None:
    flow = step(write(t), t.gm, "expire")
    assert flow.state["status"] == "EXPIRED" and flow.status == FlowStatus.SETTLED and not flow.secret_state
    assert flow.state["text"] is None  # an expired reaction is never revealed


def test_reactions_off_are_refused(t: EventRollTable) -> None:
    reaction = valued(t, 2)
    t.set_rules(RULES)
    with pytest.raises(RulesError) as refused:
        write(t, session=3)
    assert refused.value.code == "reactions_disabled"
    with pytest.raises(RulesError) as refused:
        action(t, reaction)
    assert refused.value.code == "reactions_disabled"
    assert not Flow.objects.filter(kind="action").exists()


def test_start_form_only_for_players_when_reactions_are_on(t: EventRollTable) -> None:
    client = Client()
    client.force_login(t.paco)
    assert "event-reaction-start" in client.get(f"/scenes/{t.scene.pk}/flows/").content.decode()
    client.force_login(t.gm)
    assert "event-reaction-start" not in client.get(f"/scenes/{t.scene.pk}/flows/").content.decode()
    t.set_rules(RULES)
    client.force_login(t.paco)
    assert "event-reaction-start" not in client.get(f"/scenes/{t.scene.pk}/flows/").content.decode()


# --- The step table: the record in words, the pickers, who acts when ----------------------------------


def record(flow: Flow, viewer) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    view = flow_views(policy.viewer_for(viewer, t_campaign(flow)), [Flow.objects.get(pk=flow.pk)], "es")[0]
    return [(line.text_es, line.text_en) for line in view.lines]


def t_campaign(flow: Flow):  # type: ignore[no-untyped-def]
    return Flow.objects.select_related("campaign").get(pk=flow.pk).campaign


def test_the_record_tells_the_reaction_in_words_and_never_the_sealed_text(t: EventRollTable) -> None:
    flow = write(t)
    sealed_lines = record(flow, t.gm)
    assert sealed_lines[0][0] == "Gorton sella una reacción para la sesión 1."  # no hash to read (issue 28)
    assert sealed_lines[0][1] == "Gorton seals a reaction for session 1."
    assert not any("Robert" in es + en for es, en in sealed_lines)
    flow = step(step(flow, t.paco, "reveal", text=SENTENCE), t.gm, "value", value=2)
    lines = record(flow, t.daria)  # another player reads the same record
    assert lines[1] == (f"Gorton revela su reacción: «{SENTENCE}».", f"Gorton reveals their reaction: “{SENTENCE}”.")
    assert lines[2] == (
        "El máster valora la reacción de Gorton: 2 dados extra en su próxima acción.",
        "The GM values Gorton's reaction: 2 extra dice on their next action.",
    )
    html = Client()
    html.force_login(t.daria)
    page = html.get(f"/flows/{flow.pk}/").content.decode()
    assert ">Reacción<" in page and ": reveal" not in page and ": value" not in page  # words, not step keys


def test_who_acts_follows_the_state(t: EventRollTable) -> None:
    """Sealed: only its player reveals; revealed: only the GM values; valued: the GM may revalue, nothing is
    awaited; the GM may expire it until it is used."""
    from rulesets.event.procedures.reaction import REACTION, ReactionState

    flow = write(t)
    state = ReactionState.model_validate(flow.state)
    assert {s.key: set(a) for s, a in REACTION.offered(state)} == {"reveal": {t.paco.pk}, "expire": {"gm"}}
    flow = step(flow, t.paco, "reveal")
    state = ReactionState.model_validate(flow.state)
    assert {s.key: set(a) for s, a in REACTION.offered(state)} == {"value": {"gm"}, "expire": {"gm"}}
    with pytest.raises(RulesError) as refused:
        step(flow, t.paco, "reveal")  # once
    assert refused.value.code == "step_not_available"
    flow = step(flow, t.gm, "value", value=1)
    state = ReactionState.model_validate(flow.state)
    assert {s.key for s, _a in REACTION.offered(state)} == {"revalue", "expire"} and flow.waiting_for == {}
    assert step(flow, t.gm, "revalue", value=3).state["value"] == 3


def test_the_character_picker_offers_only_the_players_own_and_refuses_others(t: EventRollTable) -> None:
    from rolls.selectors import opening_choices

    offered = opening_choices(t.scene, policy.viewer_for(t.paco, t.campaign))["reaction"]["character"]
    assert [(c.value, c.label) for c in offered] == [(str(t.gorton.pk), "Gorton")]
    assert opening_choices(t.scene, policy.viewer_for(t.gm, t.campaign))["reaction"]["character"] == []
    with pytest.raises(PermissionDenied):
        write(t, character=t.khan)  # Daria's
    with pytest.raises(RulesError) as refused:
        runner.start_procedure(
            actor=t.paco, scene=t.scene, kind="reaction", params={"character": 999_999, "session": 1, "text": "x"}
        )
    assert refused.value.code == "unknown_character"
