"""Browser surface: GM scene management and scene aspects (with htmx fragments)."""

from __future__ import annotations

import pytest
from django.test import Client

from campaigns.models import Campaign, Scene, SceneAccess, SceneAspect, SceneStatus, Visibility
from tests.campaigns.web_helpers import Table, client_for, make_scene

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


def test_gm_creates_scene_with_listed_access() -> None:
    t = Table()
    client = client_for(t.gm)
    page = client.get(f"/campaigns/{t.campaign.pk}/scenes/new/")
    assert page.status_code == 200
    assert "Jugadora Uno" in page.content.decode()  # member checkboxes
    response = client.post(
        f"/campaigns/{t.campaign.pk}/scenes/new/",
        {
            "title": "La cripta",
            "description": "Fría",
            "access": "listed",
            "readers": [t.reader.pk],
            "writers": [t.player.pk],
        },
    )
    scene = Scene.objects.get(title="La cripta")
    assert response.status_code == 302
    assert response["Location"] == f"/scenes/{scene.pk}/"
    assert scene.access == SceneAccess.LISTED
    assert list(scene.readers.values_list("id", flat=True)) == [t.reader.pk]
    assert list(scene.writers.values_list("id", flat=True)) == [t.player.pk]


def test_create_scene_invalid_shows_errors_and_creates_nothing() -> None:
    t = Table()
    before = Scene.objects.count()
    response = client_for(t.gm).post(
        f"/campaigns/{t.campaign.pk}/scenes/new/", {"title": "", "access": "all", "readers": [t.outsider.pk]}
    )
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert errors["title"]
    assert errors["readers"]  # not a member: not a valid choice
    assert Scene.objects.count() == before


@pytest.mark.parametrize("who", ["player", "reader", "outsider"])
def test_create_scene_refused_to_non_gms(who: str) -> None:
    t = Table()
    before = Scene.objects.count()
    client = client_for(getattr(t, who))
    assert client.get(f"/campaigns/{t.campaign.pk}/scenes/new/").status_code == 403
    assert client.post(f"/campaigns/{t.campaign.pk}/scenes/new/", {"title": "X", "access": "all"}).status_code == 403
    assert Scene.objects.count() == before


def test_create_scene_needs_login() -> None:
    t = Table()
    response = Client().post(f"/campaigns/{t.campaign.pk}/scenes/new/", {"title": "X", "access": "all"})
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_gm_edits_scene() -> None:
    t = Table()
    client = client_for(t.gm)
    page = client.get(f"/scenes/{t.scene.pk}/edit/")
    assert page.status_code == 200
    assert page.context["form"].initial["title"] == "Capítulo 1"
    response = client.post(
        f"/scenes/{t.scene.pk}/edit/",
        {"title": "Capítulo uno", "description": "", "access": "listed", "readers": [], "writers": [t.player.pk]},
    )
    assert response.status_code == 302
    t.scene.refresh_from_db()
    assert t.scene.title == "Capítulo uno"
    assert t.scene.access == SceneAccess.LISTED
    assert list(t.scene.writers.values_list("id", flat=True)) == [t.player.pk]


def test_offtopic_edit_has_no_access_fields() -> None:
    t = Table()
    client = client_for(t.gm)
    page = client.get(f"/scenes/{t.offtopic.pk}/edit/")
    assert "access" not in page.context["form"].fields
    assert client.post(f"/scenes/{t.offtopic.pk}/edit/", {"title": "Charla"}).status_code == 302
    t.offtopic.refresh_from_db()
    assert t.offtopic.title == "Charla"


def test_edit_scene_refusals() -> None:
    t = Table()
    data = {"title": "Hackeada", "access": "all"}
    assert client_for(t.player).post(f"/scenes/{t.scene.pk}/edit/", data).status_code == 403
    hidden = make_scene(t.campaign, t.gm, "Oculta", access="listed")
    assert client_for(t.player).get(f"/scenes/{hidden.pk}/edit/").status_code == 404  # cannot even read it
    t.scene.refresh_from_db()
    assert t.scene.title == "Capítulo 1"


