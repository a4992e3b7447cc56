"""Pages of the record: search, export and import, archive, the roll log."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.http.response import HttpResponseBase
from django.shortcuts import redirect, render
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from campaigns import policy
from campaigns import selectors as campaign_selectors
from campaigns.models import Campaign
from campaigns.policy import Viewer
from campaigns.views.common import page_number, user_of
from record import selectors
from record.archive_schema import json_schema
from record.book import epub_book, html_book
from record.export import Exporter, archive_chunks, batched
from record.forms import ArchiveForm, ImportForm, SearchForm
from record.selectors import LinkView, roll_log_document, search_choices, search_posts
from record.services import (
    ImportRefused,
    archive_campaign,
    claim_imported_writing,
    import_campaign,
    imported_writing,
    read_upload,
    reopen_campaign,
)
from record.streaming import streamed_download


def _campaign_param(request: HttpRequest) -> int | None:
    try:
        value = int(request.GET.get("campaign") or "")
    except ValueError:
        return None
    return value if 0 < value < 2**63 else None  # beyond any stored id (and any database integer)


@require_GET
def search(request: HttpRequest) -> HttpResponse:
    """Search the posts of every campaign the viewer may read; each result links to the post's permalink."""
    campaign_id = _campaign_param(request)
    choices = search_choices(request.user, campaign_id)
    form = SearchForm(
        request.GET if "q" in request.GET else None,
        initial={"campaign": campaign_id},
        campaigns=choices.campaigns,
        scenes=choices.scenes,
        characters=choices.characters,
    )
    results = None
    if form.is_bound and form.is_valid():
        results = search_posts(request.user, form.criteria(), page_number(request.GET.get("page")))
    query = request.GET.copy()
    query.pop("page", None)
    context = {"form": form, "results": results, "query": query.urlencode()}
    return render(request, "record/search.html", context)


def _roll_log_json(campaign: Campaign, links: list[LinkView]) -> JsonResponse:
    response = JsonResponse(roll_log_document(campaign, links), json_dumps_params={"ensure_ascii": False})
    response["Content-Disposition"] = f'attachment; filename="tintero-tiradas-{campaign.pk}.json"'
    return response


@require_GET
def roll_log(request: HttpRequest, pk: int) -> HttpResponse:
    """The campaign's roll chain, for anyone who may read the campaign (``?format=json``: the download)."""
    campaign, viewer = campaign_selectors.campaign_for(request.user, pk)
    links = selectors.roll_log(viewer, campaign)
    if request.GET.get("format") == "json":
        return _roll_log_json(campaign, links)
    language = get_language() or "es"
    rows = [(link, _roll_summary(link, language)) for link in links]
    document = roll_log_document(campaign, links)
    context = {"campaign": campaign, "rows": rows, "head": document["head"], "imported": document.get("imported")}
    return render(request, "record/roll_log.html", context)


def _roll_summary(link: LinkView, language: str) -> str:
    roll = link.roll
    if roll is None:
        return ""
    return roll.summary_en if language.startswith("en") and roll.summary_en else roll.summary_es


def _exportable(request: HttpRequest, pk: int) -> tuple[Campaign, Viewer]:
    campaign, viewer = campaign_selectors.campaign_for(request.user, pk)
    if not policy.may_export_campaign(viewer):
        raise PermissionDenied(_("Solo los másters pueden descargar una partida privada."))
    return campaign, viewer


@require_GET
def export_page(request: HttpRequest, pk: int) -> HttpResponse:
    """What can be downloaded, and how much of it this viewer's download holds."""
    campaign, viewer = _exportable(request, pk)
    return render(request, "record/export.html", {"campaign": campaign, "viewer": viewer})


@require_GET
def export_archive(request: HttpRequest, pk: int) -> HttpResponseBase:
    campaign, viewer = _exportable(request, pk)
    chunks = archive_chunks(Exporter(viewer, campaign), getattr(request.user, "username", None))
    return streamed_download(
        request, batched(chunks), "application/json; charset=utf-8", f"tintero-partida-{campaign.pk}.json"
    )


