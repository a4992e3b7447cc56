"""The GM dashboard: only the campaigns the user runs; each panel's content for a seeded campaign (who owes
a post and for how many days, open flows with names, characters and join requests waiting, secret rolls
only for GMs, pools, NPCs, aspects); the panels alone as fragments; the API equivalent; constant queries
for 2 and for 10 campaigns."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from campaigns import dashboard as selectors
from campaigns import policy
from campaigns.models import Campaign, JoinRequest, Post, Role, SceneAccess, SceneAspect, SceneStatus
from characters.models import Character, CharacterStatus
from rolls.models import Flow
from rolls.services import RollSpec, create_post_with_rolls, reveal_roll
from systems.dice import ScriptedDice
from tests.campaigns.web_helpers import (
    add_member,
    bulk_posts,
    client_for,
    make_campaign,
    make_character,
    make_scene,
    make_user,
)

pytestmark = pytest.mark.django_db

DASHBOARD = "/dashboard/"
API = "/api/dashboard/"


def panel_url(panel: str, campaign: Campaign) -> str:
    return f"{reverse('campaigns:dashboard_panel', args=[panel])}?campaign={campaign.pk}"


def days_ago(post: Post, days: int, hours: int = 1) -> None:
    Post.objects.filter(pk=post.pk).update(created_at=timezone.now() - timedelta(days=days, hours=hours))


def secret_roll(gm: User, scene: Any, label: str) -> Post:
    return create_post_with_rolls(
        author=gm,
        scene=scene,
        body="Tiro en secreto.",
        voice="narrator",
        rolls=[RollSpec(kind="notation", data={"expression": "1d20"}, gm_only=True, label=label)],
        dice=ScriptedDice([17]),
    )


class Seeded:
    """One campaign with something in every panel."""

    def __init__(self, gm: User, title: str = "La Sombra", prefix: str = "") -> None:
        self.gm = gm
        self.ana = make_user(f"{prefix}ana", "Ana Nieve")
        self.bruno = make_user(f"{prefix}bruno", "Bruno Gris")
        self.reader = make_user(f"{prefix}lector", "Lector")
        self.asker = make_user(f"{prefix}pide", "Quiere Jugar")
        self.campaign = make_campaign(gm, title)
        add_member(self.campaign, self.ana, Role.PLAYER)
        add_member(self.campaign, self.bruno, Role.PLAYER)
        add_member(self.campaign, self.reader, Role.READER)
        self.alba = make_character(self.campaign, self.ana, "Alba")
        self.pending = make_character(
            self.campaign, self.bruno, f"{prefix}Pendiente", status=CharacterStatus.PENDING, submitted_at=timezone.now()
        )
        self.npc = make_character(self.campaign, None, f"{prefix}Villano")
        self.scene = make_scene(self.campaign, gm, f"{prefix}Puerto")
        self.listed = make_scene(
            self.campaign,
            gm,
            f"{prefix}Aparte",
            access=SceneAccess.LISTED,
            reader_ids=[self.ana.pk],
            writer_ids=[self.ana.pk],
        )
        self.closed = make_scene(self.campaign, gm, f"{prefix}Cerrada")
        self.closed.status = SceneStatus.CLOSED
        self.closed.save()
        post = Post.objects.create(
            scene=self.scene, author=self.ana, body_source="a", body_html="<p>a</p>", renderer_version=1
        )
        days_ago(post, 3)
        post = Post.objects.create(
            scene=self.listed, author=self.ana, body_source="b", body_html="<p>b</p>", renderer_version=1
        )
        days_ago(post, 9)
        bulk_posts(self.closed, self.bruno, 2)
        self.request = JoinRequest.objects.create(campaign=self.campaign, user=self.asker, message="¡Déjame entrar!")
        self.pain = Flow.objects.create(
            campaign=self.campaign,
            scene=self.scene,
            kind="conflict",
            opened_by=self.ana,
            waiting_for={"step": "pain_roll", "who": "gm", "label_es": "tirada de dolor", "label_en": "pain roll"},
            secret_state={"difficulty": 4},
        )
        self.split = Flow.objects.create(
            campaign=self.campaign,
            scene=self.scene,
            kind="desafio",
            opened_by=gm,
            waiting_for={"step": "split", "users": [self.ana.pk, self.bruno.pk], "label_es": "reparto sellado"},
        )
        Flow.objects.create(
            campaign=self.campaign, scene=self.scene, kind="old", opened_by=gm, status="settled", waiting_for={}
        )
        self.aspect = SceneAspect.objects.create(scene=self.scene, text=f"{prefix}Niebla espesa", free_invocations=2)
        SceneAspect.objects.create(scene=self.closed, text=f"{prefix}Aspecto de escena cerrada")
        self.secret_post = secret_roll(gm, self.scene, f"{prefix}Emboscada")
        revealed = secret_roll(gm, self.scene, f"{prefix}Ya revelada")
        reveal_roll(actor=gm, roll=revealed.rolls.get())


@pytest.fixture
def seeded() -> Seeded:
    return Seeded(make_user("master", "La Máster"))


# --- Who sees the dashboard -----------------------------------------------------------------------


def test_anonymous_is_sent_to_log_in() -> None:
    response = Client().get(DASHBOARD)
    assert response.status_code == 302
    assert "/accounts/login/" in response["Location"]
    assert Client().get(API).status_code in (401, 403)


def test_only_the_campaigns_the_user_runs(seeded: Seeded) -> None:
    mine_too = make_campaign(seeded.gm, "La Otra")
    theirs = make_campaign(seeded.ana, "De Ana")
    add_member(theirs, seeded.gm, Role.PLAYER)
    html = client_for(seeded.gm).get(DASHBOARD).content.decode()
    assert "La Sombra" in html and "La Otra" in html
    assert "De Ana" not in html
    assert [c.pk for c in selectors.gm_campaigns(seeded.gm)] == [mine_too.pk, seeded.campaign.pk]


def test_a_player_sees_what_waits_for_them_and_no_gm_secret(seeded: Seeded) -> None:
    response = client_for(seeded.ana).get(DASHBOARD)
    assert response.status_code == 200
    html = response.content.decode()
    assert "Lo que te espera" in html
    assert "Partidas que diriges" not in html
    for secret in ("Emboscada", "Pendiente", "Quiere Jugar", "Villano"):
        assert secret not in html
    assert f'href="{DASHBOARD}"' in html  # every signed-in user has the header link
    for panel in selectors.PANELS:
        assert client_for(seeded.ana).get(panel_url(panel, seeded.campaign)).status_code == 403
    assert client_for(seeded.ana).get(API).json()["results"] == []


def test_header_link_for_gms(seeded: Seeded) -> None:
    html = client_for(seeded.gm).get("/").content.decode()
    assert f'href="{DASHBOARD}"' in html


def test_panels_of_a_hidden_campaign_do_not_exist() -> None:
    gm = make_user("gm2")
    private = make_campaign(gm, "Secreta", visibility="private")
    outsider = make_user("fuera")
    assert client_for(outsider).get(panel_url("owed", private)).status_code == 404
    assert client_for(gm).get(panel_url("nope", private)).status_code == 404
    assert client_for(gm).get(reverse("campaigns:dashboard_panel", args=["owed"]) + "?campaign=x").status_code == 404


# --- Each panel ------------------------------------------------------------------------------------


def test_owed_posts_with_days_longest_wait_first(seeded: Seeded) -> None:
    owed = selectors.owed_posts([seeded.campaign])[seeded.campaign.pk]
    lines = [(o.user.username, o.scene.title, o.days) for o in owed]
    # Bruno never wrote in the open scene; Ana 9 days ago in the listed one, 3 days ago in the open one.
    # Bruno may not write the listed scene; nobody owes in closed or off-topic scenes; GMs and readers never.
    assert lines == [("bruno", "Puerto", None), ("ana", "Aparte", 9), ("ana", "Puerto", 3)]


def test_owed_days_follow_the_clock(seeded: Seeded, monkeypatch: pytest.MonkeyPatch) -> None:
    later = timezone.now() + timedelta(days=10)
    monkeypatch.setattr(timezone, "now", lambda: later)
    owed = selectors.owed_posts([seeded.campaign])[seeded.campaign.pk]
    assert [o.days for o in owed] == [None, 19, 13]


def test_owed_panel_html(seeded: Seeded) -> None:
    html = client_for(seeded.gm).get(panel_url("owed", seeded.campaign)).content.decode()
    assert 'id="dash-owed-' in html
    assert 'data-days="never"' in html and "nunca" in html
    assert 'data-days="9"' in html and "hace 9 días" in html
    assert 'data-days="3"' in html
    assert html.index("Bruno Gris") < html.index("hace 9 días") < html.index("hace 3 días")
    assert "Cerrada" not in html


def test_flows_panel_says_what_each_waits_for_with_names(seeded: Seeded) -> None:
    html = client_for(seeded.gm).get(panel_url("flows", seeded.campaign)).content.decode()
    assert "tirada de dolor" in html and "La Máster" in html  # waits for the GM, named
    assert "reparto sellado" in html and "Ana Nieve, Bruno Gris" in html
    assert "difficulty 4" in html  # the GM sees the flow's secret state
    assert "kind-old" not in html  # settled: not pending
    assert html.count('class="flow ') == 2  # the settled flow is not pending
    assert 'data-live-on="flow.changed' in html


def test_characters_and_join_requests_panels(seeded: Seeded) -> None:
    client = client_for(seeded.gm)
    html = client.get(panel_url("characters", seeded.campaign)).content.decode()
    assert "Pendiente" in html and "Alba" not in html
    assert reverse("characters:approve", args=[seeded.pending.pk]) in html
    assert reverse("characters:return", args=[seeded.pending.pk]) in html
    html = client.get(panel_url("requests", seeded.campaign)).content.decode()
    assert "Quiere Jugar" in html and "¡Déjame entrar!" in html
    assert reverse("campaigns:request_decide", args=[seeded.campaign.pk, seeded.request.pk]) in html
    # The buttons work from here: approving empties the panel.
    client.post(reverse("characters:approve", args=[seeded.pending.pk]), HTTP_HX_REQUEST="true")
    assert "Ningún personaje espera" in client.get(panel_url("characters", seeded.campaign)).content.decode()


def test_secret_rolls_only_unrevealed_and_only_for_gms(seeded: Seeded) -> None:
    html = client_for(seeded.gm).get(panel_url("secret_rolls", seeded.campaign)).content.decode()
    roll = seeded.secret_post.rolls.get()
    assert "Emboscada" in html and "Ya revelada" not in html
    assert reverse("rolls:reveal", args=[roll.pk]) in html
    for user in (seeded.ana, seeded.reader):
        assert "Emboscada" not in client_for(user).get(DASHBOARD).content.decode()
        assert client_for(user).get(panel_url("secret_rolls", seeded.campaign)).status_code == 403


def test_aspects_of_open_scenes_editable_in_place(seeded: Seeded) -> None:
    html = client_for(seeded.gm).get(panel_url("aspects", seeded.campaign)).content.decode()
    assert "Niebla espesa" in html and "2 invocaciones gratuitas" in html
    assert "Aspecto de escena cerrada" not in html
    assert reverse("campaigns:aspect_invocations", args=[seeded.scene.pk, seeded.aspect.pk]) in html
    assert "data-dash-scope" in html


def test_npcs_and_pools_panels(seeded: Seeded) -> None:
    client = client_for(seeded.gm)
    html = client.get(panel_url("npcs", seeded.campaign)).content.decode()
    assert "Villano" in html and "<details" in html
    assert reverse("characters:sheet", args=[seeded.npc.pk]) in html
    assert f"tintero:sheet-changed-{seeded.npc.pk}" in html
    html = client.get(panel_url("pools", seeded.campaign)).content.decode()
    assert "no lleva reservas" in html  # the generic ruleset has no campaign pools


def test_fate_accelerated_pools_and_npc_controls() -> None:
    from rulesets.fate_accelerated.tests.sheet_fixtures import build_fae

    t = build_fae(rules_settings={"gm_fate_point_pool": True})
    client = client_for(t.gm)
    html = client.get(DASHBOARD).content.decode()
    assert reverse("characters:operate_campaign", args=[t.campaign.pk, "gm_pool_gain"]) in html
    assert f'hx-get="{reverse("characters:pools", args=[t.campaign.pk])}"' in html
    assert "tintero:pools-changed from:body" in html
    assert "Bruno" in html  # the NPC's sheet, with the GM's controls
    assert reverse("characters:operate", args=[t.bruno.pk, "absorb_hit"]) in html or (
        f"/characters/{t.bruno.pk}/operations/" in html
    )


def test_the_full_page_has_every_panel_and_live_roots(seeded: Seeded) -> None:
    html = client_for(seeded.gm).get(DASHBOARD).content.decode()
    cid = seeded.campaign.pk
    for panel in selectors.PANELS:
        assert f'id="dash-{panel}-{cid}"' in html
    assert f'data-live-campaign="{cid}"' in html
    assert reverse("api:campaign-events", args=[cid]) in html


# --- API -------------------------------------------------------------------------------------------


def test_api_returns_the_same_panels(seeded: Seeded) -> None:
    make_campaign(make_user("otra"), "Ajena")
    body = client_for(seeded.gm).get(API).json()
    assert body["count"] == 1
    item = body["results"][0]
    assert item["campaign"]["title"] == "La Sombra"
    assert [(o["user"]["username"], o["scene"]["title"], o["days"]) for o in item["owed_posts"]] == [
        ("bruno", "Puerto", None),
        ("ana", "Aparte", 9),
        ("ana", "Puerto", 3),
    ]
    waiting = {f["kind"]: f["waiting"] for f in item["flows"]}
    assert waiting["conflict"]["label"] == "tirada de dolor" and waiting["conflict"]["names"] == ["La Máster"]
    assert waiting["desafio"]["names"] == ["Ana Nieve", "Bruno Gris"]
    assert [c["name"] for c in item["pending_characters"]] == ["Pendiente"]
    assert [r["user"]["username"] for r in item["join_requests"]] == ["pide"]
    assert [n["name"] for n in item["npcs"]] == ["Villano"]
    assert [r["label"] for r in item["secret_rolls"]] == ["Emboscada"]
    assert [(a["scene"]["title"], [x["text"] for x in a["aspects"]]) for a in item["aspects"]] == [
        ("Puerto", ["Niebla espesa"]),
        ("Aparte", []),
    ]
    assert "pools" in item["pools"]


# --- Query counts ----------------------------------------------------------------------------------


def _queries(client: Client, url: str) -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    return len(ctx.captured_queries)


def test_query_count_is_the_same_for_2_and_10_campaigns() -> None:
    gm = make_user("master", "La Máster")
    tables = [Seeded(gm, f"Partida {i}", prefix=f"c{i}_") for i in range(2)]
    client = client_for(gm)
    few = {url: _queries(client, url) for url in (DASHBOARD, API)}
    few_panels = {p: _queries(client, panel_url(p, tables[0].campaign)) for p in selectors.PANELS}
    for i in range(2, 10):
        table = Seeded(gm, f"Partida {i}", prefix=f"c{i}_")
        bulk_posts(table.scene, table.ana, 5)
        Flow.objects.create(
            campaign=table.campaign, scene=table.scene, kind="x", opened_by=gm, waiting_for={"step": "a", "who": "gm"}
        )
    assert Campaign.objects.count() == 10
    many = {url: _queries(client, url) for url in (DASHBOARD, API)}
    assert many == few
    many_panels = {p: _queries(client, panel_url(p, tables[0].campaign)) for p in selectors.PANELS}
    assert many_panels == few_panels


def test_selectors_have_constant_queries() -> None:
    gm = make_user("master", "La Máster")
    Seeded(gm, "Una", prefix="a_")

    def count() -> int:
        campaigns = selectors.gm_campaigns(gm)
        with CaptureQueriesContext(connection) as ctx:
            selectors.dashboard(gm, campaigns)
        return len(ctx.captured_queries)

    one = count()
    for i in range(4):
        Seeded(gm, f"Más {i}", prefix=f"m{i}_")
    assert count() == one
    assert Character.objects.filter(is_npc=True).count() == 5


def test_a_post_written_today_reads_today(seeded: Seeded) -> None:
    from campaigns import services as campaign_services

    scene = seeded.campaign.scenes.exclude(is_offtopic=True).filter(status="open").first()
    assert scene is not None
    readers = list(scene.readers.values_list("id", flat=True))
    writers = list(scene.writers.values_list("id", flat=True))
    author = next(
        m.user
        for m in seeded.campaign.memberships.select_related("user").filter(role="player")
        if policy.may_write_scene(policy.viewer_for(m.user, seeded.campaign), scene, readers, writers)
    )
    campaign_services.create_post(author=author, scene=scene, body="Aquí estoy.")
    html = client_for(seeded.gm).get(panel_url("owed", seeded.campaign)).content.decode()
    assert 'data-days="0"' in html and ">hoy<" in html
