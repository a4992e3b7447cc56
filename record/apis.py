"""The record in the API: search (and, below, export, import, archive and the roll log)."""

from __future__ import annotations

from typing import Any, cast

from django.core.exceptions import PermissionDenied
from django.http import StreamingHttpResponse
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.parsers import MultiPartParser
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import remove_query_param, replace_query_param

from accounts.models import User
from campaigns import policy
from campaigns import selectors as campaign_selectors
from campaigns.models import Campaign
from record.archive_schema import json_schema
from record.export import Exporter, archive_chunks, batched
from record.selectors import PARTS, VOICES, SearchCriteria, SearchPage, roll_log, roll_log_document, search_posts
from record.services import (
    ImportRefused,
    archive_campaign,
    claim_imported_writing,
    import_campaign,
    read_upload,
    reopen_campaign,
)
from record.streaming import streamed_download
from tintero.api.serializers import CharacterBriefOut, UserBriefOut
from tintero.api.views.base import ApiView, errors

MAX_ID = 2**63 - 1  # the largest id either database stores


class SearchIn(serializers.Serializer):
    q = serializers.CharField(max_length=200, help_text='Words; a quoted "phrase" must appear as written.')
    campaign = serializers.IntegerField(required=False, min_value=1, max_value=MAX_ID)
    scene = serializers.IntegerField(required=False, min_value=1, max_value=MAX_ID)
    character = serializers.IntegerField(required=False, min_value=1, max_value=MAX_ID)
    author = serializers.CharField(required=False, max_length=150, help_text="The author's username (handle).")
    voice = serializers.ChoiceField(choices=VOICES, required=False, help_text="`ic` in character, `ooc` out of it.")
    part = serializers.ChoiceField(choices=PARTS, required=False, help_text="Only the text, or only game notes.")
    with_rolls = serializers.BooleanField(required=False, default=False, help_text="Only posts with rolls you see.")
    since = serializers.DateField(required=False)
    until = serializers.DateField(required=False)
    page = serializers.IntegerField(required=False, min_value=1, max_value=MAX_ID, default=1)
    page_size = serializers.IntegerField(required=False, min_value=1, max_value=100, default=20)


class SearchHitOut(serializers.Serializer):
    id = serializers.IntegerField(source="post.pk")
    url = serializers.CharField(source="post.get_absolute_url", help_text="The post's permalink page.")
    campaign = serializers.IntegerField(source="post.scene.campaign_id")
    campaign_title = serializers.CharField(source="post.scene.campaign.title")
    scene = serializers.IntegerField(source="post.scene_id")
    scene_title = serializers.CharField(source="post.scene.title")
    author = UserBriefOut(source="post.local_author", allow_null=True, help_text="Null for imported writing.")
    imported_author = serializers.CharField(
        source="post.imported_author", help_text="The archive's handle of imported writing not yet claimed; else empty."
    )
    character = CharacterBriefOut(source="post.character", allow_null=True)
    voice = serializers.CharField(source="post.voice")
    created_at = serializers.DateTimeField(source="post.created_at")
    body_snippet = serializers.CharField(source="body", help_text="HTML: escaped text, matches in <mark>.")
    notes_snippet = serializers.CharField(source="notes", help_text="HTML; empty when the notes do not match.")


