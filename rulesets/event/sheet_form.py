"""Event: the *ficha de personaje* as a form: the two sentences, the skill lines with their "+" and, when
the campaign plays with *talento destacado*, the talent. Used for drafts (and by GMs for NPCs); at a
table that votes answer by answer, the creation flow (``rulesets.event.creation``) fills the same sheet."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _
from pydantic import ValidationError as PydanticValidationError

from rulesets.event.sheet import BINDING, settings_of
from systems.errors import RulesError
from systems.event.sheet import Origin, normalize_name


def _english() -> bool:
    return (get_language() or "es").startswith("en")


def _pydantic_messages(exc: PydanticValidationError) -> list[str]:
    """The rule's message in the page's language (the rules carry both)."""
    messages = []
    for err in exc.errors():
        ctx = err.get("ctx") or {}
        spanish = ctx.get("message_es")
        messages.append(str(err["msg"] if _english() or not spanish else spanish))
    return messages


class SheetForm(forms.Form):
    handle = forms.CharField(
        label=_("Nombre en la ficha"),
        required=False,
        max_length=80,
        help_text=_("Cómo se llama en la ficha; «¿Quién soy?» puede callarse el nombre."),
    )
    who_am_i = forms.CharField(
        label=_("¿Quién soy?"),
        required=False,
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=_(
            "Una sola frase, en primera persona: quién eres (nombre, ocupación, carácter), verdad o exageración. "
            "Puede ser evasiva."
        ),
    )
    appearance = forms.CharField(
        label=_("¿Qué aspecto tengo?"),
        required=False,
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=_("Una frase sencilla: cómo te ve quien te mira (edad, rasgos, ropa)."),
    )

    def __init__(
        self, data: Any = None, *, sheet: dict[str, Any] | None = None, settings: Any = None, is_npc: bool = False
    ) -> None:
        self.sheet = dict(sheet or {})
        self.rules = settings_of(settings)
        self.is_npc = is_npc
        skills = list(self.sheet.get("skills") or [])
        initial: dict[str, Any] = {
            "handle": self.sheet.get("handle", ""),
            "who_am_i": self.sheet.get("who_am_i", ""),
            "appearance": self.sheet.get("appearance", ""),
        }
        self.rows = max(self.rules.max_picks + (4 if is_npc else 0), len(skills))
        for i, skill in enumerate(skills):
            initial[f"skill_{i}_name"] = skill.get("name", "")
            initial[f"skill_{i}_improvements"] = skill.get("improvements", 0)
            initial[f"skill_{i}_category"] = skill.get("category") or ""
        talent = self.sheet.get("talent")
        if talent:
            initial["talent"] = next(
                (s.get("name") for s in skills if normalize_name(s.get("name", "")) == talent), talent
            )
        super().__init__(data, initial=initial)
        cap = self.rules.core.max_improvements_per_skill
        categories = self.rules.house_rules.skill_categories
        for i in range(self.rows):
            self.fields[f"skill_{i}_name"] = forms.CharField(
                label=_("Habilidad %(n)d") % {"n": i + 1}, required=False, max_length=80
            )
            self.fields[f"skill_{i}_improvements"] = forms.IntegerField(
                label=_("Mejoras (+) de la habilidad %(n)d") % {"n": i + 1},
                required=False,
                min_value=0,
                max_value=cap,
                initial=0,
            )
            if categories:
                self.fields[f"skill_{i}_category"] = forms.ChoiceField(
                    label=_("Categoría de la habilidad %(n)d") % {"n": i + 1},
                    required=False,
                    choices=[("", "—"), *((c.key, c.label or c.key) for c in categories)],
                )
        if self.rules.talent_enabled:
            self.fields["talent"] = forms.CharField(
                label=_("Talento destacado"),
                required=False,
                max_length=80,
                help_text=_("Una de tus habilidades, elegida al terminar la pregunta 3; después no cambia."),
            )

    @property
    def creation_help(self) -> str:
        if self.is_npc:
            return str(_("Un PNJ no necesita ficha completa: un nombre y, si quieres, algunas habilidades."))
        return str(
            _(
                "¿Qué soy capaz de hacer? %(picks)d elecciones: cada habilidad nueva cuenta una y cada mejora (+) "
                "sobre una habilidad que ya tienes cuenta otra. Una habilidad admite como mucho %(cap)d mejoras; "
                "no repitas habilidades. Cualquier respuesta puede vetarse: dos vetos la anulan."
            )
            % {"picks": self.rules.max_picks, "cap": self.rules.core.max_improvements_per_skill}
        )

    def skill_rows(self) -> list[dict[str, Any]]:
        """The skill lines as bound fields, for the paper-sheet layout."""
        return [
            {
                "name": self[f"skill_{i}_name"],
                "improvements": self[f"skill_{i}_improvements"],
                "category": self[f"skill_{i}_category"] if f"skill_{i}_category" in self.fields else None,
            }
            for i in range(self.rows)
        ]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if self.errors:
            return cleaned
        previous = {normalize_name(s.get("name", "")): s for s in self.sheet.get("skills") or []}
        skills = []
        for i in range(self.rows):
            name = " ".join((cleaned.get(f"skill_{i}_name") or "").split())
            improvements = cleaned.get(f"skill_{i}_improvements") or 0
            if not name:
                if improvements:
                    self.add_error(f"skill_{i}_name", _("Una mejora necesita su habilidad."))
                continue
            category = cleaned.get(f"skill_{i}_category") or None
            before = previous.get(normalize_name(name), {})
            house = self.rules.house_rules.category(category)
            improvable = before.get("improvable", house.improvable if house is not None else True)
            if improvements and not improvable:
                self.add_error(f"skill_{i}_improvements", _("«%(name)s» no admite mejoras.") % {"name": name})
            skills.append(
                {
                    "name": name,
                    "improvements": improvements,
                    "origin": before.get("origin", Origin.CREATION.value),
                    "progress_improvements": min(before.get("progress_improvements", 0), improvements),
                    "category": category,
                    "improvable": improvable,
                }
            )
        talent = (cleaned.get("talent") or "").strip()
        if talent and normalize_name(talent) not in {normalize_name(s["name"]) for s in skills}:
            self.add_error("talent", _("«%(name)s» no es una de tus habilidades.") % {"name": talent})
        data = {
            "status": self.sheet.get("status", "CREATING"),
            "handle": (cleaned.get("handle") or "").strip(),
            "who_am_i": (cleaned.get("who_am_i") or "").strip(),
            "appearance": (cleaned.get("appearance") or "").strip(),
            "skills": skills,
            "talent": normalize_name(talent) if talent else None,
            "progress_window": self.sheet.get("progress_window"),
            "progress_used": self.sheet.get("progress_used", False),
        }
        if self.errors:
            return cleaned
        try:
            self._sheet = BINDING.draft_sheet(data, self.rules)
        except PydanticValidationError as exc:
            for message in _pydantic_messages(exc):
                self.add_error(None, message)
        except RulesError as exc:
            self.add_error(None, exc.message("en" if _english() else "es"))
        return cleaned

    def to_sheet(self) -> dict[str, Any]:
        return dict(self._sheet)
