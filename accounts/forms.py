"""Account forms: sign up and the editable profile (display name)."""

from __future__ import annotations

from django import forms
from django.contrib.auth.forms import BaseUserCreationForm
from django.utils.translation import gettext_lazy as _

from accounts.models import User


class SignUpForm(BaseUserCreationForm):
    """Username, display name, optional email and the password twice."""

    class Meta:
        model = User
        fields = ("username", "display_name", "email")
        help_texts = {
            "display_name": _("Como te verá la mesa. Si lo dejas vacío, se usa tu nombre de usuario."),
        }
        labels = {"email": _("Correo electrónico (opcional)")}

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.fields["email"].required = False


class DisplayNameForm(forms.ModelForm):
    class Meta:
        model = User
        fields = ("display_name",)
        help_texts = {
            "display_name": _("Como te verá la mesa. Si lo dejas vacío, se usa tu nombre de usuario."),
        }
