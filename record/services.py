"""Writes of the record: importing a campaign archive (and archiving a campaign).

An import is all or nothing: the archive is parsed, checked against its schema version, validated, its roll
chain verified, and only then written in one transaction. A refusal names every problem found and creates
nothing.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime

from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _

from accounts.models import User
from campaigns import policy
from campaigns.events import Audience, Event, EventType, publish
from campaigns.markdown import RENDERER_VERSION
from campaigns.models import (
    Campaign,
    CampaignStatus,
    Invitation,
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
from record.archive_validation import CheckedArchive, ImportRefused, check_archive
from record.models import RollChain, RollLink
from record.post_index import index_post
from record.rollchain import GENESIS
from rolls.models import Flow, FlowLine, FlowStep, Roll, RollFollowUp, RollReveal


@dataclass
class ImportReport:
    campaign: Campaign
    invited: list[str] = field(default_factory=list)  # handles the importing GM chose, found here: invited
    missing: list[str] = field(default_factory=list)  # handles with no account here
    # Handles whose writing is shown as the archive's text until the account of that name here claims it.
    imported_handles: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    open_procedures: int = 0


@contextmanager
def _as_part(where: str) -> Iterator[None]:
    """A live write's refusal of one part (its markdown, a model's own check) as the import's, with its path."""
    try:
        yield
    except ValidationError as refused:
        raise ImportRefused([f"{where}: {message}" for message in refused.messages]) from None


def _rendered(where: str, source: str) -> str:
    with _as_part(where):
        return render_field(where.rsplit(".", 1)[-1], source) if source else ""


def _time(value: str | None) -> datetime | None:
    return parse_datetime(value) if value else None


class _Importer:
    """One archive into one new campaign: ids of the archive -> rows created here."""

    def __init__(self, actor: User, checked: CheckedArchive, invite: Collection[str]) -> None:
        self.actor = actor
        self.archive = archive = checked.archive
        self.sheets = checked.sheets
        self.portraits = checked.portraits
        self.files: list[str] = []  # written to storage before the transaction: removed if it rolls back
        handles = _handles(archive)
        found = set(User.objects.filter(username__in=handles).values_list("username", flat=True))
        self.missing = sorted(handles - found)
        self.imported_handles = sorted(handles - {actor.username})
        # Only the accounts the GM chose to invite (and the GM) enter access lists (readers, writers, whispers);
        # none is made the author of anything by its handle.
        chosen = set(invite) - {actor.username}
        self.invitees = {u.username: u for u in User.objects.filter(username__in=chosen)}
        self.users = {**self.invitees, actor.username: actor}
        self.scenes: dict[int, Scene] = {}
        self.characters: dict[int, Character] = {}
        self.posts: dict[int, Post] = {}
        self.flows: dict[int, Flow] = {}
        self.rolls: dict[int, Roll] = {}

    def user(self, handle: str | None) -> User:
        """Who answers here for what a handle did (edited, revealed, took a step): the importing GM. A handle
        is a stranger's word, so no local account is made to have done anything by it."""
        return self.actor

    def imported(self, handle: str) -> str:
        """The archive's handle to keep as text, or "" when it is the importing GM's own name."""
        return "" if handle == self.actor.username else handle

    def campaign(self) -> Campaign:
        c = self.archive.campaign
        with _as_part("campaign"):
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
        """Invitations only to the members the GM chose, and never as GM: an archive names no one's role here."""
        invited = []
        for member in self.archive.members:
            user = self.invitees.get(member.handle)
            if user is None:
                continue
            role = Role.PLAYER if member.role == "gm" else member.role
            Invitation.objects.create(campaign=self.target, user=user, role=role, invited_by=self.actor)
            invited.append(member.handle)
        return invited

    def scenes_and_aspects(self) -> None:
        for index, s in enumerate(self.archive.scenes):
            with _as_part(f"scenes.{index}"):
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
        for index, c in enumerate(self.archive.characters):
            character = Character(
                campaign=self.target,
                owner=self.actor if c.owner else None,
                imported_owner=self.imported(c.owner) if c.owner else "",
                is_npc=c.is_npc,
                name=c.name,
                status=c.status,
                description=c.description,
                history=c.history,
                sheet=self.sheets.get(c.id, {}),
                equipment=c.equipment or "",
                notes=c.notes or "",
            )
            portrait = self.portraits.get(c.id)
            if portrait is not None:
                character.portrait.save("portrait.webp", portrait, save=False)
                self.files.append(str(character.portrait.name))
            with _as_part(f"characters.{index}"):
                character.save()
            self.characters[c.id] = character

    def posts_(self) -> None:
        times: list[Post] = []
        positions: dict[int, int] = {}  # scene -> last thread position (as write_post numbers them)
        for index, p in enumerate(self.archive.posts):
            public = p.recipients == "all"
            positions[p.scene] = positions.get(p.scene, 0) + (1 if public else 0)
            whispered = sorted(self.users[h].pk for h in p.whisper_to if h in self.users)
            post = Post.objects.create(
                position=positions[p.scene],
                whisper_ids=whispered,
                revision_count=len(p.revisions),
                scene=self.scenes[p.scene],
                kind=p.kind,
                author=self.actor,
                imported_author=self.imported(p.author),
                voice=p.voice,
                character=self.characters.get(p.character) if p.character else None,
                npc_name=p.npc_name,
                body_source=p.body,
                body_html=_rendered(f"posts.{index}.body", p.body),
                notes_source=p.notes,
                notes_html=_rendered(f"posts.{index}.notes", p.notes),
                renderer_version=RENDERER_VERSION,
                recipients=p.recipients,
                edited_at=_time(p.edited_at),
                deleted_at=_time(p.deleted_at),
                deleted_by=self.actor if p.deleted_by else None,
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
                waiting_for=_waiting_without_users(f.waiting_for),
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
                roller=self.actor,
                imported_roller=self.imported(r.roller),
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
        """The links as they were, marked as the archive's own history (verified only against itself: anyone
        can recompute a chain), each joined to the roll imported for it, a follow-up's or reveal's link to the
        roll it is about."""
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
                imported=True,
            )
            for link in links
        )
        # Rolls made here go on from the imported head: the first one's link commits to it (record.chain).
        head = links[-1].hash if links else GENESIS
        RollChain.objects.create(campaign=self.target, length=len(links), head=head, imported_length=len(links))

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


