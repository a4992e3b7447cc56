"""Tintero's rules: pure Python, no Django, no I/O.

Each ruleset lives in its own package and builds one :class:`~systems.registry.Ruleset` as ``RULESET``;
the registry of games is Django-side (``rulesets.registry``).
"""

from systems.errors import RulesError
from systems.registry import Ruleset

__all__ = ["RulesError", "Ruleset"]
