from django.apps import AppConfig


class EventConfig(AppConfig):
    name = "rulesets.event"
    label = "ruleset_event"
    verbose_name = "Event"

    def ready(self) -> None:
        from rulesets.event.plugin import PLUGIN
        from rulesets.registry import register

        register(PLUGIN)
