from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.utils.translation import gettext as _
from rest_framework.exceptions import NotFound
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import remove_query_param, replace_query_param

if TYPE_CHECKING:
    from campaigns.models import Post, Scene
    from campaigns.policy import Viewer


class Pagination(PageNumberPagination):
    """Every list is paginated: 25 by default, ``?page_size=`` up to 100."""

    page_size = 25
    page_size_query_param = "page_size"
    max_page_size = 100

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        # OpenAPI 3.1: a nullable link is a type list (3.0's ``nullable`` means nothing there).
        link = {"type": ["string", "null"], "format": "uri"}
        return {
            "type": "object",
            "required": ["count", "next", "previous", "results"],
            "properties": {"count": {"type": "integer"}, "next": link, "previous": link, "results": schema},
        }


class ThreadPagination(Pagination):
    """A scene's posts, paged by their stored position in the thread (an index range, never a COUNT or an
    OFFSET over the posts before the page). ``count`` is the thread's posts to everyone, the numbering the
    pages follow, so it is the same for every viewer; each page holds those posts plus whatever restricted
    posts (GM-only, whispers) the viewer may see among them."""

    def paginate_thread(self, request: Request, viewer: Viewer, scene: Scene) -> list[Post]:
        from campaigns.selectors import attach_whisper_recipients, page_count, thread_page_posts

        self.request = request
        size = self.get_page_size(request) or self.page_size
        raw = request.query_params.get(self.page_query_param) or "1"
        self.num_pages = page_count(scene, size)
        try:
            self.number = self.num_pages if raw in self.last_page_strings else int(raw)
        except ValueError:
            raise NotFound(_("Página no válida.")) from None
        if not 1 <= self.number <= self.num_pages:
            raise NotFound(_("Página no válida."))
        self.count = scene.last_post_position
        posts = list(thread_page_posts(viewer, scene, self.number, size))
        attach_whisper_recipients(posts)
        return posts

    def get_paginated_response(self, data: Any) -> Response:
        return Response(
            {"count": self.count, "next": self.get_next_link(), "previous": self.get_previous_link(), "results": data}
        )

    def get_next_link(self) -> str | None:
        if self.number >= self.num_pages:
            return None
        assert self.request is not None
        return replace_query_param(self.request.build_absolute_uri(), self.page_query_param, self.number + 1)

    def get_previous_link(self) -> str | None:
        if self.number <= 1:
            return None
        assert self.request is not None
        url = self.request.build_absolute_uri()
        if self.number == 2:
            return remove_query_param(url, self.page_query_param)
        return replace_query_param(url, self.page_query_param, self.number - 1)
