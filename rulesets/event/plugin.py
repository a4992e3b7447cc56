"""The plugin object of event: every part Tintero needs of the game, named explicitly."""

from __future__ import annotations

from rulesets.event.builder import RollBuilderForm
from rulesets.event.procedures.action import ACTION_PROCEDURE
from rulesets.event.procedures.desafio import DESAFIO
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
    procedures={"action": ACTION_PROCEDURE, "desafio": DESAFIO, "reaction": REACTION},
    templates=RulesetTemplates(
        sheet="event/sheet.html",
        pools="event/pools.html",
        sheet_form="event/sheet_form.html",
        builder="event/builder.html",
        start="event/procedures/_start.html",
        procedures={
            "action": "event/procedures/action.html",
            "desafio": "event/procedures/desafio.html",
            "reaction": "event/procedures/reaction.html",
        },
    ),
    urls="rulesets.event.urls",
)
