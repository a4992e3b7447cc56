"""The games Tintero plays, as plugins: one Django app per ruleset (``rulesets/<key>/``) beside its pure
rules (``systems/<key>/``), each registering one :class:`~rulesets.registry.RulesetPlugin` at startup.

``rulesets.registry`` is the one registry; ``rulesets.kit`` is the contract between the core apps and the
plugins (sheet and roll bindings, procedures as typed step tables). The core apps import only those two;
they never import a ruleset's own package.
"""
