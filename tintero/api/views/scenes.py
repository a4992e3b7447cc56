"""Scenes (with their access lists), scene aspects and read marks."""

from __future__ import annotations

from django.db.models import Prefetch, QuerySet
from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.permissions import IsAuthenticated, IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.models import User
from campaigns import policy, selectors, services
from campaigns.models import Scene, SceneAspect, SceneStatus
from campaigns.policy import Viewer
from tintero.api.serializers import (
    AspectIn,
    AspectOut,
    AspectUpdateIn,
    ReadMarkIn,
    ReorderIn,
    SceneCreateIn,
    SceneDetailOut,
    SceneOut,
    SceneUpdateIn,
)
from tintero.api.views.base import ApiView, errors


def _shaped_scenes(viewer: Viewer) -> QuerySet[Scene]:
    """Readable scenes with their counts; GMs also get the access lists (prefetched: constant queries)."""
    scenes = selectors.readable_scenes(viewer)
    if policy.may_manage_campaign(viewer):
        ids = User.objects.only("id")
        scenes = scenes.prefetch_related(Prefetch("readers", queryset=ids), Prefetch("writers", queryset=ids))
    return scenes


class SceneDetailMixin(ApiView):
    def scene_response(self, request: Request, scene_id: int, status_code: int = 200) -> Response:
        scene, viewer, reader_ids, writer_ids = selectors.scene_for(request.user, scene_id, for_api=True)
        shaped = _shaped_scenes(viewer).get(pk=scene.pk)
        shaped.may_write = policy.may_write_scene(viewer, scene, reader_ids, writer_ids)
        return self.render(shaped, SceneDetailOut, status_code, viewer=viewer)


def _access_lists(data: dict) -> dict:
    """The API names the lists ``readers``/``writers``; the services take ``reader_ids``/``writer_ids``."""
    renamed = {"readers": "reader_ids", "writers": "writer_ids"}
    return {renamed.get(name, name): value for name, value in data.items()}


