"""axe-core over every page of the demo, as GM, player, reader and anonymous: no serious or critical
violation. And keyboard-only posting works: a player reaches the composer, writes and publishes with
the keyboard alone.

axe-core is vendored (tests/browser/vendor/axe.min.js, MPL-2.0, from the npm package axe-core): nothing is
fetched at test time. One test loads the demo once and walks every page, so a failure reports every page
and rule at once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.urls import reverse

from accounts.models import User
from campaigns.demo import load_demo
from campaigns.models import Campaign, Scene, Visibility
from characters.models import Character

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

AXE = (Path(__file__).parent / "vendor" / "axe.min.js").read_text()
BLOCKING = {"serious", "critical"}


def _pages_for(user: User | None) -> list[str]:
    """The demo's pages this viewer can open: the site's own, each campaign, its scenes and sheets."""
    pages = ["/", "/accounts/login/"] if user is None else ["/", "/novedades/", "/dashboard/", "/accounts/profile/"]
    campaigns = Campaign.objects.all() if user is None else Campaign.objects.filter(memberships__user=user)
    if user is None:
        campaigns = campaigns.filter(visibility=Visibility.PUBLIC)
    for campaign in campaigns.order_by("id"):
        pages.append(campaign.get_absolute_url())
        scene = Scene.objects.filter(campaign=campaign, is_offtopic=False).order_by("position", "id").first()
        if scene is not None:
            pages.append(scene.get_absolute_url())
        character = Character.objects.filter(campaign=campaign, is_npc=False).order_by("id").first()
        if character is not None and user is not None:
            pages.append(reverse("characters:detail", args=[character.pk]))
    return pages


def _violations(page: Any, path: str) -> list[str]:
    page.goto(path)
    page.add_script_tag(content=AXE)
    result = page.evaluate("async () => (await axe.run(document, {resultTypes: ['violations']})).violations")
    return [
        f"{path}: {v['id']} ({v['impact']}) on {len(v['nodes'])} node(s): {v['nodes'][0]['target']}"
        for v in result
        if v["impact"] in BLOCKING
    ]


def test_axe_finds_no_serious_violation_on_any_demo_page(page_for: Any) -> None:
    load_demo()
    # Every page for every viewer in Spanish; in English, the same kinds of page once each (the structure
    # and colours do not change with the language, the words and their lengths do). Bounded: about a
    # minute and a half on a quiet 2-core machine.
    viewers: list[tuple[User | None, str, int | None]] = [
        (User.objects.get(username="directora"), "es", None),
        (User.objects.get(username="ana"), "es", None),
        (User.objects.get(username="lector"), "es", None),
        (None, "es", None),
        (User.objects.get(username="directora"), "en", 7),
        (None, "en", 4),
    ]
    found: list[str] = []
    for user, language, limit in viewers:
        # axe is injected as a script of the test's own: the page's CSP (no inline script) is bypassed for it.
        page = page_for(user, language, bypass_csp=True)
        who = user.username if user else "anonymous"
        for path in _pages_for(user)[:limit]:
            found.extend(f"[{who}, {language}] {line}" for line in _violations(page, path))
    assert not found, "\n".join(found)


def test_a_player_posts_with_the_keyboard_alone(page_for: Any) -> None:
    load_demo()
    ana = User.objects.get(username="ana")
    scene = Scene.objects.filter(campaign__memberships__user=ana, is_offtopic=False).order_by("id").first()
    assert scene is not None
    page = page_for(ana)
    page.goto(scene.get_absolute_url())
    body = page.locator("#composer textarea[name=body]")
    # Tab from the top of the page until the composer's text has focus: every control before it is reachable.
    for _ in range(400):
        page.keyboard.press("Tab")
        if body.evaluate("el => el === document.activeElement"):
            break
    else:
        pytest.fail("the composer's text area cannot be reached with Tab")
    page.keyboard.type("Escrito solo con el teclado.")
    publish = page.locator("#composer button[type=submit]")
    for _ in range(200):
        page.keyboard.press("Tab")
        if publish.evaluate("el => el === document.activeElement"):
            break
    else:
        pytest.fail("the publish button cannot be reached with Tab")
    page.keyboard.press("Enter")
    page.locator(".post-body", has_text="Escrito solo con el teclado.").wait_for()
