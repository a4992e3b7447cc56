"""Thread page and posting benchmark (issue 12): every figure against its floor, measured in the same run.

Run from the repository root::

    .venv/bin/python -m bench.thread_bench          # SQLite, then PostgreSQL when DATABASE_URL is set
    .venv/bin/python -m bench.thread_bench --quick  # fewer samples and shorter posting runs
    .venv/bin/python -m bench.thread_bench --rows posting  # only the posting rows (or: pages)

Each database runs in its own process, on a fresh test database (``test_<name>`` on PostgreSQL, so use your
own database name). The world: a Presagios campaign, a scene of 10,000 posts of about 1 KB (every 7th a
whisper, every 11th for the GMs, every 10th with a roll) and one of 100. The posts are bulk-inserted as
the services number them (writing 10,000 through the services would take minutes on a shared machine);
the posting rows write through the API.

Rows (``app`` / ``floor`` / ``ratio`` / target):

- queries of the thread page (HTML: anonymous, player, GM) and of the posts API (anonymous, token);
- thread page 1 for a player, p50, against a trivial view returning a static 50 KB page served by the same
  process and stack (``bench.thread_urls``), requests interleaved: in this process through Django's test
  client, and through one daphne process with DEBUG off (``bench.thread_asgi``), as issue 12 measured it;
  page 400 against page 1 (HTML and API); page 1 of the 10,000-post scene against the 100-post scene. The
  in-process rows render every view (kept pages off: they measure what a render costs and reads); the
  served rows measure the repeated view (answered from the kept page, ``campaigns.thread_cache``) and,
  beside it, the same page rendered, as a first view is;
- the roll builder's weight: the page with the builder inline (``?builder=1``) against the page that
  fetches it when opened;
- posting through the API on that daphne, one writer and eight (threads, each its own keep-alive
  connection): posts per second, p99, queries per post; eight against one, against the same eight writers
  posting to a view that only answers (what one server process allows), against the fair floor: the same
  eight writers posting to a bare ORM view (``bench.thread_urls.floor_orm_post``) that writes the rows a
  post writes (post, search row, roll and its chain link on every tenth, event log row, place in the thread,
  read mark) in one transaction and numbers the event after (issue 26, target >= 0.7x); on PostgreSQL, as a
  second line for the database alone, against ``pgbench`` running a custom script of a post's SQL (post,
  roll, event log entry, read mark, then the event's numbering) at the same concurrency on the same
  database (no target; without pgbench the row says it is skipped); and the same eight writers on a second
  server without Django's
  connection pool (PostgreSQL) or without the SQLite request queue (``tintero.sqlite.middleware``), and on
  PostgreSQL on uvicorn with one worker process and with two (what a second process adds).

``--server uvicorn`` serves the served rows with uvicorn instead of daphne.

Benchmarks report, they do not gate: the exit status is always 0.
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BIG, SMALL = 10_000, 100
WRITERS = 8


@dataclass
class Row:
    what: str
    app: str
    floor: str
    ratio: float | None
    target: str
    ok: bool | None

    def line(self) -> str:
        ratio = f"{self.ratio:6.2f}x" if self.ratio is not None else "      -"
        verdict = {True: "PASS", False: "OVER", None: ""}[self.ok]
        return f"  {self.what:<52} {self.app:>16} {self.floor:>16} {ratio} {self.target:>12} {verdict}"


def _p50(samples: list[float]) -> float:
    return statistics.median(samples)


def _p99(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def fill_scene(scene: Any, authors: list[Any], whisper_to: Any, count: int, *, body_size: int = 1000) -> None:
    """``count`` posts at the end of ``scene``, numbered as the services number them: every 7th a whisper to
    ``whisper_to``, every 11th for the GMs only, every 10th with a roll (copied from one made by the
    services). Bulk inserts: a 10,000-post scene in seconds."""
    from campaigns.models import Post, Recipients, Scene, Voice
    from rolls.models import Roll
    from rolls.services import RollSpec, create_post_with_rolls

    sample = create_post_with_rolls(
        author=authors[0], scene=scene, body="con dados", rolls=[RollSpec(kind="notation", data={"expression": "2d6"})]
    )
    roll = Roll.objects.get(post=sample)
    position = Scene.objects.values_list("last_post_position", flat=True).get(pk=scene.pk)
    filler = ("Ana empuja la puerta del almacén con el hombro; dentro huele a aceite de máquina. " * 20)[:body_size]
    posts = []
    for i in range(count):
        recipients = Recipients.EVERYONE
        if i % 7 == 3:
            recipients = Recipients.WHISPER
        elif i % 11 == 5:
            recipients = Recipients.GMS
        if recipients == Recipients.EVERYONE:
            position += 1
        posts.append(
            Post(
                scene=scene,
                author=authors[i % len(authors)],
                voice=Voice.OOC,
                body_source=f"mensaje {i} {filler}",
                body_html=f"<p>mensaje {i} {filler}</p>",
                renderer_version=sample.renderer_version,
                recipients=recipients,
                whisper_ids=[whisper_to.pk] if recipients == Recipients.WHISPER else [],
                position=position,
                revision_count=i % 3,
            )
        )
    created = Post.objects.bulk_create(posts, batch_size=1000)
    whispers = [p for p in created if p.recipients == Recipients.WHISPER]
    Post.whisper_to.through.objects.bulk_create(
        [Post.whisper_to.through(post_id=p.pk, user_id=whisper_to.pk) for p in whispers], batch_size=1000
    )
    fields = [f.attname for f in Roll._meta.concrete_fields if f.attname != "id"]
    copies = [Roll(**{name: getattr(roll, name) for name in fields}) for _post in created[::10]]
    for copy, post in zip(copies, created[::10], strict=True):
        copy.post_id = post.pk
    Roll.objects.bulk_create(copies, batch_size=1000)
    Scene.objects.filter(pk=scene.pk).update(last_post_position=position)
    scene.last_post_position = position


# --- One database, in its own process ---------------------------------------------------------------------


class World:
    def __init__(self) -> None:
        from campaigns import services
        from campaigns.models import Scene
        from tests.personas import build_table

        self.table = build_table()
        t = self.table
        self.big = t.scene
        fill_scene(self.big, [t.player, t.gm, t.player2], t.player, BIG)
        self.small = services.create_scene(actor=t.gm, campaign=t.campaign, title="Corta")
        fill_scene(self.small, [t.player, t.gm], t.player, SMALL)
        self.big = Scene.objects.get(pk=self.big.pk)
        self.small = Scene.objects.get(pk=self.small.pk)


def _clients(world: World) -> dict[str, Any]:
    from django.test import Client
    from rest_framework.test import APIClient

    from accounts.services import issue_token

    clients: dict[str, Any] = {"anonymous": Client(), "api_anonymous": APIClient()}
    for who in ("player", "gm"):
        client = Client()
        client.force_login(getattr(world.table, who))
        clients[who] = client
    token = APIClient()
    token.credentials(HTTP_AUTHORIZATION=f"Token {issue_token(user=world.table.player).key}")
    clients["api_token"] = token
    return clients


def _get(client: Any, url: str) -> float:
    started = time.perf_counter()
    response = client.get(url)
    elapsed = time.perf_counter() - started
    if response.status_code != 200:
        raise RuntimeError(f"{url}: {response.status_code}")
    return elapsed


def _queries(client: Any, url: str) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.get(url)  # the read marker moves on the first view
    with CaptureQueriesContext(connection) as ctx:
        client.get(url)
    return len(ctx.captured_queries)


def page_rows(world: World, samples: int) -> list[Row]:
    """In this process, with kept pages off: these rows are about what rendering a page costs and reads."""
    from django.test.utils import override_settings

    with override_settings(THREAD_PAGE_CACHE_ENTRIES=0):
        return _page_rows(world, samples)


def _page_rows(world: World, samples: int) -> list[Row]:
    from campaigns import selectors

    clients = _clients(world)
    big, small = world.big, world.small
    deep = min(400, selectors.page_count(big))
    urls = {
        "floor": "/__bench/floor/",
        "page1": f"/scenes/{big.pk}/",
        "deep": f"/scenes/{big.pk}/?page={deep}",
        "small": f"/scenes/{small.pk}/",
        "builder_inline": f"/scenes/{big.pk}/?builder=1",
        "builder": f"/scenes/{big.pk}/roll-builder/",
        "api1": f"/api/scenes/{big.pk}/posts/",
        "api_deep": f"/api/scenes/{big.pk}/posts/?page={deep}",
    }
    rows = []
    counts = {who: _queries(clients[who], urls["page1"]) for who in ("anonymous", "player", "gm")}
    deep_counts = {who: _queries(clients[who], urls["deep"]) for who in ("anonymous", "player", "gm")}
    rows.append(
        Row(
            "thread page queries, anonymous / player / GM",
            " / ".join(str(counts[w]) for w in ("anonymous", "player", "gm")),
            "page 1 and 400",
            None,
            "<= 8",
            max([*counts.values(), *deep_counts.values()]) <= 8,
        )
    )
    api = {who: _queries(clients[f"api_{who}"], urls["api1"]) for who in ("anonymous", "token")}
    rows.append(
        Row(
            "posts API queries, anonymous / token",
            f"{api['anonymous']} / {api['token']}",
            "",
            None,
            "<= 6",
            max(api.values()) <= 6,
        )
    )
    player, anon = clients["player"], clients["api_anonymous"]
    times: dict[str, list[float]] = {name: [] for name in urls}
    for name in urls:  # warm every path once
        _get(anon if name.startswith("api") else player, urls[name])
    for _ in range(samples):
        for name, url in urls.items():
            times[name].append(_get(anon if name.startswith("api") else player, url))
    p = {name: _p50(values) * 1000 for name, values in times.items()}

    def ratio_row(what: str, app: str, floor: str, target: float, label: str | None = None) -> Row:
        value = p[app] / p[floor]
        return Row(what, f"{p[app]:.1f} ms", f"{p[floor]:.1f} ms", value, label or f"<= {target}x", value <= target)

    in_process = ratio_row("thread page 1, player, p50, in process vs static 50 KB", "page1", "floor", 3.0)
    in_process.target, in_process.ok = "(daphne row)", None  # the target is on the served page, below
    rows.append(in_process)
    rows.append(ratio_row(f"thread page {deep} vs page 1 (HTML)", "deep", "page1", 1.1))
    rows.append(ratio_row(f"posts API page {deep} vs page 1", "api_deep", "api1", 1.1))
    rows.append(ratio_row(f"page 1: {BIG:,}-post scene vs {SMALL}-post scene", "page1", "small", 1.1))
    inline = p["builder_inline"] - p["page1"]
    rows.append(
        Row(
            "roll builder: page with it inline vs without (fetched)",
            f"{p['builder_inline']:.1f} ms",
            f"{p['page1']:.1f} ms",
            p["builder_inline"] / p["page1"],
            "on demand",
            None,
        )
    )
    rows.append(
        Row(
            "roll builder fragment when opened",
            f"{p['builder']:.1f} ms",
            f"{max(inline, 0):.1f} ms inline",
            None,
            "",
            None,
        )
    )
    return rows


def _writer(served: Served, url: str, token: str, deadline: float, latencies: list[float], errors: list[str]) -> None:
    import json

    headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}
    body = "Ana cuenta las cajas y recorre los pasillos. " * 22
    n = 0
    while time.perf_counter() < deadline:
        payload: dict[str, Any] = {"body": f"{n} {body}", "voice": "ooc"}
        if n % 10 == 0:
            payload["rolls"] = [{"kind": "notation", "data": {"expression": "2d6"}}]
        started = time.perf_counter()
        status = served.request("POST", url, headers, json.dumps(payload).encode())
        latencies.append(time.perf_counter() - started)
        if status != 201:
            errors.append(str(status))
        n += 1


def _posting(served: Served, url: str, tokens: list[str], seconds: float) -> tuple[float, float, int]:
    """Posts per second and p99 (seconds) to ``url`` with one thread (and connection) per token; errors
    counted."""
    latencies: list[float] = []
    errors: list[str] = []
    deadline = time.perf_counter() + seconds
    threads = [
        threading.Thread(target=_writer, args=(served, url, token, deadline, latencies, errors)) for token in tokens
    ]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    if errors:
        print(f"  ({len(errors)} failed posts, first: {errors[0]})")
    return len(latencies) / elapsed, _p99(latencies) if latencies else 0.0, len(errors)


def _post_queries(scene_id: int, token: str) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    payload = {"body": "una tirada", "voice": "ooc", "rolls": [{"kind": "notation", "data": {"expression": "2d6"}}]}
    with CaptureQueriesContext(connection) as ctx:
        client.post(f"/api/scenes/{scene_id}/posts/", payload, format="json")
    # The request's own reads (token, scene, the response's post) are counted too.
    return len([q for q in ctx.captured_queries if not q["sql"].upper().startswith(("SAVEPOINT", "RELEASE"))])


def posting_rows(world: World, served: Served, seconds: float) -> list[Row]:
    from django.db import connection

    from accounts.services import issue_token
    from campaigns import services
    from campaigns.models import Membership, Role
    from tests.personas import make_user

    t = world.table
    scene = services.create_scene(actor=t.gm, campaign=t.campaign, title="Escritura")
    writers = [t.player]
    for i in range(WRITERS - 1):
        user = make_user(f"writer{i}", f"Escritora {i}")
        Membership.objects.create(campaign=t.campaign, user=user, role=Role.PLAYER)
        writers.append(user)
    tokens = [issue_token(user=user).key for user in writers]
    queries = _post_queries(scene.pk, tokens[0])
    url = f"/api/scenes/{scene.pk}/posts/"
    _posting(served, url, tokens, 0.5)  # warm: every writer's first request
    one_rate, one_p99, _ = _posting(served, url, tokens[:1], seconds)
    many_rate, many_p99, _ = _posting(served, url, tokens, seconds)
    # What the server itself allows: the same requests to a view that only answers them.
    floor_rate, floor_p99, _ = _posting(served, "/__bench/floor-post/", tokens, seconds)
    # The fair floor: the same requests to a bare ORM view writing the rows a post writes.
    orm_rate, _orm_p99, _ = _posting(served, f"/__bench/floor-orm-post/{scene.pk}/", tokens, seconds)
    vendor = connection.vendor
    rows = [
        Row("posting through the API: queries per request", str(queries), "", None, "", None),
        Row(
            f"posting through {served.server}, 1 writer ({vendor})",
            f"{one_rate:.0f} posts/s",
            f"p99 {one_p99 * 1000:.0f} ms",
            None,
            "",
            None,
        ),
        Row(
            f"posting through {served.server}, {WRITERS} writers vs 1 ({vendor})",
            f"{many_rate:.0f} posts/s",
            f"{one_rate:.0f} posts/s",
            many_rate / one_rate if one_rate else None,
            ">= 1x",
            many_rate >= one_rate,
        ),
        Row(
            f"posting, {WRITERS} writers, p99 ({vendor})",
            f"{many_p99 * 1000:.0f} ms",
            f"floor p99 {floor_p99 * 1000:.0f} ms",
            None,
            "<= 300 ms",
            many_p99 <= 0.3,
        ),
        Row(
            f"posting, {WRITERS} writers vs a bare POST view, same {served.server}",
            f"{many_rate:.0f} posts/s",
            f"{floor_rate:.0f} req/s",
            many_rate / floor_rate if floor_rate else None,
            "",
            None,
        ),
        Row(
            f"posting, {WRITERS} writers vs bare ORM, same rows ({vendor})",
            f"{many_rate:.0f} posts/s",
            f"{orm_rate:.0f} posts/s",
            many_rate / orm_rate if orm_rate else None,
            ">= 0.7x",
            many_rate >= 0.7 * orm_rate if orm_rate else None,
        ),
    ]
    if vendor == "postgresql":
        rows.append(_pgbench_row(scene, writers, seconds, many_rate))
        rows.append(
            _variant_row(
                f"posting, {WRITERS} writers, without the connection pool",
                served.server,
                {"DATABASE_POOL": "off"},
                url,
                tokens,
                seconds,
            )
        )
        # What more processes give, now that a post holds no lock for its transaction's length (the
        # scene's row and the roll chain are its last writes): uvicorn with one worker, then two.
        for workers in (1, 2):
            rows.append(
                _variant_row(
                    f"posting, {WRITERS} writers, uvicorn, {workers} worker process{'es' if workers > 1 else ''}",
                    "uvicorn",
                    {},
                    url,
                    tokens,
                    seconds,
                    workers,
                )
            )
    else:
        rows.append(
            _variant_row(
                f"posting, {WRITERS} writers, without the request queue",
                served.server,
                {"SQLITE_WRITE_QUEUE_SECONDS": "0"},
                url,
                tokens,
                seconds,
            )
        )
    return rows


def _variant_row(
    what: str, server: str, env: dict[str, str], url: str, tokens: list[str], seconds: float, workers: int = 1
) -> Row:
    """The same eight writers on a second server that differs only by ``env`` (or its server and worker
    processes): its posts/s (``app`` column) and p99 (``floor`` column)."""
    variant = Served(server, env, workers)
    try:
        _posting(variant, url, tokens, 0.5)
        rate, p99, _errors = _posting(variant, url, tokens, seconds)
    finally:
        variant.close()
    return Row(what, f"{rate:.0f} posts/s", f"p99 {p99 * 1000:.0f} ms", None, "", None)


def _pgbench_script(scene: Any, author: Any) -> str:
    """One post's rows as plain SQL, the post's transaction then its event's numbering, for pgbench."""
    from django.db import connection

    from campaigns.models import CampaignEventLog, Post
    from rolls.models import Roll

    post = Post.objects.filter(scene=scene).exclude(rolls=None).first() or Post.objects.filter(scene=scene).first()
    roll = Roll.objects.filter(post__scene=scene).first()
    if post is None or roll is None:
        raise RuntimeError("the posting run left no post with a roll to copy")
    marker = 987_654_321

    def insert(model: Any, instance: Any, overrides: dict[str, str]) -> str:
        fields = [f for f in model._meta.concrete_fields if not f.primary_key]
        values = [
            marker if f.attname in overrides else f.get_db_prep_save(getattr(instance, f.attname), connection)
            for f in fields
        ]
        columns = ", ".join(connection.ops.quote_name(f.column) for f in fields)
        with connection.cursor() as cursor:
            sql: str = cursor.cursor.mogrify(
                f"INSERT INTO {model._meta.db_table} ({columns}) VALUES ({', '.join(['%s'] * len(values))})", values
            )
        for variable in overrides.values():
            sql = sql.replace(str(marker), variable, 1)
        return sql

    event = CampaignEventLog.objects.filter(campaign_id=scene.campaign_id, type="post.created").last()
    lines = [
        "BEGIN;",
        "UPDATE campaigns_scene SET last_post_position = last_post_position + 1, updated_at = now() "
        f"WHERE id = {scene.pk} RETURNING last_post_position AS position \\gset",
        insert(Post, post, {"position": ":position"}) + " RETURNING id AS post_id \\gset",
        insert(Roll, roll, {"post_id": ":post_id"}) + ";",
        insert(CampaignEventLog, event, {"seq": "NULL"}) + " RETURNING id AS event_id \\gset",
        "INSERT INTO campaigns_scenereadmark (user_id, scene_id, last_read_post_id, updated_at) "
        f"VALUES ({author.pk}, {scene.pk}, :post_id, now()) ON CONFLICT (user_id, scene_id) DO UPDATE SET "
        "last_read_post_id = GREATEST(campaigns_scenereadmark.last_read_post_id, excluded.last_read_post_id), "
        "updated_at = excluded.updated_at;",
        "END;",
        "BEGIN;",
        f"INSERT INTO campaigns_campaignsequence (campaign_id, last) VALUES ({scene.campaign_id}, 1) "
        "ON CONFLICT (campaign_id) DO UPDATE SET last = campaigns_campaignsequence.last + 1 "
        "RETURNING last AS seq \\gset",
        "UPDATE campaigns_campaigneventlog SET seq = :seq WHERE id = :event_id;",
        "END;",
    ]
    return "\n".join(lines) + "\n"


