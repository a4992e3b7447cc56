from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractUser
from django.db import models, transaction
from django.db.models import F, Q
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _

# The name a deleted account's posts keep in the threads (also stored as its display name, for raw reads).
FORMER_MEMBER = _("antiguo miembro")
# What other people see of an account beside its posts and in whisper lists.
PUBLIC_PROFILE_FIELDS = ("username", "display_name", "avatar")
_NOT_LOADED = object()


class User(AbstractUser):
    """A person on Tintero. ``display_name`` is how the table sees them; ``username`` is for logging in."""

    display_name = models.CharField(_("nombre visible"), max_length=80, blank=True)
    # Beside the account's out-of-character and narrator posts; re-encoded like character portraits.
    avatar = models.ImageField(_("avatar"), upload_to="avatars/%Y/%m/", blank=True)
    # ``email`` is the address mail goes to, once confirmed (``email_verified_at``); a new or changed address
    # waits here until its owner opens the signed link sent to it, and is used for nothing before.
    pending_email = models.EmailField(_("correo por confirmar"), blank=True)
    email_verified_at = models.DateTimeField(_("correo confirmado el"), null=True, blank=True)
    # Set when the account is deleted: the row stays (posts and rolls point at it), erased of everything personal.
    deleted_at = models.DateTimeField(_("cuenta borrada el"), null=True, blank=True)
    # The public profile as read from the database (None: not read from it), to see whether a save changes it.
    _loaded_profile: tuple[object, ...] | None = None

    class Meta:
        verbose_name = _("usuario")
        verbose_name_plural = _("usuarios")
        constraints = [
            # One account per confirmed address: a password reset finds exactly one.
            models.UniqueConstraint(
                Lower("email"), condition=Q(email_verified_at__isnull=False), name="one_account_per_verified_email"
            )
        ]

    @property
    def public_name(self) -> str:
        # Read without loading a deferred field: a list that loaded only names shows the stored neutral name.
        if self.__dict__.get("deleted_at") is not None:
            return str(FORMER_MEMBER)
        return self.display_name or self.username

    @property
    def email_verified(self) -> bool:
        """Whether mail may go to ``email``: only to an address its owner confirmed."""
        return bool(self.email) and self.email_verified_at is not None

    def __str__(self) -> str:
        return self.public_name

    @classmethod
    def from_db(cls, db: str | None, field_names: Any, values: Any, **kwargs: Any) -> User:
        user: User = super().from_db(db, field_names, values, **kwargs)
        user._loaded_profile = user._public_profile()
        return user

    def _public_profile(self) -> tuple[object, ...]:
        # Read from the instance's own values: a deferred field is not loaded just to compare it.
        values = (self.__dict__.get(name, _NOT_LOADED) for name in PUBLIC_PROFILE_FIELDS)
        return tuple(getattr(value, "name", value) or "" for value in values)

    def _profile_changed(self) -> bool:
        return self._loaded_profile is None or self._public_profile() != self._loaded_profile

    def save(self, *args: object, **kwargs: object) -> None:
        # set_password() leaves the new raw password in _password until the row is saved: every way of
        # changing a password (the page, the admin, a reset, changepassword) ends here.
        password_changed = self._password is not None and not self._state.adding  # type: ignore[attr-defined]
        update_fields = kwargs.get("update_fields")
        saved_fields = set(PUBLIC_PROFILE_FIELDS if update_fields is None else update_fields)  # type: ignore[call-overload]
        if self._state.adding or not saved_fields & set(PUBLIC_PROFILE_FIELDS) or not self._profile_changed():
            super().save(*args, **kwargs)  # type: ignore[arg-type]
        else:
            with transaction.atomic():  # the version moves if and only if the change commits
                super().save(*args, **kwargs)  # type: ignore[arg-type]
                ProfilesVersion.bump()
        self._loaded_profile = self._public_profile()
        if password_changed:
            ApiToken.objects.filter(user=self).delete()


class ProfilesVersion(models.Model):
    """One row: a number raised in the transaction of every change to what others see of an account (its
    username, display name or avatar). Kept thread pages (campaigns.thread_cache) are keyed on it. The row's
    lock puts the changes in commit order, which a timestamp stamped before commit would not."""

    value = models.BigIntegerField(default=0)

    def __str__(self) -> str:
        return str(self.value)

    @classmethod
    def bump(cls) -> None:
        if not cls.objects.filter(pk=1).update(value=F("value") + 1):
            cls.objects.get_or_create(pk=1)  # a flushed test database: the row comes back
            cls.objects.filter(pk=1).update(value=F("value") + 1)


class ApiToken(models.Model):
    """An API token. Only a hash of its key is stored: the key is shown once, when it is created; lists
    show its first characters. It expires (``API_TOKEN_TTL_DAYS``) and dies with a password change."""

    PREFIX_LENGTH = 8

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(_("nombre"), max_length=80, blank=True)
    key_hash = models.CharField(max_length=64, unique=True, editable=False)
    prefix = models.CharField(max_length=PREFIX_LENGTH, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("token de la API")
        verbose_name_plural = _("tokens de la API")

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.user_id})"


class ThrottleCount(models.Model):
    """One rate-limit counter in one window (accounts.throttle, when there is no Redis). ``key`` names the
    thing counted and its window, so a new window is a new row; rows past ``expires_at`` are swept."""

    key = models.CharField(max_length=200, unique=True)
    count = models.IntegerField(default=0)
    expires_at = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return f"{self.key}: {self.count}"


class SignupInvitation(models.Model):
    """A code that lets one person sign up while sign-ups are by invitation only (``SIGNUPS=invitation``).
    Made by the site's staff (``manage.py signup_invitations``); used once."""

    code = models.CharField(_("código"), max_length=40, unique=True)
    note = models.CharField(_("para quién"), max_length=120, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    used_by = models.OneToOneField(
        User, null=True, blank=True, on_delete=models.SET_NULL, related_name="signup_invitation"
    )
    used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("invitación para registrarse")
        verbose_name_plural = _("invitaciones para registrarse")

    def __str__(self) -> str:
        return f"{self.code[:6]}… ({'used' if self.used_at else 'open'})"
