"""What ``selectors.scene_for`` reads in the scene's own statement, beside the scene and its campaign: the
viewer's role and read marker, whether the viewer runs any campaign, whether the scene has open procedures
or roll requests, and the marks a kept thread page is keyed on (``campaigns.thread_cache``).

Each is a one-line correlated subquery, written here in SQL that SQLite and PostgreSQL both run, with names
taken from the models. The ORM builds and compiles an ``Exists``/``Subquery`` afresh on every call, about
0.8 ms each; the thread page asked for eight of them on every view, more than its kept answer then costs.
Tests: the policy matrices (every role reaches the policy through ``viewer_role``) and
``tests/campaigns/test_scene_annotations.py``, which compares each with its ORM form.
"""

from __future__ import annotations

from functools import cache

from django.db import connection
from django.db.models import BooleanField, CharField, Field, IntegerField, Model
from django.db.models.expressions import RawSQL


def _column(model: type[Model], name: str) -> str:
    field = model._meta.get_field(name)
    assert isinstance(field, Field) and field.column, f"{model.__name__}.{name} is not a column"
    quote = connection.ops.quote_name
    return f"{quote(model._meta.db_table)}.{quote(field.column)}"


def _table(model: type[Model]) -> str:
    return connection.ops.quote_name(model._meta.db_table)


@cache
def _sql() -> dict[str, str]:
    """The subqueries, made once per process. ``%s`` are their parameters."""
    from accounts.models import ProfilesVersion
    from campaigns.models import CampaignEventLog, CampaignSequence, Membership, Scene, SceneReadMark
    from notifications.models import RollRequest
    from rolls.models import Flow

    scene_id, campaign_id = _column(Scene, "id"), _column(Scene, "campaign")
    return {
        "viewer_role": (
            f"SELECT {_column(Membership, 'role')} FROM {_table(Membership)} WHERE "
            f"{_column(Membership, 'campaign')} = {campaign_id} AND {_column(Membership, 'user')} = %s LIMIT 1"
        ),
        "viewer_last_read": (
            f"COALESCE((SELECT {_column(SceneReadMark, 'last_read_post_id')} FROM {_table(SceneReadMark)} WHERE "
            f"{_column(SceneReadMark, 'scene')} = {scene_id} AND {_column(SceneReadMark, 'user')} = %s LIMIT 1), 0)"
        ),
        "viewer_runs_campaigns": (
            f"EXISTS(SELECT 1 FROM {_table(Membership)} WHERE "
            f"{_column(Membership, 'user')} = %s AND {_column(Membership, 'role')} = %s)"
        ),
        "has_open_flows": (
            f"EXISTS(SELECT 1 FROM {_table(Flow)} WHERE "
            f"{_column(Flow, 'scene')} = {scene_id} AND {_column(Flow, 'status')} = %s)"
        ),
        "has_open_roll_requests": (
            f"EXISTS(SELECT 1 FROM {_table(RollRequest)} WHERE "
            f"{_column(RollRequest, 'scene')} = {scene_id} AND {_column(RollRequest, 'status')} = %s)"
        ),
        "campaign_seq": (
            f"COALESCE((SELECT {_column(CampaignSequence, 'last')} FROM {_table(CampaignSequence)} WHERE "
            f"{_column(CampaignSequence, 'campaign')} = {campaign_id}), 0)"
        ),
        "has_unnumbered_events": (
            f"EXISTS(SELECT 1 FROM {_table(CampaignEventLog)} WHERE "
            f"{_column(CampaignEventLog, 'campaign')} = {campaign_id} AND {_column(CampaignEventLog, 'seq')} IS NULL)"
        ),
        "profiles_version": (
            f"COALESCE((SELECT {_column(ProfilesVersion, 'value')} FROM {_table(ProfilesVersion)} "
            f"WHERE {_column(ProfilesVersion, 'id')} = 1), 0)"
        ),
    }


def _annotation(name: str, params: tuple[object, ...], output_field: Field[object, object]) -> RawSQL:
    return RawSQL(_sql()[name], params, output_field=output_field)


def viewer_annotations(user_id: int, *, for_thread: bool, for_header: bool) -> dict[str, RawSQL]:
    """The viewer's role; with ``for_thread`` their read marker (0: none); with ``for_header`` whether they
    run any campaign (the header's link)."""
    from campaigns.models import Role

    annotations = {"viewer_role": _annotation("viewer_role", (user_id,), CharField())}
    if for_thread:
        annotations["viewer_last_read"] = _annotation("viewer_last_read", (user_id,), IntegerField())
    if for_header:
        annotations["viewer_runs_campaigns"] = _annotation(
            "viewer_runs_campaigns", (user_id, str(Role.GM)), BooleanField()
        )
    return annotations


def thread_annotations() -> dict[str, RawSQL]:
    """Whether the scene has open procedures and open roll requests (a thread without any asks for none),
    and the kept page's marks: the campaign's last numbered event, whether a committed change still waits
    for its number, and the version of the accounts' public profiles."""
    from notifications.models import RollRequestStatus
    from rolls.models import FlowStatus

    return {
        "has_open_flows": _annotation("has_open_flows", (str(FlowStatus.OPEN),), BooleanField()),
        "has_open_roll_requests": _annotation("has_open_roll_requests", (str(RollRequestStatus.OPEN),), BooleanField()),
        "campaign_seq": _annotation("campaign_seq", (), IntegerField()),
        "has_unnumbered_events": _annotation("has_unnumbered_events", (), BooleanField()),
        "profiles_version": _annotation("profiles_version", (), IntegerField()),
    }
