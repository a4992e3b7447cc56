"""Builders for the Fate Accelerated rolls tests: the characters table of spec §9.1 (Ana, Carla, the NPC
Bruno) plus a scene, scripted Fate dice, and helpers to read sheets. Builders only (no tests)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from accounts.models import User
from campaigns import services as campaign_services
from campaigns.models import Scene
from characters.models import Character
from rolls import runner
from rolls.models import Flow
from rulesets.fate_accelerated.tests.sheet_fixtures import FaeTable, build_fae
from systems.dice import ScriptedDice
from systems.fate_accelerated.dice import d3_faces


@dataclass
class FaeScene:
    table: FaeTable
    scene: Scene

    @property
    def gm(self) -> User:
        return self.table.gm

    @property
    def player(self) -> User:
        return self.table.player

    @property
    def player2(self) -> User:
        return self.table.player2

    @property
    def ana(self) -> Character:
        return self.table.ana

    @property
    def carla(self) -> Character:
        return self.table.carla

    @property
    def bruno(self) -> Character:
        return self.table.bruno


def build_scene(prefix: str = "fr_", rules_settings: dict[str, Any] | None = None) -> FaeScene:
    table = build_fae(prefix=prefix, rules_settings=rules_settings)
    scene = campaign_services.create_scene(actor=table.gm, campaign=table.campaign, title="El muelle en llamas")
    return FaeScene(table, scene)


def fate(*faces: str) -> ScriptedDice:
    """Scripted dice giving these 4dF faces in order, e.g. ``fate("--0-", "+0+0")``."""
    return ScriptedDice([d for f in faces for d in d3_faces(f)])


def fp(character: Character) -> int:
    character.refresh_from_db()
    return int(character.sheet["fate_points"])


def step(actor: User, flow: Flow, name: str, params: dict[str, Any] | None = None, **kw: Any) -> Flow:
    flow = runner.take_step(actor=actor, flow=flow, step=name, params=params or {}, **kw)
    flow.refresh_from_db()
    return flow
