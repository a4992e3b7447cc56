"""The characters' pages: list, creation, the sheet page, edits, approval, portraits, in-place operations
(htmx and plain POST), ledgers, and constant query counts."""

from __future__ import annotations

import io
import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from PIL import Image

from characters import services
from characters.models import Character, CharacterStatus, LedgerEntry
from tests.characters.views_fixtures import PRIVATE_MARKERS, PUBLIC_MARKER, SheetTable, client_for, make_user

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def _text(response) -> str:  # type: ignore[no-untyped-def]
    return response.content.decode()


# --- The list and the campaign page ---------------------------------------------------------------


def test_campaign_page_lists_characters_with_badges_and_a_new_character_link() -> None:
    t = SheetTable()
    draft = t.character(t.player, "Borrador de Alba", approve=False)
    page = _text(client_for(t.player).get(t.campaign.get_absolute_url()))
    assert "Alba" in page and "Bruno" in page and "El Conde" in page
    assert "Borrador de Alba" in page and "Borrador" in page  # the owner sees their draft, with its badge
    assert reverse("characters:create", args=[t.campaign.pk]) in page
    assert reverse("characters:detail", args=[draft.pk]) in page
    assert 'id="pools"' in page
    other = _text(client_for(t.player2).get(t.campaign.get_absolute_url()))
    assert "Borrador de Alba" not in other
    reader = _text(client_for(t.reader).get(t.campaign.get_absolute_url()))
    assert reverse("characters:create", args=[t.campaign.pk]) not in reader
    gm = _text(client_for(t.gm).get(reverse("characters:list", args=[t.campaign.pk])))
    assert "Borrador de Alba" in gm and "PNJ" in gm
    assert reverse("characters:edit", args=[t.npc.pk]) in gm  # GMs edit NPCs from the list


def test_characters_list_queries_do_not_grow() -> None:
    t = SheetTable()
    client = client_for(t.player)
    url = reverse("characters:list", args=[t.campaign.pk])

    def count() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url).status_code == 200
        return len(queries)

    few = count()  # 3 characters
    Character.objects.bulk_create(
        Character(campaign=t.campaign, owner=t.player2, name=f"Extra {i}", status=CharacterStatus.APPROVED)
        for i in range(27)
    )
    assert count() == few  # 30 characters
    campaign_page = t.campaign.get_absolute_url()
    with CaptureQueriesContext(connection) as before:
        client.get(campaign_page)
    Character.objects.bulk_create(
        Character(campaign=t.campaign, owner=t.player, name=f"Más {i}", status=CharacterStatus.APPROVED)
        for i in range(10)
    )
    with CaptureQueriesContext(connection) as after:
        client.get(campaign_page)
    assert len(before) == len(after)


# --- Creating and editing -------------------------------------------------------------------------


def test_player_creates_a_draft_through_the_form() -> None:
    t = SheetTable()
    url = reverse("characters:create", args=[t.campaign.pk])
    assert "Nuevo personaje" in _text(client_for(t.player).get(url))
    response = client_for(t.player).post(
        url, {"name": "Carla", "description": "Alta", "notes": "secreto", "is_npc": "on", "sheet-notes": "x"}
    )
    character = Character.objects.get(name="Carla")
    assert response.status_code == 302 and response["Location"] == reverse("characters:detail", args=[character.pk])
    assert character.owner == t.player and not character.is_npc  # players never create NPCs
    assert character.status == CharacterStatus.DRAFT and character.notes == "secreto"


def test_gm_creates_an_npc_and_a_pc_for_a_player() -> None:
    t = SheetTable()
    url = reverse("characters:create", args=[t.campaign.pk])
    page = _text(client_for(t.gm).get(url))
    assert 'name="is_npc"' in page and 'name="owner"' in page
    client_for(t.gm).post(url, {"name": "Guardia", "is_npc": "on"})
    npc = Character.objects.get(name="Guardia")
    assert npc.is_npc and npc.owner is None
    client_for(t.gm).post(url, {"name": "Para Bruno", "owner": t.player2.pk})
    assert Character.objects.get(name="Para Bruno").owner == t.player2


@pytest.mark.parametrize("role", ["reader", "outsider"])
def test_non_players_cannot_create(role: str) -> None:
    t = SheetTable()
    url = reverse("characters:create", args=[t.campaign.pk])
    assert client_for(t.user(role)).post(url, {"name": "Intrusa"}).status_code == 403
    assert not Character.objects.filter(name="Intrusa").exists()
    anonymous = client_for(None).get(url)
    assert anonymous.status_code == 302 and "/accounts/login/" in anonymous["Location"]


