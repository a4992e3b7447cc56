"""Fill the stored HTML of existing campaign and scene texts (pages no longer render Markdown per view)."""

from django.db import migrations


def fill(apps, schema_editor):
    from campaigns.stored_markdown import backfill_rendered_html

    backfill_rendered_html(apps.get_model("campaigns", "Campaign"), ("introduction", "synopsis", "gm_notes"))
    backfill_rendered_html(apps.get_model("campaigns", "Scene"), ("description",))


class Migration(migrations.Migration):
    dependencies = [("campaigns", "0006_stored_markdown_html")]

    operations = [migrations.RunPython(fill, migrations.RunPython.noop, elidable=True)]
