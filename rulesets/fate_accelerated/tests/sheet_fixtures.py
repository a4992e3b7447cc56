"""Builders for the Fate Accelerated characters tests: a FAE campaign with a GM, two players, a reader
and an outsider, and approved characters (spec §9.1's Ana and Carla, and the NPC Bruno).

Builders only (no tests). The module is also a stand-in URLconf for the sheet fragments' operation URLs,
used by the template tests only while the characters app does not route them yet.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.test import override_settings
from django.urls import NoReverseMatch, include, path, reverse

from accounts.models import User
from campaigns import services as campaign_services
from campaigns.models import Campaign, Role
from characters import services
from characters.models import Character
from tests.personas import add_member, make_user

RULESET = "fate-accelerated"

S1: dict[str, Any] = {
    "key": "S1",
    "template": "bonus",
    "because": "soy una charlatana de primera",
    "actions": ["create_advantage"],
    "approach": "sneaky",
    "circumstance": "cuando converso con alguien",
}
S2: dict[str, Any] = {
    "key": "S2",
    "template": "once_per_session",
    "because": "soy rápida desenfundando",
    "effect": "actuar la primera en un conflicto físico",
}


def approaches(careful: int, clever: int, sneaky: int, flashy: int, quick: int, forceful: int) -> dict[str, int]:
    return dict(careful=careful, clever=clever, sneaky=sneaky, flashy=flashy, quick=quick, forceful=forceful)


def ana_sheet(**over: Any) -> dict[str, Any]:
    """Ana of §9.1, as a player writes her (refresh and fate points are computed on submission)."""
    data: dict[str, Any] = {
        "approaches": approaches(1, 2, 3, 0, 2, 1),
        "high_concept": "Espía de la Corona",
        "trouble": "Debo proteger a mi hermano",
        "other_aspects": ["Atenta a los detalles"],
        "stunts": [dict(S1), dict(S2)],
    }
    data.update(over)
    return data


def carla_sheet(**over: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "approaches": approaches(2, 1, 1, 3, 2, 0),
        "high_concept": "Duelista de fama mundial",
        "trouble": "Nunca rechazo un desafío",
    }
    data.update(over)
    return data


def bruno_sheet(**over: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "approaches": approaches(2, 1, 0, 1, 3, 2),
        "high_concept": "Matón del puerto",
        "trouble": "Miedo a los ratones",
    }
    data.update(over)
    return data


@dataclass
class FaeTable:
    campaign: Campaign
    gm: User
    player: User
    player2: User
    reader: User
    outsider: User
    ana: Character
    carla: Character
    bruno: Character

    def refresh(self) -> FaeTable:
        for c in (self.ana, self.carla, self.bruno):
            c.refresh_from_db()
        return self


def approved(
    actor: User, gm: User, campaign: Campaign, name: str, sheet: dict[str, Any], *, npc: bool = False
) -> Character:
    character = services.create_character(actor=actor, campaign=campaign, name=name, is_npc=npc, sheet=sheet)
    if not npc:
        character = services.submit_character(actor=actor, character=character)
    return services.approve_character(actor=gm, character=character)


def build_fae(prefix: str = "fae_", rules_settings: dict[str, Any] | None = None) -> FaeTable:
    gm = make_user(f"{prefix}gm", "Directora")
    player = make_user(f"{prefix}player", "Ana")
    player2 = make_user(f"{prefix}player2", "Carla")
    reader = make_user(f"{prefix}reader", "Lector")
    outsider = make_user(f"{prefix}outsider", "Ajena")
    campaign = campaign_services.create_campaign(
        creator=gm, title="La Corona en llamas", ruleset=RULESET, rules_settings=rules_settings or {}
    )
    add_member(campaign, gm, player, Role.PLAYER)
    add_member(campaign, gm, player2, Role.PLAYER)
    add_member(campaign, gm, reader, Role.READER)
    ana = approved(player, gm, campaign, "Ana", ana_sheet())
    carla = approved(player2, gm, campaign, "Carla", carla_sheet())
    bruno = approved(gm, gm, campaign, "Bruno", bruno_sheet(), npc=True)
    return FaeTable(campaign, gm, player, player2, reader, outsider, ana, carla, bruno)


# --- Stand-in URLconf for the operation URLs of the fragments ---------------------------------------


def _stub(request: HttpRequest, **kwargs: Any) -> HttpResponse:
    return HttpResponse("")


_operation_patterns = [
    path("characters/<int:pk>/operate/<str:operation>/", _stub, name="operate"),
    path("campaigns/<int:pk>/operate/<str:operation>/", _stub, name="operate_campaign"),
]
urlpatterns = [path("", include((_operation_patterns, "characters")))]


@contextmanager
def operation_urls() -> Iterator[None]:
    """The real routes when the characters app has them, else this module's stand-ins."""
    try:
        reverse("characters:operate", args=[1, "spend_fate_point"])
        reverse("characters:operate_campaign", args=[1, "gm_pool_gain"])
    except NoReverseMatch:
        with override_settings(ROOT_URLCONF=__name__):
            yield
        return
    yield
