"""No te Duermas test helpers: a campaign with a GM and two players, valid sheets, approved protagonists.

Also a tiny URLconf (``URLCONF``) with the two operation URLs the sheet and pools fragments post to, so
the fragments render whatever state the views are in.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.urls import include, path

from accounts.models import User
from campaigns.models import Campaign, Role
from characters import services
from characters.models import CampaignRulesState, Character, LedgerEntry

KEY = "dont-rest-your-head"
URLCONF = "rulesets.dont_rest_your_head.tests.sheet_fixtures"

ANSWERS = {
    "awake": "Los gritos del piso de arriba, cada noche a las tres.",
    "just_happened": "Seguí a un cartero sin sombra hasta el Distrito Trece.",
    "surface": "Enfermera de urgencias, tranquila, eficaz.",
    "beneath": "No recuerda la cara de su hija.",
    "path": "Encontrar a su hija en la Ciudad de la Locura.",
}


def valid_sheet(**changes: Any) -> dict[str, Any]:
    """A protagonist as the player writes it: talents and the sheet's questions."""
    sheet: dict[str, Any] = {
        "exhaustion_talent": {"name": "Vista de Lince", "description": "Ve en la oscuridad y a lo lejos."},
        "madness_talent": {
            "name": "Piel de Piedra",
            "description": "Nada la hiere.",
            "price_rule": {"kind": "at_least", "n": 3, "min": None, "max": None},
        },
        "questions": dict(ANSWERS),
    }
    sheet.update(changes)
    return copy.deepcopy(sheet)


def _noop(request: HttpRequest, **kwargs: Any) -> HttpResponse:
    return HttpResponse()


urlpatterns = [
    path(
        "",
        include(
            (
                [
                    path("c/<int:pk>/operations/<str:op>/", _noop, name="operate"),
                    path("p/<int:pk>/operations/<str:op>/", _noop, name="operate_campaign"),
                ],
                "characters",
            )
        ),
    ),
    path("", include("rulesets.dont_rest_your_head.urls")),
]


@dataclass
class DryhTable:
    campaign: Campaign
    gm: User
    player: User
    player2: User
    reader: User

    def approved(self, owner: User | None = None, name: str = "Alia", **changes: Any) -> Character:
        """A protagonist created, submitted and approved through the services."""
        owner = owner or self.player
        character = services.create_character(actor=owner, campaign=self.campaign, name=name, sheet=valid_sheet())
        character = services.submit_character(actor=owner, character=character)
        character = services.approve_character(actor=self.gm, character=character)
        if changes:  # a battered sheet, as earlier operations would have left it
            Character.objects.filter(pk=character.pk).update(sheet={**character.sheet, **changes})
            character.refresh_from_db()
        return character

    def set_chest(self, **values: Any) -> None:
        state = services.rules_state(self.campaign)
        CampaignRulesState.objects.update_or_create(campaign=self.campaign, defaults={"state": {**state, **values}})

    def chest(self) -> dict[str, Any]:
        return services.rules_state(self.campaign)

    def ledger_count(self) -> int:
        return LedgerEntry.objects.filter(campaign=self.campaign).count()


def build_dryh_table() -> DryhTable:
    from tests.personas import add_member, make_user

    gm = make_user("narradora", "Narradora")
    player = make_user("rob", "Rob")
    player2 = make_user("lidia", "Lidia")
    reader = make_user("lector", "Lector")
    from campaigns.services import create_campaign

    campaign = create_campaign(creator=gm, title="Ojalá", ruleset=KEY)
    add_member(campaign, gm, player, Role.PLAYER)
    add_member(campaign, gm, player2, Role.PLAYER)
    add_member(campaign, gm, reader, Role.READER)
    return DryhTable(campaign=campaign, gm=gm, player=player, player2=player2, reader=reader)
