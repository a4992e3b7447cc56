"""Export: the archive validates against its published schema; a player's archive holds nothing the player
cannot read, the GM's holds everything; the book (HTML and EPUB) shows scenes as chapters with their dice."""

from __future__ import annotations

import json
import zipfile
from io import BytesIO
from pathlib import Path
from typing import Any
from xml.dom import minidom

import pytest
from django.test import Client
from rest_framework.test import APIClient

from campaigns import services
from campaigns.models import Voice
from record.archive_schema import CampaignArchive, json_schema
from rolls.services import RollSpec, create_post_with_rolls
from systems.dice import ScriptedDice
from tests.personas import Table

pytestmark = pytest.mark.django_db
SCHEMA_FILE = Path(__file__).resolve().parents[2] / "docs" / "campaign-archive.schema.json"


@pytest.fixture
def full(table: Table) -> Table:
    """The table with a secret roll, a public roll, a game note, an edit, a hidden aspect and a listed-scene post."""
    services.edit_post(actor=table.player, post=table.post_all, body="TEXTO-PARA-TODOS editado", notes="NOTA-DE-JUEGO")
    create_post_with_rolls(
        author=table.gm, scene=table.scene, body="DADOS-OCULTOS", voice=Voice.NARRATOR,
        rolls=[RollSpec(kind="notation", data={"expression": "1d20"}, gm_only=True, label="SECRETA")],
        dice=ScriptedDice([19]),
    )  # fmt: skip
    create_post_with_rolls(
        author=table.player, scene=table.scene, body="DADOS-PUBLICOS", voice=Voice.OOC,
        rolls=[RollSpec(kind="notation", data={"expression": "2d6"}, label="PUBLICA")],
        dice=ScriptedDice([3, 5]),
    )  # fmt: skip
    services.create_post(author=table.player, scene=table.listed_scene, body="TEXTO-APARTE", voice=Voice.OOC)
    services.add_scene_aspect(actor=table.gm, scene=table.scene, text="ASPECTO-OCULTO", hidden=True)
    return table


def _archive(user: Any, campaign_id: int) -> dict[str, Any]:
    client = Client()
    if user is not None:
        client.force_login(user)
    response = client.get(f"/campaigns/{campaign_id}/exportar/archivo.json")
    assert response.status_code == 200, response.content
    assert response.streaming
    archive: dict[str, Any] = json.loads(b"".join(response.streaming_content))  # type: ignore[attr-defined]
    return archive


SECRETS = ["TEXTO-SOLO-MASTERS", "TEXTO-SUSURRO", "TEXTO-APARTE", "SECRETA", "ASPECTO-OCULTO", "SECRETO-GM"]


def test_gm_archive_holds_everything_and_validates(full: Table) -> None:
    archive = _archive(full.gm, full.campaign.pk)
    CampaignArchive.model_validate(archive)
    text = json.dumps(archive, ensure_ascii=False)
    for secret in SECRETS:
        assert secret in text, secret
    assert archive["scope"] == "gm"
    assert {m["handle"] for m in archive["members"]} == {"gm", "player", "player2", "reader"}
    (edited,) = [p for p in archive["posts"] if p["id"] == full.post_all.pk]
    assert edited["revisions"][0]["body"] == "TEXTO-PARA-TODOS" and edited["notes"] == "NOTA-DE-JUEGO"
    assert all(link.get("content") for link in archive["roll_chain"])
    assert {r["chain_seq"] for r in archive["rolls"]} == {1, 2}


@pytest.mark.parametrize("role", ["player2", "reader", "anonymous"])
def test_reader_archive_holds_only_what_they_may_read(full: Table, role: str) -> None:
    archive = _archive(full.user(role), full.campaign.pk)
    CampaignArchive.model_validate(archive)
    text = json.dumps(archive, ensure_ascii=False)
    allowed = {"TEXTO-SOLO-MASTERS"} if role == "player2" else set()  # player2 wrote it
    for secret in SECRETS:
        assert (secret in text) == (secret in allowed), secret
    assert "DADOS-PUBLICOS" in text and "PUBLICA" in text
    assert archive["scope"] == "reader" and archive["campaign"]["gm_notes"] is None
    secret_link = archive["roll_chain"][0]
    assert set(secret_link) == {"seq", "prev", "commitment", "hash"}
    assert [r["label"] for r in archive["rolls"]] == ["PUBLICA"]
    # the revisions of someone else's post stay with its author and the GMs
    assert all(not p["revisions"] for p in archive["posts"] if p["author"] != getattr(full.user(role), "username", ""))


