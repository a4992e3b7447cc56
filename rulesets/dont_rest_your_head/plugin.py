"""The plugin object of dont-rest-your-head: every part Tintero needs of the game, named explicitly."""

from __future__ import annotations

from rulesets.dont_rest_your_head.builder import RollBuilderForm
from rulesets.dont_rest_your_head.procedures.breather import BREATHER
from rulesets.dont_rest_your_head.procedures.conflict import CONFLICT
from rulesets.dont_rest_your_head.procedures.recovery import RECOVERY
from rulesets.dont_rest_your_head.rolls import BINDING as ROLL_BINDING
from rulesets.dont_rest_your_head.sheet import BINDING as SHEET_BINDING
from rulesets.dont_rest_your_head.sheet_form import SheetForm
from rulesets.registry import RulesetPlugin, RulesetTemplates
from systems.dont_rest_your_head import RULESET

PLUGIN = RulesetPlugin(
    key="dont-rest-your-head",
    rules=RULESET,
    sheet=SHEET_BINDING,
    sheet_form=SheetForm,
    rolls=ROLL_BINDING,
    builder=RollBuilderForm,
    procedures={CONFLICT.key: CONFLICT, BREATHER.key: BREATHER, RECOVERY.key: RECOVERY},
    urls="rulesets.dont_rest_your_head.urls",
    templates=RulesetTemplates(
        sheet="dont_rest_your_head/sheet.html",
        pools="dont_rest_your_head/pools.html",
        sheet_form="dont_rest_your_head/sheet_form.html",
        builder="dont_rest_your_head/builder.html",
        start="dont_rest_your_head/flows/start.html",
        procedures={
            CONFLICT.key: "dont_rest_your_head/flows/conflict.html",
            BREATHER.key: "dont_rest_your_head/flows/breather.html",
            RECOVERY.key: "dont_rest_your_head/flows/breather.html",  # the record says it all
        },
    ),
)
