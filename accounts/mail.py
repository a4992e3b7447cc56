"""Mail about the account itself: the link that confirms an address, the notices to the address being
replaced, and the password reset link. Each goes only where it belongs: a link to the address it confirms
while that address still waits for confirmation, everything else to the account's confirmed address.

The messages are built when they are sent (``accounts.tasks``), so no link or token waits in the task queue.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth.tokens import default_token_generator
from django.core import signing
from django.core.mail import EmailMessage
from django.urls import reverse
from django.utils import translation
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django.utils.translation import gettext as _

from accounts.models import User

CONFIRM_SALT = "accounts.email.confirm"

# What a mail is about (the task's ``kind``).
CONFIRM = "confirm"
CHANGE_REQUESTED = "change_requested"
CHANGED = "changed"
PASSWORD_RESET = "password_reset"
KINDS = (CONFIRM, CHANGE_REQUESTED, CHANGED, PASSWORD_RESET)


class BadConfirmation(Exception):
    """A confirmation link that was tampered with, or has expired (``expired``)."""

    def __init__(self, *, expired: bool) -> None:
        self.expired = expired
        super().__init__("expired" if expired else "bad signature")


@dataclass(frozen=True)
class Confirmation:
    user_id: int
    address: str


def absolute(path: str) -> str:
    return settings.SITE_URL.rstrip("/") + path


def confirmation_token(user_id: int, address: str) -> str:
    # The address is in the signed value: a link confirms the address it was sent to and no other.
    return signing.dumps({"u": user_id, "e": address}, salt=CONFIRM_SALT, compress=True)


def read_confirmation_token(token: str) -> Confirmation:
    try:
        data = signing.loads(token, salt=CONFIRM_SALT, max_age=settings.EMAIL_CONFIRM_HOURS * 3600)
    except signing.SignatureExpired:
        raise BadConfirmation(expired=True) from None
    except signing.BadSignature:
        raise BadConfirmation(expired=False) from None
    if not isinstance(data, dict) or not isinstance(data.get("u"), int) or not isinstance(data.get("e"), str):
        raise BadConfirmation(expired=False)
    return Confirmation(data["u"], data["e"])


def confirmation_url(user_id: int, address: str) -> str:
    return absolute(reverse("accounts:email_confirm", args=[confirmation_token(user_id, address)]))


def password_reset_url(user: User) -> str:
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    token = default_token_generator.make_token(user)
    return absolute(reverse("accounts:password_reset_confirm", args=[uid, token]))


def recipient(kind: str, user: User, address: str) -> str | None:
    """Where a mail of ``kind`` may go now, or None: it must not be sent (the address is no longer the one
    waiting for confirmation, or is not the account's confirmed one)."""
    if not user.is_active:  # a deleted account is inactive too
        return None
    if kind == CONFIRM:
        waiting = {user.pending_email.casefold()} | ({user.email.casefold()} if not user.email_verified else set())
        return address if address and address.casefold() in waiting else None
    if kind == CHANGE_REQUESTED:
        # Told to the confirmed address while another one waits: ``address`` is the new one.
        return user.email if user.email_verified and user.pending_email else None
    if kind == CHANGED:
        # ``address`` is the old confirmed address, told after the new one replaced it.
        return address or None
    if kind == PASSWORD_RESET:
        return user.email if user.email_verified else None
    return None


def message(kind: str, user: User, address: str, to: str) -> EmailMessage:
    name = user.public_name
    if kind == CONFIRM:
        subject = _("[Tintero] Confirma tu dirección de correo")
        lines = [
            _("Hola, %(name)s:") % {"name": name},
            "",
            _("Para usar esta dirección en tu cuenta de Tintero, abre este enlace:"),
            confirmation_url(user.pk, address),
            "",
            _("El enlace caduca en %(hours)d horas. Si no has sido tú, ignora este correo: no se usará.")
            % {"hours": settings.EMAIL_CONFIRM_HOURS},
        ]
    elif kind == CHANGE_REQUESTED:
        subject = _("[Tintero] Se ha pedido cambiar tu dirección de correo")
        lines = [
            _("Hola, %(name)s:") % {"name": name},
            "",
            _("Se ha pedido cambiar la dirección de correo de tu cuenta a %(address)s.") % {"address": address},
            _("Seguirás recibiendo el correo aquí hasta que se confirme la nueva dirección."),
            _("Si no has sido tú, cambia tu contraseña: %(url)s")
            % {"url": absolute(reverse("accounts:password_change"))},
        ]
    elif kind == CHANGED:
        subject = _("[Tintero] Tu dirección de correo ha cambiado")
        lines = [
            _("Hola, %(name)s:") % {"name": name},
            "",
            _("Tu cuenta de Tintero ya usa otra dirección de correo: esta no recibirá más correo de la cuenta."),
            _("Si no has sido tú, pide una nueva contraseña: %(url)s")
            % {"url": absolute(reverse("accounts:password_reset"))},
        ]
    else:
        subject = _("[Tintero] Cambia tu contraseña")
        lines = [
            _("Hola, %(name)s:") % {"name": name},
            "",
            _("Has pedido una contraseña nueva para tu cuenta (%(username)s). Elígela aquí:")
            % {"username": user.username},
            password_reset_url(user),
            "",
            _("El enlace sirve una vez y caduca en %(hours)d horas. Si no lo has pedido tú, ignora este correo.")
            % {"hours": max(1, settings.PASSWORD_RESET_TIMEOUT // 3600)},
        ]
    return EmailMessage(subject=subject, body="\n".join(lines), to=[to])


def send(kind: str, user_id: int, address: str, language: str) -> str:
    """Send one account mail if it may still go (see :func:`recipient`). Returns what happened."""
    user = User.objects.filter(pk=user_id).first()
    to = recipient(kind, user, address) if user is not None and kind in KINDS else None
    if user is None or to is None:
        return "skipped"
    with translation.override(language or settings.LANGUAGE_CODE):
        message(kind, user, address, to).send()
    return "sent"
