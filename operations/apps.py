from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class OperationsConfig(AppConfig):
    """Running the site: health and readiness probes, backups and retention (README, "Operations")."""

    name = "operations"
    verbose_name = _("Operaciones")