def _pgbench_row(scene: Any, writers: list[Any], seconds: float, app_rate: float) -> Row:
    from django.db import connection

    what = f"posting, {WRITERS} writers vs pgbench (the database alone)"
    if shutil.which("pgbench") is None:
        return Row(what, f"{app_rate:.0f} posts/s", "skipped: no pgbench", None, "", None)
    script = _pgbench_script(scene, writers[0])
    params = connection.settings_dict
    env = {**os.environ, "PGPASSWORD": str(params.get("PASSWORD") or "")}
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as handle:
        handle.write(script)
    command = [
        "pgbench", "-n", "-c", str(WRITERS), "-j", "2", "-T", str(max(1, int(seconds))), "-f", handle.name,
        "-h", str(params.get("HOST") or "127.0.0.1"), "-p", str(params.get("PORT") or 5432),
        "-U", str(params.get("USER") or "postgres"), str(params["NAME"]),
    ]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=seconds + 60, check=False)
    if os.environ.get("THREAD_BENCH_KEEP_SCRIPT"):
        print(f"  pgbench script kept at {handle.name}")
    else:
        os.unlink(handle.name)
    found = re.search(r"tps = ([0-9.]+)", result.stdout)
    if found is None:
        print(f"  pgbench: {(result.stderr or result.stdout).strip()[-400:]}")
        return Row(what, f"{app_rate:.0f} posts/s", "pgbench failed", None, "", None)
    floor = float(found.group(1))
    # No target: SQL alone, no HTTP or Python (a POST view that does nothing reaches a third of it).
    return Row(what, f"{app_rate:.0f} posts/s", f"{floor:.0f} tx/s", app_rate / floor, "", None)


