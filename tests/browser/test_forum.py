"""The forum people expect, in a real browser (issue 13): a post shows its portrait (and an out-of-character
post its account's avatar); a whisper cannot be
quoted by a third user while its recipient's quote lands in the composer; the preview is the published
rendering; the directory filters; joining a recruiting campaign end to end; the header's unread count
changes live when another user posts.

Every test starts from the personas' table (tests/personas.py): a public campaign with a GM, two players with
their characters, a reader, an outsider, a post for everyone, a GM-only post and a whisper to the first player.
"""

from __future__ import annotations

import io
import mimetypes
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image

from accounts import services as account_services
from accounts.models import User
from campaigns import services
from campaigns.models import CampaignStatus, Role, Visibility, Voice
from characters import services as character_services
from characters.models import Character
from tests.browser.live_helpers import open_live
from tests.personas import Table, build_table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _serve_media(page: Any, root: Path) -> None:
    """The test servers serve static files, not uploads (a real deployment's web server does): answer
    /media/ from MEDIA_ROOT so the page loads the very file the service stored."""

    def fulfil(route: Any) -> None:
        relative = route.request.url.split("/media/", 1)[1]
        path = root / relative
        if not path.is_file():
            route.fulfill(status=404, body="")
            return
        content_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        route.fulfill(status=200, body=path.read_bytes(), content_type=content_type)

    page.route("**/media/**", fulfil)


def _png(size: tuple[int, int] = (120, 160)) -> SimpleUploadedFile:
    data = io.BytesIO()
    Image.new("RGB", size, (150, 40, 40)).save(data, format="PNG")
    return SimpleUploadedFile("retrato.png", data.getvalue(), content_type="image/png")


def _loaded_width(page: Any, selector: str) -> int:
    image = page.locator(selector)
    image.wait_for()
    page.wait_for_function("(img) => img.complete", arg=image.element_handle())
    return int(image.evaluate("img => img.naturalWidth"))


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 900}, {"width": 390, "height": 844}])
def test_a_post_shows_its_portrait(page_for: Any, table: Table, tmp_path: Path, settings: Any, viewport: Any) -> None:
    settings.MEDIA_ROOT = tmp_path
    character_services.set_portrait(actor=table.player, character=table.character, upload=_png())
    portrait = Character.objects.get(pk=table.character.pk).portrait
    account_services.set_avatar(user=table.player2, upload=_png((200, 200)))
    avatar = User.objects.get(pk=table.player2.pk).avatar
    narration = services.create_post(author=table.gm, scene=table.scene, body="Narra", voice=Voice.NARRATOR)
    page = page_for(table.player2, viewport=viewport)
    _serve_media(page, tmp_path)
    page.goto(table.scene.get_absolute_url())

    face = f"#post-{table.post_all.pk} .post-face img.avatar"
    assert page.locator(face).get_attribute("src") == portrait.url
    assert _loaded_width(page, face) > 0  # the stored image, not a broken one
    assert page.locator(face).is_visible()
    # An out-of-character post shows its account's avatar.
    ooc_face = f"#post-{table.post_gms.pk} .post-face img.avatar"
    assert page.locator(ooc_face).get_attribute("src") == avatar.url
    assert _loaded_width(page, ooc_face) > 0
    # Posts without an image (the GM has no avatar) show a monogram, never a broken image.
    monogram = page.locator(f"#post-{narration.pk} .post-face .monogram")
    assert monogram.is_visible() and monogram.inner_text().strip()
    broken = page.evaluate("[...document.images].filter(i => i.complete && i.naturalWidth === 0).length")
    assert broken == 0


def test_quoting_a_whisper_is_impossible_for_a_third_user_and_lands_in_the_recipients_composer(
    page_for: Any, table: Table
) -> None:
    quote_url = f"/posts/{table.whisper.pk}/quote/"
    third = page_for(table.player2)
    third.goto(table.scene.get_absolute_url())
    third.locator("#composer").wait_for()
    assert third.locator(f"#post-{table.whisper.pk}").count() == 0
    assert third.locator(f'a[data-quote-url="{quote_url}"]').count() == 0
    assert third.locator(f'a[data-quote-url="/posts/{table.post_all.pk}/quote/"]').count() == 1  # quoting works
    response = third.request.get(quote_url)
    assert response.status == 404 and "TEXTO-SUSURRO" not in response.text()
    third.goto(f"{table.scene.get_absolute_url()}?quote={table.whisper.pk}")
    assert "TEXTO-SUSURRO" not in third.locator("#composer textarea[name=body]").input_value()

    recipient = page_for(table.player)
    recipient.goto(table.scene.get_absolute_url())
    recipient.evaluate("window.__notReloaded = true")
    recipient.locator(f'#post-{table.whisper.pk} a[data-quote-url="{quote_url}"]').click()
    body = recipient.locator("#composer textarea[name=body]")
    recipient.wait_for_function(
        "() => document.querySelector('#composer textarea[name=body]').value.includes('TEXTO-SUSURRO')"
    )
    assert body.input_value().startswith("> TEXTO-SUSURRO")
    assert f"/posts/{table.whisper.pk}/" in body.input_value()  # the link to the quoted post
    assert recipient.evaluate("window.__notReloaded") is True  # inserted in place, no reload


