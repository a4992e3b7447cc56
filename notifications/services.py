"""Writes of the notifications app: notifications from published events, mail deliveries, choices.

Notifications are written from the campaign's event log (``notifications.subscriptions``) by a background
task after the change commits, so the post path pays only for enqueueing. Each handler asks
``campaigns.policy`` who is told; a replayed event changes nothing (unique ``(user, key)``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.write_limits import NUDGE_LIMIT
from campaigns import policy
from campaigns.events import Audience, Event, EventType, publish, tell_users
from campaigns.mentions import mentioned_user_ids
from campaigns.models import (
    Campaign,
    CampaignEventLog,
    Invitation,
    JoinRequest,
    Membership,
    Post,
    PostKind,
    Recipients,
    RequestStatus,
    Scene,
)
from campaigns.policy import Member
from characters.models import Character, CharacterStatus
from notifications.mail import stuck_q
from notifications.models import (
    CampaignPreference,
    CampaignReminder,
    Channel,
    Delivery,
    DeliveryStatus,
    EmailMode,
    FeedToken,
    Kind,
    Notification,
    PushSubscription,
    QuietHours,
    RollRequest,
    RollRequestStatus,
    new_feed_token,
)
from notifications.selectors import caught_up_q, unread_q
from rolls.models import Flow, FlowStatus, FlowStep, Roll
from rulesets.kit.procedures import waiting_entries


def members_of(campaign_id: int) -> list[Member]:
    return [
        Member(user_id, role)
        for user_id, role in Membership.objects.filter(campaign_id=campaign_id).values_list("user_id", "role")
    ]


def _scene_lists(scene: Scene) -> tuple[list[int], list[int]]:
    return (
        list(Scene.readers.through.objects.filter(scene_id=scene.pk).values_list("user_id", flat=True)),
        list(Scene.writers.through.objects.filter(scene_id=scene.pk).values_list("user_id", flat=True)),
    )


def _excerpt(text: str) -> str:
    from notifications.catalogue import EXCERPT_LENGTH

    flat = " ".join(text.split())
    return flat if len(flat) <= EXCERPT_LENGTH else flat[: EXCERPT_LENGTH - 1] + "…"


# --- Writing notifications ------------------------------------------------------------------------------


def _tell(
    user_ids: Iterable[int],
    *,
    campaign: Campaign,
    kind: str,
    key: str,
    params: dict[str, Any],
    scene: Scene | None = None,
    post: Post | None = None,
) -> list[Notification]:
    """Write one notification per user (skipping those who already have ``key``) and schedule their mail.
    Returns the notifications written now."""
    wanted = set(user_ids)
    if not wanted:
        return []
    existing = set(Notification.objects.filter(key=key, user_id__in=wanted).values_list("user_id", flat=True))
    fresh = sorted(wanted - existing)
    Notification.objects.bulk_create(
        [
            Notification(
                user_id=uid, campaign=campaign, scene=scene, post=post, kind=kind, key=key, params=params, count=1
            )
            for uid in fresh
        ],
        ignore_conflicts=True,  # a concurrent replay of the same event: the first one wins
    )
    written = list(Notification.objects.filter(key=key, user_id__in=fresh))
    schedule_immediate_mail(campaign, written)
    schedule_push(campaign, written)
    tell_users({n.user_id for n in written}, "notices.changed")
    return written


def _post_params(post: Post, scene: Scene, campaign: Campaign) -> dict[str, Any]:
    author = post.author.public_name if post.kind == PostKind.STORY else ""
    if post.npc_name:
        author = post.npc_name
    elif post.character_id is not None and post.character is not None:
        author = post.character.name
    return {"campaign": campaign.title, "scene": scene.title, "author": author}


def notify_post(post_id: int) -> int:
    """A new post: whispers and mentions to their people, a batched line per scene to the other readers."""
    post = Post.objects.select_related("scene__campaign", "author", "character").filter(pk=post_id).first()
    if post is None or post.deleted_at is not None:
        return 0
    scene = post.scene
    campaign = scene.campaign
    members = members_of(campaign.pk)
    readers, writers = _scene_lists(scene)
    whisper_ids = list(post.whisper_to.values_list("id", flat=True))
    told = policy.told_of_post(campaign, post, members, readers, writers, whisper_ids)
    params = _post_params(post, scene, campaign)
    personal = {**params, "excerpt": _excerpt(post.body_source)}
    written = 0
    whispered = told & set(whisper_ids) if post.recipients == Recipients.WHISPER else frozenset()
    written += len(
        _tell(
            whispered,
            campaign=campaign,
            kind=Kind.WHISPER,
            key=f"whisper:{post.pk}",
            params=personal,
            scene=scene,
            post=post,
        )
    )
    mentioned = (told - whispered) & mentioned_user_ids(post.body_source, campaign.pk)
    written += len(
        _tell(
            mentioned,
            campaign=campaign,
            kind=Kind.MENTION,
            key=f"mention:{post.pk}",
            params=personal,
            scene=scene,
            post=post,
        )
    )
    written += _batch_new_post(told - whispered - mentioned, campaign, scene, post, params)
    return written


def _batch_new_post(
    user_ids: Iterable[int], campaign: Campaign, scene: Scene, post: Post, params: dict[str, Any]
) -> int:
    """One unread line per user and scene: a later post raises its count instead of adding a line."""
    wanted = set(user_ids)
    if not wanted:
        return 0
    batched = Notification.objects.filter(user_id__in=wanted, kind=Kind.NEW_POSTS, scene=scene, read_at__isnull=True)
    # A batch its user has read in the scene since is over: the new post starts a new one.
    batched.filter(caught_up_q()).update(read_at=timezone.now())
    already = set(batched.values_list("user_id", flat=True))
    if already:
        # Only posts newer than the batch's last one count: a replayed event changes nothing.
        batched.filter(user_id__in=already, post_id__lt=post.pk).update(
            count=F("count") + 1, updated_at=timezone.now(), post=post
        )
        tell_users(already, "notices.changed")  # a batch's count rose
    _tell(
        wanted - already,
        campaign=campaign,
        kind=Kind.NEW_POSTS,
        key=f"posts:{scene.pk}:{post.pk}",
        params=params,
        scene=scene,
        post=post,
    )
    return len(wanted)


def notify_flow(flow_id: int, campaign_id: int | None = None) -> int:
    """A procedure waits for someone: each awaited step tells its people once (until they act in it)."""
    flows = Flow.objects.select_related("scene__campaign").filter(pk=flow_id)
    if campaign_id is not None:
        flows = flows.filter(campaign_id=campaign_id)
    flow = flows.first()
    if flow is None or flow.status != FlowStatus.OPEN:
        return 0
    scene = flow.scene
    campaign = scene.campaign
    members = members_of(campaign.pk)
    readers, writers = _scene_lists(scene)
    written = 0
    last = FlowStep.objects.filter(flow=flow).order_by("-id").values_list("id", "actor_id").first()
    last_step, actor_id = last if last is not None else (0, flow.opened_by_id)
    for entry in waiting_entries(flow.waiting_for):
        told = policy.told_of_waiting_step(
            campaign, scene, members, readers, writers, gm=entry.gm, user_ids=entry.users
        ) - {actor_id}  # whoever just acted is on the page: the wait is news to the others
        params = {
            "campaign": campaign.title,
            "scene": scene.title,
            "flow_id": flow.pk,
            "step": entry.step,
            "label_es": entry.label.es,
            "label_en": entry.label.en,
        }
        # Keyed by the last step taken: the same wait after the same step is told once.
        key = f"flow:{flow.pk}:{entry.step}:{last_step}"
        written += len(_tell(told, campaign=campaign, kind=Kind.PROCEDURE_WAITING, key=key, params=params, scene=scene))
    return written


def notify_veto_vote(answer_id: int, campaign_id: int) -> int:
    """Event: an answer opened to the table's veto tells those who may vote on it (once per answer)."""
    from characters.models import EventAnswer

    answer = (
        EventAnswer.objects.select_related("character__campaign")
        .filter(pk=answer_id, character__campaign_id=campaign_id)
        .first()
    )
    if answer is None or answer.status != EventAnswer.Status.PENDING:
        return 0
    character = answer.character
    campaign = character.campaign
    members = members_of(campaign.pk)
    eligible = {int(v) for v in answer.eligible}
    told = {
        m.user_id
        for m in members
        if m.user_id in eligible
        and policy.may_vote_on_event_answer(
            policy.Viewer(m.user_id, campaign.pk, campaign.visibility == "public", m.role), character
        )
    }
    params = {
        "campaign": campaign.title,
        "character": character.name,
        "character_id": character.pk,
        "question": answer.get_question_display(),
    }
    key = f"veto:{answer.pk}"
    return len(_tell(told, campaign=campaign, kind=Kind.VETO_VOTE, key=key, params=params))


