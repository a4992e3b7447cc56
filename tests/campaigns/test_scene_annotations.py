"""The scene statement's subqueries, written in SQL (campaigns.scene_annotations), answer what their ORM
forms answer, for every viewer and in every state they report, on SQLite and on PostgreSQL."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db.models import CharField, Exists, IntegerField, OuterRef, Subquery, Value
from django.db.models.functions import Coalesce

from accounts.models import ProfilesVersion, User
from campaigns import events, scene_annotations, services
from campaigns.models import CampaignEventLog, CampaignSequence, Membership, Role, Scene, SceneReadMark, Voice
from notifications import services as notification_services
from notifications.models import RollRequest, RollRequestStatus
from rolls import runner
from rolls.models import Flow, FlowStatus
from tests.personas import Table
from tests.rolls.conftest import duel  # noqa: F401  (the test procedure, registered while a test uses it)

pytestmark = pytest.mark.django_db


def orm_forms(user_id: int) -> dict[str, Any]:
    """The same questions asked the ORM's way (what scene_for asked before)."""
    role = Membership.objects.filter(campaign_id=OuterRef("campaign_id"), user_id=user_id).values("role")[:1]
    mark = SceneReadMark.objects.filter(scene_id=OuterRef("pk"), user_id=user_id).values("last_read_post_id")[:1]
    last_seq = CampaignSequence.objects.filter(campaign_id=OuterRef("campaign_id")).values("last")[:1]
    unnumbered = CampaignEventLog.objects.filter(campaign_id=OuterRef("campaign_id"), seq__isnull=True)
    return {
        "viewer_role": Subquery(role, output_field=CharField()),
        "viewer_last_read": Coalesce(Subquery(mark, output_field=IntegerField()), Value(0)),
        "viewer_runs_campaigns": Exists(Membership.objects.filter(user_id=user_id, role=Role.GM)),
        "has_open_flows": Exists(Flow.objects.filter(scene_id=OuterRef("pk"), status=FlowStatus.OPEN)),
        "has_open_roll_requests": Exists(
            RollRequest.objects.filter(scene_id=OuterRef("pk"), status=RollRequestStatus.OPEN)
        ),
        "campaign_seq": Coalesce(Subquery(last_seq), Value(0)),
        "has_unnumbered_events": Exists(unnumbered),
        "profiles_version": Coalesce(Subquery(ProfilesVersion.objects.filter(pk=1).values("value")), Value(0)),
    }


def assert_same_answers(table: Table) -> None:
    scene_ids = [table.scene.pk, table.listed_scene.pk, table.offtopic.pk]
    for user in User.objects.all():
        raw = {
            **scene_annotations.viewer_annotations(user.pk, for_thread=True, for_header=True),
            **scene_annotations.thread_annotations(),
        }
        names = list(raw)
        ours = list(Scene.objects.filter(pk__in=scene_ids).annotate(**raw).order_by("pk").values(*names))
        theirs = list(
            Scene.objects.filter(pk__in=scene_ids).annotate(**orm_forms(user.pk)).order_by("pk").values(*names)
        )
        assert ours == theirs, user.username


@pytest.mark.usefixtures("duel")
def test_every_answer_in_every_state(table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    assert_same_answers(table)  # unnumbered events, no markers, nothing open
    assert CampaignEventLog.objects.filter(seq__isnull=True).exists()
    monkeypatch.setattr(events, "STRANDED_AFTER", timedelta(0))
    events.number_stranded_events(limit=1000)
    services.mark_scene_read(user=table.player, scene=table.scene)
    notification_services.request_roll(actor=table.gm, scene=table.scene, character=table.character, expression="2d6")
    runner.start_procedure(actor=table.gm, scene=table.scene, kind="duel", params={"player": table.player.pk})
    author = User.objects.get(pk=table.player2.pk)
    author.display_name = "Bruno Díaz"
    author.save()
    assert_same_answers(table)  # numbered, a marker, an open request and procedure, a new profile version
    services.create_post(author=table.player, scene=table.scene, body="más", voice=Voice.OOC)
    assert_same_answers(table)


def test_the_answers_have_their_types(table: Table) -> None:
    raw = {
        **scene_annotations.viewer_annotations(table.gm.pk, for_thread=True, for_header=True),
        **scene_annotations.thread_annotations(),
    }
    scene = Scene.objects.annotate(**raw).get(pk=table.scene.pk)
    assert scene.viewer_role == Role.GM  # type: ignore[attr-defined]
    assert scene.viewer_runs_campaigns is True and scene.has_open_flows is False  # type: ignore[attr-defined]
    assert isinstance(scene.campaign_seq, int) and isinstance(scene.viewer_last_read, int)  # type: ignore[attr-defined]
