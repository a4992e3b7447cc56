"""An imported portrait is decoded and re-encoded as an upload is (WebP), whatever its data URI claims: HTML,
script or a non-image under an image type is refused by path and nothing is written."""

from __future__ import annotations

import base64
import io
import json
from typing import Any

import pytest
from PIL import Image

from campaigns.models import Campaign
from characters.models import Character
from record.services import ImportRefused, import_campaign
from tests.personas import Table
from tests.record.hostile_archives import exported

pytestmark = pytest.mark.django_db

SCRIPT = b"<script>fetch('/api/me/').then(r => r.text()).then(alert)</script>"


@pytest.fixture
def media(tmp_path: Any, settings: Any) -> Any:
    settings.MEDIA_ROOT = tmp_path
    return tmp_path


def _with_portrait(table: Table, uri: str) -> str:
    archive = exported(table)
    archive["characters"][0]["portrait"] = uri
    return json.dumps(archive)


@pytest.mark.parametrize(
    "uri",
    [
        "data:text/html;base64," + base64.b64encode(SCRIPT).decode(),
        "data:text/javascript;base64," + base64.b64encode(b"alert(document.cookie)").decode(),
        "data:image/png;base64," + base64.b64encode(SCRIPT).decode(),  # an image type over HTML
        "data:image/svg+xml;base64," + base64.b64encode(b"<svg onload='alert(1)'/>").decode(),
        "data:image/png,not-base64",
    ],
)
def test_a_portrait_that_is_not_an_image_is_refused(table: Table, media: Any, uri: str) -> None:
    raw = _with_portrait(table, uri)
    campaigns = Campaign.objects.count()
    with pytest.raises(ImportRefused) as refused:
        import_campaign(actor=table.gm, raw=raw)
    assert refused.value.problems[0].startswith("characters.0.portrait: ")
    assert Campaign.objects.count() == campaigns
    assert not list(media.rglob("*"))


def test_an_imported_portrait_is_reencoded_as_webp(table: Table, media: Any) -> None:
    png = io.BytesIO()
    Image.new("RGB", (40, 30), (10, 200, 10)).save(png, format="PNG")
    report = import_campaign(
        actor=table.gm, raw=_with_portrait(table, "data:image/png;base64," + base64.b64encode(png.getvalue()).decode())
    )
    character = Character.objects.filter(campaign=report.campaign).exclude(portrait="").get()
    assert str(character.portrait.name).endswith(".webp")
    with character.portrait.open("rb") as stored, Image.open(stored) as image:
        assert image.format == "WEBP" and image.size == (40, 30)
