"""«Volver a intentar» and «Activar una cualidad» with no point to pay (issue 10): shown disabled with the
reason to whoever would pay, refused with ``step_unavailable`` if posted anyway; whoever can pay still can."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.template.loader import render_to_string
from django.utils import translation

from accounts.models import User
from campaigns import policy
from rolls.models import Flow, FlowStep
from rolls.selectors import flow_views
from rulesets.presagios.tests.rolls_fixtures import (
    RollsTable,
    build,
    challenge,
    conflict,
    set_sheet,
    set_threat,
    step,
)
from systems.errors import RulesError

pytestmark = pytest.mark.django_db


@pytest.fixture
def t(db: None) -> RollsTable:
    return build("pu_")


def failed(t: RollsTable, character: Any, actor: User) -> Flow:
    """A challenge just failed (a 4 at best against 6): retry, force and finalize are offered."""
    flow = challenge(t, character, 6)
    return step(flow, actor, "roll", dice=[4, *[3, 2] * 6])


def actions(flow: Flow, user: User, lang: str = "es") -> dict[str, str]:
    viewer = policy.viewer_for(user, flow.campaign)
    flow = Flow.objects.select_related("campaign", "scene", "opened_by").get(pk=flow.pk)
    return {a.step: a.unavailable for a in flow_views(viewer, [flow], lang)[0].actions}


def shown(flow: Flow, user: User, lang: str) -> str:
    viewer = policy.viewer_for(user, flow.campaign)
    view = Flow.objects.select_related("campaign", "scene", "opened_by").get(pk=flow.pk)
    with translation.override(lang):
        html = render_to_string(
            "rolls/_flow.html",
            {
                "view": flow_views(viewer, [view], lang)[0],
                "viewer": viewer,
                "flow_error": "",
                "new_idempotency_key": "K",
            },
        )
    return re.sub(r"\s+", " ", html)


def test_with_no_overcome_point_retry_and_quality_are_refused_with_the_reason(t: RollsTable) -> None:
    set_threat(t, 0)
    set_sheet(t.lucia, current=[3, 3, 2], overcome=0)
    flow = failed(t, t.lucia, t.player)
    hito = {"force": "success", "quality_owner": t.lucia.pk, "quality": "hito"}
    for name, params in (("retry", {}), ("force", hito)):
        with pytest.raises(RulesError) as exc:
            step(flow, t.player, name, params)
        assert exc.value.code == "step_unavailable", name
    assert exc.value.message("es") == "No te quedan puntos de superación."
    assert exc.value.message("en") == "You have no overcome points left."
    with pytest.raises(RulesError) as retry:
        step(flow, t.player, "retry")
    assert retry.value.message("es") == "Lucía no tiene puntos de superación."
    assert retry.value.message("en") == "Lucía has no overcome points."
    with pytest.raises(RulesError) as gm:  # the GM pays with threat, and there is none
        step(flow, t.gm, "force", {"force": "failure", "quality_owner": t.lucia.pk, "quality": "hito"})
    assert gm.value.code == "step_unavailable" and gm.value.message("en") == "There are no threat points left."
    assert FlowStep.objects.filter(flow=flow).count() == 1  # only the roll
    # Hugo's player has points: the quality is theirs to activate.
    assert actions(flow, t.player2) == {"force": ""}
    step(flow, t.player2, "force", hito)


def test_the_buttons_are_disabled_with_the_reason_in_both_languages(t: RollsTable) -> None:
    set_threat(t, 2)
    set_sheet(t.lucia, current=[3, 3, 2], overcome=0)
    flow = failed(t, t.lucia, t.player)
    assert actions(flow, t.player) == {
        "retry": "Lucía no tiene puntos de superación.",
        "force": "No te quedan puntos de superación.",
    }
    assert actions(flow, t.player, "en")["retry"] == "Lucía has no overcome points."
    assert actions(flow, t.gm)["force"] == ""  # the GM has threat to pay with
    for lang, words in (
        ("es", ("Lucía no tiene puntos de superación.", "No te quedan puntos de superación.")),
        ("en", ("Lucía has no overcome points.", "You have no overcome points left.")),
    ):
        html = shown(flow, t.player, lang)
        assert all(w in html for w in words) and html.count('aria-disabled="true"') == 2
        assert f"/flows/{flow.pk}/steps/retry/" not in html and f"/flows/{flow.pk}/steps/force/" not in html
    gm_html = shown(flow, t.gm, "es")
    assert f"/flows/{flow.pk}/steps/force/" in gm_html and "aria-disabled" not in gm_html
    set_sheet(t.lucia, overcome=1)
    assert actions(flow, t.player) == {"retry": "", "force": ""}
    step(flow, t.player, "retry")


def test_an_npc_retry_waits_for_threat_and_only_the_gm_reads_why(t: RollsTable) -> None:
    set_threat(t, 0)
    flow = failed(t, t.cosa, t.gm)
    assert actions(flow, t.gm)["retry"] == "No quedan puntos de amenaza."
    assert "retry" not in actions(flow, t.player)
    with pytest.raises(RulesError) as exc:
        step(flow, t.gm, "retry")
    assert exc.value.code == "step_unavailable"


@pytest.mark.parametrize("vector_id", ["presagios-26", "presagios-27"])
def test_declaring_danger_with_no_threat_to_pay_is_shown_disabled(t: RollsTable, vector_id: str) -> None:
    """Vector 26: threat 0, the GM declares a challenge dangerous → `NO_THREAT` (now shown disabled with those
    words, found by tests/rulesets/test_offered_means_legal.py). Vector 27: against a monstruo it is free."""
    set_threat(t, 0)
    if vector_id == "presagios-26":
        flow = challenge(t, t.lucia, 5)
        reason = actions(flow, t.gm)["declare_danger"]
        assert reason == "No quedan puntos de amenaza."
        before = FlowStep.objects.count()
        with pytest.raises(RulesError) as exc:
            step(flow, t.gm, "declare_danger")
        assert exc.value.code == "step_unavailable" and exc.value.message_es == reason
        assert FlowStep.objects.count() == before
    else:
        flow = conflict(t, t.lucia, t.cosa)
        assert actions(flow, t.gm)["declare_danger"] == ""
        flow = step(flow, t.gm, "declare_danger")
        assert flow.state["machine"]["dangerous"] is True
