"""ReDoc without the internet: drf-spectacular's template pulls web fonts from Google; this one does not."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.template import engines
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularRedocView
from rest_framework.request import Request

_TEMPLATE = """<!DOCTYPE html>
<html>
  <head>
    <title>{{ title }}</title>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <style>body { margin: 0; padding: 0; }</style>
  </head>
  <body>
    <redoc spec-url="{{ schema_url }}"></redoc>
    <script src="{{ redoc_standalone }}"></script>
  </body>
</html>
"""


class OfflineRedocView(SpectacularRedocView):
    @extend_schema(exclude=True)
    def get(self, request: Request, *args: Any, **kwargs: Any) -> HttpResponse:
        template = engines["django"].from_string(_TEMPLATE)
        context = {
            "title": self.title,
            "redoc_standalone": self._redoc_standalone(),
            "schema_url": self._get_schema_url(request),
        }
        return HttpResponse(template.render(context, request))
