from django.contrib.auth import views as auth_views
from django.urls import URLPattern, URLResolver, path, reverse_lazy

from accounts import views

app_name = "accounts"
urlpatterns: list[URLPattern | URLResolver] = [
    path("signup/", views.signup, name="signup"),
    path("login/", views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("profile/", views.profile, name="profile"),
    path("profile/avatar/", views.avatar, name="avatar"),
    path("profile/email/", views.email, name="email"),
    path("profile/email/resend/", views.email_resend, name="email_resend"),
    path("email/confirm/<str:token>/", views.email_confirm, name="email_confirm"),
    path("profile/data/", views.data_download, name="data_download"),
    path("delete/", views.delete_account, name="delete"),
    path("tokens/", views.tokens, name="tokens"),
    path("tokens/<int:token_id>/revoke/", views.token_revoke, name="token_revoke"),
    path(
        "password/",
        auth_views.PasswordChangeView.as_view(
            template_name="accounts/password_change.html",
            success_url=reverse_lazy("accounts:password_change_done"),
        ),
        name="password_change",
    ),
    path("password/reset/", views.password_reset, name="password_reset"),
    path(
        "password/reset/<uidb64>/<token>/",
        views.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "password/reset/done/",
        auth_views.PasswordResetCompleteView.as_view(template_name="accounts/password_reset_complete.html"),
        name="password_reset_complete",
    ),
    path(
        "password/done/",
        auth_views.PasswordChangeDoneView.as_view(template_name="accounts/password_change_done.html"),
        name="password_change_done",
    ),
]
