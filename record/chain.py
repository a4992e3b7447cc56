"""Writes and reads of the per-campaign roll chain (the arithmetic lives in record.rollchain)."""

from __future__ import annotations

import secrets
from typing import Any

from django.db import IntegrityError, transaction

from campaigns.models import Campaign
from record.models import RollChain, RollLink
from record.rollchain import GENESIS, commitment_of, link_hash
from rolls.models import Roll, RollFollowUp, RollReveal


def roll_content(roll: Roll) -> dict[str, Any]:
    """The facts a link covers: what was asked (inputs), what came out (faces), by whom, for which post, when.
    Ids are those of the campaign where the roll was made (an imported campaign keeps its original links)."""
    return {
        "roll": roll.pk,
        "post": roll.post_id,
        "scene": roll.scene_id,
        "roller": roll.roller.username,
        "character": roll.character.name if roll.character_id and roll.character else None,
        "ruleset": roll.ruleset,
        "kind": roll.kind,
        "label": roll.label,
        "request": roll.request,
        "result": roll.result,
        "gm_only": roll.gm_only,
        "time": roll.created_at.isoformat(),
    }


def _locked_chain(campaign_id: int) -> RollChain:
    chain = RollChain.objects.select_for_update().filter(campaign_id=campaign_id).first()
    if chain is None:
        try:
            with transaction.atomic():
                RollChain.objects.create(campaign_id=campaign_id, head=GENESIS)
        except IntegrityError:
            pass  # created by a concurrent roll: lock theirs
        chain = RollChain.objects.select_for_update().get(campaign_id=campaign_id)
    return chain


@transaction.atomic(savepoint=False)
def append_roll(roll: Roll) -> RollLink:
    """Chain a roll just made (rolls.services.make_roll calls this in the roll's transaction). No savepoint
    of its own: a roll whose link fails is rolled back with it, and a post's two round trips are saved."""
    chain = _locked_chain(roll.campaign_id)
    return append_link(chain, roll, roll_content(roll), secrets.token_hex(16))


def _roll_seq(roll: Roll) -> int | None:
    seq = RollLink.objects.filter(roll=roll).values_list("seq", flat=True).first()
    return int(seq) if seq is not None else None


def _append_about(roll: Roll, event: str, facts: dict[str, Any]) -> RollLink | None:
    """Chain one event about ``roll`` after the link that holds it; None for a roll outside the chain (an
    imported roll whose link could not be opened): nothing to name."""
    roll_seq = _roll_seq(roll)
    if roll_seq is None:
        return None
    content = {"event": event, "roll": roll.pk, "roll_seq": roll_seq, **facts}
    chain = _locked_chain(roll.campaign_id)
    return append_link(chain, None, content, secrets.token_hex(16), about=roll)


@transaction.atomic(savepoint=False)
def append_follow_up(follow_up: RollFollowUp) -> RollLink | None:
    """Chain what happened to a roll afterwards (an invocation, a reroll, hope or despair...), in the
    transaction that recorded it: the log then shows every change to a result, not only the first faces."""
    return _append_about(
        follow_up.roll,
        "follow_up",
        {
            "kind": follow_up.kind,
            "actor": follow_up.actor.username,
            "character": follow_up.character.name if follow_up.character_id and follow_up.character else None,
            "data": follow_up.data,
            "result": follow_up.result,
            "time": follow_up.created_at.isoformat(),
        },
    )


@transaction.atomic(savepoint=False)
def append_reveal(reveal: RollReveal) -> RollLink | None:
    """Chain a GM's reveal of a secret roll (and of its secret difficulty when shown too)."""
    roll = reveal.roll
    return _append_about(
        roll,
        "reveal",
        {
            "actor": reveal.revealed_by.username,
            "secret": roll.secret if reveal.include_secret else None,
            "time": reveal.created_at.isoformat(),
        },
    )


def append_link(
    chain: RollChain, roll: Roll | None, content: dict[str, Any], salt: str, *, about: Roll | None = None
) -> RollLink:
    """Append one entry to a locked chain."""
    seq = chain.length + 1
    commitment = commitment_of(salt, content)
    digest = link_hash(seq, chain.head, commitment)
    link = RollLink.objects.create(
        campaign_id=chain.campaign_id,
        roll=roll,
        about=about,
        seq=seq,
        prev=chain.head,
        salt=salt,
        content=content,
        commitment=commitment,
        hash=digest,
    )
    chain.length, chain.head = seq, digest
    chain.save(update_fields=["length", "head"])
    return link


def roll_facts(roll: Roll) -> dict[str, Any]:
    """What a roll in an archive must share with its link (record.rollchain.ROLL_FACTS), and where it sits."""
    link = getattr(roll, "chain_link", None)
    return {
        "ruleset": roll.ruleset,
        "kind": roll.kind,
        "label": roll.label,
        "request": roll.request,
        "result": roll.result,
        "gm_only": roll.gm_only,
        "roller": roll.imported_roller or roll.roller.username,  # an imported roll's chain covers its handle
        "chain_seq": link.seq if link is not None else None,
    }


def stored_chain(campaign: Campaign) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every link (all open) and every roll of a campaign as stored: what the verifier checks for a GM."""
    links = RollLink.objects.filter(campaign=campaign).order_by("seq")
    entries = [
        {
            "seq": x.seq,
            "prev": x.prev,
            "commitment": x.commitment,
            "hash": x.hash,
            "salt": x.salt,
            "content": x.content,
            "imported": x.imported,
        }
        for x in links
    ]
    rolls = Roll.objects.filter(campaign=campaign).select_related("roller", "chain_link").order_by("id")
    return entries, [roll_facts(roll) for roll in rolls]
