from django.conf import settings
from django.conf.urls.static import static
from django.contrib import admin
from django.urls import include, path

from rulesets import registry

urlpatterns = [
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
    path("accounts/", include("accounts.urls")),
    path("api/", include("tintero.api.urls")),
    path("", include("characters.urls")),
    path("", include("rolls.urls")),
    path("", include("record.urls")),
    path("", include("campaigns.urls")),
    # Each game's own pages, when its plugin has any (rulesets.registry).
    *[path("", include(plugin.urls)) for plugin in registry.plugins().values() if plugin.urls],
]
if settings.DEBUG:
    urlpatterns += static(settings.MEDIA_URL, document_root=settings.MEDIA_ROOT)