def notify_join_request(join_request_id: int, status: str, event_id: int) -> int:
    join_request = JoinRequest.objects.select_related("campaign", "user").filter(pk=join_request_id).first()
    if join_request is None or status == RequestStatus.WITHDRAWN:
        return 0
    campaign = join_request.campaign
    pending = status == RequestStatus.PENDING
    told = policy.told_of_join_request(members_of(campaign.pk), requester_id=join_request.user_id, pending=pending)
    params: dict[str, Any] = {"campaign": campaign.title, "user": join_request.user.public_name}
    if pending:
        kind = Kind.JOIN_REQUESTED
    else:
        kind = Kind.JOIN_ANSWERED
        params["accepted"] = status == RequestStatus.ACCEPTED
    return len(_tell(told, campaign=campaign, kind=kind, key=f"join:{join_request.pk}:{status}", params=params))


def notify_invitation(invitation_id: int, status: str) -> int:
    """A new invitation: its user is told. An answer: the GMs are told, and the invited user's notice of it
    is read (it asks for nothing any more). A withdrawn one: that notice is read, nobody else is told."""
    invitation = Invitation.objects.select_related("campaign", "user", "invited_by").filter(pk=invitation_id).first()
    if invitation is None:
        return 0
    campaign = invitation.campaign
    pending = status == RequestStatus.PENDING
    if not pending:
        Notification.objects.filter(
            user_id=invitation.user_id, key=f"invitation:{invitation.pk}", read_at__isnull=True
        ).update(read_at=timezone.now())
        tell_users([invitation.user_id], "notices.changed")  # their dashboard and home drop it
    if status == RequestStatus.WITHDRAWN:
        return 0
    told = policy.told_of_invitation(members_of(campaign.pk), invitee_id=invitation.user_id, pending=pending)
    params: dict[str, Any] = {
        "campaign": campaign.title,
        "gm": invitation.invited_by.public_name,
        "user": invitation.user.public_name,
        "role": invitation.role,
    }
    if pending:
        key = f"invitation:{invitation.pk}"
        return len(_tell(told, campaign=campaign, kind=Kind.INVITATION, key=key, params=params))
    params["accepted"] = status == RequestStatus.ACCEPTED
    key = f"invitation:{invitation.pk}:{status}"
    return len(_tell(told, campaign=campaign, kind=Kind.INVITATION_ANSWERED, key=key, params=params))


