"""The accounts' profile version: raised in the transaction of every change to what others see of an account
(username, display name, avatar), and by nothing else (kept thread pages are keyed on it)."""

from __future__ import annotations

import pytest
from django.db import transaction

from accounts.models import ProfilesVersion, User
from tests.campaigns.web_helpers import make_user

pytestmark = pytest.mark.django_db


def version() -> int:
    return ProfilesVersion.objects.get(pk=1).value


def test_a_new_name_or_avatar_raises_it() -> None:
    user_id = make_user("ana", "Ana").pk
    before = version()
    user = User.objects.get(pk=user_id)
    user.display_name = "Ana María"
    user.save()
    assert version() == before + 1
    user.avatar.name = "avatars/ana.webp"
    user.save(update_fields=["avatar"])
    assert version() == before + 2


def test_saves_that_change_nothing_public_leave_it() -> None:
    user_id = make_user("ana", "Ana").pk  # a new account is on no page yet
    before = version()
    user = User.objects.get(pk=user_id)
    user.set_password("otra-clave-larga-42")
    user.save()
    user.email = "ana@example.org"
    user.save(update_fields=["email"])
    user.display_name = "Ana"  # the same name again
    user.save()
    deferred = User.objects.only("id", "email").get(pk=user_id)
    deferred.email = "otra@example.org"
    deferred.save()
    assert version() == before


def test_a_rolled_back_change_leaves_it() -> None:
    user = User.objects.get(pk=make_user("ana", "Ana").pk)
    before = version()
    with pytest.raises(RuntimeError), transaction.atomic():
        user.display_name = "Nunca"
        user.save()
        raise RuntimeError("rolled back")
    assert version() == before


def test_the_row_comes_back_when_a_database_lost_it() -> None:
    ProfilesVersion.objects.all().delete()
    user = User.objects.get(pk=make_user("ana", "Ana").pk)
    user.display_name = "Ana María"
    user.save()
    assert version() == 1
