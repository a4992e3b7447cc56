from django.urls import URLPattern, URLResolver, path

from record import views

app_name = "record"
urlpatterns: list[URLPattern | URLResolver] = [
    path("buscar/", views.search, name="search"),
    path("campaigns/<int:pk>/tiradas/", views.roll_log, name="roll_log"),
]
