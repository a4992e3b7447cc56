"""Atom feeds: a public campaign's posts (what an anonymous reader sees), and a user's private feed of
their inbox behind a secret, revocable URL.

What feed readers rely on (RFC 4287): an author for the feed; ``tag:`` ids (RFC 4151) minted from the site's
host and the day the thing was created, so an entry keeps its id for its whole life (a notification whose
count rises is the same entry, its ``updated`` moves); text summaries escaped as the HTML the ``html`` type
says they are, so ``&`` and ``<`` in a quote survive. The URLs answer conditional GETs (ETag and
Last-Modified, 304) through ``conditional_page`` in ``notifications.urls``.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.syndication.views import Feed
from django.http import Http404, HttpRequest
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed, SyndicationFeed
from django.utils.html import escape
from django.utils.translation import gettext as _

from accounts.models import User
from campaigns import policy
from campaigns.models import Campaign, Post
from notifications import catalogue, selectors
from notifications.models import Notification

FEED_LENGTH = 50
PUBLISHER = "Tintero"


def tag_id(created: date | datetime, specific: str) -> str:
    """A ``tag:`` URI (RFC 4151) that stays the thing's id for its whole life: ``tag:host,day:specific``."""
    host = urlsplit(settings.SITE_URL).hostname or "localhost"
    day = created.date() if isinstance(created, datetime) else created
    return f"tag:{host},{day.isoformat()}:{specific}"


class StableFeed(Feed):
    """An empty feed says it was last updated when its subject began, not now: its bytes, so its ETag and
    Last-Modified, stay the same until something is added, and a reader's conditional GET gets its 304."""

    feed_type = Atom1Feed

    def began(self, obj: Any) -> datetime:
        raise NotImplementedError

    def get_feed(self, obj: Any, request: HttpRequest) -> SyndicationFeed:
        generator = super().get_feed(obj, request)
        if not generator.items:
            began = self.began(obj)
            generator.latest_post_date = lambda: began  # type: ignore[method-assign]
        return generator


class PublicCampaignFeed(StableFeed):
    def began(self, obj: Campaign) -> datetime:
        return obj.created_at

    def get_object(self, request: HttpRequest, pk: int) -> Campaign:
        campaign = get_object_or_404(Campaign, pk=pk)
        if not policy.has_public_feed(campaign):
            raise Http404
        return campaign

    def title(self, obj: Campaign) -> str:
        return obj.title

    def link(self, obj: Campaign) -> str:
        return obj.get_absolute_url()

    def subtitle(self, obj: Campaign) -> str:
        return _("Los mensajes nuevos de «%(campaign)s»") % {"campaign": obj.title}

    def feed_guid(self, obj: Campaign) -> str:
        return tag_id(obj.created_at, f"campaign/{obj.pk}/posts")

    def author_name(self, obj: Campaign) -> str:
        return PUBLISHER

    def item_guid(self, item: Post) -> str:
        return tag_id(item.created_at, f"post/{item.pk}")

    def items(self, obj: Campaign) -> list[Post]:
        return selectors.public_feed_posts(obj, FEED_LENGTH)

    def item_title(self, item: Post) -> str:
        who = item.npc_name or (item.character.name if item.character else item.shown_author.public_name)
        return _("%(author)s en «%(scene)s»") % {"author": who, "scene": item.scene.title}

    def item_description(self, item: Post) -> str:
        return item.body_html

    def item_link(self, item: Post) -> str:
        return item.get_absolute_url()

    def item_pubdate(self, item: Post) -> datetime:
        return item.created_at

    def item_updateddate(self, item: Post) -> datetime:
        return item.edited_at or item.created_at

    def item_author_name(self, item: Post) -> str:
        return item.shown_author.public_name


class PrivateFeed(StableFeed):
    """Everything the user's inbox shows, for a feed reader; the URL's secret is the only key."""

    def began(self, obj: User) -> datetime:
        return obj.date_joined

    def get_object(self, request: HttpRequest, token: str) -> User:
        user = selectors.user_for_feed(token)
        if user is None:
            raise Http404
        return user

    def title(self, obj: User) -> str:
        return _("Avisos de %(name)s en Tintero") % {"name": obj.public_name}

    def link(self, obj: User) -> str:
        return reverse("notifications:inbox")

    def feed_guid(self, obj: User) -> str:
        return tag_id(obj.date_joined, f"user/{obj.pk}/notifications")

    def author_name(self, obj: User) -> str:
        return PUBLISHER

    def items(self, obj: User) -> list[Notification]:
        return list(selectors.inbox(obj)[:FEED_LENGTH])

    def item_title(self, item: Notification) -> str:
        return f"{item.campaign.title}: {catalogue.sentence(item)}"

    def item_description(self, item: Notification) -> str:
        # Atom1Feed writes summaries as type="html": plain text is escaped once here, once by the XML.
        return escape(catalogue.excerpt(item))

    def item_link(self, item: Notification) -> str:
        return catalogue.link(item)

    def item_guid(self, item: Notification) -> str:
        # Never the count: a notification that gathers more posts is the same entry, updated.
        return tag_id(item.created_at, f"notification/{item.pk}")

    def item_pubdate(self, item: Notification) -> datetime:
        return item.created_at

    def item_updateddate(self, item: Notification) -> datetime:
        return item.updated_at
