"""Nothing a person reads is a database id or an internal value (issue 28): every page of the demo, its
records and ledgers, walked as its GM and as a player, read as text (what a screen reader says), with no
«#37», no ``flow:12`` or ``reto:…`` keys, no Python values."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from django.test import Client

from accounts.models import User
from campaigns.demo import load_demo
from campaigns.models import Campaign

pytestmark = pytest.mark.django_db

# What an id or an internal value looks like in running text.
INTERNAL = re.compile(
    r"(?<![\w&])#\d+\b"  # «mensaje #37», «Conflicto #5»
    r"|\b(?:flow|roll|post|character|campaign|scene|aspect|reto|tirada|aspecto)[:_-]\d+\b"  # keys
    r"|\breto:[\w-]+"  # a challenge's key
    r"|\b(?:None|True|False)\b"  # Python values
    r"|\{'|'\}|\[\]"  # dicts and lists printed as they are
)


class _Text(HTMLParser):
    """The page's text as a person reads it: no tags, attributes, scripts or styles."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style", "template"):
            self._skip += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "template") and self._skip:
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def page_text(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    return " ".join(" ".join(parser.parts).split())


def demo_urls(user: User) -> list[str]:
    urls = ["/", "/novedades/", "/dashboard/", "/avisos/", "/buscar/?q=la"]
    for campaign in Campaign.objects.all():
        base = f"/campaigns/{campaign.pk}"
        urls += [f"{base}/", f"{base}/characters/", f"{base}/ledger/", f"{base}/tiradas/", f"{base}/exportar/"]
        urls += [f"/scenes/{scene.pk}/" for scene in campaign.scenes.all()]
        for character in campaign.characters.all():
            urls += [f"/characters/{character.pk}/", f"/characters/{character.pk}/ledger/"]
    return urls


@pytest.mark.parametrize("username", ["directora", "ana"])
def test_no_page_of_the_demo_shows_an_id_or_an_internal_value(username: str) -> None:
    load_demo()
    user = User.objects.get(username=username)
    client = Client()
    client.force_login(user)
    found: list[tuple[str, str]] = []
    walked = 0
    for url in demo_urls(user):
        response = client.get(url)
        if response.status_code != 200 or "text/html" not in response.get("Content-Type", ""):
            continue
        walked += 1
        text = page_text(response.content.decode())
        found += [(url, text[max(0, m.start() - 40) : m.end() + 40]) for m in INTERNAL.finditer(text)]
    assert walked > 40
    assert found == []
