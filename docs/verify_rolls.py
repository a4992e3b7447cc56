#!/usr/bin/env python3
"""Verify a Tintero campaign's roll log without trusting the server. Standard library only.

Usage:
    python3 verify_rolls.py ARCHIVE_OR_LOG.json
    python3 verify_rolls.py [--token TOKEN] https://tintero.example/api/campaigns/42/roll-log/

A private campaign's log needs an API token of one of its members: ``--token`` or the environment variable
``TINTERO_TOKEN`` (sent as ``Authorization: Token …``). An HTTP error (401, 404…) or an answer that is not
JSON ends the run with a clear message and status 2, never a traceback.

The input is either the roll log (``/campaigns/<id>/tiradas/?format=json`` or ``/api/campaigns/<id>/roll-log/``)
or a whole campaign archive (its ``roll_chain`` and ``rolls``). For each link, in order, the verifier checks:

1. ``seq`` is 1, 2, 3…;
2. ``prev`` is the previous link's ``hash`` (64 zeros for the first);
3. ``hash`` = sha256(canonical {"commitment", "prev", "seq"});
4. when the link is open to you (``salt`` and ``content`` present): ``commitment`` = sha256(salt + canonical
   content), and in an archive the roll stored with that ``chain_seq`` has the same ruleset, kind, label,
   request (inputs), result (faces), secrecy and roller as the content;
5. a link that records what happened to a roll afterwards (``content.event``: ``follow_up`` for an
   invocation, a reroll, hope or despair…, ``reveal`` for a secret roll or difficulty shown) names an
   earlier link (``roll_seq``) and, when that link is open to you, the same roll.

A roll log also states its ``length`` and ``head`` (the last link's hash): both must match the links.

Canonical JSON: keys sorted, separators "," and ":", UTF-8 without escapes. It prints the first broken link
and exits with status 1, or prints OK and exits with 0. Keep the ``head`` hash you verified: a later log must
extend it, never replace it.

An imported campaign's chain starts with links marked ``"imported": true``: the history of the archive it
was imported from, rolled on another site. They verify only against themselves (anyone can recompute a chain
over invented rolls), so the verifier reports them apart, with their head; the rolls made on this site follow,
the first one's ``prev`` being that head, so a later rewrite of the imported history breaks them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import urllib.error
import urllib.request
from typing import Any

GENESIS = "0" * 64
ROLL_FACTS = ("ruleset", "kind", "label", "request", "result", "gm_only", "roller")
EVENTS = ("follow_up", "reveal")


class Unreadable(Exception):
    """The log could not be fetched or read: the message says why."""


def canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def check_event(content: dict[str, Any], seq: int, opened: dict[int, dict[str, Any]]) -> str:
    """The fault of a link recording what happened to a roll, or "" when it holds."""
    if content.get("event") not in EVENTS:
        return f"it records an unknown event {content.get('event')!r}"
    roll_seq = content.get("roll_seq")
    if not isinstance(roll_seq, int) or not 1 <= roll_seq < seq:
        return "it does not name an earlier link for its roll"
    earlier = opened.get(roll_seq)
    if earlier is not None and ("event" in earlier or earlier.get("roll") != content.get("roll")):
        return f"it names link {roll_seq}, which is not the roll it is about"
    return ""


def check_link(
    entry: dict[str, Any],
    seq: int,
    prev: str,
    rolls_by_seq: dict[int, dict[str, Any]],
    opened: dict[int, dict[str, Any]] | None = None,
) -> str:
    """The fault of one link, or "" when it holds (``opened``: the contents of the earlier open links)."""
    if entry.get("seq") != seq:
        return f"expected link {seq}, found {entry.get('seq')!r} (links missing or out of order)"
    if entry.get("prev") != prev:
        return "its previous hash is not the hash of the link before it"
    expected = sha256(canonical({"commitment": entry.get("commitment"), "prev": prev, "seq": seq}))
    if expected != entry.get("hash"):
        return "its hash does not cover its commitment and previous hash"
    content = entry.get("content")
    if content is None:
        return ""
    if sha256(str(entry.get("salt")).encode("ascii") + canonical(content)) != entry.get("commitment"):
        return "its content does not open its commitment"
    if isinstance(content, dict) and "event" in content:
        return check_event(content, seq, opened or {})
    roll = rolls_by_seq.get(seq)
    if roll is not None:
        for fact in ROLL_FACTS:
            if roll.get(fact) != content.get(fact):
                return f"the stored roll's {fact} differs from what was chained"
    return ""


def verify(document: dict[str, Any]) -> tuple[int | None, str]:
    """(broken link seq or None, message)."""
    entries = document.get("links", document.get("roll_chain"))
    if not isinstance(entries, list):
        return 0, "this is neither a roll log nor a campaign archive"
    rolls = document.get("rolls") or []
    rolls_by_seq = {r["chain_seq"]: r for r in rolls if r.get("chain_seq")}
    prev, opened, imported, imported_head = GENESIS, 0, 0, GENESIS
    contents: dict[int, dict[str, Any]] = {}
    for index, entry in enumerate(entries):
        fault = check_link(entry, index + 1, prev, rolls_by_seq, contents)
        if not fault and entry.get("imported"):
            if imported != index:
                fault = "an imported link follows a link rolled here"
            imported, imported_head = index + 1, str(entry["hash"])
        if fault:
            return index + 1, f"BROKEN at link {index + 1}: {fault}"
        if entry.get("content") is not None:
            opened += 1
            contents[index + 1] = entry["content"]
        prev = str(entry["hash"])
    claims_fault = _claims_fault(document, len(entries), prev)
    if claims_fault:
        return len(entries), claims_fault
    chained = {entry.get("seq") for entry in entries}
    for seq in sorted(rolls_by_seq):
        if seq not in chained:
            return seq, f"BROKEN at link {seq}: a roll names a link the chain does not have"
    return None, _verdict(len(entries), opened, prev, imported, imported_head)


def _claims_fault(document: dict[str, Any], length: int, head: str) -> str:
    """A roll log states its own length and head: a log missing its last links lies about them."""
    if "links" not in document:
        return ""
    if document.get("length") != length:
        return f"BROKEN: the log claims {document.get('length')!r} links but holds {length}"
    if document.get("head") != head:
        return "BROKEN: the log's head is not the hash of its last link"
    return ""


def _verdict(length: int, opened: int, head: str, imported: int, imported_head: str) -> str:
    message = f"OK: {length} links verified, {opened} opened and matched; head {head}"
    if imported:
        message += (
            f"\n  links 1-{imported}: imported history, rolled on another site; they hold only against themselves"
            f" (head {imported_head})\n  links {imported + 1}-{length}: rolled here, after that head"
        )
    return message


def _error_message(error: urllib.error.HTTPError) -> str:
    try:
        return str(json.loads(error.read())["error"]["message"])
    except (ValueError, KeyError, TypeError):
        return str(error.reason)


def load(source: str, token: str = "") -> Any:
    """The document at ``source`` (a URL or a file); :class:`Unreadable` when it cannot be had."""
    try:
        if source.startswith(("http://", "https://")):
            headers = {"Accept": "application/json"}
            if token:
                headers["Authorization"] = f"Token {token}"
            request = urllib.request.Request(source, headers=headers)
            with urllib.request.urlopen(request) as response:  # the user names the URL to check
                return json.load(response)
        with open(source, encoding="utf-8") as handle:
            return json.load(handle)
    except urllib.error.HTTPError as error:
        hint = " (a private campaign: pass --token or set TINTERO_TOKEN)" if error.code in (401, 403, 404) else ""
        raise Unreadable(f"HTTP {error.code} from {source}: {_error_message(error)}{hint}") from None
    except urllib.error.URLError as error:
        raise Unreadable(f"cannot reach {source}: {error.reason}") from None
    except OSError as error:
        raise Unreadable(f"cannot read {source}: {error.strerror or error}") from None
    except ValueError:
        raise Unreadable(f"{source} is not JSON") from None


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="verify_rolls.py", description="Verify a Tintero roll log.")
    parser.add_argument("source", help="a roll log or campaign archive: a file or a URL")
    parser.add_argument("--token", default=os.environ.get("TINTERO_TOKEN", ""), help="API token (or TINTERO_TOKEN)")
    args = parser.parse_args(argv[1:])
    try:
        document = load(args.source, args.token)
    except Unreadable as error:
        print(f"ERROR: {error}", file=sys.stderr)
        return 2
    if not isinstance(document, dict):
        print("ERROR: this is neither a roll log nor a campaign archive", file=sys.stderr)
        return 2
    broken, message = verify(document)
    print(message)
    return 0 if broken is None else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
