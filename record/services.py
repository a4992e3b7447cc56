"""Writes of the record: importing a campaign archive (and archiving a campaign).

An import is all or nothing: the archive is parsed, checked against its schema version, validated, its roll
chain verified, and only then written in one transaction. A refusal names every problem found and creates
nothing.
"""

from __future__ import annotations

import base64
import binascii
import json
import mimetypes
from dataclasses import dataclass, field
from datetime import datetime

from django.core.exceptions import PermissionDenied
from django.core.files.base import ContentFile
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _
from pydantic import ValidationError as PydanticValidationError

from accounts.models import User
from campaigns import policy
from campaigns.events import Audience, Event, EventType, publish
from campaigns.markdown import RENDERER_VERSION
from campaigns.models import (
    Campaign,
    CampaignStatus,
    Invitation,
    Language,
    Membership,
    Post,
    PostRevision,
    Role,
    Scene,
    SceneAspect,
)
from campaigns.stored_markdown import render_field
from characters.models import CampaignRulesState, Character, LedgerEntry
from record import archive_schema as schema
from record.models import RollChain, RollLink
from record.post_index import index_post
from record.rollchain import GENESIS, verify
from rolls.models import Flow, FlowLine, FlowStep, Roll, RollFollowUp, RollReveal
from rulesets.registry import ruleset_choices

MAX_PROBLEMS = 20


