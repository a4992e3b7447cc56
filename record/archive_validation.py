"""What an archive must be before anything of it is written here, checked the way a live write is checked.

An archive is a stranger's writing: its JSON is decoded within the limits the API's parser holds any body to
(no nesting deeper than MAX_DEPTH, no NUL character, no integer beyond 64 bits, no NaN or Infinity), its
parts validate against the typed archive models (record.archive_schema: the columns' widths, the services'
text limits, the enums), its ids are unique and its references resolve, and what belongs to the game goes
through the game's own typed models: the campaign's settings, every sheet (the ruleset's sheet validation, as
an edited draft), every procedure's state and secret, every roll's kind and faces. Each problem names the
path of the bad part (``procedures.0.state.bogus: ...``).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.utils.translation import gettext as _
from pydantic import BaseModel
from pydantic import ValidationError as PydanticValidationError

from characters import portraits
from record import archive_schema as schema
from record.rollchain import verify
from rulesets import registry
from systems.errors import RulesError

MAX_PROBLEMS = 20
MAX_DEPTH = 32
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

# What a ruleset's pure functions may raise on data they were never meant to read (an archive's roll result
# or sheet): the part is refused, with the error's words, instead of answering 500 on a later page.
_UNREADABLE = (RulesError, PydanticValidationError, KeyError, TypeError, ValueError, AttributeError, IndexError)


class ImportRefused(Exception):
    """The archive cannot be imported; ``problems`` says why, in words (nothing was written)."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass
class CheckedArchive:
    """An archive that may be written: its typed parts, and what validation made of them (the sheets as
    the ruleset normalizes them, the portraits re-encoded), by archive id."""

    archive: schema.CampaignArchive
    sheets: dict[int, dict[str, Any]] = field(default_factory=dict)
    portraits: dict[int, ContentFile[bytes]] = field(default_factory=dict)


def _refuse_constant(name: str) -> Any:
    raise ValueError(_("%(name)s no es un número que se pueda guardar.") % {"name": name})


def _where(path: tuple[Any, ...] | None) -> str:
    parts: list[str] = []
    while path is not None:
        path, key = path
        parts.append(str(key))
    return ".".join(reversed(parts)) or "$"


def _fault(value: Any, depth: int) -> str | None:
    """What is wrong with one decoded value by itself (its children are checked on their own), or None;
    the words take the value's place as ``%(where)s``."""
    if isinstance(value, str):
        if "\x00" in value:
            return _("%(where)s: el texto contiene un carácter nulo (U+0000), que no se puede guardar.")
    elif isinstance(value, int) and not isinstance(value, bool):
        if not INT64_MIN <= value <= INT64_MAX:
            return _("%(where)s: número fuera de rango (como mucho %(max)d).") % {
                "where": "%(where)s",
                "max": INT64_MAX,
            }
    elif isinstance(value, dict | list):
        if depth >= MAX_DEPTH:
            message = _("%(where)s: JSON anidado a demasiada profundidad (como mucho %(max)d).")
            return message % {"where": "%(where)s", "max": MAX_DEPTH}
        if isinstance(value, dict) and any("\x00" in key for key in value):
            return _("%(where)s: una clave contiene un carácter nulo (U+0000).")
    return None


def decode(raw: bytes | str) -> Any:
    """The archive's JSON, within the limits of the module docstring; ImportRefused naming the first break."""
    try:
        data = json.loads(raw, parse_constant=_refuse_constant)
    except RecursionError:
        message = _("JSON anidado a demasiada profundidad (como mucho %(max)d).")
        raise ImportRefused([message % {"max": MAX_DEPTH}]) from None
    except (UnicodeDecodeError, ValueError) as exc:  # JSONDecodeError is a ValueError
        raise ImportRefused([_("El archivo no es JSON válido: %(error)s.") % {"error": exc}]) from None
    stack: list[tuple[Any, int, tuple[Any, ...] | None]] = [(data, 0, None)]
    while stack:
        value, depth, path = stack.pop()
        fault = _fault(value, depth)
        if fault is not None:
            raise ImportRefused([fault % {"where": _where(path)}])
        if isinstance(value, dict):
            stack.extend((item, depth + 1, (path, key)) for key, item in value.items())
        elif isinstance(value, list):
            stack.extend((item, depth + 1, (path, index)) for index, item in enumerate(value))
    return data


