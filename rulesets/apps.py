from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RulesetsConfig(AppConfig):
    """The registry itself; each game is an app of its own listed after this one in INSTALLED_APPS."""

    name = "rulesets"
    verbose_name = _("Sistemas de juego")

    def ready(self) -> None:
        from rulesets import checks  # noqa: F401  (registers the system checks)
