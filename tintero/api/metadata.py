"""What ``OPTIONS`` answers on an API endpoint: its name, description, methods, and media types.

DRF's SimpleMetadata also describes the serializer of each write method, by instantiating the view's
``serializer_class``; our views declare their serializers per method (for the OpenAPI schema), so that
introspection failed with a 500. The schema at /api/schema/ is where a client learns the fields."""

from __future__ import annotations

from typing import Any

from rest_framework.metadata import BaseMetadata
from rest_framework.request import Request


class ApiMetadata(BaseMetadata):
    def determine_metadata(self, request: Request, view: Any) -> dict[str, Any]:
        return {
            "name": view.get_view_name(),
            "description": view.get_view_description(),
            "methods": [method.upper() for method in view.allowed_methods],
            "renders": [renderer.media_type for renderer in view.renderer_classes],
            "parses": [parser.media_type for parser in view.parser_classes],
            "schema": "/api/schema/",
        }
