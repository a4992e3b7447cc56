"""The policy's answers for the composer, socket refreshes and scene lists, per role (issue 9: no module
outside the policy reads a role for these)."""

from __future__ import annotations

import pytest

from campaigns import policy
from campaigns.events import EventType
from campaigns.forms import PostForm
from campaigns.models import Role, Scene, SceneAccess, Voice

ROLES: list[str | None] = [Role.GM, Role.PLAYER, Role.READER, None]


def _viewer(role: str | None, user_id: int | None = 7) -> policy.Viewer:
    return policy.Viewer(user_id=user_id, campaign_id=1, campaign_public=True, role=role)


@pytest.mark.parametrize("role", ROLES)
def test_composer_powers_are_the_gms(role: str | None) -> None:
    gm = role == Role.GM
    assert policy.composer_powers(_viewer(role)) == policy.ComposerPowers(
        narrator_voice=gm, npc_voice=gm, secret_dice=gm
    )


def test_composer_offers_only_what_the_powers_allow() -> None:
    gm = PostForm(powers=policy.composer_powers(_viewer(Role.GM)))
    assert [v for v, _label in gm.fields["voice"].choices] == [Voice.NARRATOR, Voice.NPC, Voice.OOC]  # type: ignore[attr-defined]
    assert {"npc_name", "roll_secret"} <= set(gm.fields)
    player = PostForm(powers=policy.composer_powers(_viewer(Role.PLAYER)))
    assert [v for v, _label in player.fields["voice"].choices] == [Voice.OOC]  # type: ignore[attr-defined]
    assert {"npc_name", "roll_secret"}.isdisjoint(player.fields)
    npc_only = PostForm(powers=policy.ComposerPowers(narrator_voice=False, npc_voice=True, secret_dice=False))
    assert "npc_name" in npc_only.fields and "roll_secret" not in npc_only.fields


@pytest.mark.parametrize("role", ROLES)
def test_event_changes_access(role: str | None) -> None:
    viewer = _viewer(role)
    gm = role == Role.GM
    assert policy.event_changes_access(viewer, EventType.MEMBERSHIP_CHANGED, {"user_id": 7}) is True
    assert policy.event_changes_access(viewer, EventType.MEMBERSHIP_CHANGED, {"user_id": 8}) is False
    assert policy.event_changes_access(viewer, EventType.CAMPAIGN_CHANGED, {"fields": []}) is not gm
    assert policy.event_changes_access(viewer, EventType.SCENE_CHANGED, {"scene_id": 3}) is not gm
    assert policy.event_changes_access(viewer, EventType.SCENE_CHANGED, {"scene_id": None}) is False
    assert policy.event_changes_access(viewer, EventType.POST_CREATED, {"scene_id": 3}) is False


@pytest.mark.parametrize("role", ROLES)
def test_scene_lists_decide(role: str | None) -> None:
    listed, open_to_all = Scene(access=SceneAccess.LISTED), Scene(access=SceneAccess.ALL_MEMBERS)
    assert policy.scene_lists_decide(_viewer(role), listed) is (role != Role.GM)
    assert policy.scene_lists_decide(_viewer(role), open_to_all) is False
    assert policy.scene_lists_decide(_viewer(role, user_id=None), listed) is False
