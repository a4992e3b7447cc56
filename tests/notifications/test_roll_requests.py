"""The GM asks a player for a roll: the player is told, finds it pre-filled in the composer, and their post
with that character's roll answers it."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.test import Client
from rest_framework.test import APIClient

from notifications import services
from notifications.models import Kind, RollRequestStatus
from tests.api.conftest import assert_error
from tests.personas import PASSWORD, Table

pytestmark = pytest.mark.django_db


def client_for(user: Any) -> Client:
    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    return client


def test_the_gm_asks_and_the_player_is_told(mail_table: Table) -> None:
    request = services.request_roll(
        actor=mail_table.gm, scene=mail_table.scene, character=mail_table.character, expression="3d6", label="Huir"
    )
    assert request.status == RollRequestStatus.OPEN
    assert mail_table.player.notifications.filter(kind=Kind.ROLL_REQUESTED).count() == 1
    assert not mail_table.player2.notifications.filter(kind=Kind.ROLL_REQUESTED).exists()


def test_only_gms_ask_and_only_for_a_character_who_can_answer(mail_table: Table) -> None:
    with pytest.raises(PermissionDenied):
        services.request_roll(
            actor=mail_table.player, scene=mail_table.scene, character=mail_table.character2, expression="1d6"
        )
    with pytest.raises(ValidationError):  # player2 cannot write the listed scene
        services.request_roll(
            actor=mail_table.gm, scene=mail_table.listed_scene, character=mail_table.character2, expression="1d6"
        )
    with pytest.raises(ValidationError):
        services.request_roll(
            actor=mail_table.gm, scene=mail_table.scene, character=mail_table.character, expression="3x"
        )


def test_the_composer_comes_pre_filled_and_the_post_answers(mail_table: Table, run_tasks: Any) -> None:
    request = services.request_roll(
        actor=mail_table.gm, scene=mail_table.scene, character=mail_table.character, expression="2d6+1", label="Trepar"
    )
    player = client_for(mail_table.player)
    page = player.get(f"/scenes/{mail_table.scene.pk}/").content.decode()
    assert f'data-roll-request="{request.pk}"' in page
    assert 'value="2d6+1"' in page and 'value="Trepar"' in page
    assert (
        "data-roll-request"
        not in client_for(mail_table.player2).get(f"/scenes/{mail_table.scene.pk}/").content.decode()
    )
    gm_page = client_for(mail_table.gm).get(f"/scenes/{mail_table.scene.pk}/").content.decode()
    assert f"/roll-requests/{request.pk}/cancel/" in gm_page
    with run_tasks(execute=True):
        response = player.post(
            f"/scenes/{mail_table.scene.pk}/posts/",
            {
                "voice": "character",
                "character": mail_table.character.pk,
                "body": "Trepo por la hiedra.",
                "recipients": "all",
                "roll_expression": "2d6+1",
                "roll_label": "Trepar",
            },
        )
    assert response.status_code == 302
    request.refresh_from_db()
    assert request.status == RollRequestStatus.ANSWERED and request.answered_post is not None
    assert request.answered_post.rolls.count() == 1
    assert "data-roll-request" not in player.get(f"/scenes/{mail_table.scene.pk}/").content.decode()


def test_a_roll_by_someone_else_does_not_answer(mail_table: Table, run_tasks: Any) -> None:
    from rolls.services import RollSpec, create_post_with_rolls

    request = services.request_roll(
        actor=mail_table.gm, scene=mail_table.scene, character=mail_table.character, expression="1d6"
    )
    with run_tasks(execute=True):
        create_post_with_rolls(
            author=mail_table.gm, scene=mail_table.scene, body="El máster tira por ella.", voice="narrator",
            rolls=[RollSpec(kind="notation", data={"expression": "1d6"}, character_id=mail_table.character.pk)],
        )  # fmt: skip
    request.refresh_from_db()
    assert request.status == RollRequestStatus.OPEN


def test_the_api_asks_lists_and_withdraws(mail_table: Table) -> None:
    gm, player = APIClient(), APIClient()
    gm.force_authenticate(mail_table.gm)
    player.force_authenticate(mail_table.player)
    url = f"/api/scenes/{mail_table.scene.pk}/roll-requests/"
    created = gm.post(url, {"character": mail_table.character.pk, "expression": "4dF"}, format="json")
    assert created.status_code == 201 and created.json()["status"] == "open"
    assert [r["expression"] for r in player.get(url).json()["results"]] == ["4dF"]
    assert_error(player.post(url, {"character": mail_table.character.pk, "expression": "4dF"}, format="json"), 403)
    assert_error(gm.post(url, {"character": 999999, "expression": "4dF"}, format="json"), 400, "character")
    assert_error(
        gm.post(url, {"character": mail_table.character.pk, "expression": "zz"}, format="json"), 400, "expression"
    )
    cancel = f"/api/roll-requests/{created.json()['id']}/cancel/"
    assert_error(player.post(cancel), 403)
    assert gm.post(cancel).json()["status"] == "cancelled"
    assert_error(gm.post(cancel), 400)


def test_asking_withdrawing_and_answering_are_live_events_for_the_player(mail_table: Table, run_tasks: Any) -> None:
    from campaigns.models import CampaignEventLog

    def logged() -> list[tuple[str, set[int]]]:
        rows = CampaignEventLog.objects.filter(type="roll_request.changed").order_by("id")
        return [(row.data["status"], set(row.audience["user_ids"])) for row in rows]

    first = services.request_roll(
        actor=mail_table.gm, scene=mail_table.scene, character=mail_table.character, expression="1d6"
    )
    services.cancel_roll_request(actor=mail_table.gm, request=first)
    services.request_roll(actor=mail_table.gm, scene=mail_table.scene, character=mail_table.character, expression="1d6")
    client = client_for(mail_table.player)
    with run_tasks(execute=True):
        client.post(
            f"/scenes/{mail_table.scene.pk}/posts/",
            {
                "voice": "character",
                "character": mail_table.character.pk,
                "body": "Lo intento.",
                "recipients": "all",
                "roll_expression": "1d6",
            },
        )
    owner = {mail_table.player.pk}
    assert logged() == [("open", owner), ("cancelled", owner), ("open", owner), ("answered", owner)]


def test_the_scene_page_has_a_live_region_for_requests_even_before_the_first(mail_table: Table) -> None:
    html = client_for(mail_table.player).get(f"/scenes/{mail_table.scene.pk}/").content.decode()
    assert 'id="roll-requests-live" data-live-on="roll_request.changed"' in html


def test_the_players_dashboard_lists_the_rolls_asked_of_them(mail_table: Table) -> None:
    services.request_roll(
        actor=mail_table.gm, scene=mail_table.scene, character=mail_table.character, expression="2d6", label="Huir"
    )
    html = client_for(mail_table.player).get("/dashboard/").content.decode()
    assert "1 tirada pedida por un máster" in html
    assert f"Directora pide a {mail_table.character.name}: Huir" in html
    assert "tirada pedida" not in client_for(mail_table.player2).get("/dashboard/").content.decode()
