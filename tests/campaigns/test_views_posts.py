"""Browser surface: the thread page, the composer (htmx and plain), permalinks, edits, deletes, unread."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from campaigns.models import Post, PostRevision, Recipients, SceneReadMark, Visibility, Voice
from tests.campaigns.web_helpers import Table, add_member, bulk_posts, client_for, make_character, make_scene, make_user

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


def compose(t: Table, **data: object) -> dict[str, object]:
    base: dict[str, object] = {
        "voice": "character",
        "character": t.character.pk,
        "body": "Alba abre la puerta.",
        "notes": "",
        "recipients": "all",
        "page": 1,
    }
    base.update(data)
    return base


# --- Thread page ----------------------------------------------------------------------------------


def test_thread_shows_post_parts() -> None:
    t = Table()
    t.post(body="Entra en *la sala*.", notes="Tirada: 3d6 = 11")
    t.post(author=t.gm, body="Voz grave", voice=Voice.NPC, npc_name="El Portero")
    html = client_for(t.reader).get(f"/scenes/{t.scene.pk}/").content.decode()
    assert "Alba" in html and "por Jugadora Uno" in html
    assert "<em>la sala</em>" in html
    assert "Notas de juego" in html and "Tirada: 3d6 = 11" in html
    assert "El Portero" in html and "PNJ" in html
    assert 'id="composer"' not in html  # a reader cannot write here
    assert f'href="/posts/{Post.objects.first().pk}/"' in html


def test_thread_escapes_nothing_it_should_not_and_injects_nothing() -> None:
    t = Table()
    t.post(body="<script>alert(1)</script> hola")
    html = client_for(t.reader).get(f"/scenes/{t.scene.pk}/").content.decode()
    assert "<script>alert(1)</script>" not in html


def test_recipient_badges_and_visibility() -> None:
    t = Table()
    t.post(author=t.gm, body="Solo para másters", voice=Voice.NARRATOR, recipients=Recipients.GMS)
    t.post(author=t.gm, body="Secreto susurrado", voice=Voice.NARRATOR, recipients="whisper", whisper_to=[t.player.pk])
    gm_html = client_for(t.gm).get(f"/scenes/{t.scene.pk}/").content.decode()
    assert "Solo másters" in gm_html and "Susurro a Jugadora Uno" in gm_html
    player_html = client_for(t.player).get(f"/scenes/{t.scene.pk}/").content.decode()
    assert "Solo para másters" not in player_html
    assert "Secreto susurrado" in player_html
    reader_html = client_for(t.reader).get(f"/scenes/{t.scene.pk}/").content.decode()
    assert "Secreto susurrado" not in reader_html and "Solo para másters" not in reader_html
    anon_html = Client().get(f"/scenes/{t.scene.pk}/").content.decode()
    assert "Secreto susurrado" not in anon_html


def test_listed_scene_is_404_for_unlisted_players() -> None:
    t = Table()
    scene = make_scene(t.campaign, t.gm, "Aparte", access="listed", writer_ids=[t.player.pk])
    assert client_for(t.player).get(f"/scenes/{scene.pk}/").status_code == 200
    assert client_for(t.reader).get(f"/scenes/{scene.pk}/").status_code == 404
    assert Client().get(f"/scenes/{scene.pk}/").status_code == 404


def test_deleted_posts_dimmed_for_gm_and_gone_for_others() -> None:
    t = Table()
    post = t.post(body="Me arrepiento")
    client_for(t.player).post(f"/posts/{post.pk}/delete/")
    gm_html = client_for(t.gm).get(f"/scenes/{t.scene.pk}/").content.decode()
    assert "Me arrepiento" in gm_html
    assert "post faced voice-character deleted" in gm_html and "borrado" in gm_html
    assert "Me arrepiento" not in client_for(t.reader).get(f"/scenes/{t.scene.pk}/").content.decode()


def test_thread_paginates_25_a_page() -> None:
    t = Table()
    bulk_posts(t.scene, t.player, 30)
    client = client_for(t.reader)
    first = client.get(f"/scenes/{t.scene.pk}/")
    assert len(first.context["page"].posts) == 25
    assert "Página 1 de 2" in first.content.decode()
    second = client.get(f"/scenes/{t.scene.pk}/?page=2")
    assert len(second.context["page"].posts) == 5
    assert client.get(f"/scenes/{t.scene.pk}/?page=abc").status_code == 200


def _thread_queries(client: Client, url: str) -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    return len(ctx.captured_queries)


@pytest.mark.parametrize("who", ["gm", "player", "reader", None])
def test_thread_query_count_same_for_10_and_1000_posts(who: str | None) -> None:
    t = Table()
    small = make_scene(t.campaign, t.gm, "Corta")
    large = make_scene(t.campaign, t.gm, "Larga")
    bulk_posts(small, t.player, 10)
    bulk_posts(large, t.player, 1000)
    for scene in (small, large):  # whispers and edits, so every prefetch has something to do
        t.post(scene=scene, body="editado")
        t.post(author=t.gm, scene=scene, body="s", voice="narrator", recipients="whisper", whisper_to=[t.player.pk])
    client = client_for(getattr(t, who) if who else None)
    # The last page of each (page numbers clamp): both first visits move the read marker the same way,
    # both second visits find it already there. Only the thread's length differs.
    last_small, last_large = f"/scenes/{small.pk}/?page=999", f"/scenes/{large.pk}/?page=999"
    assert _thread_queries(client, last_small) == _thread_queries(client, last_large)
    assert _thread_queries(client, last_small) == _thread_queries(client, last_large)
    assert _thread_queries(client, f"/scenes/{small.pk}/") == _thread_queries(client, f"/scenes/{large.pk}/?page=20")


# --- Composer -------------------------------------------------------------------------------------


def test_post_without_js_redirects_to_permalink() -> None:
    t = Table()
    response = client_for(t.player).post(f"/scenes/{t.scene.pk}/posts/", compose(t))
    post = Post.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/posts/{post.pk}/"
    assert post.character == t.character
    assert post.voice == Voice.CHARACTER


def test_post_with_htmx_returns_post_fragment_and_fresh_composer() -> None:
    t = Table()
    response = client_for(t.player).post(f"/scenes/{t.scene.pk}/posts/", compose(t, notes="Tirada 4dF"), **HTMX)
    post = Post.objects.get()
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" not in html
    assert html.startswith(f'<article id="post-{post.pk}"')
    assert 'id="composer" class="composer panel" hx-swap-oob="true"' in html
    assert "Alba abre la puerta." in html and "Tirada 4dF" in html


def test_post_with_htmx_on_a_full_page_redirects_to_the_new_page() -> None:
    t = Table()
    bulk_posts(t.scene, t.gm, 25)
    response = client_for(t.player).post(f"/scenes/{t.scene.pk}/posts/", compose(t, page=1), **HTMX)
    post = Post.objects.latest("id")
    assert response.status_code == 200
    assert response["HX-Redirect"] == f"/scenes/{t.scene.pk}/?page=2#post-{post.pk}"


def test_post_errors_with_htmx_retarget_composer_and_write_nothing() -> None:
    t = Table()
    response = client_for(t.player).post(f"/scenes/{t.scene.pk}/posts/", compose(t, body="  "), **HTMX)
    assert response.status_code == 200
    assert response["HX-Retarget"] == "#composer"
    assert response["HX-Reswap"] == "outerHTML"
    assert 'class="errorlist' in response.content.decode()
    assert not Post.objects.exists()


def test_post_errors_without_js_show_on_fields() -> None:
    t = Table()
    client = client_for(t.player)
    whisper = client.post(f"/scenes/{t.scene.pk}/posts/", compose(t, recipients="whisper"))
    assert whisper.status_code == 400
    assert "al menos un destinatario" in str(whisper.context["form"].errors["whisper_to"])
    other = make_character(t.campaign, t.gm, "Ajeno")
    stolen = client.post(f"/scenes/{t.scene.pk}/posts/", compose(t, character=other.pk))
    assert stolen.context["form"].errors["character"]  # not among my characters
    narrator = client.post(f"/scenes/{t.scene.pk}/posts/", compose(t, voice="narrator"))
    assert narrator.context["form"].errors["voice"]
    assert not Post.objects.exists()


def test_gm_composer_offers_narrator_npc_and_any_character() -> None:
    t = Table()
    form = client_for(t.gm).get(f"/scenes/{t.scene.pk}/").context["form"]
    voices = [value for value, _label in form.fields["voice"].choices]
    assert voices == ["narrator", "npc", "character", "ooc"]  # the narrator first: never a PC by default
    assert [c for c, _ in form.fields["character"].choices] == [t.character.pk]
    response = client_for(t.gm).post(
        f"/scenes/{t.scene.pk}/posts/", compose(t, voice="npc", npc_name="El Portero", recipients="gms")
    )
    assert response.status_code == 302
    post = Post.objects.get()
    assert (post.voice, post.npc_name, post.recipients) == ("npc", "El Portero", "gms")


def test_player_without_character_writes_ooc() -> None:
    t = Table()
    newcomer = make_user("nuevo")
    add_member(t.campaign, newcomer)
    form = client_for(newcomer).get(f"/scenes/{t.scene.pk}/").context["form"]
    assert [v for v, _ in form.fields["voice"].choices] == ["ooc"]


def test_whisper_from_composer() -> None:
    t = Table()
    response = client_for(t.player).post(
        f"/scenes/{t.scene.pk}/posts/", compose(t, recipients="whisper", whisper_to=[t.gm.pk])
    )
    assert response.status_code == 302
    assert list(Post.objects.get().whisper_to.values_list("id", flat=True)) == [t.gm.pk]


def test_posting_refused_to_reader_outsider_anonymous_and_in_closed_scene() -> None:
    t = Table()
    url = f"/scenes/{t.scene.pk}/posts/"
    assert client_for(t.reader).post(url, compose(t, voice="ooc")).status_code == 403
    assert client_for(t.outsider).post(url, compose(t, voice="ooc")).status_code == 403
    anon = Client().post(url, compose(t, voice="ooc"))
    assert anon.status_code == 302 and anon["Location"].startswith("/accounts/login/")
    t.scene.status = "closed"
    t.scene.save()
    assert client_for(t.player).post(url, compose(t)).status_code == 403
    assert not Post.objects.exists()


def test_reader_may_write_offtopic() -> None:
    t = Table()
    response = client_for(t.reader).post(f"/scenes/{t.offtopic.pk}/posts/", compose(t, voice="ooc", character=""))
    assert response.status_code == 302


def test_post_in_private_campaign_is_404_for_outsider() -> None:
    t = Table(visibility=Visibility.PRIVATE)
    assert client_for(t.outsider).post(f"/scenes/{t.scene.pk}/posts/", compose(t)).status_code == 404


# --- Permalink ------------------------------------------------------------------------------------


def test_permalink_redirects_to_page_and_anchor() -> None:
    t = Table()
    bulk_posts(t.scene, t.gm, 30)
    post = t.post(body="El último")
    response = Client().get(f"/posts/{post.pk}/")
    assert response.status_code == 302
    assert response["Location"] == f"/scenes/{t.scene.pk}/?page=2#post-{post.pk}"
    first = Post.objects.order_by("id").first()
    assert Client().get(f"/posts/{first.pk}/")["Location"] == f"/scenes/{t.scene.pk}/?page=1#post-{first.pk}"


def test_permalink_of_invisible_post_is_404() -> None:
    t = Table()
    secret = t.post(author=t.gm, body="x", voice="narrator", recipients="gms")
    assert client_for(t.player).get(f"/posts/{secret.pk}/").status_code == 404
    assert client_for(t.gm).get(f"/posts/{secret.pk}/").status_code == 302
    assert client_for(t.player).get("/posts/999999/").status_code == 404


# --- Edit, revisions, delete ----------------------------------------------------------------------


def test_author_edits_post_and_sees_history() -> None:
    t = Table()
    post = t.post(body="Primera versión")
    client = client_for(t.player)
    page = client.get(f"/posts/{post.pk}/edit/")
    assert page.status_code == 200
    assert "Primera versión" in page.content.decode()
    response = client.post(f"/posts/{post.pk}/edit/", {"body": "Segunda versión", "notes": "nota"})
    assert response.status_code == 302 and response["Location"] == f"/posts/{post.pk}/"
    post.refresh_from_db()
    assert post.body_source == "Segunda versión" and post.is_edited
    thread = client.get(f"/scenes/{t.scene.pk}/").content.decode()
    assert "editado" in thread and f"/posts/{post.pk}/revisions/" in thread
    history = client.get(f"/posts/{post.pk}/revisions/").content.decode()
    assert "Primera versión" in history and "Segunda versión" in history
    gm_history = client_for(t.gm).get(f"/posts/{post.pk}/revisions/")
    assert gm_history.status_code == 200


def test_edit_invalid_changes_nothing() -> None:
    t = Table()
    post = t.post(body="Original")
    response = client_for(t.player).post(f"/posts/{post.pk}/edit/", {"body": "   "})
    assert response.status_code == 200
    assert response.context["form"].errors["body"]
    post.refresh_from_db()
    assert post.body_source == "Original" and not post.is_edited
    assert not PostRevision.objects.exists()


def test_edit_and_revisions_refused_to_others() -> None:
    t = Table()
    post = t.post(body="Original")
    for user in (t.gm, t.reader):  # GMs moderate by deleting, not by rewriting
        assert client_for(user).post(f"/posts/{post.pk}/edit/", {"body": "Hack"}).status_code == 403
    assert client_for(t.reader).get(f"/posts/{post.pk}/revisions/").status_code == 403
    assert Client().get(f"/posts/{post.pk}/revisions/").status_code == 302
    post.refresh_from_db()
    assert post.body_source == "Original"


def test_delete_confirm_and_post() -> None:
    t = Table()
    post = t.post(body="Borrable")
    client = client_for(t.player)
    confirm = client.get(f"/posts/{post.pk}/delete/")
    assert confirm.status_code == 200 and "¿Borrar este mensaje?" in confirm.content.decode()
    response = client.post(f"/posts/{post.pk}/delete/")
    assert response.status_code == 302
    assert response["Location"] == f"/scenes/{t.scene.pk}/?page=1"
    post.refresh_from_db()
    assert post.is_deleted and post.deleted_by == t.player


def test_gm_deletes_any_post_others_cannot() -> None:
    t = Table()
    post = t.post(body="Fuera de tono")
    assert client_for(t.reader).post(f"/posts/{post.pk}/delete/").status_code == 403
    assert Client().post(f"/posts/{post.pk}/delete/").status_code == 302  # to the login page
    post.refresh_from_db()
    assert not post.is_deleted
    assert client_for(t.gm).post(f"/posts/{post.pk}/delete/").status_code == 302
    post.refresh_from_db()
    assert post.deleted_by == t.gm
    assert client_for(t.gm).post(f"/posts/{post.pk}/delete/").status_code == 403  # already deleted


# --- Unread marker and 'Novedades' ----------------------------------------------------------------


def _mark(t: Table, user: object) -> int:
    return (
        SceneReadMark.objects.filter(user=user, scene=t.scene).values_list("last_read_post_id", flat=True).first() or 0
    )


def test_viewing_a_page_advances_the_marker_to_the_last_post_shown() -> None:
    t = Table()
    bulk_posts(t.scene, t.gm, 30)
    ids = list(Post.objects.filter(scene=t.scene).order_by("id").values_list("id", flat=True))
    client = client_for(t.reader)
    html = client.get(f"/scenes/{t.scene.pk}/").content.decode()
    assert "nuevo" in html
    assert _mark(t, t.reader) == ids[24]
    client.get(f"/scenes/{t.scene.pk}/?page=2")
    assert _mark(t, t.reader) == ids[-1]
    client.get(f"/scenes/{t.scene.pk}/?page=1")  # going back never moves the marker back
    assert _mark(t, t.reader) == ids[-1]
    Client().get(f"/scenes/{t.scene.pk}/")  # anonymous: nothing stored
    assert SceneReadMark.objects.filter(scene=t.scene).count() == 1  # the reader's only


def test_first_unread_link_jumps_there() -> None:
    t = Table()
    first = t.post(author=t.gm, body="uno", voice="narrator")
    client = client_for(t.reader)
    response = client.get(f"/scenes/{t.scene.pk}/unread/")
    assert response.status_code == 302 and response["Location"] == f"/posts/{first.pk}/"
    client.get(f"/scenes/{t.scene.pk}/")
    second = t.post(author=t.gm, body="dos", voice="narrator")
    assert client.get(f"/scenes/{t.scene.pk}/unread/")["Location"] == f"/posts/{second.pk}/"
    client.get(f"/scenes/{t.scene.pk}/")
    assert client.get(f"/scenes/{t.scene.pk}/unread/")["Location"] == f"/scenes/{t.scene.pk}/?page=1"


def test_novedades_lists_unread_scenes_with_first_unread_link() -> None:
    t = Table()
    first = t.post(author=t.gm, body="uno", voice="narrator")
    t.post(author=t.gm, body="dos", voice="narrator")
    client = client_for(t.player)
    html = client.get("/novedades/").content.decode()
    assert "Capítulo 1" in html and "2 nuevos" in html
    assert f'href="/posts/{first.pk}/"' in html
    client.get(f"/scenes/{t.scene.pk}/")
    assert "Estás al día" in client.get("/novedades/").content.decode()


def test_novedades_needs_login() -> None:
    response = Client().get("/novedades/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
