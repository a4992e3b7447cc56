from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class NotificationsConfig(AppConfig):
    name = "notifications"
    verbose_name = _("Avisos")

    def ready(self) -> None:
        # Subscribe to the campaign's published events (campaigns.events): notifications follow them.
        from notifications import subscriptions

        subscriptions.connect()
