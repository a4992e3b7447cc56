"""The composer's roll builder is fetched when opened (issue 12): the thread page does not render it; the
fragment renders it per viewer and ruleset; without JavaScript ``?builder=1`` puts it in the page."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.personas import Table

pytestmark = pytest.mark.django_db


def _client(user: object) -> Client:
    client = Client()
    client.force_login(user)  # type: ignore[arg-type]
    return client


def test_the_thread_page_links_the_builder_instead_of_rendering_it(table: Table) -> None:
    client = _client(table.player)
    page = client.get(f"/scenes/{table.scene.pk}/").content.decode()
    assert f"/scenes/{table.scene.pk}/roll-builder/" in page
    assert 'name="roll-kind"' not in page
    fragment = client.get(f"/scenes/{table.scene.pk}/roll-builder/")
    assert fragment.status_code == 200 and 'name="roll-kind"' in fragment.content.decode()
    inline = client.get(f"/scenes/{table.scene.pk}/?builder=1").content.decode()
    assert 'name="roll-kind"' in inline  # the no-JavaScript way


def test_only_writers_get_the_builder(table: Table) -> None:
    assert _client(table.reader).get(f"/scenes/{table.scene.pk}/roll-builder/").status_code == 403
    assert _client(table.player2).get(f"/scenes/{table.listed_scene.pk}/roll-builder/").status_code == 404
    assert Client().get(f"/scenes/{table.scene.pk}/roll-builder/").status_code == 302  # to the log-in page