def notify_character(character_id: int, status: str, event_id: int) -> int:
    character = Character.objects.select_related("campaign", "owner").filter(pk=character_id).first()
    if character is None:
        return 0
    campaign = character.campaign
    if status == CharacterStatus.PENDING:
        kind, awaiting = Kind.CHARACTER_SUBMITTED, True
    elif status == CharacterStatus.APPROVED:
        kind, awaiting = Kind.CHARACTER_APPROVED, False
    elif status == CharacterStatus.DRAFT and character.submitted_at is not None:
        # Back to draft after it was sent: a GM returned it (a new character is a draft never submitted).
        kind, awaiting = Kind.CHARACTER_RETURNED, False
    else:
        return 0
    told = policy.told_of_character(members_of(campaign.pk), character, awaiting_approval=awaiting)
    params = {
        "campaign": campaign.title,
        "character": character.name,
        "character_id": character.pk,
        "owner": character.owner.public_name if character.owner else "",
    }
    return len(
        _tell(told, campaign=campaign, kind=kind, key=f"character:{character.pk}:{status}:{event_id}", params=params)
    )


def notify_event(log_id: int) -> int:
    """Write the notifications one logged event calls for (the background task's work)."""
    log = CampaignEventLog.objects.filter(pk=log_id).first()
    if log is None:
        return 0
    data = log.data
    handlers: dict[str, Callable[[], int]] = {
        # A post's rolls are announced by its post.created (one event per post): its rolls may answer requests.
        EventType.POST_CREATED: lambda: (
            notify_post(int(data["post_id"])) + answer_post_roll_requests(int(data["post_id"]))
        ),
        EventType.FLOW_CHANGED: lambda: (
            notify_veto_vote(int(data["flow_id"]), log.campaign_id)
            if data.get("flow") == "event_answer"  # Event's answers open to the table's veto (not a Flow row)
            else notify_flow(int(data["flow_id"]), log.campaign_id)
        ),
        EventType.JOIN_REQUEST_CHANGED: lambda: notify_join_request(
            int(data["join_request_id"]), str(data["status"]), log.pk
        ),
        EventType.CHARACTER_CHANGED: lambda: notify_character(int(data["character_id"]), str(data["status"]), log.pk),
        EventType.INVITATION_CHANGED: lambda: notify_invitation(int(data["invitation_id"]), str(data["status"])),
        EventType.ROLL_MADE: lambda: answer_roll_requests(int(data["roll_id"])),
    }
    handler = handlers.get(log.type)
    if handler is None or not notifies(log.type, data):
        return 0
    # One transaction: the event's notifications exist together (and one commit instead of one per write).
    with transaction.atomic():
        return handler()


