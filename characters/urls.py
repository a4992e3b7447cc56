from django.urls import URLPattern, URLResolver, path

from characters import views

app_name = "characters"
urlpatterns: list[URLPattern | URLResolver] = [
    # A campaign's characters, pools and ledger
    path("campaigns/<int:pk>/characters/", views.character_list, name="list"),
    path("campaigns/<int:pk>/characters/new/", views.character_create, name="create"),
    path("campaigns/<int:pk>/pools/", views.campaign_pools, name="pools"),
    path("campaigns/<int:pk>/pool-operations/<str:op>/", views.campaign_operate, name="operate_campaign"),
    path("campaigns/<int:pk>/ledger/", views.campaign_ledger, name="campaign_ledger"),
    # One character
    path("characters/<int:pk>/", views.character_detail, name="detail"),
    path("characters/<int:pk>/edit/", views.character_edit, name="edit"),
    path("characters/<int:pk>/portrait/", views.character_portrait, name="portrait"),
    path("characters/<int:pk>/submit/", views.character_submit, name="submit"),
    path("characters/<int:pk>/approve/", views.character_approve, name="approve"),
    path("characters/<int:pk>/return/", views.character_return, name="return"),
    path("characters/<int:pk>/retire/", views.character_retire, name="retire"),
    path("characters/<int:pk>/sheet/", views.character_sheet, name="sheet"),
    path("characters/<int:pk>/operations/<str:op>/", views.character_operate, name="operate"),
    path("characters/<int:pk>/ledger/", views.character_ledger, name="ledger"),
]
