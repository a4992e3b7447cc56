"""Event's own pages and API endpoints (the plugin's ``urls``, mounted by ``tintero/urls.py`` under ``/``,
namespace ``event``): the answer-by-answer character creation that the table may veto (§2.2–§2.5)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from rulesets.event import api, views

app_name = "event"

urlpatterns: list[URLPattern | URLResolver] = [
    path("characters/<int:pk>/event/answers/", views.event_answers, name="answers"),
    path("characters/<int:pk>/event/answers/question/", views.event_answer_question, name="answer_question"),
    path("characters/<int:pk>/event/answers/pick/", views.event_propose_pick, name="propose_pick"),
    path("event-answers/<int:pk>/vote/", views.event_vote, name="vote"),
    path("event-answers/<int:pk>/withdraw/", views.event_withdraw, name="withdraw"),
    path("event-answers/<int:pk>/defend/", views.event_defend, name="defend"),
    path("event-answers/<int:pk>/close/", views.event_close, name="close"),
    path("event-answers/<int:pk>/reformulate/", views.event_reformulate, name="reformulate"),
    # The same, through the API (same paths as before they moved here: /api/...).
    path("api/characters/<int:character_id>/event-answers/", api.EventAnswerListView.as_view(), name="api-answers"),
    path("api/event-answers/<int:answer_id>/", api.EventAnswerDetailView.as_view(), name="api-answer"),
    path("api/event-answers/<int:answer_id>/vote/", api.EventVoteView.as_view(), name="api-answer-vote"),
    path("api/event-answers/<int:answer_id>/withdraw/", api.EventWithdrawView.as_view(), name="api-answer-withdraw"),
    path("api/event-answers/<int:answer_id>/defend/", api.EventDefendView.as_view(), name="api-answer-defend"),
    path("api/event-answers/<int:answer_id>/close/", api.EventCloseView.as_view(), name="api-answer-close"),
    path(
        "api/event-answers/<int:answer_id>/reformulate/",
        api.EventReformulateView.as_view(),
        name="api-answer-reformulate",
    ),
]
