"""GM management of the table: join requests, invitations, roles and removals; answering invitations."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from campaigns import policy, selectors, services
from campaigns.forms import InviteForm, RoleForm, add_service_errors
from campaigns.models import Campaign, Membership
from campaigns.views.common import flash_validation_error, user_of


def _managed_campaign(request: HttpRequest, pk: int) -> Campaign:
    campaign, viewer = selectors.campaign_for(request.user, pk)
    if not policy.may_manage_campaign(viewer):
        raise PermissionDenied(_("Solo un máster puede gestionar la mesa."))
    return campaign


@login_required
@require_POST
def join_request_decide(request: HttpRequest, pk: int, request_id: int) -> HttpResponse:
    campaign = _managed_campaign(request, pk)
    join_request = selectors.pending_join_requests(campaign).filter(pk=request_id).first()
    if join_request is None:
        raise Http404
    accept = request.POST.get("decision") == "accept"
    services.decide_join_request(actor=user_of(request), join_request=join_request, accept=accept)
    name = join_request.user.public_name
    if accept:
        messages.success(request, _("%(name)s se ha unido a la partida.") % {"name": name})
    else:
        messages.info(request, _("Solicitud de %(name)s rechazada.") % {"name": name})
    return redirect(campaign)


@login_required
@require_POST
def invite(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = _managed_campaign(request, pk)
    form = InviteForm(request.POST)
    if form.is_valid():
        user = form.cleaned_data["username"]
        try:
            services.invite(actor=user_of(request), campaign=campaign, user=user, role=form.cleaned_data["role"])
        except ValidationError as error:
            add_service_errors(form, error, aliases={"user": "username"})
        else:
            messages.success(request, _("Invitación enviada a %(name)s.") % {"name": user.public_name})
            return redirect(campaign)
    return render(request, "campaigns/invite_form.html", {"campaign": campaign, "form": form}, status=400)


@login_required
@require_POST
def invitation_cancel(request: HttpRequest, pk: int, invitation_id: int) -> HttpResponse:
    campaign = _managed_campaign(request, pk)
    invitation = selectors.pending_invitations(campaign).filter(pk=invitation_id).first()
    if invitation is None:
        raise Http404
    services.cancel_invitation(actor=user_of(request), invitation=invitation)
    messages.info(request, _("Invitación retirada."))
    return redirect(campaign)


@login_required
@require_POST
def invitation_respond(request: HttpRequest, invitation_id: int) -> HttpResponse:
    invitation = selectors.invitations_for(user_of(request)).filter(pk=invitation_id).first()
    if invitation is None:
        raise Http404
    decision = request.POST.get("decision")
    if decision not in ("accept", "decline"):
        # Neither answer chosen: nothing is decided on the user's behalf.
        messages.error(request, _("Elige aceptar o rechazar la invitación."))
        return redirect(invitation.campaign)
    accept = decision == "accept"
    services.respond_to_invitation(user=user_of(request), invitation=invitation, accept=accept)
    if accept:
        messages.success(request, _("Ahora formas parte de «%(title)s».") % {"title": invitation.campaign.title})
        return redirect(invitation.campaign)
    messages.info(request, _("Invitación rechazada."))
    return redirect("campaigns:home")


def _member(campaign: Campaign, user_id: int) -> Membership:
    membership = selectors.member(campaign, user_id)
    if membership is None:
        raise Http404
    return membership


@login_required
@require_POST
def member_remove(request: HttpRequest, pk: int, user_id: int) -> HttpResponse:
    campaign = _managed_campaign(request, pk)
    membership = _member(campaign, user_id)
    try:
        services.remove_member(actor=user_of(request), campaign=campaign, user=membership.user)
    except ValidationError as error:
        flash_validation_error(request, error)
    else:
        messages.info(request, _("%(name)s ya no es miembro.") % {"name": membership.user.public_name})
    return redirect(campaign)


@login_required
@require_POST
def member_role(request: HttpRequest, pk: int, user_id: int) -> HttpResponse:
    campaign = _managed_campaign(request, pk)
    membership = _member(campaign, user_id)
    form = RoleForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Elige un papel válido."))
        return redirect(campaign)
    try:
        services.change_role(actor=user_of(request), campaign=campaign, user=membership.user, **form.cleaned_data)
    except ValidationError as error:
        flash_validation_error(request, error)
    else:
        messages.success(request, _("Papel de %(name)s cambiado.") % {"name": membership.user.public_name})
    return redirect(campaign)
