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
from urllib.parse import parse_qs, urlsplit

from channels.db import database_sync_to_async
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.http.request import split_domain_port, validate_host

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


_DEFAULT_PORTS = {"http": 80, "https": 443}


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers") or ():
        if key == name:
            return bytes(value).decode("latin-1")
    return None


def origin_allowed(origin: str, host_header: str | None) -> bool:
    """Whether a browser page at ``origin`` may open a socket on this server: an exact
    ``CSRF_TRUSTED_ORIGINS`` entry, or our own origin: a host in ``ALLOWED_HOSTS`` and the same host and
    port the socket was opened on (``Host``), so another port of the same host (another app) is refused.
    Without a Host header (only in-process test clients; HTTP/1.1 always sends one) the origin's port must
    be its scheme's default."""
    if origin in settings.CSRF_TRUSTED_ORIGINS:
        return True
    try:
        parts = urlsplit(origin)
        origin_port = parts.port
    except ValueError:
        return False
    if parts.scheme not in _DEFAULT_PORTS or not parts.hostname:
        return False
    origin_host, origin_port = parts.hostname, origin_port or _DEFAULT_PORTS[parts.scheme]
    if not validate_host(origin_host, settings.ALLOWED_HOSTS):
        return False
    if host_header is None:
        return origin_port == _DEFAULT_PORTS[parts.scheme]
    host, port = split_domain_port(host_header)
    if not host:
        return False
    return host == origin_host.lower() and (int(port) if port else _DEFAULT_PORTS[parts.scheme]) == origin_port


class OriginOrTokenValidator:
    """The WebSocket origin rule. A browser always sends Origin, and a socket that may carry its session
    cookie must come from our own origin (:func:`origin_allowed`: same host and port, or a trusted origin).
    A client that sends no Origin (Python's ``websockets``, most bots) is accepted only when it sends an API
    token: then the token, not a cookie, says who it is (TokenAuthMiddleware replaces the session's user, or
    closes with 4401)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> Any:
        from channels.security.websocket import WebsocketDenier

        origin = _header(scope, b"origin")
        if origin is None:
            if token_from_scope(scope) is not None:
                return await self.app(scope, receive, send)
        elif origin_allowed(origin, _header(scope, b"host")):
            return await self.app(scope, receive, send)
        return await WebsocketDenier()(scope, receive, send)


__all__ = [
    "SUBPROTOCOL",
    "TOKEN_SUBPROTOCOL_PREFIX",
    "OriginOrTokenValidator",
    "TokenAuthMiddleware",
    "origin_allowed",
    "token_from_scope",
]
