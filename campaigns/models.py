"""Campaigns, memberships, scenes (with aspects) and posts: the forum core.

Rules never live here: models hold state; writes go through ``campaigns.services``, reads through
``campaigns.selectors``, permission questions through ``campaigns.policy``.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext, pgettext
from django.utils.translation import gettext_lazy as _

from campaigns.stored_markdown import StoredMarkdown
from rulesets.registry import ruleset_choices

if TYPE_CHECKING:
    from accounts.models import User


def validate_single_line(value: str) -> None:
    """A title is one line: no line breaks, tabs or other control characters (they end up in mail headers
    and page titles)."""
    if any(unicodedata.category(char) in {"Cc", "Zl", "Zp"} for char in value or ""):
        raise ValidationError(
            _("Sin saltos de línea ni caracteres de control: el título es una sola línea."), code="single_line"
        )


class Visibility(models.TextChoices):
    PUBLIC = "public", _("Pública")
    PRIVATE = "private", _("Privada")


class CampaignStatus(models.TextChoices):
    RECRUITING = "recruiting", _("Buscando jugadores")
    ACTIVE = "active", _("En juego")
    SUSPENDED = "suspended", _("Suspendida")
    FINISHED = "finished", _("Terminada")


class Language(models.TextChoices):
    SPANISH = "es", _("Español")
    ENGLISH = "en", _("English")


class Campaign(StoredMarkdown):
    markdown_fields = ("introduction", "synopsis", "gm_notes")

    title = models.CharField(_("título"), max_length=120)
    introduction = models.TextField(_("introducción"), blank=True)
    introduction_html = models.TextField(blank=True, editable=False)
    synopsis = models.TextField(_("sinopsis"), blank=True)
    synopsis_html = models.TextField(blank=True, editable=False)
    gm_notes = models.TextField(_("notas del máster"), blank=True)
    gm_notes_html = models.TextField(blank=True, editable=False)
    # The registered games (rulesets.registry): a new game needs no migration.
    ruleset = models.CharField(_("sistema de juego"), max_length=32, choices=ruleset_choices)
    language = models.CharField(_("idioma"), max_length=5, choices=Language.choices, default=Language.SPANISH)
    visibility = models.CharField(
        _("visibilidad"), max_length=10, choices=Visibility.choices, default=Visibility.PUBLIC
    )
    status = models.CharField(
        _("estado"), max_length=12, choices=CampaignStatus.choices, default=CampaignStatus.RECRUITING
    )
    # What the directory shows while the campaign looks for players (status "recruiting").
    recruiting_message = models.TextField(_("mensaje de reclutamiento"), blank=True, max_length=1000)
    # Player seats the table has (None: the GM sets no limit); a full table takes readers only.
    seats = models.PositiveSmallIntegerField(_("plazas de jugador"), null=True, blank=True)
    # The ruleset's campaign settings (optional rules), validated by the ruleset's settings model.
    rules_settings = models.JSONField(_("reglas opcionales"), default=dict, blank=True)
    # Off: a sheet's private parts are for its owner and the GMs. On: the whole table reads every sheet.
    sheets_open = models.BooleanField(_("hojas abiertas a la mesa"), default=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name=_("creada por")
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # Ended by a GM (record.services.archive_campaign): read-only for everyone, still readable and searchable;
    # with whispers_revealed, every member reads the whispers too. On the row, so the policy needs no query.
    archived_at = models.DateTimeField(_("archivada"), null=True, blank=True)
    whispers_revealed = models.BooleanField(_("susurros revelados"), default=False)

    class Meta:
        ordering = ["-updated_at", "-id"]
        verbose_name = _("partida")
        verbose_name_plural = _("partidas")

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return reverse("campaigns:detail", args=[self.pk])


class Role(models.TextChoices):
    GM = "gm", _("Máster")
    PLAYER = "player", _("Jugador")
    READER = "reader", _("Lector")


def role_in_sentence(role: str) -> str:
    """A role as a word inside a sentence («te invita como jugador»), in the active language."""
    words: dict[str, str] = {
        Role.GM: pgettext("rol en una frase", "máster"),
        Role.PLAYER: pgettext("rol en una frase", "jugador"),
        Role.READER: pgettext("rol en una frase", "lector"),
    }
    return words.get(role, "")


class Membership(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(_("papel"), max_length=8, choices=Role.choices)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["campaign", "user"], name="one_membership_per_campaign")]
        ordering = ["joined_at", "id"]
        verbose_name = _("miembro")
        verbose_name_plural = _("miembros")

    def __str__(self) -> str:
        return f"{self.user} ({self.get_role_display()}) @ {self.campaign}"


class RequestStatus(models.TextChoices):
    PENDING = "pending", _("Pendiente")
    ACCEPTED = "accepted", _("Aceptada")
    REJECTED = "rejected", _("Rechazada")
    WITHDRAWN = "withdrawn", _("Retirada")


class JoinRequest(models.Model):
    """A user asks to join as player or reader; a GM decides."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="join_requests")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="join_requests")
    role = models.CharField(_("papel"), max_length=8, choices=Role.choices, default=Role.PLAYER)
    message = models.TextField(_("mensaje"), blank=True, max_length=2000)
    status = models.CharField(max_length=10, choices=RequestStatus.choices, default=RequestStatus.PENDING)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "user"],
                condition=Q(status="pending"),
                name="one_pending_join_request",
            )
        ]
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.user} -> {self.campaign} ({self.status})"


