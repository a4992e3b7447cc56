"""Open Presagios procedures opened by the old flow handlers take the step tables' state shape."""

from __future__ import annotations

from typing import Any

from django.db import migrations


def forwards(apps: Any, schema_editor: Any) -> None:
    from rulesets.presagios.legacy_state import convert_open_flows

    convert_open_flows(apps.get_model("rolls", "Flow"))


class Migration(migrations.Migration):
    dependencies = [("rolls", "0003_flow_record")]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
