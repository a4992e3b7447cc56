from django.urls import URLPattern, URLResolver, path
from django.views.decorators.http import conditional_page

from notifications import feeds, views

app_name = "notifications"
urlpatterns: list[URLPattern | URLResolver] = [
    path("avisos/", views.inbox, name="inbox"),
    path("avisos/contador/", views.unread_badge, name="badge"),
    path("avisos/leidos/", views.mark_all_read, name="mark_all_read"),
    path("avisos/<int:pk>/abrir/", views.open_notification, name="open"),
    path("avisos/partidas/<int:campaign_id>/correo/", views.set_email, name="set_email"),
    path("avisos/partidas/<int:campaign_id>/recordatorio/", views.set_reminder, name="set_reminder"),
    path("avisos/silencio/", views.set_quiet_hours, name="set_quiet_hours"),
    path("avisos/navegador/", views.push_subscribe, name="push_subscribe"),
    path("avisos/canal/renovar/", views.rotate_feed, name="rotate_feed"),
    path("avisos/baja/<str:token>/", views.unsubscribe, name="unsubscribe"),
    # Feeds answer conditional GETs (ETag, Last-Modified: 304): readers poll them.
    path("avisos/canal/<str:token>.atom", conditional_page(feeds.PrivateFeed()), name="private_feed"),
    path("campaigns/<int:pk>/feed.atom", conditional_page(feeds.PublicCampaignFeed()), name="campaign_feed"),
    path("scenes/<int:scene_id>/nudge/", views.nudge, name="nudge"),
    path("scenes/<int:scene_id>/mentions/", views.mention_names, name="mention_names"),
    path("scenes/<int:scene_id>/roll-requests/", views.roll_request_create, name="roll_request_create"),
    path("roll-requests/<int:pk>/cancel/", views.roll_request_cancel, name="roll_request_cancel"),
]