def _waiting_without_users(waiting: schema.ArchivedWaiting) -> dict[str, object]:
    """What an imported procedure waits for, without the user ids: they are the exporting site's, and here
    they would name whichever local accounts hold those ids (the waiting line keeps its words and the GMs)."""
    if not waiting.steps:
        return {}
    return {"steps": [{**step.model_dump(), "users": []} for step in waiting.steps]}


def _handles(archive: schema.CampaignArchive) -> set[str]:
    handles: set[str] = {m.handle for m in archive.members}
    handles |= {p.author for p in archive.posts} | {h for p in archive.posts for h in p.whisper_to}
    handles |= {r.roller for r in archive.rolls} | {c.owner for c in archive.characters if c.owner}
    return handles


def import_campaign(*, actor: User, raw: bytes | str, invite: Collection[str] = ()) -> ImportReport:
    """A new campaign from an archive, with ``actor`` as its GM.

    An archive is a stranger's writing: what others wrote and rolled is shown under the archive's handles, as
    text, until the account of that name here claims it (:func:`claim_imported_writing`); only ``actor``'s
    own handle is theirs at once. Only the archive's members named in ``invite`` are invited, to their
    archived role but never as GM."""
    if not actor.is_authenticated:
        raise ImportRefused([_("Tienes que iniciar sesión para importar una partida.")])
    checked = check_archive(raw)
    members = {m.handle for m in checked.archive.members}
    strangers = sorted(set(invite) - members)
    if strangers:
        message = _("invite: %(handles)s no son miembros de la partida del archivo.")
        raise ImportRefused([message % {"handles": ", ".join(strangers)}])
    importer = _Importer(actor, checked, invite)
    try:
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
    except BaseException:
        for name in importer.files:  # nothing of a refused archive stays, on disk either
            default_storage.delete(name)
        raise
    counts = {
        "scenes": len(importer.scenes),
        "characters": len(importer.characters),
        "posts": len(importer.posts),
        "rolls": len(importer.rolls),
    }
    return ImportReport(campaign, invited, importer.missing, importer.imported_handles, counts, still_open)


def read_upload(upload: UploadedFile) -> bytes:
    """An uploaded archive's bytes; a file over ARCHIVE_IMPORT_MAX_BYTES is refused before it is read."""
    limit = int(settings.ARCHIVE_IMPORT_MAX_BYTES)
    if (upload.size or 0) > limit:
        message = _("El archivo es demasiado grande: como mucho %(mb)s MB (%(bytes)d bytes).")
        raise ImportRefused([message % {"mb": f"{limit / (1024 * 1024):g}", "bytes": limit}])
    return bytes(upload.read())


# --- Claiming imported writing ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Claimed:
    posts: int
    characters: int


def imported_writing(user: User, campaign: Campaign) -> Claimed:
    """What of an imported campaign bears ``user``'s handle and is not theirs yet (what they may claim)."""
    if not user.is_authenticated:
        return Claimed(0, 0)
    posts = Post.objects.filter(scene__campaign=campaign, imported_author=user.username).count()
    characters = Character.objects.filter(campaign=campaign, imported_owner=user.username).count()
    return Claimed(posts, characters)


@transaction.atomic
def claim_imported_writing(*, actor: User, campaign: Campaign) -> Claimed:
    """The account named by an imported handle confirms that writing is its own: the posts under that handle
    show under the account from now on (and search finds them under its name), and so do the characters it
    played, once it is a player here. Rolls stay the archive's history under the handle its chain covers."""
    if not policy.may_claim_imported_writing(policy.viewer_for(actor, campaign)):
        raise PermissionDenied(_("No puedes reclamar lo escrito en esta partida."))
    posts = Post.objects.filter(scene__campaign=campaign, imported_author=actor.username)
    claimed_posts = posts.update(author=actor, imported_author="")
    claimed_characters = 0
    if Membership.objects.filter(campaign=campaign, user=actor, role=Role.PLAYER).exists():
        characters = Character.objects.filter(campaign=campaign, imported_owner=actor.username)
        claimed_characters = characters.update(owner=actor, imported_owner="")
    if claimed_posts or claimed_characters:
        # Every open page re-reads the campaign: kept thread pages are keyed by its events.
        data = {"fields": ["authors"], "visibility": campaign.visibility}
        publish(Event(EventType.CAMPAIGN_CHANGED, campaign.pk, data), Audience(public=True))
    return Claimed(claimed_posts, claimed_characters)


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