class SearchPageOut(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.CharField(allow_null=True)
    previous = serializers.CharField(allow_null=True)
    results = SearchHitOut(many=True)


class SearchView(ApiView):
    permission_classes = [AllowAny]

    @extend_schema(
        summary="Search posts",
        description="Full-text search over the posts (text and game notes) of every campaign the viewer may "
        "read, newest first. Only posts the viewer may see are searched: whispers, GM-only posts, hidden scenes "
        "and secret rolls never show up for others. PostgreSQL stems by the campaign's language.",
        parameters=[SearchIn],
        responses={200: SearchPageOut, **errors(400)},
    )
    def get(self, request: Request) -> Response:
        params = SearchIn(data=request.query_params)
        params.is_valid(raise_exception=True)
        data: dict[str, Any] = dict(params.validated_data)
        criteria = SearchCriteria(
            text=data["q"],
            campaign_id=data.get("campaign"),
            scene_id=data.get("scene"),
            author=data.get("author", ""),
            character_id=data.get("character"),
            voice=data.get("voice", ""),
            part=data.get("part", ""),
            with_rolls=data["with_rolls"],
            since=data.get("since"),
            until=data.get("until"),
        )
        page = search_posts(request.user, criteria, data["page"], data["page_size"])
        return Response(
            {
                "count": page.total,
                "next": _page_url(request, page, page.number + 1) if page.has_next else None,
                "previous": _page_url(request, page, page.number - 1) if page.has_previous else None,
                "results": SearchHitOut(page.hits, many=True).data,
            }
        )


def _page_url(request: Request, page: SearchPage, number: int) -> str:
    url = request.build_absolute_uri()
    return remove_query_param(url, "page") if number == 1 else replace_query_param(url, "page", number)


class RollLinkOut(serializers.Serializer):
    seq = serializers.IntegerField()
    prev = serializers.CharField(help_text="The previous link's hash (64 zeros for the first).")
    commitment = serializers.CharField(help_text="sha256(salt + canonical JSON of content).")
    hash = serializers.CharField(help_text='sha256 of canonical JSON {"commitment", "prev", "seq"}.')
    salt = serializers.CharField(required=False, help_text="Only when the viewer may see the roll.")
    content = serializers.JSONField(required=False, help_text="The roll's facts; only when the viewer may see it.")


class RollLogOut(serializers.Serializer):
    format = serializers.CharField()
    version = serializers.IntegerField()
    campaign = serializers.JSONField()
    length = serializers.IntegerField()
    head = serializers.CharField(help_text="The last link's hash: keep it to detect any later rewrite.")
    links = RollLinkOut(many=True)


class RollLogView(ApiView):
    permission_classes = [AllowAny]

    @extend_schema(
        summary="The campaign's roll log (hash chain)",
        description="Every roll of the campaign, chained (see docs/verify_rolls.py). Rolls the viewer may not see "
        "(secret until revealed, in a whisper or a hidden scene) show only their salted commitment.",
        responses={200: RollLogOut, **errors(404)},
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign, viewer = campaign_selectors.campaign_for(request.user, campaign_id)
        return Response(roll_log_document(campaign, roll_log(viewer, campaign)))


class ExportView(ApiView):
    permission_classes = [AllowAny]

    @extend_schema(
        summary="Export a campaign (JSON archive)",
        description="The whole campaign as a versioned JSON archive (schema at `/api/archive-schema/`), streamed. "
        "GMs get everything; for a public campaign anyone who may read it gets what they may read (never "
        "another's whisper, a GM-only post or an unrevealed secret roll).",
        responses={(200, "application/json"): OpenApiTypes.OBJECT, **errors(403, 404)},
    )
    def get(self, request: Request, campaign_id: int) -> StreamingHttpResponse:
        campaign, viewer = campaign_selectors.campaign_for(request.user, campaign_id)
        if not policy.may_export_campaign(viewer):
            raise PermissionDenied(_("Solo los másters pueden descargar una partida privada."))
        chunks = archive_chunks(Exporter(viewer, campaign), getattr(request.user, "username", None))
        return streamed_download(
            request, batched(chunks), "application/json; charset=utf-8", f"tintero-partida-{campaign.pk}.json"
        )


class ArchiveSchemaView(ApiView):
    permission_classes = [AllowAny]

    @extend_schema(
        summary="The campaign archive's JSON Schema",
        description="Version 1; also in the repository as docs/campaign-archive.schema.json.",
        responses={200: OpenApiTypes.OBJECT},
    )
    def get(self, request: Request) -> Response:
        return Response(json_schema())


class ImportIn(serializers.Serializer):
    archive = serializers.FileField(help_text="A campaign archive (JSON) downloaded from a Tintero.")
    invite = serializers.ListField(
        child=serializers.CharField(max_length=150),
        required=False,
        max_length=500,
        help_text="Handles of the archive's members to invite here, to their archived role (a GM as a player). "
        "Nobody else is invited.",
    )


class ImportOut(serializers.Serializer):
    campaign = serializers.IntegerField(help_text="The new campaign; you are its GM.")
    url = serializers.CharField()
    invited = serializers.ListField(child=serializers.CharField(), help_text="Handles you chose, found here, invited.")
    missing = serializers.ListField(child=serializers.CharField(), help_text="Handles with no account here.")
    imported_handles = serializers.ListField(
        child=serializers.CharField(),
        help_text="Handles whose writing shows as the archive's text until the account of that name claims it.",
    )
    counts = serializers.DictField(child=serializers.IntegerField())
    open_procedures = serializers.IntegerField()


class ImportView(ApiView):
    permission_classes = [IsAuthenticated]
    parser_classes = [MultiPartParser]

    @extend_schema(
        summary="Import a campaign archive as a new campaign",
        description="All or nothing, at most ARCHIVE_IMPORT_MAX_BYTES (32 MB by default). Every part is validated "
        "as a live write is (docs/record.md); a refusal answers `error.code` `archive_refused` and `error.problems`, "
        "each naming the path of the bad part. Writing by others shows under the archive's handles, as text, until "
        "the account of that name claims it (`POST /api/campaigns/{id}/claim-imported/`).",
        request={"multipart/form-data": ImportIn},
        responses={201: ImportOut, **errors(400, 401)},
    )
    def post(self, request: Request) -> Response:
        data = self.parse(ImportIn)
        try:
            report = import_campaign(
                actor=cast(User, request.user), raw=read_upload(data["archive"]), invite=data.get("invite", [])
            )
        except ImportRefused as refused:
            body = {"code": "archive_refused", "message": refused.problems[0], "problems": refused.problems}
            return Response({"error": body}, status=400)
        out = {
            "campaign": report.campaign.pk,
            "url": report.campaign.get_absolute_url(),
            "invited": report.invited,
            "missing": report.missing,
            "imported_handles": report.imported_handles,
            "counts": report.counts,
            "open_procedures": report.open_procedures,
        }
        return Response(ImportOut(out).data, status=201)


class ArchiveIn(serializers.Serializer):
    reveal_whispers = serializers.BooleanField(
        required=False, default=False, help_text="Every member reads every whisper from now on."
    )


class ArchiveOut(serializers.Serializer):
    archived = serializers.BooleanField()
    whispers_revealed = serializers.BooleanField()
    status = serializers.CharField()


def _archive_state(campaign: Campaign) -> Response:
    data = {
        "archived": campaign.archived_at is not None,
        "whispers_revealed": campaign.whispers_revealed,
        "status": campaign.status,
    }
    return Response(ArchiveOut(data).data)


class ArchiveView(ApiView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="End (archive) a campaign",
        description="GMs only. The campaign becomes read-only: every write (posts, rolls, procedures, sheets, "
        "pools, scenes, members) is refused with 403; it stays readable, searchable and downloadable.",
        request=ArchiveIn,
        responses={200: ArchiveOut, **errors(400, 401, 403, 404)},
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign, _viewer = campaign_selectors.campaign_for(request.user, campaign_id)
        data = self.parse(ArchiveIn)
        actor = cast(User, request.user)
        return _archive_state(archive_campaign(actor=actor, campaign=campaign, reveal_whispers=data["reveal_whispers"]))


class ReopenView(ApiView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Reopen an ended campaign",
        request=None,
        responses={200: ArchiveOut, **errors(401, 403, 404)},
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign, _viewer = campaign_selectors.campaign_for(request.user, campaign_id)
        return _archive_state(reopen_campaign(actor=cast(User, request.user), campaign=campaign))


class ClaimedOut(serializers.Serializer):
    posts = serializers.IntegerField(help_text="Posts under your handle that now show under your account.")
    characters = serializers.IntegerField(help_text="Characters you played, now yours (players of the campaign).")


class ClaimImportedView(ApiView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Claim your imported writing",
        description="In an imported campaign, confirm that the posts under your own handle are yours: they show "
        "under your account from now on, and search finds them under your name. Rolls stay the archive's history.",
        request=None,
        responses={200: ClaimedOut, **errors(401, 403, 404)},
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign, _viewer = campaign_selectors.campaign_for(request.user, campaign_id)
        claimed = claim_imported_writing(actor=cast(User, request.user), campaign=campaign)
        return Response(ClaimedOut({"posts": claimed.posts, "characters": claimed.characters}).data)
