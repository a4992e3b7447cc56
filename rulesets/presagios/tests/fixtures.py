"""A Presagios campaign for the characters tests: a GM, two players, a reader, an outsider, and sheets.

Plain builders (no pytest fixtures here): each test module wraps them in its own fixture.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from accounts.models import User
from campaigns.models import Campaign, Role
from campaigns.services import create_campaign
from characters import services
from characters.models import Character
from tests.personas import add_member, make_user


def pc_sheet(**changes: Any) -> dict[str, Any]:
    """A valid main character (spec vector 57): base (4,3,2), traits [3,1] [2,1] [2], 2 milestones, 1 complication."""
    sheet: dict[str, Any] = {
        "kind": "principal",
        "concept": "Médium sin licencia",
        "base": [4, 3, 2],
        "traits": [
            {"name": "Pelear", "characteristic": "c1", "value": 3, "supernatural": False},
            {"name": "Correr", "characteristic": "c1", "value": 1, "supernatural": False},
            {"name": "Mentir", "characteristic": "c2", "value": 2, "supernatural": False},
            {"name": "Ver a los muertos", "characteristic": "c2", "value": 1, "supernatural": True},
            {"name": "Ocultismo", "characteristic": "c3", "value": 2, "supernatural": False},
        ],
        "hitos": ["Sobrevivió al incendio del orfanato", "Su hermana desapareció en 1987"],
        "complications": ["Oye voces que no callan"],
        "descriptors": ["Nerviosa"],
        "weaknesses": [],
    }
    sheet.update(changes)
    return sheet


def npc_sheet(kind: str = "monstruo", **changes: Any) -> dict[str, Any]:
    sheet: dict[str, Any] = {
        "kind": kind,
        "concept": "La cosa del sótano",
        "base": [5, 0, 2],
        "traits": [{"name": "Garras", "characteristic": "c1", "value": 3, "supernatural": False}],
        "hitos": [],
        "complications": [],
        "descriptors": ["Húmeda"],
        "weaknesses": ["La luz del sol"],
    }
    sheet.update(changes)
    return sheet


@dataclass
class PresagiosTable:
    campaign: Campaign
    gm: User
    player: User
    player2: User
    reader: User
    outsider: User
    lucia: Character  # the player's main character (approved)
    hugo: Character  # player2's main character (approved)
    cosa: Character  # a monster NPC (approved)
    criado: Character  # a secondary NPC (approved)

    def refresh(self) -> None:
        for character in (self.lucia, self.hugo, self.cosa, self.criado):
            character.refresh_from_db()


def approved_pc(campaign: Campaign, gm: User, owner: User, name: str, sheet: dict[str, Any]) -> Character:
    character = services.create_character(actor=owner, campaign=campaign, name=name, sheet=sheet)
    services.submit_character(actor=owner, character=character)
    return services.approve_character(actor=gm, character=character)


def approved_npc(campaign: Campaign, gm: User, name: str, sheet: dict[str, Any]) -> Character:
    character = services.create_character(actor=gm, campaign=campaign, name=name, is_npc=True, sheet=sheet)
    return services.approve_character(actor=gm, character=character)


def build_presagios(prefix: str = "pr_", rules_settings: dict[str, Any] | None = None) -> PresagiosTable:
    gm = make_user(f"{prefix}gm", "Directora")
    player = make_user(f"{prefix}player", "Ana")
    player2 = make_user(f"{prefix}player2", "Bruno")
    reader = make_user(f"{prefix}reader", "Lector")
    outsider = make_user(f"{prefix}outsider", "Ajena")
    campaign = create_campaign(
        creator=gm, title="Ecos de Valdeluz", ruleset="presagios", rules_settings=rules_settings or {}
    )
    add_member(campaign, gm, player, Role.PLAYER)
    add_member(campaign, gm, player2, Role.PLAYER)
    add_member(campaign, gm, reader, Role.READER)
    lucia = approved_pc(campaign, gm, player, "Lucía", pc_sheet())
    hugo = approved_pc(
        campaign,
        gm,
        player2,
        "Hugo",
        pc_sheet(
            concept="Periodista",
            base=[5, 3, 1],
            traits=[
                {"name": "Aguante", "characteristic": "c1", "value": 3, "supernatural": False},
                {"name": "Puños", "characteristic": "c1", "value": 2, "supernatural": False},
                {"name": "Labia", "characteristic": "c2", "value": 1, "supernatural": False},
                {"name": "Contactos", "characteristic": "c2", "value": 1, "supernatural": False},
                {"name": "Olfato", "characteristic": "c2", "value": 1, "supernatural": False},
                {"name": "Archivos", "characteristic": "c3", "value": 1, "supernatural": False},
            ],
        ),
    )
    cosa = approved_npc(campaign, gm, "La Cosa", npc_sheet())
    criado = approved_npc(campaign, gm, "El criado", npc_sheet("secundario", concept="Mayordomo", base=[2, 2, 1]))
    return PresagiosTable(campaign, gm, player, player2, reader, outsider, lucia, hugo, cosa, criado)
