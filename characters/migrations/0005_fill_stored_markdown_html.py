"""Fill the stored HTML of existing character descriptions and histories."""

from django.db import migrations


def fill(apps, schema_editor):
    from campaigns.stored_markdown import backfill_rendered_html

    backfill_rendered_html(apps.get_model("characters", "Character"), ("description", "history"))


class Migration(migrations.Migration):
    dependencies = [("characters", "0004_stored_markdown_html"), ("campaigns", "0007_fill_stored_markdown_html")]

    operations = [migrations.RunPython(fill, migrations.RunPython.noop, elidable=True)]
