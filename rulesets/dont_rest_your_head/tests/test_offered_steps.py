"""No te Duermas conflicts: a window step is offered only when the rules allow it, or shown disabled with the
rules' own reason (issue 22; spec §3.5 vector 52, §5.2)."""

from __future__ import annotations

import pytest

from campaigns import policy
from rolls.models import Flow
from rolls.selectors import flow_views
from rulesets.dont_rest_your_head.tests.rolls_fixtures import DryhRolls, build_dryh_rolls
from rulesets.dont_rest_your_head.tests.test_conflict import refused, rolled_to_adjusting
from tests.systems.vectors import vector

pytestmark = pytest.mark.django_db


@pytest.fixture
def dryh(db: None) -> DryhRolls:
    return build_dryh_rolls()


def _shown(t: DryhRolls, flow: Flow, user: object, step: str) -> str:
    """The words a step is shown disabled with for ``user`` ("" when offered enabled)."""
    (view,) = flow_views(policy.viewer_for(user, t.campaign), [Flow.objects.get(pk=flow.pk)], "es")  # type: ignore[arg-type]
    return next(a.unavailable for a in view.actions if a.step == step)


@vector("dont-rest-your-head-52")
def test_minor_use_at_exhaustion_0_is_shown_disabled_and_refused_as_unavailable(
    dryh: DryhRolls, vector_id: str
) -> None:
    t = dryh
    flow = rolled_to_adjusting(t, 2, [2, 6], [4, 5, 6])  # exhaustion 0, no increase
    reason = _shown(t, flow, t.player, "minor_use")
    assert "agotamiento" in reason
    error = refused(t, flow, "step_unavailable", t.player, "minor_use")
    assert error.message_es == reason


def test_minor_use_with_exhaustion_is_offered(dryh: DryhRolls) -> None:
    t = dryh
    t.set_sheet(t.alia, exhaustion=3)
    flow = rolled_to_adjusting(t, 2, [2, 6], [4, 5, 6, 1, 4, 5])
    assert _shown(t, flow, t.player, "minor_use") == ""


def test_resolve_right_after_the_gms_own_shading_is_shown_disabled_until_the_player_answers(dryh: DryhRolls) -> None:
    """§5.2: after shading, the GM's "resolver" waits for the player's pass (or the campaign's timeout)."""
    t = dryh
    t.set_chest(despair=1)
    flow = rolled_to_adjusting(t, 2, [4, 5], [4, 5, 6])
    assert _shown(t, flow, t.gm, "resolve") == ""
    flow = t.step(flow, t.gm, "shade", kind="add6", pool="pain")
    reason = _shown(t, flow, t.gm, "resolve")
    assert reason
    error = refused(t, flow, "step_unavailable", t.gm, "resolve")
    assert error.message_es == reason
    flow = t.step(flow, t.player, "pass")
    assert _shown(t, flow, t.gm, "resolve") == ""
    flow = t.step(flow, t.gm, "resolve")
    assert flow.state["phase"] == "SETTLING"
