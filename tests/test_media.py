"""Media served by the app (SERVE_MEDIA) carry their own restrictive headers, and only image types are shown
inline: a stored HTML file is a download with no script, whatever put it there."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import RequestFactory

from tintero.views import media


@pytest.fixture
def stored(tmp_path: Any, settings: Any) -> Any:
    settings.MEDIA_ROOT = tmp_path
    (tmp_path / "portraits").mkdir()
    (tmp_path / "portraits" / "a.webp").write_bytes(b"RIFF\x00\x00\x00\x00WEBPVP8 ")
    (tmp_path / "portraits" / "b.html").write_bytes(b"<script>alert(1)</script>")
    (tmp_path / "portraits" / "c.js").write_bytes(b"alert(1)")
    return tmp_path


def test_an_image_is_served_inline_with_restrictive_headers(stored: Any) -> None:
    response = media(RequestFactory().get("/media/portraits/a.webp"), "portraits/a.webp")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/webp"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Content-Security-Policy"] == "default-src 'none'; sandbox"
    assert not response.get("Content-Disposition", "inline").startswith("attachment")


@pytest.mark.parametrize("name", ["b.html", "c.js"])
def test_anything_else_is_a_download_that_runs_nothing(stored: Any, name: str) -> None:
    response = media(RequestFactory().get(f"/media/portraits/{name}"), f"portraits/{name}")
    assert response["Content-Type"] == "application/octet-stream"
    assert response["Content-Disposition"] == "attachment"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Content-Security-Policy"] == "default-src 'none'; sandbox"