NOTIFIED_EVENT_TYPES = frozenset(
    {
        EventType.POST_CREATED,
        EventType.FLOW_CHANGED,
        EventType.JOIN_REQUEST_CHANGED,
        EventType.CHARACTER_CHANGED,
        EventType.INVITATION_CHANGED,
        EventType.ROLL_MADE,
    }
)


def notifies(event_type: str, data: Mapping[str, Any]) -> bool:
    """Whether a logged event calls for notifications: one of NOTIFIED_EVENT_TYPES, and for a character only
    a change of status (not a new draft or an edit; events logged before ``action`` existed were all
    changes of status). Others schedule no task at all."""
    if event_type not in NOTIFIED_EVENT_TYPES:
        return False
    return event_type != EventType.CHARACTER_CHANGED or data.get("action", "status") == "status"


# --- Reading marks --------------------------------------------------------------------------------------


def mark_read(*, user: User, ids: Sequence[int] | None = None) -> int:
    """Mark the user's notifications read (``ids`` None: all of them). Returns how many changed."""
    unread = Notification.objects.filter(user=user, read_at__isnull=True)
    if ids is not None:
        unread = unread.filter(pk__in=list(ids))
    changed = unread.update(read_at=timezone.now())
    if changed:
        tell_users([user.pk], "notices.changed")  # the user's other tabs
    return changed


# --- Choices --------------------------------------------------------------------------------------------


def email_mode(user_id: int, campaign_id: int) -> str:
    mode = (
        CampaignPreference.objects.filter(user_id=user_id, campaign_id=campaign_id)
        .values_list("email", flat=True)
        .first()
    )
    return mode or settings.NOTIFICATION_EMAIL_DEFAULT


def set_email_mode(*, user: User, campaign: Campaign, mode: str) -> CampaignPreference:
    if mode not in EmailMode.values:
        raise ValidationError({"email": _("Elige al momento, resumen diario o nunca.")})
    if not policy.may_view_campaign(policy.viewer_for(user, campaign)):
        raise PermissionDenied(_("No puedes ver esta partida."))
    preference, _created = CampaignPreference.objects.update_or_create(
        user=user, campaign=campaign, defaults={"email": mode}
    )
    return preference


