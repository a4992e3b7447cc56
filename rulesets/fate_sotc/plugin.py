"""The plugin object of fate-sotc: every part Tintero needs of the game, named explicitly."""

from __future__ import annotations

from rulesets.fate_sotc.builder import RollBuilderForm
from rulesets.fate_sotc.procedures import PROCEDURES
from rulesets.fate_sotc.rolls import BINDING as ROLL_BINDING
from rulesets.fate_sotc.sheet import BINDING as SHEET_BINDING
from rulesets.fate_sotc.sheet_form import SheetForm
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
    procedures=PROCEDURES,
    templates=RulesetTemplates(
        sheet="fate_sotc/sheet.html",
        pools="fate_sotc/pools.html",
        sheet_form="fate_sotc/sheet_form.html",
        builder="fate_sotc/builder.html",
        start="fate_sotc/procedures/_start.html",
        procedures={
            "invocation": "fate_sotc/procedures/invocation.html",
            "compel": "fate_sotc/procedures/compel.html",
            "attack": "fate_sotc/procedures/attack.html",
            "advantage": "fate_sotc/procedures/advantage.html",
            "declaration": "fate_sotc/procedures/declaration.html",
        },
    ),
)
