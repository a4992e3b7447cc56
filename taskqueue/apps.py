from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TaskqueueConfig(AppConfig):
    name = "taskqueue"
    verbose_name = _("Cola de tareas")
