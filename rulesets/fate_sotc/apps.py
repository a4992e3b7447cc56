from django.apps import AppConfig


class FateSotcConfig(AppConfig):
    name = "rulesets.fate_sotc"
    label = "ruleset_fate_sotc"
    verbose_name = "FATE: Spirit of the Century"

    def ready(self) -> None:
        from rulesets.fate_sotc.plugin import PLUGIN
        from rulesets.registry import register

        register(PLUGIN)
