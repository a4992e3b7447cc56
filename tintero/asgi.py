"""ASGI entry point: HTTP and WebSocket on one port."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tintero.settings")
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402  (needs Django set up first)
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from tintero.routing import websocket_urlpatterns  # noqa: E402
from tintero.ws_auth import OriginOrTokenValidator  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": OriginOrTokenValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
    }
)