def test_invalid_creation_shows_errors_and_creates_nothing() -> None:
    t = SheetTable()
    before = Character.objects.count()
    response = client_for(t.player).post(reverse("characters:create", args=[t.campaign.pk]), {"name": ""})
    assert response.status_code == 400
    assert "requerido" in _text(response) or "obligatorio" in _text(response)
    assert Character.objects.count() == before


def test_edit_texts_and_sheet_while_draft_then_only_texts() -> None:
    t = SheetTable()
    draft = t.character(t.player, "Dana", approve=False)
    url = reverse("characters:edit", args=[draft.pk])
    response = client_for(t.player).post(url, {"name": "Dana B.", "history": "Nació", "notes": "n"})
    assert response.status_code == 302
    draft.refresh_from_db()
    assert draft.name == "Dana B." and draft.history == "Nació"
    approved = t.pc
    page = _text(client_for(t.player).get(reverse("characters:edit", args=[approved.pk])))
    assert "cambia con las operaciones" in page  # no sheet form after approval
    client_for(t.player).post(reverse("characters:edit", args=[approved.pk]), {"name": "Alba", "notes": "nueva"})
    assert t.reload(approved).notes == "nueva"
    assert client_for(t.player2).get(url).status_code == 404  # someone else's draft does not exist for them
    assert client_for(t.player2).post(reverse("characters:edit", args=[approved.pk]), {"name": "X"}).status_code == 403
    assert t.reload(approved).name == "Alba"


# --- The character page ---------------------------------------------------------------------------


def test_character_page_shows_private_parts_to_the_owner_only() -> None:
    t = SheetTable()
    url = reverse("characters:detail", args=[t.pc.pk])
    owner = _text(client_for(t.player).get(url))
    assert PUBLIC_MARKER in owner and all(marker in owner for marker in PRIVATE_MARKERS)
    assert 'id="sheet"' in owner and reverse("characters:ledger", args=[t.pc.pk]) in owner
    other = _text(client_for(t.player2).get(url))
    assert PUBLIC_MARKER in other and not any(marker in other for marker in PRIVATE_MARKERS)
    assert 'id="sheet"' not in other


def test_status_flow_submit_approve_return_retire() -> None:
    t = SheetTable()
    draft = t.character(t.player, "Eva", approve=False)
    player, gm = client_for(t.player), client_for(t.gm)
    assert player.post(reverse("characters:approve", args=[draft.pk])).status_code == 403
    player.post(reverse("characters:submit", args=[draft.pk]))
    assert t.reload(draft).status == CharacterStatus.PENDING
    gm.post(reverse("characters:return", args=[draft.pk]))
    assert t.reload(draft).status == CharacterStatus.DRAFT
    player.post(reverse("characters:submit", args=[draft.pk]))
    response = gm.post(reverse("characters:approve", args=[draft.pk]), follow=True)
    assert t.reload(draft).status == CharacterStatus.APPROVED
    assert "aprobado" in _text(response)
    again = gm.post(reverse("characters:approve", args=[draft.pk]), follow=True)
    assert "ya está aprobado" in _text(again)  # a refusal is a message, nothing changes
    player.post(reverse("characters:retire", args=[draft.pk]))
    assert t.reload(draft).status == CharacterStatus.RETIRED


def _png(size: tuple[int, int] = (2000, 1200)) -> io.BytesIO:
    data = io.BytesIO()
    Image.new("RGB", size, (200, 30, 30)).save(data, format="PNG")
    data.seek(0)
    data.name = "retrato.png"
    return data


def test_portrait_upload_is_reencoded_and_bad_files_refused(tmp_path, settings) -> None:  # type: ignore[no-untyped-def]
    settings.MEDIA_ROOT = tmp_path
    t = SheetTable()
    url = reverse("characters:portrait", args=[t.pc.pk])
    response = client_for(t.player).post(url, {"portrait": _png()})
    assert response.status_code == 302
    character = t.reload(t.pc)
    assert character.portrait.name.endswith(".webp")
    with Image.open(character.portrait.path) as image:
        assert max(image.size) == 1024
    bad = io.BytesIO(b"not an image at all")
    bad.name = "x.png"
    response = client_for(t.player).post(url, {"portrait": bad}, follow=True)
    assert t.reload(t.pc).portrait.name == character.portrait.name
    assert "imagen" in _text(response).lower()
    assert client_for(t.player2).post(url, {"portrait": _png((10, 10))}).status_code == 403


