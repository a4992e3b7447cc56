"""The resync endpoint of live updates: ``GET /api/campaigns/<id>/events/?after=<seq>``.

A client that reconnects or sees a gap in ``seq`` asks here for the events it missed. The filter is the
socket's: ``policy.event_visible_to`` with the viewer's readable scenes, read once per request. It is
cursor-paginated by ``seq``: at most ``LIMIT`` log rows are examined per call; ``seq`` in the answer is
where to continue from (events the viewer may not see leave gaps, so it may be past the last item), and
``more`` says whether to ask again.

``?since=<unix seconds>`` instead of ``after``: the events logged since then. A page passes the time it
was rendered, so its first socket can replay what happened between the render and the connection.

The log keeps ``EVENT_LOG_RETENTION_DAYS`` of events (``campaigns.retention``). When what the client asks
for starts before the oldest event kept, a partial list would be a silent loss: the answer is then
``{"reset": true, "events": [], "seq": <last seq>, ...}`` and the client reloads what it shows, then
continues from ``seq``.
"""

from __future__ import annotations

from datetime import UTC, datetime

from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from campaigns import policy, selectors
from campaigns.events import Audience, client_event, last_seq
from campaigns.models import CampaignEventLog
from campaigns.retention import resync_needs_reset
from tintero.api.views.base import ApiView, errors

LIMIT = 500


class LiveEventOut(serializers.Serializer):
    seq = serializers.IntegerField()
    type = serializers.CharField(help_text="See the event catalogue (campaigns/events.py).")
    data = serializers.DictField()


class EventResyncOut(serializers.Serializer):
    events = LiveEventOut(many=True)
    seq = serializers.IntegerField(help_text="Continue from here: the highest seq examined.")
    last_seq = serializers.IntegerField(help_text="The campaign's last seq when this answer was made.")
    more = serializers.BooleanField(help_text="True: ask again with `after=seq`.")
    reset = serializers.BooleanField(
        help_text="True: the events asked for are older than the log keeps (no events are given); reload what "
        "you show from the server, then continue from `seq`."
    )


class CampaignEventsView(ApiView):
    @extend_schema(
        summary="Live events after a sequence number (resync)",
        description="The campaign's live events with `seq` greater than `after` that the viewer may see, "
        "oldest first, exactly as the WebSocket `/ws/campaigns/<id>/` sends them. At most "
        f"{LIMIT} events are examined per call: while `more` is true, ask again with `after=seq`. "
        "Events are kept for EVENT_LOG_RETENTION_DAYS days: asking for older ones answers `reset: true`.",
        parameters=[
            OpenApiParameter("after", int, description="The last seq the client has (0: from the start)."),
            OpenApiParameter("since", int, description="Instead of `after`: events logged since this Unix time."),
        ],
        responses={200: EventResyncOut, **errors(400, 404)},
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign, viewer = selectors.campaign_for(request.user, campaign_id)
        params = request.query_params
        try:
            after = int(params.get("after", "0"))
            since = datetime.fromtimestamp(int(params["since"]), tz=UTC) if "since" in params else None
        except (ValueError, OverflowError, OSError):
            field = "since" if "since" in params else "after"
            raise serializers.ValidationError({field: [_("Tiene que ser un número entero.")]}) from None
        newest = last_seq(campaign.pk)
        if resync_needs_reset(campaign.pk, after, since):
            return Response({"events": [], "seq": newest, "last_seq": newest, "more": False, "reset": True})
        log = CampaignEventLog.objects.filter(campaign=campaign, seq__gt=after)
        if since is not None:
            log = log.filter(created_at__gte=since)
        rows = list(log.order_by("seq").values_list("seq", "type", "data", "audience")[: LIMIT + 1])
        more = len(rows) > LIMIT
        rows = rows[:LIMIT]
        scene_ids = policy.readable_scene_ids(viewer)
        events = [
            client_event(seq, event_type, data)
            for seq, event_type, data, audience in rows
            if policy.event_visible_to(viewer, Audience.from_json(audience), scene_ids)
        ]
        # Read the newest seq before the rows: then "seq" never skips an event committed in between.
        seq = rows[-1][0] if more else max(after, newest, rows[-1][0] if rows else 0)
        return Response({"events": events, "seq": seq, "last_seq": max(newest, seq), "more": more, "reset": False})


__all__ = ["CampaignEventsView"]
