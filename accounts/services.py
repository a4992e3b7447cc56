"""Writes of accounts: the avatar, API tokens (issued, used, revoked)."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.utils import timezone

from accounts.models import ApiToken, User
from characters import portraits

# last_used_at is for the owner's list, not an audit log: one write per token per this many seconds at most.
LAST_USED_RESOLUTION = timedelta(minutes=5)


@transaction.atomic
def set_avatar(*, user: User, upload: UploadedFile | None) -> User:
    """Set (or, with None, remove) the account's avatar: decoded within the portraits' memory bound and
    re-encoded; the file it replaces leaves the disk once this commits."""
    user = User.objects.select_for_update().get(pk=user.pk)
    previous = (user.avatar.name or "") if user.avatar else ""
    if upload is None:
        user.avatar = None
    else:
        user.avatar.save(f"{user.pk}.webp", portraits.reencode(upload, field="avatar"), save=False)
    user.save(update_fields=["avatar"])
    portraits.delete_after_commit(user.avatar.storage, previous)
    return user


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


@dataclass(frozen=True)
class IssuedToken:
    token: ApiToken
    key: str  # the only time the full key exists outside the client


@transaction.atomic
def issue_token(*, user: User, name: str = "") -> IssuedToken:
    key = secrets.token_hex(20)
    ttl_days = settings.API_TOKEN_TTL_DAYS
    token = ApiToken.objects.create(
        user=user,
        name=name.strip()[:80],
        key_hash=hash_key(key),
        prefix=key[: ApiToken.PREFIX_LENGTH],
        expires_at=timezone.now() + timedelta(days=ttl_days) if ttl_days > 0 else None,
    )
    return IssuedToken(token, key)


def token_for_key(key: str) -> ApiToken | None:
    """The live token with this key (its user loaded), or None: unknown, expired or of an inactive user.
    Marks it used."""
    token = ApiToken.objects.select_related("user").filter(key_hash=hash_key(key)).first()
    if token is None or not token.user.is_active:
        return None
    now = timezone.now()
    if token.expires_at is not None and token.expires_at <= now:
        return None
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token


def revoke_token(*, user: User, token_id: int) -> bool:
    """Revoke one of the user's own tokens; False when they have no such token."""
    deleted, _ = ApiToken.objects.filter(user=user, pk=token_id).delete()
    return deleted > 0


def revoke_all_tokens(*, user: User) -> int:
    deleted, _ = ApiToken.objects.filter(user=user).delete()
    return deleted
