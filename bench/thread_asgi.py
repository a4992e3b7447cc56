"""The ASGI application the thread benchmark serves through daphne: Tintero with the benchmark's floor page
(``bench.thread_urls``), so the pages and their floor go through the same server, process and stack, as
issue 12 measured them. Never mount this module in production."""

from __future__ import annotations

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tintero.settings")

import django
from django.conf import settings

django.setup()
# Before the first request: the URL resolver reads ROOT_URLCONF lazily.
settings.ROOT_URLCONF = "bench.thread_urls"

from tintero.asgi import application  # noqa: E402

__all__ = ["application"]
