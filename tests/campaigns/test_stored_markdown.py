"""Stored Markdown: every text is rendered once when written, with limits that refuse clearly; pages
show the stored HTML and never render Markdown while serving (a slow text would cost every reader)."""

from __future__ import annotations

from unittest import mock

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import User
from campaigns import services
from campaigns.markdown import MAX_NESTING, RENDERER_VERSION, MarkdownRefused, render_markdown
from campaigns.models import Campaign, Scene
from campaigns.stored_markdown import backfill_rendered_html
from characters.models import Character
from tests.api.conftest import assert_error
from tests.personas import Table

pytestmark = pytest.mark.django_db

DEEP_SPOILERS = "::: spoiler\n" * 4000
NESTED_480 = "::: spoiler\n" * 480 + "x\n" + ":::\n" * 480


def _api(user: User) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_deeply_nested_spoilers_are_refused_with_a_message() -> None:
    for source in (DEEP_SPOILERS, NESTED_480, ">" * 5000 + " x", "".join("  " * i + "- a\n" for i in range(60))):
        with pytest.raises(MarkdownRefused) as refused:
            render_markdown(source)
        assert str(MAX_NESTING) in str(refused.value)


def test_nesting_within_the_limit_renders_every_level() -> None:
    html = render_markdown("::: spoiler\n" * 10 + "fondo\n" + ":::\n" * 10 + "fuera")
    assert html.count("<details") == html.count("</details>") == 10
    assert html.index("fondo") < html.index("fuera")


def test_character_history_bomb_is_a_400_and_the_page_stays_up(table: Table) -> None:
    url = f"/api/characters/{table.character.pk}/"
    response = _api(table.player).patch(url, {"history": DEEP_SPOILERS}, format="json")
    assert_error(response, 400, "history")
    assert Character.objects.get(pk=table.character.pk).history == ""
    assert Client().get(reverse("characters:detail", args=[table.character.pk])).status_code == 200


def test_post_with_480_nested_spoilers_is_a_400_in_the_api_and_a_form_error_on_the_page(table: Table) -> None:
    response = _api(table.player).post(f"/api/scenes/{table.scene.pk}/posts/", {"body": NESTED_480}, format="json")
    assert_error(response, 400, "body")
    client = Client()
    client.force_login(table.player)
    page = client.post(
        reverse("campaigns:post_create", args=[table.scene.pk]),
        {"body": NESTED_480, "voice": "ooc", "recipients": "all"},
    )
    assert page.status_code in (200, 400)
    assert str(MAX_NESTING) in page.content.decode()


def test_campaign_form_refuses_nesting_as_a_field_error(table: Table) -> None:
    client = Client()
    client.force_login(table.gm)
    page = client.post(
        reverse("campaigns:edit", args=[table.campaign.pk]),
        {"title": "T", "introduction": ">" * 200 + " x", "ruleset": "presagios", "language": "es",
         "visibility": "public", "status": "recruiting"},
    )  # fmt: skip
    assert page.status_code in (200, 400)
    assert str(MAX_NESTING) in page.content.decode()
    assert Campaign.objects.get(pk=table.campaign.pk).introduction == ""


def test_texts_are_rendered_at_write_time_and_pages_do_not_render(table: Table) -> None:
    services.update_campaign(
        actor=table.gm, campaign=table.campaign, introduction="**intro**", synopsis="*sinopsis*", gm_notes="`nota`"
    )
    services.update_scene(actor=table.gm, scene=table.scene, description="## Lugar")
    character = table.character
    character.description, character.history = "**desc**", "> historia"
    character.save()
    campaign = Campaign.objects.get(pk=table.campaign.pk)
    assert campaign.introduction_html == "<p><strong>intro</strong></p>\n"
    assert "<em>sinopsis</em>" in campaign.synopsis_html and "<code>nota</code>" in campaign.gm_notes_html
    assert campaign.markdown_version == RENDERER_VERSION
    assert "<h2>Lugar</h2>" in Scene.objects.get(pk=table.scene.pk).description_html
    client = Client()
    client.force_login(table.gm)
    with mock.patch("campaigns.markdown.render_markdown", side_effect=AssertionError("rendered at view time")):
        pages = [
            client.get(reverse("campaigns:detail", args=[campaign.pk])),
            client.get(reverse("campaigns:scene", args=[table.scene.pk])),
            client.get(reverse("characters:detail", args=[character.pk])),
        ]
    assert [page.status_code for page in pages] == [200, 200, 200]
    assert "<strong>intro</strong>" in pages[0].content.decode() and "<code>nota</code>" in pages[0].content.decode()
    assert "<h2>Lugar</h2>" in pages[1].content.decode()
    assert "<strong>desc</strong>" in pages[2].content.decode()
    assert "<blockquote>" in pages[2].content.decode()


def test_saves_that_do_not_change_a_text_do_not_render_it(table: Table) -> None:
    character = Character.objects.get(pk=table.character.pk)
    with mock.patch("campaigns.stored_markdown.render_markdown") as render:
        character.name = "Otra"
        character.save()
        character.save(update_fields=["name"])
    assert render.call_count == 0


def test_backfill_fills_old_rows_and_keeps_refused_texts_as_plain_paragraphs(table: Table) -> None:
    Campaign.objects.filter(pk=table.campaign.pk).update(
        introduction="**hola**", synopsis=DEEP_SPOILERS[: 12 * 40], introduction_html="", markdown_version=0
    )
    backfill_rendered_html(Campaign, ("introduction", "synopsis", "gm_notes"))
    campaign = Campaign.objects.get(pk=table.campaign.pk)
    assert campaign.introduction_html == "<p><strong>hola</strong></p>\n"
    assert campaign.synopsis_html.startswith("<p>::: spoiler<br>")
    assert "SECRETO-GM" in campaign.gm_notes_html
    assert campaign.markdown_version == RENDERER_VERSION
