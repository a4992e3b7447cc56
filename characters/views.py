"""Character pages: the list, creation, the sheet page, edits, approval, portraits, in-place operations
(htmx) and the ledgers. Thin views over ``characters.selectors`` (reads) and ``characters.services``
(writes); every permission question goes to ``campaigns.policy``."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import get_template
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from campaigns import policy
from campaigns import selectors as campaign_selectors
from campaigns.forms import add_service_errors
from campaigns.models import Campaign
from campaigns.policy import Viewer
from campaigns.views.common import flash_validation_error, is_htmx, page_number, user_of
from characters import selectors, services
from characters.forms import CharacterCreateForm, CharacterTextsForm, PortraitForm, operation_params
from characters.models import Character, CharacterStatus
from rulesets import registry
from systems.errors import RulesError

LEDGER_PAGE_SIZE = 50
SHEET_PREFIX = "sheet"


# --- Helpers --------------------------------------------------------------------------------------


def sheet_template(ruleset_key: str) -> str:
    return registry.plugin(ruleset_key).templates.sheet or "characters/_sheet_default.html"


def pools_template(ruleset_key: str) -> str:
    return registry.plugin(ruleset_key).templates.pools or "characters/_pools_default.html"


def _language(request: HttpRequest) -> str:
    return getattr(request, "LANGUAGE_CODE", "es") or "es"


def sheet_context(
    character: Character, viewer: Viewer, operation_error: str | None = None, campaign: Campaign | None = None
) -> dict[str, Any]:
    """What a ruleset's sheet fragment receives (see the rulesets' contract)."""
    campaign = campaign or character.campaign
    owner_ops, gm_ops = selectors.operation_keys(campaign, viewer, character)
    context = {
        "character": character,
        "sheet": character.sheet,
        "campaign": campaign,
        "viewer": viewer,
        "owner_ops": owner_ops,
        "gm_ops": gm_ops,
        "operation_error": operation_error,
        "settings": services.campaign_settings(campaign),
        "sheet_template": sheet_template(campaign.ruleset),
    }
    if character.status in (CharacterStatus.DRAFT, CharacterStatus.PENDING):
        # A sheet still being written may lack what the ruleset's paper sheet expects (live tracks are
        # filled in on approval): if that layout cannot show it, show the plain fields instead.
        try:
            get_template(context["sheet_template"]).render(context)
        except Exception:
            context["sheet_template"] = "characters/_sheet_default.html"
    return context


def pools_context(campaign: Campaign, viewer: Viewer, operation_error: str | None = None) -> dict[str, Any]:
    """What a ruleset's pools fragment receives; ``pools_visible`` False renders nothing."""
    view = selectors.campaign_pools(campaign, viewer)
    gm_ops: set[str] = set()
    if policy.may_apply_any_operation(viewer):
        gm_ops = {op.key for op in registry.rules(campaign.ruleset).operations}
    return {
        "campaign": campaign,
        "viewer": viewer,
        "state": view.state,
        "pools": view.pools,
        "pools_visible": view.visible,
        "gm_ops": gm_ops,
        "operation_error": operation_error,
        "pools_template": pools_template(campaign.ruleset),
    }


def campaign_characters_context(campaign: Campaign, viewer: Viewer) -> dict[str, Any]:
    """The characters list and pools for the campaign page (2-3 queries whatever the number of characters)."""
    characters = list(selectors.characters_visible(viewer))
    return {
        "characters": characters,
        "may_create_character": policy.may_create_character(viewer, is_npc=False),
        **pools_context(campaign, viewer),
    }


def _require_private(viewer: Viewer, character: Character) -> None:
    if not selectors.may_see_private(viewer, character):
        raise PermissionDenied(_("La hoja de este personaje es privada."))


def _back(request: HttpRequest, default: str) -> HttpResponse:
    target = request.POST.get("next") or request.headers.get("referer") or default
    if not url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}):
        target = default
    return redirect(target)