@transaction.atomic
def rotate_feed_token(*, user: User) -> FeedToken:
    """A new secret for the private feed: the old URL stops working at once."""
    token, created = FeedToken.objects.select_for_update().get_or_create(user=user)
    if not created:
        token.token = new_feed_token()
        token.save()
    return token


def feed_token(user: User) -> FeedToken:
    token, _created = FeedToken.objects.get_or_create(user=user)
    return token


# --- Mail -----------------------------------------------------------------------------------------------


def schedule_immediate_mail(campaign: Campaign, written: Sequence[Notification]) -> list[Delivery]:
    """One delivery per notification whose user wants mail at once about this campaign, sent in the
    background after commit."""
    if not written:
        return []
    user_ids = {n.user_id for n in written}
    modes = dict(
        CampaignPreference.objects.filter(campaign=campaign, user_id__in=user_ids).values_list("user_id", "email")
    )
    # Mail goes only to an address its owner confirmed (accounts.services.confirm_email).
    with_address = set(
        User.objects.filter(pk__in=user_ids, email_verified_at__isnull=False)
        .exclude(email="")
        .values_list("pk", flat=True)
    )
    held = quiet_until(user_ids)
    deliveries = []
    for n in written:
        if modes.get(n.user_id, settings.NOTIFICATION_EMAIL_DEFAULT) != EmailMode.IMMEDIATE:
            continue
        if n.user_id not in with_address:
            continue
        delivery = _delivery(f"n:{n.pk}", n.user_id, campaign.pk, [n], not_before=held.get(n.user_id))
        if delivery is not None:
            deliveries.append(delivery)
    return deliveries


def schedule_push(campaign: Campaign, written: Sequence[Notification]) -> list[Delivery]:
    """One Web Push delivery per notification and browser where its user allowed push (push configured):
    each endpoint is sent and retried on its own."""
    from notifications import push

    if not written or not push.status().enabled:
        return []
    user_ids = {n.user_id for n in written}
    browsers: dict[int, list[int]] = {}
    for subscription_id, user_id in PushSubscription.objects.filter(user_id__in=user_ids).values_list("pk", "user_id"):
        browsers.setdefault(user_id, []).append(subscription_id)
    held = quiet_until(set(browsers))
    deliveries = []
    for n in written:
        for subscription_id in browsers.get(n.user_id, []):
            delivery = _delivery(
                f"push:{n.pk}:{subscription_id}",
                n.user_id,
                campaign.pk,
                [n],
                not_before=held.get(n.user_id),
                channel=Channel.PUSH,
                push_subscription_id=subscription_id,
            )
            if delivery is not None:
                deliveries.append(delivery)
    return deliveries


def _delivery(
    key: str,
    user_id: int,
    campaign_id: int,
    notifications: Sequence[Notification],
    not_before: Any = None,
    channel: str = Channel.EMAIL,
    push_subscription_id: int | None = None,
) -> Delivery | None:
    """Create the delivery ``key`` (None if it exists already) and send it after commit (after
    ``not_before`` when the recipient is in their quiet hours)."""
    try:
        with transaction.atomic():
            delivery = Delivery.objects.create(
                key=key,
                user_id=user_id,
                campaign_id=campaign_id,
                not_before=not_before,
                channel=channel,
                push_subscription_id=push_subscription_id,
            )
    except IntegrityError:
        return None
    delivery.notifications.set(notifications)
    transaction.on_commit(lambda: _enqueue_send(delivery.pk, not_before))
    return delivery


def _enqueue_send(delivery_id: int, not_before: Any) -> None:
    from notifications import tasks

    task = tasks.send_delivery
    if not_before is not None:
        if not task.get_backend().supports_defer:
            return  # held: send_held_deliveries sends it once the quiet hours are over
        task = task.using(run_after=not_before)
    task.enqueue(delivery_id)