def _pydantic_problems(exc: PydanticValidationError, prefix: str = "") -> list[str]:
    problems = []
    for err in exc.errors():
        where = ".".join(str(p) for p in (prefix, *err["loc"]) if p != "")
        problems.append(f"{where or '$'}: {err['msg']}")
    return problems


def _typed(data: Any) -> schema.CampaignArchive:
    if not isinstance(data, dict) or data.get("format") != schema.FORMAT:
        raise ImportRefused([_("El archivo no es un archivo de partida de Tintero.")])
    version = data.get("schema_version")
    if isinstance(version, int) and version > schema.SCHEMA_VERSION:
        message = _("El archivo usa la versión %(version)s del formato; este Tintero lee hasta la %(known)s.")
        raise ImportRefused([message % {"version": version, "known": schema.SCHEMA_VERSION}])
    try:
        return schema.CampaignArchive.model_validate(data)
    except PydanticValidationError as exc:
        raise ImportRefused(_pydantic_problems(exc)[:MAX_PROBLEMS]) from None


def _dangling(kind: str, ref: object, where: str) -> str:
    what = {
        "scene": _("la escena %(ref)s"),
        "post": _("el mensaje %(ref)s"),
        "procedure": _("el procedimiento %(ref)s"),
        "character": _("el personaje %(ref)s"),
    }[kind] % {"ref": ref}
    return _("%(where)s nombra %(what)s, que no está en el archivo.") % {"where": where, "what": what}


def _duplicates(part: str, ids: Iterable[int | str]) -> list[str]:
    message = _("%(part)s: el id %(id)s está repetido.")
    return [message % {"part": part, "id": key} for key, count in Counter(ids).items() if count > 1]


def _uniques(archive: schema.CampaignArchive) -> list[str]:
    """Ids, and what the tables hold once each (their unique constraints), refused here, not by the database."""
    problems: list[str] = []
    for part in ("scenes", "characters", "posts", "rolls", "procedures"):
        problems += _duplicates(part, (item.id for item in getattr(archive, part)))
    problems += _duplicates("rolls.chain_seq", (r.chain_seq for r in archive.rolls if r.chain_seq))
    problems += _duplicates("members.handle", (m.handle for m in archive.members))
    problems += _duplicates("procedures.record", (f.record for f in archive.procedures if f.record))
    for i, f in enumerate(archive.procedures):
        problems += _duplicates(f"procedures.{i}.lines.position", (line.position for line in f.lines))
    if sum(s.is_offtopic for s in archive.scenes) > 1:
        problems.append(_("scenes: una partida tiene como mucho una escena fuera de partida."))
    return problems


def _references(archive: schema.CampaignArchive) -> list[str]:
    problems = _uniques(archive)
    scenes = {s.id for s in archive.scenes}
    posts = {p.id for p in archive.posts}
    flows = {f.id for f in archive.procedures}
    characters = {c.id for c in archive.characters}
    for i, p in enumerate(archive.posts):
        if p.scene not in scenes:
            problems.append(_dangling("scene", p.scene, f"posts.{i}"))
        if p.character and p.character not in characters:
            problems.append(_dangling("character", p.character, f"posts.{i}"))
    for i, r in enumerate(archive.rolls):
        if r.scene not in scenes:
            problems.append(_dangling("scene", r.scene, f"rolls.{i}"))
        if r.post and r.post not in posts:
            problems.append(_dangling("post", r.post, f"rolls.{i}"))
        if r.procedure and r.procedure not in flows:
            problems.append(_dangling("procedure", r.procedure, f"rolls.{i}"))
    for i, f in enumerate(archive.procedures):
        if f.scene not in scenes:
            problems.append(_dangling("scene", f.scene, f"procedures.{i}"))
        if f.record and f.record not in posts:
            problems.append(_dangling("post", f.record, f"procedures.{i}"))
    return problems


def _settings(archive: schema.CampaignArchive, problems: list[str]) -> BaseModel | None:
    model = registry.rules(archive.campaign.ruleset).settings_model
    if model is None:
        return None
    try:
        return model.model_validate(archive.campaign.rules_settings)
    except PydanticValidationError as exc:
        problems += _pydantic_problems(exc, "campaign.rules_settings")
        return None


def _words(exc: BaseException) -> str:
    if isinstance(exc, RulesError):
        return exc.message("es")
    return str(exc) or type(exc).__name__


