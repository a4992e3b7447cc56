"""Account forms: sign up, log in (throttled), the editable profile (display name) and API token names."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.forms import AuthenticationForm, BaseUserCreationForm
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from accounts.models import SignupInvitation, User
from accounts.names import check_display_name_text, check_display_name_unique
from accounts.selectors import names_beside
from accounts.throttle import LoginThrottled, authenticate_throttled
from characters.portraits import MAX_BYTES


class SignUpForm(BaseUserCreationForm):
    """Username, display name, optional email and the password twice. The address is not saved on the
    account: the view asks for it (accounts.services.request_email), which mails it the confirmation link."""

    email = forms.EmailField(
        label=_("Correo electrónico (opcional)"),
        required=False,
        help_text=_("Te enviaremos un enlace para confirmarla: hasta entonces no se usa."),
    )

    class Meta:
        model = User
        fields = ("username", "display_name")
        help_texts = {
            "display_name": _("Como te verá la mesa. Si lo dejas vacío, se usa tu nombre de usuario."),
        }

    def __init__(self, *args: Any, invitation_required: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if invitation_required:
            self.fields["invitation"] = forms.CharField(
                label=_("Código de invitación"),
                max_length=40,
                help_text=_("Ahora solo se puede entrar con invitación: pide un código a quien lleva el sitio."),
            )

    def clean_invitation(self) -> str:
        code: str = self.cleaned_data.get("invitation", "").strip()
        if not SignupInvitation.objects.filter(code=code, used_at__isnull=True).exists():
            raise ValidationError(_("Ese código de invitación no existe o ya se usó."), code="invitation")
        return code

    def clean_username(self) -> str:
        username: str = self.cleaned_data.get("username", "")
        check_display_name_text(username)  # it is the public name until a display name is set
        return username

    def clean_display_name(self) -> str:
        name: str = self.cleaned_data.get("display_name", "")
        if name:
            check_display_name_text(name)
        return name


class DisplayNameForm(forms.ModelForm):
    instance: User

    class Meta:
        model = User
        fields = ("display_name",)
        help_texts = {
            "display_name": _("Como te verá la mesa. Si lo dejas vacío, se usa tu nombre de usuario."),
        }

    def clean_display_name(self) -> str:
        name: str = self.cleaned_data.get("display_name", "")
        if name:
            check_display_name_text(name)
            check_display_name_unique(name, names_beside(self.instance))
        return name


class EmailForm(forms.Form):
    email = forms.EmailField(
        label=_("Correo electrónico"),
        required=False,
        max_length=254,
        help_text=_(
            "Una dirección nueva no se usa hasta que abras el enlace que le enviamos; la anterior sigue "
            "recibiendo el correo hasta entonces. Déjalo vacío para no recibir correo."
        ),
    )


class AvatarForm(forms.Form):
    avatar = forms.ImageField(
        label=_("Avatar"),
        required=False,
        help_text=_(
            "Aparece junto a tus mensajes fuera de personaje y de narrador. PNG, JPEG, GIF o WebP de hasta %(mb)d MB."
        )
        % {"mb": MAX_BYTES >> 20},
    )
    remove = forms.BooleanField(label=_("Quitar el avatar"), required=False)

    def __init__(self, *args: Any, has_avatar: bool, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if not has_avatar:
            del self.fields["remove"]  # nothing to remove

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if not self.errors and not cleaned.get("remove") and not cleaned.get("avatar"):
            raise ValidationError(_("Elige una imagen."), code="no_image")
        return cleaned


class ThrottledLoginForm(AuthenticationForm):
    """Django's log-in form, through the log-in throttle (accounts/throttle.py)."""

    throttled: LoginThrottled | None = None

    def clean(self) -> dict[str, Any]:
        username = self.cleaned_data.get("username")
        password = self.cleaned_data.get("password")
        if username is not None and password:
            try:
                self.user_cache = authenticate_throttled(self.request, username, password)
            except LoginThrottled as throttled:
                self.throttled = throttled
                raise ValidationError(str(throttled), code="throttled") from None
            if self.user_cache is None:
                raise self.get_invalid_login_error()
            self.confirm_login_allowed(self.user_cache)
        return self.cleaned_data


class PasswordResetRequestForm(forms.Form):
    email = forms.EmailField(
        label=_("Correo electrónico"),
        max_length=254,
        help_text=_("La dirección confirmada de tu cuenta."),
    )


class DeleteAccountForm(forms.Form):
    """Deleting the account asks for the password again: a session left open is not enough."""

    password = forms.CharField(label=_("Tu contraseña"), strip=False, widget=forms.PasswordInput)

    def __init__(self, *args: Any, user: User, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_password(self) -> str:
        password: str = self.cleaned_data.get("password", "")
        if not self.user.check_password(password):
            raise ValidationError(_("La contraseña no es correcta."), code="wrong_password")
        return password


class TokenNameForm(forms.Form):
    name = forms.CharField(
        label=_("Nombre"),
        max_length=80,
        required=False,
        help_text=_("Para reconocerlo en la lista: «bot de la mesa», «móvil»..."),
    )
