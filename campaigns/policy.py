"""The one permission policy of Tintero: pages, the API and sockets all ask here.

Two kinds of answers:
- predicates ``may_*`` on a :class:`Viewer` (a user as seen from one campaign, resolved once), for a
  single object;
- ``Q`` filters ``*_q`` for querysets, so lists never fetch what the viewer may not see.
The two must agree; tests check them as one matrix (role x visibility x surface).

A private campaign does not exist for an outsider: callers turn a failed ``may_view_campaign`` into 404.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import ParamSpec, Protocol

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.db.models import Exists, OuterRef, Q

from campaigns.events import Audience, EventType
from campaigns.models import (
    Campaign,
    CampaignStatus,
    Membership,
    Post,
    PostKind,
    Recipients,
    Role,
    Scene,
    SceneAccess,
    SceneStatus,
    Visibility,
    Voice,
)
from characters.models import Character, CharacterStatus

AnyUser = AbstractBaseUser | AnonymousUser


@dataclass(frozen=True)
class Viewer:
    """Who is looking at one campaign, and in what role (None: not a member)."""

    user_id: int | None
    campaign_id: int
    campaign_public: bool
    role: str | None
    # An ended campaign (read-only), and whether its GM showed the whispers to every member at the end.
    archived: bool = False
    whispers_revealed: bool = False

    @property
    def is_authenticated(self) -> bool:
        return self.user_id is not None

    @property
    def is_gm(self) -> bool:
        return self.role == Role.GM

    @property
    def is_player(self) -> bool:
        return self.role == Role.PLAYER

    @property
    def is_member(self) -> bool:
        return self.role is not None


def viewer_for(user: AnyUser | None, campaign: Campaign) -> Viewer:
    """Resolve the viewer's role in ``campaign`` with at most one query."""
    user_id = user.pk if user is not None and user.is_authenticated else None
    role = None
    if user_id is not None:
        role = (
            Membership.objects.filter(campaign_id=campaign.pk, user_id=user_id).values_list("role", flat=True).first()
        )
    return Viewer(
        user_id=user_id,
        campaign_id=campaign.pk,
        campaign_public=campaign.visibility == Visibility.PUBLIC,
        role=role,
        archived=campaign.archived_at is not None,
        whispers_revealed=campaign.whispers_revealed,
    )


# --- Campaigns ------------------------------------------------------------------------------------


def may_view_campaign(viewer: Viewer) -> bool:
    return viewer.campaign_public or viewer.is_member


def may_manage_campaign(viewer: Viewer) -> bool:
    """Edit the campaign, its scenes and aspects, decide join requests, invite and remove members."""
    return viewer.is_gm


def may_see_gm_notes(viewer: Viewer) -> bool:
    return viewer.is_gm


def may_request_to_join(viewer: Viewer) -> bool:
    return viewer.is_authenticated and not viewer.is_member and may_view_campaign(viewer)


def may_answer_invitation(viewer: Viewer, invitee_id: int) -> bool:
    """Accept or decline an invitation: only the invited user, while not a member. An invitation also lets
    them see the private campaign's front page (title, description, who invites), never its scenes."""
    return viewer.is_authenticated and viewer.user_id == invitee_id and not viewer.is_member


def may_leave(viewer: Viewer) -> bool:
    return viewer.is_member


def may_read_invitation(viewer: Viewer, *, addressed_to_viewer: bool, pending: bool) -> bool:
    """An invitation names its campaign (its current title): the GMs read it; the invited user while it is
    pending, and afterwards only while they may still see the campaign (not once removed from a private one)."""
    if viewer.is_gm:
        return True
    return addressed_to_viewer and (pending or may_view_campaign(viewer))


def may_change_membership(viewer: Viewer) -> bool:
    """Join through an invitation, leave, or withdraw one's join request: not once the campaign has ended
    (its table is part of the record)."""
    return viewer.is_authenticated


def visible_campaigns_q(user: AnyUser | None) -> Q:
    """Campaigns the user may see: every public one, and private ones they belong to."""
    public = Q(visibility=Visibility.PUBLIC)
    if user is None or not user.is_authenticated:
        return public
    return public | Q(Exists(Membership.objects.filter(campaign=OuterRef("pk"), user_id=user.pk)))


# --- Scenes ---------------------------------------------------------------------------------------


def _listed(user_ids: Iterable[int], user_id: int | None) -> bool:
    return user_id is not None and user_id in set(user_ids)


