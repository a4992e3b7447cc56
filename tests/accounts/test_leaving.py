"""Leaving (issue 23): a person downloads their own data and deletes their account. Deletion erases what is
personal; the story stays readable: every thread page, export, roll log and search result still shows their
posts, under "antiguo miembro", and none shows their name, email or avatar (kept thread pages included)."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.sessions.models import Session
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from accounts import leaving, services
from accounts.models import ApiToken, User
from campaigns import events, thread_cache
from campaigns import services as campaign_services
from campaigns.models import CampaignStatus, Membership, Recipients, Role, Voice
from characters.models import Character, CharacterStatus
from notifications.models import CampaignPreference, FeedToken, Notification, PushSubscription, QuietHours
from record.rollchain import verify
from rolls.services import RollSpec, create_post_with_rolls
from systems.dice import ScriptedDice
from tests.personas import PASSWORD, Table

pytestmark = pytest.mark.django_db

# Everything that would name her: none of it may show anywhere once she is gone.
PERSONAL = ["zoraida", "Quintanilla", "zq@example.org", "cara-de-zoraida"]


@pytest.fixture(autouse=True)
def _numbered(monkeypatch: pytest.MonkeyPatch) -> None:
    # The test's transaction never commits: events are numbered by the stranded sweep, at once.
    monkeypatch.setattr(events, "STRANDED_AFTER", timedelta(0))


def _client(user: User | None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def _free_of_her(text: str) -> None:
    for word in PERSONAL:
        assert word.lower() not in text.lower(), word


@pytest.fixture
def leaver(table: Table) -> User:
    user = User.objects.create_user(username="zoraida", password=PASSWORD, display_name="Zoraida Quintanilla")
    user.email, user.email_verified_at = "zq@example.org", timezone.now()
    user.avatar.name = "avatars/2026/12/cara-de-zoraida.webp"
    user.save()
    Membership.objects.create(campaign=table.campaign, user=user, role=Role.PLAYER)
    character = Character.objects.create(
        campaign=table.campaign, owner=user, name="Ramiro", status=CharacterStatus.APPROVED
    )
    campaign_services.create_post(
        author=user, scene=table.scene, body="RELATO-DE-RAMIRO", voice=Voice.CHARACTER, character=character
    )
    campaign_services.create_post(author=user, scene=table.scene, body="COMENTARIO-FUERA", voice=Voice.OOC)
    create_post_with_rolls(
        author=user,
        scene=table.scene,
        body="TIRADA-DE-RAMIRO",
        voice=Voice.CHARACTER,
        character=character,
        rolls=[RollSpec(kind="notation", data={"expression": "2d6"})],
        dice=ScriptedDice([4, 5]),
    )
    campaign_services.create_post(
        author=table.gm,
        scene=table.scene,
        body="SUSURRO-A-ELLA",
        voice=Voice.NARRATOR,
        recipients=Recipients.WHISPER,
        whisper_to=[user.pk],
    )
    services.issue_token(user=user, name="bot")
    PushSubscription.objects.create(user=user, endpoint="https://push.example/zq", p256dh="k", auth="a")
    FeedToken.objects.create(user=user)
    QuietHours.objects.create(user=user, start=23, end=7)
    CampaignPreference.objects.create(user=user, campaign=table.campaign, email="daily")
    campaign_services.create_post(author=table.gm, scene=table.scene, body="@zoraida ¿sigues?", voice=Voice.OOC)
    events.number_stranded_events(limit=10_000)
    return user


def _surfaces(table: Table, viewer: User | None) -> dict[str, str]:
    client = _client(viewer)
    pk = table.campaign.pk
    pages: dict[str, Any] = {
        "thread": client.get(f"/scenes/{table.scene.pk}/"),
        "campaign": client.get(f"/campaigns/{pk}/"),
        "roll log": client.get(f"/campaigns/{pk}/tiradas/"),
        "search": client.get("/buscar/", {"q": "RAMIRO"}),
        "book": client.get(f"/campaigns/{pk}/exportar/libro.html"),
        "archive": client.get(f"/campaigns/{pk}/exportar/archivo.json"),
    }
    api = APIClient()
    if viewer is not None:
        api.force_authenticate(viewer)
    pages["api search"] = api.get("/api/search/", {"q": "RAMIRO"})
    pages["api posts"] = api.get(f"/api/scenes/{table.scene.pk}/posts/")
    pages["api roll log"] = api.get(f"/api/campaigns/{pk}/roll-log/")
    if viewer is not None:
        pages["api export"] = api.get(f"/api/campaigns/{pk}/export/")
    texts = {}
    for name, response in pages.items():
        assert response.status_code == 200, (name, response.status_code)
        body = b"".join(response.streaming_content) if response.streaming else response.content
        texts[name] = body.decode()
    return texts


def test_her_own_data_downloads_as_json(table: Table, leaver: User) -> None:
    response = _client(leaver).get("/accounts/profile/data/")
    assert response.status_code == 200
    assert "attachment" in response["Content-Disposition"]
    data = json.loads(response.content)
    assert data["format"] == "tintero-account"
    assert data["profile"]["email"] == "zq@example.org"
    assert {p["body"] for p in data["posts"]} >= {"RELATO-DE-RAMIRO", "COMENTARIO-FUERA", "TIRADA-DE-RAMIRO"}
    assert [c["name"] for c in data["characters"]] == ["Ramiro"]
    assert data["notification_settings"]["quiet_hours"] == {"start": 23, "end": 7}
    assert data["notification_settings"]["campaigns"] == [{"campaign": table.campaign.pk, "email": "daily"}]
    assert data["api_tokens"][0]["name"] == "bot" and "key" not in data["api_tokens"][0]
    # Someone else's posts are not in it.
    assert "TEXTO-PARA-TODOS" not in response.content.decode()
    api = APIClient()
    api.force_authenticate(leaver)
    assert api.get("/api/me/export/").json()["posts"] == data["posts"]


@pytest.fixture
def page_renders(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The thread pages rendered during the test (a kept page is not rendered)."""
    rendered: list[str] = []
    original = thread_cache.render_to_string

    def counting(template: str, context: dict[str, object], request: object) -> str:
        rendered.append(template)
        return original(template, context, request)  # type: ignore[arg-type]

    monkeypatch.setattr(thread_cache, "render_to_string", counting)
    return rendered


