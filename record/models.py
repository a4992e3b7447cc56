"""The record's own rows: the per-campaign roll chain (the search index is a raw table: record.post_index)."""

from __future__ import annotations

from typing import Any

from django.db import models


class RollChain(models.Model):
    """The head of a campaign's roll chain: locked while a roll is appended, so links never fork."""

    campaign = models.OneToOneField("campaigns.Campaign", on_delete=models.CASCADE, primary_key=True, related_name="+")
    length = models.PositiveIntegerField(default=0)
    head = models.CharField(max_length=64)
    # An imported campaign: its first links are the archive's history (another site's rolls, which this one
    # vouches for only as consistent with themselves); rolls made here follow, the first linked to their head.
    imported_length = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return f"chain of {self.campaign_id}: {self.length}"


class RollLink(models.Model):
    """One roll's entry in its campaign's chain (see record.rollchain). Written once with the roll, in its
    transaction; never edited (an imported campaign carries its links as they were)."""

    campaign = models.ForeignKey("campaigns.Campaign", on_delete=models.CASCADE, related_name="+")
    roll = models.OneToOneField("rolls.Roll", null=True, on_delete=models.SET_NULL, related_name="chain_link")
    # A link recording what happened to a roll afterwards (a follow-up, a reveal): the roll it is about, whose
    # visibility opens it. None on a roll's own link.
    about = models.ForeignKey("rolls.Roll", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    seq = models.PositiveIntegerField()
    prev = models.CharField(max_length=64)
    salt = models.CharField(max_length=32, blank=True)
    content = models.JSONField(null=True)  # null: imported from an archive whose exporter could not open it
    commitment = models.CharField(max_length=64)
    hash = models.CharField(max_length=64)
    imported = models.BooleanField(default=False)  # the archive's history, not rolled here (see RollChain)

    class Meta:
        ordering = ["campaign", "seq"]
        constraints = [models.UniqueConstraint(fields=["campaign", "seq"], name="one_roll_link_per_seq")]

    def __str__(self) -> str:
        return f"{self.campaign_id}#{self.seq}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.pk is not None:
            raise RuntimeError("a roll chain link is evidence: it is never edited")
        super().save(*args, **kwargs)
