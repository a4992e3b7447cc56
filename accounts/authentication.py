"""DRF authentication by API token (``Authorization: Token <key>``), against :class:`accounts.models.ApiToken`:
hashed keys, expiry, one user many tokens."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication

from accounts.services import token_for_key


class ApiTokenAuthentication(TokenAuthentication):
    keyword = "Token"

    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        token = token_for_key(key)
        if token is None:
            raise exceptions.AuthenticationFailed(_("Token no válido, caducado o revocado."))
        return token.user, token
