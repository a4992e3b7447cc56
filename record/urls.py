from django.urls import URLPattern, URLResolver, path

from record import views

app_name = "record"
urlpatterns: list[URLPattern | URLResolver] = [
    path("buscar/", views.search, name="search"),
]
