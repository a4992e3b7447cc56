"""No te Duermas' own pages: the GM's close of a session (the hope distribution)."""

from django.urls import path

from rulesets.dont_rest_your_head import scar_page, session

app_name = "dont_rest_your_head"

urlpatterns = [
    path("campaigns/<int:pk>/no-te-duermas/cerrar-sesion/", session.close_session, name="close_session"),
    path(
        "characters/<int:pk>/no-te-duermas/cicatrices/<int:index>/transformar/",
        scar_page.transform_scar,
        name="transform_scar",
    ),
]
