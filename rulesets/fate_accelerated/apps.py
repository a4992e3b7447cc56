from django.apps import AppConfig


class FateAcceleratedConfig(AppConfig):
    name = "rulesets.fate_accelerated"
    label = "ruleset_fate_accelerated"
    verbose_name = "FATE Accelerated"

    def ready(self) -> None:
        from rulesets.fate_accelerated.plugin import PLUGIN
        from rulesets.registry import register

        register(PLUGIN)
