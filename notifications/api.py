"""The notifications in the REST API: list, mark read, unread count, mail choices, the private feed's
secret URL (read and rotate), and the GM's nudge. Same policy and services as the pages."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from campaigns import policy
from campaigns import selectors as campaign_selectors
from campaigns.error_codes import PUSH_DISABLED, PUSH_ENDPOINT_TAKEN
from campaigns.models import Campaign
from characters.models import Character
from notifications import catalogue, push, selectors, services
from notifications.models import (
    CampaignReminder,
    EmailMode,
    Kind,
    Notification,
    QuietHours,
    RollRequest,
    RollRequestStatus,
)
from tintero.api.errors import error_response
from tintero.api.views.base import ApiView, errors


class _CampaignRefOut(serializers.Serializer):
    id = serializers.IntegerField()
    title = serializers.CharField()


extend_schema_serializer(component_name="NotificationCampaign")(_CampaignRefOut)


class NotificationOut(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=Kind.choices)
    text = serializers.SerializerMethodField(help_text="The notification in words, in the request's language.")
    excerpt = serializers.SerializerMethodField(help_text="A quote of the post (whispers and mentions only).")
    url = serializers.SerializerMethodField(help_text="The page it leads to (a path).")
    campaign = _CampaignRefOut()
    scene_id = serializers.IntegerField(allow_null=True)
    post_id = serializers.IntegerField(allow_null=True)
    count = serializers.IntegerField(help_text="Posts in a batch of new posts; 1 otherwise.")
    read = serializers.BooleanField(source="is_read")
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()

    def get_text(self, obj: Notification) -> str:
        return catalogue.sentence(obj)

    def get_excerpt(self, obj: Notification) -> str:
        return catalogue.excerpt(obj)

    def get_url(self, obj: Notification) -> str:
        return catalogue.link(obj)


class MarkReadIn(serializers.Serializer):
    ids = serializers.ListField(
        child=serializers.IntegerField(min_value=1),
        required=False,
        max_length=500,
        help_text="The notifications to mark read; omit to mark every one.",
    )


class UnreadCountOut(serializers.Serializer):
    unread = serializers.IntegerField()


class PreferenceOut(serializers.Serializer):
    campaign = _CampaignRefOut()
    email = serializers.ChoiceField(choices=EmailMode.choices, help_text="Mail about this campaign.")
    chosen = serializers.BooleanField(help_text="False: the site's default applies.")


class PreferenceIn(serializers.Serializer):
    campaign = serializers.IntegerField(min_value=1)
    email = serializers.ChoiceField(choices=EmailMode.choices)


class FeedOut(serializers.Serializer):
    url = serializers.CharField(help_text="The private Atom feed: secret; rotate it to revoke the old one.")


class NudgeIn(serializers.Serializer):
    user_ids = serializers.ListField(
        child=serializers.IntegerField(min_value=1),
        required=False,
        max_length=100,
        help_text="Only these players (among those who owe a post); omit for all of them.",
    )


class NudgeOut(serializers.Serializer):
    told = serializers.ListField(child=serializers.IntegerField(), help_text="The users nudged now.")


class NotificationListView(ApiView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="My notifications",
        description="Newest activity first, from the campaigns I may still see. `?unread=true`: unread only.",
        parameters=[OpenApiParameter("unread", bool, required=False)],
        responses={200: NotificationOut(many=True), **errors(401)},
    )
    def get(self, request: Request) -> Response:
        items = selectors.inbox(request.user)  # type: ignore[arg-type]
        if request.query_params.get("unread") in ("true", "1"):
            items = items.filter(selectors.unread_q())
        return self.paginated(items, NotificationOut)


class UnreadCountView(ApiView):
    permission_classes = [IsAuthenticated]

    @extend_schema(summary="My unread count", responses={200: UnreadCountOut, **errors(401)})
    def get(self, request: Request) -> Response:
        return self.render({"unread": selectors.unread_count(request.user)}, UnreadCountOut)  # type: ignore[arg-type]


class MarkReadView(ApiView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Mark notifications read",
        description="The listed ones (others' ids are ignored), or all. Answers the unread count left.",
        request=MarkReadIn,
        responses={200: UnreadCountOut, **errors(400, 401)},
    )
    def post(self, request: Request) -> Response:
        ids = self.parse(MarkReadIn).get("ids")
        services.mark_read(user=request.user, ids=ids)  # type: ignore[arg-type]
        return self.render({"unread": selectors.unread_count(request.user)}, UnreadCountOut)  # type: ignore[arg-type]


def _preferences(user: Any) -> list[dict[str, Any]]:
    return [
        {"campaign": campaign, "email": mode or settings.NOTIFICATION_EMAIL_DEFAULT, "chosen": mode is not None}
        for campaign, mode in selectors.email_choices(user)
    ]


class PreferencesView(ApiView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="My mail choices",
        description="One line per campaign I belong to: immediate, daily digest or off.",
        responses={200: PreferenceOut(many=True), **errors(401)},
    )
    def get(self, request: Request) -> Response:
        return self.paginated(_preferences(request.user), PreferenceOut)

    @extend_schema(
        summary="Choose mail for a campaign",
        request=PreferenceIn,
        responses={200: PreferenceOut, **errors(400, 401, 404)},
    )
    def post(self, request: Request) -> Response:
        data = self.parse(PreferenceIn)
        campaign = get_object_or_404(
            Campaign.objects.filter(policy.visible_campaigns_q(request.user)), pk=data["campaign"]
        )
        preference = services.set_email_mode(user=request.user, campaign=campaign, mode=data["email"])  # type: ignore[arg-type]
        return self.render({"campaign": campaign, "email": preference.email, "chosen": True}, PreferenceOut)


class FeedTokenView(ApiView):
    permission_classes = [IsAuthenticated]

    def _out(self, request: Request, token: str) -> Response:
        url = request.build_absolute_uri(reverse("notifications:private_feed", args=[token]))
        return self.render({"url": url}, FeedOut)

    @extend_schema(summary="My private feed's URL", responses={200: FeedOut, **errors(401)})
    def get(self, request: Request) -> Response:
        return self._out(request, services.feed_token(request.user).token)  # type: ignore[arg-type]

    @extend_schema(
        summary="Rotate my private feed's URL",
        description="A new secret URL; the old one stops working at once.",
        request=None,
        responses={200: FeedOut, **errors(401)},
    )
    def post(self, request: Request) -> Response:
        return self._out(request, services.rotate_feed_token(user=request.user).token)  # type: ignore[arg-type]


class NudgeView(ApiView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Nudge the players who owe a post in a scene (GMs)",
        description="Each player is nudged at most once a day per scene; `told` lists those nudged now.",
        request=NudgeIn,
        responses={200: NudgeOut, **errors(400, 401, 403, 404)},
    )
    def post(self, request: Request, scene_id: int) -> Response:
        scene, _viewer, _readers, _writers = campaign_selectors.scene_for(request.user, scene_id)
        user_ids = self.parse(NudgeIn).get("user_ids")
        told = services.nudge(actor=request.user, scene=scene, user_ids=user_ids)  # type: ignore[arg-type]
        return Response({"told": sorted(n.user_id for n in told)}, status=status.HTTP_200_OK)


class ReminderIn(serializers.Serializer):
    days = serializers.IntegerField(min_value=0, max_value=60, help_text="Days of silence; 0: no reminder.")


class ReminderOut(serializers.Serializer):
    days = serializers.IntegerField(help_text="Days of silence before players who owe a post are reminded; 0: never.")


class ReminderView(ApiView):
    permission_classes = [IsAuthenticated]

    def _campaign(self, request: Request, campaign_id: int) -> Campaign:
        return get_object_or_404(Campaign.objects.filter(policy.visible_campaigns_q(request.user)), pk=campaign_id)

    @extend_schema(summary="A campaign's automatic reminder", responses={200: ReminderOut, **errors(401, 404)})
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign = self._campaign(request, campaign_id)
        days = CampaignReminder.objects.filter(campaign=campaign).values_list("days", flat=True).first() or 0
        return self.render({"days": days}, ReminderOut)

    @extend_schema(
        summary="Set a campaign's automatic reminder (GMs)",
        request=ReminderIn,
        responses={200: ReminderOut, **errors(400, 401, 403, 404)},
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign = self._campaign(request, campaign_id)
        days = self.parse(ReminderIn)["days"]
        reminder = services.set_reminder(actor=request.user, campaign=campaign, days=days)  # type: ignore[arg-type]
        return self.render({"days": reminder.days}, ReminderOut)


class RollRequestIn(serializers.Serializer):
    character = serializers.IntegerField(min_value=1, help_text="An approved player character of the campaign.")
    expression = serializers.CharField(max_length=200, help_text="Dice notation, e.g. `4dF+2` or `3d6`.")
    label = serializers.CharField(  # type: ignore[assignment]  # the field's name, not Field.label
        max_length=120, required=False, allow_blank=True, help_text="What the roll is for."
    )


class RollRequestOut(serializers.Serializer):
    id = serializers.IntegerField()
    scene_id = serializers.IntegerField()
    character_id = serializers.IntegerField()
    expression = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]  # the field's name, not Field.label
    status = serializers.ChoiceField(choices=RollRequestStatus.choices)
    answered_post_id = serializers.IntegerField(allow_null=True)
    created_at = serializers.DateTimeField()


class SceneRollRequestsView(ApiView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Open roll requests of a scene",
        description="A GM sees every open request; a player those for their own characters.",
        responses={200: RollRequestOut(many=True), **errors(401, 404)},
    )
    def get(self, request: Request, scene_id: int) -> Response:
        scene, viewer, _readers, _writers = campaign_selectors.scene_for(request.user, scene_id)
        return self.paginated(selectors.scene_roll_requests(viewer, scene), RollRequestOut)

    @extend_schema(
        summary="Ask a player for a roll (GMs)",
        description="The player is notified and finds the roll pre-filled in the scene's composer; their next "
        "post with a roll for that character answers it.",
        request=RollRequestIn,
        responses={201: RollRequestOut, **errors(400, 401, 403, 404)},
    )
    def post(self, request: Request, scene_id: int) -> Response:
        scene, _viewer, _readers, _writers = campaign_selectors.scene_for(request.user, scene_id)
        data = self.parse(RollRequestIn)
        character = Character.objects.filter(pk=data["character"], campaign_id=scene.campaign_id).first()
        if character is None:
            raise ValidationError({"character": [_("Elige un personaje de la partida.")]})
        created = services.request_roll(
            actor=request.user,  # type: ignore[arg-type]
            scene=scene,
            character=character,
            expression=data["expression"],
            label=data.get("label", ""),
        )
        return self.render(created, RollRequestOut, status=201)


class RollRequestCancelView(ApiView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Withdraw a roll request (GMs)",
        request=None,
        responses={200: RollRequestOut, **errors(400, 401, 403, 404)},
    )
    def post(self, request: Request, request_id: int) -> Response:
        roll_request = get_object_or_404(RollRequest, pk=request_id)
        campaign_selectors.scene_for(request.user, roll_request.scene_id)
        cancelled = services.cancel_roll_request(actor=request.user, request=roll_request)  # type: ignore[arg-type]
        return self.render(cancelled, RollRequestOut)


class QuietHoursIo(serializers.Serializer):
    start = serializers.IntegerField(
        min_value=0, max_value=23, allow_null=True, help_text="Hour (server time); null: none."
    )
    end = serializers.IntegerField(
        min_value=0, max_value=23, allow_null=True, help_text="Hour it ends; may be past midnight."
    )


extend_schema_serializer(component_name="QuietHours")(QuietHoursIo)


class QuietHoursView(ApiView):
    permission_classes = [IsAuthenticated]

    def _out(self, request: Request) -> Response:
        quiet = QuietHours.objects.filter(user=request.user).first()  # type: ignore[misc]
        data = {"start": quiet.start, "end": quiet.end} if quiet else {"start": None, "end": None}
        return self.render(data, QuietHoursIo)

    @extend_schema(summary="My quiet hours", responses={200: QuietHoursIo, **errors(401)})
    def get(self, request: Request) -> Response:
        return self._out(request)

    @extend_schema(
        summary="Set my quiet hours",
        description="Mail waits until they end. Both null: no quiet hours.",
        request=QuietHoursIo,
        responses={200: QuietHoursIo, **errors(400, 401)},
    )
    def post(self, request: Request) -> Response:
        data = self.parse(QuietHoursIo)
        services.set_quiet_hours(user=request.user, start=data.get("start"), end=data.get("end"))  # type: ignore[arg-type]
        return self._out(request)


class PushKeysIn(serializers.Serializer):
    p256dh = serializers.CharField(max_length=200)
    auth = serializers.CharField(max_length=100)


class PushSubscriptionIn(serializers.Serializer):
    endpoint = serializers.URLField(
        max_length=1000,
        help_text="The push service URL: https, on a known push service (FCM, Mozilla, Apple, Windows) that "
        "resolves to public addresses.",
    )
    keys = PushKeysIn()


class PushStatusOut(serializers.Serializer):
    enabled = serializers.BooleanField()
    reason = serializers.CharField(help_text="Why push is off (empty when on).")
    public_key = serializers.CharField(help_text="The VAPID public key browsers subscribe with.")


class PushSubscriptionsView(ApiView):
    permission_classes = [IsAuthenticated]

    @extend_schema(summary="Web Push: on or off on this server", responses={200: PushStatusOut, **errors(401)})
    def get(self, request: Request) -> Response:
        current = push.status()
        return self.render(
            {"enabled": current.enabled, "reason": current.reason, "public_key": current.public_key}, PushStatusOut
        )

    @extend_schema(
        summary="Subscribe a browser to Web Push",
        description="The browser's `PushSubscription.toJSON()`. 400 for an endpoint that is not a known push "
        f"service's public https URL; 409 `{PUSH_DISABLED.code}` without VAPID keys, 409 "
        f"`{PUSH_ENDPOINT_TAKEN.code}` when another account registered this endpoint (it must remove it first).",
        request=PushSubscriptionIn,
        responses={
            201: PushStatusOut,
            **errors(400, 401, PUSH_DISABLED, PUSH_ENDPOINT_TAKEN),
        },
    )
    def post(self, request: Request) -> Response:
        data = self.parse(PushSubscriptionIn)
        current = push.status()
        if not current.enabled:
            return error_response(PUSH_DISABLED.code, current.reason, PUSH_DISABLED.status)
        try:
            push.subscribe(
                user_id=request.user.pk,  # type: ignore[arg-type]
                endpoint=data["endpoint"],
                p256dh=data["keys"]["p256dh"],
                auth=data["keys"]["auth"],
            )
        except push.EndpointRefused as refused:
            raise ValidationError({"endpoint": [str(refused)]}) from None
        except push.EndpointTaken as taken:
            return error_response(PUSH_ENDPOINT_TAKEN.code, str(taken), PUSH_ENDPOINT_TAKEN.status)
        out = {"enabled": True, "reason": "", "public_key": current.public_key}
        return self.render(out, PushStatusOut, status=201)
