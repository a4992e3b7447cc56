"""An Event campaign for the characters tests: a GM, three players (so two vetoes can come from the
table without the GM), a reader, an outsider; the communal pool, talent and progress rules on."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from accounts.models import User
from campaigns.models import Campaign, Role
from campaigns.services import create_campaign
from characters import services
from characters.models import Character
from tests.personas import add_member, make_user

SUPERNATURAL = {"key": "supernatural", "label": "Sobrenatural", "max_per_character": 1, "improvable": False}
RULES: dict[str, Any] = {
    "optional": {
        "communal_pool": {"enabled": True},
        "talent": {"enabled": True},
        "progress": {"enabled": True, "subject_to_veto": False},
        "skill_cap": {"enabled": False, "max_picks": 6},
    },
    "house_rules": {
        "skill_categories": [
            {"key": "supernatural", "label": "Sobrenatural", "max_per_character": 1, "improvable": False}
        ]
    },
}


def skill(name: str, improvements: int = 0, **extra: Any) -> dict[str, Any]:
    return {
        "name": name,
        "improvements": improvements,
        "origin": "CREATION",
        "progress_improvements": 0,
        "category": None,
        "improvable": True,
        **extra,
    }


def valid_sheet(**changes: Any) -> dict[str, Any]:
    """Six picks: Atletismo++ (3), Intimidar (1), Resistencia+ (2)."""
    sheet: dict[str, Any] = {
        "status": "CREATING",
        "handle": "Valy",
        "who_am_i": "Soy Valy, ladrona de guante blanco y peor mentirosa.",
        "appearance": "Veinte años, pelo rapado y una chaqueta dos tallas grande.",
        "skills": [skill("Atletismo", 2), skill("Intimidar"), skill("Resistencia", 1)],
        "talent": None,
        "progress_window": None,
        "progress_used": False,
    }
    sheet.update(changes)
    return sheet


@dataclass
class EventTable:
    campaign: Campaign
    gm: User
    ana: User
    bruno: User
    carla: User
    reader: User
    outsider: User

    def draft(self, owner: User | None = None, sheet: dict[str, Any] | None = None, name: str = "Valy") -> Character:
        return services.create_character(actor=owner or self.ana, campaign=self.campaign, name=name, sheet=sheet or {})

    def approved(self, owner: User | None = None, sheet: dict[str, Any] | None = None, name: str = "Valy") -> Character:
        owner = owner or self.ana
        character = self.draft(owner, sheet or valid_sheet(), name)
        character = services.submit_character(actor=owner, character=character)
        return services.approve_character(actor=self.gm, character=character)

    def set_rules(self, **optional: Any) -> None:
        rules = {**RULES, "optional": {**RULES["optional"], **optional}}
        Campaign.objects.filter(pk=self.campaign.pk).update(rules_settings=rules)
        self.campaign.refresh_from_db()


def build_event_table(rules: dict[str, Any] | None = None) -> EventTable:
    gm = make_user("ev_gm", "Juan")
    ana, bruno, carla = make_user("ev_ana", "Daria"), make_user("ev_bruno", "Paco"), make_user("ev_carla", "Jenny")
    reader, outsider = make_user("ev_reader", "Lector"), make_user("ev_outsider", "Ajena")
    campaign = create_campaign(
        creator=gm, title="La moneda", ruleset="event", rules_settings=RULES if rules is None else rules
    )
    for user in (ana, bruno, carla):
        add_member(campaign, gm, user, Role.PLAYER)
    add_member(campaign, gm, reader, Role.READER)
    return EventTable(campaign, gm, ana, bruno, carla, reader, outsider)