# --- Operations -----------------------------------------------------------------------------------


def _fae(**kwargs) -> SheetTable:  # type: ignore[no-untyped-def]
    return SheetTable(ruleset="fate-accelerated", **kwargs)


def test_owner_spends_a_fate_point_in_place() -> None:
    t = _fae()
    url = reverse("characters:operate", args=[t.pc.pk, "spend_fate_point"])
    response = client_for(t.player).post(url, {"amount": "2", "reason": "invoco Espadachín"}, **HTMX)
    assert response.status_code == 200
    assert "<html" not in _text(response)  # a fragment
    assert t.reload(t.pc).sheet["fate_points"] == 1
    entry = LedgerEntry.objects.get()
    assert entry.operation == "spend_fate_point" and entry.actor == t.player and entry.reason == "invoco Espadachín"
    assert entry.changes == {f"character.{t.pc.pk}.fate_points": [3, 1]}
    assert response["HX-Trigger"] == "tintero:pools-changed"


def test_params_json_field_and_flat_fields() -> None:
    t = _fae()
    url = reverse("characters:operate", args=[t.pc.pk, "spend_fate_point"])
    client_for(t.player).post(url, {"params": json.dumps({"amount": 2})}, **HTMX)
    assert t.reload(t.pc).sheet["fate_points"] == 1


def test_rules_refusal_shows_in_place_and_changes_nothing() -> None:
    t = _fae()
    url = reverse("characters:operate", args=[t.pc.pk, "spend_fate_point"])
    response = client_for(t.player).post(url, {"amount": "5"}, **HTMX)
    assert response.status_code == 200
    assert 'class="operation-error"' in _text(response)
    assert t.reload(t.pc).sheet["fate_points"] == 3
    assert not LedgerEntry.objects.exists()


def test_refusal_in_english() -> None:
    t = _fae()
    url = reverse("characters:operate", args=[t.pc.pk, "spend_fate_point"])
    client = client_for(t.player)
    response = client.post(url, {"amount": "5"}, HTTP_ACCEPT_LANGUAGE="en", **HTMX)
    es = client_for(t.player).post(url, {"amount": "5"}, HTTP_ACCEPT_LANGUAGE="es", **HTMX)
    assert _text(response) != _text(es)
    assert "fate point" in _text(response).lower()


@pytest.mark.parametrize(
    ("data", "message"),
    [({"amount": "muchos"}, "amount"), ({"params": "{roto"}, "JSON"), ({"params": "[1]"}, "objeto")],
)
def test_malformed_params_are_a_clear_error(data: dict, message: str) -> None:
    t = _fae()
    url = reverse("characters:operate", args=[t.pc.pk, "spend_fate_point"])
    response = client_for(t.player).post(url, data, **HTMX)
    assert response.status_code == 200 and message in _text(response)
    assert t.reload(t.pc).sheet["fate_points"] == 3 and not LedgerEntry.objects.exists()


def test_unknown_operation_is_refused_in_place() -> None:
    t = _fae()
    response = client_for(t.gm).post(reverse("characters:operate", args=[t.pc.pk, "fly"]), **HTMX)
    assert "operation-error" in _text(response) and not LedgerEntry.objects.exists()


def test_operation_permissions() -> None:
    t = _fae()
    gain = reverse("characters:operate", args=[t.pc.pk, "gain_fate_point"])
    assert client_for(t.player).post(gain, **HTMX).status_code == 403  # a GM's award
    spend_other = reverse("characters:operate", args=[t.pc2.pk, "spend_fate_point"])
    assert client_for(t.player).post(spend_other, **HTMX).status_code == 403  # someone else's sheet
    assert client_for(t.reader).post(spend_other, **HTMX).status_code == 403
    assert not LedgerEntry.objects.exists()
    assert client_for(t.gm).post(gain, **HTMX).status_code == 200
    assert t.reload(t.pc).sheet["fate_points"] == 4


