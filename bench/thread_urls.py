"""Tintero's URLs plus the thread benchmark's floors: a trivial view returning a static 50 KB page, and one
answering a JSON POST, served by the same process and stack in the same run as what they are compared with."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import path
from django.views.decorators.csrf import csrf_exempt

from tintero.urls import urlpatterns as tintero_urlpatterns

FLOOR_PAGE = "<!doctype html><html><body>\n" + ("<p>" + "x" * 93 + "</p>\n") * 500 + "</body></html>\n"


def floor_page(request: HttpRequest) -> HttpResponse:
    return HttpResponse(FLOOR_PAGE)


@csrf_exempt
def floor_post(request: HttpRequest) -> HttpResponse:
    """The posting floor through the server: read the JSON body, answer 201 with a small JSON body."""
    return JsonResponse({"id": len(request.body)}, status=201)


urlpatterns = [path("__bench/floor/", floor_page), path("__bench/floor-post/", floor_post), *tintero_urlpatterns]