class Invitation(models.Model):
    """A GM invites a user to a role (GM invitations make co-GMs); the user accepts or declines."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="invitations")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="invitations")
    role = models.CharField(_("papel"), max_length=8, choices=Role.choices)
    invited_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    status = models.CharField(max_length=10, choices=RequestStatus.choices, default=RequestStatus.PENDING)
    created_at = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "user"],
                condition=Q(status="pending"),
                name="one_pending_invitation",
            )
        ]
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.campaign} -> {self.user} ({self.status})"


class SceneStatus(models.TextChoices):
    OPEN = "open", _("Abierta")
    CLOSED = "closed", _("Cerrada")


class SceneAccess(models.TextChoices):
    ALL_MEMBERS = "all", _("Todos los miembros")
    LISTED = "listed", _("Miembros elegidos")


class Scene(StoredMarkdown):
    markdown_fields = ("description",)

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="scenes")
    title = models.CharField(_("título"), max_length=120)
    description = models.TextField(_("descripción"), blank=True)
    description_html = models.TextField(blank=True, editable=False)
    position = models.PositiveIntegerField(_("orden"), default=0)
    status = models.CharField(_("estado"), max_length=8, choices=SceneStatus.choices, default=SceneStatus.OPEN)
    is_offtopic = models.BooleanField(_("off-topic"), default=False)
    # The last thread position handed out (posts to everyone count; see Post.position): pages are found
    # by position, and the page count needs no COUNT over the scene's posts.
    last_post_position = models.PositiveIntegerField(default=0, editable=False)
    access = models.CharField(_("acceso"), max_length=8, choices=SceneAccess.choices, default=SceneAccess.ALL_MEMBERS)
    # With access=LISTED: who may read, and (separately) who may write. Writers can always read.
    readers = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="readable_scenes", verbose_name=_("pueden leer")
    )
    writers = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        blank=True,
        related_name="writable_scenes",
        verbose_name=_("pueden escribir"),
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["position", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign"], condition=Q(is_offtopic=True), name="one_offtopic_scene_per_campaign"
            )
        ]
        verbose_name = _("escena")
        verbose_name_plural = _("escenas")

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return reverse("campaigns:scene", args=[self.pk])


class SceneAspect(models.Model):
    scene = models.ForeignKey(Scene, on_delete=models.CASCADE, related_name="aspects")
    text = models.CharField(_("aspecto"), max_length=200)
    hidden = models.BooleanField(_("oculto a los jugadores"), default=False)
    free_invocations = models.PositiveSmallIntegerField(_("invocaciones gratuitas"), default=0)
    position = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["position", "id"]
        verbose_name = _("aspecto de escena")
        verbose_name_plural = _("aspectos de escena")

    def __str__(self) -> str:
        return self.text


class Voice(models.TextChoices):
    CHARACTER = "character", _("Como personaje")
    NARRATOR = "narrator", _("Narrador")
    NPC = "npc", _("PNJ")
    OOC = "ooc", _("Fuera de personaje")


class Recipients(models.TextChoices):
    EVERYONE = "all", _("Todos los que leen la escena")
    GMS = "gms", _("Solo los másters")
    WHISPER = "whisper", _("Susurro a miembros elegidos")


class PostKind(models.TextChoices):
    STORY = "story", _("Mensaje")
    # The permanent record of a procedure in the thread's order (rolls.models.Flow.record): written by
    # the procedure runner, never edited or deleted by hand; its text lives in the procedure's lines.
    PROCEDURE = "procedure", _("Procedimiento")


@dataclass(frozen=True)
class ImportedAuthor:
    """Who wrote imported writing, as the archive names them: a handle, shown as text (it is a stranger's
    word, not an account here). It answers what pages read of an author."""

    handle: str
    avatar: None = None
    pk: None = None

    @property
    def username(self) -> str:
        return self.handle

    @property
    def public_name(self) -> str:
        return gettext("%(handle)s (importado de un archivo)") % {"handle": self.handle}

    def __str__(self) -> str:
        return self.public_name


class Post(models.Model):
    scene = models.ForeignKey(Scene, on_delete=models.CASCADE, related_name="posts")
    kind = models.CharField(max_length=10, choices=PostKind.choices, default=PostKind.STORY)
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="posts")
    # Imported from an archive: the archive's handle of who wrote it. Until the account of that name here
    # claims it (record.services.claim_imported_writing), the post shows that handle as text, never a local
    # account, and ``author`` holds the importing GM, who answers for it here.
    imported_author = models.CharField(max_length=150, blank=True, default="", editable=False)
    voice = models.CharField(_("voz"), max_length=10, choices=Voice.choices, default=Voice.CHARACTER)
    character = models.ForeignKey(
        "characters.Character", null=True, blank=True, on_delete=models.PROTECT, related_name="posts"
    )
    npc_name = models.CharField(_("nombre del PNJ"), max_length=80, blank=True)
    body_source = models.TextField(_("texto"))
    body_html = models.TextField(editable=False)
    notes_source = models.TextField(_("notas de juego"), blank=True)
    notes_html = models.TextField(blank=True, editable=False)
    renderer_version = models.PositiveSmallIntegerField(editable=False)
    recipients = models.CharField(
        _("destinatarios"), max_length=8, choices=Recipients.choices, default=Recipients.EVERYONE
    )
    whisper_to = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="whispers", verbose_name=_("susurro a")
    )
    # A copy of ``whisper_to``'s ids (a whisper's targets never change once it is written), so a page and
    # a post's live event name them without reading the many-to-many table.
    whisper_ids = models.JSONField(default=list, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    edited_at = models.DateTimeField(null=True, blank=True)
    # Kept by the services that edit, so the thread page needs no aggregate over revisions.
    revision_count = models.PositiveIntegerField(default=0, editable=False)
    # Where the post sits in its scene's thread: posts to everyone are numbered 1, 2, 3...; a post with
    # restricted recipients (GMs, whisper) shares the number of the public post before it, so every
    # viewer's page N holds the same public posts and a hidden post leaves no gap anyone could count.
    position = models.PositiveIntegerField(default=0, editable=False)
    deleted_at = models.DateTimeField(null=True, blank=True)
    deleted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # A client's key for this write (the API's ``idempotency_key``), with a digest of what it asked: the
    # same request again answers this post; the key with other content is refused (409).
    idempotency_key = models.CharField(max_length=80, blank=True, editable=False)
    request_digest = models.CharField(max_length=64, blank=True, editable=False)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["author", "idempotency_key"], condition=~Q(idempotency_key=""), name="one_post_per_key"
            )
        ]
        indexes = [
            models.Index(fields=["scene", "id"], name="post_scene_id"),
            models.Index(fields=["scene", "position", "id"], name="post_scene_position"),
        ]
        verbose_name = _("mensaje")
        verbose_name_plural = _("mensajes")

    def __str__(self) -> str:
        return f"#{self.pk} in {self.scene_id}"

    def get_absolute_url(self) -> str:
        return reverse("campaigns:post", args=[self.pk])

    @property
    def is_deleted(self) -> bool:
        return self.deleted_at is not None

    @property
    def is_edited(self) -> bool:
        return self.edited_at is not None

    @property
    def shown_author(self) -> User | ImportedAuthor:
        """Who the pages show as the writer: the archive's handle while the post is unclaimed imported writing."""
        return ImportedAuthor(self.imported_author) if self.imported_author else self.author

    @property
    def local_author(self) -> User | None:
        """The account here that wrote the post; None for imported writing nobody here has claimed."""
        return None if self.imported_author else self.author


