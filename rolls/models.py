"""Rolls are evidence: made by the server, stored once, never edited.

What changes a result afterwards (an invocation, a reroll, hope or despair, a settlement) is a new
linked record (:class:`RollFollowUp`), so the thread shows the whole history. Multi-step flows (a DRYH
conflict, an Event desafío, a FATE invocation window, a Presagios challenge) are :class:`Flow` rows
holding the pure state machine's state; each step is a :class:`FlowStep`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

if TYPE_CHECKING:
    from accounts.models import User


class ImmutableRecord(models.Model):
    """Evidence rows are inserted once; any later save or update is a programming error."""

    class Meta:
        abstract = True

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.pk is not None and not kwargs.pop("_allow_update", False):
            raise RuntimeError(f"{type(self).__name__} is evidence: it is never edited")
        super().save(*args, **kwargs)


class FlowStatus(models.TextChoices):
    OPEN = "open", _("Abierto")
    SETTLED = "settled", _("Resuelto")
    CANCELLED = "cancelled", _("Cancelado")


class Flow(models.Model):
    """A multi-step procedure across posts and hours; its ``state`` is the pure state machine's value.

    ``waiting_for`` says what the flow waits for and from whom (shown in the thread and on the GM
    dashboard), derived by the runner from the procedure's step table: ``{"steps": [{"step": "pain_roll",
    "gm": true, "users": [], "label_es": "…", "label_en": "…"}]}``; ``{}`` when nothing is awaited.
    """

    campaign = models.ForeignKey("campaigns.Campaign", on_delete=models.CASCADE, related_name="flows")
    scene = models.ForeignKey("campaigns.Scene", on_delete=models.CASCADE, related_name="flows")
    kind = models.CharField(max_length=40)
    state = models.JSONField(default=dict)
    # Parts of the state only GMs may read (secret difficulties, sealed splits before the reveal).
    secret_state = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=10, choices=FlowStatus.choices, default=FlowStatus.OPEN)
    waiting_for = models.JSONField(default=dict, blank=True)
    opened_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    # The procedure's entry in the thread, where it opened: the post that shows its record to the table.
    record = models.OneToOneField(
        "campaigns.Post", null=True, blank=True, on_delete=models.SET_NULL, related_name="procedure"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    settled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["campaign", "status"], name="flow_campaign_status")]

    def __str__(self) -> str:
        return f"{self.kind} #{self.pk} ({self.status})"


class FlowStep(ImmutableRecord):
    """One accepted step of a flow, with an idempotency key so a replayed request changes nothing twice."""

    flow = models.ForeignKey(Flow, on_delete=models.CASCADE, related_name="steps")
    step = models.CharField(max_length=40)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    params = models.JSONField(default=dict)
    idempotency_key = models.CharField(max_length=80, blank=True)
    # sha256 of the step and its params as requested: a replayed key with another request is a conflict.
    request_digest = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["flow", "idempotency_key"], condition=~Q(idempotency_key=""), name="one_step_per_key"
            )
        ]

    def __str__(self) -> str:
        return f"{self.step} on flow {self.flow_id}"


class FlowLine(ImmutableRecord):
    """One line of a procedure's permanent record in the thread, in words, in both product languages.

    ``gm_only`` lines (a secret difficulty) reach GMs only; ``rolls`` are the stored rolls the line shows
    as dice. Written by the runner from the step's outcome, never edited.
    """

    flow = models.ForeignKey(Flow, on_delete=models.CASCADE, related_name="lines")
    step = models.ForeignKey(FlowStep, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    position = models.PositiveIntegerField()
    text_es = models.TextField()
    text_en = models.TextField()
    gm_only = models.BooleanField(default=False)
    rolls = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["flow", "position"]
        constraints = [models.UniqueConstraint(fields=["flow", "position"], name="one_line_per_position")]

    def __str__(self) -> str:
        return f"line {self.position} of flow {self.flow_id}"


class Roll(ImmutableRecord):
    """One roll made by the server. ``result`` keeps every die face, so anyone can verify the total."""

    campaign = models.ForeignKey("campaigns.Campaign", on_delete=models.CASCADE, related_name="rolls")
    scene = models.ForeignKey("campaigns.Scene", on_delete=models.CASCADE, related_name="rolls")
    post = models.ForeignKey("campaigns.Post", null=True, blank=True, on_delete=models.PROTECT, related_name="rolls")
    flow = models.ForeignKey(Flow, null=True, blank=True, on_delete=models.SET_NULL, related_name="rolls")
    roller = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    # Imported from an archive: the archive's handle of who rolled (what its roll chain covers), kept as the
    # archive's history for good; ``roller`` then holds the importing GM.
    imported_roller = models.CharField(max_length=150, blank=True, default="", editable=False)
    character = models.ForeignKey(
        "characters.Character", null=True, blank=True, on_delete=models.SET_NULL, related_name="rolls"
    )
    ruleset = models.CharField(max_length=32)
    kind = models.CharField(max_length=40)
    label = models.CharField(max_length=120, blank=True)
    request = models.JSONField(default=dict)  # what was asked, without the secret parts
    result = models.JSONField(default=dict)  # the public result: faces and outcome in words
    secret = models.JSONField(default=dict, blank=True)  # GM-only parts: a secret difficulty, the margin
    summary_es = models.CharField(max_length=300, blank=True)
    summary_en = models.CharField(max_length=300, blank=True)
    gm_only = models.BooleanField(_("tirada secreta"), default=False)
    position = models.PositiveSmallIntegerField(default=0)  # order among the post's rolls
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["post", "position"], name="roll_post_position")]

    def __str__(self) -> str:
        return f"{self.ruleset}:{self.kind} #{self.pk}"

    @property
    def local_roller(self) -> User | None:
        """The account here that rolled; None for an imported roll (its roller is the archive's handle)."""
        return None if self.imported_roller else self.roller


class RollReveal(ImmutableRecord):
    """A GM revealed a secret roll (or a secret difficulty): a new record, the roll itself is untouched."""

    roll = models.OneToOneField(Roll, on_delete=models.CASCADE, related_name="reveal")
    revealed_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    include_secret = models.BooleanField(default=False)  # the secret difficulty too, not only the roll
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"reveal of roll {self.roll_id}"


class RollFollowUp(ImmutableRecord):
    """Something that happened to a roll after it was made: an invocation, a reroll, a compel, hope or
    despair, an absorption choice, a settlement. Shown under the roll in order."""

    roll = models.ForeignKey(Roll, on_delete=models.CASCADE, related_name="follow_ups")
    flow_step = models.ForeignKey(FlowStep, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    kind = models.CharField(max_length=40)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    character = models.ForeignKey(
        "characters.Character", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    data = models.JSONField(default=dict)
    result = models.JSONField(default=dict)  # the roll's result after this follow-up, if it changed
    summary_es = models.CharField(max_length=300, blank=True)
    summary_en = models.CharField(max_length=300, blank=True)
    ledger_entry = models.ForeignKey(
        "characters.LedgerEntry", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    idempotency_key = models.CharField(max_length=80, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["roll", "idempotency_key"], condition=~Q(idempotency_key=""), name="one_follow_up_per_key"
            )
        ]

    def __str__(self) -> str:
        return f"{self.kind} on roll {self.roll_id}"
