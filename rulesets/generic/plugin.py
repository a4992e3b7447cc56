"""The plugin object of the generic ruleset: plain dice notation for any other game (no builder: the
composer's notation field is its roll; no procedures)."""

from __future__ import annotations

from rulesets.generic.rolls import BINDING as ROLL_BINDING
from rulesets.generic.sheet import BINDING as SHEET_BINDING
from rulesets.generic.sheet_form import SheetForm
from rulesets.registry import RulesetPlugin
from systems.generic import RULESET

PLUGIN = RulesetPlugin(key="generic", rules=RULESET, sheet=SHEET_BINDING, sheet_form=SheetForm, rolls=ROLL_BINDING)
