"""API of accounts: tokens for external clients and the current user's profile."""

from __future__ import annotations

from typing import cast

from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny, BasePermission, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from accounts import services
from accounts.models import ApiToken, User
from accounts.throttle import set_device_cookie
from tintero.api.serializers import MeSerializer, TokenIn, TokenInfoOut, TokenOut
from tintero.api.views.base import ApiView, errors


class TokenView(ApiView):
    """Obtain (POST) or revoke (DELETE) an API token."""

    def get_permissions(self) -> list[BasePermission]:
        return [IsAuthenticated()] if self.request.method == "DELETE" else [AllowAny()]

    @extend_schema(
        summary="Obtain a token",
        description="Exchange a username and password for a new API token. Send it afterwards as "
        "`Authorization: Token <token>`. The key is in this answer only (lists show its first characters). "
        "A token expires after `API_TOKEN_TTL_DAYS` days (see `expires_at`) and every token of a user is "
        "revoked when their password changes. Attempts are throttled per account and per address: "
        "past the limit, 429 with `Retry-After` (seconds), the password unchecked. A successful answer sets a "
        "device cookie: attempts that send it back count against that device only, so a client that keeps "
        "cookies is not locked out by someone else's failures.",
        request=TokenIn,
        responses={200: TokenOut, **errors(400, 429)},
        auth=[],
    )
    def post(self, request: Request) -> Response:
        data = self.parse(TokenIn)
        issued = services.issue_token(user=data["user"], name=data.get("name", "") or "API")
        token = issued.token
        response = Response({"token": issued.key, "id": token.pk, "name": token.name, "expires_at": token.expires_at})
        set_device_cookie(response, data["user"])  # a client that keeps cookies keeps its owner's way in
        return response

    @extend_schema(
        summary="Revoke this token",
        description="Revokes the token that authenticates this request; with a browser session, every token "
        "of the user.",
        request=None,
        responses={204: None, **errors(401)},
    )
    def delete(self, request: Request) -> Response:
        user = cast(User, request.user)
        if isinstance(request.auth, ApiToken):
            services.revoke_token(user=user, token_id=request.auth.pk)
        else:
            services.revoke_all_tokens(user=user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class TokenListView(ApiView):
    """The user's API tokens (never their keys)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(summary="My tokens", responses={200: TokenInfoOut(many=True), **errors(401)})
    def get(self, request: Request) -> Response:
        return self.paginated(ApiToken.objects.filter(user=cast(User, request.user)), TokenInfoOut)


class TokenDetailView(ApiView):
    permission_classes = [IsAuthenticated]

    @extend_schema(summary="Revoke one of my tokens", request=None, responses={204: None, **errors(401, 404)})
    def delete(self, request: Request, token_id: int) -> Response:
        if not services.revoke_token(user=cast(User, request.user), token_id=token_id):
            raise NotFound(_("No tienes ningún token con ese número."))
        return Response(status=status.HTTP_204_NO_CONTENT)


class MeView(ApiView):
    """The authenticated user."""

    permission_classes = [IsAuthenticated]

    @extend_schema(summary="Who am I", responses={200: MeSerializer, **errors(401)})
    def get(self, request: Request) -> Response:
        return self.render(request.user, MeSerializer)

    @extend_schema(summary="Update my profile", request=MeSerializer, responses={200: MeSerializer, **errors(400, 401)})
    def patch(self, request: Request) -> Response:
        serializer = MeSerializer(request.user, data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        serializer.save()
        return Response(serializer.data)
