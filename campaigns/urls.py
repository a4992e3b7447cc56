from django.urls import URLPattern, URLResolver, path

from campaigns.views import campaign, dashboard, home, members, posts, scenes

app_name = "campaigns"
urlpatterns: list[URLPattern | URLResolver] = [
    path("", home.home, name="home"),
    path("novedades/", home.unread, name="unread"),
    path("novedades/count/", home.unread_count, name="unread_count"),
    # The GM dashboard: every campaign the user runs; each panel also alone, as an htmx fragment
    path("dashboard/", dashboard.dashboard, name="dashboard"),
    path("dashboard/<slug:panel>/", dashboard.dashboard_panel, name="dashboard_panel"),
    # Campaigns
    path("campaigns/new/", campaign.campaign_create, name="create"),
    path("campaigns/<int:pk>/", campaign.campaign_detail, name="detail"),
    path("campaigns/<int:pk>/edit/", campaign.campaign_edit, name="edit"),
    path("campaigns/<int:pk>/join/", campaign.campaign_join, name="join"),
    path("campaigns/<int:pk>/leave/", campaign.campaign_leave, name="leave"),
    path(
        "campaigns/<int:pk>/requests/<int:request_id>/withdraw/",
        campaign.join_request_withdraw,
        name="request_withdraw",
    ),
    # The table (GMs)
    path(
        "campaigns/<int:pk>/requests/<int:request_id>/decide/",
        members.join_request_decide,
        name="request_decide",
    ),
    path("campaigns/<int:pk>/invite/", members.invite, name="invite"),
    path(
        "campaigns/<int:pk>/invitations/<int:invitation_id>/cancel/",
        members.invitation_cancel,
        name="invitation_cancel",
    ),
    path("campaigns/<int:pk>/members/<int:user_id>/remove/", members.member_remove, name="member_remove"),
    path("campaigns/<int:pk>/members/<int:user_id>/role/", members.member_role, name="member_role"),
    path("invitations/<int:invitation_id>/respond/", members.invitation_respond, name="invitation_respond"),
    # Scenes
    path("campaigns/<int:pk>/scenes/new/", scenes.scene_create, name="scene_create"),
    path("scenes/<int:pk>/", scenes.scene_detail, name="scene"),
    path("scenes/<int:pk>/unread/", scenes.scene_first_unread, name="scene_unread"),
    path("scenes/<int:pk>/roll-builder/", scenes.roll_builder, name="roll_builder"),
    path("scenes/<int:pk>/edit/", scenes.scene_edit, name="scene_edit"),
    path("scenes/<int:pk>/status/", scenes.scene_status, name="scene_status"),
    path("scenes/<int:pk>/move/", scenes.scene_move, name="scene_move"),
    path("scenes/<int:pk>/aspects/", scenes.aspect_add, name="aspect_add"),
    path("scenes/<int:pk>/aspects/<int:aspect_id>/edit/", scenes.aspect_edit, name="aspect_edit"),
    path("scenes/<int:pk>/aspects/<int:aspect_id>/delete/", scenes.aspect_delete, name="aspect_delete"),
    path(
        "scenes/<int:pk>/aspects/<int:aspect_id>/invocations/",
        scenes.aspect_invocations,
        name="aspect_invocations",
    ),
    # Posts
    path("scenes/<int:pk>/posts/", posts.post_create, name="post_create"),
    path("posts/<int:pk>/", posts.post_permalink, name="post"),
    path("posts/<int:pk>/fragment/", posts.post_fragment, name="post_fragment"),
    path("posts/<int:pk>/edit/", posts.post_edit, name="post_edit"),
    path("posts/<int:pk>/delete/", posts.post_delete, name="post_delete"),
    path("posts/<int:pk>/revisions/", posts.post_revisions, name="post_revisions"),
    path("posts/<int:pk>/quote/", posts.post_quote, name="post_quote"),
    path("scenes/<int:pk>/preview/", posts.post_preview, name="post_preview"),
]
