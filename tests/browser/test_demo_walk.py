"""A table can play the demo without the page asking for ids or showing internals (issue 10).

One demo load. First the GM opens each scene's first procedure and a player publishes a roll with the builder,
so the pages show play, not only empty forms. Then the main scene of every demo campaign, as the GM and as one
of its players, in Spanish (and the GM's English page for SotC and Presagios), at a phone's 390 px with the
composer, its roll builder and the procedures' start forms open:
- no form field asks for an id (a label "(id)" / "id de …", or a free text/number input named ``…_id``);
- no Python literal or internal key in the visible text (``[1, 6, 4]``, True/False/None, snake_case names),
  no English procedure title on a Spanish page and no Spanish rule word on an English one;
- nothing scrolls sideways;
- the FATE scene-aspects panel only in the FATE campaigns;
- the GM's composer starts as the narrator.
Every finding is collected, so one run reports every page and check at once.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from accounts.models import User
from campaigns.demo import CAMPAIGNS, load_demo
from campaigns.models import Campaign, Scene
from rolls.models import Flow, Roll

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}

# Findings known and owned elsewhere: (ruleset, the finding's text) -> why. When only these remain the test
# xfails naming them; delete an entry once its fix is merged (the test then checks it again).
# Findings that belong to work in progress elsewhere, by ruleset and line, with why (none left now).
KNOWN: dict[tuple[str, str], str] = {}
FATE_RULESETS = {"fate-sotc", "fate-accelerated"}
ENGLISH_TOO = {"fate-sotc", "presagios"}  # the English page of the two rulesets whose words leaked into it

# "[1, 6, 4]" or a lone "[0]"; not the rulesets' printed dice, "[6][4][4][2] → 6" (Presagios, FATE's "[+][ ]"),
# nor dice notation's own, "1d20[17]+4" (generic).
PYTHON_LIST = re.compile(r"\[\s*-?\d+(?:\s*,\s*-?\d+)+\s*\]|(?<![\]\d])\[-?\d+\](?!\[| →)")
PYTHON_WORD = re.compile(r"\b(?:True|False|None)\b")
SNAKE_CASE = re.compile(r"\b[a-z]+_[a-z_]+\b")
ENGLISH_TITLE = re.compile(r"\b(?:Invocation|Attack|Advantage|Action|Challenge|Conflict)\b")
# Spanish words of the rules on the English page (the demo's own story is Spanish and stays so).
SPANISH_RULE_WORD = re.compile(
    r"\b(?:Tirada|Habilidad|Ataque|Maniobra|Dificultad|Procedimientos?|Forzado|Esfuerzo|Acción|Interacción|Cognición)\b"
)
ASKS_FOR_ID = re.compile(r"\(id\)|\bid\b|\bID\b")

# The visible text, labels and free inputs of the page, with every <details> of the composer and the
# procedures opened (the roll builder loads its fragment when opened).
READ_PAGE = """() => {
  const labelOf = (el) => {
    const byFor = el.id ? document.querySelector(`label[for="${CSS.escape(el.id)}"]`) : null;
    const label = byFor || el.closest('label');
    return (label ? label.innerText : '') + ' ' + (el.getAttribute('aria-label') || '');
  };
  const fields = [...document.querySelectorAll('input, select, textarea')]
    .filter((el) => el.type !== 'hidden')
    .map((el) => ({name: el.name || '', type: el.tagName === 'INPUT' ? el.type : el.tagName.toLowerCase(),
                   label: labelOf(el).trim()}));
  return {
    text: document.body.innerText,
    fields,
    scrollWidth: document.documentElement.scrollWidth,
    aspects: !!document.querySelector('#aspects, #live-aspects'),
    voice: (document.querySelector('#composer [name=voice]') || {}).value || '',
  };
}"""


def _open_everything(page: Any, *, builder: bool = True) -> None:
    """Open the composer's roll builder (its fragment arrives over htmx) and the procedures' start forms."""
    # The procedures section loads after the page; its start form may be a <details>.
    page.locator("#scene-flows[aria-label]").wait_for(state="attached")
    summary = page.locator("#composer details.roll-builder summary")
    if builder and summary.count():
        summary.first.click()
        page.locator("#composer details.roll-builder .roll-builder-fields").wait_for(state="attached")
    # Open them all at once (clicking one by one re-counts a live ":not([open])" list as it changes).
    page.evaluate("document.querySelectorAll('#scene-flows details').forEach(d => { d.open = true; })")
    page.wait_for_load_state("networkidle")


# Fills what a start form requires or leaves undecided (a name, a number, a difficulty), so the GM can open it.
FILL_REQUIRED = """(form) => {
  for (const el of form.querySelectorAll('input[required], textarea[required]')) {
    if (el.value) continue;
    el.value = el.type === 'number' ? (el.min && Number(el.min) > 3 ? el.min : '3') : 'Prueba';
  }
  // Every picker, but a SotC compel's instigator: left empty it means "nobody", the only choice that suits
  // every kind of compel (a named instigator is for a tag for effect alone).
  for (const el of form.querySelectorAll('select:not([name=instigator])')) {
    if (el.value) continue;
    const chosen = [...el.options].find((option) => option.value);
    if (chosen) el.value = chosen.value;
  }
}"""


def _open_a_procedure(page: Any, path: str) -> str | None:
    """As the GM, open the scene's first procedure with its preselected choices, so the walk also reads an
    open procedure (its waiting lines, steps and GM-only facts). Returns why not, if it did not open."""
    page.goto(path)
    _open_everything(page, builder=False)
    form = page.locator('#scene-flows form[action*="/start/"]').first
    if not form.count():
        return None  # a ruleset without procedures
    form.evaluate(FILL_REQUIRED)
    with page.expect_response(lambda response: "/start/" in response.url):
        form.locator("button[type=submit]").click()
    page.locator("#scene-flows[aria-label]").wait_for(state="attached")
    if page.locator("#scene-flows article.flow").count():
        return None
    error = page.locator("#scene-flows .flows-error")
    why = error.inner_text() if error.count() else "no error shown"
    return f"the GM could not open the first procedure with its preselected choices: {why}"


def _post_a_roll(page: Any, path: str) -> str | None:
    """As a player, publish a post with the roll builder's first roll type and its preselected choices, so the
    walk also reads a roll of the ruleset in the thread. Returns why not, if no roll was published."""
    page.goto(path)
    _open_everything(page)
    composer = page.locator("#composer")
    kind = composer.locator("[name='roll-kind']")
    if not kind.count():
        return None  # a ruleset without a roll builder
    composer.locator("[name='body']").fill("Lo intento.")
    composer.evaluate(FILL_REQUIRED)
    with page.expect_response(lambda response: response.request.method == "POST"):
        composer.locator("button[type=submit]").click()
    page.goto(path)
    if page.locator("#posts .roll").count():
        return None
    return "the player could not publish a roll with the builder's preselected choices"


def _around(text: str, found: str) -> str:
    """The words around the first occurrence of ``found``, so a finding says where it is."""
    at = text.index(found)
    return " ".join(text[max(0, at - 40) : at + len(found) + 40].split())


def _findings(page: Any, path: str, *, spanish: bool, fate: bool, gm: bool) -> list[str]:
    page.goto(path)
    _open_everything(page)
    seen = page.evaluate(READ_PAGE)
    found: list[str] = []
    for field in seen["fields"]:
        if ASKS_FOR_ID.search(field["label"]):
            found.append(f"a field asks for an id: {field['label']!r} ({field['name']})")
        if field["name"].endswith("_id") and field["type"] in {"text", "number", "search", "textarea"}:
            found.append(f"a free {field['type']} input for an id: {field['name']}")
    text = seen["text"]
    for pattern, what in ((PYTHON_LIST, "a Python list"), (PYTHON_WORD, "a Python literal"), (SNAKE_CASE, "a key")):
        found.extend(f"{what} in the text: {m!r} (in {_around(text, m)!r})" for m in sorted(set(pattern.findall(text))))
    if spanish:
        found.extend(f"an English title: {m!r}" for m in sorted(set(ENGLISH_TITLE.findall(text))))
    else:
        found.extend(
            f"a Spanish rule word: {m!r} (in {_around(text, m)!r})"
            for m in sorted(set(SPANISH_RULE_WORD.findall(text)))
        )
    if seen["scrollWidth"] > PHONE["width"]:
        found.append(f"scrolls sideways at {PHONE['width']} px: {seen['scrollWidth']} px wide")
    if gm and seen["voice"] != "narrator":
        found.append(f"the GM's composer starts as {seen['voice']!r}, not as the narrator")
    if seen["aspects"] != fate:
        found.append("the FATE scene-aspects panel " + ("is missing" if fate else "appears outside FATE"))
    return found


def test_demo_scenes_show_no_ids_no_internals_and_fit_a_phone(page_for: Any) -> None:
    load_demo()
    gm = User.objects.get(username="directora")
    pages: dict[tuple[str, str], Any] = {}

    def page_of(user: User, language: str) -> Any:
        if (user.username, language) not in pages:
            pages[user.username, language] = page_for(user, language, viewport=PHONE)
        return pages[user.username, language]

    found: list[tuple[str, str, str]] = []  # ruleset, viewer, finding
    for spec in CAMPAIGNS:
        scene = Scene.objects.filter(campaign__title=spec.title, is_offtopic=False).order_by("position", "id").first()
        assert scene is not None
        problem = _open_a_procedure(page_of(gm, "es"), scene.get_absolute_url())
        if problem:
            found.append((spec.ruleset, "directora, es", problem))
        player = User.objects.get(username=spec.players[0])
        problem = _post_a_roll(page_of(player, "es"), scene.get_absolute_url())
        if problem:
            found.append((spec.ruleset, f"{player.username}, es", problem))
    # The walk reads what a table sees in play: an open procedure and a roll in every ruleset that has them.
    played = {spec.ruleset for spec in CAMPAIGNS} - {"generic"}
    assert set(Flow.objects.values_list("campaign__ruleset", flat=True)) == played
    # The demo itself rolls in every campaign, generic's dice notation included (issue 28).
    every = {spec.ruleset for spec in CAMPAIGNS}
    assert set(Roll.objects.filter(post__isnull=False).values_list("ruleset", flat=True)) == every
    for spec in CAMPAIGNS:
        campaign = Campaign.objects.get(title=spec.title, created_by=gm)
        scene = Scene.objects.filter(campaign=campaign, is_offtopic=False).order_by("position", "id").first()
        assert scene is not None
        player = User.objects.get(username=spec.players[0])
        fate = spec.ruleset in FATE_RULESETS
        viewers = [(gm, "es"), (player, "es")] + ([(gm, "en")] if spec.ruleset in ENGLISH_TOO else [])
        for user, language in viewers:
            page = page_of(user, language)
            for line in _findings(page, scene.get_absolute_url(), spanish=language == "es", fate=fate, gm=user == gm):
                found.append((spec.ruleset, f"{user.username}, {language}", line))
    unknown = [f"[{ruleset}, {who}] {line}" for ruleset, who, line in found if (ruleset, line) not in KNOWN]
    assert not unknown, "\n".join(unknown)
    known = sorted({KNOWN[ruleset, line] for ruleset, _, line in found})
    if known:
        pytest.xfail("; ".join(known))
