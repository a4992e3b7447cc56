"""The test settings: Tintero's own, plus the games that exist only for tests (coin flip: proof that a game
is one folder and one line here)."""

from tintero.settings import *  # noqa: F403
from tintero.settings import INSTALLED_APPS

INSTALLED_APPS = [*INSTALLED_APPS, "tests.coinflip"]

# Background tasks run at once, in the test's thread.
TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
