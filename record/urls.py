from django.urls import URLPattern, URLResolver, path

from record import views

app_name = "record"
urlpatterns: list[URLPattern | URLResolver] = [
    path("buscar/", views.search, name="search"),
    path("campaigns/<int:pk>/tiradas/", views.roll_log, name="roll_log"),
    path("campaigns/<int:pk>/exportar/", views.export_page, name="export"),
    path("campaigns/<int:pk>/exportar/archivo.json", views.export_archive, name="export_archive"),
    path("campaigns/<int:pk>/exportar/libro.html", views.export_book, name="export_book"),
    path("campaigns/<int:pk>/exportar/libro.epub", views.export_epub, name="export_epub"),
    path("archivo/esquema-v1.json", views.archive_schema, name="archive_schema"),
    path("partidas/importar/", views.import_page, name="import"),
    path("mensajes/<int:post_id>/reclamar/", views.claim, name="claim"),
    path("campaigns/<int:pk>/terminar/", views.archive, name="archive"),
    path("campaigns/<int:pk>/reabrir/", views.reopen, name="reopen"),
]