class ImportRefused(Exception):
    """The archive cannot be imported; ``problems`` says why, in words (nothing was written)."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass
class ImportReport:
    campaign: Campaign
    invited: list[str] = field(default_factory=list)  # handles found here: invited to their archived role
    missing: list[str] = field(default_factory=list)  # handles not found: their writing is attributed to you
    counts: dict[str, int] = field(default_factory=dict)
    open_procedures: int = 0


def parse_archive(raw: bytes | str) -> schema.CampaignArchive:
    """The archive, validated; ``ImportRefused`` with every problem otherwise."""
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ImportRefused([_("El archivo no es JSON válido: %(error)s.") % {"error": exc}]) from None
    if not isinstance(data, dict) or data.get("format") != schema.FORMAT:
        raise ImportRefused([_("El archivo no es un archivo de partida de Tintero.")])
    version = data.get("schema_version")
    if isinstance(version, int) and version > schema.SCHEMA_VERSION:
        message = _("El archivo usa la versión %(version)s del formato; este Tintero lee hasta la %(known)s.")
        raise ImportRefused([message % {"version": version, "known": schema.SCHEMA_VERSION}])
    try:
        archive = schema.CampaignArchive.model_validate(data)
    except PydanticValidationError as exc:
        problems = [f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors()]
        raise ImportRefused(problems[:MAX_PROBLEMS]) from None
    _check_consistency(archive)
    return archive


def _dangling(kind: str, ref: object, where: str) -> str:
    what = {
        "scene": _("la escena %(ref)s"),
        "post": _("el mensaje %(ref)s"),
        "procedure": _("el procedimiento %(ref)s"),
    }[kind] % {"ref": ref}
    return _("%(where)s nombra %(what)s, que no está en el archivo.") % {"where": where, "what": what}


def _check_consistency(archive: schema.CampaignArchive) -> None:
    problems: list[str] = []
    if archive.campaign.ruleset not in {key for key, _label in ruleset_choices()}:
        problems.append(_("El sistema de juego «%(key)s» no existe aquí.") % {"key": archive.campaign.ruleset})
    if archive.campaign.language not in Language.values or archive.campaign.status not in CampaignStatus.values:
        problems.append(_("El idioma o el estado de la partida no son válidos."))
    scenes = {s.id for s in archive.scenes}
    posts = {p.id for p in archive.posts}
    flows = {f.id for f in archive.procedures}
    problems += [_dangling("scene", p.scene, f"posts[{p.id}]") for p in archive.posts if p.scene not in scenes]
    problems += [_dangling("scene", r.scene, f"rolls[{r.id}]") for r in archive.rolls if r.scene not in scenes]
    problems += [_dangling("post", r.post, f"rolls[{r.id}]") for r in archive.rolls if r.post and r.post not in posts]
    problems += [
        _dangling("procedure", r.procedure, f"rolls[{r.id}]")
        for r in archive.rolls
        if r.procedure and r.procedure not in flows
    ]
    problems += [
        _dangling("scene", f.scene, f"procedures[{f.id}]") for f in archive.procedures if f.scene not in scenes
    ]
    verdict = verify([link.model_dump() for link in archive.roll_chain], [r.model_dump() for r in archive.rolls])
    if not verdict.ok:
        message = _("El registro de tiradas no se verifica: se rompe en el eslabón %(seq)s (%(reason)s).")
        problems.append(message % {"seq": verdict.broken_at, "reason": verdict.reason})
    if problems:
        raise ImportRefused(problems[:MAX_PROBLEMS])


def _time(value: str | None) -> datetime | None:
    return parse_datetime(value) if value else None


class _Importer:
    """One archive into one new campaign: ids of the archive -> rows created here."""

    def __init__(self, actor: User, archive: schema.CampaignArchive) -> None:
        self.actor = actor
        self.archive = archive
        handles = _handles(archive)
        self.users = {u.username: u for u in User.objects.filter(username__in=handles)}
        self.missing = sorted(handles - set(self.users))
        self.scenes: dict[int, Scene] = {}
        self.characters: dict[int, Character] = {}
        self.posts: dict[int, Post] = {}
        self.flows: dict[int, Flow] = {}
        self.rolls: dict[int, Roll] = {}

    def user(self, handle: str | None) -> User:
        """The user of a handle here; writing by someone not found is attributed to the importing GM."""
        return self.users.get(handle or "", self.actor)

    def campaign(self) -> Campaign:
        c = self.archive.campaign
        campaign = Campaign.objects.create(
            title=c.title,
            introduction=c.introduction,
            synopsis=c.synopsis,
            gm_notes=c.gm_notes or "",
            ruleset=c.ruleset,
            language=c.language,
            visibility=c.visibility,
            status=c.status,
            rules_settings=c.rules_settings,
            sheets_open=c.sheets_open,
            created_by=self.actor,
            archived_at=timezone.now() if c.archived else None,
            whispers_revealed=c.whispers_revealed,
        )
        Membership.objects.create(campaign=campaign, user=self.actor, role=Role.GM)
        if c.rules_state is not None:
            CampaignRulesState.objects.create(campaign=campaign, state=c.rules_state)
        self.target = campaign
        return campaign

    def invite_members(self) -> list[str]:
        invited = []
        for member in self.archive.members:
            user = self.users.get(member.handle)
            if user is None or user.pk == self.actor.pk:
                continue
            Invitation.objects.create(campaign=self.target, user=user, role=member.role, invited_by=self.actor)
            invited.append(member.handle)
        return invited

    def scenes_and_aspects(self) -> None:
        for s in self.archive.scenes:
            scene = Scene.objects.create(
                campaign=self.target,
                title=s.title,
                description=s.description,
                position=s.position,
                status=s.status,
                is_offtopic=s.is_offtopic,
                access=s.access,
            )
            scene.readers.set([self.users[h] for h in s.readers if h in self.users])
            scene.writers.set([self.users[h] for h in s.writers if h in self.users])
            SceneAspect.objects.bulk_create(SceneAspect(scene=scene, **aspect.model_dump()) for aspect in s.aspects)
            self.scenes[s.id] = scene

    def characters_(self) -> None:
        for c in self.archive.characters:
            character = Character(
                campaign=self.target,
                owner=self.users.get(c.owner) if c.owner else None,
                is_npc=c.is_npc,
                name=c.name,
                status=c.status,
                description=c.description,
                history=c.history,
                sheet=c.sheet or {},
                equipment=c.equipment or "",
                notes=c.notes or "",
            )
            portrait = _portrait_file(c.portrait)
            if portrait is not None:
                character.portrait.save(portrait.name or "portrait", portrait, save=False)
            character.save()
            self.characters[c.id] = character

    def posts_(self) -> None:
        times: list[Post] = []
        positions: dict[int, int] = {}  # scene -> last thread position (as write_post numbers them)
        for p in self.archive.posts:
            public = p.recipients == "all"
            positions[p.scene] = positions.get(p.scene, 0) + (1 if public else 0)
            whispered = sorted(self.users[h].pk for h in p.whisper_to if h in self.users)
            post = Post.objects.create(
                position=positions[p.scene],
                whisper_ids=whispered,
                revision_count=len(p.revisions),
                scene=self.scenes[p.scene],
                kind=p.kind,
                author=self.user(p.author),
                voice=p.voice,
                character=self.characters.get(p.character) if p.character else None,
                npc_name=p.npc_name,
                body_source=p.body,
                body_html=render_field("body", p.body) if p.body else "",
                notes_source=p.notes,
                notes_html=render_field("notes", p.notes) if p.notes else "",
                renderer_version=RENDERER_VERSION,
                recipients=p.recipients,
                edited_at=_time(p.edited_at),
                deleted_at=_time(p.deleted_at),
                deleted_by=self.users.get(p.deleted_by) if p.deleted_by else None,
            )
            post.whisper_to.set(whispered)
            PostRevision.objects.bulk_create(
                PostRevision(post=post, body_source=r.body, notes_source=r.notes, edited_by=self.user(r.edited_by))
                for r in p.revisions
            )
            post.created_at = _time(p.created_at) or post.created_at
            times.append(post)
            self.posts[p.id] = post
            index_post(post)
        # The thread keeps its original times (created_at is set on insert, so it is restored after).
        Post.objects.bulk_update(times, ["created_at"], batch_size=500)
        for scene_id, last in positions.items():
            Scene.objects.filter(pk=self.scenes[scene_id].pk).update(last_post_position=last)

    def procedures(self) -> int:
        still_open = 0
        for f in self.archive.procedures:
            flow = Flow.objects.create(
                campaign=self.target,
                scene=self.scenes[f.scene],
                kind=f.kind,
                state=f.state,
                secret_state=f.secret_state or {},
                status=f.status,
                waiting_for=f.waiting_for,
                opened_by=self.user(f.opened_by),
                record=self.posts.get(f.record) if f.record else None,
                settled_at=_time(f.settled_at),
            )
            for s in f.steps:
                FlowStep.objects.create(flow=flow, step=s.step, actor=self.user(s.actor), params=s.params or {})
            FlowLine.objects.bulk_create(FlowLine(flow=flow, **line.model_dump()) for line in f.lines)
            self.flows[f.id] = flow
            still_open += f.status == "open"
        return still_open

    def rolls_(self) -> None:
        for r in self.archive.rolls:
            roll = Roll.objects.create(
                campaign=self.target,
                scene=self.scenes[r.scene],
                post=self.posts.get(r.post) if r.post else None,
                flow=self.flows.get(r.procedure) if r.procedure else None,
                roller=self.user(r.roller),
                character=self.characters.get(r.character) if r.character else None,
                ruleset=r.ruleset,
                kind=r.kind,
                label=r.label,
                request=r.request,
                result=r.result,
                secret=r.secret or {},
                summary_es=r.summary_es,
                summary_en=r.summary_en,
                gm_only=r.gm_only,
                position=r.position,
            )
            if r.reveal is not None:
                RollReveal.objects.create(
                    roll=roll, revealed_by=self.user(r.reveal.by), include_secret=r.reveal.include_secret
                )
            for f in r.follow_ups:
                RollFollowUp.objects.create(
                    roll=roll,
                    kind=f.kind,
                    actor=self.user(f.actor),
                    character=self.characters.get(f.character) if f.character else None,
                    data=f.data,
                    result=f.result,
                    summary_es=f.summary_es,
                    summary_en=f.summary_en,
                )
            self.rolls[r.id] = roll

    def roll_chain(self) -> None:
        """The links as they were (they are the evidence); each joined to the roll imported for it, a
        follow-up's or reveal's link to the roll it is about."""
        by_seq = {r.chain_seq: self.rolls[r.id] for r in self.archive.rolls if r.chain_seq}
        links = self.archive.roll_chain

        def about(content: object) -> Roll | None:
            if isinstance(content, dict) and "event" in content and isinstance(content.get("roll_seq"), int):
                return by_seq.get(content["roll_seq"])
            return None

        RollLink.objects.bulk_create(
            RollLink(
                campaign=self.target,
                roll=by_seq.get(link.seq),
                about=about(link.content),
                seq=link.seq,
                prev=link.prev,
                salt=link.salt or "",
                content=link.content,
                commitment=link.commitment,
                hash=link.hash,
            )
            for link in links
        )
        RollChain.objects.create(campaign=self.target, length=len(links), head=links[-1].hash if links else GENESIS)

    def ledger(self) -> None:
        LedgerEntry.objects.bulk_create(
            LedgerEntry(
                campaign=self.target,
                character=self.characters.get(e.character) if e.character else None,
                operation=e.operation,
                params=e.params,
                before=e.before or {},
                after=e.after or {},
                changes=e.changes,
                actor=self.user(e.actor),
                reason=e.reason,
                post=self.posts.get(e.post) if e.post else None,
            )
            for e in self.archive.ledger
            if e.character is None or e.character in self.characters
        )


def _handles(archive: schema.CampaignArchive) -> set[str]:
    handles: set[str] = {m.handle for m in archive.members}
    handles |= {p.author for p in archive.posts} | {h for p in archive.posts for h in p.whisper_to}
    handles |= {r.roller for r in archive.rolls} | {c.owner for c in archive.characters if c.owner}
    return handles


def _portrait_file(uri: str | None) -> ContentFile[bytes] | None:
    if not uri or not uri.startswith("data:") or ";base64," not in uri:
        return None
    kind, payload = uri[5:].split(";base64,", 1)
    try:
        content = base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError):
        return None
    return ContentFile(content, name=f"portrait{mimetypes.guess_extension(kind) or '.img'}")


def import_campaign(*, actor: User, raw: bytes | str) -> ImportReport:
    """A new campaign from an archive, with ``actor`` as its GM. Members found here by handle are invited to
    their archived role; writing by handles not found is attributed to ``actor`` (the report lists them)."""
    if not actor.is_authenticated:
        raise ImportRefused([_("Tienes que iniciar sesión para importar una partida.")])
    archive = parse_archive(raw)
    importer = _Importer(actor, archive)
    with transaction.atomic():
        campaign = importer.campaign()
        invited = importer.invite_members()
        importer.scenes_and_aspects()
        importer.characters_()
        importer.posts_()
        still_open = importer.procedures()
        importer.rolls_()
        importer.roll_chain()
        importer.ledger()
    counts = {
        "scenes": len(importer.scenes),
        "characters": len(importer.characters),
        "posts": len(importer.posts),
        "rolls": len(importer.rolls),
    }
    return ImportReport(campaign, invited, importer.missing, counts, still_open)


MAX_ARCHIVE_BYTES = 200 * 1024 * 1024


def read_upload(upload: UploadedFile) -> bytes:
    """An uploaded archive's bytes; a file larger than the limit is refused before it is read."""
    if (upload.size or 0) > MAX_ARCHIVE_BYTES:
        message = _("El archivo es demasiado grande (como mucho %(mb)d MB).")
        raise ImportRefused([message % {"mb": MAX_ARCHIVE_BYTES // (1024 * 1024)}])
    return bytes(upload.read())


# --- Archiving (ending) a campaign ------------------------------------------------------------------------


def _publish_ended(campaign: Campaign) -> None:
    """Every open page re-reads the campaign: composers and buttons go away (or come back)."""
    data = {"fields": ["archived_at", "status", "whispers_revealed"], "visibility": campaign.visibility}
    publish(Event(EventType.CAMPAIGN_CHANGED, campaign.pk, data), Audience(public=True))


@transaction.atomic
def archive_campaign(*, actor: User, campaign: Campaign, reveal_whispers: bool = False) -> Campaign:
    """A GM ends the campaign: from now on every write is refused (the policy's write questions answer no), and
    it stays readable and searchable. With ``reveal_whispers``, every member reads every whisper."""
    campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
    if not policy.may_archive_campaign(policy.viewer_for(actor, campaign)):
        raise PermissionDenied(_("Solo un máster puede terminar la partida, y una sola vez."))
    campaign.archived_at = timezone.now()
    campaign.whispers_revealed = bool(reveal_whispers)
    campaign.status = CampaignStatus.FINISHED
    campaign.save(update_fields=["archived_at", "whispers_revealed", "status", "updated_at"])
    _publish_ended(campaign)
    return campaign


@transaction.atomic
def reopen_campaign(*, actor: User, campaign: Campaign) -> Campaign:
    """A GM takes an ended campaign back into play; revealed whispers go back to their recipients."""
    campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
    if not policy.may_reopen_campaign(policy.viewer_for(actor, campaign)):
        raise PermissionDenied(_("Solo un máster puede reabrir una partida terminada."))
    campaign.archived_at = None
    campaign.whispers_revealed = False
    campaign.status = CampaignStatus.ACTIVE
    campaign.save(update_fields=["archived_at", "whispers_revealed", "status", "updated_at"])
    _publish_ended(campaign)
    return campaign