def test_close_and_reopen_scene() -> None:
    t = Table()
    client = client_for(t.gm)
    assert client.post(f"/scenes/{t.scene.pk}/status/", {"status": "closed"}).status_code == 302
    t.scene.refresh_from_db()
    assert t.scene.status == SceneStatus.CLOSED
    html = client_for(t.player).get(f"/scenes/{t.scene.pk}/").content.decode()
    assert 'id="composer"' not in html
    assert "La escena está cerrada" in html
    client.post(f"/scenes/{t.scene.pk}/status/", {"status": "open"})
    t.scene.refresh_from_db()
    assert t.scene.status == SceneStatus.OPEN


def test_scene_status_refused_to_player_and_bad_value_changes_nothing() -> None:
    t = Table()
    assert client_for(t.player).post(f"/scenes/{t.scene.pk}/status/", {"status": "closed"}).status_code == 403
    client_for(t.gm).post(f"/scenes/{t.scene.pk}/status/", {"status": "burnt"})
    t.scene.refresh_from_db()
    assert t.scene.status == SceneStatus.OPEN


def test_reorder_scenes_up_and_down() -> None:
    t = Table()
    second = make_scene(t.campaign, t.gm, "Capítulo 2")
    client = client_for(t.gm)
    order = lambda: list(t.campaign.scenes.order_by("position", "id").values_list("id", flat=True))  # noqa: E731
    assert order() == [t.offtopic.pk, t.scene.pk, second.pk]
    assert client.post(f"/scenes/{second.pk}/move/", {"direction": "up"}).status_code == 302
    assert order() == [t.offtopic.pk, second.pk, t.scene.pk]
    client.post(f"/scenes/{t.offtopic.pk}/move/", {"direction": "down"})
    assert order() == [second.pk, t.offtopic.pk, t.scene.pk]
    client.post(f"/scenes/{second.pk}/move/", {"direction": "up"})  # already first: nothing moves
    assert order() == [second.pk, t.offtopic.pk, t.scene.pk]
    assert client_for(t.player).post(f"/scenes/{t.scene.pk}/move/", {"direction": "up"}).status_code == 403
    assert order() == [second.pk, t.offtopic.pk, t.scene.pk]


# --- Aspects --------------------------------------------------------------------------------------


def test_aspects_hidden_ones_only_for_gms() -> None:
    t = Table()
    Campaign.objects.filter(pk=t.campaign.pk).update(
        ruleset="fate-accelerated", rules_settings={}
    )  # a game with a scene board
    SceneAspect.objects.create(scene=t.scene, text="Niebla espesa", free_invocations=1)
    SceneAspect.objects.create(scene=t.scene, text="Trampa oculta", hidden=True)
    gm_html = client_for(t.gm).get(f"/scenes/{t.scene.pk}/").content.decode()
    assert "Niebla espesa" in gm_html and "Trampa oculta" in gm_html and "Oculto" in gm_html
    player_html = client_for(t.player).get(f"/scenes/{t.scene.pk}/").content.decode()
    assert "Niebla espesa" in player_html
    assert "Trampa oculta" not in player_html
    assert "Añadir aspecto" not in player_html


def test_the_scene_board_shows_only_in_games_that_play_with_aspects() -> None:
    t = Table()  # not a FATE game: no aspects panel, even for the GM
    SceneAspect.objects.create(scene=t.scene, text="Niebla espesa", free_invocations=1)
    gm_html = client_for(t.gm).get(f"/scenes/{t.scene.pk}/").content.decode()
    assert "Niebla espesa" not in gm_html and "Añadir aspecto" not in gm_html and 'id="live-aspects"' not in gm_html


def test_add_aspect_plain_and_htmx() -> None:
    t = Table()
    client = client_for(t.gm)
    response = client.post(f"/scenes/{t.scene.pk}/aspects/", {"text": "En llamas", "free_invocations": 2})
    assert response.status_code == 302
    fragment = client.post(
        f"/scenes/{t.scene.pk}/aspects/", {"text": "Oscuridad", "hidden": "on", "free_invocations": 0}, **HTMX
    )
    assert fragment.status_code == 200
    html = fragment.content.decode()
    assert html.startswith('<section id="aspects"')
    assert "<html" not in html
    assert "En llamas" in html and "Oscuridad" in html
    assert SceneAspect.objects.get(text="Oscuridad").hidden


def test_add_aspect_invalid_shows_errors_in_place() -> None:
    t = Table()
    client = client_for(t.gm)
    fragment = client.post(f"/scenes/{t.scene.pk}/aspects/", {"text": "", "free_invocations": 50}, **HTMX)
    assert fragment.status_code == 200
    assert 'class="errorlist' in fragment.content.decode()
    plain = client.post(f"/scenes/{t.scene.pk}/aspects/", {"text": "x", "free_invocations": -1})
    assert plain.status_code == 400
    assert plain.context["form"].errors["free_invocations"]
    assert not SceneAspect.objects.exists()


