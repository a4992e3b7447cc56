"""The plugin object of dont-rest-your-head: every part Tintero needs of the game, named explicitly."""

from __future__ import annotations

from characters.bindings.dont_rest_your_head import BINDING as SHEET_BINDING
from characters.sheetforms.dont_rest_your_head import SheetForm
from rolls.bindings.dont_rest_your_head import BINDING as ROLL_BINDING
from rolls.builders.dont_rest_your_head import RollBuilderForm
from rolls.flowkinds.dont_rest_your_head import FLOW_KINDS
from rulesets.registry import RulesetPlugin, RulesetTemplates
from systems.dont_rest_your_head import RULESET

PLUGIN = RulesetPlugin(
    key="dont-rest-your-head",
    rules=RULESET,
    sheet=SHEET_BINDING,
    sheet_form=SheetForm,
    rolls=ROLL_BINDING,
    builder=RollBuilderForm,
    procedures=FLOW_KINDS,  # type: ignore[arg-type]  # old-style handlers until they become step tables
    templates=RulesetTemplates(
        sheet="characters/sheets/dont_rest_your_head.html",
        pools="characters/pools/dont_rest_your_head.html",
        sheet_form="characters/sheetforms/dont_rest_your_head.html",
        builder="rolls/builders/dont_rest_your_head.html",
        start="rolls/flows/dont_rest_your_head/_start.html",
        procedures={
            "conflict": "rolls/flows/dont_rest_your_head/conflict.html",
        },
    ),
)
