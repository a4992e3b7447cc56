"""Pages of the notifications: the inbox (with the mail choices and the private feed), the header count,
one-click unsubscribe (no login: the link is signed), and the GM's nudge."""

from __future__ import annotations

import json

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.models import User
from campaigns import policy
from campaigns import selectors as campaign_selectors
from campaigns.error_codes import PUSH_DISABLED
from campaigns.models import Campaign, Scene
from campaigns.views.common import flash_validation_error, page_number, user_of
from characters.models import Character
from notifications import catalogue, mail, push, selectors, services
from notifications.models import CampaignPreference, EmailMode, QuietHours, RollRequest

PER_PAGE = 30


@login_required
@require_GET
def inbox(request: HttpRequest) -> HttpResponse:
    user = user_of(request)
    page = Paginator(selectors.inbox(user), PER_PAGE).get_page(page_number(request.GET.get("page")))
    for n in page.object_list:
        n.sentence = catalogue.sentence(n)  # type: ignore[attr-defined]
        n.quote = catalogue.excerpt(n)  # type: ignore[attr-defined]
    token = services.feed_token(user)
    context = {
        "page": page,
        "campaign_lines": selectors.campaign_settings(user),
        "push": push.status(),
        "quiet": QuietHours.objects.filter(user=user).first(),
        "hours": range(24),
        "modes": EmailMode.choices,
        "default_mode": settings.NOTIFICATION_EMAIL_DEFAULT,
        "feed_url": request.build_absolute_uri(reverse("notifications:private_feed", args=[token.token])),
    }
    return render(request, "notifications/inbox.html", context)


@login_required
@require_GET
def unread_badge(request: HttpRequest) -> HttpResponse:
    """The header's count, as a fragment the header refreshes."""
    return render(
        request, "notifications/_badge.html", {"unread_notifications": selectors.unread_count(user_of(request))}
    )


@login_required
@require_POST
def open_notification(request: HttpRequest, pk: int) -> HttpResponse:
    notification = get_object_or_404(selectors.inbox(user_of(request)), pk=pk)
    services.mark_read(user=user_of(request), ids=[notification.pk])
    return HttpResponseRedirect(catalogue.link(notification))


@login_required
@require_POST
def mark_all_read(request: HttpRequest) -> HttpResponse:
    services.mark_read(user=user_of(request))
    return redirect("notifications:inbox")


