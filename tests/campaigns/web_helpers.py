"""Factories for the browser-surface tests (plain functions: explicit, no fixture magic)."""

from __future__ import annotations

from typing import Any

from django.test import Client

from accounts.models import User
from campaigns import services
from campaigns.markdown import RENDERER_VERSION
from campaigns.models import Campaign, Membership, Post, Role, Scene, Visibility
from characters.models import Character, CharacterStatus

PASSWORD = "una-clave-larga-y-segura-42"


def make_user(username: str, display_name: str = "", *, password: str | None = None) -> User:
    """A user; without ``password`` none is hashed (tests log in with force_login), which keeps them fast."""
    user = User(username=username, display_name=display_name or username.title())
    if password is None:
        user.set_unusable_password()
    else:
        user.set_password(password)
    user.save()
    return user


def client_for(user: User | None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def make_campaign(gm: User, title: str = "La Sombra", **fields: Any) -> Campaign:
    fields.setdefault("ruleset", "generic")
    fields.setdefault("visibility", Visibility.PUBLIC)
    return services.create_campaign(creator=gm, title=title, **fields)


def add_member(campaign: Campaign, user: User, role: str = Role.PLAYER) -> Membership:
    return Membership.objects.create(campaign=campaign, user=user, role=role)


def make_scene(campaign: Campaign, gm: User, title: str = "Capítulo 1", **kwargs: Any) -> Scene:
    return services.create_scene(actor=gm, campaign=campaign, title=title, **kwargs)


def make_character(campaign: Campaign, owner: User | None, name: str = "Alba", **fields: Any) -> Character:
    fields.setdefault("status", CharacterStatus.APPROVED)
    return Character.objects.create(campaign=campaign, owner=owner, name=name, is_npc=owner is None, **fields)


def bulk_posts(scene: Scene, author: User, n: int) -> None:
    """Many plain posts at once (bulk_create: no services, for query-count tests), numbered in the thread
    as the services number them."""
    start = Scene.objects.values_list("last_post_position", flat=True).get(pk=scene.pk)
    Post.objects.bulk_create(
        Post(
            scene=scene,
            author=author,
            voice="ooc",
            body_source=f"Mensaje {i}",
            body_html=f"<p>Mensaje {i}</p>",
            renderer_version=RENDERER_VERSION,
            position=start + i + 1,
        )
        for i in range(n)
    )
    Scene.objects.filter(pk=scene.pk).update(last_post_position=start + n)
    scene.last_post_position = start + n


class Table:
    """A ready campaign: a GM, a player with an approved character, a reader, an outsider, one scene."""

    def __init__(self, visibility: str = Visibility.PUBLIC) -> None:
        self.gm = make_user("master", "La Máster")
        self.player = make_user("jugadora", "Jugadora Uno")
        self.reader = make_user("lector", "El Lector")
        self.outsider = make_user("fuera", "Forastero")
        self.campaign = make_campaign(self.gm, visibility=visibility)
        add_member(self.campaign, self.player, Role.PLAYER)
        add_member(self.campaign, self.reader, Role.READER)
        self.character = make_character(self.campaign, self.player, "Alba")
        self.scene = make_scene(self.campaign, self.gm)
        self.offtopic = self.campaign.scenes.get(is_offtopic=True)

    def post(self, author: User | None = None, body: str = "Hola", **kwargs: Any) -> Post:
        author = author or self.player
        if author == self.player and "voice" not in kwargs:
            kwargs.update(voice="character", character=self.character)
        return services.create_post(author=author, scene=kwargs.pop("scene", self.scene), body=body, **kwargs)