class PostRevision(models.Model):
    """The text a post had before an edit (the post row always holds the current text)."""

    post = models.ForeignKey(Post, on_delete=models.CASCADE, related_name="revisions")
    body_source = models.TextField()
    notes_source = models.TextField(blank=True)
    edited_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"revision {self.pk} of post {self.post_id}"


class SceneReadMark(models.Model):
    """How far a user has read a scene: every visible post with a higher id is unread."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="read_marks")
    scene = models.ForeignKey(Scene, on_delete=models.CASCADE, related_name="read_marks")
    last_read_post_id = models.BigIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "scene"], name="one_read_mark_per_scene")]

    def __str__(self) -> str:
        return f"{self.user_id} read {self.scene_id} up to {self.last_read_post_id}"


class CampaignSequence(models.Model):
    """The last live-event sequence number of a campaign (one row each, bumped after the change commits)."""

    campaign = models.OneToOneField(Campaign, on_delete=models.CASCADE, primary_key=True, related_name="+")
    last = models.BigIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.campaign_id}: {self.last}"


class CampaignEventLog(models.Model):
    """Every live event, in order: reconnecting clients catch up from here, filtered by the audience."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+")
    # Null from the change's transaction until its commit hands out the number (campaigns.events.publish).
    seq = models.BigIntegerField(null=True, blank=True)
    type = models.CharField(max_length=40)
    data = models.JSONField(default=dict)
    audience = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["campaign", "seq"], name="one_event_per_seq")]
        # The events still waiting for their number (a handful at any time): found without a scan.
        indexes = [models.Index(fields=["id"], condition=Q(seq__isnull=True), name="event_unnumbered")]
        ordering = ["campaign", "seq"]

    def __str__(self) -> str:
        return f"{self.campaign_id}#{self.seq} {self.type}"