def test_after_deletion_every_surface_is_readable_and_free_of_her(
    table: Table, leaver: User, page_renders: list[str]
) -> None:
    gm_client = _client(table.gm)
    before = gm_client.get(f"/scenes/{table.scene.pk}/").content.decode()
    assert "Zoraida Quintanilla" in before
    assert "Zoraida Quintanilla" in gm_client.get(f"/scenes/{table.scene.pk}/").content.decode()
    assert len(page_renders) == 1  # the second view was the page this process kept
    her_session = _client(leaver)
    assert Session.objects.count() == 2

    erased = leaving.delete_account(user=leaver)
    events.number_stranded_events(limit=10_000)
    assert (erased.campaigns_left, erased.characters_passed) == (1, 1)
    # The kept page of the GM is not stale: rendered afresh with the neutral name.
    renders = len(page_renders)
    after = gm_client.get(f"/scenes/{table.scene.pk}/").content.decode()
    assert len(page_renders) == renders + 1
    _free_of_her(after)
    assert "SUSURRO-A-ELLA" in after and "antiguo miembro" in after

    for viewer in (table.gm, table.player, table.reader, None):
        for name, text in _surfaces(table, viewer).items():
            _free_of_her(text)
            if name in ("thread", "book", "archive", "api posts", "api export"):
                assert "RELATO-DE-RAMIRO" in text, (name, viewer)
            if name == "search":  # the matches are marked inside the snippet
                assert "<mark>RAMIRO</mark>" in text and "search-result" in text, viewer
            if name in ("thread", "book", "search"):
                assert "antiguo miembro" in text, (name, viewer)
    # The archive still verifies: her rolls' links keep their commitments and no longer open.
    archive = json.loads(_surfaces(table, table.gm)["archive"])
    assert verify(archive["roll_chain"], archive["rolls"]).ok
    # Her session is over, her character is the GMs' NPC, and nothing personal remains.
    assert her_session.get("/accounts/profile/").status_code == 302
    assert not Session.objects.filter(session_key=her_session.session.session_key).exists()
    character = Character.objects.get(name="Ramiro")
    assert (character.owner_id, character.is_npc) == (None, True)
    gone = User.objects.get(pk=leaver.pk)
    assert (gone.email, gone.pending_email, gone.avatar.name or "", gone.is_active) == ("", "", "", False)
    assert not gone.has_usable_password()
    assert gone.public_name == "antiguo miembro"
    for model in (ApiToken, PushSubscription, FeedToken, QuietHours, CampaignPreference, Notification):
        assert not model.objects.filter(user=gone).exists(), model
    assert not Membership.objects.filter(user=gone).exists()
    assert not Client().login(username="zoraida", password=PASSWORD)


