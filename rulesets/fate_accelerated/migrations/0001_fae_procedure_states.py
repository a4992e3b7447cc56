"""Open Fate Accelerated procedures started before the step tables keep going: their stored state (the old
untyped JSON of ``rolls/flowkinds/fate_accelerated.py``) is rewritten into the typed states of
``rulesets.fate_accelerated.procedures`` (closed ones stay as they were: nothing reads their state but the
record's templates). The pure roll keeps its shape; what the window counted moves to the new fields."""

from __future__ import annotations

from typing import Any

from django.apps.registry import Apps
from django.db import migrations
from django.db.backends.base.schema import BaseDatabaseSchemaEditor

JSON = dict[str, Any]
ACTION_KEYS = (
    "phase",
    "action",
    "character",
    "character_name",
    "roller",
    "players",
    "target",
    "target_name",
    "defender",
    "difficulty",
    "difficulty_secret",
    "opposed",
    "roll_id",
    "roll",
    "defend_roll_id",
    "defend",
    "total",
    "defense_total",
    "outcome",
    "shifts",
    "harm",
    "options",
)
SIDES = {"roll": "action", "defend": "defense"}


def _texts(old: JSON) -> dict[str, str]:
    """What the old state knew of each aspect's words (sheet aspects in its picker list)."""
    return {str(a.get("ref")): str(a.get("text", "")) for a in old.get("aspects") or () if isinstance(a, dict)}


def _invoked(old: JSON, names: dict[str, str], board: dict[str, str]) -> list[JSON]:
    texts = {**_texts(old), **board}
    invoked = []
    for key, side in SIDES.items():
        for invocation in (old.get(key) or {}).get("invocations") or ():
            ref = str(invocation.get("aspect_key", ""))
            invoker = str(invocation.get("invoker", ""))
            invoked.append({"side": side, "ref": ref, "text": texts.get(ref, ref), "who": names.get(invoker, "")})
    return invoked


def action_state(old: JSON, names: dict[str, str], board: dict[str, str]) -> JSON:
    state = {key: old[key] for key in ACTION_KEYS if key in old}
    state["board_free"] = {"spent": {str(k): int(v) for k, v in (old.get("free_used") or {}).items() if int(v) > 0}}
    state["sheet_free_spent"] = [
        {
            **{k: spent[k] for k in ("aspect", "holder", "source", "same_roll_stacking", "index") if k in spent},
            "side": SIDES.get(str(spent.get("roll")), "action"),
        }
        for spent in old.get("sheet_free_spent") or ()
    ]
    state["invoked"] = _invoked(old, names, board)
    if state.get("difficulty_secret"):
        state["shifts"] = None  # the old state left it out; the typed one says it is unknown
    return state


def compel_state(old: JSON) -> JSON:
    compel = dict(old["compel"])
    named = old.get("compeller_name", "")
    return {
        "phase": old["phase"],
        "compel": compel,
        "aspect_text": old.get("aspect_text", ""),
        "target": int(compel["target"]),
        "target_name": old.get("target_name", ""),
        "target_actor": old.get("target_controller", "gm"),
        "compeller_name": "" if named == "DJ" else named,
        "compeller_actor": old.get("compeller_controller", "gm"),
    }


def converted(kind: str, old: JSON, names: dict[str, str], board: dict[str, str]) -> JSON:
    if kind == "action" and "board_free" not in old:
        return action_state(old, names, board)
    if kind == "compel" and "target_actor" not in old:
        return compel_state(old)
    return old  # a concession's state never changed shape; anything else is already typed


def forwards(apps: Apps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    Flow = apps.get_model("rolls", "Flow")
    Character = apps.get_model("characters", "Character")
    SceneAspect = apps.get_model("campaigns", "SceneAspect")
    open_flows = Flow.objects.filter(campaign__ruleset="fate-accelerated", status="open")
    for flow in open_flows.iterator():
        names = {str(pk): name for pk, name in Character.objects.filter(campaign_id=flow.campaign_id).values_list("pk", "name")}
        board = {f"scene:{pk}": text for pk, text in SceneAspect.objects.filter(scene_id=flow.scene_id).values_list("pk", "text")}
        flow.state = converted(flow.kind, dict(flow.state), names, board)
        flow.save(update_fields=["state"])


class Migration(migrations.Migration):
    dependencies = [("rolls", "0003_flow_record")]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
