"""Account pages: sign up, log in (throttled), the profile and API tokens. Log out and password change are
Django's own views."""

from __future__ import annotations

from typing import cast

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from accounts import services
from accounts.forms import AvatarForm, DisplayNameForm, SignUpForm, ThrottledLoginForm, TokenNameForm
from accounts.models import ApiToken, User
from accounts.throttle import set_device_cookie


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("campaigns:home")
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, _("¡Bienvenido a Tintero, %(name)s!") % {"name": user.public_name})
        response = redirect("campaigns:home")
        set_device_cookie(response, user)  # the device the account was made on is its owner's way in
        return response
    return render(request, "accounts/signup.html", {"form": form})


@login_required
@require_http_methods(["GET", "POST"])
def profile(request: HttpRequest) -> HttpResponse:
    form = DisplayNameForm(request.POST or None, instance=request.user)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, _("Perfil guardado."))
        return redirect("accounts:profile")
    return render(
        request,
        "accounts/profile.html",
        {"form": form, "avatar_form": AvatarForm(has_avatar=bool(cast(User, request.user).avatar))},
    )


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
    context = {"form": DisplayNameForm(instance=request.user), "avatar_form": form}
    return render(request, "accounts/profile.html", context, status=400)


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
