"""Rolls and flows in the thread (mounted at the site root)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from rolls import views

app_name = "rolls"
urlpatterns: list[URLPattern | URLResolver] = [
    path("rolls/<int:pk>/", views.roll_fragment, name="roll"),
    path("rolls/<int:pk>/reveal/", views.roll_reveal, name="reveal"),
    path("scenes/<int:pk>/flows/", views.scene_flows_fragment, name="scene_flows"),
    path("scenes/<int:pk>/flows/<slug:kind>/start/", views.flow_start, name="flow_start"),
    path("flows/<int:pk>/", views.flow_fragment, name="flow"),
    path("flows/<int:pk>/steps/<slug:step>/", views.flow_step, name="flow_step"),
]
