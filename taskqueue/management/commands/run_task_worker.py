"""``manage.py run_task_worker``: run queued background tasks (mail, digests, notifications) forever.

Also queues the periodic ones: the daily digests once a day at ``--digest-hour``, the automatic
reminders and the retention's trimming (``operations.retention``) every hour. Several workers may run at
once (on PostgreSQL they never take the same task).
"""

from __future__ import annotations

import logging
import time
from datetime import datetime
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.db import DatabaseError, close_old_connections, connection
from django.utils import timezone
from django_tasks.utils import get_random_id

from taskqueue.backend import work

logger = logging.getLogger(__name__)


class Command(BaseCommand):
    help = "Run background tasks from the database queue (Ctrl-C to stop)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--interval", type=float, default=1.0, help="Seconds to sleep when the queue is empty.")
        parser.add_argument("--queue", action="append", dest="queues", help="Only these queues (repeatable).")
        parser.add_argument("--once", action="store_true", help="Run what is ready now, then exit.")
        parser.add_argument("--digest-hour", type=int, default=8, help="Local hour of the daily digests.")
        parser.add_argument("--no-periodic", action="store_true", help="Do not queue digests and reminders.")

    def handle(self, *args: Any, **options: Any) -> None:
        worker_id = get_random_id()
        last_periodic: datetime | None = None
        self.stdout.write(f"task worker {worker_id} started")
        try:
            while True:
                # A long-lived process: drop connections the database closed (a restart, a timeout).
                if not connection.in_atomic_block:  # (a test runs the command inside its transaction)
                    close_old_connections()
                try:
                    if not options["no_periodic"]:
                        last_periodic = self._periodic(last_periodic, options["digest_hour"])
                    ran = work(worker_id, options["queues"])
                except DatabaseError:
                    logger.exception("task worker: database unavailable, retrying")
                    ran = 0
                if options["once"]:
                    break
                if not ran:
                    time.sleep(options["interval"])
        except KeyboardInterrupt:
            self.stdout.write("task worker stopped")

    def _periodic(self, last: datetime | None, digest_hour: int) -> datetime:
        from notifications import tasks
        from operations.tasks import trim_expired_rows

        now = timezone.localtime()
        if last is not None and now.hour == last.hour:
            return last
        trim_expired_rows.enqueue()
        tasks.send_reminders.enqueue()
        tasks.send_held_deliveries.enqueue()
        tasks.retry_stuck_deliveries.enqueue()
        if now.hour == digest_hour:
            tasks.send_digests.enqueue()  # keyed by the day: a second worker's digests send nothing twice
        return now
