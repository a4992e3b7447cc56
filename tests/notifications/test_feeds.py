"""Atom feeds: a public campaign's (what an anonymous reader sees) and a user's private one (a secret,
revocable URL). Both parsed as Atom: the elements RFC 4287 requires, in the Atom namespace."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

import pytest
from django.test import Client

from campaigns import services as campaign_services
from campaigns.models import Recipients, Visibility, Voice
from notifications import services
from tests.personas import Table

pytestmark = pytest.mark.django_db

ATOM = "{http://www.w3.org/2005/Atom}"


def parse_atom(content: bytes) -> list[dict[str, str]]:
    """Parse an Atom document, checking what RFC 4287 requires of the feed and of each entry."""
    root = ET.fromstring(content)
    assert root.tag == f"{ATOM}feed"
    for required in ("id", "title", "updated"):
        assert root.find(f"{ATOM}{required}") is not None, required
    entries = []
    for entry in root.findall(f"{ATOM}entry"):
        fields = {}
        for required in ("id", "title", "updated"):
            node = entry.find(f"{ATOM}{required}")
            assert node is not None and node.text, required
            fields[required] = node.text
        link = entry.find(f"{ATOM}link")
        assert link is not None and link.get("href")
        fields["link"] = link.get("href", "")
        summary = entry.find(f"{ATOM}summary")
        fields["summary"] = summary.text or "" if summary is not None else ""
        entries.append(fields)
    return entries


def test_public_campaign_feed_shows_what_an_anonymous_reader_sees(table: Table) -> None:
    response = Client().get(f"/campaigns/{table.campaign.pk}/feed.atom")
    assert response.status_code == 200 and response["Content-Type"].startswith("application/atom+xml")
    entries = parse_atom(response.content)
    text = response.content.decode()
    assert len(entries) == 1 and "TEXTO-PARA-TODOS" in text
    for secret in ("TEXTO-SOLO-MASTERS", "TEXTO-SUSURRO", "SECRETO-GM"):
        assert secret not in text


def test_private_campaigns_have_no_public_feed(db: None) -> None:
    from tests.personas import build_table

    table = build_table(Visibility.PRIVATE)
    assert Client().get(f"/campaigns/{table.campaign.pk}/feed.atom").status_code == 404


def test_private_feed_lists_the_inbox_and_dies_with_rotation(mail_table: Table, run_tasks: Any) -> None:
    with run_tasks(execute=True):
        campaign_services.create_post(
            author=mail_table.gm, scene=mail_table.scene, body="FEED-SUSURRO", voice=Voice.NARRATOR,
            recipients=Recipients.WHISPER, whisper_to=[mail_table.player.pk],
        )  # fmt: skip
    url = f"/avisos/canal/{services.feed_token(mail_table.player).token}.atom"
    entries = parse_atom(Client().get(url).content)
    assert len(entries) == 1
    assert "te susurra" in entries[0]["title"] and "FEED-SUSURRO" in entries[0]["summary"]
    reader_url = f"/avisos/canal/{services.feed_token(mail_table.reader).token}.atom"
    assert "FEED-SUSURRO" not in Client().get(reader_url).content.decode()
    services.rotate_feed_token(user=mail_table.player)
    assert Client().get(url).status_code == 404
    assert Client().get("/avisos/canal/not-a-token.atom").status_code == 404
