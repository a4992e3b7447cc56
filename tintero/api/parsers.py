"""The API's JSON parser: DRF's, plus the limits of what a stored value may be.

Refused as a 400 (``parse_error``) before any view sees it, the same on SQLite and PostgreSQL:
- nesting deeper than MAX_DEPTH (Python's decoder would raise RecursionError: a 500);
- a NUL character in any string or key (PostgreSQL stores neither text nor JSON strings with NUL; we
  refuse rather than strip, so nothing a client sent is silently changed);
- an integer outside the signed 64-bit range (ids and counters are 64-bit columns in both databases).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext as _
from rest_framework import parsers
from rest_framework.exceptions import ParseError

MAX_DEPTH = 32
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def check_json_value(data: Any) -> None:
    """Raise ParseError when ``data`` (decoded JSON) breaks a limit of the module docstring."""
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            if "\x00" in value:
                raise ParseError(_("El texto contiene un carácter nulo (U+0000), que no se puede guardar."))
        elif isinstance(value, bool) or value is None or isinstance(value, float):
            continue
        elif isinstance(value, int):
            if not INT64_MIN <= value <= INT64_MAX:
                raise ParseError(_("Número fuera de rango: como mucho %(max)d.") % {"max": INT64_MAX})
        elif isinstance(value, dict | list):
            if depth >= MAX_DEPTH:
                raise ParseError(_("JSON anidado a demasiada profundidad (como mucho %(max)d).") % {"max": MAX_DEPTH})
            if isinstance(value, dict):
                stack.extend((key, depth + 1) for key in value)
                stack.extend((item, depth + 1) for item in value.values())
            else:
                stack.extend((item, depth + 1) for item in value)


class JSONParser(parsers.JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Mapping[str, Any] | None = None) -> Any:
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(
                _("JSON anidado a demasiada profundidad (como mucho %(max)d).") % {"max": MAX_DEPTH}
            ) from None
        check_json_value(data)
        return data
