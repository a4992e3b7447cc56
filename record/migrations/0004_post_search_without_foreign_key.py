"""The PostgreSQL search table loses its foreign key to campaigns_post, like its SQLite FTS5 twin (which can
have none): a table outside Django's models that references a model's table makes every TRUNCATE of that
table fail ("cannot truncate a table referenced in a foreign key constraint"), which is how Django flushes
the database between transactional tests. An entry whose post is gone is never found: searches select
posts by id from the index, then read the posts."""

from django.db import migrations

CONSTRAINT = "record_post_search_post_id_fkey"


def drop_foreign_key(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"ALTER TABLE record_post_search DROP CONSTRAINT IF EXISTS {CONSTRAINT}")


def add_foreign_key(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            f"ALTER TABLE record_post_search ADD CONSTRAINT {CONSTRAINT} FOREIGN KEY (post_id) "
            "REFERENCES campaigns_post (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED"
        )


class Migration(migrations.Migration):
    dependencies = [("record", "0003_chain_existing_rolls")]

    operations = [migrations.RunPython(drop_foreign_key, add_foreign_key)]