def may_read_scene(viewer: Viewer, scene: Scene, reader_ids: Iterable[int], writer_ids: Iterable[int]) -> bool:
    """``reader_ids``/``writer_ids``: the scene's lists (prefetched by the selector)."""
    if not may_view_campaign(viewer):
        return False
    if viewer.is_gm:
        return True
    if scene.access == SceneAccess.ALL_MEMBERS or scene.is_offtopic:
        return True
    return _listed(reader_ids, viewer.user_id) or _listed(writer_ids, viewer.user_id)


def may_write_scene(viewer: Viewer, scene: Scene, reader_ids: Iterable[int], writer_ids: Iterable[int]) -> bool:
    if not viewer.is_member:
        return False
    if viewer.is_gm:
        return True
    if scene.status != SceneStatus.OPEN:
        return False
    if scene.is_offtopic:
        return True  # readers too: the off-topic thread is where the whole table chats
    if not viewer.is_player:
        return False
    if scene.access == SceneAccess.ALL_MEMBERS:
        return True
    return _listed(writer_ids, viewer.user_id)


def scene_read_rule_q(role: str | None, user_id: int | None, scene_path: str = "") -> Q:
    """The scene-reading rule alone (campaign visibility checked elsewhere), for querysets.

    ``scene_path`` is "" when filtering scenes and "scene__" when filtering posts by their scene.
    """
    if role == Role.GM:
        return Q()
    open_to_all = Q(**{f"{scene_path}access": SceneAccess.ALL_MEMBERS}) | Q(**{f"{scene_path}is_offtopic": True})
    if user_id is None:
        return open_to_all
    scene_ref = OuterRef(f"{scene_path}pk" if scene_path == "" else "scene_id")
    listed = Q(Exists(Scene.readers.through.objects.filter(scene_id=scene_ref, user_id=user_id))) | Q(
        Exists(Scene.writers.through.objects.filter(scene_id=scene_ref, user_id=user_id))
    )
    return open_to_all | listed


def readable_scenes_q(viewer: Viewer) -> Q:
    """Scenes of the viewer's campaign that the viewer may read (empty when the campaign is hidden)."""
    if not may_view_campaign(viewer):
        return Q(pk__in=[])
    return Q(campaign_id=viewer.campaign_id) & scene_read_rule_q(viewer.role, viewer.user_id)


# --- Posts ----------------------------------------------------------------------------------------


def may_see_post(viewer: Viewer, post: Post, whisper_ids: Iterable[int]) -> bool:
    """Assumes the viewer may read the post's scene. GMs see everything, deleted posts included."""
    if viewer.is_gm:
        return True
    if post.deleted_at is not None:
        return False
    if post.recipients == Recipients.EVERYONE:
        return True
    if viewer.user_id is None:
        return False
    if post.author_id == viewer.user_id:
        return True
    if post.recipients == Recipients.WHISPER and viewer.whispers_revealed and viewer.is_member:
        return True  # an ended campaign whose GM showed its whispers to the whole table
    return post.recipients == Recipients.WHISPER and _listed(whisper_ids, viewer.user_id)


def visible_posts_q(viewer: Viewer) -> Q:
    """Posts the viewer may see inside scenes they may read (combine with the scene filter)."""
    if viewer.is_gm:
        return Q()
    alive = Q(deleted_at__isnull=True)
    if viewer.user_id is None:
        return alive & Q(recipients=Recipients.EVERYONE)
    whispered = Q(recipients=Recipients.WHISPER) & Q(
        Exists(Post.whisper_to.through.objects.filter(post_id=OuterRef("pk"), user_id=viewer.user_id))
    )
    if viewer.whispers_revealed and viewer.is_member:
        whispered = Q(recipients=Recipients.WHISPER)  # an ended campaign whose GM showed its whispers
    return alive & (Q(recipients=Recipients.EVERYONE) | Q(author_id=viewer.user_id) | whispered)


def _is_author(viewer: Viewer, post: Post) -> bool:
    """The post's author, while still a member: a removed player's old posts are no longer theirs to change."""
    return viewer.is_member and post.author_id == viewer.user_id


def may_edit_post(viewer: Viewer, post: Post) -> bool:
    if post.kind == PostKind.PROCEDURE:
        return False  # a procedure's record is written by its steps, never by hand
    return _is_author(viewer, post) and post.deleted_at is None


def may_delete_post(viewer: Viewer, post: Post) -> bool:
    if post.deleted_at is not None or post.kind == PostKind.PROCEDURE:
        return False
    return viewer.is_gm or _is_author(viewer, post)


def may_see_revisions(viewer: Viewer, post: Post) -> bool:
    """GMs see every post's history; an author sees their own. Others only see the 'edited' mark."""
    return viewer.is_gm or (viewer.user_id is not None and post.author_id == viewer.user_id)