# --- Through a server, as the issue measured: one daphne process, DEBUG off --------------------------


class Served:
    """A daphne process serving ``bench.thread_asgi`` on this run's database; requests over keep-alive
    HTTP/1.1 connections, one per thread."""

    def __init__(self, server: str = "daphne", extra_env: dict[str, str] | None = None, workers: int = 1) -> None:
        from django.db import connection

        from bench.fanout import ROOT, free_port, start_server

        params = connection.settings_dict
        secret = secrets.token_urlsafe(50)
        env = {**os.environ, "DEBUG": "0", "SECRET_KEY": secret, "SESSION_COOKIE_SECURE": "0"}
        env.pop("DATABASE_URL", None)
        env.update(extra_env or {})
        if connection.vendor == "postgresql":
            user, host, port = params.get("USER") or "postgres", params.get("HOST") or "127.0.0.1", params.get("PORT")
            env["DATABASE_URL"] = f"postgresql://{user}@{host}:{port or 5432}/{params['NAME']}"
        else:
            env["SQLITE_PATH"] = str(params["NAME"])
        if not (ROOT / "staticfiles" / "staticfiles.json").exists():  # DEBUG off serves hashed names (make static)
            subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"], cwd=ROOT, env=env)
        self.port = free_port()
        self.server = server
        log = Path(tempfile.mkdtemp(prefix=f"tintero-{server}-")) / "server.log"
        self.process = start_server(server, "bench.thread_asgi:application", self.port, env, log, workers)
        self.local = threading.local()

    def _connection(self) -> Any:
        import http.client

        conn = getattr(self.local, "conn", None)
        if conn is None:
            conn = self.local.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        return conn

    def request(self, method: str, url: str, headers: dict[str, str], body: bytes | None = None) -> int:
        conn = self._connection()
        try:
            conn.request(method, url, body=body, headers={"Host": "127.0.0.1", **headers})
            response = conn.getresponse()
        except (ConnectionError, OSError):  # the server closed a kept-alive connection: once more, anew
            conn.close()
            self.local.conn = None
            conn = self._connection()
            conn.request(method, url, body=body, headers={"Host": "127.0.0.1", **headers})
            response = conn.getresponse()
        response.read()
        return int(response.status)

    def close(self) -> None:
        from bench.fanout import stop

        stop(self.process)


