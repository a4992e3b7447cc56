"""Reads of the record: the post search (one selector, both engines)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from django.db import connection
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.db.models.expressions import RawSQL
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from campaigns import policy
from campaigns.models import Campaign, Membership, Post, PostKind, Role, Scene, Voice
from campaigns.policy import AnyUser, Viewer
from characters.models import Character
from record.models import RollLink
from record.post_index import SEARCH_CONFIGS, TABLE
from record.rollchain import GENESIS
from record.search import MARK_END, MARK_START, Terms, parse_terms
from rolls.models import Roll

PER_PAGE = 20
PARTS = ("body", "notes")
VOICES = ("ic", "ooc")


@dataclass(frozen=True)
class SearchCriteria:
    """What a user searches for. ``part``: only the post's text (``body``) or only its game notes (``notes``);
    ``voice``: in character (``ic``: a character, an NPC or the narrator) or out of character (``ooc``)."""

    text: str
    campaign_id: int | None = None
    scene_id: int | None = None
    author: str = ""
    character_id: int | None = None
    voice: str = ""
    part: str = ""
    with_rolls: bool = False
    since: date | None = None
    until: date | None = None


@dataclass(frozen=True)
class SearchHit:
    post: Post
    body: SafeString
    notes: SafeString


@dataclass(frozen=True)
class SearchPage:
    hits: list[SearchHit]
    number: int
    num_pages: int
    total: int
    terms: Terms = field(default_factory=lambda: Terms(()))

    @property
    def has_previous(self) -> bool:
        return self.number > 1

    @property
    def has_next(self) -> bool:
        return self.number < self.num_pages


def _roles(user: AnyUser | None) -> tuple[dict[int, str], set[int]]:
    """The user's role in each of their campaigns, and which of those ended with their whispers revealed."""
    if user is None or not user.is_authenticated:
        return {}, set()
    rows = list(
        Membership.objects.filter(user_id=user.pk).values_list("campaign_id", "role", "campaign__whispers_revealed")
    )
    return {campaign_id: role for campaign_id, role, _shown in rows}, {c for c, _role, shown in rows if shown}


def _pg_match(part: str, text: str) -> tuple[str, list[str]]:
    """The PostgreSQL condition: one branch per text search configuration, each with a constant query, so
    the GIN indexes of ``body`` and ``notes`` serve it (a query built from each row's own configuration, or
    over ``body || notes``, would scan every row)."""
    columns = {"body": ["s.body"], "notes": ["s.notes"]}.get(part, ["s.body", "s.notes"])
    branches, params = [], []
    for config in sorted({*SEARCH_CONFIGS.values(), "simple"}):
        matches = " OR ".join(f"{column} @@ websearch_to_tsquery(%s::regconfig, %s)" for column in columns)
        branches.append(f"(s.config = %s::regconfig AND ({matches}))")
        params += [config] + [config, text] * len(columns)
    return " OR ".join(branches), params


def _matching_ids(terms: Terms, part: str) -> RawSQL:
    """The ids of the posts whose text matches, from the engine's index (a subquery: one round trip)."""
    if connection.vendor == "postgresql":
        condition, params = _pg_match(part, terms.websearch())
        return RawSQL(f"SELECT s.post_id FROM {TABLE} s WHERE {condition}", params)
    column = part if part in PARTS else None
    return RawSQL(f"SELECT rowid FROM {TABLE} WHERE {TABLE} MATCH %s", [terms.fts5(column)])


def _filtered(posts: QuerySet[Post], criteria: SearchCriteria, roles: dict[int, str]) -> QuerySet[Post]:
    if criteria.campaign_id is not None:
        posts = posts.filter(scene__campaign_id=criteria.campaign_id)
    if criteria.scene_id is not None:
        posts = posts.filter(scene_id=criteria.scene_id)
    if criteria.author:
        # Imported writing nobody here has claimed is under no local name (it shows the archive's handle).
        posts = posts.filter(author__username__iexact=criteria.author.strip().lstrip("@"), imported_author="")
    if criteria.character_id is not None:
        posts = posts.filter(character_id=criteria.character_id)
    if criteria.voice == "ooc":
        posts = posts.filter(voice=Voice.OOC)
    elif criteria.voice == "ic":
        posts = posts.exclude(voice=Voice.OOC)
    if criteria.with_rolls:
        gm_ids = [campaign_id for campaign_id, role in roles.items() if role == Role.GM]
        seen = Roll.objects.filter(post_id=OuterRef("pk")).filter(policy.visible_rolls_q(gm_ids))
        posts = posts.filter(Exists(seen))
    if criteria.since is not None:
        posts = posts.filter(created_at__date__gte=criteria.since)
    if criteria.until is not None:
        posts = posts.filter(created_at__date__lte=criteria.until)
    return posts


