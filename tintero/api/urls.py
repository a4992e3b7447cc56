"""The REST API (mounted at /api/): forum core, auth, schema and offline docs."""

from __future__ import annotations

from csp.decorators import csp_update
from django.urls import URLPattern, URLResolver, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from accounts.apis import (
    EmailConfirmView,
    MeEmailView,
    MeExportView,
    MeView,
    PasswordResetView,
    TokenDetailView,
    TokenListView,
    TokenView,
)
from campaigns.dashboard_api import DashboardView
from campaigns.live_api import CampaignEventsView
from characters import apis as characters
from notifications import api as notifications
from record import apis as record
from rolls import apis as rolls
from tintero.api.views import campaigns, posts, scenes
from tintero.api.views.docs import OfflineRedocView

_docs_csp = csp_update({"worker-src": ["blob:"]})

app_name = "api"
urlpatterns: list[URLPattern | URLResolver] = [
    # Schema and interactive docs (static files from the sidecar: nothing loads from the internet).
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves Swagger UI's start-up script as a file: the CSP forbids inline scripts. ReDoc
    # starts a worker from a blob, which its pages alone allow.
    path("docs/", _docs_csp(SpectacularSwaggerSplitView.as_view(url_name="api:schema")), name="docs"),
    path("redoc/", _docs_csp(OfflineRedocView.as_view(url_name="api:schema")), name="redoc"),
    # Accounts
    path("auth/token/", TokenView.as_view(), name="token"),
    path("auth/tokens/", TokenListView.as_view(), name="tokens"),
    path("auth/tokens/<int:token_id>/", TokenDetailView.as_view(), name="token-detail"),
    path("me/", MeView.as_view(), name="me"),
    path("me/email/", MeEmailView.as_view(), name="me-email"),
    path("me/export/", MeExportView.as_view(), name="me-export"),
    path("auth/email/confirm/", EmailConfirmView.as_view(), name="email-confirm"),
    path("auth/password-reset/", PasswordResetView.as_view(), name="password-reset"),
    # Campaigns and membership
    path("campaigns/", campaigns.CampaignListView.as_view(), name="campaigns"),
    path("campaigns/<int:campaign_id>/", campaigns.CampaignDetailView.as_view(), name="campaign"),
    path("campaigns/<int:campaign_id>/members/", campaigns.MemberListView.as_view(), name="members"),
    path("campaigns/<int:campaign_id>/members/<int:user_id>/", campaigns.MemberDetailView.as_view(), name="member"),
    path("campaigns/<int:campaign_id>/leave/", campaigns.LeaveView.as_view(), name="leave"),
    path(
        "campaigns/<int:campaign_id>/join-requests/",
        campaigns.CampaignJoinRequestsView.as_view(),
        name="campaign-join-requests",
    ),
    path(
        "campaigns/<int:campaign_id>/invitations/",
        campaigns.CampaignInvitationsView.as_view(),
        name="campaign-invitations",
    ),
    path("join-requests/<int:join_request_id>/", campaigns.JoinRequestDetailView.as_view(), name="join-request"),
    path(
        "join-requests/<int:join_request_id>/accept/",
        campaigns.JoinRequestAcceptView.as_view(),
        name="join-request-accept",
    ),
    path(
        "join-requests/<int:join_request_id>/reject/",
        campaigns.JoinRequestRejectView.as_view(),
        name="join-request-reject",
    ),
    path(
        "join-requests/<int:join_request_id>/withdraw/",
        campaigns.JoinRequestWithdrawView.as_view(),
        name="join-request-withdraw",
    ),
    path("invitations/", campaigns.MyInvitationsView.as_view(), name="invitations"),
    path("invitations/<int:invitation_id>/", campaigns.InvitationDetailView.as_view(), name="invitation"),
    path(
        "invitations/<int:invitation_id>/accept/",
        campaigns.InvitationAcceptView.as_view(),
        name="invitation-accept",
    ),
    path(
        "invitations/<int:invitation_id>/decline/",
        campaigns.InvitationDeclineView.as_view(),
        name="invitation-decline",
    ),
    path(
        "invitations/<int:invitation_id>/cancel/",
        campaigns.InvitationCancelView.as_view(),
        name="invitation-cancel",
    ),
    # Scenes and aspects
    path("campaigns/<int:campaign_id>/scenes/", scenes.SceneListView.as_view(), name="scenes"),
    path("campaigns/<int:campaign_id>/scenes/reorder/", scenes.SceneReorderView.as_view(), name="scenes-reorder"),
    path("scenes/<int:scene_id>/", scenes.SceneDetailView.as_view(), name="scene"),
    path("scenes/<int:scene_id>/close/", scenes.SceneCloseView.as_view(), name="scene-close"),
    path("scenes/<int:scene_id>/reopen/", scenes.SceneReopenView.as_view(), name="scene-reopen"),
    path("scenes/<int:scene_id>/read/", scenes.SceneReadView.as_view(), name="scene-read"),
    path("scenes/<int:scene_id>/aspects/", scenes.AspectListView.as_view(), name="aspects"),
    path("scenes/<int:scene_id>/aspects/<int:aspect_id>/", scenes.AspectDetailView.as_view(), name="aspect"),
    # Posts
    path("scenes/<int:scene_id>/posts/", posts.ScenePostsView.as_view(), name="posts"),
    path("posts/<int:post_id>/", posts.PostDetailView.as_view(), name="post"),
    path("posts/<int:post_id>/revisions/", posts.PostRevisionsView.as_view(), name="post-revisions"),
    path("unread/", posts.UnreadView.as_view(), name="unread"),
    # The GM dashboard: every campaign the viewer runs, with its panels
    path("dashboard/", DashboardView.as_view(), name="dashboard"),
    # Live updates: what a socket missed (the socket itself is /ws/campaigns/<id>/)
    path("campaigns/<int:campaign_id>/events/", CampaignEventsView.as_view(), name="campaign-events"),
    # Notifications: inbox, mail choices, the private feed's URL, nudges
    path("notifications/", notifications.NotificationListView.as_view(), name="notifications"),
    path("notifications/count/", notifications.UnreadCountView.as_view(), name="notifications-count"),
    path("notifications/read/", notifications.MarkReadView.as_view(), name="notifications-read"),
    path("notifications/preferences/", notifications.PreferencesView.as_view(), name="notification-preferences"),
    path("notifications/feed/", notifications.FeedTokenView.as_view(), name="notification-feed"),
    path("notifications/quiet-hours/", notifications.QuietHoursView.as_view(), name="notification-quiet-hours"),
    path("notifications/push/", notifications.PushSubscriptionsView.as_view(), name="notification-push"),
    path("scenes/<int:scene_id>/nudge/", notifications.NudgeView.as_view(), name="scene-nudge"),
    path("campaigns/<int:campaign_id>/reminder/", notifications.ReminderView.as_view(), name="campaign-reminder"),
    path("scenes/<int:scene_id>/roll-requests/", notifications.SceneRollRequestsView.as_view(), name="roll-requests"),
    path(
        "roll-requests/<int:request_id>/cancel/",
        notifications.RollRequestCancelView.as_view(),
        name="roll-request-cancel",
    ),
    # Characters, operations, ledgers, pools
    path("campaigns/<int:campaign_id>/characters/", characters.CampaignCharactersView.as_view(), name="characters"),
    path("characters/<int:character_id>/", characters.CharacterDetailView.as_view(), name="character"),
    path("characters/<int:character_id>/submit/", characters.CharacterSubmitView.as_view(), name="character-submit"),
    path("characters/<int:character_id>/approve/", characters.CharacterApproveView.as_view(), name="character-approve"),
    path("characters/<int:character_id>/return/", characters.CharacterReturnView.as_view(), name="character-return"),
    path("characters/<int:character_id>/retire/", characters.CharacterRetireView.as_view(), name="character-retire"),
    path(
        "characters/<int:character_id>/portrait/",
        characters.CharacterPortraitView.as_view(),
        name="character-portrait",
    ),
    path(
        "characters/<int:character_id>/operations/<str:op>/",
        characters.CharacterOperationView.as_view(),
        name="character-operation",
    ),
    path("characters/<int:character_id>/ledger/", characters.CharacterLedgerView.as_view(), name="character-ledger"),
    path(
        "campaigns/<int:campaign_id>/operations/<str:op>/",
        characters.CampaignOperationView.as_view(),
        name="campaign-operation",
    ),
    path("campaigns/<int:campaign_id>/ledger/", characters.CampaignLedgerView.as_view(), name="campaign-ledger"),
    path("campaigns/<int:campaign_id>/pools/", characters.CampaignPoolsView.as_view(), name="campaign-pools"),
    # The record: search (export, import, archive and the roll log below)
    path("search/", record.SearchView.as_view(), name="search"),
    path("campaigns/<int:campaign_id>/roll-log/", record.RollLogView.as_view(), name="roll-log"),
    path("campaigns/<int:campaign_id>/export/", record.ExportView.as_view(), name="campaign-export"),
    path("archive-schema/", record.ArchiveSchemaView.as_view(), name="archive-schema"),
    path("campaigns/import/", record.ImportView.as_view(), name="campaign-import"),
    path("campaigns/<int:campaign_id>/claim-imported/", record.ClaimImportedView.as_view(), name="claim-imported"),
    path("campaigns/<int:campaign_id>/archive/", record.ArchiveView.as_view(), name="campaign-archive"),
    path("campaigns/<int:campaign_id>/reopen/", record.ReopenView.as_view(), name="campaign-reopen"),
    # Rulesets (discovery)
    path("rulesets/", characters.RulesetListView.as_view(), name="rulesets"),
    path("rulesets/<str:key>/", characters.RulesetDetailView.as_view(), name="ruleset"),
    # Rolls and flows
    path("posts/<int:post_id>/rolls/", rolls.PostRollsView.as_view(), name="post-rolls"),
    path("rolls/<int:roll_id>/", rolls.RollDetailView.as_view(), name="roll"),
    path("rolls/<int:roll_id>/reveal/", rolls.RollRevealView.as_view(), name="roll-reveal"),
    path("scenes/<int:scene_id>/flows/", rolls.SceneFlowsView.as_view(), name="scene-flows"),
    path("flows/<int:flow_id>/", rolls.FlowDetailView.as_view(), name="flow"),
    path("flows/<int:flow_id>/steps/", rolls.FlowStepsView.as_view(), name="flow-steps"),
]
