"""Posts of a scene thread, their revisions, and the unread scenes ("novedades")."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated, IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response

from campaigns import policy, selectors, services
from campaigns.error_codes import IDEMPOTENCY_CONFLICT
from campaigns.models import PostKind, Scene, Voice
from campaigns.policy import Viewer
from characters.models import Character
from rolls.selectors import new_roll_views, record_views, rolls_for_posts
from rolls.services import RollSpec, create_post_with_rolls
from tintero.api.pagination import ThreadPagination
from tintero.api.serializers import PostCreateIn, PostOut, PostRevisionOut, PostUpdateIn, UnreadOut
from tintero.api.views.base import ApiView, errors


def _language(request: Request) -> str:
    return getattr(request, "LANGUAGE_CODE", "es") or "es"


class PostDetailMixin(ApiView):
    def get_serializer_context(self) -> dict[str, Any]:
        return {**super().get_serializer_context(), "language": _language(self.request)}

    def post_response(self, viewer: Viewer, scene: Scene, post_id: int, status_code: int = 200) -> Response:
        shaped = selectors.thread_posts(viewer, scene).get(pk=post_id)
        selectors.attach_whisper_recipients([shaped])
        return self.render(shaped, PostOut, status_code, viewer=viewer)


class ScenePostsView(PostDetailMixin):
    permission_classes = [IsAuthenticatedOrReadOnly]
    pagination_class = ThreadPagination

    @extend_schema(
        summary="List a scene's posts",
        description="The posts the viewer may see, oldest first, paginated (`?page=`, `?page_size=`). "
        "GM-only posts and whispers appear only for those they are meant for; deleted posts only for GMs "
        "(flagged `is_deleted`). Pages follow the thread's numbering of posts to everyone (`count`), the same "
        "for every viewer: a page also holds the restricted posts among them that the viewer may see.",
        responses={200: PostOut(many=True), **errors(404)},
    )
    def get(self, request: Request, scene_id: int) -> Response:
        scene, viewer, _readers, _writers = selectors.scene_for(request.user, scene_id, for_api=True)
        paginator = self.paginator
        assert isinstance(paginator, ThreadPagination)
        page = paginator.paginate_thread(request, viewer, scene)
        # Every roll of the page in constant queries, not one lookup per post.
        rolls_by_post = rolls_for_posts(viewer, [post.pk for post in page], _language(request))
        record_ids = [p.pk for p in page if p.kind == PostKind.PROCEDURE]
        records = record_views(viewer, record_ids, _language(request)) if record_ids else {}
        context = {
            **self.get_serializer_context(),
            "viewer": viewer,
            "rolls_by_post": rolls_by_post,
            "records_by_post": records,
        }
        return self.get_paginated_response(PostOut(page, many=True, context=context).data)

    @extend_schema(
        summary="Write a post",
        description="`voice=character` needs `character` (an approved character of yours; GMs may use any); "
        "`voice=npc` needs `npc_name`; `recipients=whisper` needs `whisper_to` (member ids who may read the "
        "scene). `rolls`: dice the server rolls with the post, in the same transaction (`notation` in any "
        "campaign, or the ruleset's roll kinds); a refused roll writes nothing. With `idempotency_key`, a "
        "retry of the same request answers the post already written (200).",
        request=PostCreateIn,
        responses={201: PostOut, 200: PostOut, **errors(400, 401, 403, 404, IDEMPOTENCY_CONFLICT)},
    )
    def post(self, request: Request, scene_id: int) -> Response:
        scene, viewer, _readers, _writers = selectors.scene_for(request.user, scene_id, for_api=True)
        data = self.parse(PostCreateIn)
        character_id = data.pop("character", None)
        character: Character | None = None
        if character_id is not None and data["voice"] == Voice.CHARACTER:
            character = selectors.characters_of(scene.campaign).filter(pk=character_id).first()
            if character is None:
                raise serializers.ValidationError({"character": [_("Ese personaje no está en esta partida.")]})
        specs = [
            RollSpec(
                kind=spec["kind"],
                data=dict(spec["data"]),
                character_id=spec["character"],
                label=spec["label"],
                gm_only=spec["gm_only"],
            )
            for spec in data.pop("rolls", [])
        ]
        post = create_post_with_rolls(
            author=request.user, scene=scene, rolls=specs, character=character, viewer=viewer, **data
        )
        if getattr(post, "replayed", False):
            return self.post_response(viewer, scene, post.pk, status.HTTP_200_OK)
        # The answer is what was just written, not a read of it back (two queries and most of a post's time).
        selectors.attach_whisper_recipients([post])
        made = new_roll_views(viewer, post.made_rolls, _language(request))  # type: ignore[attr-defined]
        return self.render(post, PostOut, status.HTTP_201_CREATED, viewer=viewer, rolls_by_post={post.pk: made})


class PostDetailView(PostDetailMixin):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(summary="Retrieve a post", responses={200: PostOut, **errors(404)})
    def get(self, request: Request, post_id: int) -> Response:
        post, scene, viewer = selectors.post_for(request.user, post_id)
        return self.post_response(viewer, scene, post.pk)

    @extend_schema(
        summary="Edit a post (its author)",
        description="The previous text is kept as a revision. Fields left out stay as they are.",
        request=PostUpdateIn,
        responses={200: PostOut, **errors(400, 401, 403, 404)},
    )
    def patch(self, request: Request, post_id: int) -> Response:
        post, scene, viewer = selectors.post_for(request.user, post_id)
        data = self.parse(PostUpdateIn)
        services.edit_post(
            actor=request.user, post=post, body=data.get("body", post.body_source), notes=data.get("notes")
        )
        return self.post_response(viewer, scene, post.pk)

    @extend_schema(
        summary="Delete a post (its author or a GM)",
        description="Soft delete: GMs still see it, flagged.",
        responses={204: None, **errors(400, 401, 403, 404)},
    )
    def delete(self, request: Request, post_id: int) -> Response:
        post, _scene, _viewer = selectors.post_for(request.user, post_id)
        services.delete_post(actor=request.user, post=post)
        return Response(status=status.HTTP_204_NO_CONTENT)


class PostRevisionsView(ApiView):
    @extend_schema(
        summary="A post's revisions (GMs and its author)",
        description="The texts the post had before each edit, oldest first.",
        responses={200: PostRevisionOut(many=True), **errors(403, 404)},
    )
    def get(self, request: Request, post_id: int) -> Response:
        post, _scene, viewer = selectors.post_for(request.user, post_id)
        if not policy.may_see_revisions(viewer, post):
            raise PermissionDenied(_("Solo los másters y el autor pueden ver el historial."))
        return self.paginated(selectors.post_revisions(post), PostRevisionOut)


class UnreadView(ApiView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Unread scenes (novedades)",
        description="Every scene of my campaigns with posts I have not read, newest activity first.",
        responses={200: UnreadOut(many=True), **errors(401)},
    )
    def get(self, request: Request) -> Response:
        return self.paginated(selectors.unread_scenes(request.user), UnreadOut)
