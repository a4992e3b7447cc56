"""An invitation is a first-class thing: the invited user is told (notices, mail, dashboard), the campaign's
page offers to accept or decline it (even a private campaign's), and the GMs hear the answer."""

from __future__ import annotations

from typing import Any

import pytest
from django.core import mail

from campaigns import services as campaign_services
from campaigns.models import Invitation, Membership, RequestStatus, Role, Visibility
from notifications import catalogue, selectors
from notifications.models import Kind
from tests.campaigns.web_helpers import client_for
from tests.notifications.conftest import kinds, surfaces
from tests.personas import Table


def _invite(table: Table, run_tasks: Any, role: str = Role.PLAYER) -> Invitation:
    with run_tasks(execute=True):
        return campaign_services.invite(actor=table.gm, campaign=table.campaign, user=table.outsider, role=role)


def test_an_invitation_reaches_the_invited_users_notices_and_mail(mail_table: Table, run_tasks: Any) -> None:
    _invite(mail_table, run_tasks)
    assert kinds(mail_table.outsider) == {Kind.INVITATION}
    (notice,) = selectors.inbox(mail_table.outsider)
    assert catalogue.sentence(notice) == f"Directora te invita a «{mail_table.campaign.title}» como jugador"
    assert catalogue.link(notice) == f"/campaigns/{mail_table.campaign.pk}/"
    assert selectors.unread_count(mail_table.outsider) == 1
    assert any("outsider@example.org" in m.to for m in mail.outbox)
    assert f"te invita a «{mail_table.campaign.title}»" in surfaces(mail_table.outsider)


def test_answering_reads_the_notice_and_tells_the_gms(mail_table: Table, run_tasks: Any) -> None:
    invitation = _invite(mail_table, run_tasks)
    with run_tasks(execute=True):
        client_for(mail_table.outsider).post(f"/invitations/{invitation.pk}/respond/", {"decision": "accept"})
    assert selectors.unread_count(mail_table.outsider) == 0
    assert Kind.INVITATION_ANSWERED in kinds(mail_table.gm)
    answered = next(n for n in selectors.inbox(mail_table.gm) if n.kind == Kind.INVITATION_ANSWERED)
    assert catalogue.sentence(answered) == f"Ajena acepta tu invitación a «{mail_table.campaign.title}»"


def test_a_withdrawn_invitation_no_longer_waits_in_the_notices(mail_table: Table, run_tasks: Any) -> None:
    invitation = _invite(mail_table, run_tasks)
    assert selectors.unread_count(mail_table.outsider) == 1
    with run_tasks(execute=True):
        campaign_services.cancel_invitation(actor=mail_table.gm, invitation=invitation)
    assert selectors.unread_count(mail_table.outsider) == 0


def test_the_campaign_page_offers_to_accept_or_decline_not_to_ask_to_join(mail_table: Table, run_tasks: Any) -> None:
    invitation = _invite(mail_table, run_tasks)
    response = client_for(mail_table.outsider).get(f"/campaigns/{mail_table.campaign.pk}/")
    assert response.status_code == 200
    html = response.content.decode()
    assert f"/invitations/{invitation.pk}/respond/" in html
    assert 'value="accept"' in html and 'value="decline"' in html
    assert "Pedir unirse" not in html
    if mail_table.campaign.visibility == Visibility.PRIVATE:
        # The private campaign's front only: none of its scenes.
        assert mail_table.scene.title not in html


def test_a_private_campaign_stays_hidden_from_those_it_does_not_invite(mail_table: Table, run_tasks: Any) -> None:
    _invite(mail_table, run_tasks)
    if mail_table.campaign.visibility == Visibility.PRIVATE:
        assert client_for(mail_table.player2).get(f"/campaigns/{mail_table.campaign.pk}/").status_code == 200
        Membership.objects.filter(user=mail_table.player2).delete()
        assert client_for(mail_table.player2).get(f"/campaigns/{mail_table.campaign.pk}/").status_code == 404


def test_the_dashboard_lists_the_invitation_with_its_answers(mail_table: Table, run_tasks: Any) -> None:
    invitation = _invite(mail_table, run_tasks)
    html = client_for(mail_table.outsider).get("/dashboard/").content.decode()
    assert "1 invitación por responder" in html
    assert f"/invitations/{invitation.pk}/respond/" in html


def test_an_answer_that_is_neither_accept_nor_decline_decides_nothing(mail_table: Table, run_tasks: Any) -> None:
    invitation = _invite(mail_table, run_tasks)
    response = client_for(mail_table.outsider).post(f"/invitations/{invitation.pk}/respond/", {"decision": "maybe"})
    assert response.status_code == 302
    invitation.refresh_from_db()
    assert invitation.status == RequestStatus.PENDING


@pytest.mark.parametrize(("role", "english"), [(Role.GM, "as GM"), (Role.READER, "as reader")])
def test_the_role_is_named_in_the_readers_language(mail_table: Table, run_tasks: Any, role: str, english: str) -> None:
    _invite(mail_table, run_tasks, role)
    (notice,) = selectors.inbox(mail_table.outsider)
    assert catalogue.sentence(notice, "en") == f"Directora invites you to “{mail_table.campaign.title}” {english}"
