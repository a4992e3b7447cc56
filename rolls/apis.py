"""The rolls and flows API: a post's rolls, one roll, revealing, the flows of a scene and their steps.

Same policy as the pages (``campaigns.policy``), same services for every write (``rolls.services``,
``rolls.runner``). A secret roll is 404 for whoever may not see it yet; secret parts are absent fields.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.permissions import IsAuthenticated, IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response

from campaigns import selectors as campaign_selectors
from campaigns.error_codes import IDEMPOTENCY_CONFLICT, STEP_NOT_AVAILABLE, STEP_UNAVAILABLE
from campaigns.policy import Viewer
from rolls import runner
from rolls.models import Flow, FlowStep
from rolls.selectors import flow_for, flow_views, roll_for, rolls_of_post, scene_flows
from rolls.serializers import FlowListQueryIn, FlowOut, FlowStartIn, FlowStepIn, RevealIn, RollOut
from rolls.services import reveal_roll
from tintero.api.views.base import ApiView, errors


def _language(request: Request) -> str:
    return getattr(request, "LANGUAGE_CODE", "es") or "es"


class RollsApiView(ApiView):
    permission_classes = [IsAuthenticatedOrReadOnly]

    def get_serializer_context(self) -> dict[str, object]:
        return {**super().get_serializer_context(), "language": _language(self.request)}

    def flow_response(self, viewer: Viewer, flow: Flow, status_code: int = 200) -> Response:
        fresh = Flow.objects.select_related("campaign", "scene", "opened_by").get(pk=flow.pk)
        return self.render(flow_views(viewer, [fresh], _language(self.request))[0], FlowOut, status_code)


class PostRollsView(RollsApiView):
    @extend_schema(
        summary="A post's rolls",
        description="The rolls of a post the viewer may see, in the post's order, each with its faces per "
        "pool, its result and its follow-ups. Secret rolls appear only for GMs until revealed.",
        responses={200: RollOut(many=True), **errors(404)},
    )
    def get(self, request: Request, post_id: int) -> Response:
        post, _scene, viewer = campaign_selectors.post_for(request.user, post_id)
        return self.paginated(rolls_of_post(viewer, post.pk, _language(request)), RollOut)


class RollDetailView(RollsApiView):
    @extend_schema(
        summary="Retrieve a roll",
        description="Faces per pool (drawn as the game's dice), the stored result (every face, to verify "
        "the total), the result in words in the request's language and the follow-ups in order. `secret` "
        "only for GMs or once revealed; a secret roll is 404 for players until a GM reveals it.",
        responses={200: RollOut, **errors(404)},
    )
    def get(self, request: Request, roll_id: int) -> Response:
        view, _viewer = roll_for(request.user, roll_id, _language(request))
        return self.render(view, RollOut)


class RollRevealView(RollsApiView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Reveal a secret roll (GMs)",
        description="Shows a secret roll to everyone who reads its post; `include_secret` shows its secret "
        "difficulty too. A reveal is a new record and is final: a roll is revealed once.",
        request=RevealIn,
        responses={200: RollOut, **errors(400, 401, 403, 404)},
    )
    def post(self, request: Request, roll_id: int) -> Response:
        view, _viewer = roll_for(request.user, roll_id, _language(request))
        data = self.parse(RevealIn)
        reveal_roll(actor=request.user, roll=view.roll, include_secret=data["include_secret"])
        view, _viewer = roll_for(request.user, roll_id, _language(request))
        return self.render(view, RollOut)


class SceneFlowsView(RollsApiView):
    @extend_schema(
        summary="A scene's flows",
        description="Multi-step procedures of the scene (a conflict, a challenge, an invocation window), "
        "oldest first: what each waits for and from whom, its rolls and steps. `?status=open` for the open "
        "ones only.",
        parameters=[FlowListQueryIn],
        responses={200: FlowOut(many=True), **errors(400, 404)},
    )
    def get(self, request: Request, scene_id: int) -> Response:
        scene, viewer, _readers, _writers = campaign_selectors.scene_for(request.user, scene_id, for_api=True)
        query = FlowListQueryIn(data=request.query_params)
        query.is_valid(raise_exception=True)
        page = self.paginate_queryset(scene_flows(scene, query.validated_data.get("status")))  # type: ignore[arg-type]
        shaped = flow_views(viewer, page or [], _language(request))
        data = FlowOut(shaped, many=True, context=self.get_serializer_context()).data
        return self.get_paginated_response(data)

    @extend_schema(
        summary="Open a flow",
        description="Opens a flow of the campaign's ruleset in this scene (whoever may write in the scene; "
        "the flow kind may ask more, e.g. a GM).",
        request=FlowStartIn,
        responses={201: FlowOut, **errors(400, 401, 403, 404)},
    )
    def post(self, request: Request, scene_id: int) -> Response:
        scene, viewer, _readers, _writers = campaign_selectors.scene_for(request.user, scene_id, for_api=True)
        data = self.parse(FlowStartIn)
        flow = runner.start_procedure(actor=request.user, scene=scene, kind=data["kind"], params=data["params"])
        return self.flow_response(viewer, flow, status.HTTP_201_CREATED)


class FlowDetailView(RollsApiView):
    @extend_schema(
        summary="Retrieve a flow",
        description="Its state, what it waits for and from whom, its rolls and steps. `secret_state` (a "
        "secret difficulty, sealed splits) only for GMs; a step's `params` only for GMs and its actor.",
        responses={200: FlowOut, **errors(404)},
    )
    def get(self, request: Request, flow_id: int) -> Response:
        flow, _scene, viewer, _readers, _writers = flow_for(request.user, flow_id)
        return self.flow_response(viewer, flow)


class FlowStepsView(RollsApiView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Take a step of a flow",
        description="The same validation as the thread: a step the flow does not offer now (out of order, "
        f"unknown, or the flow is closed) is refused with 400 `{STEP_NOT_AVAILABLE.code}`, a step offered but "
        f"impossible now with 400 `{STEP_UNAVAILABLE.code}`, someone else's step with 403. With an "
        "`idempotency_key` already used on this flow nothing changes and the flow comes back as it is (200). "
        "`params`: the step's own model (see the flow's `procedure` and its step table).",
        request=FlowStepIn,
        responses={
            201: OpenApiResponse(FlowOut, description="The step was taken."),
            200: OpenApiResponse(FlowOut, description="A replay: that key was already used; nothing changed."),
            **errors(400, 401, 403, 404, IDEMPOTENCY_CONFLICT),
        },
    )
    def post(self, request: Request, flow_id: int) -> Response:
        flow, _scene, viewer, _readers, _writers = flow_for(request.user, flow_id)
        data = self.parse(FlowStepIn)
        key = data["idempotency_key"]
        replay = FlowStep.objects.filter(flow=flow, idempotency_key=key).exists()
        flow = runner.take_step(
            actor=request.user, flow=flow, step=data["step"], params=data["params"], idempotency_key=key
        )
        return self.flow_response(viewer, flow, status.HTTP_200_OK if replay else status.HTTP_201_CREATED)


__all__ = [
    "FlowDetailView",
    "FlowStepsView",
    "PostRollsView",
    "RollDetailView",
    "RollRevealView",
    "SceneFlowsView",
]
