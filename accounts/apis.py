"""API of accounts: tokens for external clients and the current user's profile."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.authtoken.models import Token
from rest_framework.permissions import AllowAny, BasePermission, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from tintero.api.serializers import MeSerializer, TokenIn, TokenOut
from tintero.api.views.base import ApiView, errors


class TokenView(ApiView):
    """Obtain (POST) or revoke (DELETE) the API token of a user."""

    def get_permissions(self) -> list[BasePermission]:
        return [IsAuthenticated()] if self.request.method == "DELETE" else [AllowAny()]

    @extend_schema(
        summary="Obtain a token",
        description="Exchange a username and password for the user's API token. Send it afterwards as "
        "`Authorization: Token <token>`.",
        request=TokenIn,
        responses={200: TokenOut, **errors(400)},
        auth=[],
    )
    def post(self, request: Request) -> Response:
        data = self.parse(TokenIn)
        token, _created = Token.objects.get_or_create(user=data["user"])
        return Response({"token": token.key})

    @extend_schema(summary="Revoke my token", request=None, responses={204: None, **errors(401)})
    def delete(self, request: Request) -> Response:
        Token.objects.filter(user=request.user).delete()
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
