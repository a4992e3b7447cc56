"""The plugin object of presagios: every part Tintero needs of the game, named explicitly."""

from __future__ import annotations

from characters.bindings.presagios import BINDING as SHEET_BINDING
from characters.sheetforms.presagios import SheetForm
from rolls.bindings.presagios import BINDING as ROLL_BINDING
from rolls.builders.presagios import RollBuilderForm
from rolls.flowkinds.presagios import FLOW_KINDS
from rulesets.registry import RulesetPlugin, RulesetTemplates
from systems.presagios import RULESET

PLUGIN = RulesetPlugin(
    key="presagios",
    rules=RULESET,
    sheet=SHEET_BINDING,
    sheet_form=SheetForm,
    rolls=ROLL_BINDING,
    builder=RollBuilderForm,
    procedures=FLOW_KINDS,  # old-style handlers until they become step tables
    templates=RulesetTemplates(
        sheet="characters/sheets/presagios.html",
        pools="characters/pools/presagios.html",
        sheet_form="characters/sheetforms/presagios.html",
        builder="rolls/builders/presagios.html",
        start="rolls/flows/presagios/_start.html",
        procedures={
            "challenge": "rolls/flows/presagios/challenge.html",
            "conflict": "rolls/flows/presagios/conflict.html",
        },
    ),
)
