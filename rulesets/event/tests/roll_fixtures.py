"""An Event table for the rolls tests: a GM (Juan), three players (Daria, Paco, Jenny) with approved
characters (Khan, Gorton, Valy), a reader, an outsider and an open scene. Narration vetoes are on, so two
vetoes can come from the table; ``rules`` switches optional rules (talent, total challenge...)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from accounts.models import User
from campaigns.models import Campaign, Role, Scene
from campaigns.services import create_campaign, create_scene
from characters.models import Character, CharacterStatus
from tests.personas import add_member, make_user

RULES: dict[str, Any] = {"core": {"narration_veto": True}}


def skill(name: str, improvements: int = 0) -> dict[str, Any]:
    return {"name": name, "improvements": improvements, "origin": "CREATION"}


def sheet(handle: str, *skills: dict[str, Any], talent: str | None = None) -> dict[str, Any]:
    return {
        "status": "ACTIVE",
        "handle": handle,
        "who_am_i": f"Soy {handle}.",
        "appearance": "Alto y con cicatrices.",
        "skills": list(skills),
        "talent": talent,
    }


@dataclass
class EventRollTable:
    campaign: Campaign
    scene: Scene
    gm: User
    daria: User
    paco: User
    jenny: User
    reader: User
    outsider: User
    khan: Character  # Daria's: Destreza+ (3 dice), Carterista (2)
    gorton: Character  # Paco's: Intimidar (2), Atletismo++ (4)
    valy: Character  # Jenny's: Carterista+ (3), Resistencia (2)
    guard: Character  # an NPC of the GM: Luchar+ (3)

    def set_rules(self, rules: dict[str, Any]) -> None:
        Campaign.objects.filter(pk=self.campaign.pk).update(rules_settings=rules)
        self.campaign.refresh_from_db()


def build_event_roll_table(rules: dict[str, Any] | None = None, prefix: str = "er_") -> EventRollTable:
    gm = make_user(f"{prefix}gm", "Juan")
    daria, paco, jenny = (make_user(f"{prefix}{n}", n.capitalize()) for n in ("daria", "paco", "jenny"))
    reader, outsider = make_user(f"{prefix}reader", "Lector"), make_user(f"{prefix}outsider", "Ajena")
    campaign = create_campaign(
        creator=gm, title="La moneda", ruleset="event", rules_settings=RULES if rules is None else rules
    )
    for user in (daria, paco, jenny):
        add_member(campaign, gm, user, Role.PLAYER)
    add_member(campaign, gm, reader, Role.READER)
    scene = create_scene(actor=gm, campaign=campaign, title="El mercado")

    def pc(owner: User, name: str, data: dict[str, Any]) -> Character:
        return Character.objects.create(
            campaign=campaign, owner=owner, name=name, status=CharacterStatus.APPROVED, sheet=data
        )

    khan = pc(daria, "Khan", sheet("Khan", skill("Destreza", 1), skill("Carterista"), talent="destreza"))
    gorton = pc(paco, "Gorton", sheet("Gorton", skill("Intimidar"), skill("Atletismo", 2)))
    valy = pc(jenny, "Valy", sheet("Valy", skill("Carterista", 1), skill("Resistencia")))
    guard = Character.objects.create(
        campaign=campaign,
        owner=gm,
        is_npc=True,
        name="Guardia",
        status=CharacterStatus.APPROVED,
        sheet=sheet("Guardia", skill("Luchar", 1)),
    )
    return EventRollTable(campaign, scene, gm, daria, paco, jenny, reader, outsider, khan, gorton, valy, guard)
