"""Builders for the FATE SotC rolls tests: the characters tests' table (Sally Slick, Jet Black, the Barón
Negro) plus a scene, and helpers to take flow steps with scripted dice. Builders only (no tests).

Dice are d6 read as Fudge: 1-2 -> [-], 3-4 -> [ ], 5-6 -> [+]. An attack or a maneuver reads 8 d6:
the roller's four, then the opposition's four.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from accounts.models import User
from campaigns import services as campaign_services
from campaigns.models import Scene
from characters.models import Character, LedgerEntry
from rolls import runner
from rolls.models import Flow
from rulesets.fate_sotc.tests.sheet_fixtures import SotcTable, build_sotc_table
from systems.dice import ScriptedDice

ZERO = [3, 3, 3, 3]  # [ ] [ ] [ ] [ ] = +0
PLUS2 = [5, 5, 3, 3]  # +2
PLUS4 = [5, 5, 6, 6]  # +4
MINUS3 = [1, 1, 1, 3]  # -3


@dataclass
class SotcScene:
    t: SotcTable
    scene: Scene

    @property
    def gm(self) -> User:
        return self.t.gm


def build_scene(prefix: str = "rsotc_") -> SotcScene:
    table = build_sotc_table(prefix)
    scene = campaign_services.create_scene(actor=table.gm, campaign=table.campaign, title="El hangar")
    return SotcScene(table, scene)


def set_sheet(character: Character, **changes: Any) -> None:
    """Test setup only: put a stored sheet in a given state (play gets there through the ledger)."""
    character.refresh_from_db()
    Character.objects.filter(pk=character.pk).update(sheet={**character.sheet, **changes})
    character.refresh_from_db()


def fp(character: Character) -> int:
    character.refresh_from_db()
    return int(character.sheet["fate_points"])


def sheet(character: Character) -> dict[str, Any]:
    character.refresh_from_db()
    return dict(character.sheet)


def ledger_count(table: SotcTable) -> int:
    return LedgerEntry.objects.filter(campaign=table.campaign).count()


def start(actor: User, scene: Scene, flow_kind: str, dice: list[int] | None = None, **params: Any) -> Flow:
    return runner.start_procedure(
        actor=actor, scene=scene, kind=flow_kind, params=params, dice=ScriptedDice(dice) if dice is not None else None
    )


def step(
    actor: User, flow: Flow, name: str, dice: list[int] | None = None, key: str | None = None, **params: Any
) -> Flow:
    result = runner.take_step(
        actor=actor,
        flow=flow,
        step=name,
        params=params,
        idempotency_key=key or uuid.uuid4().hex,
        dice=ScriptedDice(dice) if dice is not None else None,
    )
    result.refresh_from_db()
    return result


def aspect_ref(character: Character, aspect_id: str = "aspecto-1") -> str:
    return f"character:{character.pk}:{aspect_id}"


def awaited(flow: Flow) -> dict[str, dict[str, Any]]:
    """What the procedure waits for, by step: ``{"approve": {"gm": True, "users": [], ...}}``."""
    return {entry["step"]: entry for entry in (flow.waiting_for or {}).get("steps", [])}


def lines(flow: Flow, language: str = "es", *, gm_only: bool | None = None) -> list[str]:
    """The procedure's record in the thread, in one language (``gm_only``: only those lines, or none)."""
    from rolls.models import FlowLine

    rows = FlowLine.objects.filter(flow=flow).order_by("position")
    if gm_only is not None:
        rows = rows.filter(gm_only=gm_only)
    return [row.text_en if language == "en" else row.text_es for row in rows]