def send_held_deliveries(now: Any = None) -> int:
    """Queue the mail held by quiet hours that may go now (the worker runs this periodically)."""
    from notifications import tasks

    now = now or timezone.now()
    due = list(Delivery.objects.filter(status=DeliveryStatus.PENDING, not_before__lte=now).values_list("pk", flat=True))
    for delivery_id in due:
        tasks.send_delivery.enqueue(delivery_id)
    return len(due)


def retry_stuck_deliveries(now: Any = None) -> int:
    """Queue again the deliveries left ``sending`` past ``NOTIFICATION_SENDING_TIMEOUT`` (a worker killed
    mid-send); the send claims each one again (the worker runs this periodically)."""
    from notifications import tasks

    stuck = list(Delivery.objects.filter(stuck_q(now or timezone.now())).values_list("pk", flat=True))
    for delivery_id in stuck:
        tasks.send_delivery.enqueue(delivery_id)
    return len(stuck)


def quiet_until(user_ids: Iterable[int], now: Any = None) -> dict[int, Any]:
    """For each user now in their quiet hours, when they end (server time zone). One query."""
    now = timezone.localtime(now or timezone.now())
    held = {}
    for user_id, start, end in QuietHours.objects.filter(user_id__in=list(user_ids)).values_list(
        "user_id", "start", "end"
    ):
        inside = start <= now.hour < end if start < end else (now.hour >= start or now.hour < end)
        if inside:
            until = now.replace(hour=end, minute=0, second=0, microsecond=0)
            held[user_id] = until if until > now else until + timedelta(days=1)
    return held


def set_quiet_hours(*, user: User, start: int | None, end: int | None) -> QuietHours | None:
    """Set (or with ``None``, remove) the user's quiet hours."""
    if start is None or end is None:
        QuietHours.objects.filter(user=user).delete()
        return None
    if not (0 <= start <= 23 and 0 <= end <= 23) or start == end:
        raise ValidationError({"start": _("Elige dos horas distintas entre 0 y 23.")})
    quiet, _created = QuietHours.objects.update_or_create(user=user, defaults={"start": start, "end": end})
    return quiet


def schedule_digests(now: Any = None) -> list[Delivery]:
    """The daily digests: per user and campaign in daily mode, one mail with what the inbox got since the
    last digest (and not read yet). Keyed by the day: running twice the same day sends nothing twice."""
    now = now or timezone.now()
    day = timezone.localdate(now).isoformat()
    pending = Notification.objects.filter(unread_q(), digested=False, user__email_verified_at__isnull=False).exclude(
        user__email=""
    )
    daily_pairs = set(CampaignPreference.objects.filter(email=EmailMode.DAILY).values_list("user_id", "campaign_id"))
    default_daily = settings.NOTIFICATION_EMAIL_DEFAULT == EmailMode.DAILY
    other_pairs = set(CampaignPreference.objects.exclude(email=EmailMode.DAILY).values_list("user_id", "campaign_id"))
    groups: dict[tuple[int, int], list[Notification]] = {}
    for n in pending.order_by("id"):
        pair = (n.user_id, n.campaign_id)
        if pair in daily_pairs or (default_daily and pair not in other_pairs):
            groups.setdefault(pair, []).append(n)
    deliveries = []
    held = quiet_until({user_id for user_id, _campaign_id in groups}, now)
    for (user_id, campaign_id), notes in groups.items():
        with transaction.atomic():
            key = f"digest:{user_id}:{campaign_id}:{day}"
            delivery = _delivery(key, user_id, campaign_id, notes, not_before=held.get(user_id))
            Notification.objects.filter(pk__in=[n.pk for n in notes]).update(digested=True)
        if delivery is not None:
            deliveries.append(delivery)
    return deliveries


# --- Nudges ---------------------------------------------------------------------------------------------


