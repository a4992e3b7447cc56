"""Account pages: sign up (open, by invitation or closed), log in (throttled), the profile (name, email
address, avatar), password reset, API tokens, and leaving (download one's data, delete the account). Log out
and password change are Django's own views."""

from __future__ import annotations

from typing import cast

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login, logout
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from accounts import leaving, recovery, services
from accounts.forms import (
    AvatarForm,
    DeleteAccountForm,
    DisplayNameForm,
    EmailForm,
    PasswordResetRequestForm,
    SignUpForm,
    ThrottledLoginForm,
    TokenNameForm,
)
from accounts.models import ApiToken, User
from accounts.request_counts import TooManyRequests
from accounts.throttle import client_address, set_device_cookie
from accounts.write_limits import SIGNUP_LIMIT, WriteLimited


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("campaigns:home")
    if settings.SIGNUPS == "closed":
        return render(request, "accounts/signup_closed.html", status=403)
    by_invitation = settings.SIGNUPS == "invitation"
    form = SignUpForm(request.POST or None, invitation_required=by_invitation)
    if request.method == "POST" and form.is_valid():
        try:
            SIGNUP_LIMIT.count(client_address(request))
        except WriteLimited as refused:  # too many accounts from this address: none made, the form kept
            form.add_error(None, str(refused))
            return _too_many(render(request, "accounts/signup.html", {"form": form}), refused)
        try:
            with transaction.atomic():
                user = form.save()
                if by_invitation:
                    services.use_signup_invitation(code=form.cleaned_data["invitation"], user=user)
                if form.cleaned_data.get("email"):
                    user = services.request_email(user=user, address=form.cleaned_data["email"])
        except ValidationError as error:  # the code was spent by someone else meanwhile
            form.add_error(None, error)
            return render(request, "accounts/signup.html", {"form": form}, status=400)
        except TooManyRequests as refused:  # too many links to that address: the account is not made
            form.add_error("email", str(refused))
            return _too_many(render(request, "accounts/signup.html", {"form": form}), refused)
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, _("¡Bienvenido a Tintero, %(name)s!") % {"name": user.public_name})
        if user.pending_email:
            messages.info(
                request,
                _("Te hemos enviado un enlace a %(address)s para confirmar la dirección.")
                % {"address": user.pending_email},
            )
        response = redirect("campaigns:home")
        set_device_cookie(response, user)  # the device the account was made on is its owner's way in
        return response
    return render(request, "accounts/signup.html", {"form": form})


def _too_many(response: HttpResponse, refused: TooManyRequests | WriteLimited) -> HttpResponse:
    response.status_code = 429
    response["Retry-After"] = str(refused.retry_after)
    return response


@login_required
@require_http_methods(["GET", "POST"])
def profile(request: HttpRequest) -> HttpResponse:
    form = DisplayNameForm(request.POST or None, instance=request.user)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, _("Perfil guardado."))
        return redirect("accounts:profile")
    return render(request, "accounts/profile.html", _profile_context(cast(User, request.user), form=form))


def _profile_context(user: User, **forms: object) -> dict[str, object]:
    context: dict[str, object] = {
        "form": DisplayNameForm(instance=user),
        "email_form": EmailForm(initial={"email": services.unconfirmed_address(user) or user.email}),
        "avatar_form": AvatarForm(has_avatar=bool(user.avatar)),
        "unconfirmed_address": services.unconfirmed_address(user),
    }
    context.update(forms)
    return context


@login_required
@require_http_methods(["GET", "POST"])
def email(request: HttpRequest) -> HttpResponse:
    """The email form posts here: a new address is mailed its confirmation link."""
    if request.method == "GET":
        return redirect("accounts:profile")
    user = cast(User, request.user)
    form = EmailForm(request.POST)
    if form.is_valid():
        try:
            user = services.request_email(user=user, address=form.cleaned_data["email"])
        except ValidationError as error:
            form.add_error("email", error)
        except TooManyRequests as refused:
            form.add_error("email", str(refused))
            context = _profile_context(user, email_form=form)
            return _too_many(render(request, "accounts/profile.html", context), refused)
        else:
            if user.pending_email:
                messages.success(
                    request,
                    _("Te hemos enviado un enlace a %(address)s: la dirección se usará cuando lo abras.")
                    % {"address": user.pending_email},
                )
            else:
                messages.success(request, _("Dirección de correo guardada."))
            return redirect("accounts:profile")
    return render(request, "accounts/profile.html", _profile_context(user, email_form=form), status=400)


@login_required
@require_POST
def email_resend(request: HttpRequest) -> HttpResponse:
    try:
        address = services.resend_confirmation(user=cast(User, request.user))
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    except TooManyRequests as refused:
        messages.error(request, str(refused))
    else:
        messages.success(request, _("Enlace enviado de nuevo a %(address)s.") % {"address": address})
    return redirect("accounts:profile")


