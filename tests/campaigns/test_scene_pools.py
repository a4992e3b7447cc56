"""The campaign's shared pools are on the scene page, where play happens (issue 10): the page carries a
region that fetches them after it loads and again whenever a live event says they changed."""

from __future__ import annotations

import re

from django.test import Client
from django.urls import reverse

from tests.personas import Table


def test_the_scene_page_fetches_the_campaigns_pools(table: Table) -> None:
    client = Client()
    client.force_login(table.player)
    page = client.get(table.scene.get_absolute_url()).content.decode()
    region = re.search(r'<div id="pools"[^>]*>', page)
    assert region is not None
    url = reverse("characters:pools", args=[table.campaign.pk])
    assert f'hx-get="{url}"' in region.group(0)
    assert "tintero:pools-changed from:body" in region.group(0)
    pools = client.get(url)
    assert pools.status_code == 200
    assert "data-pool" in pools.content.decode()  # Presagios' threat, as the campaign page shows it
