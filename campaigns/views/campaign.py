"""Campaign pages: create, edit, the front page, joining and leaving."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from campaigns import policy, selectors, services
from campaigns.forms import CampaignForm, InviteForm, JoinRequestForm, add_service_errors
from campaigns.models import Role
from campaigns.views.common import flash_validation_error, user_of
from characters.views import campaign_characters_context


@login_required
@require_http_methods(["GET", "POST"])
def campaign_create(request: HttpRequest) -> HttpResponse:
    form = CampaignForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            campaign = services.create_campaign(creator=user_of(request), **form.cleaned_data)
        except ValidationError as error:
            add_service_errors(form, error)
        else:
            messages.success(request, _("Partida creada. Ya puedes abrir su primera escena."))
            return redirect(campaign)
    return render(request, "campaigns/campaign_form.html", {"form": form, "campaign": None})


@login_required
@require_http_methods(["GET", "POST"])
def campaign_edit(request: HttpRequest, pk: int) -> HttpResponse:
    campaign, viewer = selectors.campaign_for(request.user, pk)
    if not policy.may_manage_campaign(viewer):
        raise PermissionDenied(_("Solo un máster puede editar la partida."))
    initial = {name: getattr(campaign, name) for name in services.CAMPAIGN_FIELDS}
    form = CampaignForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            services.update_campaign(actor=user_of(request), campaign=campaign, **form.cleaned_data)
        except ValidationError as error:
            add_service_errors(form, error)
        else:
            messages.success(request, _("Partida guardada."))
            return redirect(campaign)
    return render(request, "campaigns/campaign_form.html", {"form": form, "campaign": campaign})


@require_GET
def campaign_detail(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        campaign, viewer = selectors.campaign_for(request.user, pk)
    except Http404:
        # A private campaign exists for the user it invites: its front, to accept or decline.
        invitation = selectors.invitation_to(request.user, pk)
        if invitation is None:
            raise
        context = {"campaign": invitation.campaign, "invitation": invitation}
        return render(request, "campaigns/invitation.html", context)
    scenes = list(selectors.readable_scenes(viewer))
    memberships = list(selectors.members(campaign))
    by_role = {role: [m for m in memberships if m.role == role] for role in Role.values}
    context: dict[str, object] = {
        "campaign": campaign,
        "viewer": viewer,
        "may_manage": policy.may_manage_campaign(viewer),
        "may_see_gm_notes": policy.may_see_gm_notes(viewer),
        "scenes": scenes,
        "first_unread_scene": next((s for s in scenes if s.unread_count), None),
        "members_by_role": [(Role(role).label, role, by_role[role]) for role in Role.values],
        "member_count": len(memberships),
        "roles": Role.choices,
    }
    context.update(campaign_characters_context(campaign, viewer))
    if policy.may_manage_campaign(viewer):
        context["join_requests"] = list(selectors.pending_join_requests(campaign))
        context["pending_invitations"] = list(selectors.pending_invitations(campaign))
        context["invite_form"] = InviteForm()
    invitation = selectors.invitation_to(request.user, campaign.pk) if viewer.is_authenticated else None
    if invitation is not None and policy.may_answer_invitation(viewer, invitation.user_id):
        context["my_invitation"] = invitation
    elif policy.may_request_to_join(viewer):
        my_request = selectors.pending_join_requests(campaign).filter(user_id=viewer.user_id).first()
        context["my_request"] = my_request
        roles = policy.join_roles(campaign, len(by_role[Role.PLAYER]))
        if my_request is None and roles:
            context["join_form"] = JoinRequestForm(roles=roles)
    return render(request, "campaigns/campaign_detail.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def campaign_join(request: HttpRequest, pk: int) -> HttpResponse:
    """The join form (GET, also after a reload) and the request it sends (POST)."""
    campaign, viewer = selectors.campaign_for(request.user, pk)
    if viewer.is_member:
        messages.info(request, _("Ya eres miembro de esta partida."))
        return redirect(campaign)
    roles = policy.join_roles(campaign, selectors.player_count(campaign))
    if not policy.may_request_to_join(viewer) or not roles:
        raise PermissionDenied(_("No puedes pedir unirte a esta partida."))
    form = JoinRequestForm(request.POST or None, roles=roles)
    if request.method == "POST":
        if form.is_valid():
            try:
                services.request_to_join(user=user_of(request), campaign=campaign, **form.cleaned_data)
            except ValidationError as error:
                add_service_errors(form, error)
            else:
                messages.success(request, _("Solicitud enviada. Un máster la revisará."))
                return redirect(campaign)
        return render(request, "campaigns/join_form.html", {"campaign": campaign, "form": form}, status=400)
    return render(request, "campaigns/join_form.html", {"campaign": campaign, "form": form})


@login_required
@require_POST
def join_request_withdraw(request: HttpRequest, pk: int, request_id: int) -> HttpResponse:
    campaign, viewer = selectors.campaign_for(request.user, pk)
    join_request = selectors.pending_join_requests(campaign).filter(pk=request_id, user_id=viewer.user_id).first()
    if join_request is None:
        messages.error(request, _("No tienes ninguna solicitud pendiente en esta partida."))
        return redirect(campaign)
    services.withdraw_join_request(user=user_of(request), join_request=join_request)
    messages.success(request, _("Solicitud retirada."))
    return redirect(campaign)


@login_required
@require_POST
def campaign_leave(request: HttpRequest, pk: int) -> HttpResponse:
    campaign, _viewer = selectors.campaign_for(request.user, pk)
    try:
        services.leave_campaign(user=user_of(request), campaign=campaign)
    except ValidationError as error:
        flash_validation_error(request, error)
        return redirect(campaign)
    messages.success(request, _("Has salido de «%(title)s».") % {"title": campaign.title})
    return redirect("campaigns:home")