def _error_text(error: ValidationError) -> str:
    return " ".join(error.messages)


# --- Lists and pages ------------------------------------------------------------------------------


@require_GET
def character_list(request: HttpRequest, pk: int) -> HttpResponse:
    campaign, viewer = campaign_selectors.campaign_for(request.user, pk)
    context = {"campaign": campaign, "viewer": viewer, **campaign_characters_context(campaign, viewer)}
    return render(request, "characters/character_list.html", context)


@require_GET
def character_detail(request: HttpRequest, pk: int) -> HttpResponse:
    character, viewer = selectors.character_for(request.user, pk)
    campaign = character.campaign
    private = selectors.may_see_private(viewer, character)
    context: dict[str, Any] = {
        "character": character,
        "campaign": campaign,
        "viewer": viewer,
        "may_see_private": private,
        "may_edit": policy.may_edit_character(viewer, character),
        "may_approve": policy.may_approve_character(viewer),
        "may_read_ledger": policy.may_read_ledger(viewer, character, campaign.sheets_open),
    }
    if private:
        context.update(sheet_context(character, viewer, campaign=campaign))
    return render(request, "characters/character_detail.html", context)


@require_GET
def character_sheet(request: HttpRequest, pk: int) -> HttpResponse:
    """The sheet fragment alone (what ``#sheet`` holds), to refresh it in place."""
    character, viewer = selectors.character_for(request.user, pk)
    _require_private(viewer, character)
    return render(request, "characters/_sheet.html", sheet_context(character, viewer))


@require_GET
def campaign_pools(request: HttpRequest, pk: int) -> HttpResponse:
    """The pools fragment alone (what ``#pools`` holds), to refresh it in place."""
    campaign, viewer = campaign_selectors.campaign_for(request.user, pk)
    return render(request, "characters/_pools.html", pools_context(campaign, viewer))


# --- Creating and editing -------------------------------------------------------------------------


def _sheet_form(campaign: Campaign, data: Any = None, *, sheet: dict[str, Any] | None = None, is_npc: bool = False):  # type: ignore[no-untyped-def]
    form_class = registry.plugin(campaign.ruleset).sheet_form
    form = form_class(data, sheet=sheet, settings=services.campaign_settings(campaign), is_npc=is_npc)
    # The sheet's fields share the page with the character's texts (both may have ``notes``...).
    form.prefix = SHEET_PREFIX
    return form


def _form_context(campaign: Campaign, sheet_form: Any) -> dict[str, Any]:
    return {
        "sheet_form": sheet_form,
        "sheetform_template": registry.plugin(campaign.ruleset).templates.sheet_form or "",
    }


@login_required
@require_http_methods(["GET", "POST"])
def character_create(request: HttpRequest, pk: int) -> HttpResponse:
    campaign, viewer = campaign_selectors.campaign_for(request.user, pk)
    if not policy.may_create_character(viewer, is_npc=False):
        if viewer.archived:  # an ended campaign is read, never written: the true reason
            raise PermissionDenied(_("La partida ha terminado: se puede leer, pero ya no se crean personajes."))
        raise PermissionDenied(_("Solo los jugadores y los másters de la partida crean personajes."))
    data = request.POST if request.method == "POST" else None
    for_others = policy.may_create_for_others(viewer)
    form = CharacterCreateForm(data, campaign=campaign, for_others=for_others)
    is_npc = bool(data and data.get("is_npc") and for_others)
    sheet_form = _sheet_form(campaign, data, is_npc=is_npc)
    if request.method == "POST" and form.is_valid() & sheet_form.is_valid():
        try:
            character = services.create_character(
                actor=user_of(request),
                campaign=campaign,
                is_npc=form.cleaned_data.get("is_npc", False),
                owner=form.cleaned_data.get("owner"),
                sheet=sheet_form.to_sheet(),
                **{k: v for k, v in form.texts().items()},
            )
        except ValidationError as error:
            add_service_errors(form, error)
            if hasattr(error, "error_dict") and "sheet" in error.error_dict:
                for message in error.error_dict["sheet"]:
                    sheet_form.add_error(None, message)
        else:
            messages.success(request, _("Borrador guardado. Cuando la hoja esté completa, envíala a aprobación."))
            return redirect("characters:detail", character.pk)
    context = {"campaign": campaign, "viewer": viewer, "form": form, "character": None}
    context.update(_form_context(campaign, sheet_form))
    return render(request, "characters/character_form.html", context, status=400 if form.errors else 200)


