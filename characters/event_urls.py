"""Event's creation flow pages. Included by ``characters/urls.py`` (namespace ``characters``) with
``path("", include("characters.event_urls"))``: no app_name here, the names join the characters namespace."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from characters import event_views as views

urlpatterns: list[URLPattern | URLResolver] = [
    path("characters/<int:pk>/event/answers/", views.event_answers, name="event_answers"),
    path("characters/<int:pk>/event/answers/question/", views.event_answer_question, name="event_answer_question"),
    path("characters/<int:pk>/event/answers/pick/", views.event_propose_pick, name="event_propose_pick"),
    path("event-answers/<int:pk>/vote/", views.event_vote, name="event_vote"),
    path("event-answers/<int:pk>/withdraw/", views.event_withdraw, name="event_withdraw"),
    path("event-answers/<int:pk>/defend/", views.event_defend, name="event_defend"),
    path("event-answers/<int:pk>/close/", views.event_close, name="event_close"),
    path("event-answers/<int:pk>/reformulate/", views.event_reformulate, name="event_reformulate"),
]
