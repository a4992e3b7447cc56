"""The plugin object of fate-accelerated: every part Tintero needs of the game, named explicitly."""

from __future__ import annotations

from rulesets.fate_accelerated.builder import RollBuilderForm
from rulesets.fate_accelerated.procedures.action import ACTION
from rulesets.fate_accelerated.procedures.compel import COMPEL
from rulesets.fate_accelerated.procedures.concession import CONCESSION
from rulesets.fate_accelerated.rolls import BINDING as ROLL_BINDING
from rulesets.fate_accelerated.sheet import BINDING as SHEET_BINDING
from rulesets.fate_accelerated.sheet_form import SheetForm
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
    procedures={"action": ACTION, "compel": COMPEL, "concession": CONCESSION},
    templates=RulesetTemplates(
        sheet="fate_accelerated/sheet.html",
        pools="fate_accelerated/pools.html",
        sheet_form="fate_accelerated/sheet_form.html",
        builder="fate_accelerated/builder.html",
        start="fate_accelerated/flows/_start.html",
        procedures={
            "action": "fate_accelerated/flows/action.html",
            "compel": "fate_accelerated/flows/compel.html",
            "concession": "fate_accelerated/flows/concession.html",
        },
    ),
)
