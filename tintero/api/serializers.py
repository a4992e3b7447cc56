"""Serializers of the forum-core API: ``*In`` parse a request body, ``*Out`` shape a response.

Input serializers only check shapes and types; the services own the rules (and say no with
``PermissionDenied``/``ValidationError``). Output serializers never emit a field the viewer may not see:
such fields are *absent* (not null), decided by ``campaigns.policy`` with the viewer in the context.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _
from drf_spectacular.helpers import lazy_serializer
from drf_spectacular.utils import extend_schema_field, extend_schema_serializer
from rest_framework import exceptions, serializers

from accounts.models import ApiToken, User
from accounts.names import check_display_name_text, check_display_name_unique
from accounts.selectors import names_beside
from accounts.throttle import LoginThrottled, authenticate_throttled
from campaigns import policy
from campaigns.models import (
    Campaign,
    CampaignStatus,
    Invitation,
    JoinRequest,
    Language,
    Membership,
    Post,
    PostKind,
    PostRevision,
    Recipients,
    RequestStatus,
    Role,
    Scene,
    SceneAccess,
    SceneAspect,
    SceneStatus,
    Visibility,
    Voice,
    validate_single_line,
)
from campaigns.policy import Viewer
from rolls.services import MAX_ROLLS_PER_POST
from rulesets.registry import ruleset_choices
from tintero.api.parsers import INT64_MAX


def id_field(**kwargs: Any) -> serializers.IntegerField:
    """A row id in a request: positive and within the 64-bit columns of both databases (a larger number
    is a 400, not an overflow in the query)."""
    return serializers.IntegerField(min_value=1, max_value=INT64_MAX, **kwargs)


def _viewer(serializer: serializers.Serializer) -> Viewer | None:
    """The viewer a response is for. None only while the schema is generated (every field documented); a
    serializer used in a real response without a viewer is a bug, and fails closed."""
    viewer = serializer.context.get("viewer")
    if viewer is None and not getattr(serializer.context.get("view"), "swagger_fake_view", False):
        raise ImproperlyConfigured(f"{type(serializer).__name__} needs the viewer in its context.")
    return viewer


# --- Errors (documentation only: tintero.api.errors builds them) ----------------------------------


class ErrorBodyOut(serializers.Serializer):
    code = serializers.CharField(help_text="Machine-readable code: invalid, not_found, permission_denied...")
    message = serializers.CharField(help_text="A clear, translated message.")
    fields = serializers.DictField(
        child=serializers.JSONField(),
        required=False,
        help_text="Per-field messages (field name to a list of messages), when fields are at fault.",
    )


class ErrorOut(serializers.Serializer):
    error = ErrorBodyOut()


# --- Accounts -------------------------------------------------------------------------------------


class UserBriefOut(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    username = serializers.CharField(read_only=True)
    public_name = serializers.CharField(read_only=True)


class TokenIn(serializers.Serializer):
    username = serializers.CharField()
    password = serializers.CharField(style={"input_type": "password"}, trim_whitespace=False)
    name = serializers.CharField(
        required=False, allow_blank=True, max_length=80, help_text="A name to recognise the token by in your list."
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        try:
            user = authenticate_throttled(self.context.get("request"), attrs["username"], attrs["password"])
        except LoginThrottled as throttled:
            raise exceptions.Throttled(wait=throttled.retry_after, detail=str(throttled)) from None
        if user is None:
            raise serializers.ValidationError(_("Usuario o contraseña incorrectos."), code="invalid_credentials")
        attrs["user"] = user
        return attrs


class TokenOut(serializers.Serializer):
    token = serializers.CharField(read_only=True, help_text="The full key: shown this once, never again.")
    id = serializers.IntegerField(read_only=True)
    name = serializers.CharField(read_only=True)
    expires_at = serializers.DateTimeField(read_only=True, allow_null=True)


class TokenInfoOut(serializers.ModelSerializer):
    """One of the user's tokens, as lists show it: its first characters, never its key."""

    current = serializers.SerializerMethodField(help_text="Whether this token authenticates this request.")

    class Meta:
        model = ApiToken
        fields = ["id", "name", "prefix", "created_at", "last_used_at", "expires_at", "current"]
        read_only_fields = fields

    def get_current(self, token: ApiToken) -> bool:
        request = self.context.get("request")
        return isinstance(getattr(request, "auth", None), ApiToken) and request.auth.pk == token.pk  # type: ignore[union-attr]