def _session_cookie(user: Any) -> str:
    from django.test import Client

    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}"


def served_page_rows(world: World, served: Served, samples: int) -> list[Row]:
    """Thread page 1 for a player through daphne against the static floor page through daphne."""
    cookie = {"Cookie": _session_cookie(world.table.player)}
    urls = {
        "floor": "/__bench/floor/",
        "page1": f"/scenes/{world.big.pk}/",
        "small": f"/scenes/{world.small.pk}/",
        # A path never asked before: the page is rendered (and kept, unused), as on a first view.
        "rendered": f"/scenes/{world.big.pk}/?fresh=",
    }
    times: dict[str, list[float]] = {name: [] for name in urls}
    fresh = iter(range(1_000_000))

    def get(url: str) -> float:
        if url.endswith("?fresh="):
            url += str(next(fresh))
        started = time.perf_counter()
        status = served.request("GET", url, cookie)
        elapsed = time.perf_counter() - started
        if status != 200:
            raise RuntimeError(f"{url}: {status}")
        return elapsed

    for url in urls.values():
        get(url)
    for _ in range(samples):
        for name, url in urls.items():
            times[name].append(get(url))
    p = {name: _p50(values) * 1000 for name, values in times.items()}
    ratio = p["page1"] / p["floor"]
    rendered = p["rendered"] / p["floor"]
    return [
        Row(
            f"thread page 1, player, p50, through {served.server}",
            f"{p['page1']:.1f} ms",
            f"{p['floor']:.1f} ms",
            ratio,
            "<= 3.0x",
            ratio <= 3.0,
        ),
        Row(
            "  the same page rendered (a view not kept before)",
            f"{p['rendered']:.1f} ms",
            f"{p['floor']:.1f} ms",
            rendered,
            "",
            None,
        ),
    ]