def test_the_page_asks_for_the_password_then_deletes_and_logs_out(table: Table, leaver: User) -> None:
    client = _client(leaver)
    page = client.get("/accounts/delete/")
    assert page.status_code == 200 and "antiguo miembro" in page.content.decode()
    wrong = client.post("/accounts/delete/", {"password": "otra"})
    assert wrong.status_code == 400 and wrong.context["form"].errors["password"]
    assert User.objects.get(pk=leaver.pk).deleted_at is None
    done = client.post("/accounts/delete/", {"password": PASSWORD})
    assert done.status_code == 302
    assert User.objects.get(pk=leaver.pk).deleted_at is not None
    assert "_auth_user_id" not in client.session


def test_a_gm_who_still_runs_a_campaign_alone_is_told_to_hand_it_over_or_end_it(table: Table) -> None:
    client = _client(table.gm)
    page = client.get("/accounts/delete/").content.decode()
    assert "La casa de la colina" in page and "Invita a otro máster" in page
    refused = client.post("/accounts/delete/", {"password": PASSWORD})
    assert refused.status_code == 400
    assert "La casa de la colina" in refused.content.decode()
    assert User.objects.get(pk=table.gm.pk).deleted_at is None
    api = APIClient()
    api.force_authenticate(table.gm)
    error = api.delete("/api/me/", {"password": PASSWORD}, format="json")
    assert error.status_code == 400 and "La casa de la colina" in error.json()["error"]["message"]
    # Another GM takes it over, or it ends: then the GM may leave.
    table.campaign.status = CampaignStatus.FINISHED
    table.campaign.save(update_fields=["status"])
    assert leaving.campaigns_only_they_run(table.gm) == []
    assert api.delete("/api/me/", {"password": PASSWORD}, format="json").status_code == 204
    assert User.objects.get(pk=table.gm.pk).deleted_at is not None


def test_a_co_gm_is_not_held_back(table: Table) -> None:
    co_gm = User.objects.create_user(username="cogm", password=PASSWORD)
    Membership.objects.create(campaign=table.campaign, user=co_gm, role=Role.GM)
    assert leaving.campaigns_only_they_run(co_gm) == []
    assert leaving.campaigns_only_they_run(table.gm) == []  # two GMs: either may go


def test_api_delete_needs_the_right_password(table: Table, leaver: User) -> None:
    api = APIClient()
    api.force_authenticate(leaver)
    wrong = api.delete("/api/me/", {"password": "mal"}, format="json")
    assert wrong.status_code == 400 and wrong.json()["error"]["fields"]["password"]
    assert api.delete("/api/me/", {}, format="json").status_code == 400
    assert User.objects.get(pk=leaver.pk).deleted_at is None
    assert api.delete("/api/me/", {"password": PASSWORD}, format="json").status_code == 204
    assert User.objects.get(pk=leaver.pk).username == f"antiguo-miembro-{leaver.pk}"
