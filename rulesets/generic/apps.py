from django.apps import AppConfig


class GenericConfig(AppConfig):
    name = "rulesets.generic"
    label = "ruleset_generic"
    verbose_name = "generic dice notation"

    def ready(self) -> None:
        from rulesets.generic.plugin import PLUGIN
        from rulesets.registry import register

        register(PLUGIN)
