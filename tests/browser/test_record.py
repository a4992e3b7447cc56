"""The record in a real browser: a search finds a phrase and its result jumps to the post in its thread; the
downloaded book opens in Chromium with its dice visible."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from campaigns import services
from campaigns.models import Voice
from rolls.services import RollSpec, create_post_with_rolls
from systems.dice import ScriptedDice
from tests.personas import make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_search_finds_a_phrase_and_jumps_to_the_post(page_for: Any) -> None:
    gm = make_user("directora", "Directora")
    campaign = services.create_campaign(creator=gm, title="La casa", ruleset="generic")
    scene = services.create_scene(actor=gm, campaign=campaign, title="El sótano")
    for n in range(30):  # the wanted post lands on the thread's second page
        services.create_post(author=gm, scene=scene, body=f"Relleno número {n}.", voice=Voice.OOC)
    wanted = services.create_post(
        author=gm, scene=scene, body="La linterna parpadea junto al pozo.", voice=Voice.NARRATOR
    )
    page = page_for(gm)
    page.goto("/buscar/")
    page.fill("input[name=q]", '"linterna parpadea"')
    page.get_by_role("button", name="Buscar").last.click()
    result = page.locator(".search-hit").first
    assert "linterna" in result.locator("mark").first.inner_text().lower()  # FTS5 marks the whole phrase
    result.locator("a.search-hit-link").click()
    page.wait_for_url(f"**#post-{wanted.pk}")
    assert page.locator(f"#post-{wanted.pk}").is_visible()
    assert "parpadea" in page.locator(f"#post-{wanted.pk}").inner_text()


def test_book_download_opens_with_its_dice(page_for: Any, tmp_path: Path) -> None:
    gm = make_user("directora", "Directora")
    campaign = services.create_campaign(creator=gm, title="La casa", ruleset="generic")
    scene = services.create_scene(actor=gm, campaign=campaign, title="El sótano")
    create_post_with_rolls(
        author=gm, scene=scene, body="Bajamos.", voice=Voice.NARRATOR,
        rolls=[RollSpec(kind="notation", data={"expression": "3d6"}, label="Valor")], dice=ScriptedDice([2, 4, 6]),
    )  # fmt: skip
    page = page_for(gm)
    page.goto(f"/campaigns/{campaign.pk}/exportar/")
    with page.expect_download() as download:
        page.get_by_role("link", name="Libro (HTML)").click()
    book = tmp_path / "libro.html"
    download.value.save_as(book)
    reader = page_for(None)
    reader.goto(book.as_uri())
    dice = reader.locator(".rolls .die")
    assert dice.count() == 3
    assert [dice.nth(i).inner_text() for i in range(3)] == ["2", "4", "6"]
    assert dice.first.is_visible()
    assert reader.locator("h2", has_text="El sótano").is_visible()
