"""The plugin object of presagios: every part Tintero needs of the game, named explicitly."""

from __future__ import annotations

from rulesets.presagios.builder import RollBuilderForm
from rulesets.presagios.procedures.challenge import CHALLENGE
from rulesets.presagios.procedures.conflict import CONFLICT
from rulesets.presagios.rolls import BINDING as ROLL_BINDING
from rulesets.presagios.sheet import BINDING as SHEET_BINDING
from rulesets.presagios.sheet_form import SheetForm
from rulesets.registry import RulesetPlugin, RulesetTemplates
from systems.presagios import RULESET

PLUGIN = RulesetPlugin(
    key="presagios",
    rules=RULESET,
    sheet=SHEET_BINDING,
    sheet_form=SheetForm,
    rolls=ROLL_BINDING,
    builder=RollBuilderForm,
    procedures={CHALLENGE.key: CHALLENGE, CONFLICT.key: CONFLICT},
    templates=RulesetTemplates(
        sheet="presagios/sheet.html",
        pools="presagios/pools.html",
        sheet_form="presagios/sheet_form.html",
        builder="presagios/builder.html",
        start="presagios/start.html",
        procedures={CHALLENGE.key: "presagios/challenge.html", CONFLICT.key: "presagios/conflict.html"},
    ),
)
