"""Tintero's rules: pure Python, no Django, no I/O.

Each ruleset lives in its own module and registers one :class:`~systems.registry.Ruleset`.
Import :func:`get_ruleset` / :data:`RULESETS` from here.
"""

from systems.errors import RulesError
from systems.registry import RULESETS, Ruleset, get_ruleset

__all__ = ["RULESETS", "RulesError", "Ruleset", "get_ruleset"]
