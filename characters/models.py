"""Characters. The forum core needs who may post as whom; the sheets arrive with the characters issue."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from campaigns.stored_markdown import StoredMarkdown


class CharacterStatus(models.TextChoices):
    DRAFT = "draft", _("Borrador")
    PENDING = "pending", _("Pendiente de aprobación")
    APPROVED = "approved", _("Aprobado")
    RETIRED = "retired", _("Retirado")


class Character(StoredMarkdown):
    markdown_fields = ("description", "history")

    campaign = models.ForeignKey("campaigns.Campaign", on_delete=models.CASCADE, related_name="characters")
    # A player's character has an owner; an NPC belongs to the campaign's GMs.
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="characters"
    )
    # Imported from an archive: the archive's handle of the player. Until that account here claims it, the
    # character is held by the importing GM (``owner``), never given to a local account by name.
    imported_owner = models.CharField(max_length=150, blank=True, default="", editable=False)
    is_npc = models.BooleanField(_("PNJ"), default=False)
    name = models.CharField(_("nombre"), max_length=80)
    status = models.CharField(
        _("estado"), max_length=10, choices=CharacterStatus.choices, default=CharacterStatus.DRAFT
    )
    # Public parts: everyone who may see the campaign reads them.
    description = models.TextField(_("descripción"), blank=True)
    description_html = models.TextField(blank=True, editable=False)
    history = models.TextField(_("historia"), blank=True)
    history_html = models.TextField(blank=True, editable=False)
    portrait = models.ImageField(_("retrato"), upload_to="portraits/%Y/%m/", blank=True)
    # Private parts: the owner and the GMs, or the whole table when the campaign opens its sheets.
    sheet = models.JSONField(_("hoja"), default=dict, blank=True)
    equipment = models.TextField(_("equipo"), blank=True)
    notes = models.TextField(_("notas"), blank=True)
    submitted_at = models.DateTimeField(null=True, blank=True)
    approved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    approved_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name", "id"]
        constraints = [
            models.CheckConstraint(condition=models.Q(is_npc=True) | models.Q(owner__isnull=False), name="pc_has_owner")
        ]
        verbose_name = _("personaje")
        verbose_name_plural = _("personajes")

    def __str__(self) -> str:
        return self.name


class CampaignRulesState(models.Model):
    """The ruleset's campaign-level state that belongs to no sheet: threat, hope and despair chests,
    the GM's fate point pool, the communal dice pool. Changed only through the ledger."""

    campaign = models.OneToOneField(
        "campaigns.Campaign", on_delete=models.CASCADE, primary_key=True, related_name="rules_state"
    )
    state = models.JSONField(default=dict)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"rules state of {self.campaign_id}"


class LedgerEntry(models.Model):
    """One change to shared numbers or tracks: who, when, why, what it was before and after.

    ``before``/``after`` hold the states the operation read and wrote (``campaign``: the campaign rules
    state or null; ``characters``: sheet per character id), so the current values replay from the ledger.
    ``changes`` lists the numeric pools that moved as ``{"key": [before, after]}`` for quick audit.
    """

    campaign = models.ForeignKey("campaigns.Campaign", on_delete=models.CASCADE, related_name="ledger")
    character = models.ForeignKey(Character, null=True, blank=True, on_delete=models.CASCADE, related_name="ledger")
    operation = models.CharField(_("operación"), max_length=60)
    params = models.JSONField(default=dict)
    before = models.JSONField(default=dict)
    after = models.JSONField(default=dict)
    changes = models.JSONField(default=dict)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    reason = models.CharField(_("motivo"), max_length=300, blank=True)
    post = models.ForeignKey(
        "campaigns.Post", null=True, blank=True, on_delete=models.SET_NULL, related_name="ledger_entries"
    )
    roll_id = models.BigIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["campaign", "id"], name="ledger_campaign_id")]
        verbose_name = _("apunte")
        verbose_name_plural = _("libro de cambios")

    def __str__(self) -> str:
        return f"{self.operation} #{self.pk}"


class EventAnswer(models.Model):
    """Event: one answer a player submits while creating (or growing) a character, open to the table's
    vetoes for a window (spec §2.4, §6.5). Two or more active vetoes when the window closes make it
    invalid; an accepted answer is written on the sheet. Votes live on the row, changed under its lock."""

    class Question(models.TextChoices):
        WHO_AM_I = "WHO_AM_I", _("¿Quién soy?")
        APPEARANCE = "APPEARANCE", _("¿Qué aspecto tengo?")
        ABILITIES = "ABILITIES", _("¿Qué soy capaz de hacer?")
        PROGRESS = "PROGRESS", _("Progreso de personaje")

    class Status(models.TextChoices):
        PENDING = "PENDING", _("En votación")
        ACCEPTED = "ACCEPTED", _("Aceptada")
        INVALID = "INVALID", _("Vetada")

    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="event_answers")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    question = models.CharField(_("pregunta"), max_length=12, choices=Question.choices)
    round = models.PositiveSmallIntegerField(_("ronda"), null=True, blank=True)
    attempt = models.PositiveSmallIntegerField(_("intento"), default=1)
    text = models.TextField(_("respuesta"), blank=True)
    pick_kind = models.CharField(_("tipo de elección"), max_length=12, blank=True)
    pick_skill = models.CharField(_("habilidad"), max_length=80, blank=True)
    pick_category = models.CharField(_("categoría"), max_length=40, blank=True)
    status = models.CharField(_("estado"), max_length=8, choices=Status.choices, default=Status.PENDING)
    eligible = models.JSONField(default=list)  # user ids who may vote (the GMs and the other players)
    votes = models.JSONField(default=list)  # active votes: [{"voter", "kind", "reason", "cast_at"}]
    vote_log = models.JSONField(default=list)  # every cast, change, withdrawal and close, in order
    defense = models.TextField(_("defensa"), blank=True)
    warnings = models.JSONField(default=list)
    refusal = models.CharField(max_length=300, blank=True)  # a rule broken when it was to be written
    opened_at = models.DateTimeField(auto_now_add=True)
    closes_at = models.DateTimeField()
    closed_at = models.DateTimeField(null=True, blank=True)
    close_reason = models.CharField(max_length=10, blank=True)
    closed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["character"], condition=models.Q(status="PENDING"), name="event_one_open_answer"
            )
        ]
        verbose_name = _("respuesta de Event")
        verbose_name_plural = _("respuestas de Event")

    def __str__(self) -> str:
        return f"{self.question} #{self.pk}"