def owing_players(scene: Scene) -> list[int]:
    """The players who owe a post in ``scene`` (the dashboard's list), except whoever wrote last there."""
    from campaigns.dashboard import owed_posts

    owed = owed_posts([scene.campaign]).get(scene.campaign_id, [])
    last_author = (
        Post.objects.filter(scene=scene, deleted_at__isnull=True, kind=PostKind.STORY)
        .order_by("-id")
        .values_list("author_id", flat=True)
        .first()
    )
    return [o.user.pk for o in owed if o.scene.pk == scene.pk and o.user.pk != last_author]


@transaction.atomic
def nudge(*, actor: User, scene: Scene, user_ids: Sequence[int] | None = None) -> list[Notification]:
    """A GM reminds the players who owe a post in ``scene`` (or some of them). Once per player and day."""
    campaign = scene.campaign
    viewer = policy.viewer_for(actor, campaign)
    if not policy.may_nudge(viewer):
        raise PermissionDenied(_("Solo un máster puede dar un toque a los jugadores."))
    owing = owing_players(scene)
    chosen = owing if user_ids is None else [uid for uid in owing if uid in set(user_ids)]
    if not chosen:
        raise ValidationError(_("Nadie debe un mensaje en esta escena."))
    NUDGE_LIMIT.count(actor.pk)
    day = timezone.localdate().isoformat()
    params = {"campaign": campaign.title, "scene": scene.title, "gm": actor.public_name}
    return _tell(chosen, campaign=campaign, kind=Kind.NUDGE, key=f"nudge:{scene.pk}:{day}", params=params, scene=scene)


def set_reminder(*, actor: User, campaign: Campaign, days: int) -> CampaignReminder:
    if not policy.may_nudge(policy.viewer_for(actor, campaign)):
        raise PermissionDenied(_("Solo un máster puede programar recordatorios."))
    if not 0 <= days <= 60:
        raise ValidationError({"days": _("Entre 0 (sin recordatorio) y 60 días.")})
    reminder, _created = CampaignReminder.objects.update_or_create(campaign=campaign, defaults={"days": days})
    return reminder


def send_reminders(now: Any = None) -> int:
    """The automatic reminders: in each campaign that set one, every player who owes a post in an open scene
    silent for at least its days is told once per silence (keyed by the scene's last post)."""
    from campaigns.dashboard import owed_posts

    now = now or timezone.now()
    written = 0
    reminders = {r.campaign_id: r.days for r in CampaignReminder.objects.filter(days__gt=0)}
    campaigns = list(Campaign.objects.filter(pk__in=reminders))
    for campaign_id, lines in owed_posts(campaigns, now=now).items():
        days = reminders[campaign_id]
        for owed in lines:
            scene = owed.scene
            last = Post.objects.filter(scene=scene, deleted_at__isnull=True).order_by("-id").first()
            since = last.created_at if last is not None else scene.created_at
            if now - since < timedelta(days=days) or (last is not None and last.author_id == owed.user.pk):
                continue
            params = {"campaign": scene.campaign.title, "scene": scene.title, "days": (now - since).days}
            key = f"reminder:{scene.pk}:{last.pk if last else 0}"
            written += len(
                _tell([owed.user.pk], campaign=scene.campaign, kind=Kind.REMINDER, key=key, params=params, scene=scene)
            )
    return written


# --- Roll requests --------------------------------------------------------------------------------------


def _check_expression(expression: str) -> str:
    from systems.errors import RulesError
    from systems.generic.parse import parse

    expression = expression.strip()
    if not expression or len(expression) > 200:
        raise ValidationError({"expression": _("Escribe la tirada en notación de dados, como 3d6+2 o 4dF.")})
    try:
        parse(expression)
    except RulesError as error:
        raise ValidationError({"expression": error.message(get_language() or "es")}) from None
    return expression