def test_private_campaign_export_is_for_gms(private_table: Table) -> None:
    client = Client()
    client.force_login(private_table.player)
    assert client.get(f"/campaigns/{private_table.campaign.pk}/exportar/archivo.json").status_code == 403
    client.force_login(private_table.outsider)
    assert client.get(f"/campaigns/{private_table.campaign.pk}/exportar/").status_code == 404
    api = APIClient()
    api.force_authenticate(private_table.player)
    response = api.get(f"/api/campaigns/{private_table.campaign.pk}/export/")
    assert response.status_code == 403 and response.json()["error"]["message"]


def test_api_export_equals_page_export(full: Table) -> None:
    api = APIClient()
    api.force_authenticate(full.gm)
    response = api.get(f"/api/campaigns/{full.campaign.pk}/export/")
    body = json.loads(b"".join(response.streaming_content))  # type: ignore[attr-defined]
    page = _archive(full.gm, full.campaign.pk)
    body.pop("exported_at"), page.pop("exported_at")
    assert body == page


def test_schema_is_published_in_the_repository_and_at_urls() -> None:
    assert json.loads(SCHEMA_FILE.read_text()) == json_schema(), "regenerate docs/campaign-archive.schema.json"
    assert Client().get("/archivo/esquema-v1.json").json() == json_schema()
    assert APIClient().get("/api/archive-schema/").json() == json_schema()


def test_html_book_is_self_contained_with_dice_and_notes(full: Table) -> None:
    client = Client()
    client.force_login(full.player2)
    response = client.get(f"/campaigns/{full.campaign.pk}/exportar/libro.html")
    html = b"".join(response.streaming_content).decode()  # type: ignore[attr-defined]
    assert response["Content-Disposition"].startswith("attachment")
    assert "<style>" in html and 'rel="stylesheet"' not in html and "<script" not in html
    assert 'class="die' in html and ">3</span>" in html and ">5</span>" in html
    assert 'class="game-notes"' in html and "NOTA-DE-JUEGO" in html
    assert html.count('class="chapter"') == 2  # the scene and the off-topic thread (the listed scene is hidden)
    for secret in ["TEXTO-SUSURRO", "TEXTO-APARTE", "SECRETA", ">19<"]:
        assert secret not in html


def test_the_books_date_reads_as_a_date_in_its_language(full: Table) -> None:
    """Issue 28: «2 diciembre 2026» (the format without its Spanish «de»)."""
    import re

    client = Client()
    client.force_login(full.player2)
    response = client.get(f"/campaigns/{full.campaign.pk}/exportar/libro.html")
    html = b"".join(response.streaming_content).decode()  # type: ignore[attr-defined]
    assert re.search(r"Exportada de Tintero el \d{1,2} de \w+ de \d{4}", html), html[:2000]


def test_epub_is_a_valid_package(full: Table) -> None:
    client = Client()
    client.force_login(full.gm)
    response = client.get(f"/campaigns/{full.campaign.pk}/exportar/libro.epub")
    assert response["Content-Type"] == "application/epub+zip"
    with zipfile.ZipFile(BytesIO(response.content)) as epub:
        first = epub.infolist()[0]
        assert first.filename == "mimetype" and first.compress_type == zipfile.ZIP_STORED
        assert epub.read("mimetype") == b"application/epub+zip"
        names = epub.namelist()
        assert {"META-INF/container.xml", "OEBPS/content.opf", "OEBPS/nav.xhtml"} <= set(names)
        chapters = [n for n in names if n.startswith("OEBPS/chapter-")]
        assert len(chapters) == 3  # the GM reads every scene
        for name in [*chapters, "OEBPS/content.opf", "OEBPS/nav.xhtml", "OEBPS/title.xhtml"]:
            minidom.parseString(epub.read(name))  # well-formed XML, or this raises
        book = "".join(epub.read(n).decode() for n in chapters)
        assert "SECRETA" in book and 'class="die' in book


def test_export_page_lists_the_downloads(full: Table) -> None:
    client = Client()
    client.force_login(full.reader)
    html = client.get(f"/campaigns/{full.campaign.pk}/exportar/").content.decode()
    assert "libro.epub" in html and "archivo.json" in html and "esquema-v1.json" in html
