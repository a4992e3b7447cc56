"""The campaign archive (JSON, schema record.archive_schema), written as a stream of chunks: posts, rolls and
the ledger are read in batches, so memory does not grow with the campaign. Every part holds only what the
exporter may read, asked of the policy part by part."""

from __future__ import annotations

import base64
import json
import mimetypes
from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any

from django.db.models import Prefetch, Q, QuerySet
from django.utils import timezone

from accounts.models import User
from campaigns import policy
from campaigns.models import Campaign, Membership, Post, PostRevision, Scene
from campaigns.policy import Viewer
from characters.models import CampaignRulesState, Character, LedgerEntry
from record.archive_schema import FORMAT, SCHEMA_VERSION
from record.selectors import roll_log
from rolls.models import Flow, FlowLine, FlowStep, Roll, RollFollowUp

BATCH = 500


def _time(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _handle(user: User | None) -> str | None:
    return user.username if user is not None else None


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def data_uri(field: Any) -> str | None:
    """A stored image as a data: URI (the archive and the book carry their images inside)."""
    if not field:
        return None
    try:
        with field.open("rb") as handle:
            payload = base64.b64encode(handle.read()).decode("ascii")
    except OSError:
        return None  # a missing file leaves no portrait rather than no archive
    kind = mimetypes.guess_type(field.name)[0] or "application/octet-stream"
    return f"data:{kind};base64,{payload}"


class Exporter:
    """The parts of one campaign as one viewer may read them (shared by the archive and the book)."""

    def __init__(self, viewer: Viewer, campaign: Campaign) -> None:
        self.viewer = viewer
        self.campaign = campaign
        self.scene_ids = policy.readable_scene_ids(viewer)

    @property
    def scope(self) -> str:
        return "gm" if self.viewer.is_gm else "reader"

    def campaign_part(self) -> dict[str, Any]:
        c, gm = self.campaign, self.viewer.is_gm
        state = CampaignRulesState.objects.filter(campaign=c).values_list("state", flat=True).first() if gm else None
        return {
            "title": c.title,
            "introduction": c.introduction,
            "synopsis": c.synopsis,
            "gm_notes": c.gm_notes if policy.may_see_gm_notes(self.viewer) else None,
            "ruleset": c.ruleset,
            "language": c.language,
            "visibility": c.visibility,
            "status": c.status,
            "rules_settings": c.rules_settings,
            "rules_state": state,
            "sheets_open": c.sheets_open,
            "archived": c.archived_at is not None,
            "whispers_revealed": c.whispers_revealed,
            "created_at": _time(c.created_at),
        }

    def members(self) -> list[dict[str, Any]]:
        # By handle, not by joining time: an imported campaign lists the same table in the same order.
        rows = Membership.objects.filter(campaign=self.campaign).select_related("user").order_by("user__username")
        return [{"handle": m.user.username, "display_name": m.user.display_name, "role": m.role} for m in rows]

    def scenes(self) -> Iterator[dict[str, Any]]:
        lists = policy.may_see_scene_lists(self.viewer)
        rows = (
            Scene.objects.filter(pk__in=self.scene_ids)
            .prefetch_related("readers", "writers", "aspects")
            .order_by("position", "id")
        )
        for scene in rows:
            aspects = [a for a in scene.aspects.all() if not a.hidden or policy.may_see_hidden_aspect(self.viewer)]
            yield {
                "id": scene.pk,
                "title": scene.title,
                "description": scene.description,
                "position": scene.position,
                "status": scene.status,
                "is_offtopic": scene.is_offtopic,
                "access": scene.access,
                "readers": sorted(u.username for u in scene.readers.all()) if lists else [],
                "writers": sorted(u.username for u in scene.writers.all()) if lists else [],
                "aspects": [
                    {"text": a.text, "hidden": a.hidden, "free_invocations": a.free_invocations, "position": a.position}
                    for a in aspects
                ],
                "created_at": _time(scene.created_at),
            }

    def characters(self) -> list[Character]:
        rows = Character.objects.filter(policy.characters_visible_q(self.viewer)).select_related("owner")
        return list(rows.order_by("id"))

    def character_part(self, character: Character) -> dict[str, Any]:
        private = policy.may_see_private_parts(self.viewer, character, self.campaign.sheets_open)
        return {
            "id": character.pk,
            "owner": character.imported_owner or _handle(character.owner),
            "is_npc": character.is_npc,
            "name": character.name,
            "status": character.status,
            "description": character.description,
            "history": character.history,
            "portrait": data_uri(character.portrait),
            "sheet": character.sheet if private else None,
            "equipment": character.equipment if private else None,
            "notes": character.notes if private else None,
            "created_at": _time(character.created_at),
        }

    def posts(self) -> QuerySet[Post]:
        revisions = PostRevision.objects.select_related("edited_by").order_by("id")
        return (
            Post.objects.filter(Q(scene_id__in=self.scene_ids) & policy.visible_posts_q(self.viewer))
            .select_related("author", "deleted_by", "character")
            .prefetch_related("whisper_to", Prefetch("revisions", queryset=revisions))
            .order_by("id")
        )

    def post_part(self, post: Post) -> dict[str, Any]:
        history = policy.may_see_revisions(self.viewer, post)
        return {
            "id": post.pk,
            "scene": post.scene_id,
            "kind": post.kind,
            "author": post.imported_author or post.author.username,
            "voice": post.voice,
            "character": post.character_id,
            "npc_name": post.npc_name,
            "body": post.body_source,
            "notes": post.notes_source,
            "recipients": post.recipients,
            "whisper_to": sorted(u.username for u in post.whisper_to.all()),
            "created_at": _time(post.created_at),
            "edited_at": _time(post.edited_at),
            "deleted_at": _time(post.deleted_at),
            "deleted_by": _handle(post.deleted_by),
            "revisions": [
                {
                    "body": r.body_source,
                    "notes": r.notes_source,
                    "edited_by": r.edited_by.username,
                    "created_at": _time(r.created_at),
                }
                for r in (post.revisions.all() if history else [])
            ],
        }

    def rolls(self) -> Iterator[Roll]:
        """The rolls the viewer may see: in readable scenes, of visible posts (or of no post), and a secret
        roll only for GMs until revealed."""
        seen_posts = Post.objects.filter(policy.visible_posts_q(self.viewer)).values("pk")
        follow_ups = RollFollowUp.objects.select_related("actor").order_by("id")
        rows = (
            Roll.objects.filter(campaign=self.campaign, scene_id__in=self.scene_ids)
            .filter(Q(post__isnull=True) | Q(post__in=seen_posts))
            .select_related("roller", "reveal__revealed_by", "chain_link")
            .prefetch_related(Prefetch("follow_ups", queryset=follow_ups))
            .order_by("id")
        )
        for roll in rows.iterator(chunk_size=BATCH):
            reveal = getattr(roll, "reveal", None)
            if policy.may_see_roll(self.viewer, gm_only=roll.gm_only, revealed=reveal is not None):
                yield roll

    def roll_part(self, roll: Roll) -> dict[str, Any]:
        reveal = getattr(roll, "reveal", None)
        secret_shown = policy.may_see_roll_secret(self.viewer, secret_revealed=bool(reveal and reveal.include_secret))
        link = getattr(roll, "chain_link", None)
        return {
            "id": roll.pk,
            "scene": roll.scene_id,
            "post": roll.post_id,
            "procedure": roll.flow_id,
            "roller": roll.imported_roller or roll.roller.username,
            "character": roll.character_id,
            "ruleset": roll.ruleset,
            "kind": roll.kind,
            "label": roll.label,
            "request": roll.request,
            "result": roll.result,
            "secret": roll.secret if secret_shown and roll.secret else None,
            "summary_es": roll.summary_es,
            "summary_en": roll.summary_en,
            "gm_only": roll.gm_only,
            "position": roll.position,
            "created_at": _time(roll.created_at),
            "reveal": (
                {
                    "by": reveal.revealed_by.username,
                    "include_secret": reveal.include_secret,
                    "created_at": _time(reveal.created_at),
                }
                if reveal is not None
                else None
            ),
            "follow_ups": [
                {
                    "kind": f.kind,
                    "actor": f.actor.username,
                    "character": f.character_id,
                    "data": f.data,
                    "result": f.result,
                    "summary_es": f.summary_es,
                    "summary_en": f.summary_en,
                    "created_at": _time(f.created_at),
                }
                for f in roll.follow_ups.all()
            ],
            "chain_seq": link.seq if link is not None else None,
        }

    def procedures(self) -> Iterator[dict[str, Any]]:
        steps = FlowStep.objects.select_related("actor").order_by("id")
        lines = FlowLine.objects.order_by("position")
        rows = (
            Flow.objects.filter(campaign=self.campaign, scene_id__in=self.scene_ids)
            .select_related("opened_by")
            .prefetch_related(Prefetch("steps", queryset=steps), Prefetch("lines", queryset=lines))
            .order_by("id")
        )
        secret = policy.may_see_flow_secret(self.viewer)
        for flow in rows.iterator(chunk_size=BATCH):
            yield {
                "id": flow.pk,
                "scene": flow.scene_id,
                "kind": flow.kind,
                "state": flow.state,
                "secret_state": flow.secret_state if secret else None,
                "status": flow.status,
                "waiting_for": flow.waiting_for,
                "opened_by": flow.opened_by.username,
                "record": flow.record_id,
                "created_at": _time(flow.created_at),
                "settled_at": _time(flow.settled_at),
                "steps": [
                    {
                        "step": s.step,
                        "actor": s.actor.username,
                        "params": s.params if policy.may_see_step_params(self.viewer, s.actor_id) else None,
                        "created_at": _time(s.created_at),
                    }
                    for s in flow.steps.all()
                ],
                "lines": [
                    {
                        "position": line.position,
                        "text_es": line.text_es,
                        "text_en": line.text_en,
                        "gm_only": line.gm_only,
                        "rolls": line.rolls,
                    }
                    for line in flow.lines.all()
                    if policy.may_read_record_line(self.viewer, gm_only=line.gm_only)
                ],
            }

    def ledger(self, characters: dict[int, Character]) -> Iterator[dict[str, Any]]:
        whole = policy.may_see_whole_ledger_entry(self.viewer)
        rows = LedgerEntry.objects.filter(campaign=self.campaign).select_related("actor").order_by("id")
        for entry in rows.iterator(chunk_size=BATCH):
            character = characters.get(entry.character_id) if entry.character_id is not None else None
            if entry.character_id is not None and character is None:
                continue  # a character the viewer may not see
            if not policy.may_read_ledger(self.viewer, character, self.campaign.sheets_open):
                continue
            yield {
                "character": entry.character_id,
                "operation": entry.operation,
                "params": entry.params,
                "before": entry.before if whole else None,
                "after": entry.after if whole else None,
                "changes": entry.changes,
                "actor": entry.actor.username,
                "reason": entry.reason,
                "post": entry.post_id,
                "created_at": _time(entry.created_at),
            }


def _array(items: Iterable[dict[str, Any]]) -> Iterator[str]:
    yield "["
    for index, item in enumerate(items):
        yield ("," if index else "") + _dumps(item)
    yield "]"


def archive_chunks(exporter: Exporter, exported_by: str | None) -> Iterator[str]:
    """The archive as JSON text, part by part (concatenated, one valid JSON document)."""
    header = {
        "format": FORMAT,
        "schema_version": SCHEMA_VERSION,
        "exported_at": timezone.now().isoformat(),
        "exported_by": exported_by,
        "scope": exporter.scope,
        "campaign": exporter.campaign_part(),
        "members": exporter.members(),
    }
    yield _dumps(header)[:-1]  # left open: the large parts follow
    yield ',"scenes":'
    yield from _array(exporter.scenes())
    characters = exporter.characters()
    yield ',"characters":'
    yield from _array(exporter.character_part(c) for c in characters)
    yield ',"posts":'
    yield from _array(exporter.post_part(p) for p in exporter.posts().iterator(chunk_size=BATCH))
    yield ',"rolls":'
    yield from _array(exporter.roll_part(r) for r in exporter.rolls())
    yield ',"procedures":'
    yield from _array(exporter.procedures())
    yield ',"ledger":'
    yield from _array(exporter.ledger({c.pk: c for c in characters}))
    yield ',"roll_chain":'
    yield from _array(link.as_json() for link in roll_log(exporter.viewer, exporter.campaign))
    yield "}"


def batched(chunks: Iterable[str], size: int = 64 * 1024) -> Iterator[bytes]:
    """Join small chunks into blocks of about ``size`` bytes (fewer writes to the socket)."""
    buffer: list[bytes] = []
    length = 0
    for chunk in chunks:
        data = chunk.encode("utf-8")
        buffer.append(data)
        length += len(data)
        if length >= size:
            yield b"".join(buffer)
            buffer, length = [], 0
    if buffer:
        yield b"".join(buffer)
