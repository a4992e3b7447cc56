"""WebSocket routes: one socket per open campaign page (see ``campaigns.consumers``)."""

from django.urls import URLPattern, path

from campaigns.consumers import CampaignConsumer, UserConsumer
from tintero.ws_auth import TokenAuthMiddleware

websocket_urlpatterns: list[URLPattern] = [
    path("ws/campaigns/<int:campaign_id>/", TokenAuthMiddleware(CampaignConsumer.as_asgi()), name="ws-campaign"),
    path("ws/me/", TokenAuthMiddleware(UserConsumer.as_asgi()), name="ws-me"),
]
