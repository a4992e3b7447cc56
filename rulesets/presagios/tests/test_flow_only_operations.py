"""Operations that exist only inside a scene procedure are refused on the plain operation endpoints."""

from __future__ import annotations

import pytest
from django.test import Client

from characters import services
from characters.models import LedgerEntry
from rulesets.presagios.tests.fixtures import build_presagios
from systems.errors import RulesError

pytestmark = pytest.mark.django_db


def test_a_gm_cannot_pay_a_retry_outside_its_challenge() -> None:
    table = build_presagios()
    before = LedgerEntry.objects.count()
    with pytest.raises(RulesError) as exc:
        services.apply_operation(
            actor=table.gm,
            campaign=table.campaign,
            operation="pay_retry",
            character=table.lucia,
            params={"character_id": str(table.lucia.pk)},
        )
    assert exc.value.code == "operation_needs_flow"
    assert LedgerEntry.objects.count() == before


def test_the_api_refuses_it_with_a_clear_message() -> None:
    table = build_presagios(prefix="api_")
    client = Client()
    client.force_login(table.gm)
    response = client.post(
        f"/api/characters/{table.lucia.pk}/operations/pay_retry/",
        {"params": {"character_id": str(table.lucia.pk)}},
        content_type="application/json",
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "operation_needs_flow"
