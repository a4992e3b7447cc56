from django.conf import settings
from django.contrib import admin
from django.urls import include, path, re_path

from rulesets import registry
from tintero.views import favicon, media

urlpatterns = [
    path("favicon.ico", favicon, name="favicon"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
    path("accounts/", include("accounts.urls")),
    path("api/", include("tintero.api.urls")),
    path("", include("notifications.urls")),
    path("", include("characters.urls")),
    path("", include("rolls.urls")),
    path("", include("record.urls")),
    path("", include("campaigns.urls")),
    # Each game's own pages, when its plugin has any (rulesets.registry).
    *[path("", include(plugin.urls)) for plugin in registry.plugins().values() if plugin.urls],
]
if settings.SERVE_MEDIA:
    # django.conf.urls.static.static() serves nothing when DEBUG is off, and `make run` runs with DEBUG off.
    urlpatterns.append(re_path(rf"^{settings.MEDIA_URL.lstrip('/')}(?P<path>.*)$", media, name="media"))
