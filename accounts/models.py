from __future__ import annotations

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils.translation import gettext_lazy as _


class User(AbstractUser):
    """A person on Tintero. ``display_name`` is how the table sees them; ``username`` is for logging in."""

    display_name = models.CharField(_("nombre visible"), max_length=80, blank=True)

    class Meta:
        verbose_name = _("usuario")
        verbose_name_plural = _("usuarios")

    @property
    def public_name(self) -> str:
        return self.display_name or self.username

    def __str__(self) -> str:
        return self.public_name
