"""Forms of the characters' browser surface. They parse input only: the services validate and write.

Operation parameters come from flat form fields (one per top-level param) or a ``params`` JSON field;
:func:`operation_params` turns them into the dict the operation's params model validates.
"""

from __future__ import annotations

import json
import types
import typing
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.http import QueryDict
from django.utils.text import format_lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from pydantic import BaseModel

from accounts.models import User
from campaigns.forms import MARKDOWN_HELP
from campaigns.models import Campaign, Membership, Role
from characters.services import PORTRAIT_MAX_BYTES, TEXT_LIMITS


def _text(label: str, name: str, *, rows: int = 6, help_text: str = "") -> forms.CharField:
    return forms.CharField(
        label=label,
        max_length=TEXT_LIMITS[name],
        required=False,
        strip=True,
        help_text=help_text,
        widget=forms.Textarea(attrs={"rows": rows}),
    )


class CharacterTextsForm(forms.Form):
    """The texts every character has: public (description, history) and private (equipment, notes)."""

    name = forms.CharField(label=_("Nombre"), max_length=TEXT_LIMITS["name"])
    description = _text(
        _("Descripción"),
        "description",
        help_text=format_lazy("{} {}", _("Pública: la lee toda la mesa."), MARKDOWN_HELP),
    )
    history = _text(_("Historia"), "history", rows=8, help_text=_("Pública: la lee toda la mesa."))
    equipment = _text(_("Equipo"), "equipment", rows=4, help_text=_("Privado: tú y los másters."))
    notes = _text(_("Notas"), "notes", rows=4, help_text=_("Privadas: tú y los másters."))

    TEXT_FIELDS = ("name", "description", "history", "equipment", "notes")

    def texts(self) -> dict[str, str]:
        return {name: self.cleaned_data[name] for name in self.TEXT_FIELDS}


class CharacterCreateForm(CharacterTextsForm):
    """A player creates their own character; a GM also chooses NPC, or the player who owns a PC."""

    is_npc = forms.BooleanField(
        label=_("Es un PNJ"), required=False, help_text=_("Los PNJ son de los másters; no tienen jugador.")
    )
    owner = forms.ModelChoiceField(
        label=_("Jugador"),
        queryset=User.objects.none(),
        required=False,
        help_text=_("Para un personaje jugador: el jugador que lo llevará (vacío: tú)."),
    )

    def __init__(self, *args: Any, campaign: Campaign, for_others: bool, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if for_others:
            players = Membership.objects.filter(campaign=campaign, role=Role.PLAYER).values("user_id")
            owner = self.fields["owner"]
            assert isinstance(owner, forms.ModelChoiceField)
            owner.queryset = User.objects.filter(pk__in=players).order_by("display_name", "username")
            owner.label_from_instance = lambda user: user.public_name
        else:
            del self.fields["is_npc"]
            del self.fields["owner"]
        # The GM's choices go first, before the texts.
        self.order_fields(["name", "is_npc", "owner"])


class PortraitForm(forms.Form):
    portrait = forms.ImageField(
        label=_("Retrato"),
        required=False,
        help_text=_("PNG, JPEG, GIF o WebP de hasta %(mb)d MB; se guarda reducido.") % {"mb": PORTRAIT_MAX_BYTES >> 20},
    )
    remove = forms.BooleanField(label=_("Quitar el retrato"), required=False)


class OperationReasonForm(forms.Form):
    reason = forms.CharField(label=_("Motivo"), max_length=300, required=False, strip=True)


def _is_sequence(annotation: Any) -> bool:
    """Whether a params field takes several values (list/tuple/set, optionally inside ``X | None``)."""
    origin = typing.get_origin(annotation)
    if origin in (list, tuple, set, frozenset):
        return True
    if origin in (typing.Union, types.UnionType):
        return any(_is_sequence(arg) for arg in typing.get_args(annotation) if arg is not type(None))
    return False


def operation_params(data: QueryDict, params_model: type[BaseModel] | None) -> dict[str, Any]:
    """The operation's params from a form: a ``params`` JSON object, with flat fields (top-level params)
    on top. Empty flat fields count as absent (the model's default applies). The operation's params model
    does the type coercion and validation afterwards (in the service)."""
    params: dict[str, Any] = {}
    raw = data.get("params", "").strip()
    if raw:
        try:
            loaded = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ValidationError(
                {"params": gettext("Los parámetros no son JSON válido: %(error)s") % {"error": exc.msg}}
            ) from None
        if not isinstance(loaded, dict):
            raise ValidationError({"params": gettext("Los parámetros tienen que ser un objeto JSON.")})
        params.update(loaded)
    if params_model is None:
        return params
    for name, field in params_model.model_fields.items():
        keys = [key for key in (name, field.alias) if key and key in data]
        if not keys:
            continue
        values = [value for value in data.getlist(keys[0]) if value.strip() != ""]
        if _is_sequence(field.annotation):
            params[name] = [value.strip() for value in values]
        elif values:
            params[name] = values[-1].strip()
    return params
