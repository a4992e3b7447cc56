"""The plugin object of the generic ruleset: plain dice notation for any other game (no builder: the
composer's notation field is its roll; no procedures)."""

from __future__ import annotations

from characters.bindings.generic import BINDING as SHEET_BINDING
from characters.sheetforms.generic import SheetForm
from rolls.bindings.generic import BINDING as ROLL_BINDING
from rulesets.registry import RulesetPlugin
from systems.generic import RULESET

PLUGIN = RulesetPlugin(key="generic", rules=RULESET, sheet=SHEET_BINDING, sheet_form=SheetForm, rolls=ROLL_BINDING)