class MeSerializer(serializers.ModelSerializer):
    public_name = serializers.CharField(read_only=True)
    # Not format "email": it is "" for users who gave none (the schema said otherwise).
    email = serializers.CharField(read_only=True, help_text="The address mail goes to; empty when there is none.")
    email_verified = serializers.BooleanField(
        read_only=True, help_text="Whether `email` was confirmed by its owner: mail goes only to a confirmed address."
    )
    pending_email = serializers.SerializerMethodField(
        help_text="An address waiting for its owner to open the link mailed to it (empty when none): used for "
        "nothing until then."
    )

    class Meta:
        model = User
        fields = ["id", "username", "display_name", "public_name", "email", "email_verified", "pending_email"]
        read_only_fields = ["id", "username", "email"]

    def get_pending_email(self, user: User) -> str:
        return user.pending_email if user.pending_email else (user.email if not user.email_verified else "")

    def validate_display_name(self, name: str) -> str:
        # The profile form's rules (accounts/names.py); DRF turns the ValidationError into a field error.
        if name:
            check_display_name_text(name)
            check_display_name_unique(name, names_beside(self.instance))
        return name


class EmailIn(serializers.Serializer):
    email = serializers.EmailField(
        allow_blank=True,
        max_length=254,
        help_text="The address to use. A new one is mailed a link and used for nothing until it is opened; the "
        "confirmed address keeps the mail meanwhile and is told. The confirmed address again cancels a change "
        "under way; empty removes the address.",
    )


class DeleteAccountIn(serializers.Serializer):
    password = serializers.CharField(help_text="The account's password, asked again.", style={"input_type": "password"})


class PasswordResetIn(serializers.Serializer):
    email = serializers.EmailField(max_length=254, help_text="The account's confirmed address.")


class PasswordResetOut(serializers.Serializer):
    detail = serializers.CharField(help_text="The same answer whether an account has the address or not.")


class EmailConfirmIn(serializers.Serializer):
    token = serializers.CharField(max_length=500, help_text="The token in the link mailed to the new address.")


# --- Campaigns ------------------------------------------------------------------------------------