def test_preview_equals_the_published_rendering(page_for: Any, table: Table) -> None:
    text = "**Negrita** y _cursiva_, con [enlace](https://example.org/).\n\n> cita\n\n- uno\n- dos\n\n`código`"
    page = page_for(table.player)
    page.goto(table.scene.get_absolute_url())
    page.select_option("#composer select[name=voice]", Voice.OOC)
    page.fill("#composer textarea[name=body]", text)
    page.get_by_role("button", name="Vista previa").click()
    preview = page.locator("#composer-preview [data-preview-body]")
    preview.wait_for()
    previewed = preview.inner_html()

    posts_before = page.locator("#posts article.post").count()
    page.locator("#composer button[type=submit]").click()
    page.locator("#posts article.post").nth(posts_before).wait_for()
    published = page.locator("#posts article.post").last.locator(".post-body").inner_html()
    assert "<strong>Negrita</strong>" in previewed
    assert published.strip() == previewed.strip()


def test_the_directory_filters_by_ruleset(page_for: Any, table: Table) -> None:
    other = services.create_campaign(creator=table.gm, title="OTRA-PARTIDA", ruleset="fate-sotc")
    services.update_campaign(actor=table.gm, campaign=other, visibility=Visibility.PUBLIC)
    page = page_for(table.outsider)
    page.goto("/")
    directory = page.locator("section[aria-labelledby=public-title]")
    assert directory.get_by_text("OTRA-PARTIDA").count() == 1
    assert directory.get_by_text(table.campaign.title).count() == 1

    page.select_option("select[name=ruleset]", "fate-sotc")
    page.get_by_role("button", name="Filtrar").click()
    page.wait_for_url("**/?*ruleset=fate-sotc*")
    cards = directory.locator(".directory-card h3 a")
    assert cards.all_inner_texts() == ["OTRA-PARTIDA"]
    assert page.locator("select[name=ruleset]").input_value() == "fate-sotc"  # the filter stays chosen


def test_joining_a_recruiting_campaign_end_to_end(page_for: Any, table: Table) -> None:
    services.update_campaign(
        actor=table.gm, campaign=table.campaign, status=CampaignStatus.RECRUITING, recruiting_message="Se buscan"
    )
    outsider = page_for(table.outsider)
    outsider.goto("/?recruiting=on")
    outsider.locator(".directory-card h3 a", has_text=table.campaign.title).click()
    outsider.select_option("select[name=role]", Role.PLAYER)
    outsider.fill("textarea[name=message]", "Me apunto")
    outsider.get_by_role("button", name="Pedir unirse").click()
    outsider.get_by_role("button", name="Retirar la solicitud").wait_for()

    gm = page_for(table.gm)
    gm.goto(table.campaign.get_absolute_url())
    request = gm.locator("section[aria-labelledby=requests-title] li", has_text=table.outsider.public_name)
    assert "Me apunto" in request.inner_text()
    request.get_by_role("button", name="Aceptar").click()
    gm.locator("section[aria-labelledby=requests-title]").get_by_text("No hay solicitudes pendientes.").wait_for()

    outsider.goto(table.scene.get_absolute_url())
    outsider.locator("#composer textarea[name=body]").wait_for()
    assert table.campaign.memberships.get(user=table.outsider).role == Role.PLAYER


def test_the_header_unread_count_changes_live_when_another_user_posts(live_page_for: Any) -> None:
    table = build_table(Visibility.PUBLIC, prefix="f6_")
    page = open_live(live_page_for(table.player), table.campaign.get_absolute_url())
    count = page.locator("#unread-count")
    count.locator(".unread-count").wait_for()  # loaded: the GM's whisper to this player is unread
    before = count.inner_text()

    services.create_post(author=table.player2, scene=table.scene, body="NUEVO-MENSAJE", voice=Voice.OOC)
    page.wait_for_function(
        "(before) => document.querySelector('#unread-count').innerText !== before", arg=before, timeout=15_000
    )
    assert count.inner_text() != before