def test_unapproved_character_cannot_be_operated() -> None:
    t = _fae()
    draft = t.character(t.player, "Nuevo", approve=False)
    response = client_for(t.gm).post(reverse("characters:operate", args=[draft.pk, "gain_fate_point"]), **HTMX)
    assert "no está aprobado" in _text(response) and not LedgerEntry.objects.exists()


def test_operation_without_javascript_redirects_with_a_message() -> None:
    t = _fae()
    url = reverse("characters:operate", args=[t.pc.pk, "spend_fate_point"])
    response = client_for(t.player).post(url, {"amount": "1"})
    assert response.status_code == 302 and response["Location"] == reverse("characters:detail", args=[t.pc.pk])
    refused = client_for(t.player).post(url, {"amount": "9"}, follow=True)
    assert "destino" in _text(refused)
    assert t.reload(t.pc).sheet["fate_points"] == 2


def test_campaign_pool_operation_gm_only() -> None:
    t = _fae(rules_settings={"gm_fate_point_pool": True})
    url = reverse("characters:operate_campaign", args=[t.campaign.pk, "gm_pool_gain"])
    assert client_for(t.player).post(url, {"amount": "2"}, **HTMX).status_code == 403
    response = client_for(t.gm).post(url, {"amount": "2"}, **HTMX)
    assert response.status_code == 200
    assert services.rules_state(t.campaign)["gm_fate_points"] == 2
    refused = client_for(t.gm).post(
        reverse("characters:operate_campaign", args=[t.campaign.pk, "gm_pool_spend"]), {"amount": "5"}, **HTMX
    )
    assert "operation-error" in _text(refused)
    assert services.rules_state(t.campaign)["gm_fate_points"] == 2
    pools = client_for(t.player).get(reverse("characters:pools", args=[t.campaign.pk]))
    assert pools.status_code == 200


# --- Ledgers --------------------------------------------------------------------------------------


def test_ledger_pages_and_their_permissions() -> None:
    t = _fae()
    services.apply_operation(
        actor=t.player, campaign=t.campaign, operation="spend_fate_point", character=t.pc, reason="MOTIVO-X"
    )
    url = reverse("characters:ledger", args=[t.pc.pk])
    page = _text(client_for(t.player).get(url))
    assert "MOTIVO-X" in page and "3 → 2" in page
    assert client_for(t.player2).get(url).status_code == 403
    assert client_for(t.reader).get(url).status_code == 403
    campaign_url = reverse("characters:campaign_ledger", args=[t.campaign.pk])
    assert "MOTIVO-X" in _text(client_for(t.gm).get(campaign_url))
    assert client_for(t.player).get(campaign_url).status_code == 403


def test_ledger_queries_do_not_grow() -> None:
    t = _fae()
    url = reverse("characters:ledger", args=[t.pc.pk])
    client = client_for(t.player)

    def spend(n: int) -> None:
        for _ in range(n):
            services.apply_operation(actor=t.gm, campaign=t.campaign, operation="gain_fate_point", character=t.pc)

    def count() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url).status_code == 200
        return len(queries)

    spend(3)
    few = count()
    spend(30)
    assert count() == few
    gm_client = client_for(t.gm)
    with CaptureQueriesContext(connection) as gm_queries:
        gm_client.get(reverse("characters:campaign_ledger", args=[t.campaign.pk]))
    spend(5)
    with CaptureQueriesContext(connection) as gm_more:
        gm_client.get(reverse("characters:campaign_ledger", args=[t.campaign.pk]))
    assert len(gm_queries) == len(gm_more)


def test_a_new_user_sees_no_characters_of_a_private_campaign() -> None:
    t = SheetTable(visibility="private")
    stranger = make_user("nadie")
    assert client_for(stranger).get(reverse("characters:list", args=[t.campaign.pk])).status_code == 404
    assert client_for(stranger).get(reverse("characters:detail", args=[t.pc.pk])).status_code == 404


def test_an_ended_campaigns_new_character_page_gives_the_true_reason() -> None:
    """Issue 28: it said only players and GMs create characters, to the campaign's own players and GMs."""
    from django.test import Client

    from record.services import archive_campaign
    from tests.personas import build_table

    t = build_table(prefix="ended_")
    archive_campaign(actor=t.gm, campaign=t.campaign)
    for user in (t.player, t.gm):
        client = Client()
        client.force_login(user)
        response = client.get(f"/campaigns/{t.campaign.pk}/characters/new/")
        assert response.status_code == 403
        assert "La partida ha terminado" in response.content.decode()