def may_post_with_voice(viewer: Viewer, voice: str, character: Character | None) -> bool:
    """Players speak as their own approved characters or out of character; GMs as anyone."""
    if voice == Voice.OOC:
        return viewer.is_member
    if voice in (Voice.NARRATOR, Voice.NPC):
        return viewer.is_gm
    if voice == Voice.CHARACTER:
        if character is None or character.campaign_id != viewer.campaign_id:
            return False
        if viewer.is_gm:
            return True
        return (
            viewer.is_player
            and character.owner_id == viewer.user_id
            and not character.is_npc
            and character.status == CharacterStatus.APPROVED
        )
    return False


# --- Characters -----------------------------------------------------------------------------------


def may_see_character(viewer: Viewer, character: Character) -> bool:
    """The public parts. Drafts and characters awaiting approval are for their owner and the GMs."""
    if not may_view_campaign(viewer):
        return False
    if character.status in (CharacterStatus.DRAFT, CharacterStatus.PENDING):
        return viewer.is_gm or (viewer.user_id is not None and character.owner_id == viewer.user_id)
    return True


def characters_visible_q(viewer: Viewer) -> Q:
    """Characters of the viewer's campaign whose public parts the viewer may see."""
    if not may_view_campaign(viewer):
        return Q(pk__in=[])
    base = Q(campaign_id=viewer.campaign_id)
    if viewer.is_gm:
        return base
    shown = Q(status__in=[CharacterStatus.APPROVED, CharacterStatus.RETIRED])
    if viewer.user_id is not None:
        shown |= Q(owner_id=viewer.user_id)
    return base & shown


def may_see_private_parts(viewer: Viewer, character: Character, sheets_open: bool) -> bool:
    """Sheet, equipment, notes and ledger: the owner and the GMs, or every member when sheets are open."""
    if viewer.is_gm:
        return True
    if viewer.user_id is not None and character.owner_id == viewer.user_id and not character.is_npc:
        return True
    return sheets_open and viewer.is_member and may_see_character(viewer, character) and not character.is_npc


def may_create_character(viewer: Viewer, is_npc: bool) -> bool:
    return viewer.is_gm if is_npc else (viewer.is_player or viewer.is_gm)


def may_edit_character(viewer: Viewer, character: Character) -> bool:
    """Names, descriptions and (before approval) the sheet: the owner of a PC, or a GM."""
    if viewer.is_gm:
        return True
    return (
        viewer.is_player
        and not character.is_npc
        and character.owner_id == viewer.user_id
        and character.status != CharacterStatus.RETIRED
    )


def may_approve_character(viewer: Viewer) -> bool:
    return viewer.is_gm


def may_apply_operation(viewer: Viewer, character: Character | None, who: frozenset[str]) -> bool:
    """GMs apply every operation; an owner applies those the ruleset leaves to players, on their own
    approved character."""
    if viewer.is_gm:
        return True
    if "owner" not in who or character is None or viewer.user_id is None:
        return False
    return (
        viewer.is_player
        and not character.is_npc
        and character.owner_id == viewer.user_id
        and character.status == CharacterStatus.APPROVED
    )


def may_read_ledger(viewer: Viewer, character: Character | None, sheets_open: bool) -> bool:
    """A character's ledger goes with its private parts; the campaign-wide ledger is the GMs'."""
    if character is None:
        return viewer.is_gm
    return may_see_private_parts(viewer, character, sheets_open)


# --- Live events ----------------------------------------------------------------------------------


def readable_scene_ids(viewer: Viewer) -> frozenset[int]:
    """The ids of the scenes the viewer may read: one query, so sockets and the resync endpoint can test
    each event's scene with a set lookup."""
    if not may_view_campaign(viewer):
        return frozenset()
    return frozenset(Scene.objects.filter(readable_scenes_q(viewer)).values_list("pk", flat=True))


def event_visible_to(viewer: Viewer, audience: Audience, scene_ids: AbstractSet[int]) -> bool:
    """May this viewer receive a live event with this audience? The one check of sockets and resync.

    ``scene_ids``: :func:`readable_scene_ids` of the viewer, computed once per connection (or request),
    so this answers without a query. The audience was worked out by the service at publish time.
    """
    if not may_view_campaign(viewer):
        return False
    if viewer.is_gm:
        return True
    if audience.scene_id is not None and audience.scene_id not in scene_ids:
        return False
    if audience.user_ids:
        # A listed audience (a whisper, a GM-only post's author, a sheet's owner): exactly those users.
        return viewer.user_id is not None and viewer.user_id in audience.user_ids
    if audience.gms_only:
        return False
    return audience.scene_id is not None or audience.public


# --- Event: answers put to the table's veto -------------------------------------------------------


