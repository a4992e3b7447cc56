"""Tintero's URLs plus the thread benchmark's floors: a trivial view returning a static 50 KB page, one
answering a JSON POST, and a bare ORM view writing the rows a post writes, served by the same process and
stack in the same run as what they are compared with."""

from __future__ import annotations

import hashlib
import json
import secrets
from html import escape
from typing import Any

from django.db import connection, transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import path
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt

from accounts.models import ApiToken
from campaigns.markdown import RENDERER_VERSION
from campaigns.models import CampaignEventLog, Post, Scene, SceneReadMark
from record.models import RollChain, RollLink
from record.post_index import index_post
from record.rollchain import GENESIS, commitment_of, link_hash
from rolls.models import Roll
from tintero.urls import urlpatterns as tintero_urlpatterns

FLOOR_PAGE = "<!doctype html><html><body>\n" + ("<p>" + "x" * 93 + "</p>\n") * 500 + "</body></html>\n"


def floor_page(request: HttpRequest) -> HttpResponse:
    return HttpResponse(FLOOR_PAGE)


@csrf_exempt
def floor_post(request: HttpRequest) -> HttpResponse:
    """The posting floor through the server: read the JSON body, answer 201 with a small JSON body."""
    return JsonResponse({"id": len(request.body)}, status=201)


@csrf_exempt
def floor_orm_post(request: HttpRequest, scene_id: int) -> HttpResponse:
    """The fair posting floor (issue 26): what a post writes, through the ORM with nothing else, in one
    transaction: the post, its search row, its roll when asked (every tenth post in the bench) and the roll's
    link in the campaign's chain, the event's log row, the post's place in the thread and the author's read
    mark; the event numbered after the commit. The author comes from the API token, as the app's do; no
    policy, validation, Markdown, serializer or live send."""
    payload = json.loads(request.body)
    key = request.headers["Authorization"].split()[-1]
    author_id = ApiToken.objects.filter(key_hash=hashlib.sha256(key.encode()).hexdigest()).values_list(
        "user_id", flat=True
    )[0]
    scene = Scene.objects.select_related("campaign").only("campaign__language").get(pk=scene_id)
    body = payload["body"]
    with transaction.atomic():
        post = Post.objects.create(
            scene=scene,
            author_id=author_id,
            voice=payload.get("voice", "ooc"),
            body_source=body,
            body_html=f"<p>{escape(body)}</p>",
            renderer_version=RENDERER_VERSION,
        )
        index_post(post, new=True)
        roll = None
        if payload.get("rolls"):
            faces = [secrets.randbelow(6) + 1 for _ in range(2)]
            roll = Roll.objects.create(
                campaign_id=scene.campaign_id,
                scene=scene,
                post=post,
                roller_id=author_id,
                ruleset="generic",
                kind="notation",
                request={"expression": "2d6"},
                result={"dice": [{"sides": 6, "faces": faces}], "totals": [sum(faces)]},
                summary_es=f"2d6: {sum(faces)}",
                summary_en=f"2d6: {sum(faces)}",
            )
        data = {"scene_id": scene.pk, "post_id": post.pk}
        event = CampaignEventLog.objects.create(
            campaign_id=scene.campaign_id,
            seq=None,
            type="post.created",
            data=data,
            audience={"public": False, "gms_only": False, "scene_id": scene.pk, "user_ids": []},
        )
        with connection.cursor() as cursor:
            cursor.execute(
                "UPDATE campaigns_scene SET last_post_position = last_post_position + 1, updated_at = %s "
                "WHERE id = %s RETURNING last_post_position",
                [timezone.now(), scene.pk],
            )
            position = cursor.fetchone()[0]
        Post.objects.filter(pk=post.pk).update(position=position)
        SceneReadMark.objects.bulk_create(
            [SceneReadMark(user_id=author_id, scene_id=scene.pk, last_read_post_id=post.pk)],
            update_conflicts=True,
            unique_fields=["user", "scene"],
            update_fields=["last_read_post_id", "updated_at"],
        )
        if roll is not None:
            _link(roll)
        transaction.on_commit(lambda: _number(scene.campaign_id, event.pk))
    return JsonResponse({"id": post.pk}, status=201)


def _link(roll: Roll) -> None:
    chain = RollChain.objects.select_for_update().filter(campaign_id=roll.campaign_id).first()
    if chain is None:
        chain = RollChain.objects.create(campaign_id=roll.campaign_id, head=GENESIS)
    salt = secrets.token_hex(16)
    content: dict[str, Any] = {"roll": roll.pk, "post": roll.post_id, "result": roll.result}
    commitment = commitment_of(salt, content)
    seq = chain.length + 1
    digest = link_hash(seq, chain.head, commitment)
    RollLink.objects.create(
        campaign_id=roll.campaign_id,
        roll=roll,
        seq=seq,
        prev=chain.head,
        salt=salt,
        content=content,
        commitment=commitment,
        hash=digest,
    )
    chain.length, chain.head = seq, digest
    chain.save(update_fields=["length", "head"])


def _number(campaign_id: int, event_id: int) -> None:
    # One short transaction after the commit: the campaign's next seq into the event's row.
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO campaigns_campaignsequence (campaign_id, last) VALUES (%s, 1) ON CONFLICT (campaign_id) "
            "DO UPDATE SET last = campaigns_campaignsequence.last + 1 RETURNING last",
            [campaign_id],
        )
        seq = cursor.fetchone()[0]
        CampaignEventLog.objects.filter(pk=event_id).update(seq=seq)


urlpatterns = [
    path("__bench/floor/", floor_page),
    path("__bench/floor-post/", floor_post),
    path("__bench/floor-orm-post/<int:scene_id>/", floor_orm_post),
    *tintero_urlpatterns,
]
