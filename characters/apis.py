"""The characters API: characters, their approval, portraits, each track and pool operation as an explicit
endpoint (POST the operation, get the ledger entry back), ledgers, pools, and ruleset discovery.

Same policy as the pages (``campaigns.policy``), same services for every write.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, extend_schema
from pydantic import BaseModel
from rest_framework import status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import IsAuthenticated, IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.models import User
from campaigns import policy
from campaigns import selectors as campaign_selectors
from campaigns.models import Campaign, Post
from campaigns.policy import Viewer
from characters import selectors, services
from characters.models import Character, LedgerEntry
from characters.serializers import (
    CharacterCreateIn,
    CharacterOut,
    CharacterUpdateIn,
    LedgerEntryOut,
    OperationIn,
    PoolsOut,
    PortraitIn,
    RulesetOut,
)
from rulesets import registry
from systems.registry import Ruleset
from tintero.api.parsers import JSONParser
from tintero.api.views.base import ApiView, errors


def _language(request: Request) -> str:
    return getattr(request, "LANGUAGE_CODE", "es") or "es"


def _schema(model: type[BaseModel] | None) -> dict[str, Any] | None:
    if model is None:
        return None
    try:
        return model.model_json_schema()
    except Exception:  # a model pydantic cannot describe still must not break discovery
        return {"title": model.__name__}


def describe_ruleset(ruleset: Ruleset) -> dict[str, Any]:
    """Everything an external client needs to drive a ruleset: names, rolls, pools, tracks, operations
    (with who may ask for each and their params' JSON schema) and the settings and sheet schemas."""
    who = dict((op.key, sorted(w)) for op, w in selectors.operation_catalogue(ruleset.key))  # the binding says who may

    def names(n: Any) -> dict[str, str]:
        return {"es": n.es, "en": n.en}

    input_model = getattr(registry.plugin(ruleset.key).rolls, "input_model", None)

    def accepted(kind: str) -> Any:
        """What a post accepts for the kind, when the roll binding declares it (the schema a client needs)."""
        return input_model(kind) if input_model is not None else None

    return {
        "key": ruleset.key,
        "names": names(ruleset.names),
        "roll_kinds": [
            {"key": k.key, "names": names(k.names), "request_schema": _schema(accepted(k.key) or k.request_model)}
            for k in ruleset.roll_kinds
        ],
        "pools": [
            {
                "key": p.key,
                "names": names(p.names),
                "scope": str(p.scope),
                "minimum": p.minimum,
                "maximum": p.maximum,
                "initial": p.initial,
            }
            for p in ruleset.pools
        ],
        "tracks": [{"key": t.key, "names": names(t.names), "kind": t.kind, "size": t.size} for t in ruleset.tracks],
        "operations": [
            {
                "key": op.key,
                "names": names(op.names),
                "target": str(op.target),
                "who_may": who.get(op.key, ["gm"]),
                "params_schema": _schema(op.params_model),
            }
            for op in ruleset.operations
        ],
        "settings_schema": _schema(ruleset.settings_model),
        "sheet_schema": _schema(ruleset.sheet_model),
    }


def _ledger_context(campaign: Campaign, request: Request) -> dict[str, Any]:
    binding = selectors.binding_of(campaign.ruleset)
    return {
        "pools_public": binding.pools_public(services.campaign_settings(campaign)),
        "operation_names": {
            op.key: op.names.get(_language(request)) for op in registry.rules(campaign.ruleset).operations
        },
    }


class CharacterMixin(ApiView):
    def character_response(self, request: Request, character_id: int, status_code: int = 200) -> Response:
        character, viewer = selectors.character_for(request.user, character_id)
        return self.render(character, CharacterOut, status_code, viewer=viewer, campaign=character.campaign)


class CampaignCharactersView(CharacterMixin):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(
        summary="List a campaign's characters",
        description="Characters whose public parts the viewer may see: approved and retired ones, plus the "
        "viewer's own drafts (GMs see every draft). Private fields only where the viewer may see them.",
        responses={200: CharacterOut(many=True), **errors(404)},
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign, viewer = campaign_selectors.campaign_for(request.user, campaign_id)
        return self.paginated(selectors.characters_visible(viewer), CharacterOut, viewer=viewer, campaign=campaign)

    @extend_schema(
        summary="Create a character (a draft)",
        description="Players create their own; GMs create NPCs (`is_npc`) or a PC for a player (`owner`). "
        "The sheet may be incomplete: the ruleset's creation rules are checked on `submit`.",
        request=CharacterCreateIn,
        responses={201: CharacterOut, **errors(400, 401, 403, 404)},
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign, viewer = campaign_selectors.campaign_for(request.user, campaign_id)
        data = self.parse(CharacterCreateIn)
        owner_id = data.pop("owner", None)
        owner = None
        if owner_id is not None and policy.may_create_for_others(viewer):
            owner = User.objects.filter(pk=owner_id).first()
            if owner is None:
                raise ValidationError({"owner": _("Ese usuario no existe.")})
        character = services.create_character(actor=request.user, campaign=campaign, owner=owner, **data)
        return self.character_response(request, character.pk, status.HTTP_201_CREATED)


class CharacterDetailView(CharacterMixin):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(summary="Retrieve a character", responses={200: CharacterOut, **errors(404)})
    def get(self, request: Request, character_id: int) -> Response:
        return self.character_response(request, character_id)

    @extend_schema(
        summary="Update a character (its owner or a GM)",
        description="Texts at any time; `sheet` only while a draft or awaiting approval (after approval the "
        "sheet changes through operations only). A player changing a pending sheet sends it back to draft.",
        request=CharacterUpdateIn,
        responses={200: CharacterOut, **errors(400, 401, 403, 404)},
    )
    def patch(self, request: Request, character_id: int) -> Response:
        character, _viewer = selectors.character_for(request.user, character_id)
        services.update_character(actor=request.user, character=character, **self.parse(CharacterUpdateIn))
        return self.character_response(request, character_id)


class _CharacterActionView(CharacterMixin):
    permission_classes = [IsAuthenticated]
    service: Any = None

    def post(self, request: Request, character_id: int) -> Response:
        character, _viewer = selectors.character_for(request.user, character_id)
        type(self).service(actor=request.user, character=character)
        return self.character_response(request, character_id)


def _action(service: Any, summary: str, description: str) -> type[_CharacterActionView]:
    view = type(f"{service.__name__.title().replace('_', '')}View", (_CharacterActionView,), {"service": service})
    view.post = extend_schema(  # type: ignore[method-assign]
        summary=summary,
        description=description,
        request=None,
        responses={200: CharacterOut, **errors(400, 401, 403, 404)},
    )(view.post)
    return view


CharacterSubmitView = _action(
    services.submit_character,
    "Submit a draft for approval",
    "The owner (or a GM) sends a finished sheet; the ruleset's creation rules must hold (400 says which fails).",
)
CharacterApproveView = _action(
    services.approve_character,
    "Approve a character (GMs)",
    "From now on it may post, and its sheet changes through operations and the ledger.",
)
CharacterReturnView = _action(
    services.return_to_draft, "Return a pending character to draft (GMs)", "The owner may then change its sheet."
)
CharacterRetireView = _action(services.retire_character, "Retire a character", "Its owner or a GM.")


class CharacterPortraitView(CharacterMixin):
    permission_classes = [IsAuthenticated]
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        summary="Upload a portrait",
        description="Multipart `portrait`. The image is decoded, shrunk to 1024 px and re-encoded as WebP.",
        request={"multipart/form-data": PortraitIn},
        responses={200: CharacterOut, **errors(400, 401, 403, 404)},
    )
    def post(self, request: Request, character_id: int) -> Response:
        character, _viewer = selectors.character_for(request.user, character_id)
        data = self.parse(PortraitIn)
        services.set_portrait(actor=request.user, character=character, upload=data["portrait"])
        return self.character_response(request, character_id)

    @extend_schema(summary="Remove the portrait", responses={200: CharacterOut, **errors(401, 403, 404)})
    def delete(self, request: Request, character_id: int) -> Response:
        character, _viewer = selectors.character_for(request.user, character_id)
        services.set_portrait(actor=request.user, character=character, upload=None)
        return self.character_response(request, character_id)


# --- Operations and ledgers -------------------------------------------------------------------------


def _post_for(campaign: Campaign, viewer: Viewer, post_id: int | None) -> Post | None:
    if post_id is None:
        return None
    post = Post.objects.filter(pk=post_id, scene__campaign=campaign).first()
    if post is None or not policy.may_attach_ledger_to_post(viewer, post):
        raise ValidationError({"post": _("Ese mensaje no es tuyo o no es de esta partida.")})
    return post


class _OperationView(ApiView):
    permission_classes = [IsAuthenticated]
    parser_classes = [JSONParser]

    def operate(self, request: Request, campaign: Campaign, viewer: Viewer, op: str, character: Character | None):  # type: ignore[no-untyped-def]
        data = self.parse(OperationIn)
        entry = services.apply_operation(
            actor=request.user,
            campaign=campaign,
            operation=op,
            params=data["params"],
            character=character,
            reason=data["reason"],
            post=_post_for(campaign, viewer, data["post"]),
        )
        entry = LedgerEntry.objects.select_related("actor", "character").get(pk=entry.pk)
        return self.render(
            entry, LedgerEntryOut, status.HTTP_201_CREATED, viewer=viewer, **_ledger_context(campaign, request)
        )


_OPERATION_DESCRIPTION = (
    "Runs the ruleset's operation `{op}` (see `GET /api/rulesets/{key}/` for the keys, who may ask for each "
    "and the JSON schema of `params`) in one transaction with the rows locked, and returns the ledger entry "
    "it appended. A change the rules forbid is a 400 with the rule's `code` and message, and changes nothing."
)


class CharacterOperationView(_OperationView):
    @extend_schema(
        summary="Apply an operation to a character",
        description=_OPERATION_DESCRIPTION,
        request=OperationIn,
        responses={201: LedgerEntryOut, **errors(400, 401, 403, 404)},
    )
    def post(self, request: Request, character_id: int, op: str) -> Response:
        character, viewer = selectors.character_for(request.user, character_id)
        return self.operate(request, character.campaign, viewer, op, character)


class CampaignOperationView(_OperationView):
    @extend_schema(
        summary="Apply an operation to the campaign pools (GMs)",
        description=_OPERATION_DESCRIPTION,
        request=OperationIn,
        responses={201: LedgerEntryOut, **errors(400, 401, 403, 404)},
    )
    def post(self, request: Request, campaign_id: int, op: str) -> Response:
        campaign, viewer = campaign_selectors.campaign_for(request.user, campaign_id)
        return self.operate(request, campaign, viewer, op, None)


class CharacterLedgerView(ApiView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="A character's ledger",
        description="Newest first. Its owner and the GMs (and the table when sheets are open).",
        responses={200: LedgerEntryOut(many=True), **errors(401, 403, 404)},
    )
    def get(self, request: Request, character_id: int) -> Response:
        character, viewer = selectors.character_for(request.user, character_id)
        if not policy.may_read_ledger(viewer, character, character.campaign.sheets_open):
            raise PermissionDenied(_("Solo el dueño del personaje y los másters leen su libro de cambios."))
        return self.paginated(
            selectors.character_ledger(character),
            LedgerEntryOut,
            viewer=viewer,
            **_ledger_context(character.campaign, request),
        )


class CampaignLedgerView(ApiView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="A campaign's whole ledger (GMs)",
        description="Newest first: every operation on its sheets and pools.",
        responses={200: LedgerEntryOut(many=True), **errors(401, 403, 404)},
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign, viewer = campaign_selectors.campaign_for(request.user, campaign_id)
        if not policy.may_read_ledger(viewer, None, campaign.sheets_open):
            raise PermissionDenied(_("Solo los másters leen el libro de cambios de la partida."))
        return self.paginated(
            selectors.campaign_ledger(campaign), LedgerEntryOut, viewer=viewer, **_ledger_context(campaign, request)
        )


class CampaignPoolsView(ApiView):
    @extend_schema(
        summary="The campaign pools",
        description="Pools that belong to no sheet (GM fate points, threat, hope and despair...). 403 for "
        "non-GMs when the ruleset keeps them for the GMs.",
        responses={200: PoolsOut, **errors(403, 404)},
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign, viewer = campaign_selectors.campaign_for(request.user, campaign_id)
        view = selectors.campaign_pools(campaign, viewer)
        if not view.visible:
            raise PermissionDenied(_("En esta partida las reservas solo las ven los másters."))
        return Response(PoolsOut({"public": view.public, "pools": view.pools, "state": view.state}).data)


# --- Rulesets ---------------------------------------------------------------------------------------


class RulesetListView(ApiView):
    @extend_schema(
        summary="List the rulesets",
        description="Each ruleset with its roll kinds, pools, tracks, operations (who may ask, params schema) "
        "and settings schema.",
        responses={200: RulesetOut(many=True)},
    )
    def get(self, request: Request) -> Response:
        rulesets = [describe_ruleset(p.rules) for _key, p in sorted(registry.plugins().items())]
        return self.paginated(rulesets, RulesetOut)


class RulesetDetailView(ApiView):
    @extend_schema(
        summary="Describe one ruleset",
        parameters=[OpenApiParameter("key", str, OpenApiParameter.PATH, description="e.g. fate-accelerated")],
        responses={200: RulesetOut, **errors(404)},
    )
    def get(self, request: Request, key: str) -> Response:
        found = registry.plugins().get(key)
        ruleset = found.rules if found is not None else None
        if ruleset is None:
            raise Http404
        return self.render(describe_ruleset(ruleset), RulesetOut)
