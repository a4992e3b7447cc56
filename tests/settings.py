"""The test settings: Tintero's own, plus the games that exist only for tests (coin flip: proof that a game
is one folder and one line here)."""

import os

# Channel names in a shared Redis are global (not per database number): each test process, one per xdist
# worker, and every server it starts (they inherit the environment) gets its own prefix, so parallel
# workers and parallel runs never hear each other's campaign groups (the ids repeat across test databases).
os.environ.setdefault("CHANNEL_LAYER_PREFIX", f"tintero-test-{os.getpid()}")

from tintero.settings import *  # noqa: F403
from tintero.settings import INSTALLED_APPS

INSTALLED_APPS = [*INSTALLED_APPS, "tests.coinflip"]

# Background tasks run at once, in the test's thread.
TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
