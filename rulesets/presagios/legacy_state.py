"""Open Presagios procedures stored by the old flow handlers, rewritten as the step tables' states.

Used once, by this app's data migration: a challenge or conflict opened before the step tables would
otherwise fail to load (its JSON had another shape). The secrets kept their shape; only the public state
and what the procedure waits for are rewritten. Closed procedures are left as they are (nothing loads
their state again: the thread shows their record).
"""

from __future__ import annotations

from typing import Any

JSON = dict[str, Any]
ENGLISH = {"Acción": "Action", "Interacción": "Interaction", "Cognición": "Cognition"}


def _actor(who: Any) -> Any:
    """The old ``{"gm": bool, "users": [...]}`` as one actor: the GMs, or the one user."""
    if not isinstance(who, dict) or who.get("gm") or not who.get("users"):
        return "gm"
    return int(who["users"][0])


def _label(spanish: str, key: str) -> JSON:
    words = spanish or key
    return {"es": words, "en": ENGLISH.get(words, words)}


def _damage_by(steps: JSON) -> Any:
    return _actor(steps["damage"]) if steps.get("damage") else None


def challenge_state(old: JSON, settings: JSON) -> JSON:
    machine = old["machine"]
    steps = old.get("steps") or {}
    return {
        "name": old.get("name", ""),
        "character_id": int(machine["character_id"]),
        "character_name": old.get("character_name", ""),
        "characteristic": _label(old.get("characteristic_label", ""), machine["characteristic"]),
        "roller": _actor(old.get("roller")),
        "players": [int(u) for u in old.get("players", [])],
        "locked": "retry" in steps and machine.get("stage") == "awaiting_roll",
        "discards_damage": bool(settings.get("retry_discards_pending_damage", True)),
        "machine": machine,
        "roll_ids": list(old.get("roll_ids", [])),
        "outcome": old.get("outcome"),
        "damage_by": _damage_by(steps),
        "threat_gain": old.get("threat_gain"),
    }


def conflict_state(old: JSON) -> JSON:
    machine = {key: value for key, value in old["machine"].items() if key != "winner"}
    machine["pairs"] = [[pair["a"], pair["b"]] for pair in machine.get("pairs", [])]
    sides = old["sides"]

    def side(key: str) -> JSON:
        facts = sides[key]
        return {
            "character_id": int(facts["character_id"]),
            "name": facts["name"],
            "kind": facts["kind"],
            "roller": _actor(facts.get("roller")),
            "characteristic": _label(facts.get("characteristic_label", ""), machine[key]["characteristic"]),
        }

    return {
        "name": old.get("name", ""),
        "a": side("a"),
        "b": side("b"),
        "players": [int(u) for u in old.get("players", [])],
        "machine": machine,
        "ready": list(old.get("ready", [])),
        "pair_roll_ids": [list(pair) for pair in old.get("pair_roll_ids", [])],
        "winner": old.get("winner"),
        "damage_characteristic": old.get("damage_characteristic"),
        "damage_by": _damage_by(old.get("steps") or {}),
        "threat_gain": old.get("threat_gain"),
    }


def convert_open_flows(flow_model: Any) -> int:
    """Rewrite every open Presagios procedure still in the old shape; returns how many."""
    from rulesets.kit.procedures import waiting_json
    from rulesets.presagios.procedures.challenge import CHALLENGE
    from rulesets.presagios.procedures.conflict import CONFLICT

    procedures: dict[str, Any] = {"challenge": CHALLENGE, "conflict": CONFLICT}
    changed = 0
    rows = flow_model.objects.filter(campaign__ruleset="presagios", status="open", kind__in=list(procedures))
    for flow in rows.select_related("campaign"):
        if "steps" not in (flow.state or {}):
            continue  # already a step table's state
        procedure = procedures[flow.kind]
        if flow.kind == "challenge":
            new = challenge_state(flow.state, flow.campaign.rules_settings or {})
        else:
            new = conflict_state(flow.state)
        state = procedure.load_state(new)
        flow.state = state.model_dump(mode="json")
        flow.waiting_for = waiting_json(procedure.waiting(state, None))
        flow.save(update_fields=["state", "waiting_for"])
        changed += 1
    return changed