def _marked(text: str | None) -> SafeString:
    """The engine's snippet, escaped, with only its own match markers turned into <mark>."""
    html = escape(text or "").replace(MARK_START, "<mark>").replace(MARK_END, "</mark>")
    return mark_safe(html)  # escaped above: only the engine's markers become tags


def _snippets(terms: Terms, post_ids: list[int], part: str) -> dict[int, tuple[str, str]]:
    """Highlighted fragments of each post's text and notes (one query for the page)."""
    if not post_ids:
        return {}
    placeholders = ", ".join(["%s"] * len(post_ids))
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            options = f"StartSel={MARK_START}, StopSel={MARK_END}, MaxFragments=2, MaxWords=30, MinWords=12"
            query = "websearch_to_tsquery(s.config, %s)"
            cursor.execute(
                f"SELECT p.id, ts_headline(s.config, p.body_source, {query}, %s), "
                f"ts_headline(s.config, p.notes_source, {query}, %s) "
                f"FROM campaigns_post p JOIN {TABLE} s ON s.post_id = p.id WHERE p.id IN ({placeholders})",
                [terms.websearch(), options, terms.websearch(), options, *post_ids],
            )
        else:
            cursor.execute(
                f"SELECT rowid, snippet({TABLE}, 0, %s, %s, '…', 24), snippet({TABLE}, 1, %s, %s, '…', 24) "
                f"FROM {TABLE} WHERE {TABLE} MATCH %s AND rowid IN ({placeholders})",
                [MARK_START, MARK_END, MARK_START, MARK_END, terms.fts5(part if part in PARTS else None), *post_ids],
            )
        return {row[0]: (row[1] or "", row[2] or "") for row in cursor.fetchall()}


