"""Existing API tokens (DRF's authtoken table, one per user, stored in clear) keep working: their keys are
hashed into ApiToken, with the configured expiry counted from now. The old table is left as it was."""

from datetime import timedelta

from django.conf import settings
from django.db import migrations
from django.utils import timezone


def carry_over(apps, schema_editor):
    import hashlib

    connection = schema_editor.connection
    if "authtoken_token" not in connection.introspection.table_names():
        return
    ApiToken = apps.get_model("accounts", "ApiToken")
    ttl = getattr(settings, "API_TOKEN_TTL_DAYS", 90)
    expires = timezone.now() + timedelta(days=ttl) if ttl > 0 else None
    with connection.cursor() as cursor:
        cursor.execute("SELECT key, user_id FROM authtoken_token")
        rows = cursor.fetchall()
    ApiToken.objects.bulk_create(
        [
            ApiToken(
                user_id=user_id,
                name="API",
                key_hash=hashlib.sha256(key.encode()).hexdigest(),
                prefix=key[:8],
                expires_at=expires,
            )
            for key, user_id in rows
        ],
        ignore_conflicts=True,
    )


class Migration(migrations.Migration):
    dependencies = [("accounts", "0002_api_tokens")]

    operations = [migrations.RunPython(carry_over, migrations.RunPython.noop, elidable=True)]
