"""No te Duermas rolls and conflicts: a campaign with a GM, two players and their approved protagonists,
a scene, and helpers to run a conflict flow through the services with scripted dice."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from accounts.models import User
from campaigns import services as campaign_services
from campaigns.models import Campaign, Scene
from characters.models import CampaignRulesState, Character, LedgerEntry
from characters.services import rules_state
from rolls import runner
from rolls.models import Flow
from rulesets.dont_rest_your_head.tests.sheet_fixtures import KEY, DryhTable, build_dryh_table
from systems.dice import ScriptedDice

__all__ = ["KEY", "DryhRolls", "build_dryh_rolls"]


@dataclass
class DryhRolls:
    table: DryhTable
    scene: Scene
    alia: Character  # the player's protagonist
    gavin: Character  # the second player's protagonist

    @property
    def campaign(self) -> Campaign:
        return self.table.campaign

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
    def reader(self) -> User:
        return self.table.reader

    def sheet(self, character: Character) -> dict[str, Any]:
        return dict(Character.objects.get(pk=character.pk).sheet)

    def set_sheet(self, character: Character, **changes: Any) -> None:
        Character.objects.filter(pk=character.pk).update(sheet={**self.sheet(character), **changes})

    def chest(self) -> dict[str, Any]:
        return rules_state(self.campaign)

    def set_chest(self, **values: Any) -> None:
        CampaignRulesState.objects.update_or_create(
            campaign=self.campaign, defaults={"state": {**self.chest(), **values}}
        )

    def ledger(self, operation: str) -> list[LedgerEntry]:
        return list(LedgerEntry.objects.filter(campaign=self.campaign, operation=operation).order_by("id"))

    def open(self, actor: User | None = None, leader: Character | None = None, **params: Any) -> Flow:
        params.setdefault("leader", (leader or self.alia).pk)
        return runner.start_procedure(actor=actor or self.player, scene=self.scene, kind="conflict", params=params)

    def step(
        self, flow: Flow, actor: User, step: str, dice: list[int] | None = None, key: str = "", **params: Any
    ) -> Flow:
        runner.take_step(
            actor=actor,
            flow=flow,
            step=step,
            params=params,
            idempotency_key=key,
            dice=ScriptedDice(dice) if dice is not None else None,
        )
        return Flow.objects.get(pk=flow.pk)

    def opposed(self, pain: int, **params: Any) -> Flow:
        """A conflict for Alia, opposed by the GM with ``pain`` dice, waiting for both rolls."""
        flow = self.open(**params)
        return self.step(flow, self.gm, "oppose", pain=pain)


def build_dryh_rolls() -> DryhRolls:
    table = build_dryh_table()
    alia = table.approved(table.player, "Alia")
    gavin = table.approved(table.player2, "Gavin")
    scene = campaign_services.create_scene(actor=table.gm, campaign=table.campaign, title="El Distrito Trece")
    return DryhRolls(table=table, scene=scene, alia=alia, gavin=gavin)
