"""The English catalogue: complete, compiled, and what English pages actually show.

The .po file is read with a small reader of our own (no polib): every entry has a translation, none is
fuzzy, placeholders survive, and the committed .mo says the same as the .po. Then a sample of pages is
rendered in English (language cookie or /i18n/setlang/) and back in Spanish.
"""

from __future__ import annotations

import gettext
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils import translation

LOCALE = Path(settings.BASE_DIR) / "locale" / "en" / "LC_MESSAGES"
PO = LOCALE / "django.po"
MO = LOCALE / "django.mo"

PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|%[sd]")


# --- A small .po reader -----------------------------------------------------------------------------


@dataclass
class Entry:
    msgid: str = ""
    msgid_plural: str | None = None
    msgctxt: str | None = None
    msgstr: dict[int, str] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)
    obsolete: bool = False
    line: int = 0


def _unquote(text: str) -> str:
    text = text.strip()
    assert text.startswith('"') and text.endswith('"'), text
    out, i, body = [], 0, text[1:-1]
    escapes = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "r": "\r"}
    while i < len(body):
        if body[i] == "\\":
            out.append(escapes[body[i + 1]])
            i += 2
        else:
            out.append(body[i])
            i += 1
    return "".join(out)


def read_po(path: Path) -> list[Entry]:
    entries: list[Entry] = []
    current = Entry()
    target: tuple[str, int] | None = None
    started = False

    def flush() -> None:
        nonlocal current, started, target
        if started:
            entries.append(current)
        current, started, target = Entry(), False, None

    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.strip()
        if not line:
            flush()
            continue
        if line.startswith("#~"):
            current.obsolete = True
            continue
        if line.startswith("#,"):
            current.flags |= {f.strip() for f in line[2:].split(",") if f.strip()}
            continue
        if line.startswith("#"):
            continue
        match = re.match(r"^(msgctxt|msgid_plural|msgid|msgstr(?:\[(\d+)\])?)\s+(\".*\")$", line)
        if match:
            keyword, index, value = match.groups()
            if not started:
                current.line = number
            started = True
            if keyword.startswith("msgstr"):
                target = ("msgstr", int(index or 0))
                current.msgstr[target[1]] = _unquote(value)
            else:
                target = (keyword, 0)
                setattr(current, keyword, _unquote(value))
            continue
        assert line.startswith('"') and target is not None, f"{path}:{number}: unexpected line {raw!r}"
        if target[0] == "msgstr":
            current.msgstr[target[1]] += _unquote(line)
        else:
            setattr(current, target[0], (getattr(current, target[0]) or "") + _unquote(line))
    flush()
    return entries


@pytest.fixture(scope="module")
def catalogue() -> list[Entry]:
    return [e for e in read_po(PO) if e.msgid and not e.obsolete]


def _where(entry: Entry) -> str:
    return f"django.po:{entry.line} {entry.msgid!r}"


# --- The catalogue ----------------------------------------------------------------------------------


def test_catalogue_is_large_and_has_a_clean_header() -> None:
    entries = read_po(PO)
    header = entries[0]
    assert header.msgid == ""
    assert "fuzzy" not in header.flags
    assert "Language: en" in header.msgstr[0]
    assert "Plural-Forms: nplurals=2; plural=(n != 1);" in header.msgstr[0]
    assert len(entries) > 1000


def test_every_entry_is_translated(catalogue: list[Entry]) -> None:
    untranslated = [_where(e) for e in catalogue if not e.msgstr or not all(v.strip() for v in e.msgstr.values())]
    assert not untranslated, "untranslated:\n" + "\n".join(untranslated)


def test_no_entry_is_fuzzy(catalogue: list[Entry]) -> None:
    fuzzy = [_where(e) for e in catalogue if "fuzzy" in e.flags]
    assert not fuzzy, "fuzzy (check the translation, then drop the flag):\n" + "\n".join(fuzzy)


def test_plurals_have_both_forms(catalogue: list[Entry]) -> None:
    plurals = [e for e in catalogue if e.msgid_plural is not None]
    assert plurals
    broken = [_where(e) for e in plurals if sorted(e.msgstr) != [0, 1]]
    assert not broken, "\n".join(broken)


def test_placeholders_survive_translation(catalogue: list[Entry]) -> None:
    wrong = []
    for e in catalogue:
        if e.msgid_plural is None:
            if sorted(PLACEHOLDER.findall(e.msgid)) != sorted(PLACEHOLDER.findall(e.msgstr.get(0, ""))):
                wrong.append(_where(e))
        else:
            plural = sorted(PLACEHOLDER.findall(e.msgid_plural))
            if sorted(PLACEHOLDER.findall(e.msgstr.get(1, ""))) != plural:
                wrong.append(_where(e))
            if set(PLACEHOLDER.findall(e.msgstr.get(0, ""))) - set(plural):
                wrong.append(_where(e))
    assert not wrong, "placeholders differ:\n" + "\n".join(wrong)


