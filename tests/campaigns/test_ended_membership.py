"""An ended (archived) campaign's table no longer changes: accepting an invitation made before, leaving and
withdrawing a join request are refused with a clear message, on pages and in the API; declining an
invitation (it changes no membership) still works."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied
from django.test import Client
from rest_framework.test import APIClient

from campaigns import services
from campaigns.models import Campaign, Invitation, JoinRequest, Membership, RequestStatus, Role
from record.services import archive_campaign
from tests.api.conftest import assert_error
from tests.personas import Table, make_user

pytestmark = pytest.mark.django_db

ENDED = "La partida ha terminado"


@pytest.fixture
def ended_with_pending(table: Table) -> tuple[Table, Invitation, JoinRequest]:
    invitation = services.invite(actor=table.gm, campaign=table.campaign, user=make_user("invitada"), role=Role.PLAYER)
    join_request = services.request_to_join(user=make_user("aspirante"), campaign=table.campaign, role=Role.READER)
    archive_campaign(actor=table.gm, campaign=table.campaign)
    table.campaign = Campaign.objects.get(pk=table.campaign.pk)
    return table, invitation, join_request


def _members(table: Table) -> set[int]:
    return set(Membership.objects.filter(campaign=table.campaign).values_list("user_id", flat=True))


def test_the_services_refuse_every_membership_change(ended_with_pending: tuple[Table, Invitation, JoinRequest]) -> None:
    table, invitation, join_request = ended_with_pending
    before = _members(table)
    for change in (
        lambda: services.respond_to_invitation(user=invitation.user, invitation=invitation, accept=True),
        lambda: services.leave_campaign(user=table.player, campaign=table.campaign),
        lambda: services.withdraw_join_request(user=join_request.user, join_request=join_request),
    ):
        with pytest.raises(PermissionDenied, match=ENDED):
            change()
    assert _members(table) == before
    assert JoinRequest.objects.get(pk=join_request.pk).status == RequestStatus.PENDING
    declined = services.respond_to_invitation(user=invitation.user, invitation=invitation, accept=False)
    assert declined.status == RequestStatus.REJECTED


def test_the_pages_refuse_with_a_403_page_that_says_why(
    ended_with_pending: tuple[Table, Invitation, JoinRequest],
) -> None:
    table, invitation, join_request = ended_with_pending
    before = _members(table)
    pages = [
        (invitation.user, f"/invitations/{invitation.pk}/respond/", {"decision": "accept"}),
        (table.player, f"/campaigns/{table.campaign.pk}/leave/", {}),
        (join_request.user, f"/campaigns/{table.campaign.pk}/requests/{join_request.pk}/withdraw/", {}),
    ]
    for user, url, data in pages:
        client = Client()
        client.force_login(user)
        response = client.post(url, data)
        assert response.status_code == 403, url
        assert ENDED in response.content.decode(), url
    assert _members(table) == before
    assert JoinRequest.objects.get(pk=join_request.pk).status == RequestStatus.PENDING


def test_the_api_refuses_with_a_json_message(ended_with_pending: tuple[Table, Invitation, JoinRequest]) -> None:
    table, invitation, join_request = ended_with_pending
    before = _members(table)
    calls = [
        (invitation.user, f"/api/invitations/{invitation.pk}/accept/"),
        (table.player, f"/api/campaigns/{table.campaign.pk}/leave/"),
        (join_request.user, f"/api/join-requests/{join_request.pk}/withdraw/"),
    ]
    for user, url in calls:
        api = APIClient()
        api.force_authenticate(user)
        assert ENDED in assert_error(api.post(url), 403)["message"], url
    assert _members(table) == before