@login_required
@require_POST
def set_email(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    try:
        services.set_email_mode(user=user_of(request), campaign=campaign, mode=request.POST.get("email", ""))
    except ValidationError as error:
        flash_validation_error(request, error)
    except PermissionDenied:
        raise Http404 from None
    else:
        messages.success(request, _("Guardado."))
    return redirect("notifications:inbox")


@login_required
@require_POST
def set_reminder(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign.objects.filter(policy.visible_campaigns_q(request.user)), pk=campaign_id)
    raw = request.POST.get("days", "")
    try:
        services.set_reminder(actor=user_of(request), campaign=campaign, days=int(raw) if raw.isdigit() else -1)
    except ValidationError as error:
        flash_validation_error(request, error)
    except PermissionDenied as denied:
        messages.error(request, str(denied))
    else:
        messages.success(request, _("Guardado."))
    return redirect("notifications:inbox")


@login_required
@require_POST
def set_quiet_hours(request: HttpRequest) -> HttpResponse:
    start, end = request.POST.get("start", ""), request.POST.get("end", "")
    try:
        services.set_quiet_hours(
            user=user_of(request),
            start=int(start) if start.isdigit() else None,
            end=int(end) if end.isdigit() else None,
        )
    except ValidationError as error:
        flash_validation_error(request, error)
    else:
        messages.success(request, _("Guardado."))
    return redirect("notifications:inbox")


@login_required
@require_POST
def rotate_feed(request: HttpRequest) -> HttpResponse:
    services.rotate_feed_token(user=user_of(request))
    messages.success(request, _("Nueva dirección del canal: la anterior ya no funciona."))
    return redirect("notifications:inbox")


@csrf_exempt  # the signed link is the credential: mail clients POST it in one click (RFC 8058)
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    try:
        signed = mail.read_unsubscribe_token(token)
    except mail.UnsubscribeLinkExpired:
        return render(request, "notifications/unsubscribe.html", {"expired": True}, status=410)
    if signed is None:
        return render(request, "notifications/unsubscribe.html", {"invalid": True}, status=400)
    user = User.objects.filter(pk=signed[0]).first()
    campaign = Campaign.objects.filter(pk=signed[1]).first()
    if user is None or campaign is None:
        return render(request, "notifications/unsubscribe.html", {"invalid": True}, status=400)
    current = CampaignPreference.objects.filter(user=user, campaign=campaign).values_list("email", flat=True).first()
    already = current == EmailMode.OFF
    if request.method == "POST" and not already:
        CampaignPreference.objects.update_or_create(user=user, campaign=campaign, defaults={"email": EmailMode.OFF})
        return render(request, "notifications/unsubscribe.html", {"done": True, "campaign": campaign})
    return render(request, "notifications/unsubscribe.html", {"campaign": campaign, "already": already})


@login_required
@require_POST
def nudge(request: HttpRequest, scene_id: int) -> HttpResponse:
    scene = get_object_or_404(Scene.objects.select_related("campaign"), pk=scene_id)
    viewer = policy.viewer_for(request.user, scene.campaign)
    if not policy.may_view_campaign(viewer):
        raise Http404
    raw = request.POST.getlist("user")
    user_ids = [int(v) for v in raw if v.isdigit()] or None
    try:
        told = services.nudge(actor=user_of(request), scene=scene, user_ids=user_ids)
    except ValidationError as error:
        flash_validation_error(request, error)
    except PermissionDenied as denied:
        messages.error(request, str(denied))
    else:
        if told:
            messages.success(request, _("Toque enviado."))
        else:
            messages.info(request, _("Ya recibieron un toque hoy."))
    return redirect("campaigns:dashboard")


@login_required
@require_GET
def mention_names(request: HttpRequest, scene_id: int) -> JsonResponse:
    """The composer's mention suggestions: the members who may read the scene (404 for whoever may not)."""
    scene, _viewer, readers, writers = campaign_selectors.scene_for(request.user, scene_id)
    return JsonResponse({"results": selectors.mention_names(scene, readers, writers)})


@login_required
@require_POST
def roll_request_create(request: HttpRequest, scene_id: int) -> HttpResponse:
    scene, _viewer, _readers, _writers = campaign_selectors.scene_for(request.user, scene_id)
    raw = request.POST.get("character", "")
    character = Character.objects.filter(pk=int(raw), campaign_id=scene.campaign_id).first() if raw.isdigit() else None
    try:
        if character is None:
            raise ValidationError({"character": _("Elige un personaje de la partida.")})
        services.request_roll(
            actor=user_of(request),
            scene=scene,
            character=character,
            expression=request.POST.get("expression", ""),
            label=request.POST.get("label", ""),
        )
    except ValidationError as error:
        flash_validation_error(request, error)
    except PermissionDenied as denied:
        messages.error(request, str(denied))
    else:
        messages.success(request, _("Tirada pedida."))
    return redirect(scene)


@login_required
@require_POST
def roll_request_cancel(request: HttpRequest, pk: int) -> HttpResponse:
    roll_request = get_object_or_404(RollRequest.objects.select_related("scene"), pk=pk)
    campaign_selectors.scene_for(request.user, roll_request.scene_id)  # 404 for whoever may not read it
    try:
        services.cancel_roll_request(actor=user_of(request), request=roll_request)
    except ValidationError as error:
        flash_validation_error(request, error)
    except PermissionDenied as denied:
        messages.error(request, str(denied))
    return redirect(roll_request.scene)


@login_required
@require_POST
def push_subscribe(request: HttpRequest) -> JsonResponse:
    """The browser's PushSubscription (``toJSON()``), from static/js/push.js."""
    if not push.status().enabled:
        return JsonResponse(
            {"error": {"code": PUSH_DISABLED.code, "message": push.status().reason}}, status=PUSH_DISABLED.status
        )
    try:
        data = json.loads(request.body or b"{}")
        endpoint, keys = str(data["endpoint"]), data["keys"]
        p256dh, auth = str(keys["p256dh"]), str(keys["auth"])
    except (ValueError, KeyError, TypeError):
        return JsonResponse({"error": {"code": "invalid", "message": _("Suscripción no válida.")}}, status=400)
    if len(endpoint) > 1000 or len(p256dh) > 200 or len(auth) > 100:
        return JsonResponse({"error": {"code": "invalid", "message": _("Suscripción no válida.")}}, status=400)
    try:
        push.subscribe(user_id=user_of(request).pk, endpoint=endpoint, p256dh=p256dh, auth=auth)
    except push.EndpointRefused as refused:
        return JsonResponse({"error": {"code": "invalid", "message": str(refused)}}, status=400)
    except push.EndpointTaken as taken:
        return JsonResponse({"error": {"code": "push_endpoint_taken", "message": str(taken)}}, status=409)
    return JsonResponse({"subscribed": True}, status=201)
