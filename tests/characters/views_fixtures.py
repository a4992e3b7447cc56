"""Builders for the characters' page, API and policy tests (plain functions: explicit, no fixture magic).

A ``SheetTable`` is a campaign of a chosen ruleset with a GM, a player who owns an approved PC, a second
player with their own PC, a reader, an outsider, and a GM's NPC. Private parts carry marker strings so
tests can check they never reach someone who may not see them.
"""

from __future__ import annotations

from typing import Any

from django.test import Client

from accounts.models import User
from campaigns import services as campaign_services
from campaigns.models import Campaign, Membership, Role, Visibility
from characters import services
from characters.models import Character, CharacterStatus

FAE_SHEET: dict[str, Any] = {
    "name": "Zorro",
    "approaches": {"careful": 1, "clever": 2, "flashy": 2, "forceful": 0, "quick": 3, "sneaky": 1},
    "high_concept": "Espadachín enmascarado",
    "trouble": "Buscado por la ley",
    "other_aspects": [],
    "stunts": [],
}

PRIVATE_MARKERS = ("NOTA-PRIVADA-7f3a", "EQUIPO-PRIVADO-9c1e", "HOJA-PRIVADA-4b2d")
PUBLIC_MARKER = "DESCRIPCION-PUBLICA-2e8f"


def make_user(username: str, display_name: str = "") -> User:
    user = User(username=username, display_name=display_name or username.title())
    user.set_unusable_password()
    user.save()
    return user


def client_for(user: User | None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def approved(character: Character, gm: User) -> Character:
    """Submit (PCs) and approve through the services, so the creation rules run."""
    if not character.is_npc:
        services.submit_character(actor=character.owner, character=character)
    return services.approve_character(actor=gm, character=character)


class SheetTable:
    def __init__(
        self,
        ruleset: str = "generic",
        visibility: str = Visibility.PUBLIC,
        sheets_open: bool = False,
        prefix: str = "",
        rules_settings: dict[str, Any] | None = None,
    ) -> None:
        self.gm = make_user(f"{prefix}master", "La Máster")
        self.player = make_user(f"{prefix}jugadora", "Jugadora Uno")
        self.player2 = make_user(f"{prefix}jugador2", "Jugador Dos")
        self.reader = make_user(f"{prefix}lector", "El Lector")
        self.outsider = make_user(f"{prefix}fuera", "Forastero")
        self.campaign: Campaign = campaign_services.create_campaign(
            creator=self.gm, title="Hojas", ruleset=ruleset, visibility=visibility
        )
        Campaign.objects.filter(pk=self.campaign.pk).update(
            sheets_open=sheets_open, rules_settings=rules_settings or {}
        )
        self.campaign.refresh_from_db()
        Membership.objects.create(campaign=self.campaign, user=self.player, role=Role.PLAYER)
        Membership.objects.create(campaign=self.campaign, user=self.player2, role=Role.PLAYER)
        Membership.objects.create(campaign=self.campaign, user=self.reader, role=Role.READER)
        self.pc = self.character(self.player, "Alba")
        self.pc2 = self.character(self.player2, "Bruno")
        self.npc = self.character(None, "El Conde")

    def sheet(self, name: str) -> dict[str, Any]:
        if self.campaign.ruleset == "fate-accelerated":
            return {**FAE_SHEET, "name": name}
        return {"notes": f"{PRIVATE_MARKERS[2]} de {name}"}

    def character(self, owner: User | None, name: str, *, approve: bool = True) -> Character:
        character = services.create_character(
            actor=owner or self.gm,
            campaign=self.campaign,
            name=name,
            is_npc=owner is None,
            sheet=self.sheet(name),
            description=f"{PUBLIC_MARKER} {name}",
            notes=f"{PRIVATE_MARKERS[0]} {name}",
            equipment=f"{PRIVATE_MARKERS[1]} {name}",
        )
        return approved(character, self.gm) if approve else character

    def user(self, role: str) -> User | None:
        return {
            "gm": self.gm,
            "owner": self.player,
            "player": self.player,
            "other": self.player2,
            "player2": self.player2,
            "reader": self.reader,
            "outsider": self.outsider,
            "anonymous": None,
        }[role]

    def reload(self, character: Character) -> Character:
        return Character.objects.get(pk=character.pk)


__all__ = ["FAE_SHEET", "PRIVATE_MARKERS", "PUBLIC_MARKER", "CharacterStatus", "SheetTable", "client_for"]