def archive_schema(request: HttpRequest) -> HttpResponse:
    """The published JSON Schema of the campaign archive (the same as docs/campaign-archive.schema.json)."""
    return JsonResponse(json_schema(), json_dumps_params={"ensure_ascii": False, "indent": 2})


@require_GET
def export_book(request: HttpRequest, pk: int) -> HttpResponseBase:
    """The story as one self-contained HTML file, streamed chapter by chapter."""
    campaign, viewer = _exportable(request, pk)
    chunks = html_book(Exporter(viewer, campaign), get_language() or "es")
    return streamed_download(request, batched(chunks), "text/html; charset=utf-8", f"tintero-libro-{campaign.pk}.html")


@require_GET
def export_epub(request: HttpRequest, pk: int) -> HttpResponse:
    campaign, viewer = _exportable(request, pk)
    response = HttpResponse(epub_book(Exporter(viewer, campaign), get_language() or "es"), "application/epub+zip")
    response["Content-Disposition"] = f'attachment; filename="tintero-libro-{campaign.pk}.epub"'
    return response


@login_required
@require_http_methods(["GET", "POST"])
def import_page(request: HttpRequest) -> HttpResponse:
    """A GM imports an archive as a new campaign; a refusal lists every problem and creates nothing."""
    form = ImportForm(request.POST or None, request.FILES or None)
    problems: list[str] = []
    if request.method == "POST" and form.is_valid():
        try:
            report = import_campaign(
                actor=user_of(request),
                raw=read_upload(form.cleaned_data["archive"]),
                invite=form.cleaned_data["invite"],
            )
        except ImportRefused as refused:
            problems = refused.problems
        else:
            return render(request, "record/import_report.html", {"report": report})
    status = 400 if request.method == "POST" else 200
    return render(request, "record/import.html", {"form": form, "problems": problems}, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def archive(request: HttpRequest, pk: int) -> HttpResponse:
    """A GM ends the campaign (read-only from then on), choosing whether the table reads the whispers."""
    campaign, viewer = campaign_selectors.campaign_for(request.user, pk)
    if not policy.may_archive_campaign(viewer):
        raise PermissionDenied(_("Solo un máster puede terminar la partida, y una sola vez."))
    form = ArchiveForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        archive_campaign(
            actor=user_of(request), campaign=campaign, reveal_whispers=form.cleaned_data["reveal_whispers"]
        )
        messages.success(request, _("La partida ha terminado. Sigue disponible para leer, buscar y descargar."))
        return redirect(campaign)
    return render(request, "record/archive.html", {"campaign": campaign, "form": form})


@login_required
@require_POST
def reopen(request: HttpRequest, pk: int) -> HttpResponse:
    campaign, viewer = campaign_selectors.campaign_for(request.user, pk)
    if not policy.may_reopen_campaign(viewer):
        raise PermissionDenied(_("Solo un máster puede reabrir una partida terminada."))
    reopen_campaign(actor=user_of(request), campaign=campaign)
    messages.success(request, _("La partida vuelve a estar en juego."))
    return redirect(campaign)


@login_required
@require_http_methods(["GET", "POST"])
def claim(request: HttpRequest, post_id: int) -> HttpResponse:
    """The account an imported post names confirms it wrote it: every post of that campaign under its handle
    (and the characters it played, once a player here) show under the account from then on."""
    post, scene, _viewer = campaign_selectors.post_for(request.user, min(post_id, 2**63 - 1))
    campaign = scene.campaign
    user = user_of(request)
    if request.method == "POST":
        claimed = claim_imported_writing(actor=user, campaign=campaign)
        message = _("Ahora son tuyos %(posts)d mensajes y %(characters)d personajes.")
        messages.success(request, message % {"posts": claimed.posts, "characters": claimed.characters})
        return redirect(campaign)
    context = {"campaign": campaign, "post": post, "mine": imported_writing(user, campaign)}
    return render(request, "record/claim.html", context)