@require_http_methods(["GET", "POST"])
def email_confirm(request: HttpRequest, token: str) -> HttpResponse:
    """The link mailed to a new address. A GET only shows a button (mail scanners open links); the POST
    confirms."""
    if request.method == "GET":
        return render(request, "accounts/email_confirm.html", {"token": token})
    try:
        user = services.confirm_email(token)
    except ValidationError as error:
        context = {"token": token, "error": " ".join(error.messages)}
        return render(request, "accounts/email_confirm.html", context, status=400)
    messages.success(request, _("Dirección confirmada: %(address)s.") % {"address": user.email})
    return redirect("accounts:profile" if request.user.is_authenticated else "accounts:login")


@login_required
@require_http_methods(["GET", "POST"])
def avatar(request: HttpRequest) -> HttpResponse:
    """The avatar form posts here; a GET (a reload after an error) goes back to the profile."""
    if request.method == "GET":
        return redirect("accounts:profile")
    user = cast(User, request.user)
    form = AvatarForm(request.POST, request.FILES, has_avatar=bool(user.avatar))
    if form.is_valid():
        upload = None if form.cleaned_data.get("remove") else form.cleaned_data["avatar"]
        try:
            services.set_avatar(user=user, upload=upload)
        except ValidationError as error:
            form.add_error(None, error)  # keyed "avatar": it lands on the field
        else:
            messages.success(request, _("Avatar quitado.") if upload is None else _("Avatar guardado."))
            return redirect("accounts:profile")
    return render(request, "accounts/profile.html", _profile_context(user, avatar_form=form), status=400)


class LoginView(auth_views.LoginView):
    """Django's log-in page through the throttle: a throttled attempt answers 429 with Retry-After."""

    template_name = "accounts/login.html"
    authentication_form = ThrottledLoginForm

    def form_valid(self, form: ThrottledLoginForm) -> HttpResponse:  # type: ignore[override]
        response = super().form_valid(form)
        set_device_cookie(response, form.get_user())
        return response

    def form_invalid(self, form: ThrottledLoginForm) -> HttpResponse:  # type: ignore[override]
        response = super().form_invalid(form)
        if form.throttled is not None:
            response.status_code = 429
            response["Retry-After"] = str(form.throttled.retry_after)
        return response


@login_required
@require_http_methods(["GET"])
def data_download(request: HttpRequest) -> HttpResponse:
    """The person's own data as one JSON file (portability)."""
    user = cast(User, request.user)
    response = JsonResponse(leaving.export_account(user), json_dumps_params={"ensure_ascii": False, "indent": 2})
    response["Content-Disposition"] = f'attachment; filename="tintero-{user.pk}.json"'
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_http_methods(["GET", "POST"])
def delete_account(request: HttpRequest) -> HttpResponse:
    """Say what deletion keeps and erases; with the password, erase the account and log out."""
    user = cast(User, request.user)
    form = DeleteAccountForm(request.POST or None, user=user)
    blocking = leaving.campaigns_only_they_run(user)
    if request.method == "POST" and form.is_valid():
        try:
            leaving.delete_account(user=user)
        except ValidationError as error:
            form.add_error(None, error)
        else:
            logout(request)
            messages.success(request, _("Tu cuenta está borrada. Gracias por las historias."))
            return redirect("campaigns:home")
    context = {"form": form, "blocking": blocking}
    return render(request, "accounts/delete.html", context, status=400 if form.errors else 200)


@require_http_methods(["GET", "POST"])
def password_reset(request: HttpRequest) -> HttpResponse:
    """Ask for a reset link. The same answer whether an account has the address or not; 429 past the limits."""
    form = PasswordResetRequestForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            recovery.request_password_reset(request, form.cleaned_data["email"])
        except TooManyRequests as refused:
            form.add_error(None, str(refused))
            return _too_many(render(request, "accounts/password_reset.html", {"form": form}), refused)
        return render(request, "accounts/password_reset_sent.html", {"address": form.cleaned_data["email"]})
    return render(request, "accounts/password_reset.html", {"form": form}, status=400 if form.errors else 200)


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    """Django's reset link page with our templates. The new password ends every session of the account and
    revokes its API tokens (accounts.models.User.save)."""

    template_name = "accounts/password_reset_confirm.html"
    success_url = reverse_lazy("accounts:password_reset_complete")


@login_required
@require_http_methods(["GET", "POST"])
def tokens(request: HttpRequest) -> HttpResponse:
    """The user's API tokens: create one (its key shown this once) and see the others (first characters)."""
    user = cast(User, request.user)
    form = TokenNameForm(request.POST or None)
    new_key = None
    if request.method == "POST" and form.is_valid():
        new_key = services.issue_token(user=user, name=form.cleaned_data["name"]).key
        form = TokenNameForm()
    context = {"form": form, "new_key": new_key, "tokens": ApiToken.objects.filter(user=user)}
    return render(request, "accounts/tokens.html", context)


@login_required
@require_POST
def token_revoke(request: HttpRequest, token_id: int) -> HttpResponse:
    if services.revoke_token(user=cast(User, request.user), token_id=token_id):
        messages.success(request, _("Token revocado: ya no abre la API."))
    else:
        messages.error(request, _("Ese token no existe o ya estaba revocado."))
    return redirect("accounts:tokens")
