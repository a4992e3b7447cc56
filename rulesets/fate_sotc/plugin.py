"""The plugin object of fate-sotc: every part Tintero needs of the game, named explicitly."""

from __future__ import annotations

from characters.bindings.fate_sotc import BINDING as SHEET_BINDING
from characters.sheetforms.fate_sotc import SheetForm
from rolls.bindings.fate_sotc import BINDING as ROLL_BINDING
from rolls.builders.fate_sotc import RollBuilderForm
from rolls.flowkinds.fate_sotc import FLOW_KINDS
from rulesets.registry import RulesetPlugin, RulesetTemplates
from systems.fate_sotc import RULESET

PLUGIN = RulesetPlugin(
    key="fate-sotc",
    rules=RULESET,
    sheet=SHEET_BINDING,
    sheet_form=SheetForm,
    rolls=ROLL_BINDING,
    builder=RollBuilderForm,
    scene_aspects=True,
    procedures=FLOW_KINDS,  # type: ignore[arg-type]  # old-style handlers until they become step tables
    templates=RulesetTemplates(
        sheet="characters/sheets/fate_sotc.html",
        pools="characters/pools/fate_sotc.html",
        sheet_form="characters/sheetforms/fate_sotc.html",
        builder="rolls/builders/fate_sotc.html",
        start="rolls/flows/fate_sotc/_start.html",
        procedures={
            "invocation": "rolls/flows/fate_sotc/invocation.html",
            "compel": "rolls/flows/fate_sotc/compel.html",
            "attack": "rolls/flows/fate_sotc/attack.html",
            "advantage": "rolls/flows/fate_sotc/advantage.html",
            "declaration": "rolls/flows/fate_sotc/declaration.html",
        },
    ),
)
