"""Open sockets when the campaign's settings change, or a viewer loses sight of it (``campaign.changed``).

Transactional, against the real ASGI application, as test_live_consumer.py.
"""

from __future__ import annotations

import pytest
from channels.testing import WebsocketCommunicator

from campaigns import services
from campaigns.consumers import CLOSE_NO_ACCESS, NO_ACCESS
from campaigns.models import CampaignEventLog, Visibility, Voice
from tests.campaigns.test_live_consumer import SOCKET_TIMEOUT, Socket, closed_with, connect_as, marker, run
from tests.personas import Table

pytestmark = pytest.mark.django_db(transaction=True)


async def refused_for_good(communicator: WebsocketCommunicator) -> None:
    """The socket says why, closes with 4403, and hears nothing more."""
    error = await communicator.receive_json_from(timeout=SOCKET_TIMEOUT)
    assert error["type"] == "error" and error["code"] == NO_ACCESS and error["message"], error
    assert await closed_with(communicator) == CLOSE_NO_ACCESS


async def test_turning_private_closes_the_sockets_of_non_members(table: Table) -> None:
    sockets = {role: await connect_as(table.user(role), table.campaign.pk) for role in ("gm", "player", "reader")}
    outsiders = {role: await connect_as(table.user(role), table.campaign.pk) for role in ("outsider", "anonymous")}
    await run(services.update_campaign, actor=table.gm, campaign=table.campaign, visibility=Visibility.PRIVATE)
    for socket in outsiders.values():
        await refused_for_good(socket.communicator)
    for role, socket in sockets.items():
        frame = await socket.event()
        assert (frame["type"], frame["data"]) == (
            "campaign.changed",
            {"fields": ["visibility"], "visibility": "private"},
        ), role
    # Members go on hearing the campaign; the closed sockets never hear of it again.
    end = await marker(table)
    for socket in sockets.values():
        assert (await socket.event())["seq"] == end
        await socket.close()
    for socket in outsiders.values():
        assert await socket.nothing()
        await socket.close()


async def test_removed_or_leaving_members_of_a_private_campaign_are_closed(private_table: Table) -> None:
    table = private_table
    reader = await connect_as(table.reader, table.campaign.pk)
    player2 = await connect_as(table.player2, table.campaign.pk)
    gm = await connect_as(table.gm, table.campaign.pk)
    await run(services.remove_member, actor=table.gm, campaign=table.campaign, user=table.reader)
    await refused_for_good(reader.communicator)
    await run(services.leave_campaign, user=table.player2, campaign=table.campaign)
    # player2 heard of the reader's removal first (the member list changed), then of their own leaving.
    assert (await player2.event())["data"] == {"user_id": table.reader.pk, "role": None}
    await refused_for_good(player2.communicator)
    await marker(table)
    assert await reader.nothing() and await player2.nothing()
    assert [(await gm.event())["data"].get("user_id") for _ in range(2)] == [table.reader.pk, table.player2.pk]
    for socket in (reader, player2, gm):
        await socket.close()


async def test_a_public_campaign_keeps_removed_members_as_readers(table: Table) -> None:
    player2 = await connect_as(table.player2, table.campaign.pk)
    await run(services.remove_member, actor=table.gm, campaign=table.campaign, user=table.player2)
    assert (await player2.event())["data"] == {"user_id": table.player2.pk, "role": None}
    # No longer a member: a post to the GMs (which a player would not see either) and one to everyone.
    await run(services.create_post, author=table.player, scene=table.scene, body="a", voice=Voice.OOC, recipients="gms")
    end = await marker(table)
    frame = await player2.event()
    assert frame["seq"] == end and frame["skipped"] == [end - 1]
    await player2.close()


async def test_settings_changes_reach_everyone_and_gm_notes_only_the_gms(table: Table) -> None:
    sockets: dict[str, Socket] = {
        role: await connect_as(table.user(role), table.campaign.pk) for role in ("gm", "player", "anonymous")
    }
    await run(services.update_campaign, actor=table.gm, campaign=table.campaign, title="Otro nombre", sheets_open=True)
    await run(services.update_campaign, actor=table.gm, campaign=table.campaign, gm_notes="El traidor es Bruno")
    await run(services.update_campaign, actor=table.gm, campaign=table.campaign, title="Otro nombre")  # no change
    end = await marker(table)
    received = {}
    for role, socket in sockets.items():
        frames = (await socket.events_until(end))[:-1]
        received[role] = [(f["type"], f["data"]) for f in frames]
        await socket.close()
    public = ("campaign.changed", {"fields": ["sheets_open", "title"], "visibility": "public"})
    assert received["gm"] == [public, ("campaign.changed", {"fields": ["gm_notes"], "visibility": "public"})]
    assert received["player"] == received["anonymous"] == [public]
    # The no-op update logged nothing: two campaign events in all.
    count = await run(lambda: CampaignEventLog.objects.filter(campaign=table.campaign, type="campaign.changed").count())
    assert count == 2