@login_required
@require_http_methods(["GET", "POST"])
def character_edit(request: HttpRequest, pk: int) -> HttpResponse:
    character, viewer = selectors.character_for(request.user, pk)
    campaign = character.campaign
    if not policy.may_edit_character(viewer, character):
        raise PermissionDenied(_("No puedes editar este personaje."))
    sheet_editable = character.status in (CharacterStatus.DRAFT, CharacterStatus.PENDING)
    data = request.POST if request.method == "POST" else None
    initial = {name: getattr(character, name) for name in CharacterTextsForm.TEXT_FIELDS}
    form = CharacterTextsForm(data, initial=initial)
    sheet_form = _sheet_form(campaign, data, sheet=character.sheet, is_npc=character.is_npc) if sheet_editable else None
    if request.method == "POST":
        valid = form.is_valid() & (sheet_form.is_valid() if sheet_form is not None else True)
        if valid:
            try:
                services.update_character(
                    actor=user_of(request),
                    character=character,
                    sheet=sheet_form.to_sheet() if sheet_form is not None else None,
                    **form.texts(),
                )
            except ValidationError as error:
                add_service_errors(form, error)
                if sheet_form is not None and hasattr(error, "error_dict") and "sheet" in error.error_dict:
                    for message in error.error_dict["sheet"]:
                        sheet_form.add_error(None, message)
            else:
                messages.success(request, _("Personaje guardado."))
                return redirect("characters:detail", character.pk)
    context = {
        "campaign": campaign,
        "viewer": viewer,
        "form": form,
        "character": character,
        "portrait_form": PortraitForm(),
    }
    context.update(_form_context(campaign, sheet_form))
    failed = bool(form.errors or (sheet_form is not None and sheet_form.errors))
    return render(request, "characters/character_form.html", context, status=400 if failed else 200)


@login_required
@require_POST
def character_portrait(request: HttpRequest, pk: int) -> HttpResponse:
    character, _viewer = selectors.character_for(request.user, pk)
    form = PortraitForm(request.POST, request.FILES)
    if form.is_valid():
        upload = None if form.cleaned_data["remove"] else form.cleaned_data["portrait"]
        if upload is None and not form.cleaned_data["remove"]:
            messages.error(request, _("Elige una imagen."))
            return redirect("characters:edit", character.pk)
        try:
            services.set_portrait(actor=user_of(request), character=character, upload=upload)
        except ValidationError as error:
            flash_validation_error(request, error)
            return redirect("characters:edit", character.pk)
        messages.success(request, _("Retrato quitado.") if upload is None else _("Retrato guardado."))
        return redirect("characters:detail", character.pk)
    for errors in form.errors.values():
        for message in errors:
            messages.error(request, message)
    return redirect("characters:edit", character.pk)


def _status_action(service: Any, done: Any) -> Any:
    @login_required
    @require_POST
    def view(request: HttpRequest, pk: int) -> HttpResponse:
        character, _viewer = selectors.character_for(request.user, pk)
        try:
            service(actor=user_of(request), character=character)
        except ValidationError as error:
            flash_validation_error(request, error)
        else:
            messages.success(request, done)
        return redirect("characters:detail", character.pk)

    view.__name__ = service.__name__
    return view


