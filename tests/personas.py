"""Test personas: one table with every role, on a public or a private campaign.

A ``Table`` has a GM, two players, a reader and an outsider (a user with no membership), a scene open to
all members, a scene listed for the first player only, an off-topic scene, and one post of each kind of
recipients: to everyone, to the GMs only, and a whisper from the GM to the first player.
"""

from __future__ import annotations

from dataclasses import dataclass

from accounts.models import User
from campaigns import services
from campaigns.models import Campaign, Post, Recipients, Role, Scene, SceneAccess, Visibility, Voice
from characters.models import Character, CharacterStatus

PASSWORD = "correct-horse-battery"


def make_user(username: str, display_name: str = "") -> User:
    user = User.objects.create_user(username=username, password=PASSWORD, display_name=display_name or username)
    return user


@dataclass
class Table:
    campaign: Campaign
    gm: User
    player: User
    player2: User
    reader: User
    outsider: User
    scene: Scene
    listed_scene: Scene
    offtopic: Scene
    character: Character
    character2: Character
    post_all: Post
    post_gms: Post
    whisper: Post

    def user(self, role: str) -> User | None:
        """The persona for a role name used in matrices (``anonymous`` is None)."""
        return {
            "gm": self.gm,
            "player": self.player,
            "player2": self.player2,
            "reader": self.reader,
            "outsider": self.outsider,
            "anonymous": None,
        }[role]


def add_member(campaign: Campaign, gm: User, user: User, role: str) -> None:
    invitation = services.invite(actor=gm, campaign=campaign, user=user, role=role)
    services.respond_to_invitation(user=user, invitation=invitation, accept=True)


def build_table(visibility: str = Visibility.PUBLIC, prefix: str = "") -> Table:
    gm = make_user(f"{prefix}gm", "Directora")
    player = make_user(f"{prefix}player", "Ana")
    player2 = make_user(f"{prefix}player2", "Bruno")
    reader = make_user(f"{prefix}reader", "Lector")
    outsider = make_user(f"{prefix}outsider", "Ajena")
    campaign = services.create_campaign(
        creator=gm, title="La casa de la colina", ruleset="presagios", visibility=visibility, gm_notes="SECRETO-GM"
    )
    add_member(campaign, gm, player, Role.PLAYER)
    add_member(campaign, gm, player2, Role.PLAYER)
    add_member(campaign, gm, reader, Role.READER)
    character = Character.objects.create(campaign=campaign, owner=player, name="Lucía", status=CharacterStatus.APPROVED)
    character2 = Character.objects.create(
        campaign=campaign, owner=player2, name="Hugo", status=CharacterStatus.APPROVED
    )
    scene = services.create_scene(actor=gm, campaign=campaign, title="Llegada")
    listed = services.create_scene(
        actor=gm,
        campaign=campaign,
        title="Aparte",
        access=SceneAccess.LISTED,
        reader_ids=[player.pk],
        writer_ids=[player.pk],
    )
    offtopic = campaign.scenes.get(is_offtopic=True)
    post_all = services.create_post(
        author=player, scene=scene, body="TEXTO-PARA-TODOS", voice=Voice.CHARACTER, character=character
    )
    post_gms = services.create_post(
        author=player2, scene=scene, body="TEXTO-SOLO-MASTERS", voice=Voice.OOC, recipients=Recipients.GMS
    )
    whisper = services.create_post(
        author=gm,
        scene=scene,
        body="TEXTO-SUSURRO",
        voice=Voice.NARRATOR,
        recipients=Recipients.WHISPER,
        whisper_to=[player.pk],
    )
    return Table(
        campaign, gm, player, player2, reader, outsider, scene, listed, offtopic,
        character, character2, post_all, post_gms, whisper,
    )  # fmt: skip
