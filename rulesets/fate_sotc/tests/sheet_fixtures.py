"""Builders for the FATE SotC characters tests: a SotC campaign (creation rules ``strict``) with a GM, two
players, a reader and an outsider, two approved player characters and an approved NPC.

Builders only (no tests); each test module wraps ``build_sotc_table`` in its own ``sotc`` fixture.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from accounts.models import User
from campaigns import services as campaign_services
from campaigns.models import Campaign, Role
from characters import services
from characters.models import Character, LedgerEntry
from rulesets import registry
from tests.personas import add_member, make_user

RULESET = "fate-sotc"

# The SotC pyramid: 1 at +5, 2 at +4, 3 at +3, 4 at +2, 5 at +1. Vigor +3 gives Salud 7 boxes,
# Coraje +1 gives Serenidad 6.
SKILLS: dict[str, int] = {
    "guns": 5,
    "pilot": 4,
    "athletics": 4,
    "endurance": 3,
    "alertness": 3,
    "academics": 3,
    "fists": 2,
    "drive": 2,
    "stealth": 2,
    "empathy": 2,
    "resolve": 1,
    "might": 1,
    "rapport": 1,
    "science": 1,
    "deceit": 1,
}

ASPECT_TEXTS = (
    "As del aire de la Gran Guerra",
    "Mi avión, la Dama Roja",
    "Deuda de honor con el doctor Méndez",
    "Nunca dejo a nadie atrás",
    "Sonrisa de anuncio",
    "Rivalidad con el Barón Negro",
    "Miembro del Club del Siglo",
    "Demasiado orgullosa para pedir ayuda",
    "Mapas de todos los cielos",
    "¡Agárrense, que despegamos!",
)


def aspects(count: int = 10) -> list[dict[str, Any]]:
    return [
        {"id": f"aspecto-{i + 1}", "text": ASPECT_TEXTS[i % 10] + ("" if i < 10 else f" {i}")} for i in range(count)
    ]


def stunts(count: int = 5) -> list[dict[str, Any]]:
    base: list[dict[str, Any]] = [
        {"name": "Acrobacias aéreas", "linked_skill": "pilot", "fp_cost": 0, "description": "+1 a Piloto al esquivar."},
        {"name": "Tiro imposible", "linked_skill": "guns", "fp_cost": 1, "description": "Un disparo a ciegas."},
        {"name": "Mecánica de campaña", "linked_skill": "academics", "fp_cost": 0, "description": ""},
        {"name": "Tenaz", "linked_skill": "endurance", "fp_cost": 0, "description": "Aguanta el dolor."},
        {"name": "Contactos en el hangar", "linked_skill": None, "fp_cost": 1, "description": "Siempre hay alguien."},
    ]
    return [dict(base[i % 5], name=base[i % 5]["name"] + ("" if i < 5 else f" {i}")) for i in range(count)]


def sheet_data(**over: Any) -> dict[str, Any]:
    """A complete, valid PC sheet as a player writes it (fate points and tracks come on submission)."""
    data: dict[str, Any] = {"skills": dict(SKILLS), "aspects": aspects(), "stunts": stunts()}
    data.update(over)
    return data


@dataclass
class SotcTable:
    campaign: Campaign
    gm: User
    player: User
    player2: User
    reader: User
    outsider: User
    hero: Character  # the player's approved PC
    rival: Character  # player2's approved PC
    npc: Character  # an approved NPC


def make_campaign(gm: User, **rules: Any) -> Campaign:
    settings = {"skill_pyramid_enforcement": "strict", **rules}
    return campaign_services.create_campaign(
        creator=gm, title="Los Pulp del Siglo", ruleset=RULESET, rules_settings=settings
    )


def approved_pc(campaign: Campaign, gm: User, owner: User, name: str, **over: Any) -> Character:
    character = services.create_character(actor=owner, campaign=campaign, name=name, sheet=sheet_data(**over))
    character = services.submit_character(actor=owner, character=character)
    return services.approve_character(actor=gm, character=character)


def build_sotc_table(prefix: str = "sotc_", **rules: Any) -> SotcTable:
    gm = make_user(f"{prefix}gm", "Directora")
    player = make_user(f"{prefix}player", "Ana")
    player2 = make_user(f"{prefix}player2", "Bruno")
    reader = make_user(f"{prefix}reader", "Lector")
    outsider = make_user(f"{prefix}outsider", "Ajena")
    campaign = make_campaign(gm, **rules)
    add_member(campaign, gm, player, Role.PLAYER)
    add_member(campaign, gm, player2, Role.PLAYER)
    add_member(campaign, gm, reader, Role.READER)
    hero = approved_pc(campaign, gm, player, "Sally Slick")
    # Jet has neither Vigor nor Coraje: both tracks keep their 5 boxes (the spec's vectors).
    rival_skills = {("survival" if k == "endurance" else "art" if k == "resolve" else k): v for k, v in SKILLS.items()}
    rival = approved_pc(campaign, gm, player2, "Jet Black", skills=rival_skills)
    npc = services.create_character(
        actor=gm,
        campaign=campaign,
        name="Barón Negro",
        is_npc=True,
        sheet={"skills": {"weapons": 5, "resolve": 4, "deceit": -1}, "fate_points": 3, "tenacity": 2},
    )
    npc = services.approve_character(actor=gm, character=npc)
    return SotcTable(campaign, gm, player, player2, reader, outsider, hero, rival, npc)


def op(
    table: SotcTable, actor: User, character: Character, operation: str, reason: str = "", **params: Any
) -> LedgerEntry:
    return services.apply_operation(
        actor=actor, campaign=table.campaign, operation=operation, params=params, character=character, reason=reason
    )


def snapshot(character: Character) -> tuple[dict[str, Any], int]:
    """The stored sheet and the ledger length: what a refusal must leave untouched."""
    character.refresh_from_db()
    return character.sheet, LedgerEntry.objects.filter(campaign=character.campaign).count()


def pools(character: Character) -> dict[str, int]:
    character.refresh_from_db()
    return registry.plugin(RULESET).sheet.pool_values(None, {character.pk: character.sheet})
