"""Background work of accounts, through Django's tasks interface: the account's own mail."""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import get_language
from django_tasks import task

from accounts import mail


@task()
def send_account_mail(kind: str, user_id: int, address: str, language: str) -> str:
    return mail.send(kind, user_id, address, language)


def send_after_commit(kind: str, user_id: int, address: str = "") -> None:
    """Queue an account mail once the change that asks for it commits, in the language of the request."""
    language = get_language() or ""
    transaction.on_commit(lambda: send_account_mail.enqueue(kind, user_id, address, language))