class SceneListView(SceneDetailMixin):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(
        summary="List readable scenes",
        description="The scenes of a campaign the viewer may read, in order, with `post_count` and "
        "`unread_count` of the posts the viewer may see. `readers`/`writers` only for GMs.",
        responses={200: SceneOut(many=True), **errors(404)},
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        _campaign, viewer = selectors.campaign_for(request.user, campaign_id)
        return self.paginated(_shaped_scenes(viewer), SceneOut, viewer=viewer)

    @extend_schema(
        summary="Create a scene (GMs)",
        description="`access=listed` restricts the scene to the `readers` and `writers` (member ids).",
        request=SceneCreateIn,
        responses={201: SceneDetailOut, **errors(400, 401, 403, 404)},
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign, _viewer = selectors.campaign_for(request.user, campaign_id)
        scene = services.create_scene(actor=request.user, campaign=campaign, **_access_lists(self.parse(SceneCreateIn)))
        return self.scene_response(request, scene.pk, status.HTTP_201_CREATED)


class SceneReorderView(ApiView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Reorder the scenes (GMs)",
        request=ReorderIn,
        responses={204: None, **errors(400, 401, 403, 404)},
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign, _viewer = selectors.campaign_for(request.user, campaign_id)
        services.reorder_scenes(actor=request.user, campaign=campaign, scene_ids=self.parse(ReorderIn)["scene_ids"])
        return Response(status=status.HTTP_204_NO_CONTENT)


class SceneDetailView(SceneDetailMixin):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(summary="Retrieve a scene", responses={200: SceneDetailOut, **errors(404)})
    def get(self, request: Request, scene_id: int) -> Response:
        return self.scene_response(request, scene_id)

    @extend_schema(
        summary="Update a scene (GMs)",
        description="Lists given replace the current ones; lists left out stay as they are.",
        request=SceneUpdateIn,
        responses={200: SceneDetailOut, **errors(400, 401, 403, 404)},
    )
    def patch(self, request: Request, scene_id: int) -> Response:
        scene, _viewer, _readers, _writers = selectors.scene_for(request.user, scene_id, for_api=True)
        services.update_scene(actor=request.user, scene=scene, **_access_lists(self.parse(SceneUpdateIn)))
        return self.scene_response(request, scene_id)


class _SceneStatusView(SceneDetailMixin):
    permission_classes = [IsAuthenticated]
    new_status: str = SceneStatus.OPEN

    def post(self, request: Request, scene_id: int) -> Response:
        scene, _viewer, _readers, _writers = selectors.scene_for(request.user, scene_id, for_api=True)
        services.set_scene_status(actor=request.user, scene=scene, status=self.new_status)
        return self.scene_response(request, scene_id)


_STATUS = {"request": None, "responses": {200: SceneDetailOut, **errors(401, 403, 404)}}


class SceneCloseView(_SceneStatusView):
    new_status = SceneStatus.CLOSED

    @extend_schema(summary="Close a scene (GMs)", **_STATUS)
    def post(self, request: Request, scene_id: int) -> Response:
        return super().post(request, scene_id)


class SceneReopenView(_SceneStatusView):
    new_status = SceneStatus.OPEN

    @extend_schema(summary="Reopen a scene (GMs)", **_STATUS)
    def post(self, request: Request, scene_id: int) -> Response:
        return super().post(request, scene_id)


class SceneReadView(ApiView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Mark a scene read",
        description="Moves my read marker forward (never back), to `up_to_post_id` or to the newest post.",
        request=ReadMarkIn,
        responses={204: None, **errors(400, 401, 404)},
    )
    def post(self, request: Request, scene_id: int) -> Response:
        scene, _viewer, _readers, _writers = selectors.scene_for(request.user, scene_id, for_api=True)
        up_to = self.parse(ReadMarkIn).get("up_to_post_id")
        services.mark_scene_read(user=request.user, scene=scene, up_to_post_id=up_to)
        return Response(status=status.HTTP_204_NO_CONTENT)


# --- Aspects --------------------------------------------------------------------------------------


class AspectListView(ApiView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(
        summary="List a scene's aspects",
        description="Hidden aspects are listed only for GMs.",
        responses={200: AspectOut(many=True), **errors(404)},
    )
    def get(self, request: Request, scene_id: int) -> Response:
        scene, viewer, _readers, _writers = selectors.scene_for(request.user, scene_id, for_api=True)
        return self.paginated(selectors.scene_aspects(viewer, scene), AspectOut)

    @extend_schema(
        summary="Add an aspect (GMs)", request=AspectIn, responses={201: AspectOut, **errors(400, 401, 403, 404)}
    )
    def post(self, request: Request, scene_id: int) -> Response:
        scene, _viewer, _readers, _writers = selectors.scene_for(request.user, scene_id, for_api=True)
        aspect = services.add_scene_aspect(actor=request.user, scene=scene, **self.parse(AspectIn))
        return self.render(aspect, AspectOut, status.HTTP_201_CREATED)


class AspectDetailView(ApiView):
    permission_classes = [IsAuthenticated]

    def aspect(self, request: Request, scene_id: int, aspect_id: int) -> SceneAspect:
        scene, viewer, _readers, _writers = selectors.scene_for(request.user, scene_id, for_api=True)
        aspect = selectors.scene_aspects(viewer, scene).filter(pk=aspect_id).first()
        if aspect is None:
            raise Http404  # hidden aspects do not exist for players
        aspect.scene = scene
        return aspect

    @extend_schema(
        summary="Update an aspect (GMs)",
        request=AspectUpdateIn,
        responses={200: AspectOut, **errors(400, 401, 403, 404)},
    )
    def patch(self, request: Request, scene_id: int, aspect_id: int) -> Response:
        aspect = self.aspect(request, scene_id, aspect_id)
        updated = services.update_scene_aspect(actor=request.user, aspect=aspect, **self.parse(AspectUpdateIn))
        return self.render(updated, AspectOut)

    @extend_schema(summary="Delete an aspect (GMs)", responses={204: None, **errors(401, 403, 404)})
    def delete(self, request: Request, scene_id: int, aspect_id: int) -> Response:
        services.delete_scene_aspect(actor=request.user, aspect=self.aspect(request, scene_id, aspect_id))
        return Response(status=status.HTTP_204_NO_CONTENT)
