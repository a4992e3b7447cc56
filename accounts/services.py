"""Writes of accounts: the email address (asked for, confirmed), the avatar, API tokens (issued, used, revoked)."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import mail, tasks
from accounts.models import ApiToken, SignupInvitation, User
from accounts.request_counts import count_or_refuse, hashed
from characters import portraits

# last_used_at is for the owner's list, not an audit log: one write per token per this many seconds at most.
LAST_USED_RESOLUTION = timedelta(minutes=5)


def create_signup_invitations(count: int, *, note: str = "") -> list[SignupInvitation]:
    """New one-use codes for sign-ups by invitation (SIGNUPS=invitation)."""
    return [SignupInvitation.objects.create(code=secrets.token_urlsafe(12), note=note[:120]) for _ in range(count)]


def use_signup_invitation(*, code: str, user: User) -> SignupInvitation:
    """Spend an invitation on the account just made (in its transaction): a code works once."""
    invitation = SignupInvitation.objects.select_for_update().filter(code=code.strip(), used_at__isnull=True).first()
    if invitation is None:
        raise ValidationError({"invitation": _("Ese código de invitación no existe o ya se usó.")})
    invitation.used_by, invitation.used_at = user, timezone.now()
    invitation.save(update_fields=["used_by", "used_at"])
    return invitation


def normalized_address(address: str) -> str:
    """The address as typed, trimmed, its domain lower-cased (the part before @ may be case-sensitive)."""
    return User.objects.normalize_email(address.strip())


def address_taken(address: str, *, besides: User | None = None) -> bool:
    """Whether another account already confirmed this address."""
    others = User.objects.filter(email__iexact=address, email_verified_at__isnull=False)
    if besides is not None:
        others = others.exclude(pk=besides.pk)
    return others.exists()


@transaction.atomic
def request_email(*, user: User, address: str) -> User:
    """Ask to use ``address`` for the account. A new address is used for nothing until its owner opens the
    link mailed to it; meanwhile a confirmed one keeps getting the mail and is told. The confirmed address
    again cancels a change under way; an empty one removes both. TooManyRequests past the links allowed."""
    address = normalized_address(address)
    if address:
        validate_email(address)
    user = User.objects.select_for_update().get(pk=user.pk)
    if not address:
        user.email, user.email_verified_at, user.pending_email = "", None, ""
        user.save(update_fields=["email", "email_verified_at", "pending_email"])
        return user
    if user.email_verified and address.casefold() == user.email.casefold():
        user.pending_email = ""
        user.save(update_fields=["pending_email"])
        return user
    if address.casefold() == user.pending_email.casefold():
        return user  # already waiting: ask for the link again to send it again
    _count_confirmation_mail(user, address)
    user.pending_email = address
    user.save(update_fields=["pending_email"])
    tasks.send_after_commit(mail.CONFIRM, user.pk, address)
    if user.email_verified:
        tasks.send_after_commit(mail.CHANGE_REQUESTED, user.pk, address)
    return user


def _count_confirmation_mail(user: User, address: str) -> None:
    """Raise TooManyRequests past the confirmation links allowed per account and per target address."""
    count_or_refuse(
        {
            f"confirm:user:{user.pk}": settings.EMAIL_CONFIRM_THROTTLE_ACCOUNT,
            f"confirm:email:{hashed(address)}": settings.EMAIL_CONFIRM_THROTTLE_ADDRESS,
        },
        settings.EMAIL_CONFIRM_THROTTLE_WINDOW,
    )


def unconfirmed_address(user: User) -> str:
    """The address waiting for its owner's confirmation ("" when none)."""
    if user.pending_email:
        return user.pending_email
    return user.email if user.email and not user.email_verified else ""


def resend_confirmation(*, user: User) -> str:
    """Mail the confirmation link again to the address waiting for it; returns that address."""
    user = User.objects.get(pk=user.pk)  # as stored: the caller's copy may predate the last request
    address = unconfirmed_address(user)
    if not address:
        raise ValidationError(_("No hay ninguna dirección por confirmar."), code="nothing_to_confirm")
    _count_confirmation_mail(user, address)
    with transaction.atomic():
        tasks.send_after_commit(mail.CONFIRM, user.pk, address)
    return address


def confirm_email(token: str) -> User:
    """Confirm the address a signed link was mailed to: from now on the account's mail goes there, and the
    address it replaces is told. A clear ValidationError for a bad, expired or superseded link."""
    try:
        confirmation = mail.read_confirmation_token(token)
    except mail.BadConfirmation as bad:
        if bad.expired:
            raise ValidationError(_("El enlace ha caducado: pide otro desde tu perfil."), code="expired") from None
        raise ValidationError(_("El enlace no es válido."), code="invalid") from None
    try:
        with transaction.atomic():
            user = User.objects.select_for_update().filter(pk=confirmation.user_id, is_active=True).first()
            if user is None:
                raise ValidationError(_("El enlace no es válido."), code="invalid")
            address = confirmation.address
            if user.email_verified and user.email.casefold() == address.casefold():
                return user  # opened twice: already done
            if address.casefold() != unconfirmed_address(user).casefold():
                raise ValidationError(
                    _("Este enlace ya no sirve: la cuenta espera la confirmación de otra dirección."), code="stale"
                )
            if address_taken(address, besides=user):
                raise ValidationError(_("Esa dirección ya es de otra cuenta."), code="taken")
            previous = user.email if user.email_verified else ""
            user.email, user.email_verified_at, user.pending_email = address, timezone.now(), ""
            user.save(update_fields=["email", "email_verified_at", "pending_email"])
            if previous and previous.casefold() != address.casefold():
                tasks.send_after_commit(mail.CHANGED, user.pk, previous)
            return user
    except IntegrityError:  # confirmed for another account at the same moment
        raise ValidationError(_("Esa dirección ya es de otra cuenta."), code="taken") from None


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
