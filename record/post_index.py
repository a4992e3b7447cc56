"""The full-text index of posts (body and game notes), kept in the post's own transaction.

One table, ``record_post_search``, in the engine of each deployment: a PostgreSQL table of two ``tsvector``
columns (Spanish or English stemming by the campaign's language, GIN-indexed) in production, an SQLite FTS5
virtual table (accents folded, rowid = post id) on the embedded default. Visibility is never stored here:
the search selector filters the matches with the policy, so the index can hold every post.
"""

from __future__ import annotations

from django.db import connection

from campaigns.models import Post, PostKind

TABLE = "record_post_search"
# The campaign's language decides the stemming of its posts (PostgreSQL text search configurations).
SEARCH_CONFIGS = {"es": "spanish", "en": "english"}


def search_config(language: str) -> str:
    return SEARCH_CONFIGS.get(language, "simple")


def index_post(post: Post, *, new: bool = False) -> None:
    """(Re)index one post's current text. The post services call this inside the post's transaction, so the
    index and the post never disagree. A procedure's record post has no text of its own. ``new``: the post
    was just written, so there is no older entry to replace (one statement instead of two on SQLite)."""
    if post.kind != PostKind.STORY:
        return
    config = search_config(post.scene.campaign.language)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                f"INSERT INTO {TABLE} (post_id, config, body, notes) "
                "VALUES (%s, %s::regconfig, to_tsvector(%s::regconfig, %s), to_tsvector(%s::regconfig, %s)) "
                "ON CONFLICT (post_id) DO UPDATE SET config = EXCLUDED.config, body = EXCLUDED.body, "
                "notes = EXCLUDED.notes",
                [post.pk, config, config, post.body_source, config, post.notes_source],
            )
        else:
            if not new:
                cursor.execute(f"DELETE FROM {TABLE} WHERE rowid = %s", [post.pk])
            cursor.execute(
                f"INSERT INTO {TABLE} (rowid, body, notes) VALUES (%s, %s, %s)",
                [post.pk, post.body_source, post.notes_source],
            )


def reindex_all() -> int:
    """Index every post again (after a bulk import of rows that bypassed the services). Returns the count."""
    count = 0
    posts = Post.objects.filter(kind=PostKind.STORY).select_related("scene__campaign").order_by("id")
    for post in posts.iterator(chunk_size=500):
        index_post(post)
        count += 1
    return count