def may_follow_event_answers(viewer: Viewer, character: Character) -> bool:
    """The table votes on a player's creation and progress answers: the GMs and every player see them."""
    return may_view_campaign(viewer) and not character.is_npc and (viewer.is_gm or viewer.is_player)


def may_give_event_answer(viewer: Viewer, character: Character) -> bool:
    """Only the player of the character answers its questions (spec CV2)."""
    return (
        viewer.is_player
        and not character.is_npc
        and character.owner_id == viewer.user_id
        and character.status != CharacterStatus.RETIRED
    )


def may_vote_on_event_answer(viewer: Viewer, character: Character) -> bool:
    """The GMs and the other players may veto; never the author (spec CV10)."""
    return may_follow_event_answers(viewer, character) and character.owner_id != viewer.user_id


def may_close_event_answer_early(viewer: Viewer) -> bool:
    """Closing a veto window before its deadline is the GM's facilitation tool (it is not a veto)."""
    return viewer.is_gm


# --- Rolls ----------------------------------------------------------------------------------------


def may_roll(viewer: Viewer, *, gm_only: bool, character: Character | None) -> bool:
    """Rolling with a post needs the right to write it (checked by the post); a secret roll is the GMs';
    a roll for a character needs the right to speak as it."""
    if gm_only and not viewer.is_gm:
        return False
    if character is None:
        return viewer.is_member
    return may_post_with_voice(viewer, Voice.CHARACTER, character)


def may_see_roll(viewer: Viewer, *, gm_only: bool, revealed: bool) -> bool:
    """Assumes the viewer may see the roll's post (a roll follows its post's recipients)."""
    return viewer.is_gm or not gm_only or revealed


def may_see_roll_secret(viewer: Viewer, *, secret_revealed: bool) -> bool:
    """A secret difficulty (always in Presagios, optional in FATE): GMs, or everyone once revealed."""
    return viewer.is_gm or secret_revealed


def may_reveal_roll(viewer: Viewer) -> bool:
    return viewer.is_gm


def may_act_in_flow(viewer: Viewer, actors: frozenset[str | int]) -> bool:
    """``actors``: who the rules say takes this step now (``"gm"`` and/or user ids). A GM does not act
    for a player: a sealed split or a hope spend is the player's own. Only members act: a player removed
    while a procedure waited for them can no longer answer it (its state still names them)."""
    if not viewer.is_member:
        return False
    if viewer.is_gm and "gm" in actors:
        return True
    return viewer.user_id in actors


def may_see_flow_secret(viewer: Viewer) -> bool:
    """A flow's ``secret_state`` (a secret difficulty, sealed splits before the reveal) and the params of
    others' steps: GMs only."""
    return viewer.is_gm


class PlayedCharacter(Protocol):
    """A character as far as control goes: a stored row or the facts a procedure step reads."""

    @property
    def is_npc(self) -> bool: ...

    @property
    def owner_id(self) -> int | None: ...


def controls_character(viewer: Viewer, character: PlayedCharacter) -> bool:
    """Who speaks and decides for a character in play: its player for a PC (while a member), the GMs for an
    NPC."""
    if character.is_npc:
        return viewer.is_gm
    return viewer.is_member and character.owner_id == viewer.user_id


def may_run_gm_procedure(viewer: Viewer) -> bool:
    """Procedures and choices the rules give the GM alone: opening a challenge, fixing pain dice, setting a
    secret difficulty, valuing a reaction, settling."""
    return viewer.is_gm


def may_open_character_procedure(viewer: Viewer, character: PlayedCharacter) -> bool:
    """A procedure about one character (a conflict, an action): its controller, or a GM."""
    return viewer.is_gm or controls_character(viewer, character)


def may_open_roll_window(viewer: Viewer, *, roller_id: int, gm_only: bool) -> bool:
    """An invocation window on a roll: whoever rolled it, or a GM; a secret roll only a GM."""
    if gm_only:
        return viewer.is_gm
    return viewer.is_gm or (viewer.is_member and viewer.user_id == roller_id)


def may_roll_for_npc(viewer: Viewer) -> bool:
    """An NPC's dice (and an unowned character's) are the GMs': a GM who acts rolls them in their own name;
    anyone else's step that needs them (the other side of a conflict) rolls them for the GM who opened it."""
    return viewer.is_gm


def may_pay_with_threat(viewer: Viewer) -> bool:
    """Threat is the GMs' pool (Presagios): only a GM pays a rules cost, such as a quality's activation, with
    it; a player pays with their own main character's points."""
    return viewer.is_gm


