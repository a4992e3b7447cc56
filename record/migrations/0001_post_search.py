"""The post search index: a PostgreSQL tsvector table or an SQLite FTS5 table (see record.post_index)."""

from django.db import migrations

POSTGRES = [
    """CREATE TABLE record_post_search (
        post_id bigint PRIMARY KEY REFERENCES campaigns_post (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
        config regconfig NOT NULL,
        body tsvector NOT NULL,
        notes tsvector NOT NULL
    )""",
    "CREATE INDEX record_post_search_body ON record_post_search USING gin (body)",
    "CREATE INDEX record_post_search_notes ON record_post_search USING gin (notes)",
]
SQLITE = [
    "CREATE VIRTUAL TABLE record_post_search USING fts5(body, notes, tokenize = 'unicode61 remove_diacritics 2')",
]


def create(apps, schema_editor):
    for statement in POSTGRES if schema_editor.connection.vendor == "postgresql" else SQLITE:
        schema_editor.execute(statement)
    # Posts written before the index existed.
    config = {"es": "spanish", "en": "english"}
    Post = apps.get_model("campaigns", "Post")
    with schema_editor.connection.cursor() as cursor:
        for post in Post.objects.filter(kind="story").select_related("scene__campaign").iterator(chunk_size=500):
            if schema_editor.connection.vendor == "postgresql":
                lang = config.get(post.scene.campaign.language, "simple")
                cursor.execute(
                    "INSERT INTO record_post_search VALUES (%s, %s::regconfig, "
                    "to_tsvector(%s::regconfig, %s), to_tsvector(%s::regconfig, %s))",
                    [post.pk, lang, lang, post.body_source, lang, post.notes_source],
                )
            else:
                cursor.execute(
                    "INSERT INTO record_post_search (rowid, body, notes) VALUES (%s, %s, %s)",
                    [post.pk, post.body_source, post.notes_source],
                )


def drop(apps, schema_editor):
    schema_editor.execute("DROP TABLE record_post_search")


class Migration(migrations.Migration):
    dependencies = [("campaigns", "0007_fill_stored_markdown_html")]

    operations = [migrations.RunPython(create, drop)]