class CampaignCreateIn(serializers.Serializer):
    title = serializers.CharField(max_length=120, validators=[validate_single_line])
    ruleset = serializers.ChoiceField(choices=[], help_text="A registered ruleset's key (see /api/rulesets/).")
    introduction = serializers.CharField(required=False, allow_blank=True, max_length=20_000)
    synopsis = serializers.CharField(required=False, allow_blank=True, max_length=20_000)
    gm_notes = serializers.CharField(required=False, allow_blank=True, max_length=20_000)
    language = serializers.ChoiceField(choices=Language.choices, required=False)
    visibility = serializers.ChoiceField(choices=Visibility.choices, required=False)
    status = serializers.ChoiceField(choices=CampaignStatus.choices, required=False)
    recruiting_message = serializers.CharField(
        required=False, allow_blank=True, max_length=1000, help_text="Shown in the directory while recruiting."
    )
    seats = serializers.IntegerField(
        required=False, allow_null=True, min_value=1, max_value=50, help_text="Player seats; null for no limit."
    )
    rules_settings = serializers.JSONField(
        required=False,
        help_text="The ruleset's optional rules, an object shaped by `settings_schema` in "
        "`GET /api/rulesets/{key}/`. On update it changes only the rules it names (objects merge); an "
        "unknown rule or a wrong value is a 400 naming it.",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The registry fills at startup, after this module's classes are built.
        self.fields["ruleset"].choices = ruleset_choices()


class CampaignUpdateIn(CampaignCreateIn):
    title = serializers.CharField(max_length=120, validators=[validate_single_line], required=False)
    ruleset = serializers.ChoiceField(choices=[], required=False)


_CAMPAIGN_FIELDS = [
    "id",
    "title",
    "introduction",
    "synopsis",
    "ruleset",
    "language",
    "visibility",
    "status",
    "recruiting_message",
    "seats",
    "created_at",
    "updated_at",
]


class CampaignOut(serializers.ModelSerializer):
    """A campaign in a list: with its GMs, member count and the viewer's role."""

    member_count = serializers.IntegerField(read_only=True)
    gms = serializers.SerializerMethodField()
    my_role = serializers.ChoiceField(
        choices=Role.choices, read_only=True, allow_null=True, help_text="The viewer's role; null if not a member."
    )

    class Meta:
        model = Campaign
        fields = [*_CAMPAIGN_FIELDS, "member_count", "gms", "my_role"]
        read_only_fields = fields

    @extend_schema_field(UserBriefOut(many=True))
    def get_gms(self, campaign: Campaign) -> list[dict[str, Any]]:
        return UserBriefOut([m.user for m in campaign.gm_memberships], many=True).data


class CampaignDetailOut(CampaignOut):
    """One campaign. ``gm_notes`` is present only for its GMs."""

    gm_notes = serializers.CharField(required=False, help_text="Only for the campaign's GMs; absent for others.")

    class Meta(CampaignOut.Meta):
        fields = [*CampaignOut.Meta.fields, "gm_notes", "rules_settings"]
        read_only_fields = [f for f in fields if f != "gm_notes"]

    def get_fields(self) -> dict[str, serializers.Field]:
        fields = super().get_fields()
        viewer = _viewer(self)
        if viewer is not None and not policy.may_see_gm_notes(viewer):
            del fields["gm_notes"]
        return fields


class MemberOut(serializers.ModelSerializer):
    user = UserBriefOut(read_only=True)

    class Meta:
        model = Membership
        fields = ["user", "role", "joined_at"]
        read_only_fields = fields


class RoleIn(serializers.Serializer):
    role = serializers.ChoiceField(choices=Role.choices)


class CampaignBriefOut(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    title = serializers.CharField(read_only=True)


class JoinRequestIn(serializers.Serializer):
    role = serializers.ChoiceField(choices=[Role.PLAYER, Role.READER], default=Role.PLAYER)
    message = serializers.CharField(required=False, allow_blank=True, max_length=2000, default="")


class JoinRequestOut(serializers.ModelSerializer):
    campaign = CampaignBriefOut(read_only=True)
    user = UserBriefOut(read_only=True)
    status = serializers.ChoiceField(choices=RequestStatus.choices, read_only=True)

    class Meta:
        model = JoinRequest
        fields = ["id", "campaign", "user", "role", "message", "status", "created_at", "decided_at"]
        read_only_fields = fields


class InvitationIn(serializers.Serializer):
    user = serializers.PrimaryKeyRelatedField(
        queryset=User.objects.all(), required=False, help_text="The invited user's id (or give `username`)."
    )
    username = serializers.SlugRelatedField(
        slug_field="username",
        queryset=User.objects.all(),
        required=False,
        help_text="The invited user's username (or give `user`).",
    )
    role = serializers.ChoiceField(choices=Role.choices, default=Role.PLAYER)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        user = attrs.get("user") or attrs.get("username")
        if user is None:
            raise serializers.ValidationError({"user": [_("Indica a quién invitas (`user` o `username`).")]})
        return {"user": user, "role": attrs["role"]}


class InvitationOut(serializers.ModelSerializer):
    campaign = CampaignBriefOut(read_only=True)
    user = UserBriefOut(read_only=True)
    invited_by = UserBriefOut(read_only=True)
    status = serializers.ChoiceField(choices=RequestStatus.choices, read_only=True)

    class Meta:
        model = Invitation
        fields = ["id", "campaign", "user", "role", "invited_by", "status", "created_at", "decided_at"]
        read_only_fields = fields


# --- Scenes ---------------------------------------------------------------------------------------


@extend_schema_field({"type": "array", "items": {"type": "integer"}})
class IdListField(serializers.Field):
    """A many-to-many relation as a sorted list of ids (prefetch it: this reads ``.all()``)."""

    def to_representation(self, value: Any) -> list[int]:
        return sorted(obj.pk for obj in value.all())


class SceneCreateIn(serializers.Serializer):
    title = serializers.CharField(max_length=120, validators=[validate_single_line])
    description = serializers.CharField(required=False, allow_blank=True, max_length=20_000, default="")
    access = serializers.ChoiceField(choices=SceneAccess.choices, default=SceneAccess.ALL_MEMBERS)
    readers = serializers.ListField(child=id_field(), required=False, help_text="User ids who may read (listed).")
    writers = serializers.ListField(child=id_field(), required=False, help_text="User ids who may write (listed).")


class SceneUpdateIn(SceneCreateIn):
    title = serializers.CharField(max_length=120, validators=[validate_single_line], required=False)
    description = serializers.CharField(required=False, allow_blank=True, max_length=20_000)
    access = serializers.ChoiceField(choices=SceneAccess.choices, required=False)


class SceneOut(serializers.ModelSerializer):
    """A readable scene. ``readers``/``writers`` are present only for the campaign's GMs."""

    status = serializers.ChoiceField(choices=SceneStatus.choices, read_only=True)
    post_count = serializers.IntegerField(read_only=True, help_text="Posts the viewer may see.")
    unread_count = serializers.IntegerField(read_only=True, help_text="Of those, the ones the viewer has not read.")
    readers = IdListField(required=False, help_text="Only for GMs: user ids who may read (listed access).")
    writers = IdListField(required=False, help_text="Only for GMs: user ids who may write (listed access).")

    class Meta:
        model = Scene
        fields = [
            "id",
            "campaign",
            "title",
            "description",
            "position",
            "status",
            "is_offtopic",
            "access",
            "post_count",
            "unread_count",
            "created_at",
            "updated_at",
            "readers",
            "writers",
        ]
        read_only_fields = [f for f in fields if f not in ("readers", "writers")]

    def get_fields(self) -> dict[str, serializers.Field]:
        fields = super().get_fields()
        viewer = _viewer(self)
        if viewer is not None and not policy.may_manage_campaign(viewer):
            del fields["readers"], fields["writers"]
        return fields


class SceneDetailOut(SceneOut):
    may_write = serializers.BooleanField(read_only=True, help_text="Whether the viewer may post in this scene.")

    class Meta(SceneOut.Meta):
        fields = [*SceneOut.Meta.fields, "may_write"]
        read_only_fields = [f for f in fields if f not in ("readers", "writers")]


class ReorderIn(serializers.Serializer):
    scene_ids = serializers.ListField(
        child=id_field(), allow_empty=False, help_text="Every scene of the campaign, in order."
    )


class AspectIn(serializers.Serializer):
    text = serializers.CharField(max_length=200)
    hidden = serializers.BooleanField(default=False)
    free_invocations = serializers.IntegerField(min_value=0, max_value=20, default=0)


class AspectUpdateIn(serializers.Serializer):
    text = serializers.CharField(max_length=200, required=False)
    hidden = serializers.BooleanField(required=False)
    free_invocations = serializers.IntegerField(min_value=0, max_value=20, required=False)


class AspectOut(serializers.ModelSerializer):
    class Meta:
        model = SceneAspect
        fields = ["id", "scene", "text", "hidden", "free_invocations", "position", "created_at"]
        read_only_fields = fields


# --- Posts ----------------------------------------------------------------------------------------


class RollSpecIn(serializers.Serializer):
    """One roll to make with a post: a roll kind of the campaign's ruleset (``GET /api/rulesets/<key>/``
    lists its ``roll_kinds``) or ``notation``, dice notation in any campaign: ``{"expression": "3d6+2"}``."""

    kind = serializers.CharField(max_length=40, help_text="`notation` or a roll kind of the campaign's ruleset.")
    data = serializers.DictField(
        required=False, default=dict, help_text='The roll kind\'s request, e.g. `{"expression": "4dF+2"}`.'
    )
    character = id_field(
        required=False, allow_null=True, default=None, help_text="Roll for this character (yours; GMs: any)."
    )
    label = serializers.CharField(required=False, allow_blank=True, max_length=120, default="")
    gm_only = serializers.BooleanField(
        required=False, default=False, help_text="A secret roll (GMs): only GMs see it until a GM reveals it."
    )


class PostCreateIn(serializers.Serializer):
    voice = serializers.ChoiceField(choices=Voice.choices, default=Voice.OOC)
    character = id_field(required=False, allow_null=True, help_text="Character id, with voice=character.")
    npc_name = serializers.CharField(required=False, allow_blank=True, max_length=80, default="")
    body = serializers.CharField(help_text="Markdown.", trim_whitespace=False)
    notes = serializers.CharField(
        required=False, allow_blank=True, default="", trim_whitespace=False, help_text="Game notes, Markdown."
    )
    recipients = serializers.ChoiceField(choices=Recipients.choices, default=Recipients.EVERYONE)
    whisper_to = serializers.ListField(child=id_field(), required=False, default=list, help_text="User ids (whispers).")
    rolls = serializers.ListField(
        child=RollSpecIn(),
        required=False,
        default=list,
        max_length=MAX_ROLLS_PER_POST,
        help_text="Rolls the server makes with the post, in the same transaction (at most "
        f"{MAX_ROLLS_PER_POST}). A refused roll writes neither the post nor any roll.",
    )
    idempotency_key = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=80,
        help_text="Your key for this write (e.g. a UUID): the same request again answers the post it wrote (200) "
        "and writes nothing, so a client whose connection dropped may retry; the key with other content is "
        "refused (409 `idempotency_conflict`).",
    )


class PostUpdateIn(serializers.Serializer):
    body = serializers.CharField(help_text="Markdown.", trim_whitespace=False)
    notes = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False)