def may_replay_step(viewer: Viewer, step_actor_id: int) -> bool:
    """A replayed procedure step (its idempotency key seen before) is answered only to whoever took it, while
    they still belong to the campaign: anyone else learns nothing from a guessed key."""
    return viewer.is_member and viewer.user_id == step_actor_id


def may_read_record_line(viewer: Viewer, *, gm_only: bool) -> bool:
    """A line of a procedure's record in the thread (the caller has checked the viewer reads the scene): a
    GM-only fact (a secret difficulty) only for GMs, until a later public line reveals it."""
    return viewer.is_gm or not gm_only


@dataclass(frozen=True)
class RollPowers:
    """What a viewer may choose when rolling, computed here once and handed to the composer's roll builders
    (which never read roles themselves): GM-only roll kinds (an opposition roll, pain dice), secret rolls and
    secret difficulties, dice for NPCs."""

    gm_kinds: bool
    secret_rolls: bool
    secret_difficulty: bool
    npc_dice: bool


def roll_powers(viewer: Viewer) -> RollPowers:
    gm = viewer.is_gm
    return RollPowers(gm_kinds=gm, secret_rolls=gm, secret_difficulty=gm, npc_dice=gm)


def may_see_hidden_aspect(viewer: Viewer) -> bool:
    """A hidden aspect (on the scene board or a sheet, not yet discovered): GMs only, until it is revealed."""
    return viewer.is_gm


# --- Characters and pools: the questions pages, forms and the API used to answer with ``is_gm`` -----------


def may_create_for_others(viewer: Viewer) -> bool:
    """Create a non-player character, or a player character for one of the campaign's players: GMs."""
    return viewer.is_gm


def may_see_campaign_pools(viewer: Viewer, *, public: bool) -> bool:
    """The campaign's pools (threat, chests, the GM's fate points): everyone who sees the campaign when the
    game shows them to the table, else the GMs only."""
    return may_view_campaign(viewer) and (public or viewer.is_gm)


def may_see_whole_ledger_entry(viewer: Viewer) -> bool:
    """Every part of a ledger entry (each sheet before and after, the campaign state): GMs."""
    return viewer.is_gm


def keeps_approval_on_sheet_edit(viewer: Viewer) -> bool:
    """A GM's edit of a pending sheet keeps it pending; anyone else's sends it back to draft for approval."""
    return viewer.is_gm


def may_apply_any_operation(viewer: Viewer) -> bool:
    """The GM-side operations of a game (awards, adjustments) offered on sheets and pool panels: GMs."""
    return viewer.is_gm


def may_attach_ledger_to_post(viewer: Viewer, post: Post) -> bool:
    """A ledger entry may name a post as its reason: one's own post, or any for a GM."""
    return viewer.is_gm or (viewer.user_id is not None and post.author_id == viewer.user_id)


def may_read_campaign_ledger(viewer: Viewer) -> bool:
    """The whole campaign's ledger (every character's changes and the pools'): GMs."""
    return viewer.is_gm


def may_see_roll_controls(viewer: Viewer) -> bool:
    """A roll's GM controls (reveal it, reveal its secret difficulty; the 'secret difficulty' badge)."""
    return viewer.is_gm


# --- Recruiting ---------------------------------------------------------------------------------------


class RecruitingFacts(Protocol):
    status: str
    seats: int | None


def accepts_players(campaign: RecruitingFacts, player_count: int) -> bool:
    """Whether a join request may ask for a player's seat: the campaign recruits and has a free seat."""
    if campaign.status != CampaignStatus.RECRUITING:
        return False
    return campaign.seats is None or player_count < campaign.seats


def join_roles(campaign: RecruitingFacts, player_count: int) -> list[str]:
    """The roles a join request may ask for now, player first when it is offered."""
    if campaign.status == CampaignStatus.FINISHED:
        return []
    return [Role.PLAYER, Role.READER] if accepts_players(campaign, player_count) else [Role.READER]


def viewer_with_role(user_id: int, campaign: Campaign, role: str | None) -> Viewer:
    """The viewer of a campaign whose role the caller has already read (with the page's own query)."""
    return Viewer(
        user_id=user_id,
        campaign_id=campaign.pk,
        campaign_public=campaign.visibility == Visibility.PUBLIC,
        role=role or None,
        archived=campaign.archived_at is not None,
        whispers_revealed=campaign.whispers_revealed,
    )


# --- Notifications (notifications/): who is told what, never more than they may read -------------------


@dataclass(frozen=True)
class Member:
    """A member as the notifications see them: who, and in what role."""

    user_id: int
    role: str


def _member_viewer(campaign: Campaign, member: Member) -> Viewer:
    return viewer_with_role(member.user_id, campaign, member.role)


