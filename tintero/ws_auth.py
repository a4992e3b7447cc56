"""Token authentication for WebSockets, for clients that have no browser session (bots, apps).

It runs inside ``AuthMiddlewareStack`` (see ``tintero.routing``): when the connection carries an API
token, the token's user replaces the session's. Two ways to send it:

- the ``Sec-WebSocket-Protocol`` header, as a subprotocol ``tintero.token.<key>`` next to ``tintero.v1``
  (preferred: query strings end up in access logs);
- the query string, ``?token=<key>``.

A token that matches no user leaves the connection anonymous and flags ``scope["token_invalid"]``, so
the consumer closes it with 4401 instead of silently treating the client as a reader.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from django.contrib.auth.models import AnonymousUser

TOKEN_SUBPROTOCOL_PREFIX = "tintero.token."
SUBPROTOCOL = "tintero.v1"

Scope = dict[str, Any]


def token_from_scope(scope: Scope) -> str | None:
    for protocol in scope.get("subprotocols") or ():
        if protocol.startswith(TOKEN_SUBPROTOCOL_PREFIX):
            return protocol[len(TOKEN_SUBPROTOCOL_PREFIX) :]
    query = parse_qs((scope.get("query_string") or b"").decode("latin1"))
    values = query.get("token")
    return values[0] if values else None


@database_sync_to_async
def _user_for_token(key: str) -> Any:
    from accounts.services import token_for_key

    token = token_for_key(key)
    return token.user if token is not None else None


class TokenAuthMiddleware:
    """Resolve ``scope["user"]`` from an API token when the client sends one (see the module docstring)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> Any:
        key = token_from_scope(scope)
        if key is not None:
            user = await _user_for_token(key)
            scope = {**scope, "user": user or AnonymousUser(), "token_invalid": user is None}
        return await self.app(scope, receive, send)


class OriginOrTokenValidator:
    """The WebSocket origin rule. A browser always sends Origin, and a socket that may carry its session
    cookie must come from one of our hosts (AllowedHostsOriginValidator). A client that sends no Origin
    (Python's ``websockets``, most bots) is accepted only when it sends an API token: then the token, not a
    cookie, says who it is (TokenAuthMiddleware replaces the session's user, or closes with 4401)."""

    def __init__(self, app: Any) -> None:
        from channels.security.websocket import AllowedHostsOriginValidator

        self.app = app
        self.checked = AllowedHostsOriginValidator(app)

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> Any:
        has_origin = any(name == b"origin" for name, _value in scope.get("headers") or ())
        if not has_origin and token_from_scope(scope) is not None:
            return await self.app(scope, receive, send)
        return await self.checked(scope, receive, send)


__all__ = [
    "SUBPROTOCOL",
    "TOKEN_SUBPROTOCOL_PREFIX",
    "OriginOrTokenValidator",
    "TokenAuthMiddleware",
    "token_from_scope",
]
