"""Imports are a stranger's writing (issue 21): what others wrote shows under the archive's handles, as text
("importado de un archivo"), never under a local account by its handle, not in pages, the API or search;
until that account itself claims it. No invitation goes out unless the importing GM chooses it, never as GM."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

from campaigns.models import Campaign, Invitation, Post, Role
from characters.models import Character
from record.selectors import SearchCriteria, search_posts
from record.services import ImportRefused, import_campaign
from tests.personas import Table
from tests.record.hostile_archives import exported

pytestmark = pytest.mark.django_db


@pytest.fixture
def imported(table: Table) -> Campaign:
    """The table's public campaign, exported by its GM and imported by an outsider (Ajena)."""
    report = import_campaign(actor=table.outsider, raw=json.dumps(exported(table)))
    return report.campaign


def _post_by(campaign: Campaign, body: str) -> Post:
    return Post.objects.get(scene__campaign=campaign, body_source=body)


def test_writing_by_a_local_handle_is_shown_as_the_archives_text(table: Table, imported: Campaign) -> None:
    post = _post_by(imported, "TEXTO-PARA-TODOS")  # written by @player, "Ana" here
    assert post.imported_author == "player" and post.author == table.outsider and post.local_author is None
    client = Client()
    client.force_login(table.reader)
    response = client.get(post.scene.get_absolute_url())
    assert response.status_code == 200
    page = response.content.decode()
    assert "player (importado de un archivo)" in page and "por Ana" not in page
    character = Character.objects.get(campaign=imported, name="Lucía")
    assert character.owner == table.outsider and character.imported_owner == "player"


def test_the_api_names_no_local_account_for_imported_writing(table: Table, imported: Campaign) -> None:
    post = _post_by(imported, "TEXTO-PARA-TODOS")
    api = APIClient()
    api.force_authenticate(table.reader)
    body = api.get(f"/api/posts/{post.pk}/").json()
    assert body["author"] is None and body["imported_author"] == "player"


def test_search_does_not_put_imported_writing_under_a_local_name(table: Table, imported: Campaign) -> None:
    for handle in ("player", "outsider"):  # the named account, and the importer who holds the rows
        found = search_posts(table.reader, SearchCriteria(text="TEXTO", campaign_id=imported.pk, author=handle))
        assert found.total == 0, handle
    assert search_posts(table.reader, SearchCriteria(text="TEXTO-PARA-TODOS", campaign_id=imported.pk)).total == 1


def test_the_named_account_claims_its_writing_and_only_its_own(table: Table, imported: Campaign) -> None:
    api = APIClient()
    api.force_authenticate(table.reader)  # another account claims nothing of Ana's
    assert api.post(f"/api/campaigns/{imported.pk}/claim-imported/").json() == {"posts": 0, "characters": 0}
    assert _post_by(imported, "TEXTO-PARA-TODOS").imported_author == "player"
    api.force_authenticate(table.player)
    claimed = api.post(f"/api/campaigns/{imported.pk}/claim-imported/")
    assert claimed.status_code == 200 and claimed.json()["posts"] >= 1
    post = _post_by(imported, "TEXTO-PARA-TODOS")
    assert post.author == table.player and post.imported_author == ""
    found = search_posts(table.reader, SearchCriteria(text="TEXTO", campaign_id=imported.pk, author="player"))
    assert found.total == 1
    # Ana is not a player of the imported campaign: her character stays with the importing GM.
    assert Character.objects.get(campaign=imported, name="Lucía").owner == table.outsider


def test_the_claim_page_from_an_imported_post(table: Table, imported: Campaign) -> None:
    post = _post_by(imported, "TEXTO-PARA-TODOS")
    client = Client()
    client.force_login(table.player)
    page = client.get(f"/mensajes/{post.pk}/reclamar/")
    assert page.status_code == 200 and "@player" in page.content.decode()
    assert client.post(f"/mensajes/{post.pk}/reclamar/").status_code == 302
    post.refresh_from_db()
    assert post.author == table.player and not post.imported_author


def test_no_invitation_unless_chosen_and_never_as_gm(table: Table) -> None:
    raw = json.dumps(exported(table))
    for _ in range(3):
        import_campaign(actor=table.outsider, raw=raw)
    assert not Invitation.objects.exclude(campaign=table.campaign).exists()
    report = import_campaign(actor=table.outsider, raw=raw, invite=["gm", "reader"])
    invitations = {i.user.username: i.role for i in Invitation.objects.filter(campaign=report.campaign)}
    assert invitations == {"gm": Role.PLAYER, "reader": Role.READER}
    with pytest.raises(ImportRefused) as refused:
        import_campaign(actor=table.outsider, raw=raw, invite=["outsider2"])
    assert "outsider2" in refused.value.problems[0]


def test_the_import_page_and_api_invite_whom_the_gm_chooses(table: Table) -> None:
    raw = json.dumps(exported(table)).encode()
    client = Client()
    client.force_login(table.outsider)
    page = client.post("/partidas/importar/", {"archive": SimpleUploadedFile("a.json", raw), "invite": "@player, gm"})
    assert page.status_code == 200
    api = APIClient()
    api.force_authenticate(table.outsider)
    created: Any = api.post(
        "/api/campaigns/import/", {"archive": SimpleUploadedFile("a.json", raw), "invite": ["reader"]}
    )
    assert created.status_code == 201 and created.json()["invited"] == ["reader"]
    roles = sorted(Invitation.objects.exclude(campaign=table.campaign).values_list("user__username", "role"))
    assert roles == [("gm", Role.PLAYER), ("player", Role.PLAYER), ("reader", Role.READER)]


def test_an_imported_procedure_waits_for_no_local_account_by_id(table: Table) -> None:
    from rolls import runner
    from rolls.models import Flow
    from rulesets.presagios.tests.fixtures import pc_sheet

    Character.objects.filter(campaign=table.campaign).update(sheet=pc_sheet())  # setup: sheets the game reads
    runner.start_procedure(
        actor=table.gm,
        scene=table.scene,
        kind="challenge",
        params={"character_id": table.character.pk, "characteristic": "c1", "difficulty": 3},
    )
    archive = exported(table)
    steps = archive["procedures"][0]["waiting_for"]["steps"]
    steps[0]["users"] = [table.reader.pk]  # an id of the exporting site: here it is the reader's
    report = import_campaign(actor=table.outsider, raw=json.dumps(archive))
    waiting = Flow.objects.get(campaign=report.campaign).waiting_for
    assert waiting["steps"] and all(step["users"] == [] for step in waiting["steps"])
    assert waiting["steps"][0]["label_es"] == steps[0]["label_es"]
