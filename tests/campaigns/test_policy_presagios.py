"""The policy's answers for the Presagios flows: who rolls an NPC's dice, who pays with threat."""

from __future__ import annotations

import pytest

from campaigns import policy
from campaigns.models import Role

ROLES: list[str | None] = [Role.GM, Role.PLAYER, Role.READER, None]


def _viewer(role: str | None, user_id: int | None = 7) -> policy.Viewer:
    return policy.Viewer(user_id=user_id, campaign_id=1, campaign_public=True, role=role)


@pytest.mark.parametrize("role", ROLES)
def test_only_a_gm_rolls_an_npc_in_their_own_name(role: str | None) -> None:
    assert policy.may_roll_for_npc(_viewer(role)) is (role == Role.GM)


@pytest.mark.parametrize("role", ROLES)
def test_only_a_gm_pays_with_threat(role: str | None) -> None:
    assert policy.may_pay_with_threat(_viewer(role)) is (role == Role.GM)


def test_anonymous_neither_rolls_for_npcs_nor_pays_threat() -> None:
    anonymous = _viewer(None, user_id=None)
    assert not policy.may_roll_for_npc(anonymous)
    assert not policy.may_pay_with_threat(anonymous)
