"""Selectors and the policy as data: who sees which campaign, scene and post, and in how many queries.

The same matrix runs against the HTML pages and the API in tests/test_policy_matrix.py; here it checks
that the predicates (single objects) and the Q filters (lists) agree.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.http import Http404
from django.test.utils import CaptureQueriesContext

from campaigns import policy, selectors, services
from campaigns.models import Post, Recipients, Scene, Voice
from tests.personas import Table

pytestmark = pytest.mark.django_db

ROLES = ["gm", "player", "player2", "reader", "outsider", "anonymous"]

# Which of the table's posts each role sees in the open scene.
EXPECTED_POSTS = {
    "gm": {"post_all", "post_gms", "whisper"},
    "player": {"post_all", "whisper"},  # the whisper is to the first player
    "player2": {"post_all", "post_gms"},  # player2 wrote the GM-only post
    "reader": {"post_all"},
    "outsider": {"post_all"},  # public campaign: outsiders read what is open to all
    "anonymous": {"post_all"},
}


def _post_names(table: Table, ids: set[int]) -> set[str]:
    names = {table.post_all.pk: "post_all", table.post_gms.pk: "post_gms", table.whisper.pk: "whisper"}
    return {names[i] for i in ids if i in names}


@pytest.mark.parametrize("role", ROLES)
def test_public_campaign_post_matrix(table: Table, role: str) -> None:
    user = table.user(role)
    viewer = policy.viewer_for(user, table.campaign)
    listed = {p.pk for p in selectors.thread_posts(viewer, table.scene)}
    assert _post_names(table, listed) == EXPECTED_POSTS[role]
    for name in ("post_all", "post_gms", "whisper"):
        post: Post = getattr(table, name)
        whisper_ids = list(post.whisper_to.values_list("id", flat=True))
        assert policy.may_see_post(viewer, post, whisper_ids) == (name in EXPECTED_POSTS[role]), name
        if name in EXPECTED_POSTS[role]:
            assert selectors.post_for(user, post.pk)[0] == post
        else:
            with pytest.raises(Http404):
                selectors.post_for(user, post.pk)


@pytest.mark.parametrize("role", ROLES)
def test_private_campaign_does_not_exist_for_outsiders(private_table: Table, role: str) -> None:
    user = private_table.user(role)
    member = role in {"gm", "player", "player2", "reader"}
    visible = set(selectors.visible_campaigns(user).values_list("pk", flat=True))
    assert (private_table.campaign.pk in visible) == member
    if member:
        selectors.campaign_for(user, private_table.campaign.pk)
        selectors.scene_for(user, private_table.scene.pk)
    else:
        with pytest.raises(Http404):
            selectors.campaign_for(user, private_table.campaign.pk)
        with pytest.raises(Http404):
            selectors.scene_for(user, private_table.scene.pk)
        with pytest.raises(Http404):
            selectors.post_for(user, private_table.post_all.pk)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("visibility", ["public", "private"])
def test_listed_scene_matrix(table: Table, private_table: Table, role: str, visibility: str) -> None:
    t = table if visibility == "public" else private_table
    user = t.user(role)
    can_read = role in {"gm", "player"}
    readable = set(selectors.readable_scenes(policy.viewer_for(user, t.campaign)).values_list("pk", flat=True))
    assert (t.listed_scene.pk in readable) == can_read
    if can_read:
        selectors.scene_for(user, t.listed_scene.pk)
    else:
        with pytest.raises(Http404):
            selectors.scene_for(user, t.listed_scene.pk)


@pytest.mark.parametrize("role", ROLES)
def test_write_matrix(table: Table, role: str) -> None:
    viewer = policy.viewer_for(table.user(role), table.campaign)

    def may_write(scene: object) -> bool:
        readers = list(scene.readers.values_list("id", flat=True))  # type: ignore[attr-defined]
        writers = list(scene.writers.values_list("id", flat=True))  # type: ignore[attr-defined]
        return policy.may_write_scene(viewer, scene, readers, writers)  # type: ignore[arg-type]

    assert may_write(table.scene) == (role in {"gm", "player", "player2"})
    assert may_write(table.listed_scene) == (role in {"gm", "player"})
    assert may_write(table.offtopic) == (role in {"gm", "player", "player2", "reader"})


def test_deleted_posts_only_for_gms(table: Table) -> None:
    services.delete_post(actor=table.player, post=table.post_all)
    gm = policy.viewer_for(table.gm, table.campaign)
    player = policy.viewer_for(table.player, table.campaign)
    assert table.post_all.pk in {p.pk for p in selectors.thread_posts(gm, table.scene)}
    assert table.post_all.pk not in {p.pk for p in selectors.thread_posts(player, table.scene)}


def test_hidden_aspects_only_for_gms(table: Table) -> None:
    services.add_scene_aspect(actor=table.gm, scene=table.scene, text="Visible")
    services.add_scene_aspect(actor=table.gm, scene=table.scene, text="Oculto", hidden=True)
    gm = policy.viewer_for(table.gm, table.campaign)
    player = policy.viewer_for(table.player, table.campaign)
    assert [a.text for a in selectors.scene_aspects(gm, table.scene)] == ["Visible", "Oculto"]
    assert [a.text for a in selectors.scene_aspects(player, table.scene)] == ["Visible"]


def test_unread_counts_and_novedades(table: Table) -> None:
    # Writing marks the thread read up to one's own post: player2 wrote the GM-only post after post_all,
    # and the later whisper is not theirs to see, so nothing is unread for them yet.
    viewer = policy.viewer_for(table.player2, table.campaign)
    scenes = {s.pk: s for s in selectors.readable_scenes(viewer)}
    assert scenes[table.scene.pk].post_count == 2  # post_all and their own GM-only post
    assert scenes[table.scene.pk].unread_count == 0
    assert table.scene.pk not in {u.scene.pk for u in selectors.unread_scenes(table.player2)}
    # The reader has read nothing: post_all is unread (the other two are not theirs to see).
    unread = {u.scene.pk: u for u in selectors.unread_scenes(table.reader)}
    assert unread[table.scene.pk].unread_count == 1
    assert unread[table.scene.pk].first_unread_id == table.post_all.pk
    services.mark_scene_read(user=table.reader, scene=table.scene)
    assert table.scene.pk not in {u.scene.pk for u in selectors.unread_scenes(table.reader)}
    new = services.create_post(author=table.player, scene=table.scene, body="nuevo")
    unread = {u.scene.pk: u for u in selectors.unread_scenes(table.player2)}
    assert set(unread) == {table.scene.pk}
    assert (unread[table.scene.pk].unread_count, unread[table.scene.pk].first_unread_id) == (1, new.pk)
    scenes = {s.pk: s for s in selectors.readable_scenes(viewer)}
    assert scenes[table.scene.pk].unread_count == 1


def test_novedades_never_count_invisible_posts(table: Table) -> None:
    services.mark_scene_read(user=table.reader, scene=table.scene)
    services.create_post(author=table.gm, scene=table.scene, body="x", voice=Voice.NARRATOR, recipients=Recipients.GMS)
    services.create_post(author=table.player, scene=table.listed_scene, body="solo yo")
    assert selectors.unread_scenes(table.reader) == []


def test_page_of_post_is_per_viewer(table: Table) -> None:
    for i in range(30):
        services.create_post(author=table.player, scene=table.scene, body=f"mensaje {i}")
    last = table.scene.posts.order_by("-id").first()
    assert last is not None
    gm = policy.viewer_for(table.gm, table.campaign)
    reader = policy.viewer_for(table.reader, table.campaign)
    # The GM sees 33 posts (the last is #33, page 2), the reader 31 (the last is #31, page 2).
    assert selectors.page_of_post(gm, last) == 2
    assert selectors.page_of_post(reader, last) == 2
    page = selectors.thread_page(reader, table.scene, 2)
    assert page.total == 31 and page.num_pages == 2 and len(page.posts) == 6


def _bulk_posts(table: Table, count: int) -> None:
    template = table.post_all
    start = Scene.objects.values_list("last_post_position", flat=True).get(pk=table.scene.pk)
    Post.objects.bulk_create(
        Post(
            scene=table.scene,
            author=table.player,
            voice=Voice.OOC,
            body_source=f"p{i}",
            body_html=f"<p>p{i}</p>",
            renderer_version=template.renderer_version,
            recipients=Recipients.WHISPER if i % 5 == 0 else Recipients.EVERYONE,
            position=start + i - i // 5,  # what the services give: a whisper shares the number before it
        )
        for i in range(count)
    )
    Scene.objects.filter(pk=table.scene.pk).update(last_post_position=start + count - 1 - (count - 1) // 5)
    table.scene.refresh_from_db()


def _thread_queries(table: Table) -> int:
    viewer = policy.viewer_for(table.player2, table.campaign)
    with CaptureQueriesContext(connection) as ctx:
        page = selectors.thread_page(viewer, table.scene, 1)
        for post in page.posts:
            _ = (post.author.public_name, post.character, list(post.whisper_to.all()), post.revision_count)
    return len(ctx.captured_queries)


def test_thread_page_queries_do_not_grow_with_posts(table: Table) -> None:
    _bulk_posts(table, 10)
    small = _thread_queries(table)
    _bulk_posts(table, 990)
    assert _thread_queries(table) == small


def test_scene_list_and_novedades_queries_do_not_grow(table: Table) -> None:
    def count() -> int:
        viewer = policy.viewer_for(table.player, table.campaign)
        with CaptureQueriesContext(connection) as ctx:
            list(selectors.readable_scenes(viewer))
            selectors.unread_scenes(table.player)
        return len(ctx.captured_queries)

    small = count()
    for i in range(20):
        services.create_scene(actor=table.gm, campaign=table.campaign, title=f"Escena {i}")
    _bulk_posts(table, 200)
    assert count() == small


def test_campaign_list_queries_do_not_grow(table: Table) -> None:
    def count() -> int:
        with CaptureQueriesContext(connection) as ctx:
            for campaign in selectors.visible_campaigns(table.outsider):
                _ = [m.user.public_name for m in campaign.gm_memberships], campaign.member_count
        return len(ctx.captured_queries)

    small = count()
    for i in range(30):
        services.create_campaign(creator=table.gm, title=f"Partida {i}", ruleset="generic")
    assert count() == small
