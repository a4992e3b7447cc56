"""A member's user id in a URL beyond any stored id (past 64 bits) is a 404, on the API and the pages: SQLite
cannot bind such an integer, and a foreign key's lookup does not bound it as a primary key's does."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from tests.personas import Table

pytestmark = pytest.mark.django_db


def test_a_member_id_beyond_64_bits_is_not_found(table: Table) -> None:
    api = APIClient()
    api.force_authenticate(table.gm)
    for method in (api.patch, api.delete):
        response = method(f"/api/campaigns/{table.campaign.pk}/members/{2**64}/", {"role": "player"}, format="json")
        assert response.status_code == 404 and response.json()["error"]["message"]
    client = Client()
    client.force_login(table.gm)
    assert client.post(f"/campaigns/{table.campaign.pk}/members/{2**64}/remove/").status_code == 404
