"""Search: the policy matrix (whispers, GM-only posts, hidden scenes, secret rolls never leak), filters,
highlighting and the index kept in the post's transaction. Runs on SQLite and, with DATABASE_URL, PostgreSQL."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from campaigns import services
from campaigns.models import Recipients, Voice
from record.search import parse_terms
from record.selectors import SearchCriteria, search_posts
from rolls.services import RollSpec, create_post_with_rolls
from systems.dice import ScriptedDice
from tests.personas import Table, build_table, make_user

pytestmark = pytest.mark.django_db


def _found(user: object, text: str, **filters: object) -> set[int]:
    page = search_posts(user, SearchCriteria(text=text, **filters))  # type: ignore[arg-type]
    return {hit.post.pk for hit in page.hits}


@pytest.fixture
def searchable(table: Table) -> Table:
    """The table, with a word every post shares and a post in the listed scene and a secret roll."""
    services.edit_post(actor=table.player, post=table.post_all, body="TEXTO-PARA-TODOS linterna")
    services.edit_post(actor=table.player2, post=table.post_gms, body="TEXTO-SOLO-MASTERS linterna")
    services.edit_post(actor=table.gm, post=table.whisper, body="TEXTO-SUSURRO linterna")
    table.listed_post = services.create_post(  # type: ignore[attr-defined]
        author=table.player, scene=table.listed_scene, body="aparte linterna", voice=Voice.OOC
    )
    table.secret_roll_post = create_post_with_rolls(  # type: ignore[attr-defined]
        author=table.gm,
        scene=table.scene,
        body="dados ocultos linterna",
        voice=Voice.NARRATOR,
        rolls=[RollSpec(kind="notation", data={"expression": "1d6"}, gm_only=True)],
        dice=ScriptedDice([4]),
    )
    return table


MATRIX = {
    # role: (post_all, post_gms, whisper, listed_post)
    "gm": (True, True, True, True),
    "player": (True, False, True, True),
    "player2": (True, True, False, False),
    "reader": (True, False, False, False),
    "outsider": (True, False, False, False),
    "anonymous": (True, False, False, False),
}


@pytest.mark.parametrize("role", list(MATRIX))
def test_policy_matrix(searchable: Table, role: str) -> None:
    t = searchable
    found = _found(t.user(role), "linterna")
    expected = dict(zip(["post_all", "post_gms", "whisper", "listed"], MATRIX[role], strict=True))
    assert (t.post_all.pk in found) == expected["post_all"]
    assert (t.post_gms.pk in found) == expected["post_gms"]
    assert (t.whisper.pk in found) == expected["whisper"]
    assert (t.listed_post.pk in found) == expected["listed"]  # type: ignore[attr-defined]


@pytest.mark.parametrize("role", ["player", "reader", "outsider", "anonymous"])
def test_secret_roll_never_betrays_its_post(searchable: Table, role: str) -> None:
    t = searchable
    user = t.user(role)
    # The post itself is public; only its roll is secret: the "with rolls" filter must not reveal it.
    assert t.secret_roll_post.pk in _found(user, "linterna")  # type: ignore[attr-defined]
    assert t.secret_roll_post.pk not in _found(user, "linterna", with_rolls=True)  # type: ignore[attr-defined]
    assert t.secret_roll_post.pk in _found(t.gm, "linterna", with_rolls=True)  # type: ignore[attr-defined]


def test_private_campaign_invisible_to_outsiders(private_table: Table) -> None:
    t = private_table
    assert _found(t.outsider, "TEXTO") == set()
    assert _found(None, "TEXTO") == set()
    assert t.post_all.pk in _found(t.reader, "TEXTO-PARA-TODOS")


@pytest.mark.parametrize("role", ["player2", "reader", "outsider"])
def test_snippets_never_hold_hidden_text(searchable: Table, role: str) -> None:
    page = search_posts(searchable.user(role), SearchCriteria(text="linterna"))
    html = " ".join(hit.body + hit.notes for hit in page.hits)
    assert "SUSURRO" not in html
    assert "aparte" not in html


def test_deleted_post_only_for_gms(searchable: Table) -> None:
    t = searchable
    services.delete_post(actor=t.player, post=t.post_all)
    assert t.post_all.pk not in _found(t.player2, "linterna")
    assert t.post_all.pk in _found(t.gm, "linterna")


def test_index_follows_edits_in_the_same_transaction(table: Table) -> None:
    services.edit_post(actor=table.player, post=table.post_all, body="murciélago nocturno")
    assert _found(table.gm, "murciélago") == {table.post_all.pk}
    services.edit_post(actor=table.player, post=table.post_all, body="otra cosa", notes="candil")
    assert _found(table.gm, "murciélago") == set()
    assert _found(table.gm, "candil") == {table.post_all.pk}
    assert _found(table.gm, "candil", part="body") == set()
    assert _found(table.gm, "candil", part="notes") == {table.post_all.pk}


def test_filters(searchable: Table) -> None:
    t = searchable
    assert _found(t.gm, "linterna", campaign_id=t.campaign.pk) == _found(t.gm, "linterna")
    other = make_user("otra_gm")
    elsewhere = services.create_campaign(creator=other, title="Otra", ruleset="generic")
    assert _found(t.gm, "linterna", campaign_id=elsewhere.pk) == set()
    assert _found(t.gm, "linterna", scene_id=t.listed_scene.pk) == {t.listed_post.pk}  # type: ignore[attr-defined]
    assert _found(t.gm, "linterna", author="@player2") == {t.post_gms.pk}
    assert _found(t.gm, "linterna", character_id=t.character.pk) == {t.post_all.pk}
    ic = _found(t.gm, "linterna", voice="ic")
    assert t.post_all.pk in ic and t.post_gms.pk not in ic
    assert t.post_gms.pk in _found(t.gm, "linterna", voice="ooc")
    assert _found(t.gm, "linterna", with_rolls=True) == {t.secret_roll_post.pk}  # type: ignore[attr-defined]
    today = timezone.localdate()
    assert _found(t.gm, "linterna", since=today + timedelta(days=1)) == set()
    assert len(_found(t.gm, "linterna", since=today, until=today)) == 5


def test_highlight_escapes_the_text(table: Table) -> None:
    services.edit_post(actor=table.player, post=table.post_all, body="<script>alert(1)</script> farol encendido")
    (hit,) = search_posts(table.gm, SearchCriteria(text="farol")).hits
    assert "<mark>farol</mark>" in hit.body
    assert "<script>" not in hit.body


def test_phrases_and_accents() -> None:
    terms = parse_terms('"casa de la" colina OR -x')
    assert terms.phrases[0] == ("casa", "de", "la")
    assert terms.fts5() == '"casa de la" "colina" "OR" "x"'
    assert parse_terms("TEXTO-PARA-TODOS").phrases == (("TEXTO", "PARA", "TODOS"),)


def test_accent_folding_and_pagination(db: None) -> None:
    gm = make_user("pager_gm")
    campaign = services.create_campaign(creator=gm, title="Muchas", ruleset="generic")
    scene = services.create_scene(actor=gm, campaign=campaign, title="Larga")
    for n in range(25):
        services.create_post(author=gm, scene=scene, body=f"Canción número {n}", voice=Voice.OOC)
    page = search_posts(gm, SearchCriteria(text="cancion"), page=2)
    assert page.total == 25 and page.num_pages == 2 and len(page.hits) == 5
    assert page.has_previous and not page.has_next


def test_unusable_query_finds_nothing(table: Table) -> None:
    assert search_posts(table.gm, SearchCriteria(text=' "" !!! ')).total == 0


def test_constant_queries(searchable: Table, django_assert_max_num_queries: object) -> None:
    for n in range(15):
        services.create_post(author=searchable.gm, scene=searchable.scene, body=f"linterna {n}", voice=Voice.OOC)
    with django_assert_max_num_queries(4):  # type: ignore[operator]
        search_posts(searchable.player, SearchCriteria(text="linterna"))


def test_recipients_whisper_to_other(db: None) -> None:
    t = build_table(prefix="w_")
    services.create_post(
        author=t.player, scene=t.scene, body="secreto entre jugadores", voice=Voice.OOC,
        recipients=Recipients.WHISPER, whisper_to=[t.player2.pk],
    )  # fmt: skip
    assert len(_found(t.player2, "secreto")) == 1
    assert len(_found(t.reader, "secreto")) == 0
