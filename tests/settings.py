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

# The limits on repeated writes and requests stay out of the way of the suite's many writes by one user from
# one address; their own tests lower them with override_settings (tests/accounts/test_write_limits.py).
LIMIT_POSTS = LIMIT_API_WRITES = LIMIT_SIGNUPS_PER_ADDRESS = 1_000_000
LIMIT_INVITATIONS = LIMIT_JOIN_REQUESTS = LIMIT_NUDGES = 1_000_000
LIMIT_REQUESTS_PER_MINUTE = LIMIT_REQUESTS_BURST = 1_000_000
