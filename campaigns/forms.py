"""Forms of the browser surface. They parse input only: the services validate and write.

Errors raised by a service (``ValidationError`` with per-field messages) go back onto the form with
:func:`add_service_errors`, so the page shows them next to the right field.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from campaigns import policy
from campaigns.models import (
    CampaignStatus,
    Language,
    Membership,
    Recipients,
    Role,
    SceneAccess,
    Visibility,
    Voice,
    validate_single_line,
)
from campaigns.selectors import DirectoryFilters
from characters.models import Character
from rolls.services import RollSpec
from rulesets import registry
from rulesets.registry import ruleset_choices


def add_service_errors(form: forms.Form, error: ValidationError, aliases: dict[str, str] | None = None) -> None:
    """Put a service's ValidationError on ``form``: per field where the field exists, else on the form."""
    aliases = aliases or {}
    if not hasattr(error, "error_dict"):
        for message in error.messages:
            form.add_error(None, message)
        return
    for field, errors in error.error_dict.items():
        name = aliases.get(field, field)
        target = name if name in form.fields else None
        for item in errors:
            form.add_error(target, item)


def _text(label: str, *, max_length: int, required: bool = False, rows: int = 6, help_text: str = "") -> forms.Field:
    return forms.CharField(
        label=label,
        max_length=max_length,
        required=required,
        strip=True,
        help_text=help_text,
        widget=forms.Textarea(attrs={"rows": rows}),
    )


MARKDOWN_HELP = _("Admite Markdown: *cursiva*, **negrita**, > citas, listas y ::: spoiler.")


class CampaignForm(forms.Form):
    title = forms.CharField(label=_("Título"), max_length=120, validators=[validate_single_line])
    introduction = _text(_("Introducción"), max_length=20_000, help_text=_("Lo que ve cualquiera que abra la partida."))
    synopsis = _text(_("Sinopsis"), max_length=20_000)
    gm_notes = _text(_("Notas del máster"), max_length=20_000, help_text=_("Solo las ven los másters."))
    ruleset = forms.ChoiceField(label=_("Sistema de juego"), choices=ruleset_choices)
    language = forms.ChoiceField(label=_("Idioma"), choices=Language.choices, initial=Language.SPANISH)
    visibility = forms.ChoiceField(
        label=_("Visibilidad"),
        choices=Visibility.choices,
        initial=Visibility.PUBLIC,
        help_text=_("Una partida privada solo la ven sus miembros."),
    )
    status = forms.ChoiceField(
        label=_("Estado"),
        choices=CampaignStatus.choices,
        initial=CampaignStatus.RECRUITING,
        help_text=_("«Buscando jugadores» la muestra en el directorio a quien busca partida."),
    )
    recruiting_message = _text(
        _("Mensaje de reclutamiento"),
        max_length=1000,
        rows=3,
        help_text=_("Qué jugadores buscas: el directorio lo muestra mientras la partida busca jugadores."),
    )
    seats = forms.IntegerField(
        label=_("Plazas de jugador"),
        min_value=1,
        max_value=50,
        required=False,
        help_text=_("Déjalo vacío para no poner límite. Con la mesa llena solo se puede entrar a leer."),
    )


