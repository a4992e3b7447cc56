"""Every demo page fits a phone (390 px: nothing scrolls sideways; wide tables become stacked rows, long
hashes wrap), and the composer's actions log no console error (issue 28)."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.models import User
from campaigns.demo import load_demo
from campaigns.models import Campaign

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
WIDTHS = "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"


def _pages() -> list[str]:
    urls = ["/", "/dashboard/", "/avisos/"]
    for campaign in Campaign.objects.order_by("pk"):
        base = f"/campaigns/{campaign.pk}"
        urls += [f"{base}/", f"{base}/ledger/", f"{base}/tiradas/", f"{base}/characters/new/"]
        scene = campaign.scenes.order_by("position", "pk").first()
        if scene is not None:
            urls.append(f"/scenes/{scene.pk}/")
        for character in campaign.characters.order_by("pk")[:1]:
            urls += [f"/characters/{character.pk}/", f"/characters/{character.pk}/ledger/"]
    return urls


def test_every_demo_page_fits_390_px(page_for: Any) -> None:
    load_demo()
    page = page_for(User.objects.get(username="directora"), viewport=PHONE)
    wide: list[tuple[str, int]] = []
    for url in _pages():
        response = page.goto(url)
        if response is None or response.status != 200:
            continue
        scroll, client = page.evaluate(WIDTHS)
        if scroll > client:
            wide.append((url, scroll))
    assert wide == [], "\n".join(f"{url}: {scroll}px" for url, scroll in wide)


def test_the_composers_preview_and_publish_log_no_console_error(page_for: Any) -> None:
    load_demo()
    campaign = Campaign.objects.get(ruleset="generic")
    scene = campaign.scenes.order_by("position", "pk").first()
    assert scene is not None
    page = page_for(User.objects.get(username="bruno"), viewport=PHONE)
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"/scenes/{scene.pk}/")
    composer = page.locator("#composer")
    composer.locator("[name='body']").fill("Una prueba de **vista previa**.")
    composer.get_by_role("button", name="Vista previa").click()
    page.locator("#composer-preview strong").wait_for()
    composer.get_by_role("button", name="Publicar").click()
    page.locator(".post", has_text="Una prueba de").first.wait_for()
    # pytest-django's live server is WSGI: the page's live socket cannot connect there (tests/browser/test_live.py
    # runs them on the ASGI server), which is not an error of the composer.
    assert [error for error in errors if "WebSocket" not in error] == []
