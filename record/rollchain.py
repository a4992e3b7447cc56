"""The arithmetic of the per-campaign roll chain: canonical JSON and SHA-256. Standard library only, so the
standalone verifier (docs/verify_rolls.py) computes exactly the same bytes.

Each entry of a campaign's chain holds:
- ``seq``: 1, 2, 3… in the order the rolls were made;
- ``content``: the roll's canonical facts (inputs, faces, post, time, who rolled; see ``record.chain``);
- ``salt``: 32 random hex digits;
- ``commitment`` = sha256(salt + canonical(content)): what the chain covers. Salted, so an entry whose content
  is hidden (a secret roll before its reveal, a roll in a whisper) gives nothing away, and opens when shown;
- ``prev``: the previous entry's ``hash`` (64 zeros for the first);
- ``hash`` = sha256(canonical({"seq", "prev", "commitment"})).
Changing any roll's content, or the order of entries, breaks every hash from that link on.

An imported campaign starts with the archive's links, marked ``imported``: another site's history, which
verifies only against itself (anyone can recompute a chain over invented rolls), so it is reported apart.
Rolls made here follow, the first one's ``prev`` being the imported head: rewriting the imported history
afterwards breaks the chain rolled here.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

GENESIS = "0" * 64


def canonical(value: Any) -> bytes:
    """Canonical JSON: sorted keys, no spaces, UTF-8 (never \\u escapes), so anyone re-serializes the same bytes."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def commitment_of(salt: str, content: Any) -> str:
    return hashlib.sha256(salt.encode("ascii") + canonical(content)).hexdigest()


def link_hash(seq: int, prev: str, commitment: str) -> str:
    return hashlib.sha256(canonical({"commitment": commitment, "prev": prev, "seq": seq})).hexdigest()


# What a roll in an archive must share with its link's content (ids and times differ after an import).
ROLL_FACTS = ("ruleset", "kind", "label", "request", "result", "gm_only", "roller")
# What may happen to a roll after it is made, each chained as a link of its own (``content.event``): a
# follow-up (an invocation, a reroll, hope or despair, a settlement) or a reveal (a secret roll, or its secret
# difficulty, shown). Such a link names its roll's link (``roll_seq``), always an earlier one.
EVENTS = ("follow_up", "reveal")


class Verdict:
    """The outcome of a verification: ``broken_at`` is the first bad link's ``seq`` (None when all hold)."""

    def __init__(
        self,
        checked: int,
        opened: int,
        broken_at: int | None = None,
        reason: str = "",
        imported: int = 0,
        imported_head: str = GENESIS,
    ) -> None:
        self.checked, self.opened, self.broken_at, self.reason = checked, opened, broken_at, reason
        self.imported, self.imported_head = imported, imported_head

    @property
    def ok(self) -> bool:
        return self.broken_at is None

    def __str__(self) -> str:
        if not self.ok:
            return f"BROKEN at link {self.broken_at}: {self.reason}"
        verdict = f"OK: {self.checked} links verified, {self.opened} opened and matched"
        if self.imported:
            verdict += (
                f"; links 1-{self.imported} are imported history (another site's rolls, consistent only with "
                f"themselves), head {self.imported_head}; {self.checked - self.imported} rolled here after it"
            )
        return verdict


def _event_fault(content: dict[str, Any], seq: int, opened: dict[int, dict[str, Any]]) -> str:
    if content.get("event") not in EVENTS:
        return f"it records an unknown event {content.get('event')!r}"
    roll_seq = content.get("roll_seq")
    if not isinstance(roll_seq, int) or not 1 <= roll_seq < seq:
        return "it does not name an earlier link for its roll"
    earlier = opened.get(roll_seq)
    if earlier is not None and ("event" in earlier or earlier.get("roll") != content.get("roll")):
        return f"it names link {roll_seq}, which is not the roll it is about"
    return ""


def _entry_fault(
    entry: dict[str, Any],
    seq: int,
    prev: str,
    rolls_by_seq: dict[int, dict[str, Any]],
    opened: dict[int, dict[str, Any]],
) -> str:
    if entry.get("seq") != seq:
        return f"expected link {seq}, found {entry.get('seq')} (links missing or out of order)"
    if entry.get("prev") != prev:
        return "its previous hash is not the hash of the link before it"
    if link_hash(seq, prev, str(entry.get("commitment"))) != entry.get("hash"):
        return "its hash does not cover its commitment and previous hash"
    content = entry.get("content")
    if content is None:
        return ""
    if commitment_of(str(entry.get("salt")), content) != entry.get("commitment"):
        return "its content does not open its commitment"
    if isinstance(content, dict) and "event" in content:
        return _event_fault(content, seq, opened)
    roll = rolls_by_seq.get(seq)
    if roll is not None:
        for fact in ROLL_FACTS:
            if roll.get(fact) != content.get(fact):
                return f"the stored roll's {fact} differs from what was chained"
    return ""


def verify(entries: Sequence[dict[str, Any]], rolls: Sequence[dict[str, Any]] = ()) -> Verdict:
    """Recompute a chain in the order given and check each roll of ``rolls`` (archive rolls, each with its
    ``chain_seq``) against its link. Stops at the first broken link."""
    rolls_by_seq = {roll["chain_seq"]: roll for roll in rolls if roll.get("chain_seq")}
    prev, opened, imported, imported_head = GENESIS, 0, 0, GENESIS
    contents: dict[int, dict[str, Any]] = {}
    for index, entry in enumerate(entries):
        seq = index + 1
        fault = _entry_fault(entry, seq, prev, rolls_by_seq, contents)
        if not fault and entry.get("imported"):
            if imported != index:
                fault = "an imported link follows a link rolled here"
            imported, imported_head = seq, str(entry["hash"])
        if fault:
            return Verdict(index, opened, seq, fault)
        if entry.get("content") is not None:
            opened += 1
            contents[seq] = entry["content"]
        prev = str(entry["hash"])
    chained = {entry.get("seq") for entry in entries}
    for seq in sorted(rolls_by_seq):
        if seq not in chained:
            return Verdict(len(entries), opened, seq, "a roll names a link the chain does not have")
    return Verdict(len(entries), opened, imported=imported, imported_head=imported_head)
