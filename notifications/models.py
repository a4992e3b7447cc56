"""Notifications: what is worth telling a user, where it went (inbox, email, feeds), and their choices.

A :class:`Notification` is one line of a user's inbox, written once its audience has been worked out by
``campaigns.policy`` (so it never names what the recipient may not read). Its words are rendered from its
``kind`` and ``params`` in the reader's language (``notifications.catalogue``), never stored as text.
A :class:`Delivery` is one email (a notification's, a digest's or a nudge's) with a unique ``key``: marked
``sending`` before the mail leaves and ``sent`` after, so a retried or replayed task never sends it twice.
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


class Kind(models.TextChoices):
    NEW_POSTS = "new_posts", _("Mensajes nuevos")
    WHISPER = "whisper", _("Susurro")
    MENTION = "mention", _("Mención")
    PROCEDURE_WAITING = "procedure_waiting", _("Procedimiento esperándote")
    CHARACTER_APPROVED = "character_approved", _("Personaje aprobado")
    CHARACTER_RETURNED = "character_returned", _("Personaje devuelto")
    JOIN_ANSWERED = "join_answered", _("Solicitud respondida")
    JOIN_REQUESTED = "join_requested", _("Solicitud para unirse")
    CHARACTER_SUBMITTED = "character_submitted", _("Personaje por aprobar")
    NUDGE = "nudge", _("Te toca escribir")
    REMINDER = "reminder", _("Recordatorio")
    ROLL_REQUESTED = "roll_requested", _("Tirada pedida")
    VETO_VOTE = "veto_vote", _("Votación de veto")
    INVITATION = "invitation", _("Invitación")
    INVITATION_ANSWERED = "invitation_answered", _("Invitación respondida")


class Notification(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications")
    campaign = models.ForeignKey("campaigns.Campaign", on_delete=models.CASCADE, related_name="+")
    scene = models.ForeignKey("campaigns.Scene", null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    post = models.ForeignKey("campaigns.Post", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    kind = models.CharField(max_length=24, choices=Kind.choices)
    # What makes it unique for its user (one whisper, one batch of posts, one waiting step): replays of the
    # same event change nothing.
    key = models.CharField(max_length=120)
    # The words' parameters (names, titles, counts), rendered in the reader's language.
    params = models.JSONField(default=dict, blank=True)
    count = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)
    read_at = models.DateTimeField(null=True, blank=True)
    # Whether a daily digest already told it (immediate mail has its own Delivery row).
    digested = models.BooleanField(default=False)

    class Meta:
        ordering = ["-updated_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["user", "key"], name="one_notification_per_key")]
        indexes = [
            models.Index(fields=["user", "read_at"], name="notification_user_unread"),
        ]
        verbose_name = _("aviso")
        verbose_name_plural = _("avisos")

    def __str__(self) -> str:
        return f"{self.kind} for {self.user_id} ({self.key})"

    @property
    def is_read(self) -> bool:
        # ``caught_up``: annotated by notifications.selectors.inbox (a batch whose scene was read since).
        return self.read_at is not None or bool(getattr(self, "caught_up", False))


class EmailMode(models.TextChoices):
    IMMEDIATE = "immediate", _("Al momento")
    DAILY = "daily", _("Resumen diario")
    OFF = "off", _("Nunca")


class CampaignPreference(models.Model):
    """How a user wants email about one campaign (no row: ``NOTIFICATION_EMAIL_DEFAULT``)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    campaign = models.ForeignKey("campaigns.Campaign", on_delete=models.CASCADE, related_name="+")
    email = models.CharField(_("correo"), max_length=10, choices=EmailMode.choices)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "campaign"], name="one_preference_per_campaign")]

    def __str__(self) -> str:
        return f"{self.user_id}@{self.campaign_id}: {self.email}"


def new_feed_token() -> str:
    return secrets.token_urlsafe(32)


