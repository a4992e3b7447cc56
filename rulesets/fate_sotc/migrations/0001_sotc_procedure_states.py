"""Open SotC procedures started before the step tables keep going: their stored state (the old untyped
JSON) is rewritten into the typed states of ``rulesets.fate_sotc.procedures`` (closed ones stay as they
were: nothing reads their state but the record's templates). Aspect references move to the shared FATE
grammar (``c:``/``k:``/``s:`` -> ``character:``/``consequence:``/``scene:``)."""

from __future__ import annotations

from typing import Any

from django.apps.registry import Apps
from django.db import migrations
from django.db.backends.base.schema import BaseDatabaseSchemaEditor

KINDS = ("invocation", "compel", "attack", "advantage", "declaration")
WINDOW_KEYS = ("phase", "roll", "requests", "guesses", "next_request", "spin_use", "pending_release")
EXTRA_KEYS = {
    "invocation": ("roll_kind", "track", "difficulty"),
    "attack": ("track", "hit", "spin", "terms", "accepted", "concession_refused"),
    "advantage": ("target", "text", "difficulty", "shifts", "placed", "persistence"),
}


def new_ref(ref: str) -> str:
    kind, _sep, rest = str(ref).partition(":")
    return {"c": "character:", "k": "consequence:", "s": "scene:"}.get(kind, kind + ":") + rest


def _dice(data: dict[str, Any]) -> dict[str, Any]:
    return {"d6": list(data.get("d6", [])), "faces": list(data["faces"]), "total": int(data["total"])}


def side(old: dict[str, Any]) -> dict[str, Any]:
    return {
        "roll_id": old["roll_id"],
        "index": old.get("index", 0),
        "character_id": old.get("character_id"),
        "name": old.get("name", ""),
        "actor": old.get("actor", "gm"),
        "skill": old.get("skill", ""),
        "roll": {
            "roller_id": str(old.get("roller_id", "")),
            "dice": _dice(old["dice"]),
            "skill_rating": int(old["skill_rating"]),
            "modifiers": old.get("modifiers", []),
            "history": [_dice(d) for d in old.get("history", [])],
            "invoked_aspect_ids": [new_ref(r) for r in old.get("invoked", [])],
            "free_invocations_used": int(old.get("free_used", 0)),
            "fp_advantages": int(old.get("advantages", 0)),
            "window_open": bool(old.get("window_open", True)),
        },
    }


def window_state(kind: str, old: dict[str, Any]) -> dict[str, Any]:
    state = {key: old[key] for key in (*WINDOW_KEYS, *EXTRA_KEYS.get(kind, ())) if key in old}
    state["sides"] = {key: side(value) for key, value in old["sides"].items()}
    state["requests"] = [{**r, "aspect": new_ref(r["aspect"])} for r in old.get("requests", [])]
    state["guesses"] = [{k: g[k] for k in ("id", "side", "text", "justification", "mode")} for g in old.get("guesses", [])]
    spin = old.get("spin_use")
    if spin:
        state["spin_use"] = {
            "holder": spin["holder"],
            "name": spin["name"],
            "actor": spin["actor"],
            "from_procedure": spin.get("from_flow", 0),
            "status": spin.get("status", "available"),
        }
    if kind == "invocation" and not state.get("roll_kind"):
        state["roll_kind"] = "simple"
    return state


def converted(kind: str, old: dict[str, Any]) -> dict[str, Any]:
    if kind in ("compel", "declaration") or "sides" not in old or "roll" in old.get("sides", {}).get("a", {}):
        return old  # already the typed shape (compels and declarations never changed)
    return window_state(kind, old)


def forwards(apps: Apps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    Flow = apps.get_model("rolls", "Flow")
    open_flows = Flow.objects.filter(campaign__ruleset="fate-sotc", kind__in=KINDS, status="open")
    for flow in open_flows.iterator():
        flow.state = converted(flow.kind, dict(flow.state))
        flow.save(update_fields=["state"])


class Migration(migrations.Migration):
    dependencies = [("rolls", "0003_flow_record")]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
