"""Atom feeds: a public campaign's (what an anonymous reader sees) and a user's private one (a secret,
revocable URL). Both parsed as Atom: the elements RFC 4287 requires, in the Atom namespace."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import timedelta
from html.parser import HTMLParser
from typing import Any

import pytest
from django.db.models import F
from django.test import Client

from campaigns import services as campaign_services
from campaigns.models import Campaign, Recipients, Visibility, Voice
from notifications import services
from notifications.models import Notification
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


class _HtmlText(HTMLParser):
    """The text a reader shows for an ``html`` summary (tags dropped, references decoded)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def _shown(html: str) -> str:
    reader = _HtmlText()
    reader.feed(html)
    reader.close()
    return "".join(reader.parts)


def _feed(url: str) -> ET.Element:
    response = Client().get(url)
    assert response.status_code == 200, response.status_code
    return ET.fromstring(response.content)


def _entry_ids(root: ET.Element) -> list[str]:
    return [node.text or "" for node in root.findall(f"{ATOM}entry/{ATOM}id")]


def test_feeds_have_an_author_and_tag_ids(table: Table) -> None:
    for url in (
        f"/campaigns/{table.campaign.pk}/feed.atom",
        f"/avisos/canal/{services.feed_token(table.player).token}.atom",
    ):
        root = _feed(url)
        assert root.findtext(f"{ATOM}author/{ATOM}name") == "Tintero", url
        assert (root.findtext(f"{ATOM}id") or "").startswith("tag:127.0.0.1,"), url
    public = _feed(f"/campaigns/{table.campaign.pk}/feed.atom")
    assert _entry_ids(public) == [
        f"tag:127.0.0.1,{table.post_all.created_at.date().isoformat()}:post/{table.post_all.pk}"
    ]


def test_a_private_entry_keeps_its_id_when_its_count_rises_and_says_when_it_changed(
    mail_table: Table, run_tasks: Any
) -> None:
    url = f"/avisos/canal/{services.feed_token(mail_table.player).token}.atom"

    def post(body: str) -> None:
        with run_tasks(execute=True):
            campaign_services.create_post(author=mail_table.gm, scene=mail_table.scene, body=body, voice=Voice.NARRATOR)

    post("Primero.")
    first = _feed(url)
    (entry_id,) = _entry_ids(first)
    Notification.objects.update(updated_at=F("updated_at") - timedelta(minutes=5))  # an earlier moment
    before = _feed(url).findtext(f"{ATOM}entry/{ATOM}updated")
    post("Segundo.")
    second = _feed(url)
    assert _entry_ids(second) == [entry_id] and entry_id.startswith("tag:")
    assert Notification.objects.get(user=mail_table.player).count == 2
    after = second.findtext(f"{ATOM}entry/{ATOM}updated")
    assert before and after and after > before


def test_a_private_summary_keeps_ampersands_and_angle_brackets(mail_table: Table, run_tasks: Any) -> None:
    with run_tasks(execute=True):
        campaign_services.create_post(
            author=mail_table.gm, scene=mail_table.scene, body="Tom & Jerry <detrás> de la puerta",
            voice=Voice.NARRATOR, recipients=Recipients.WHISPER, whisper_to=[mail_table.player.pk],
        )  # fmt: skip
    root = _feed(f"/avisos/canal/{services.feed_token(mail_table.player).token}.atom")
    summary = root.find(f"{ATOM}entry/{ATOM}summary")
    assert summary is not None and summary.get("type") == "html"
    assert "Tom & Jerry <detrás> de la puerta" in _shown(summary.text or "")


def test_feeds_answer_conditional_gets(table: Table) -> None:
    for url in (
        f"/campaigns/{table.campaign.pk}/feed.atom",
        f"/avisos/canal/{services.feed_token(table.player).token}.atom",
    ):
        first = Client().get(url)
        assert first.status_code == 200 and first["ETag"] and first["Last-Modified"], url
        assert Client().get(url, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
        assert Client().get(url, HTTP_IF_MODIFIED_SINCE=first["Last-Modified"]).status_code == 304
        assert Client().get(url, HTTP_IF_NONE_MATCH='"otra"').status_code == 200


def _alternates(html: str) -> list[str]:
    return re.findall(r'<link rel="alternate" type="application/atom\+xml" title="[^"]+" href="([^"]+)">', html)


def test_public_campaign_pages_and_the_inbox_link_their_feeds(table: Table, private_table: Table) -> None:
    feed = f"/campaigns/{table.campaign.pk}/feed.atom"
    assert _alternates(Client().get(table.campaign.get_absolute_url()).content.decode()) == [feed]
    assert _alternates(Client().get(f"/scenes/{table.scene.pk}/").content.decode()) == [feed]
    member = Client()
    member.force_login(private_table.player)
    assert _alternates(member.get(private_table.campaign.get_absolute_url()).content.decode()) == []
    member.force_login(table.player)
    inbox = member.get("/avisos/").content.decode()
    assert _alternates(inbox) == [f"http://testserver/avisos/canal/{services.feed_token(table.player).token}.atom"]


def test_public_pages_carry_a_meta_description(table: Table) -> None:
    Campaign.objects.filter(pk=table.campaign.pk).update(synopsis="Pulp & aventuras <en> 1920")
    for url, expected in (
        ("/", "partidas de rol por web"),
        (table.campaign.get_absolute_url(), "Pulp &amp; aventuras &lt;en&gt; 1920"),
    ):
        html = Client().get(url).content.decode()
        found = re.findall(r'<meta name="description" content="([^"]+)">', html)
        assert len(found) == 1 and expected in found[0], (url, found)
