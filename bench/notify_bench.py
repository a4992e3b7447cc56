"""Notification fan-out benchmark: the cost of telling a campaign of 50 members (10 scenes) about a post.

Run from the repository root::

    .venv/bin/python -m bench.notify_bench          # ~30 s (mostly migrating a fresh SQLite database)
    .venv/bin/python -m bench.notify_bench --quick  # fewer rounds

Each round writes one post to everyone in one of the campaign's 10 scenes three ways, back to back, on a
fresh SQLite database with the database task queue (``taskqueue``): ``write`` is the post alone (the
notifications' subscription disconnected); ``enqueue`` is the same post with the subscription, i.e. what
the writer pays (one queued task row after commit); ``deliver`` is a worker running that task: the 49
in-site notifications (batched per scene: a second post in the scene updates lines instead of adding
them). Ratios are medians over rounds of enqueue/write and deliver/write. Benchmarks report, they do not
gate: the exit status is always 0.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    rounds = 6 if args.quick else args.rounds

    scratch = tempfile.mkdtemp(prefix="tintero-notify-bench-")
    os.environ["SQLITE_PATH"] = os.path.join(scratch, "bench.sqlite3")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tintero.settings")
    os.environ["TASKS_BACKEND"] = "taskqueue.backend.DatabaseBackend"
    import django

    django.setup()
    from django.core.management import call_command
    from django.db.models.signals import post_save

    call_command("migrate", verbosity=0)

    from accounts.models import User
    from campaigns import services
    from campaigns.models import CampaignEventLog, Membership, Role
    from notifications import subscriptions
    from notifications.models import Notification
    from taskqueue.backend import work
    from taskqueue.models import QueuedTask

    gm = User.objects.create_user(username="gm", password="x")
    campaign = services.create_campaign(creator=gm, title="Bench", ruleset="generic")
    players = [User.objects.create_user(username=f"p{i}", password="x") for i in range(49)]
    Membership.objects.bulk_create(Membership(campaign=campaign, user=p, role=Role.PLAYER) for p in players)
    scenes = [services.create_scene(actor=gm, campaign=campaign, title=f"Escena {i}") for i in range(10)]
    work()  # the set-up's own tasks

    write, enqueue, deliver = [], [], []
    for r in range(rounds):
        scene = scenes[r % len(scenes)]
        author = players[r % len(players)]
        post_save.disconnect(sender=CampaignEventLog, dispatch_uid="notifications.event_logged")
        t0 = time.perf_counter()
        services.create_post(author=author, scene=scene, body="Escribo sin que nadie se entere.")
        write.append(time.perf_counter() - t0)
        subscriptions.connect()
        t0 = time.perf_counter()
        services.create_post(author=author, scene=scene, body=f"Y esto sí lo sabrán todos, @p{(r + 1) % 49}.")
        enqueue.append(time.perf_counter() - t0)
        assert QueuedTask.objects.filter(status="READY").count() == 1
        t0 = time.perf_counter()
        work()
        deliver.append(time.perf_counter() - t0)

    told = Notification.objects.count()
    w, e, d = (statistics.median(x) * 1000 for x in (write, enqueue, deliver))
    print(f"notification fan-out: 50 members, 10 scenes, {rounds} rounds, {told} notification lines in all")
    ratio_enqueue = statistics.median(b / a for a, b in zip(write, enqueue, strict=True))
    ratio_deliver = statistics.median(b / a for a, b in zip(write, deliver, strict=True))
    print(f"  post write alone      {w:7.2f} ms")
    print(f"  post write + enqueue  {e:7.2f} ms   ratio {ratio_enqueue:.2f}")
    print(f"  deliver in-site (49)  {d:7.2f} ms   ratio {ratio_deliver:.2f}")


if __name__ == "__main__":
    main()