class FeedToken(models.Model):
    """The secret of a user's private Atom feed: rotating it revokes the old URL at once."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="feed_token")
    token = models.CharField(max_length=64, unique=True, default=new_feed_token)
    created_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"feed token of {self.user_id}"


class DeliveryStatus(models.TextChoices):
    PENDING = "pending", _("Pendiente")
    SENDING = "sending", _("Enviando")
    SENT = "sent", _("Enviado")
    FAILED = "failed", _("Falló; se reintentará")
    ABANDONED = "abandoned", _("Abandonado")


class Channel(models.TextChoices):
    EMAIL = "email", _("Correo")
    PUSH = "push", _("Navegador")


class Delivery(models.Model):
    """One email (or Web Push message to one browser) to one user. ``key`` is unique: a notification, a day's
    digest or a nudge goes out once per channel (and browser)."""

    key = models.CharField(max_length=120, unique=True)
    channel = models.CharField(max_length=8, choices=Channel.choices, default=Channel.EMAIL)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    campaign = models.ForeignKey("campaigns.Campaign", on_delete=models.CASCADE, related_name="+")
    notifications = models.ManyToManyField(Notification, blank=True, related_name="deliveries")
    status = models.CharField(max_length=10, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    last_error = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    # Held until then (the recipient's quiet hours): sending before it is refused.
    not_before = models.DateTimeField(null=True, blank=True)
    # A push delivery goes to one browser, so each endpoint is sent and retried on its own (null once the
    # browser is forgotten: the delivery is then abandoned).
    push_subscription = models.ForeignKey(
        "PushSubscription", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["status"], name="delivery_status", condition=~Q(status="sent"))]

    def __str__(self) -> str:
        return f"{self.key} ({self.status})"


class CampaignReminder(models.Model):
    """A campaign's automatic reminder: players who owe a post get one after ``days`` of silence."""

    campaign = models.OneToOneField("campaigns.Campaign", on_delete=models.CASCADE, related_name="+")
    days = models.PositiveSmallIntegerField(_("días de silencio"), default=0)  # 0: no automatic reminder

    def __str__(self) -> str:
        return f"reminder of {self.campaign_id} after {self.days} days"


class RollRequestStatus(models.TextChoices):
    OPEN = "open", _("Pendiente")
    ANSWERED = "answered", _("Respondida")
    CANCELLED = "cancelled", _("Retirada")


class RollRequest(models.Model):
    """A GM asks a player for a roll in a scene: it shows pre-filled in the player's composer, and the
    player's next post with a roll for that character answers it."""

    campaign = models.ForeignKey("campaigns.Campaign", on_delete=models.CASCADE, related_name="+")
    scene = models.ForeignKey("campaigns.Scene", on_delete=models.CASCADE, related_name="+")
    character = models.ForeignKey("characters.Character", on_delete=models.CASCADE, related_name="+")
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    expression = models.CharField(_("tirada"), max_length=200)
    label = models.CharField(_("motivo"), max_length=120, blank=True)
    status = models.CharField(max_length=10, choices=RollRequestStatus.choices, default=RollRequestStatus.OPEN)
    answered_post = models.ForeignKey(
        "campaigns.Post", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["scene", "status"], name="roll_request_scene_status")]

    def __str__(self) -> str:
        return f"{self.expression} from {self.character_id} in {self.scene_id} ({self.status})"


class QuietHours(models.Model):
    """A user's quiet hours (server time zone, whole hours): mail and push wait until they end.
    ``start`` == ``end`` never happens (the service refuses it); ``start`` > ``end`` spans midnight."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="quiet_hours")
    start = models.PositiveSmallIntegerField(_("desde las"))
    end = models.PositiveSmallIntegerField(_("hasta las"))

    def __str__(self) -> str:
        return f"quiet {self.start}-{self.end} for {self.user_id}"


class PushSubscription(models.Model):
    """A browser where the user allowed Web Push (the browser's PushSubscription, as it gave it)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="push_subscriptions")
    endpoint = models.URLField(max_length=1000, unique=True)
    p256dh = models.CharField(max_length=200)
    auth = models.CharField(max_length=100)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"push for {self.user_id}"
