"""No te Duermas' own pages: the GM's close of a session (the hope distribution)."""

from django.urls import path

from rulesets.dont_rest_your_head import session

app_name = "dont_rest_your_head"

urlpatterns = [
    path("campaigns/<int:pk>/no-te-duermas/cerrar-sesion/", session.close_session, name="close_session"),
]
