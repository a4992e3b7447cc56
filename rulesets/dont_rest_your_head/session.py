"""The GM's page to close a session (§5.5): the hope chest is shared out among the protagonists, each
share spent at once on breathers or recovering discipline, then both chests go to 0. The form names each
protagonist and each use in the game's words (the pools fragment used to ask for JSON keyed by character
numbers); the operation is ``close_session`` through the ledger, as before."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from campaigns import policy
from campaigns import selectors as campaign_selectors
from campaigns.models import Campaign
from characters import services
from characters.models import Character, CharacterStatus
from rulesets.dont_rest_your_head.sheet import is_opposition
from systems.errors import RulesError

USES = (
    ("exhaustion-1", gettext_lazy("−1 agotamiento")),
    ("clear_fight", gettext_lazy("desmarcar una casilla de lucha")),
    ("clear_flight", gettext_lazy("desmarcar una casilla de huida")),
)


class CloseSessionForm(forms.Form):
    """For each protagonist, how many coins of its share go to each use, and whether it recovers discipline."""

    reason = forms.CharField(label=gettext_lazy("Motivo"), max_length=300, required=False)

    def __init__(self, data: Any = None, *, protagonists: list[Character]) -> None:
        super().__init__(data)
        self.protagonists = protagonists
        for pc in protagonists:
            for use, label in USES:
                self.fields[f"{use}-{pc.pk}"] = forms.IntegerField(
                    label=label, min_value=0, max_value=6, initial=0, required=False
                )
            self.fields[f"recover-{pc.pk}"] = forms.BooleanField(
                label=gettext_lazy("recuperar disciplina"), required=False
            )

    def rows(self) -> list[tuple[Character, list[forms.BoundField]]]:
        return [
            (pc, [self[f"{use}-{pc.pk}"] for use, _label in USES] + [self[f"recover-{pc.pk}"]])
            for pc in self.protagonists
        ]

    def spends(self) -> dict[str, list[str]]:
        spends: dict[str, list[str]] = {}
        for pc in self.protagonists:
            uses = [use for use, _label in USES for _n in range(self.cleaned_data.get(f"{use}-{pc.pk}") or 0)]
            if self.cleaned_data.get(f"recover-{pc.pk}"):
                uses.append("recover_discipline")
            if uses:
                spends[str(pc.pk)] = uses
        return spends


def _protagonists(campaign: Campaign) -> list[Character]:
    found = Character.objects.filter(campaign=campaign, status=CharacterStatus.APPROVED, is_npc=False).order_by(
        "name", "pk"
    )
    return [c for c in found if not is_opposition(c.sheet or {})]


@login_required
def close_session(request: HttpRequest, pk: int) -> HttpResponse:
    campaign, viewer = campaign_selectors.campaign_for(request.user, pk)
    if not policy.may_run_gm_procedure(viewer):
        raise PermissionDenied(_("Solo un máster cierra la sesión."))
    form = CloseSessionForm(request.POST or None, protagonists=_protagonists(campaign))
    if request.method == "POST" and form.is_valid():
        try:
            services.apply_operation(
                actor=request.user,  # type: ignore[arg-type]
                campaign=campaign,
                operation="close_session",
                params={"spends": form.spends()},
                reason=form.cleaned_data.get("reason") or "",
            )
        except RulesError as error:
            form.add_error(None, error.message(request.LANGUAGE_CODE))
        except ValidationError as error:
            form.add_error(None, error)
        else:
            messages.success(request, _("Sesión cerrada."))
            return redirect(campaign.get_absolute_url())
    return render(request, "dont_rest_your_head/close_session.html", {"campaign": campaign, "form": form})
