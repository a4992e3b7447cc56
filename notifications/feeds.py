"""Atom feeds: a public campaign's posts (what an anonymous reader sees), and a user's private feed of
their inbox behind a secret, revocable URL."""

from __future__ import annotations

from datetime import datetime

from django.contrib.syndication.views import Feed
from django.http import Http404, HttpRequest
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed
from django.utils.translation import gettext as _

from accounts.models import User
from campaigns import policy
from campaigns.models import Campaign, Post
from notifications import catalogue, selectors
from notifications.models import Notification

FEED_LENGTH = 50


class PublicCampaignFeed(Feed):
    feed_type = Atom1Feed

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


class PrivateFeed(Feed):
    """Everything the user's inbox shows, for a feed reader; the URL's secret is the only key."""

    feed_type = Atom1Feed

    def get_object(self, request: HttpRequest, token: str) -> User:
        user = selectors.user_for_feed(token)
        if user is None:
            raise Http404
        return user

    def title(self, obj: User) -> str:
        return _("Avisos de %(name)s en Tintero") % {"name": obj.public_name}

    def link(self, obj: User) -> str:
        return reverse("notifications:inbox")

    def items(self, obj: User) -> list[Notification]:
        return list(selectors.inbox(obj)[:FEED_LENGTH])

    def item_title(self, item: Notification) -> str:
        return f"{item.campaign.title}: {catalogue.sentence(item)}"

    def item_description(self, item: Notification) -> str:
        return catalogue.excerpt(item)

    def item_link(self, item: Notification) -> str:
        return catalogue.link(item)

    def item_guid(self, item: Notification) -> str:
        return f"tintero-notification-{item.pk}-{item.count}"

    def item_pubdate(self, item: Notification) -> datetime:
        return item.created_at

    def item_updateddate(self, item: Notification) -> datetime:
        return item.updated_at
