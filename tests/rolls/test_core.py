"""The rolls core: server-made evidence on posts, secret rolls and reveals, never edited."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.test import Client

from campaigns import policy, services
from campaigns.models import Post, Recipients, Voice
from rolls import selectors
from rolls.models import Roll, RollReveal
from rolls.services import RollSpec, create_post_with_rolls, reveal_roll
from systems.dice import ScriptedDice
from systems.errors import RulesError
from tests.personas import Table

pytestmark = pytest.mark.django_db


def notation(expression: str, **kwargs: object) -> RollSpec:
    return RollSpec(kind="notation", data={"expression": expression}, **kwargs)  # type: ignore[arg-type]


def test_post_with_a_roll_stores_every_face(table: Table) -> None:
    post = create_post_with_rolls(
        author=table.player,
        scene=table.scene,
        body="Salto el foso.",
        voice=Voice.CHARACTER,
        character=table.character,
        rolls=[notation("3d6+2", character_id=table.character.pk, label="Saltar")],
        dice=ScriptedDice([6, 1, 4]),
    )
    roll = Roll.objects.get(post=post)
    assert roll.result["totals"] == [13]
    assert roll.summary_es == "3d6[6, 1, 4]+2 = 13"
    assert roll.character == table.character and roll.label == "Saltar"
    view = selectors.rolls_of_post(policy.viewer_for(table.reader, table.campaign), post.pk)[0]
    assert [die.glyph for die in view.faces] == ["6", "1", "4"]


def test_rules_refusal_writes_neither_post_nor_roll(table: Table) -> None:
    before = Post.objects.count()
    with pytest.raises(RulesError) as exc:
        create_post_with_rolls(author=table.player, scene=table.scene, body="x", rolls=[notation("99999999d6")])
    assert exc.value.code == "too_many_dice"
    assert Post.objects.count() == before
    assert not Roll.objects.exists()


def test_player_cannot_roll_secretly_or_for_someone_elses_character(table: Table) -> None:
    with pytest.raises(PermissionDenied):
        create_post_with_rolls(author=table.player, scene=table.scene, body="x", rolls=[notation("1d6", gm_only=True)])
    with pytest.raises(PermissionDenied):
        create_post_with_rolls(
            author=table.player, scene=table.scene, body="x", rolls=[notation("1d6", character_id=table.character2.pk)]
        )
    assert not Roll.objects.exists()


def test_too_many_rolls_refused(table: Table) -> None:
    with pytest.raises(ValidationError):
        create_post_with_rolls(author=table.player, scene=table.scene, body="x", rolls=[notation("1d6")] * 11)


def test_secret_roll_only_for_gms_until_revealed(table: Table) -> None:
    post = create_post_with_rolls(
        author=table.gm,
        scene=table.scene,
        body="El guardia vigila.",
        voice=Voice.NARRATOR,
        rolls=[notation("1d20", gm_only=True)],
        dice=ScriptedDice([17]),
    )
    roll = Roll.objects.get(post=post)
    gm = policy.viewer_for(table.gm, table.campaign)
    player = policy.viewer_for(table.player, table.campaign)
    assert len(selectors.rolls_of_post(gm, post.pk)) == 1
    assert selectors.rolls_of_post(player, post.pk) == []
    client = Client()
    client.force_login(table.player)
    page = client.get(f"/scenes/{table.scene.pk}/").content.decode()
    assert "1d20[17]" not in page
    with pytest.raises(PermissionDenied):
        reveal_roll(actor=table.player, roll=roll)
    reveal_roll(actor=table.gm, roll=roll)
    assert selectors.rolls_of_post(player, post.pk)[0].revealed
    assert "1d20[17]" in client.get(f"/scenes/{table.scene.pk}/").content.decode()
    with pytest.raises(ValidationError):
        reveal_roll(actor=table.gm, roll=roll)
    assert RollReveal.objects.count() == 1


def test_rolls_follow_their_posts_recipients(table: Table) -> None:
    post = create_post_with_rolls(
        author=table.gm,
        scene=table.scene,
        body="Solo para Ana.",
        voice=Voice.NARRATOR,
        recipients=Recipients.WHISPER,
        whisper_to=[table.player.pk],
        rolls=[notation("2d6")],
    )
    for user, sees in ((table.player, True), (table.player2, False), (table.reader, False)):
        client = Client()
        client.force_login(user)
        page = client.get(f"/scenes/{table.scene.pk}/").content.decode()
        assert (f'id="roll-{post.rolls.get().pk}"' in page) is sees


def test_editing_or_deleting_a_post_never_touches_its_rolls(table: Table) -> None:
    post = create_post_with_rolls(
        author=table.player, scene=table.scene, body="Antes", rolls=[notation("1d6")], dice=ScriptedDice([3])
    )
    roll = Roll.objects.get(post=post)
    services.edit_post(actor=table.player, post=post, body="Después")
    services.delete_post(actor=table.player, post=post)
    assert Roll.objects.get(pk=roll.pk).result == roll.result


def test_a_roll_is_never_edited(table: Table) -> None:
    post = create_post_with_rolls(author=table.player, scene=table.scene, body="x", rolls=[notation("1d6")])
    roll = Roll.objects.get(post=post)
    roll.result = {"totals": [6]}
    with pytest.raises(RuntimeError):
        roll.save()


def test_composer_rolls_notation_with_the_post(table: Table) -> None:
    client = Client()
    client.force_login(table.player)
    response = client.post(
        f"/scenes/{table.scene.pk}/posts/",
        {"voice": "ooc", "body": "Tiro", "recipients": "all", "roll_expression": "4dF+1", "roll_label": "Pelea"},
    )
    assert response.status_code == 302
    roll = Roll.objects.get()
    assert roll.kind == "notation" and roll.label == "Pelea"
    assert -3 <= roll.result["totals"][0] <= 5


def test_composer_shows_a_bad_notation_and_writes_nothing(table: Table) -> None:
    client = Client()
    client.force_login(table.player)
    before = Post.objects.count()
    response = client.post(
        f"/scenes/{table.scene.pk}/posts/",
        {"voice": "ooc", "body": "Tiro", "recipients": "all", "roll_expression": "3d6+"},
    )
    assert response.status_code == 400
    assert "columna" in response.content.decode() or "column" in response.content.decode()
    assert Post.objects.count() == before
