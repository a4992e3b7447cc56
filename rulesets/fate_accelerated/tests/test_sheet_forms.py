"""The sheet's own forms post plain fields: marking a hit with stress and consequences needs no JSON built
by hand (issue 10), and the sheet page offers only the empty boxes and slots."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from rulesets.fate_accelerated.tests.sheet_fixtures import FaeTable, build_fae

pytestmark = pytest.mark.django_db


@pytest.fixture
def fae(db: None) -> FaeTable:
    return build_fae()


def test_absorbing_a_hit_with_a_consequence_from_the_sheet_form(fae: FaeTable) -> None:
    client = Client()
    client.force_login(fae.player)
    page = client.get(reverse("characters:detail", args=[fae.ana.pk])).content.decode()
    assert 'name="text_mild"' in page and 'name="params"' not in page and "data-absorb-owner" not in page
    response = client.post(
        reverse("characters:operate", args=[fae.ana.pk, "absorb_hit"]),
        {
            "owner": str(fae.ana.pk),
            "attacker": "gm",
            "shifts": "4",
            "box": "2",
            "slots": "mild",
            "text_mild": "Costillas magulladas",
            "text_moderate": "",
            "reason": "El puñetazo de Bruno",
        },
    )
    assert response.status_code in (200, 302), response.content[:500]
    fae.ana.refresh_from_db()
    assert fae.ana.sheet["stress"] == [False, True, False]
    assert fae.ana.sheet["consequences"]["mild"]["text"] == "Costillas magulladas"
    assert fae.ana.sheet["consequences"]["moderate"] is None


def test_a_consequence_without_its_words_is_refused_and_nothing_changes(fae: FaeTable) -> None:
    client = Client()
    client.force_login(fae.player)
    before = dict(fae.ana.sheet)
    response = client.post(
        reverse("characters:operate", args=[fae.ana.pk, "absorb_hit"]),
        {"owner": str(fae.ana.pk), "attacker": "gm", "shifts": "2", "slots": "mild", "text_mild": ""},
    )
    assert response.status_code < 500
    fae.ana.refresh_from_db()
    assert fae.ana.sheet["consequences"] == before["consequences"]