@transaction.atomic
def request_roll(*, actor: User, scene: Scene, character: Character, expression: str, label: str = "") -> RollRequest:
    """A GM asks a character's player for a roll in ``scene``; the player is told and finds it pre-filled."""
    campaign = scene.campaign
    viewer = policy.viewer_for(actor, campaign)
    if not policy.may_request_roll(viewer):
        raise PermissionDenied(_("Solo un máster puede pedir tiradas."))
    readers, writers = _scene_lists(scene)
    owner_id = character.owner_id
    if owner_id is None:
        raise ValidationError({"character": _("Ese personaje no puede responder en esta escena.")})
    owner_role = Membership.objects.filter(campaign=campaign, user_id=owner_id).values_list("role", flat=True).first()
    owner = policy.Viewer(owner_id, campaign.pk, viewer.campaign_public, owner_role)
    if character.campaign_id != campaign.pk or not policy.may_be_asked_to_roll(
        owner, scene, character, readers, writers
    ):
        raise ValidationError({"character": _("Ese personaje no puede responder en esta escena.")})
    label = label.strip()
    if len(label) > 120:
        raise ValidationError({"label": _("Como mucho 120 caracteres.")})
    request = RollRequest.objects.create(
        campaign=campaign,
        scene=scene,
        character=character,
        requested_by=actor,
        expression=_check_expression(expression),
        label=label,
    )
    params = {
        "campaign": campaign.title,
        "scene": scene.title,
        "gm": actor.public_name,
        "character": character.name,
        "expression": request.expression,
        "label": label,
    }
    assert character.owner_id is not None  # may_be_asked_to_roll: a player's character
    _publish_roll_request(request, character.owner_id)
    _tell(
        [character.owner_id],
        campaign=campaign,
        kind=Kind.ROLL_REQUESTED,
        key=f"rollrequest:{request.pk}",
        params=params,
        scene=scene,
    )
    return request


@transaction.atomic
def cancel_roll_request(*, actor: User, request: RollRequest) -> RollRequest:
    request = RollRequest.objects.select_for_update().select_related("campaign").get(pk=request.pk)
    if not policy.may_request_roll(policy.viewer_for(actor, request.campaign)):
        raise PermissionDenied(_("Solo un máster puede retirar una petición de tirada."))
    if request.status != RollRequestStatus.OPEN:
        raise ValidationError(_("Esta petición ya está cerrada."))
    request.status = RollRequestStatus.CANCELLED
    request.answered_at = timezone.now()
    request.save()
    owner_id = Character.objects.filter(pk=request.character_id).values_list("owner_id", flat=True).first()
    _publish_roll_request(request, owner_id)
    if owner_id is not None:
        tell_users([owner_id], "notices.changed")  # the player's dashboard drops it
    return request


def _publish_roll_request(request: RollRequest, owner_id: int | None) -> None:
    # The scene's «Tiradas pedidas», the player's composer and dashboard follow it without a reload.
    data = {"scene_id": request.scene_id, "roll_request_id": request.pk, "status": request.status}
    audience = Audience(scene_id=request.scene_id, user_ids=frozenset({owner_id} if owner_id else set()))
    publish(Event(EventType.ROLL_REQUEST_CHANGED, request.campaign_id, data), audience)


def answer_post_roll_requests(post_id: int) -> int:
    """The rolls made with a post answer their characters' open requests (see :func:`answer_roll_requests`)."""
    return sum(
        answer_roll_requests(roll_id) for roll_id in Roll.objects.filter(post_id=post_id).values_list("pk", flat=True)
    )


@transaction.atomic
def answer_roll_requests(roll_id: int) -> int:
    """A roll made by a character's player, with a post, answers that character's open requests in the
    scene (the post is the answer). Returns how many it closed."""
    roll = Roll.objects.filter(pk=roll_id).select_related("character").first()
    if roll is None or roll.post_id is None or roll.character is None or roll.roller_id != roll.character.owner_id:
        return 0
    answered = list(
        RollRequest.objects.select_for_update().filter(
            scene_id=roll.scene_id, character_id=roll.character.pk, status=RollRequestStatus.OPEN
        )
    )
    for request in answered:
        request.status = RollRequestStatus.ANSWERED
        request.answered_post_id = roll.post_id
        request.answered_at = timezone.now()
        request.save(update_fields=["status", "answered_post", "answered_at"])
        _publish_roll_request(request, roll.character.owner_id)
    return len(answered)
