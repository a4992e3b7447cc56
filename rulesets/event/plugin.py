"""The plugin object of event: every part Tintero needs of the game, named explicitly."""

from __future__ import annotations

from characters.bindings.event import BINDING as SHEET_BINDING
from characters.sheetforms.event import SheetForm
from rolls.bindings.event import BINDING as ROLL_BINDING
from rolls.builders.event import RollBuilderForm
from rolls.flowkinds.event import FLOW_KINDS
from rulesets.registry import RulesetPlugin, RulesetTemplates
from systems.event import RULESET

PLUGIN = RulesetPlugin(
    key="event",
    rules=RULESET,
    sheet=SHEET_BINDING,
    sheet_form=SheetForm,
    rolls=ROLL_BINDING,
    builder=RollBuilderForm,
    procedures=FLOW_KINDS,  # type: ignore[arg-type]  # old-style handlers until they become step tables
    templates=RulesetTemplates(
        sheet="characters/sheets/event.html",
        pools="characters/pools/event.html",
        sheet_form="characters/sheetforms/event.html",
        builder="rolls/builders/event.html",
        start="rolls/flows/event/_start.html",
        procedures={
            "action": "rolls/flows/event/action.html",
            "desafio": "rolls/flows/event/desafio.html",
            "reaction": "rolls/flows/event/reaction.html",
        },
    ),
)
