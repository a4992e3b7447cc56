from django.db import migrations, models


def create_the_row(apps, schema_editor):
    apps.get_model("accounts", "ProfilesVersion").objects.get_or_create(pk=1)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0004_forum_user_avatar"),
    ]

    operations = [
        migrations.CreateModel(
            name="ProfilesVersion",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("value", models.BigIntegerField(default=0)),
            ],
        ),
        migrations.RunPython(create_the_row, migrations.RunPython.noop),
    ]
