from __future__ import annotations

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils.translation import gettext_lazy as _


class User(AbstractUser):
    """A person on Tintero. ``display_name`` is how the table sees them; ``username`` is for logging in."""

    display_name = models.CharField(_("nombre visible"), max_length=80, blank=True)
    # Beside the account's out-of-character and narrator posts; re-encoded like character portraits.
    avatar = models.ImageField(_("avatar"), upload_to="avatars/%Y/%m/", blank=True)

    class Meta:
        verbose_name = _("usuario")
        verbose_name_plural = _("usuarios")

    @property
    def public_name(self) -> str:
        return self.display_name or self.username

    def __str__(self) -> str:
        return self.public_name

    def save(self, *args: object, **kwargs: object) -> None:
        # set_password() leaves the new raw password in _password until the row is saved: every way of
        # changing a password (the page, the admin, a reset, changepassword) ends here.
        password_changed = self._password is not None and not self._state.adding  # type: ignore[attr-defined]
        super().save(*args, **kwargs)  # type: ignore[arg-type]
        if password_changed:
            ApiToken.objects.filter(user=self).delete()


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
