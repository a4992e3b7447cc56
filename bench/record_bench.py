"""Record benchmark: search p50 against a bare LIKE scan, and the export's time and peak memory.

Run from the repository root (a throwaway test database is created and dropped)::

    .venv/bin/python -m bench.record_bench                 # 100,000 posts, exports of 2,000 and 10,000 posts
    .venv/bin/python -m bench.record_bench --posts 20000   # smaller
    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/record_bench .venv/bin/python -m bench.record_bench

Search: the p50 of a two-word query with a campaign filter (the selector, policy filter included, as a
player) against the floor of a bare ``LIKE '%w1%' AND LIKE '%w2%'`` over the same campaign's posts. Export:
the archive streamed to nowhere for a small and a large campaign, wall time and peak Python memory
(tracemalloc): streamed, the peak must not grow with the campaign. Benchmarks report, they do not gate.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
import tracemalloc
from typing import Any

# A vocabulary of ~2,000 words; each query word is in about 5% of posts, both in about 0.25%.
FILLER = [f"palabra{n}" for n in range(2_000)]
QUERY = ("linterna", "cuervo")


def _setup() -> Any:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.db import connection
    from django.test.utils import setup_test_environment

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    setup_test_environment()
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    return old_name


def _body(rng: random.Random) -> str:
    words = [rng.choice(FILLER) for _ in range(40)]
    for word in QUERY:
        if rng.random() < 0.05:
            words[rng.randrange(40)] = word
    return " ".join(words)


def _populate(total: int, campaigns: int, prefix: str) -> list[Any]:
    """``campaigns`` campaigns sharing ``total`` posts, written in bulk and indexed as the services would."""
    from campaigns import services
    from campaigns.markdown import RENDERER_VERSION
    from campaigns.models import Post, Role
    from record.post_index import index_post
    from tests.personas import make_user

    rng = random.Random(15)
    gm = make_user(f"{prefix}_gm")
    player = make_user(f"{prefix}_player")
    made = []
    for n in range(campaigns):
        campaign = services.create_campaign(creator=gm, title=f"Bench {n}", ruleset="generic")
        services.invite(actor=gm, campaign=campaign, user=player, role=Role.PLAYER)
        invitation = campaign.invitations.get()
        services.respond_to_invitation(user=player, invitation=invitation, accept=True)
        scene = services.create_scene(actor=gm, campaign=campaign, title="Escena")
        made.append((campaign, scene))
    per = total // campaigns
    for _campaign, scene in made:
        batch = [
            Post(
                scene=scene,
                author=gm,
                voice="ooc",
                body_source=_body(rng),
                body_html="<p>bench</p>",
                renderer_version=RENDERER_VERSION,
            )
            for _ in range(per)
        ]
        for start in range(0, len(batch), 2000):
            for post in Post.objects.bulk_create(batch[start : start + 2000]):
                post.scene = scene
                index_post(post)
    return [(c, s, gm, player) for c, s in made]


def _p50(call: Any, repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def bench_search(campaign: Any, player: Any, repeats: int) -> None:
    from django.db import connection

    from campaigns.models import Post
    from record.selectors import SearchCriteria, search_posts

    criteria = SearchCriteria(text=" ".join(QUERY), campaign_id=campaign.pk)
    found = search_posts(player, criteria).total
    selector = _p50(lambda: search_posts(player, criteria), repeats)

    def like() -> int:
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT COUNT(*) FROM {Post._meta.db_table} p JOIN campaigns_scene s ON s.id = p.scene_id "
                "WHERE s.campaign_id = %s AND p.body_source LIKE %s AND p.body_source LIKE %s",
                [campaign.pk, "%linterna%", "%cuervo%"],
            )
            return int(cursor.fetchone()[0])

    floor_count = like()
    floor = _p50(like, repeats)
    print(
        f"search  {connection.vendor:<10} matches={found} (LIKE {floor_count})  p50 selector={selector * 1000:.1f} ms"
        f"  page of 20 + count, policy filter, snippets; LIKE floor={floor * 1000:.1f} ms (count only)",
        flush=True,
    )


def bench_export(campaign: Any, gm: Any, posts: int) -> None:
    from django.db import connection

    from campaigns.policy import viewer_for
    from record.export import Exporter, archive_chunks, batched

    tracemalloc.start()
    start = time.perf_counter()
    size = 0
    for block in batched(archive_chunks(Exporter(viewer_for(gm, campaign), campaign), gm.username)):
        size += len(block)
    elapsed = time.perf_counter() - start
    _current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(
        f"export  {connection.vendor:<10} posts={posts:>6}  {elapsed:.2f} s  archive={size / 1e6:.1f} MB  "
        f"peak Python memory={peak / 1e6:.1f} MB",
        flush=True,
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--posts", type=int, default=100_000, help="posts in the search corpus")
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--search-only", action="store_true", help="skip the export measurements")
    args = parser.parse_args(argv)
    old_name = _setup()
    from django.db import connection

    try:
        campaigns = _populate(args.posts, campaigns=10, prefix="search")
        campaign, _scene, _gm, player = campaigns[0]
        bench_search(campaign, player, args.repeats)
        if args.search_only:
            return 0
        small = _populate(2_000, campaigns=1, prefix="small")[0]
        large = _populate(10_000, campaigns=1, prefix="large")[0]
        bench_export(small[0], small[2], 2_000)
        bench_export(large[0], large[2], 10_000)
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