def test_aspect_refused_to_player() -> None:
    t = Table()
    aspect = SceneAspect.objects.create(scene=t.scene, text="Niebla")
    secret = SceneAspect.objects.create(scene=t.scene, text="Trampa", hidden=True)
    client = client_for(t.player)
    assert client.post(f"/scenes/{t.scene.pk}/aspects/", {"text": "Mío", "free_invocations": 0}).status_code == 403
    assert client.post(f"/scenes/{t.scene.pk}/aspects/{aspect.pk}/invocations/", {"delta": "+1"}).status_code == 403
    assert client.post(f"/scenes/{t.scene.pk}/aspects/{aspect.pk}/delete/").status_code == 403
    assert client.get(f"/scenes/{t.scene.pk}/aspects/{aspect.pk}/edit/").status_code == 403
    assert client.post(f"/scenes/{t.scene.pk}/aspects/{secret.pk}/delete/").status_code == 404
    assert SceneAspect.objects.count() == 2
    aspect.refresh_from_db()
    assert aspect.free_invocations == 0


def test_edit_aspect() -> None:
    t = Table()
    aspect = SceneAspect.objects.create(scene=t.scene, text="Niebla")
    client = client_for(t.gm)
    assert client.get(f"/scenes/{t.scene.pk}/aspects/{aspect.pk}/edit/").status_code == 200
    bad = client.post(f"/scenes/{t.scene.pk}/aspects/{aspect.pk}/edit/", {"text": "", "free_invocations": 1})
    assert bad.context["form"].errors["text"]
    aspect.refresh_from_db()
    assert aspect.text == "Niebla"
    ok = client.post(
        f"/scenes/{t.scene.pk}/aspects/{aspect.pk}/edit/",
        {"text": "Niebla densa", "hidden": "on", "free_invocations": 3},
    )
    assert ok.status_code == 302
    aspect.refresh_from_db()
    assert (aspect.text, aspect.hidden, aspect.free_invocations) == ("Niebla densa", True, 3)


def test_aspect_of_another_scene_is_404() -> None:
    t = Table()
    aspect = SceneAspect.objects.create(scene=t.offtopic, text="Niebla")
    assert client_for(t.gm).post(f"/scenes/{t.scene.pk}/aspects/{aspect.pk}/delete/").status_code == 404


def test_free_invocations_htmx_in_place() -> None:
    t = Table()
    aspect = SceneAspect.objects.create(scene=t.scene, text="Niebla", free_invocations=1)
    client = client_for(t.gm)
    url = f"/scenes/{t.scene.pk}/aspects/{aspect.pk}/invocations/"
    fragment = client.post(url, {"delta": "+1"}, **HTMX)
    assert fragment.status_code == 200
    html = fragment.content.decode()
    assert html.startswith(f'<li id="aspect-{aspect.pk}"')
    assert "2 invocaciones gratuitas" in html
    client.post(url, {"delta": "-1"}, **HTMX)
    client.post(url, {"delta": "-1"}, **HTMX)
    below = client.post(url, {"delta": "-1"}, **HTMX)  # cannot go below zero: unchanged
    assert "0 invocaciones gratuitas" in below.content.decode()
    aspect.refresh_from_db()
    assert aspect.free_invocations == 0
    assert client.post(url, {"delta": "+1"}).status_code == 302  # without htmx: back to the scene


def test_delete_aspect_htmx() -> None:
    t = Table()
    aspect = SceneAspect.objects.create(scene=t.scene, text="Niebla")
    fragment = client_for(t.gm).post(f"/scenes/{t.scene.pk}/aspects/{aspect.pk}/delete/", **HTMX)
    assert fragment.status_code == 200
    assert "Niebla" not in fragment.content.decode()
    assert not SceneAspect.objects.exists()


def test_private_campaign_scene_pages_are_404_for_outsiders() -> None:
    t = Table(visibility=Visibility.PRIVATE)
    for client in (client_for(t.outsider), Client()):
        assert client.get(f"/scenes/{t.scene.pk}/").status_code == 404
        assert client.get(f"/scenes/{t.scene.pk}/edit/").status_code in (302, 404)
