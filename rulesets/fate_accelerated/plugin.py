"""The plugin object of fate-accelerated: every part Tintero needs of the game, named explicitly."""

from __future__ import annotations

from characters.bindings.fate_accelerated import BINDING as SHEET_BINDING
from characters.sheetforms.fate_accelerated import SheetForm
from rolls.bindings.fate_accelerated import BINDING as ROLL_BINDING
from rolls.builders.fate_accelerated import RollBuilderForm
from rolls.flowkinds.fate_accelerated import FLOW_KINDS
from rulesets.registry import RulesetPlugin, RulesetTemplates
from systems.fate_accelerated import RULESET

PLUGIN = RulesetPlugin(
    key="fate-accelerated",
    rules=RULESET,
    sheet=SHEET_BINDING,
    sheet_form=SheetForm,
    rolls=ROLL_BINDING,
    builder=RollBuilderForm,
    scene_aspects=True,
    procedures=FLOW_KINDS,  # type: ignore[arg-type]  # old-style handlers until they become step tables
    templates=RulesetTemplates(
        sheet="characters/sheets/fate_accelerated.html",
        pools="characters/pools/fate_accelerated.html",
        sheet_form="characters/sheetforms/fate_accelerated.html",
        builder="rolls/builders/fate_accelerated.html",
        start="rolls/flows/fate_accelerated/_start.html",
        procedures={
            "action": "rolls/flows/fate_accelerated/action.html",
            "compel": "rolls/flows/fate_accelerated/compel.html",
            "concession": "rolls/flows/fate_accelerated/concession.html",
        },
    ),
)
