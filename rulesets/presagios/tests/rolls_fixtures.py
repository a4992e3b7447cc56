"""A Presagios table for the rolls tests: the characters tests' campaign plus a scene, and small helpers.

Plain builders (no pytest fixtures here): each test module wraps them in its own fixture.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from accounts.models import User
from campaigns.models import Scene
from campaigns.services import create_scene
from characters import services
from characters.models import Character, LedgerEntry
from rolls import runner
from rolls.models import Flow, FlowLine
from rulesets.presagios.tests.fixtures import PresagiosTable, build_presagios
from systems.dice import ScriptedDice


@dataclass
class RollsTable:
    pt: PresagiosTable
    scene: Scene

    def __getattr__(self, name: str) -> Any:
        return getattr(self.pt, name)


def build(prefix: str = "rp_", rules_settings: dict[str, Any] | None = None) -> RollsTable:
    pt = build_presagios(prefix, rules_settings)
    scene = create_scene(actor=pt.gm, campaign=pt.campaign, title="La cripta")
    return RollsTable(pt, scene)


def threat(t: RollsTable) -> int:
    return int(services.rules_state(t.campaign)["threat"])


def set_threat(t: RollsTable, value: int) -> None:
    services.apply_operation(actor=t.gm, campaign=t.campaign, operation="set_threat", params={"value": value})


def sheet(character: Character) -> dict[str, Any]:
    character.refresh_from_db()
    return dict(character.sheet)


def current(character: Character, key: str = "c1") -> int:
    return int(sheet(character)["current"][("c1", "c2", "c3").index(key)])


def overcome(character: Character) -> int:
    return int(sheet(character)["overcome"])


def set_sheet(character: Character, **changes: Any) -> None:
    """Test setup only: put a sheet in the state a spec vector starts from (current ratings, points)."""
    character.refresh_from_db()
    Character.objects.filter(pk=character.pk).update(sheet={**character.sheet, **changes})
    character.refresh_from_db()


def ledger_ops(t: RollsTable) -> list[str]:
    return list(LedgerEntry.objects.filter(campaign=t.campaign).order_by("id").values_list("operation", flat=True))


def start(t: RollsTable, kind: str, params: dict[str, Any], actor: User | None = None) -> Flow:
    return runner.start_procedure(actor=actor or t.gm, scene=t.scene, kind=kind, params=params)


def step(
    flow: Flow,
    actor: User,
    name: str,
    params: dict[str, Any] | None = None,
    dice: list[int] | None = None,
    key: str = "",
) -> Flow:
    runner.take_step(
        actor=actor,
        flow=flow,
        step=name,
        params=params or {},
        dice=ScriptedDice(dice or []),
        idempotency_key=key,
    )
    flow.refresh_from_db()
    return flow


def challenge(t: RollsTable, character: Character, difficulty: int, *, characteristic: str = "c1", **more: Any) -> Flow:
    params = {"character_id": character.pk, "characteristic": characteristic, "difficulty": difficulty, **more}
    return start(t, "challenge", params)


def conflict(t: RollsTable, a: Character, b: Character, *, a_char: str = "c1", b_char: str = "c1", **more: Any) -> Flow:
    params = {
        "a_character_id": a.pk,
        "a_characteristic": a_char,
        "b_character_id": b.pk,
        "b_characteristic": b_char,
        **more,
    }
    return start(t, "conflict", params)


def awaited(flow: Flow) -> dict[str, tuple[bool, list[int]]]:
    """What the procedure waits for: step -> (the GMs?, user ids)."""
    return {e["step"]: (e["gm"], e["users"]) for e in (flow.waiting_for or {}).get("steps", [])}


def record(flow: Flow, *, gm_only: bool | None = None, lang: str = "es") -> list[str]:
    """The procedure's record lines, in order (``gm_only``: only those, or only the public ones)."""
    lines = FlowLine.objects.filter(flow=flow).order_by("position")
    if gm_only is not None:
        lines = lines.filter(gm_only=gm_only)
    return [line.text_en if lang == "en" else line.text_es for line in lines]