character_submit = _status_action(
    services.submit_character, gettext_lazy("Personaje enviado a los másters para su aprobación.")
)
character_approve = _status_action(
    services.approve_character, gettext_lazy("Personaje aprobado: ya puede escribir en la partida.")
)
character_return = _status_action(
    services.return_to_draft, gettext_lazy("Personaje devuelto a su jugador como borrador.")
)
character_retire = _status_action(services.retire_character, gettext_lazy("Personaje retirado."))


# --- Operations (in place with htmx; plain POST + redirect without JS) ----------------------------


def _apply(request: HttpRequest, campaign: Campaign, op_key: str, character: Character | None) -> str | None:
    """Apply the operation from the form; return the refusal's message (None when it was applied)."""
    try:
        op = registry.rules(campaign.ruleset).operation(op_key)
        params = operation_params(request.POST, op.params_model)
        services.apply_operation(
            actor=user_of(request),
            campaign=campaign,
            operation=op_key,
            params=params,
            character=character,
            reason=request.POST.get("reason", "").strip(),
        )
    except RulesError as error:
        return error.message(_language(request))
    except ValidationError as error:
        return _error_text(error)
    return None


def _operation_done(request: HttpRequest, error: str | None, fallback: str) -> HttpResponse:
    if error is None:
        messages.success(request, _("Hecho."))
    else:
        messages.error(request, error)
    return _back(request, fallback)


@login_required
@require_POST
def character_operate(request: HttpRequest, pk: int, op: str) -> HttpResponse:
    character, viewer = selectors.character_for(request.user, pk)
    campaign = character.campaign
    error = _apply(request, campaign, op, character)  # PermissionDenied -> 403 (policy)
    if not is_htmx(request):
        return _operation_done(request, error, reverse("characters:detail", args=[character.pk]))
    character.refresh_from_db(fields=["sheet", "status", "updated_at"])
    response = render(request, "characters/_sheet.html", sheet_context(character, viewer, error, campaign))
    if error is None:
        response["HX-Trigger"] = "tintero:pools-changed"
    return response


@login_required
@require_POST
def campaign_operate(request: HttpRequest, pk: int, op: str) -> HttpResponse:
    campaign, viewer = campaign_selectors.campaign_for(request.user, pk)
    error = _apply(request, campaign, op, None)
    if not is_htmx(request):
        return _operation_done(request, error, campaign.get_absolute_url())
    return render(request, "characters/_pools.html", pools_context(campaign, viewer, error))


# --- Ledgers --------------------------------------------------------------------------------------


@login_required
@require_GET
def character_ledger(request: HttpRequest, pk: int) -> HttpResponse:
    character, viewer = selectors.character_for(request.user, pk)
    campaign = character.campaign
    if not policy.may_read_ledger(viewer, character, campaign.sheets_open):
        raise PermissionDenied(_("Solo el dueño del personaje y los másters leen su libro de cambios."))
    page = Paginator(selectors.character_ledger(character), LEDGER_PAGE_SIZE).get_page(
        page_number(request.GET.get("page"))
    )
    entries = selectors.shape_ledger(page.object_list, viewer, campaign, _language(request), character=character)
    context = {"campaign": campaign, "character": character, "viewer": viewer, "page": page, "entries": entries}
    return render(request, "characters/ledger.html", context)


@login_required
@require_GET
def campaign_ledger(request: HttpRequest, pk: int) -> HttpResponse:
    campaign, viewer = campaign_selectors.campaign_for(request.user, pk)
    if not policy.may_read_ledger(viewer, None, campaign.sheets_open):
        raise PermissionDenied(_("Solo los másters leen el libro de cambios de la partida."))
    page = Paginator(selectors.campaign_ledger(campaign), LEDGER_PAGE_SIZE).get_page(
        page_number(request.GET.get("page"))
    )
    entries = selectors.shape_ledger(page.object_list, viewer, campaign, _language(request))
    context = {"campaign": campaign, "character": None, "viewer": viewer, "page": page, "entries": entries}
    return render(request, "characters/ledger.html", context)
