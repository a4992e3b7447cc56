from django.apps import AppConfig


class DontRestYourHeadConfig(AppConfig):
    name = "rulesets.dont_rest_your_head"
    label = "ruleset_dont_rest_your_head"
    verbose_name = "Don't Rest Your Head"

    def ready(self) -> None:
        from rulesets.dont_rest_your_head.plugin import PLUGIN
        from rulesets.registry import register

        register(PLUGIN)
