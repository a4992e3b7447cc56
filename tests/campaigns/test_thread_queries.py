"""The thread page's cost depends on the page, not the scene (issue 12): query counts for every viewer, on
the first and a deep page, in a 100- and a 10,000-post scene built with bulk inserts. Speed itself lives in
``make bench``; here only the number of queries, which is what makes a page grow with its scene."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from accounts.services import issue_token
from campaigns import policy, selectors, services
from campaigns.models import Post, Recipients, Scene, Voice
from rolls.models import Roll
from rolls.services import RollSpec, create_post_with_rolls
from tests.personas import Table

pytestmark = pytest.mark.django_db

HTML_BUDGET = 8
API_BUDGET = 6


def _fill(table: Table, count: int) -> None:
    """``count`` more posts in the table's scene, as the services would number them: every 7th a whisper to
    the player, every 11th for the GMs only, every 10th with a roll (copied from a real one)."""
    scene = Scene.objects.get(pk=table.scene.pk)
    sample = create_post_with_rolls(
        author=table.player,
        scene=scene,
        body="con dados",
        rolls=[RollSpec(kind="notation", data={"expression": "2d6"})],
    )
    roll = Roll.objects.get(post=sample)
    scene.refresh_from_db()
    position = scene.last_post_position
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
                author=table.player if i % 2 else table.gm,
                voice=Voice.OOC,
                body_source=f"mensaje {i}",
                body_html=f"<p>mensaje {i}</p>",
                renderer_version=sample.renderer_version,
                recipients=recipients,
                whisper_ids=[table.player.pk] if recipients == Recipients.WHISPER else [],
                position=position,
                revision_count=i % 3,
            )
        )
    created = Post.objects.bulk_create(posts, batch_size=1000)
    whispers = [p for p in created if p.recipients == Recipients.WHISPER]
    Post.whisper_to.through.objects.bulk_create(
        [Post.whisper_to.through(post_id=p.pk, user_id=table.player.pk) for p in whispers], batch_size=1000
    )
    rolls = []
    for post in created[::10]:
        roll.pk = None
        roll.post_id = post.pk
        rolls.append(Roll(**{f.attname: getattr(roll, f.attname) for f in Roll._meta.concrete_fields}))
    Roll.objects.bulk_create(rolls, batch_size=1000)
    Scene.objects.filter(pk=scene.pk).update(last_post_position=position)


def _client(table: Table, who: str) -> Client:
    client = Client()
    if who != "anonymous":
        client.force_login(getattr(table, who))
    return client


def _html_queries(client: Client, scene_id: int, page: int) -> tuple[int, str]:
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(f"/scenes/{scene_id}/?page={page}")
    assert response.status_code == 200
    return len(ctx.captured_queries), response.content.decode()


def _api_queries(client: APIClient, scene_id: int, page: int) -> int:
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(f"/api/scenes/{scene_id}/posts/?page={page}")
    assert response.status_code == 200, response.content
    return len(ctx.captured_queries)


@pytest.mark.parametrize("size", [100, 10_000])
def test_thread_page_queries_for_every_viewer(table: Table, size: int) -> None:
    _fill(table, size)
    scene = Scene.objects.get(pk=table.scene.pk)
    last = selectors.page_count(scene)
    counts = {}
    for who in ("anonymous", "player", "gm"):
        client = _client(table, who)
        for page in (1, last // 2, last):
            # The first view also moves the read marker (one write); the budget holds with it.
            counts[who, page], html = _html_queries(client, scene.pk, page)
            assert "mensaje" in html
    assert max(counts.values()) <= HTML_BUDGET, counts
    # The same work on a deep page as on the first: nothing is counted or skipped over.
    for who in ("anonymous", "player", "gm"):
        assert counts[who, last // 2] <= counts[who, 1], counts


@pytest.mark.parametrize("size", [100, 10_000])
def test_posts_api_queries(table: Table, size: int) -> None:
    _fill(table, size)
    scene = Scene.objects.get(pk=table.scene.pk)
    last = selectors.page_count(scene)
    token = APIClient()
    token.credentials(HTTP_AUTHORIZATION=f"Token {issue_token(user=table.player).key}")
    for client in (APIClient(), token):
        for page in (1, last // 2, last):
            assert _api_queries(client, scene.pk, page) <= API_BUDGET


def test_pages_hold_the_same_public_posts_for_every_viewer(table: Table) -> None:
    _fill(table, 100)
    scene = Scene.objects.get(pk=table.scene.pk)
    reader = policy.viewer_for(table.reader, table.campaign)
    gm = policy.viewer_for(table.gm, table.campaign)
    for number in range(1, selectors.page_count(scene) + 1):
        for_reader = selectors.thread_page(reader, scene, number).posts
        for_gm = selectors.thread_page(gm, scene, number).posts
        public = [p.pk for p in for_gm if p.recipients == Recipients.EVERYONE]
        assert [p.pk for p in for_reader] == public  # a reader's page: the public posts of the GM's page
        assert len(public) == 25 or number == selectors.page_count(scene)
        for post in for_gm:
            assert selectors.page_of_post(gm, post) == number


def test_new_posts_are_numbered_in_their_transaction(table: Table) -> None:
    scene = table.scene
    scene.refresh_from_db()
    before = scene.last_post_position
    public = services.create_post(author=table.player, scene=scene, body="a todos")
    whisper = services.create_post(
        author=table.player, scene=scene, body="bajito", recipients=Recipients.WHISPER, whisper_to=[table.gm.pk]
    )
    assert (public.position, whisper.position) == (before + 1, before + 1)
    assert whisper.whisper_ids == [table.gm.pk]
    scene.refresh_from_db()
    assert scene.last_post_position == before + 1


def test_edits_keep_the_revision_count(table: Table) -> None:
    post = services.create_post(author=table.player, scene=table.scene, body="uno")
    services.edit_post(actor=table.player, post=post, body="dos")
    services.edit_post(actor=table.player, post=post, body="dos")  # no change: no revision
    services.edit_post(actor=table.player, post=post, body="tres")
    post.refresh_from_db()
    assert post.revision_count == post.revisions.count() == 2
