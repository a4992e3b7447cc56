"""The plugin object of event: every part Tintero needs of the game, named explicitly."""

from __future__ import annotations

from rulesets.event.builder import RollBuilderForm
from rulesets.event.legacy_flows import FLOW_KINDS
from rulesets.event.procedures.action import ACTION_PROCEDURE
from rulesets.event.procedures.reaction import REACTION
from rulesets.event.rolls import BINDING as ROLL_BINDING
from rulesets.event.sheet import BINDING as SHEET_BINDING
from rulesets.event.sheet_form import SheetForm
from rulesets.registry import RulesetPlugin, RulesetTemplates
from systems.event import RULESET

PLUGIN = RulesetPlugin(
    key="event",
    rules=RULESET,
    sheet=SHEET_BINDING,
    sheet_form=SheetForm,
    rolls=ROLL_BINDING,
    builder=RollBuilderForm,
    # The desafío is still an old-style handler (rulesets/event/legacy_flows.py).
    procedures={**FLOW_KINDS, "action": ACTION_PROCEDURE, "reaction": REACTION},  # type: ignore[dict-item]
    templates=RulesetTemplates(
        sheet="event/sheet.html",
        pools="event/pools.html",
        sheet_form="event/sheet_form.html",
        builder="event/builder.html",
        start="event/flows/_start.html",
        procedures={
            "action": "event/procedures/action.html",
            "desafio": "event/flows/desafio.html",
            "reaction": "event/procedures/reaction.html",
        },
    ),
    urls="rulesets.event.urls",
)