class CharacterBriefOut(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    name = serializers.CharField(read_only=True)


class RecordLineOut(serializers.Serializer):
    text = serializers.CharField(help_text="In the request's language.")
    gm_only = serializers.BooleanField(help_text="A fact only GMs read (they alone receive such lines).")


class RecordOut(serializers.Serializer):
    id = serializers.IntegerField(help_text="The procedure (`/api/flows/{id}/`).")
    kind = serializers.CharField()
    title = serializers.CharField()
    status = serializers.CharField()
    lines = RecordLineOut(many=True)


class PostOut(serializers.ModelSerializer):
    """A post the viewer may see. ``revision_count`` only for GMs and the author; ``deleted_*`` only on deleted
    posts (which only GMs ever receive)."""

    author = UserBriefOut(
        source="local_author", read_only=True, allow_null=True, help_text="Null for imported writing (see below)."
    )
    imported_author = serializers.CharField(
        read_only=True,
        help_text="Imported from an archive and not yet claimed: the archive's handle of who wrote it (shown as "
        "text, never as an account here); else empty.",
    )
    character = CharacterBriefOut(read_only=True, allow_null=True)
    voice = serializers.ChoiceField(choices=Voice.choices, read_only=True)
    recipients = serializers.ChoiceField(choices=Recipients.choices, read_only=True)
    body = serializers.CharField(source="body_source", read_only=True, help_text="The Markdown source.")
    notes = serializers.CharField(source="notes_source", read_only=True)
    body_html = serializers.CharField(read_only=True, help_text="Sanitized HTML.")
    notes_html = serializers.CharField(read_only=True)
    whisper_to = UserBriefOut(many=True, read_only=True)
    is_edited = serializers.BooleanField(read_only=True)
    is_deleted = serializers.BooleanField(read_only=True)
    may_edit = serializers.SerializerMethodField()
    may_delete = serializers.SerializerMethodField()
    revision_count = serializers.IntegerField(required=False, help_text="Only for GMs and the author.")
    deleted_at = serializers.DateTimeField(required=False, help_text="Only on deleted posts (GMs).")
    deleted_by = UserBriefOut(required=False, allow_null=True, help_text="Only on deleted posts (GMs).")
    rolls = serializers.SerializerMethodField(
        help_text="The post's rolls the viewer may see, in order (a secret roll only for GMs until revealed)."
    )
    kind = serializers.ChoiceField(
        choices=PostKind.choices, read_only=True, help_text="`procedure`: the thread's record of a procedure."
    )
    procedure = serializers.SerializerMethodField(
        help_text="On `procedure` posts: the procedure and its record in words (GM-only lines only for GMs); "
        "its dice are at `/api/flows/{id}/`. Null on other posts."
    )

    class Meta:
        model = Post
        fields = [
            "id",
            "scene",
            "kind",
            "procedure",
            "author",
            "imported_author",
            "voice",
            "character",
            "npc_name",
            "body",
            "body_html",
            "notes",
            "notes_html",
            "recipients",
            "whisper_to",
            "created_at",
            "edited_at",
            "is_edited",
            "is_deleted",
            "may_edit",
            "may_delete",
            "revision_count",
            "deleted_at",
            "deleted_by",
            "rolls",
        ]
        read_only_fields = [f for f in fields if f not in ("revision_count", "deleted_at", "deleted_by")]

    @extend_schema_field(lazy_serializer("rolls.serializers.RollOut")(many=True))
    def get_rolls(self, post: Post) -> list[dict[str, Any]]:
        """From ``rolls_by_post`` in the context (a page's rolls in constant queries), else this post's."""
        from rolls.selectors import rolls_of_post
        from rolls.serializers import RollOut

        by_post = self.context.get("rolls_by_post")
        views = (
            by_post.get(post.pk, [])
            if by_post is not None
            else rolls_of_post(self.context["viewer"], post.pk, self.context.get("language", "es"))
        )
        return RollOut(views, many=True, context=self.context).data  # type: ignore[return-value]

    @extend_schema_field(RecordOut(allow_null=True))
    def get_procedure(self, post: Post) -> dict[str, Any] | None:
        """From ``records_by_post`` in the context (a page's records in constant queries), else this post's."""
        if post.kind != PostKind.PROCEDURE:
            return None
        from rolls.selectors import record_views

        by_post = self.context.get("records_by_post")
        if by_post is None:
            by_post = record_views(self.context["viewer"], [post.pk], self.context.get("language", "es"))
        view = by_post.get(post.pk)
        if view is None:
            return None
        lines = [{"text": view.line_text(line), "gm_only": line.gm_only} for line in view.lines]
        return {
            "id": view.flow.pk,
            "kind": view.flow.kind,
            "title": view.title,
            "status": view.flow.status,
            "lines": lines,
        }

    def get_may_edit(self, post: Post) -> bool:
        return policy.may_edit_post(self.context["viewer"], post)

    def get_may_delete(self, post: Post) -> bool:
        return policy.may_delete_post(self.context["viewer"], post)

    def to_representation(self, instance: Post) -> dict[str, Any]:
        data = super().to_representation(instance)
        if not policy.may_see_revisions(self.context["viewer"], instance):
            data.pop("revision_count", None)
        if not instance.is_deleted:
            data.pop("deleted_at", None)
            data.pop("deleted_by", None)
        return data


class PostRevisionOut(serializers.ModelSerializer):
    body = serializers.CharField(source="body_source", read_only=True)
    notes = serializers.CharField(source="notes_source", read_only=True)
    edited_by = UserBriefOut(read_only=True)

    class Meta:
        model = PostRevision
        fields = ["id", "body", "notes", "edited_by", "created_at"]
        read_only_fields = fields


class ReadMarkIn(serializers.Serializer):
    up_to_post_id = serializers.IntegerField(
        required=False, min_value=0, max_value=INT64_MAX, help_text="Read up to this post (default: the newest post)."
    )


class UnreadSceneBriefOut(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    title = serializers.CharField(read_only=True)
    campaign = CampaignBriefOut(read_only=True)


class UnreadOut(serializers.Serializer):
    scene = UnreadSceneBriefOut(read_only=True)
    unread_count = serializers.IntegerField(read_only=True)
    first_unread_id = serializers.IntegerField(read_only=True)


def _name_components() -> None:
    """Schema components are named after the resource: ``PostOut`` is "Post", ``PostCreateIn`` is
    "PostCreateRequest" (drf-spectacular adds "Request" to request bodies)."""
    for name, obj in list(globals().items()):
        if isinstance(obj, type) and issubclass(obj, serializers.BaseSerializer) and name.endswith(("In", "Out")):
            extend_schema_serializer(component_name=name.removesuffix("In").removesuffix("Out"))(obj)


_name_components()
