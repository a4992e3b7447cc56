"""API of accounts: tokens for external clients and the current user's profile."""

from __future__ import annotations

from typing import cast

from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.exceptions import NotFound, Throttled, ValidationError
from rest_framework.permissions import AllowAny, BasePermission, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from accounts import leaving, recovery, services
from accounts.models import ApiToken, User
from accounts.request_counts import TooManyRequests
from accounts.throttle import set_device_cookie
from tintero.api.serializers import (
    DeleteAccountIn,
    EmailConfirmIn,
    EmailIn,
    MeSerializer,
    PasswordResetIn,
    PasswordResetOut,
    TokenIn,
    TokenInfoOut,
    TokenOut,
)
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

    @extend_schema(
        summary="Delete my account",
        description="Erases the account (name, email, avatar, password, tokens, push subscriptions, feed, "
        "notifications, sessions); posts stay in the threads under a neutral name and characters pass to "
        "their campaigns' GMs as NPCs. Needs the password. A GM who is the last GM of a running campaign is "
        "refused (400, naming the campaigns) until they hand it over or end it.",
        request=DeleteAccountIn,
        responses={204: None, **errors(400, 401)},
    )
    def delete(self, request: Request) -> Response:
        user = cast(User, request.user)
        data = self.parse(DeleteAccountIn)
        if not user.check_password(data["password"]):
            raise ValidationError({"password": [_("La contraseña no es correcta.")]})
        leaving.delete_account(user=user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MeExportView(ApiView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Download my data",
        description="Everything the account gave the site: profile, memberships, posts (Markdown as written), "
        "characters with their sheets, notification settings and API tokens (never their keys).",
        responses={200: OpenApiTypes.OBJECT, **errors(401)},
    )
    def get(self, request: Request) -> Response:
        return Response(leaving.export_account(cast(User, request.user)))


class MeEmailView(ApiView):
    """The account's email address: ask for a new one, have its link sent again, confirm it."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Change my email address",
        description="Mails a confirmation link to the new address. `email` stays the confirmed address (and "
        "keeps receiving mail) until the link is opened; `pending_email` shows the one waiting.",
        request=EmailIn,
        responses={200: MeSerializer, **errors(400, 401, 429)},
    )
    def put(self, request: Request) -> Response:
        data = self.parse(EmailIn)
        try:
            user = services.request_email(user=cast(User, request.user), address=data["email"])
        except TooManyRequests as refused:
            raise Throttled(wait=refused.retry_after, detail=str(refused)) from None
        return self.render(user, MeSerializer)

    @extend_schema(
        summary="Send the confirmation link again",
        request=None,
        responses={200: MeSerializer, **errors(400, 401, 429)},
    )
    def post(self, request: Request) -> Response:
        user = cast(User, request.user)
        try:
            services.resend_confirmation(user=user)
        except TooManyRequests as refused:
            raise Throttled(wait=refused.retry_after, detail=str(refused)) from None
        return self.render(user, MeSerializer)


class EmailConfirmView(ApiView):
    permission_classes = [AllowAny]

    @extend_schema(
        summary="Confirm an email address",
        description="The token of the link mailed to a new address; no authentication needed (the token is "
        "signed for one account and one address, and expires after `EMAIL_CONFIRM_HOURS`).",
        request=EmailConfirmIn,
        responses={200: MeSerializer, **errors(400)},
        auth=[],
    )
    def post(self, request: Request) -> Response:
        user = services.confirm_email(self.parse(EmailConfirmIn)["token"])
        return self.render(user, MeSerializer)


class PasswordResetView(ApiView):
    permission_classes = [AllowAny]

    @extend_schema(
        summary="Ask for a password reset link",
        description="Mails a reset link to the address if it is an account's confirmed address. The answer is "
        "the same whether it is or not. Requests are limited per address and per client: past the limit, 429 "
        "with `Retry-After` (seconds).",
        request=PasswordResetIn,
        responses={202: PasswordResetOut, **errors(400, 429)},
        auth=[],
    )
    def post(self, request: Request) -> Response:
        data = self.parse(PasswordResetIn)
        try:
            recovery.request_password_reset(request._request, data["email"])
        except TooManyRequests as refused:
            raise Throttled(wait=refused.retry_after, detail=str(refused)) from None
        message = _("Si es la dirección confirmada de una cuenta, le hemos enviado un enlace.")
        return Response({"detail": message}, status=status.HTTP_202_ACCEPTED)