def _sheets(archive: schema.CampaignArchive, settings: BaseModel | None, problems: list[str]) -> dict[int, Any]:
    """Each sheet that passes the ruleset's own validation of an edited draft (its typed model, which refuses
    unknown keys, types and ranges). It is kept as the archive has it: normalizing would rewrite an approved
    sheet that play has moved on from (tracks follow advances the draft rules do not know)."""
    binding = registry.plugin(archive.campaign.ruleset).sheet
    sheets: dict[int, Any] = {}
    for i, character in enumerate(archive.characters):
        if character.sheet is None:
            continue
        try:
            binding.draft_sheet(dict(character.sheet), settings)
            sheets[character.id] = character.sheet
        except PydanticValidationError as exc:
            problems += _pydantic_problems(exc, f"characters.{i}.sheet")
        except _UNREADABLE as exc:
            problems.append(f"characters.{i}.sheet: {_words(exc)}")
    return sheets


def _procedures(archive: schema.CampaignArchive, problems: list[str]) -> None:
    """Each procedure is one of the game's, and its state and secret load through the procedure's models."""
    plugin = registry.plugin(archive.campaign.ruleset)
    for i, f in enumerate(archive.procedures):
        try:
            procedure = plugin.procedure(f.kind)
        except RulesError as exc:
            problems.append(f"procedures.{i}.kind: {_words(exc)}")
            continue
        try:
            procedure.load_state(f.state)
        except PydanticValidationError as exc:
            problems += _pydantic_problems(exc, f"procedures.{i}.state")
        if procedure.secret is None or (f.secret_state is None and f.status != "open"):
            continue
        try:
            procedure.load_secret(f.secret_state or {})
        except PydanticValidationError as exc:
            if f.secret_state is None:  # a reader's archive: an open procedure cannot go on without it
                message = _(
                    "%(where)s: un procedimiento abierto necesita su parte secreta (solo en el archivo de un máster)."
                )
                problems.append(message % {"where": f"procedures.{i}.secret_state"})
            else:
                problems += _pydantic_problems(exc, f"procedures.{i}.secret_state")


def _rolls(archive: schema.CampaignArchive, problems: list[str]) -> None:
    """Each roll is of a game here, of one of its kinds, with faces that game can draw."""
    for i, r in enumerate(archive.rolls):
        try:
            plugin = registry.plugin(r.ruleset)
            plugin.rules.roll_kind(r.kind)
            plugin.rolls.faces(r.kind, r.result)
        except _UNREADABLE as exc:
            problems.append(f"rolls.{i}: {_words(exc)}")


def _chain(archive: schema.CampaignArchive) -> list[str]:
    verdict = verify([link.model_dump() for link in archive.roll_chain], [r.model_dump() for r in archive.rolls])
    if verdict.ok:
        return []
    message = _("El registro de tiradas no se verifica: se rompe en el eslabón %(seq)s (%(reason)s).")
    return [message % {"seq": verdict.broken_at, "reason": verdict.reason}]


def _portraits(archive: schema.CampaignArchive, problems: list[str]) -> dict[int, ContentFile[bytes]]:
    """Each portrait decoded and re-encoded as an upload is (never stored as it came)."""
    files: dict[int, ContentFile[bytes]] = {}
    for i, character in enumerate(archive.characters):
        if not character.portrait:
            continue
        try:
            files[character.id] = portraits.reencode_data_uri(character.portrait)
        except ValidationError as refused:
            problems += [f"characters.{i}.portrait: {message}" for message in refused.messages]
    return files


def parse_archive(raw: bytes | str) -> schema.CampaignArchive:
    """The archive's typed parts, with unique ids and references that resolve; ImportRefused otherwise."""
    archive = _typed(decode(raw))
    problems = _references(archive)
    if archive.campaign.ruleset not in registry.plugins():
        problems.append(_("El sistema de juego «%(key)s» no existe aquí.") % {"key": archive.campaign.ruleset})
    if problems:
        raise ImportRefused(problems[:MAX_PROBLEMS])
    return archive


def check_archive(raw: bytes | str) -> CheckedArchive:
    """Everything of the module docstring; ImportRefused with every problem found (up to MAX_PROBLEMS)."""
    archive = parse_archive(raw)
    problems: list[str] = []
    settings = _settings(archive, problems)
    sheets = _sheets(archive, settings, problems)
    _procedures(archive, problems)
    _rolls(archive, problems)
    problems += _chain(archive)
    if problems:
        raise ImportRefused(problems[:MAX_PROBLEMS])
    files = _portraits(archive, problems)  # last: the costliest, and only for an archive otherwise sound
    if problems:
        raise ImportRefused(problems[:MAX_PROBLEMS])
    return CheckedArchive(archive, sheets, files)