class JoinRequestForm(forms.Form):
    """Only the roles the campaign accepts now (``policy.join_roles``): a campaign that is not recruiting, or
    whose seats are taken, offers a reader's place only, so the form never opens on an error."""

    role = forms.ChoiceField(label=_("Quiero entrar como"), choices=[])
    message = _text(_("Mensaje para el máster"), max_length=2000, rows=3)

    def __init__(self, *args: Any, roles: Sequence[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["role"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = [(role, Role(role).label) for role in roles]
        if roles:
            field.initial = roles[0]
        if len(roles) == 1:
            field.help_text = _("La partida no busca jugadores ahora: puedes entrar a leerla.")
        if Role.PLAYER not in roles:
            # Only a forged request asks for a seat the form does not offer: say why, not "invalid choice".
            field.error_messages["invalid_choice"] = _(
                "La partida no busca jugadores ahora; puedes pedir entrar como lector."
            )


class InviteForm(forms.Form):
    username = forms.CharField(label=_("Nombre de usuario"), max_length=150)
    role = forms.ChoiceField(label=_("Papel"), choices=Role.choices, initial=Role.PLAYER)

    def clean_username(self) -> User:
        username = self.cleaned_data["username"].strip()
        user = User.objects.filter(username__iexact=username).first()
        if user is None:
            raise ValidationError(_("No hay ningún usuario «%(name)s».") % {"name": username})
        return user


class RoleForm(forms.Form):
    role = forms.ChoiceField(label=_("Papel"), choices=Role.choices)


def _member_choices(memberships: Iterable[Membership], exclude: int | None = None) -> list[tuple[int, str]]:
    return [(m.user_id, m.user.public_name) for m in memberships if m.user_id != exclude]


class SceneForm(forms.Form):
    title = forms.CharField(label=_("Título"), max_length=120, validators=[validate_single_line])
    description = _text(_("Descripción"), max_length=20_000, help_text=MARKDOWN_HELP)
    access = forms.ChoiceField(
        label=_("Quién puede leer y escribir"),
        choices=SceneAccess.choices,
        initial=SceneAccess.ALL_MEMBERS,
        widget=forms.RadioSelect,
    )
    readers = forms.TypedMultipleChoiceField(
        label=_("Pueden leer"),
        coerce=int,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("Solo con acceso para miembros elegidos. Los másters leen siempre."),
    )
    writers = forms.TypedMultipleChoiceField(
        label=_("Pueden escribir"),
        coerce=int,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("Quien puede escribir también puede leer."),
    )

    def __init__(self, *args: Any, memberships: Iterable[Membership] = (), offtopic: bool = False, **kwargs: Any):
        super().__init__(*args, **kwargs)
        choices = _member_choices(memberships)
        self.fields["readers"].choices = choices
        self.fields["writers"].choices = choices
        if offtopic:
            for name in ("access", "readers", "writers"):
                del self.fields[name]


class AspectForm(forms.Form):
    text = forms.CharField(label=_("Aspecto"), max_length=200)
    hidden = forms.BooleanField(label=_("Oculto a los jugadores"), required=False)
    free_invocations = forms.IntegerField(label=_("Invocaciones gratuitas"), min_value=0, max_value=20, initial=0)


class PostForm(forms.Form):
    """The composer. Its choices depend on who writes: see :meth:`__init__`."""

    voice = forms.ChoiceField(label=_("Voz"))
    character = forms.TypedChoiceField(label=_("Personaje"), coerce=int, required=False, empty_value=None)
    npc_name = forms.CharField(label=_("Nombre del PNJ"), max_length=80, required=False)
    body = forms.CharField(
        label=_("Mensaje"), strip=True, help_text=MARKDOWN_HELP, widget=forms.Textarea(attrs={"rows": 8})
    )
    notes = forms.CharField(
        label=_("Notas de juego"),
        required=False,
        strip=True,
        help_text=_("Tiradas, acciones y reglas, aparte de la narración."),
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    recipients = forms.ChoiceField(
        label=_("Destinatarios"), choices=Recipients.choices, initial=Recipients.EVERYONE, widget=forms.RadioSelect
    )
    whisper_to = forms.TypedMultipleChoiceField(
        label=_("Susurro a"), coerce=int, required=False, widget=forms.CheckboxSelectMultiple
    )
    # Free dice in notation, apart from the ruleset's own roll: their own section, with their own words, so
    # the composer never shows two "Tirada" fields or two "Tirada secreta" boxes side by side.
    roll_expression = forms.CharField(
        label=_("Dados"),
        required=False,
        max_length=200,
        help_text=_("Notación de dados, la tira el servidor al publicar: 3d6+2, 4dF, 4d6kh3, 3d6!, 6d10>=7."),
    )
    roll_label = forms.CharField(label=_("Para qué son"), required=False, max_length=120)
    roll_secret = forms.BooleanField(
        label=_("Dados secretos"), required=False, help_text=_("Solo los ven los másters hasta que los revelen.")
    )

    def __init__(
        self,
        *args: Any,
        characters: Iterable[Character] = (),
        memberships: Iterable[Membership] = (),
        powers: policy.ComposerPowers | None = None,
        roll_powers: policy.RollPowers | None = None,
        user_id: int | None = None,
        ruleset: str = "generic",
        rules_settings: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        characters = list(characters)
        self.builder = None
        self.builder_template = ""
        plugin = registry.plugin(ruleset)
        if plugin.builder is not None:
            builder_class, self.builder_template = plugin.builder, plugin.templates.builder or ""
            # The RollBuilder contract (rulesets/kit/rolls.py): what the viewer may choose comes from the
            # policy (``roll_powers``); the player's only character is preselected.
            mine = [c.pk for c in characters if c.owner_id == user_id and not c.is_npc]
            self.builder = builder_class(
                args[0] if args else kwargs.get("data"),
                prefix="roll",
                characters=characters,
                settings=rules_settings,
                powers=roll_powers,
                default_character=mine[0] if len(mine) == 1 else None,
            )
        # What the viewer may do comes from the policy (``powers``); without it, nothing beyond a player's.
        powers = powers or policy.ComposerPowers(narrator_voice=False, npc_voice=False, secret_dice=False)
        if not powers.secret_dice:
            del self.fields["roll_secret"]
        self.characters = {c.pk: c for c in characters}
        # The GM writes as the narrator unless they choose otherwise: never as a player's character by
        # default (a GM's post and roll would be attributed to a PC).
        voices = [(Voice.NARRATOR, Voice.NARRATOR.label)] if powers.narrator_voice else []
        if powers.npc_voice:
            voices.append((Voice.NPC, Voice.NPC.label))
        if self.characters:
            voices.append((Voice.CHARACTER, Voice.CHARACTER.label))
        voices.append((Voice.OOC, Voice.OOC.label))
        self.fields["voice"].choices = voices
        self.fields["voice"].initial = voices[0][0]
        self.fields["character"].choices = [(c.pk, c.name) for c in self.characters.values()]
        self.fields["whisper_to"].choices = _member_choices(memberships, exclude=user_id)
        if not powers.npc_voice:
            del self.fields["npc_name"]

    DICE_FIELDS = ("roll_expression", "roll_label", "roll_secret")

    def story_fields(self) -> list[forms.BoundField]:
        """Who speaks, what they say and to whom: the composer's first part."""
        return [field for field in self.visible_fields() if field.name not in self.DICE_FIELDS]

    def dice_fields(self) -> list[forms.BoundField]:
        """Free dice in notation: the composer's collapsible last part."""
        return [field for field in self.visible_fields() if field.name in self.DICE_FIELDS]

    def is_valid(self) -> bool:
        valid = super().is_valid()
        return (self.builder.is_valid() if self.builder is not None else True) and valid

    def roll_specs(self) -> list[RollSpec]:
        """The rolls to make with the post: the ruleset builder's, then the notation field's."""
        data = self.cleaned_data
        specs = list(self.builder.roll_specs()) if self.builder is not None else []
        if data.get("roll_expression"):
            character = (
                self.characters.get(data.get("character") or 0) if data.get("voice") == Voice.CHARACTER else None
            )
            specs.append(
                RollSpec(
                    kind="notation",
                    data={"expression": data["roll_expression"], "label": data.get("roll_label") or None},
                    character_id=character.pk if character else None,
                    label=data.get("roll_label", ""),
                    gm_only=bool(data.get("roll_secret")),
                )
            )
        return specs

    def service_kwargs(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {
            "voice": data["voice"],
            "character": self.characters.get(data.get("character") or 0),
            "npc_name": data.get("npc_name", ""),
            "body": data["body"],
            "notes": data.get("notes", ""),
            "recipients": data["recipients"],
            "whisper_to": data.get("whisper_to") or [],
        }


class PostEditForm(forms.Form):
    body = forms.CharField(
        label=_("Mensaje"), strip=True, help_text=MARKDOWN_HELP, widget=forms.Textarea(attrs={"rows": 12})
    )
    notes = forms.CharField(
        label=_("Notas de juego"), required=False, strip=True, widget=forms.Textarea(attrs={"rows": 4})
    )


ACTIVITY_WINDOWS = (7, 30, 90)


class DirectoryForm(forms.Form):
    """The public directory's filters (a GET form: a filtered directory is a link one can share)."""

    ruleset = forms.ChoiceField(label=_("Sistema"), required=False)
    language = forms.ChoiceField(label=_("Idioma"), required=False, choices=[("", _("Todos")), *Language.choices])
    recruiting = forms.BooleanField(label=_("Solo las que buscan jugadores"), required=False)
    active = forms.TypedChoiceField(
        label=_("Actividad"),
        required=False,
        coerce=int,
        empty_value=None,
        choices=[
            ("", _("Cualquiera")),
            *((days, _("En los últimos %(n)d días") % {"n": days}) for days in ACTIVITY_WINDOWS),
        ],
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["ruleset"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = [("", _("Todos")), *ruleset_choices()]
        active = self.fields["active"]
        assert isinstance(active, forms.ChoiceField)
        # Built per form, in the request's language (a lazy string formatted at import would not be).
        active.choices = [
            ("", _("Cualquiera")),
            *((days, gettext("En los últimos %(n)d días") % {"n": days}) for days in ACTIVITY_WINDOWS),
        ]

    def filters(self) -> DirectoryFilters:
        """The valid filters (an invalid value, from a hand-edited link, is dropped with its error shown; the
        others still apply: ``cleaned_data`` keeps the fields that validated)."""
        if not self.is_bound:
            return DirectoryFilters()
        self.is_valid()  # runs the validation: cleaned_data holds the fields that passed
        data = self.cleaned_data
        return DirectoryFilters(
            ruleset=data.get("ruleset") or "",
            language=data.get("language") or "",
            recruiting=bool(data.get("recruiting")),
            active_days=data.get("active"),
        )