def run_database(quick: bool, server: str, rows: str = "all") -> None:
    import django
    from django.conf import settings
    from django.db import connection
    from django.test.utils import override_settings

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tintero.settings")
    django.setup()
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    try:
        with override_settings(DEBUG=False, ROOT_URLCONF="bench.thread_urls"):
            started = time.perf_counter()
            world = World()
            if connection.vendor == "postgresql":
                # Settle the freshly written tables now, so autovacuum does not share the cores with the rows.
                with connection.cursor() as cursor:
                    cursor.execute("VACUUM ANALYZE")
            built = time.perf_counter() - started
            print(f"{connection.vendor}: built a {BIG:,}-post and a {SMALL}-post scene in {built:.0f} s")
            print(f"  {'what':<52} {'app':>16} {'floor':>16} {'ratio':>7} {'target':>12}")
            if rows != "posting":
                for row in page_rows(world, samples=9 if quick else 25):
                    print(row.line(), flush=True)
            served = Served(server)
            try:
                if rows != "posting":
                    for row in served_page_rows(world, served, samples=15 if quick else 41):
                        print(row.line(), flush=True)
                if rows != "pages":
                    for row in posting_rows(world, served, seconds=2.0 if quick else 5.0):
                        print(row.line(), flush=True)
            finally:
                served.close()
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer samples, shorter posting runs")
    parser.add_argument("--database", choices=["sqlite", "postgresql"], help="run one database in this process")
    parser.add_argument(
        "--server", choices=["daphne", "uvicorn"], default="daphne", help="the server of the served rows (daphne)"
    )
    parser.add_argument(
        "--rows", choices=["all", "pages", "posting"], default="all", help="which rows to measure (all)"
    )
    args = parser.parse_args(argv)
    if args.database:
        try:
            run_database(args.quick, args.server, args.rows)
        except Exception as exc:  # a benchmark reports, it does not gate
            print(f"  {args.database}: ERROR {exc!r}")
        return 0
    extra = [*(["--quick"] if args.quick else []), "--server", args.server, "--rows", args.rows]
    print("Thread page and posting (issue 12): each figure against its floor, in the same run")
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    subprocess.run([sys.executable, "-m", "bench.thread_bench", "--database", "sqlite", *extra], env=env, check=False)
    if os.environ.get("DATABASE_URL"):
        subprocess.run([sys.executable, "-m", "bench.thread_bench", "--database", "postgresql", *extra], check=False)
    else:
        print("postgresql: skipped (DATABASE_URL is not set): no PostgreSQL rows, no pgbench posting floor")
    return 0


if __name__ == "__main__":
    sys.exit(main())