def search_posts(user: AnyUser | None, criteria: SearchCriteria, page: int = 1, per_page: int = PER_PAGE) -> SearchPage:
    """Posts matching ``criteria.text`` in every campaign the user may read, newest first, each only if the
    policy lets the user see it (scene, recipients, deleted); snippets highlighted. Constant queries."""
    terms = parse_terms(criteria.text)
    if terms.is_empty:
        return SearchPage([], 1, 1, 0, terms)
    roles, revealed = _roles(user)
    user_id = user.pk if user is not None and user.is_authenticated else None
    posts = Post.objects.filter(Q(kind=PostKind.STORY) & policy.searchable_posts_q(user_id, roles, revealed))
    posts = _filtered(posts.filter(pk__in=_matching_ids(terms, criteria.part)), criteria, roles)
    total = posts.count()
    num_pages = max(1, -(-total // per_page))
    number = min(max(1, page), num_pages)
    start = (number - 1) * per_page
    rows = list(
        posts.select_related("author", "character", "scene__campaign").order_by("-created_at", "-id")[
            start : start + per_page
        ]
    )
    snippets = _snippets(terms, [post.pk for post in rows], criteria.part)
    hits = []
    for post in rows:
        body, notes = snippets.get(post.pk, ("", ""))
        shown_notes = notes if MARK_START in notes else ""
        hits.append(SearchHit(post, _marked(body if criteria.part != "notes" else ""), _marked(shown_notes)))
    return SearchPage(hits, number, num_pages, total, terms)


@dataclass(frozen=True)
class SearchChoices:
    """What the search form offers: the user's campaigns, and the scenes and characters of the chosen one."""

    campaigns: list[tuple[int, str]]
    scenes: list[tuple[int, str]]
    characters: list[tuple[int, str]]


def search_choices(user: AnyUser | None, campaign_id: int | None) -> SearchChoices:
    campaigns: list[tuple[int, str]] = []
    if user is not None and user.is_authenticated:
        campaigns = list(
            Campaign.objects.filter(memberships__user_id=user.pk).order_by("title", "id").values_list("id", "title")
        )
    campaign = Campaign.objects.filter(pk=campaign_id).first() if campaign_id is not None else None
    if campaign is None:
        return SearchChoices(campaigns, [], [])
    viewer = policy.viewer_for(user, campaign)
    if not policy.may_view_campaign(viewer):
        return SearchChoices(campaigns, [], [])
    if campaign.pk not in {pk for pk, _title in campaigns}:
        campaigns.append((campaign.pk, campaign.title))
    scenes = list(
        Scene.objects.filter(policy.readable_scenes_q(viewer)).order_by("position", "id").values_list("id", "title")
    )
    characters = list(
        Character.objects.filter(policy.characters_visible_q(viewer)).order_by("name", "id").values_list("id", "name")
    )
    return SearchChoices(campaigns, scenes, characters)


# --- The roll log -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LinkView:
    """A link of the roll chain as one viewer may see it: always its hashes; its salt and content (the roll's
    facts) only when the viewer may see that roll (its scene, its post, and a secret roll once revealed)."""

    seq: int
    prev: str
    commitment: str
    hash: str
    salt: str | None
    content: dict[str, Any] | None
    roll: Roll | None
    imported: bool = False

    def as_json(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"seq": self.seq, "prev": self.prev, "commitment": self.commitment, "hash": self.hash}
        if self.content is not None:
            entry["salt"], entry["content"] = self.salt, self.content
        if self.imported:
            entry["imported"] = True
        return entry


def _opened_roll_ids(viewer: Viewer, links: list[RollLink]) -> set[int]:
    """The rolls of these links that the viewer may see (three queries whatever the length of the chain)."""
    rolls = [roll for link in links for roll in (link.roll, link.about) if roll is not None]
    scene_ids = policy.readable_scene_ids(viewer)
    post_ids = {roll.post_id for roll in rolls if roll.post_id is not None}
    seen_posts = set(
        Post.objects.filter(pk__in=post_ids).filter(policy.visible_posts_q(viewer)).values_list("pk", flat=True)
    )
    opened = set()
    for roll in rolls:
        revealed = getattr(roll, "reveal", None) is not None
        if (
            roll.scene_id in scene_ids
            and (roll.post_id is None or roll.post_id in seen_posts)
            and policy.may_see_roll(viewer, gm_only=roll.gm_only, revealed=revealed)
        ):
            opened.add(roll.pk)
    return opened


def roll_log(viewer: Viewer, campaign: Campaign) -> list[LinkView]:
    """The campaign's whole roll chain, in order, each link opened as far as the viewer may see its roll."""
    links = list(
        RollLink.objects.filter(campaign=campaign)
        .select_related("roll__reveal", "roll__roller", "about__reveal")
        .order_by("seq")
    )
    opened = _opened_roll_ids(viewer, links)
    views = []
    for link in links:
        # A follow-up's or reveal's link opens with the roll it is about.
        about = link.roll or link.about
        shown = about is not None and about.pk in opened
        views.append(
            LinkView(
                link.seq,
                link.prev,
                link.commitment,
                link.hash,
                link.salt if shown else None,
                link.content if shown else None,
                link.roll if shown else None,
                link.imported,
            )
        )
    return views


def roll_log_document(campaign: Campaign, links: list[LinkView]) -> dict[str, Any]:
    """The published log: what anyone who may read the campaign downloads and verifies."""
    return {
        "format": "tintero-roll-log",
        "version": 1,
        "campaign": {"id": campaign.pk, "title": campaign.title},
        "length": len(links),
        "head": links[-1].hash if links else GENESIS,
        "links": [link.as_json() for link in links],
        **_imported_part(links),
    }


def _imported_part(links: list[LinkView]) -> dict[str, Any]:
    """An imported campaign's log says where the archive's history ends and rolls made here begin."""
    imported = [link for link in links if link.imported]
    if not imported:
        return {}
    return {"imported": {"length": len(imported), "head": imported[-1].hash}}
