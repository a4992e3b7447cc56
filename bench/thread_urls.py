"""Tintero's URLs plus the thread benchmark's floor: a trivial view returning a static 50 KB page, served
by the same process and stack in the same run as the pages it is compared with."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.urls import path

from tintero.urls import urlpatterns as tintero_urlpatterns

FLOOR_PAGE = "<!doctype html><html><body>\n" + ("<p>" + "x" * 93 + "</p>\n") * 500 + "</body></html>\n"


def floor_page(request: HttpRequest) -> HttpResponse:
    return HttpResponse(FLOOR_PAGE)


urlpatterns = [path("__bench/floor/", floor_page), *tintero_urlpatterns]
