from django.apps import AppConfig


class PresagiosConfig(AppConfig):
    name = "rulesets.presagios"
    label = "ruleset_presagios"
    verbose_name = "Presagios"

    def ready(self) -> None:
        from rulesets.presagios.plugin import PLUGIN
        from rulesets.registry import register

        register(PLUGIN)
