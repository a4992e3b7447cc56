"""Helpers of the notification tests: a table whose members have mail addresses, and every surface a user
reads notifications on (inbox words, mail bodies, private feed, push payloads) as one text."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone

from accounts.models import User
from campaigns.models import Visibility
from notifications import catalogue, push, selectors, services
from tests.personas import Table, build_table

Capture = Callable[..., AbstractContextManager[Any]]


def build_mail_table(visibility: str, capture: Capture) -> Table:
    with capture(execute=True):
        table = build_table(visibility)
    for user in User.objects.all():
        user.email, user.email_verified_at = f"{user.username}@example.org", timezone.now()  # confirmed addresses
        user.save(update_fields=["email", "email_verified_at"])
    mail.outbox.clear()
    return table


@pytest.fixture(params=[Visibility.PUBLIC, Visibility.PRIVATE])
def mail_table(request: pytest.FixtureRequest, db: None, django_capture_on_commit_callbacks: Capture) -> Table:
    table = build_mail_table(request.param, django_capture_on_commit_callbacks)
    from notifications.models import Notification

    Notification.objects.all().delete()  # the table's own set-up posts: each test starts with an empty inbox
    return table


def surfaces(user: User) -> str:
    """Everything a user may read about their notifications, on every surface, as one text."""
    parts: list[str] = []
    for n in selectors.inbox(user):
        parts += [catalogue.sentence(n), catalogue.excerpt(n), catalogue.link(n), push.payload(n)]
    parts += [m.subject + "\n" + str(m.body) for m in mail.outbox if user.email in m.to]
    feed = Client().get(f"/avisos/canal/{services.feed_token(user).token}.atom")
    parts.append(feed.content.decode())
    return "\n".join(parts)


def kinds(user: User) -> set[str]:
    return {n.kind for n in selectors.inbox(user)}


@pytest.fixture
def run_tasks(django_capture_on_commit_callbacks: Capture) -> Iterator[Capture]:
    yield django_capture_on_commit_callbacks
