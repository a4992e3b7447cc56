"""System checks of the registry: every template a plugin names exists (run by ``manage.py check``,
``migrate`` and ``runserver``, so a game with a missing template never starts)."""

from __future__ import annotations

from typing import Any

from django.core import checks
from django.template import TemplateDoesNotExist
from django.template.loader import get_template

from rulesets import registry


@checks.register(checks.Tags.templates)
def plugin_templates_exist(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    errors: list[checks.CheckMessage] = []
    for key, plugin in registry.plugins().items():
        for name in plugin.templates.names():
            try:
                get_template(name)
            except TemplateDoesNotExist:
                errors.append(
                    checks.Error(
                        f"ruleset plugin {key!r} names the template {name!r}, which does not exist",
                        hint="Add it under the ruleset app's templates/ folder or fix the name in its plugin.",
                        id="rulesets.E001",
                    )
                )
    return errors
