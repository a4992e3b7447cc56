#!/usr/bin/env python3
"""Verify a Tintero campaign's roll log without trusting the server. Standard library only.

Usage:
    python3 verify_rolls.py ARCHIVE_OR_LOG.json
    python3 verify_rolls.py https://tintero.example/api/campaigns/42/roll-log/

The input is either the roll log (``/campaigns/<id>/tiradas/?format=json`` or ``/api/campaigns/<id>/roll-log/``)
or a whole campaign archive (its ``roll_chain`` and ``rolls``). For each link, in order, the verifier checks:

1. ``seq`` is 1, 2, 3…;
2. ``prev`` is the previous link's ``hash`` (64 zeros for the first);
3. ``hash`` = sha256(canonical {"commitment", "prev", "seq"});
4. when the link is open to you (``salt`` and ``content`` present): ``commitment`` = sha256(salt + canonical
   content), and in an archive the roll stored with that ``chain_seq`` has the same ruleset, kind, label,
   request (inputs), result (faces), secrecy and roller as the content.

Canonical JSON: keys sorted, separators "," and ":", UTF-8 without escapes. It prints the first broken link
and exits with status 1, or prints OK and exits with 0. Keep the ``head`` hash you verified: a later log must
extend it, never replace it.

An imported campaign's chain starts with links marked ``"imported": true``: the history of the archive it
was imported from, rolled on another site. They verify only against themselves (anyone can recompute a chain
over invented rolls), so the verifier reports them apart, with their head; the rolls made on this site follow,
the first one's ``prev`` being that head, so a later rewrite of the imported history breaks them.
"""

from __future__ import annotations

import hashlib
import json
import sys
import urllib.request
from typing import Any

GENESIS = "0" * 64
ROLL_FACTS = ("ruleset", "kind", "label", "request", "result", "gm_only", "roller")


def canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def check_link(entry: dict[str, Any], seq: int, prev: str, rolls_by_seq: dict[int, dict[str, Any]]) -> str:
    """The fault of one link, or "" when it holds."""
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
    for index, entry in enumerate(entries):
        fault = check_link(entry, index + 1, prev, rolls_by_seq)
        if not fault and entry.get("imported"):
            if imported != index:
                fault = "an imported link follows a link rolled here"
            imported, imported_head = index + 1, str(entry["hash"])
        if fault:
            return index + 1, f"BROKEN at link {index + 1}: {fault}"
        opened += entry.get("content") is not None
        prev = str(entry["hash"])
    chained = {entry.get("seq") for entry in entries}
    for seq in sorted(rolls_by_seq):
        if seq not in chained:
            return seq, f"BROKEN at link {seq}: a roll names a link the chain does not have"
    message = f"OK: {len(entries)} links verified, {opened} opened and matched; head {prev}"
    if imported:
        message += (
            f"\n  links 1-{imported}: imported history, rolled on another site; they hold only against themselves"
            f" (head {imported_head})\n  links {imported + 1}-{len(entries)}: rolled here, after that head"
        )
    return None, message


def load(source: str) -> Any:
    if source.startswith(("http://", "https://")):
        request = urllib.request.Request(source, headers={"Accept": "application/json"})
        with urllib.request.urlopen(request) as response:  # the user names the URL to check
            return json.load(response)
    with open(source, encoding="utf-8") as handle:
        return json.load(handle)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print((__doc__ or "").strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    broken, message = verify(load(argv[1]))
    print(message)
    return 0 if broken is None else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