def told_of_post(
    campaign: Campaign,
    post: Post,
    members: Iterable[Member],
    reader_ids: Iterable[int],
    writer_ids: Iterable[int],
    whisper_ids: Iterable[int],
) -> frozenset[int]:
    """The members told of a new post: exactly those who may read its scene and see it (never its author).
    A whisper reaches its targets, a GM-only post the GMs, a listed scene its listed members."""
    readers, writers, whispered = list(reader_ids), list(writer_ids), list(whisper_ids)
    return frozenset(
        m.user_id
        for m in members
        if m.user_id != post.author_id
        and may_read_scene(_member_viewer(campaign, m), post.scene, readers, writers)
        and may_see_post(_member_viewer(campaign, m), post, whispered)
    )


def told_of_waiting_step(
    campaign: Campaign,
    scene: Scene,
    members: Iterable[Member],
    reader_ids: Iterable[int],
    writer_ids: Iterable[int],
    *,
    gm: bool,
    user_ids: Iterable[int],
) -> frozenset[int]:
    """Who a procedure's awaited step calls: the GMs when it waits for a GM, the listed users while they are
    members who may read the scene (a removed player is no longer told)."""
    listed = set(user_ids)
    readers, writers = list(reader_ids), list(writer_ids)
    told = set()
    for m in members:
        viewer = _member_viewer(campaign, m)
        if not may_read_scene(viewer, scene, readers, writers):
            continue
        if (gm and viewer.is_gm) or m.user_id in listed:
            told.add(m.user_id)
    return frozenset(told)


def told_of_join_request(members: Iterable[Member], *, requester_id: int, pending: bool) -> frozenset[int]:
    """A pending request: the GMs decide it. A decided one: its requester hears the answer."""
    if pending:
        return frozenset(m.user_id for m in members if m.role == Role.GM)
    return frozenset({requester_id})


def told_of_invitation(members: Iterable[Member], *, invitee_id: int, pending: bool) -> frozenset[int]:
    """A pending invitation: the invited user (not yet a member) answers it. An answered one: the GMs."""
    if pending:
        return frozenset({invitee_id})
    return frozenset(m.user_id for m in members if m.role == Role.GM)


def told_of_character(members: Iterable[Member], character: Character, *, awaiting_approval: bool) -> frozenset[int]:
    """A character sent for approval: the GMs. Approved or sent back: its player (an NPC has none)."""
    if awaiting_approval:
        return frozenset(m.user_id for m in members if m.role == Role.GM)
    if character.is_npc or character.owner_id is None:
        return frozenset()
    return frozenset(m.user_id for m in members if m.user_id == character.owner_id)


def may_nudge(viewer: Viewer) -> bool:
    """Remind the players who owe a post in a scene, and set the campaign's automatic reminder: GMs."""
    return viewer.is_gm


def has_public_feed(campaign: Campaign) -> bool:
    """A campaign's Atom feed exists for public campaigns only, and shows what an anonymous reader sees."""
    return campaign.visibility == Visibility.PUBLIC


def still_told(viewer: Viewer, *, invited: bool = False) -> bool:
    """A notification stays in the inbox, the feeds and the mail only while its campaign is visible to its
    recipient (a private campaign they left no longer speaks to them), or while it invites them."""
    return may_view_campaign(viewer) or (invited and viewer.is_authenticated and not viewer.is_member)


def may_request_roll(viewer: Viewer) -> bool:
    """Ask a player for a roll in a scene (it shows pre-filled in their composer): GMs."""
    return viewer.is_gm


def may_be_asked_to_roll(
    viewer: Viewer, scene: Scene, character: Character, reader_ids: Iterable[int], writer_ids: Iterable[int]
) -> bool:
    """A roll is asked of a player's approved character, from its player, who must be able to write the
    scene to answer."""
    return (
        not character.is_npc
        and character.status == CharacterStatus.APPROVED
        and character.campaign_id == viewer.campaign_id
        and character.owner_id == viewer.user_id
        and may_write_scene(viewer, scene, reader_ids, writer_ids)
    )


def notification_still_readable_q(user_id: int) -> Q:
    """Notifications (``notifications.Notification``) whose scene and post the recipient may still read: a
    listed scene they were taken off, or a whispered or mentioning post since deleted, no longer shows."""
    gm_here = Exists(Membership.objects.filter(campaign_id=OuterRef("campaign_id"), user_id=user_id, role=Role.GM))
    listed = Exists(Scene.readers.through.objects.filter(scene_id=OuterRef("scene_id"), user_id=user_id)) | Exists(
        Scene.writers.through.objects.filter(scene_id=OuterRef("scene_id"), user_id=user_id)
    )
    scene_ok = Q(scene__isnull=True) | Q(scene__access=SceneAccess.ALL_MEMBERS) | Q(scene__is_offtopic=True) | Q(listed)
    quoted = Q(kind__in=["whisper", "mention"])
    post_ok = ~quoted | Q(post__isnull=False, post__deleted_at__isnull=True)
    return Q(gm_here) | (scene_ok & post_ok)


