"""«Coger un dado comunal» with the communal pool empty (issue 10, vector 129): shown disabled with the
reason to the character's player in both languages, refused with ``step_unavailable`` if posted anyway."""

from __future__ import annotations

import re

import pytest
from django.template.loader import render_to_string
from django.utils import translation

from campaigns import policy
from rolls.models import Flow, FlowStep
from rolls.selectors import flow_views
from rulesets.event.tests.roll_fixtures import EventRollTable, build_event_roll_table
from rulesets.event.tests.test_optional_flows import COMMUNAL, action, communal_left, open_communal, rules, step
from systems.errors import RulesError

pytestmark = pytest.mark.django_db


@pytest.fixture
def t() -> EventRollTable:
    return build_event_roll_table()


def shown(flow: Flow, t: EventRollTable, lang: str) -> str:
    viewer = policy.viewer_for(t.jenny, flow.campaign)
    view = flow_views(viewer, [Flow.objects.select_related("campaign", "scene", "opened_by").get(pk=flow.pk)], lang)
    with translation.override(lang):
        html = render_to_string(
            "rolls/_flow.html", {"view": view[0], "viewer": viewer, "flow_error": "", "new_idempotency_key": "K"}
        )
    return re.sub(r"\s+", " ", html)


def test_an_empty_communal_pool_disables_the_die_with_the_reason_129(t: EventRollTable) -> None:
    rules(t, **COMMUNAL)
    flow = action(t, t.valy, 3, "Carterista")
    with pytest.raises(RulesError) as exc:
        step(flow, t.jenny, "take_communal")
    assert exc.value.code == "step_unavailable"
    assert exc.value.message("es") == "La reserva comunal está vacía."
    assert exc.value.message("en") == "The communal pool is empty."
    assert not FlowStep.objects.filter(flow=flow).exists()
    for lang, words in (("es", "La reserva comunal está vacía."), ("en", "The communal pool is empty.")):
        html = shown(flow, t, lang)
        assert words in html and 'aria-disabled="true"' in html
        assert f"/flows/{flow.pk}/steps/take_communal/" not in html
        assert f"/flows/{flow.pk}/steps/lock_pool/" in html  # the rest of the pool stays playable
    open_communal(t, 1)
    html = shown(flow, t, "es")
    assert f"/flows/{flow.pk}/steps/take_communal/" in html and "aria-disabled" not in html
    flow = step(flow, t.jenny, "take_communal")
    assert flow.state["communal"] == 1 and communal_left(t) == 1
