"""The policy's answers about who controls a character and who opens procedures, per role."""

from __future__ import annotations

import pytest

from campaigns import policy
from characters.models import Character, CharacterStatus
from tests.personas import Table

pytestmark = pytest.mark.django_db

ROLES = ["gm", "player", "player2", "reader", "outsider", "anonymous"]


@pytest.mark.parametrize("role", ROLES)
def test_who_controls_and_opens(table: Table, role: str) -> None:
    npc = Character.objects.create(
        campaign=table.campaign, is_npc=True, name="El mayordomo", status=CharacterStatus.APPROVED
    )
    viewer = policy.viewer_for(table.user(role), table.campaign)
    assert policy.controls_character(viewer, table.character) is (role == "player")
    assert policy.controls_character(viewer, npc) is (role == "gm")
    assert policy.may_open_character_procedure(viewer, table.character) is (role in {"gm", "player"})
    assert policy.may_run_gm_procedure(viewer) is (role == "gm")
    assert policy.may_open_roll_window(viewer, roller_id=table.player.pk, gm_only=False) is (role in {"gm", "player"})
    assert policy.may_open_roll_window(viewer, roller_id=table.gm.pk, gm_only=True) is (role == "gm")