# --- The post composer, socket refreshes and scene lists: questions other modules answered with ``is_gm`` ---


@dataclass(frozen=True)
class ComposerPowers:
    """What the post composer offers a viewer beyond their own characters, computed here so the form never
    reads a role: the narrator's voice, an NPC's voice (with its name field) and secret free dice."""

    narrator_voice: bool
    npc_voice: bool
    secret_dice: bool


def composer_powers(viewer: Viewer) -> ComposerPowers:
    return ComposerPowers(
        narrator_voice=may_post_with_voice(viewer, Voice.NARRATOR, None),
        npc_voice=may_post_with_voice(viewer, Voice.NPC, None),
        secret_dice=roll_powers(viewer).secret_rolls,
    )


def event_changes_access(viewer: Viewer, event_type: str, data: Mapping[str, object]) -> bool:
    """Whether a change event may change what this viewer reads, so their socket re-reads its viewer and
    readable scenes: their own membership's change; the campaign's settings or a scene's access, unless the
    viewer is a GM (who reads the campaign and every scene whatever they say). A scene reorder (no scene)
    changes nobody's access."""
    if event_type == EventType.MEMBERSHIP_CHANGED:
        return data.get("user_id") == viewer.user_id
    if event_type == EventType.CAMPAIGN_CHANGED:
        return not viewer.is_gm
    if event_type == EventType.SCENE_CHANGED:
        return not viewer.is_gm and data.get("scene_id") is not None
    return False


def scene_lists_decide(viewer: Viewer, scene: Scene) -> bool:
    """Whether the viewer's place on a scene's reader and writer lists can change :func:`may_read_scene` or
    :func:`may_write_scene`: a signed-in viewer who is not a GM, in a scene with listed access. When not, the
    selector skips the query for the lists."""
    return viewer.user_id is not None and scene.access == SceneAccess.LISTED and not viewer.is_gm


# --- The record: search across campaigns (record app) ----------------------------------------------------


def searchable_posts_q(user_id: int | None, roles: Mapping[int, str], revealed: AbstractSet[int] = frozenset()) -> Q:
    """Posts of every campaign the user may read, each only as far as they may see it (scenes, whispers,
    GM-only posts): the rules of ``readable_scenes_q`` and ``visible_posts_q`` for a search across campaigns.

    ``roles``: the user's role in each campaign they belong to; ``revealed``: those of them that ended with
    their whispers shown to the table. The rules depend on these, not on which campaign, so the filter has one
    branch per group (as the unread list does), not one per campaign.
    """
    by_role: dict[tuple[str, bool], list[int]] = {}
    for campaign_id, role in roles.items():
        by_role.setdefault((role, campaign_id in revealed), []).append(campaign_id)
    member_q = Q(pk__in=[])
    for (role, whispers_revealed), campaign_ids in by_role.items():
        viewer = Viewer(user_id, campaign_ids[0], True, role, whispers_revealed=whispers_revealed)
        member_q |= (
            Q(scene__campaign_id__in=campaign_ids)
            & scene_read_rule_q(role, user_id, scene_path="scene__")
            & visible_posts_q(viewer)
        )
    outsider = Viewer(user_id, 0, True, None)
    public_q = (
        Q(scene__campaign__visibility=Visibility.PUBLIC)
        & ~Q(scene__campaign_id__in=list(roles))
        & scene_read_rule_q(None, user_id, scene_path="scene__")
        & visible_posts_q(outsider)
    )
    return member_q | public_q


def visible_rolls_q(gm_campaign_ids: Iterable[int]) -> Q:
    """Rolls (of posts the viewer already sees) that the viewer may see, across campaigns: all of them where
    the viewer is a GM, else those not secret or already revealed (``may_see_roll`` for querysets)."""
    return Q(campaign_id__in=list(gm_campaign_ids)) | Q(gm_only=False) | Q(reveal__isnull=False)


# --- The record: export and import of a whole campaign (record app) ------------------------------------


def may_export_campaign(viewer: Viewer) -> bool:
    """Download a campaign (archive or book): its GMs, and for a public campaign anyone who may read it. Each
    part of the download still holds only what the exporter may read."""
    return viewer.is_gm or (viewer.campaign_public and may_view_campaign(viewer))


