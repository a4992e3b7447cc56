"""Display names cannot pass for someone else: no invisible or direction-changing characters, no role words,
no other member's name; and every post shows the account's unique handle."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

from accounts.forms import DisplayNameForm, SignUpForm
from accounts.names import check_display_name_text, comparable_name
from tests.personas import Table


@pytest.mark.parametrize(
    "name",
    ["Ana\u202egnul", "A\u200bna", "Ana\u2066x\u2069", "Ana\x07", "\ufeffAna", "Directora", "  el DJ ", "MÁSTER", "GM"],
)
def test_names_that_hide_or_pretend_are_refused(name: str) -> None:
    with pytest.raises(ValidationError):
        check_display_name_text(name)


@pytest.mark.parametrize("name", ["Ana", "Brunilda la Roja", "李小龍", "Zoë O'Hara", "محمد"])
def test_ordinary_names_pass(name: str) -> None:
    check_display_name_text(name)


@given(st.text(min_size=1, max_size=20))
def test_a_name_with_a_format_or_control_character_never_passes(text: str) -> None:
    name = f"Ana{text}\u200d"
    with pytest.raises(ValidationError):
        check_display_name_text(name)


def test_comparison_ignores_case_width_and_spacing() -> None:
    assert comparable_name("  ＡＮＡ   maría ") == comparable_name("ana María")


def test_a_player_cannot_take_another_members_name(table: Table) -> None:
    form = DisplayNameForm({"display_name": "directora"}, instance=table.player)  # the GM's, in other case
    assert not form.is_valid()
    assert "display_name" in form.errors
    assert DisplayNameForm({"display_name": "Lucía Grande"}, instance=table.player).is_valid()


def test_an_outsider_may_share_a_name_with_strangers(table: Table) -> None:
    # Names only clash within the campaigns one shares.
    assert DisplayNameForm({"display_name": "Bruno"}, instance=table.outsider).is_valid()


def test_the_api_applies_the_same_rules(table: Table) -> None:
    client = Client()
    client.force_login(table.player)
    response = client.patch("/api/me/", {"display_name": "Bruno"}, content_type="application/json")
    assert response.status_code == 400
    assert "display_name" in response.content.decode()
    ok = client.patch("/api/me/", {"display_name": "Ana la Valiente"}, content_type="application/json")
    assert ok.status_code == 200


@pytest.mark.django_db
def test_sign_up_refuses_a_role_word_as_handle_or_name() -> None:
    data = {"username": "gm", "password1": "una-clave-larga-9", "password2": "una-clave-larga-9"}
    assert "username" in SignUpForm(data).errors
    data = {
        "username": "ana",
        "display_name": "Ana\u202e",
        "password1": "una-clave-larga-9",
        "password2": "una-clave-larga-9",
    }
    assert "display_name" in SignUpForm(data).errors


def test_every_post_shows_the_authors_handle(table: Table) -> None:
    client = Client()
    client.force_login(table.gm)
    page = client.get(reverse("campaigns:scene", args=[table.scene.pk])).content.decode()
    assert f"@{table.player.username}" in page
    assert f"@{table.gm.username}" in page