def test_no_translation_is_left_in_spanish(catalogue: list[Entry]) -> None:
    """Catch a copied msgid: Spanish-only letters in a translation (names like "Español" aside)."""
    allowed = {"Español", "Presagios"}
    spanish = [
        _where(e)
        for e in catalogue
        for value in e.msgstr.values()
        if re.search(r"[ñ¿¡áíóú]", value) and value not in allowed
    ]
    assert not spanish, "\n".join(spanish)


@pytest.mark.skipif(shutil.which("msgfmt") is None, reason="GNU gettext (msgfmt) is not installed")
def test_catalogue_compiles_with_msgfmt(tmp_path: Path) -> None:
    result = subprocess.run(
        ["msgfmt", "--check-format", "--statistics", "-o", str(tmp_path / "django.mo"), str(PO)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "untranslated" not in result.stderr and "fuzzy" not in result.stderr, result.stderr


SOURCE_DIRS = (
    "accounts",
    "campaigns",
    "characters",
    "notifications",
    "operations",
    "record",
    "rolls",
    "rulesets",
    "systems",
    "taskqueue",
    "templates",
    "tintero",
)


@pytest.mark.skipif(shutil.which("xgettext") is None, reason="GNU gettext (xgettext) is not installed")
def test_catalogue_holds_every_string_of_the_sources(tmp_path: Path, catalogue: list[Entry]) -> None:
    """A string marked for translation in the code but missing from the .po would show in Spanish on English
    pages. makemessages runs on a copy of the sources, so the committed catalogue is left alone."""
    base = Path(settings.BASE_DIR)
    for name in SOURCE_DIRS:
        shutil.copytree(base / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(base / "manage.py", tmp_path / "manage.py")
    (tmp_path / "locale" / "en" / "LC_MESSAGES").mkdir(parents=True)
    result = subprocess.run(
        [sys.executable, "manage.py", "makemessages", "-l", "en", "--no-location", "-v", "0"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        env={
            **os.environ,
            "SQLITE_PATH": str(tmp_path / "unused.sqlite3"),
            "DJANGO_SETTINGS_MODULE": "tintero.settings",
        },
    )
    assert result.returncode == 0, result.stderr
    extracted = {(e.msgctxt, e.msgid) for e in read_po(tmp_path / "locale/en/LC_MESSAGES/django.po") if e.msgid}
    committed = {(e.msgctxt, e.msgid) for e in catalogue}
    missing = sorted(msgid for _ctx, msgid in extracted - committed)
    assert not missing, "run `make messages-update` and translate:\n" + "\n".join(missing)


def test_compiled_catalogue_matches_the_po(catalogue: list[Entry]) -> None:
    """The committed .mo is what Django loads: it must carry every current translation (run compilemessages)."""
    with MO.open("rb") as handle:
        compiled = gettext.GNUTranslations(handle)
    stale = []
    for e in catalogue:
        key = f"{e.msgctxt}\x04{e.msgid}" if e.msgctxt else e.msgid
        if e.msgid_plural is None:
            got = compiled.pgettext(e.msgctxt, e.msgid) if e.msgctxt else compiled.gettext(e.msgid)
            if got != e.msgstr[0]:
                stale.append(_where(e))
        else:
            for n, form in ((1, 0), (2, 1)):
                got = compiled.ngettext(key, e.msgid_plural, n) if not e.msgctxt else None
                if got is not None and got != e.msgstr[form]:
                    stale.append(_where(e))
    assert not stale, "the .mo is out of date with the .po:\n" + "\n".join(stale[:20])


# --- Glossary terms -----------------------------------------------------------------------------------

GLOSSARY = {
    "Máster": "GM",
    "Novedades": "What's new",
    "Off-topic": "Off-topic",
    "Puntos de destino": "Fate points",
    "Puntos de Destino": "Fate points",
    "Consecuencias": "Consequences",
    "Proezas": "Stunts",
    "Virtudes": "Stunts",
    "Amenaza": "Threat",
    "Puntos de superación": "Overcome points",
    "Protección de guión": "Script protection",
    "Cofre de esperanza": "Hope chest",
    "Cofre de desesperación": "Despair chest",
    "Disciplina": "Discipline",
    "Agotamiento": "Exhaustion",
    "Locura": "Madness",
    "Éxito crítico": "Success with style",
    "Forzado de situación": "Event compel",
    "Puño izquierdo": "Left fist",
    "Éxito absoluto": "Absolute success",
    "Fallo crítico": "Critical failure",
}


@pytest.mark.parametrize(("spanish", "english"), sorted(GLOSSARY.items()))
def test_game_terms_follow_the_rules_glossaries(spanish: str, english: str) -> None:
    with translation.override("en"):
        assert translation.gettext(spanish) == english
    with translation.override("es"):
        assert translation.gettext(spanish) == spanish


def test_plural_forms_in_english() -> None:
    with translation.override("en"):
        assert translation.ngettext("%(n)s punto de destino", "%(n)s puntos de destino", 1) % {"n": 1} == "1 fate point"
        assert (
            translation.ngettext("%(n)s punto de destino", "%(n)s puntos de destino", 3) % {"n": 3} == "3 fate points"
        )


# --- Pages in English and back ----------------------------------------------------------------------


def english_client(user=None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    return client


def visible(response) -> str:
    html = response.content.decode()
    html = re.sub(r"<(style|script)\b.*?</\1>", " ", html, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


@pytest.mark.django_db
def test_home_page_in_english_by_cookie() -> None:
    response = english_client().get("/")
    assert response.status_code == 200
    text = visible(response)
    html = response.content.decode()
    assert '<html lang="en">' in html
    for word in ("Campaigns", "Log in", "Sign up", "Public campaigns"):
        assert word in text, word
    for word in ("Partidas", "Entrar", "Crear cuenta"):
        assert word not in text, word


@pytest.mark.django_db
def test_setlang_switches_to_english_and_back_to_spanish() -> None:
    client = Client()
    assert "Partidas" in visible(client.get("/"))
    response = client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    assert response.status_code == 302
    text = visible(client.get("/"))
    assert "Campaigns" in text and "Log in" in text
    assert "Partidas" not in text and "Entrar" not in text

    response = client.post("/i18n/setlang/", {"language": "es", "next": "/"})
    assert response.status_code == 302
    text = visible(client.get("/"))
    assert "Partidas" in text and "Entrar" in text
    assert "Log in" not in text and "Public campaigns" not in text


@pytest.mark.django_db
def test_login_and_signup_pages_in_english() -> None:
    client = english_client()
    login = visible(client.get(reverse("accounts:login")))
    assert "Don't have an account yet?" in login and "Create one" in login
    signup = visible(client.get(reverse("accounts:signup")))
    assert "Already have an account?" in signup
    assert "¿Ya tienes cuenta?" not in signup


@pytest.mark.django_db
def test_missing_page_in_english() -> None:
    response = english_client().get("/no-such-page/")
    assert response.status_code == 404
    text = visible(response)
    assert "This page does not exist" in text
    assert "Esta página no existe" not in text


def test_campaign_scene_and_messages_in_english(table) -> None:
    client = english_client(table.gm)
    detail = visible(client.get(reverse("campaigns:detail", args=[table.campaign.pk])))
    for word in ("Scenes", "New scene", "Members", "Edit campaign", "Off-topic"):
        assert word in detail, word
    for word in ("Escenas", "Nueva escena", "Miembros", "Editar partida"):
        assert word not in detail, word

    scene = visible(client.get(reverse("campaigns:scene", args=[table.scene.pk])))
    assert "Edit scene" in scene and "Post" in scene
    assert "Editar escena" not in scene and "Publicar" not in scene

    response = client.post(reverse("campaigns:scene_status", args=[table.scene.pk]), {"status": "closed"}, follow=True)
    assert "Scene closed: players can no longer write." in visible(response)


def test_player_sees_english_home_and_whats_new(table) -> None:
    client = english_client(table.player)
    home = visible(client.get("/"))
    assert "My campaigns" in home and "What's new" in home and "Log out" in home
    assert "Mis partidas" not in home and "Novedades" not in home and "Salir" not in home


@pytest.mark.django_db
def test_fate_accelerated_sheet_in_english() -> None:
    from rulesets.fate_accelerated.tests.sheet_fixtures import build_fae

    fae = build_fae(rules_settings={"gm_fate_point_pool": True})
    client = english_client(fae.player)
    sheet = visible(client.get(reverse("characters:detail", args=[fae.ana.pk])))
    for word in ("Fate points", "Stress track", "Consequences", "Approaches", "High concept", "Trouble"):
        assert word in sheet, word
    for word in ("Puntos de destino", "Contador de estrés", "Consecuencias", "Estilos", "Concepto principal"):
        assert word not in sheet, word

    spanish = Client()
    spanish.force_login(fae.player)
    sheet_es = visible(spanish.get(reverse("characters:detail", args=[fae.ana.pk])))
    assert "Puntos de destino" in sheet_es and "Fate points" not in sheet_es
