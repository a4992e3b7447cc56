"""The GM's page to transform a scar (§3.6): cross it out for up to 5 hope coins spent at once, or for a
replacement talent for a scene or for good. The form says each benefit in the game's words (the sheet used
to ask for a JSON object with internal keys); the operation is ``transform_scar`` through the ledger."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from campaigns import policy
from campaigns.models import Scene
from characters import selectors, services
from rulesets.dont_rest_your_head.session import USES
from systems.errors import RulesError

KINDS = (
    ("hope_grant", gettext_lazy("Monedas de esperanza gastadas al momento (hasta 5)")),
    ("swap_exhaustion_talent", gettext_lazy("Otro talento de agotamiento")),
    ("swap_madness_talent", gettext_lazy("Otro talento de locura")),
)
SCOPES = (("scene", gettext_lazy("durante una escena")), ("permanent", gettext_lazy("para siempre")))


class TransformScarForm(forms.Form):
    kind = forms.ChoiceField(label=gettext_lazy("Beneficio"), choices=KINDS)
    recover = forms.BooleanField(label=gettext_lazy("recuperar disciplina"), required=False)
    name = forms.CharField(label=gettext_lazy("Talento nuevo"), max_length=120, required=False)
    description = forms.CharField(label=gettext_lazy("Descripción"), max_length=2000, required=False)
    scope = forms.ChoiceField(label=gettext_lazy("Alcance"), choices=SCOPES, initial="scene")
    scene = forms.TypedChoiceField(label=gettext_lazy("Escena"), coerce=int, required=False, empty_value=None)

    def __init__(self, data: Any = None, *, scenes: list[Scene]) -> None:
        super().__init__(data)
        for use, label in USES:
            self.fields[use] = forms.IntegerField(label=label, min_value=0, max_value=5, initial=0, required=False)
        scene: Any = self.fields["scene"]
        scene.choices = [("", "—"), *((s.pk, s.title) for s in scenes)]

    def hope_fields(self) -> list[forms.BoundField]:
        return [self[use] for use, _label in USES] + [self["recover"]]

    def benefit(self) -> dict[str, Any]:
        data = self.cleaned_data
        kind = data["kind"]
        if kind == "hope_grant":
            uses = [use for use, _label in USES for _n in range(data.get(use) or 0)]
            if data.get("recover"):
                uses.append("recover_discipline")
            return {"kind": kind, "coins": 5, "uses": uses}
        replacement = {"name": data.get("name") or "", "description": data.get("description") or ""}
        swap: dict[str, Any] = {
            "kind": "exhaustion" if kind == "swap_exhaustion_talent" else "madness",
            "replacement": replacement,
            "scope": data["scope"],
        }
        if data["scope"] == "scene" and data.get("scene"):
            swap["scene_id"] = str(data["scene"])
        return {"kind": kind, "swap": swap}


@login_required
def transform_scar(request: HttpRequest, pk: int, index: int) -> HttpResponse:
    character, viewer = selectors.character_for(request.user, pk)
    if not policy.may_run_gm_procedure(viewer):
        raise PermissionDenied(_("Solo un máster confirma que la cicatriz viene al caso."))
    scars = (character.sheet or {}).get("scars") or []
    if not 0 <= index < len(scars):
        raise Http404
    scenes = list(Scene.objects.filter(campaign_id=character.campaign_id).order_by("-id")[:50])
    form = TransformScarForm(request.POST or None, scenes=scenes)
    if request.method == "POST" and form.is_valid():
        try:
            services.apply_operation(
                actor=request.user,  # type: ignore[arg-type]
                campaign=character.campaign,
                operation="transform_scar",
                params={"scar_index": index, "benefit": form.benefit()},
                character=character,
            )
        except RulesError as error:
            form.add_error(None, error.message(request.LANGUAGE_CODE))
        except ValidationError as error:
            form.add_error(None, error)
        else:
            messages.success(request, _("Cicatriz transformada."))
            return redirect("characters:detail", character.pk)
    context = {"character": character, "scar": scars[index], "form": form}
    return render(request, "dont_rest_your_head/transform_scar.html", context)