def may_see_step_params(viewer: Viewer, step_actor_id: int) -> bool:
    """A procedure step's parameters (a sealed split): GMs, and whoever took the step."""
    return may_see_flow_secret(viewer) or (viewer.user_id is not None and viewer.user_id == step_actor_id)


def may_see_scene_lists(viewer: Viewer) -> bool:
    """Who is listed to read and write a scene: the GMs who set it."""
    return viewer.is_gm


# --- The record: an archived (ended) campaign is read-only ----------------------------------------------------


def may_archive_campaign(viewer: Viewer) -> bool:
    """End the campaign (it becomes read-only, still readable and searchable): its GMs."""
    return viewer.is_gm and not viewer.archived


def may_reopen_campaign(viewer: Viewer) -> bool:
    """Undo the end of a campaign: its GMs (the one write an archived campaign accepts)."""
    return viewer.is_gm and viewer.archived


def may_claim_imported_writing(viewer: Viewer) -> bool:
    """Confirm that the imported writing under one's own handle is one's own (record.services): any signed-in
    account that may read the campaign; it claims only what bears its own name. Not a game write, so an
    ended campaign accepts it too."""
    return viewer.is_authenticated and may_view_campaign(viewer)


_Answer = ParamSpec("_Answer")


def _refused_when_archived(question: Callable[_Answer, bool]) -> Callable[_Answer, bool]:
    @functools.wraps(question)
    def asked(*args: _Answer.args, **kwargs: _Answer.kwargs) -> bool:
        viewer = args[0] if args else kwargs["viewer"]
        return not getattr(viewer, "archived", False) and question(*args, **kwargs)

    return asked


# Every question whose yes leads to a write: an archived campaign answers no to all of them, on pages, in the
# API and in procedures alike (sockets only read). Rebound here, at the end, so the questions above stay as
# they are; callers ask ``policy.<question>`` at call time and so get these. tests/record/test_archive.py
# checks the list against every write service.
WRITE_QUESTIONS = (
    "may_manage_campaign",
    "may_request_to_join",
    "may_write_scene",
    "may_edit_post",
    "may_delete_post",
    "may_post_with_voice",
    "may_create_character",
    "may_edit_character",
    "may_approve_character",
    "may_apply_operation",
    "may_give_event_answer",
    "may_vote_on_event_answer",
    "may_close_event_answer_early",
    "may_roll",
    "may_reveal_roll",
    "may_act_in_flow",
    "may_run_gm_procedure",
    "may_open_character_procedure",
    "may_open_roll_window",
    "may_roll_for_npc",
    "may_pay_with_threat",
    "may_replay_step",
    "may_create_for_others",
    "may_apply_any_operation",
    "may_attach_ledger_to_post",
    "may_nudge",
    "may_request_roll",
    "may_leave",
    "may_change_membership",
)
may_manage_campaign = _refused_when_archived(may_manage_campaign)
may_request_to_join = _refused_when_archived(may_request_to_join)
may_write_scene = _refused_when_archived(may_write_scene)
may_edit_post = _refused_when_archived(may_edit_post)
may_delete_post = _refused_when_archived(may_delete_post)
may_post_with_voice = _refused_when_archived(may_post_with_voice)
may_create_character = _refused_when_archived(may_create_character)
may_edit_character = _refused_when_archived(may_edit_character)
may_approve_character = _refused_when_archived(may_approve_character)
may_apply_operation = _refused_when_archived(may_apply_operation)
may_give_event_answer = _refused_when_archived(may_give_event_answer)
may_vote_on_event_answer = _refused_when_archived(may_vote_on_event_answer)
may_close_event_answer_early = _refused_when_archived(may_close_event_answer_early)
may_roll = _refused_when_archived(may_roll)
may_reveal_roll = _refused_when_archived(may_reveal_roll)
may_act_in_flow = _refused_when_archived(may_act_in_flow)
may_run_gm_procedure = _refused_when_archived(may_run_gm_procedure)
may_open_character_procedure = _refused_when_archived(may_open_character_procedure)
may_open_roll_window = _refused_when_archived(may_open_roll_window)
may_roll_for_npc = _refused_when_archived(may_roll_for_npc)
may_pay_with_threat = _refused_when_archived(may_pay_with_threat)
may_replay_step = _refused_when_archived(may_replay_step)
may_create_for_others = _refused_when_archived(may_create_for_others)
may_apply_any_operation = _refused_when_archived(may_apply_any_operation)
may_attach_ledger_to_post = _refused_when_archived(may_attach_ledger_to_post)
may_nudge = _refused_when_archived(may_nudge)
may_request_roll = _refused_when_archived(may_request_roll)
may_leave = _refused_when_archived(may_leave)
may_change_membership = _refused_when_archived(may_change_membership)
