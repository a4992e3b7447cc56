"""Campaigns, members, join requests and invitations."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.permissions import IsAuthenticated, IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response

from campaigns import policy, selectors, services
from campaigns.models import Campaign, Membership
from tintero.api.serializers import (
    CampaignCreateIn,
    CampaignDetailOut,
    CampaignOut,
    CampaignUpdateIn,
    InvitationIn,
    InvitationOut,
    JoinRequestIn,
    JoinRequestOut,
    MemberOut,
    RoleIn,
)
from tintero.api.views.base import ApiView, errors

_TRUE = {"1", "true", "yes", "on"}


class CampaignDetailMixin(ApiView):
    def campaign_response(self, request: Request, campaign_id: int, status_code: int = 200) -> Response:
        campaign, viewer = selectors.campaign_for(request.user, campaign_id)
        shaped = selectors.campaign_list(request.user).get(pk=campaign.pk)
        return self.render(shaped, CampaignDetailOut, status_code, viewer=viewer)


class CampaignListView(CampaignDetailMixin):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(
        summary="List campaigns",
        description="Every public campaign and the private ones the viewer belongs to, most recently updated "
        "first. `?mine=1`: only the viewer's campaigns.",
        parameters=[OpenApiParameter("mine", OpenApiTypes.BOOL, description="Only campaigns I belong to.")],
        responses={200: CampaignOut(many=True)},
    )
    def get(self, request: Request) -> Response:
        mine = request.query_params.get("mine", "").lower() in _TRUE
        return self.paginated(selectors.campaign_list(request.user, mine=mine), CampaignOut)

    @extend_schema(
        summary="Create a campaign",
        description="The creator becomes its first GM; the campaign starts with an off-topic scene.",
        request=CampaignCreateIn,
        responses={201: CampaignDetailOut, **errors(400, 401)},
    )
    def post(self, request: Request) -> Response:
        campaign = services.create_campaign(creator=request.user, **self.parse(CampaignCreateIn))
        return self.campaign_response(request, campaign.pk, status.HTTP_201_CREATED)


class CampaignDetailView(CampaignDetailMixin):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(
        summary="Retrieve a campaign",
        description="`gm_notes` is present only for the campaign's GMs.",
        responses={200: CampaignDetailOut, **errors(404)},
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        return self.campaign_response(request, campaign_id)

    @extend_schema(
        summary="Update a campaign (GMs)",
        request=CampaignUpdateIn,
        responses={200: CampaignDetailOut, **errors(400, 401, 403, 404)},
    )
    def patch(self, request: Request, campaign_id: int) -> Response:
        campaign, _viewer = selectors.campaign_for(request.user, campaign_id)
        services.update_campaign(actor=request.user, campaign=campaign, **self.parse(CampaignUpdateIn))
        return self.campaign_response(request, campaign_id)


# --- Members --------------------------------------------------------------------------------------


class MemberListView(ApiView):
    @extend_schema(summary="List members", responses={200: MemberOut(many=True), **errors(404)})
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign, _viewer = selectors.campaign_for(request.user, campaign_id)
        return self.paginated(selectors.members(campaign), MemberOut)


class MemberDetailView(ApiView):
    permission_classes = [IsAuthenticated]

    def membership(self, request: Request, campaign_id: int, user_id: int) -> tuple[Campaign, Membership]:
        campaign, _viewer = selectors.campaign_for(request.user, campaign_id)
        membership = selectors.member(campaign, user_id)
        if membership is None:
            raise Http404
        return campaign, membership

    @extend_schema(
        summary="Change a member's role (GMs)",
        request=RoleIn,
        responses={200: MemberOut, **errors(400, 401, 403, 404)},
    )
    def patch(self, request: Request, campaign_id: int, user_id: int) -> Response:
        campaign, membership = self.membership(request, campaign_id, user_id)
        role = self.parse(RoleIn)["role"]
        changed = services.change_role(actor=request.user, campaign=campaign, user=membership.user, role=role)
        changed.user = membership.user
        return self.render(changed, MemberOut)

    @extend_schema(summary="Remove a member (GMs)", responses={204: None, **errors(400, 401, 403, 404)})
    def delete(self, request: Request, campaign_id: int, user_id: int) -> Response:
        campaign, membership = self.membership(request, campaign_id, user_id)
        services.remove_member(actor=request.user, campaign=campaign, user=membership.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class LeaveView(ApiView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Leave a campaign",
        description="The last GM cannot leave (name another GM first).",
        request=None,
        responses={204: None, **errors(400, 401, 403, 404)},
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign, _viewer = selectors.campaign_for(request.user, campaign_id)
        services.leave_campaign(user=request.user, campaign=campaign)
        return Response(status=status.HTTP_204_NO_CONTENT)


# --- Join requests --------------------------------------------------------------------------------


class CampaignJoinRequestsView(ApiView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Pending join requests (GMs)",
        responses={200: JoinRequestOut(many=True), **errors(401, 403, 404)},
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign, viewer = selectors.campaign_for(request.user, campaign_id)
        if not policy.may_manage_campaign(viewer):
            raise PermissionDenied(_("Solo un máster puede ver las solicitudes."))
        return self.paginated(selectors.pending_join_requests(campaign), JoinRequestOut)

    @extend_schema(
        summary="Ask to join",
        request=JoinRequestIn,
        responses={201: JoinRequestOut, **errors(400, 401, 403, 404)},
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign, _viewer = selectors.campaign_for(request.user, campaign_id)
        join_request = services.request_to_join(user=request.user, campaign=campaign, **self.parse(JoinRequestIn))
        return self.render(join_request, JoinRequestOut, status.HTTP_201_CREATED)


class JoinRequestDetailView(ApiView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Retrieve a join request (its author or a GM)", responses={200: JoinRequestOut, **errors(401, 404)}
    )
    def get(self, request: Request, join_request_id: int) -> Response:
        return self.render(selectors.join_request_for(request.user, join_request_id), JoinRequestOut)


class _JoinRequestActionView(ApiView):
    permission_classes = [IsAuthenticated]

    def act(self, request: Request, join_request_id: int, action: str) -> Response:
        join_request = selectors.join_request_for(request.user, join_request_id)
        if action == "withdraw":
            decided = services.withdraw_join_request(user=request.user, join_request=join_request)
        else:
            decided = services.decide_join_request(
                actor=request.user, join_request=join_request, accept=action == "accept"
            )
        decided.user = join_request.user
        decided.campaign = join_request.campaign
        return self.render(decided, JoinRequestOut)


_DECISION = {"request": None, "responses": {200: JoinRequestOut, **errors(400, 401, 403, 404)}}


class JoinRequestAcceptView(_JoinRequestActionView):
    @extend_schema(summary="Accept a join request (GMs)", **_DECISION)
    def post(self, request: Request, join_request_id: int) -> Response:
        return self.act(request, join_request_id, "accept")


class JoinRequestRejectView(_JoinRequestActionView):
    @extend_schema(summary="Reject a join request (GMs)", **_DECISION)
    def post(self, request: Request, join_request_id: int) -> Response:
        return self.act(request, join_request_id, "reject")


class JoinRequestWithdrawView(_JoinRequestActionView):
    @extend_schema(summary="Withdraw my join request", **_DECISION)
    def post(self, request: Request, join_request_id: int) -> Response:
        return self.act(request, join_request_id, "withdraw")


# --- Invitations ----------------------------------------------------------------------------------


class CampaignInvitationsView(ApiView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Pending invitations of a campaign (GMs)",
        responses={200: InvitationOut(many=True), **errors(401, 403, 404)},
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign, viewer = selectors.campaign_for(request.user, campaign_id)
        if not policy.may_manage_campaign(viewer):
            raise PermissionDenied(_("Solo un máster puede ver las invitaciones."))
        return self.paginated(selectors.pending_invitations(campaign), InvitationOut)

    @extend_schema(
        summary="Invite a user (GMs)",
        description="Inviting as `gm` makes a co-GM once accepted.",
        request=InvitationIn,
        responses={201: InvitationOut, **errors(400, 401, 403, 404)},
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign, _viewer = selectors.campaign_for(request.user, campaign_id)
        data = self.parse(InvitationIn)
        invitation = services.invite(actor=request.user, campaign=campaign, user=data["user"], role=data["role"])
        return self.render(invitation, InvitationOut, status.HTTP_201_CREATED)


class MyInvitationsView(ApiView):
    permission_classes = [IsAuthenticated]

    @extend_schema(summary="My pending invitations", responses={200: InvitationOut(many=True), **errors(401)})
    def get(self, request: Request) -> Response:
        return self.paginated(selectors.invitations_for(request.user).select_related("user"), InvitationOut)


class InvitationDetailView(ApiView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Retrieve an invitation (the invited user or a GM)",
        responses={200: InvitationOut, **errors(401, 404)},
    )
    def get(self, request: Request, invitation_id: int) -> Response:
        return self.render(selectors.invitation_for(request.user, invitation_id), InvitationOut)


class _InvitationActionView(ApiView):
    permission_classes = [IsAuthenticated]

    def act(self, request: Request, invitation_id: int, action: str) -> Response:
        invitation = selectors.invitation_for(request.user, invitation_id)
        if action == "cancel":
            decided = services.cancel_invitation(actor=request.user, invitation=invitation)
        else:
            decided = services.respond_to_invitation(
                user=request.user, invitation=invitation, accept=action == "accept"
            )
        decided.user, decided.invited_by = invitation.user, invitation.invited_by
        return self.render(decided, InvitationOut)


_RESPONSE = {"request": None, "responses": {200: InvitationOut, **errors(400, 401, 403, 404)}}


class InvitationAcceptView(_InvitationActionView):
    @extend_schema(summary="Accept an invitation", **_RESPONSE)
    def post(self, request: Request, invitation_id: int) -> Response:
        return self.act(request, invitation_id, "accept")


class InvitationDeclineView(_InvitationActionView):
    @extend_schema(summary="Decline an invitation", **_RESPONSE)
    def post(self, request: Request, invitation_id: int) -> Response:
        return self.act(request, invitation_id, "decline")


class InvitationCancelView(_InvitationActionView):
    @extend_schema(summary="Cancel an invitation (GMs)", **_RESPONSE)
    def post(self, request: Request, invitation_id: int) -> Response:
        return self.act(request, invitation_id, "cancel")
