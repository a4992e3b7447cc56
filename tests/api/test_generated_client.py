"""Proof by a real client: a Python client generated from the served OpenAPI document with
openapi-python-client plays a scene using nothing but that client.

The client is generated once per session into a temporary folder and talks to the WSGI app in-process
(httpx's WSGI transport). It gets tokens, creates a campaign of each game, a scene, a character that is
submitted and approved, a post with a roll, and takes one procedure of each game to its end, choosing each
step from what the flow says it waits for; a refused step parses as the generated ``Error``. Marked
``generated_client``: its work is bounded (one scene per game, at most MAX_STEPS steps per procedure).
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import pytest
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from django.test import Client as DjangoClient

from accounts.models import User
from rulesets.dont_rest_your_head.tests.sheet_fixtures import valid_sheet as dryh_sheet
from rulesets.event.tests.sheet_fixtures import RULES as EVENT_RULES
from rulesets.event.tests.sheet_fixtures import valid_sheet as event_sheet
from rulesets.fate_accelerated.tests.sheet_fixtures import ana_sheet
from rulesets.fate_sotc.tests.sheet_fixtures import sheet_data as sotc_sheet
from rulesets.presagios.tests.fixtures import pc_sheet
from tests.personas import PASSWORD, make_user

pytestmark = [pytest.mark.django_db, pytest.mark.generated_client]

MAX_STEPS = 12
PACKAGE = "tintero_client"


@pytest.fixture(scope="session")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The client package generated from ``/api/schema/``, importable for the session."""
    served = DjangoClient().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert served.status_code == 200
    root = tmp_path_factory.mktemp("generated_client")
    (root / "schema.json").write_bytes(served.content)
    (root / "config.yaml").write_text("post_hooks: []\n")  # no formatter run: the code is imported, not read
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "openapi_python_client",
            "generate",
            "--path",
            str(root / "schema.json"),
            "--output-path",
            str(root / "pkg" / PACKAGE),
            "--meta",
            "none",
            "--config",
            str(root / "config.yaml"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Warning" not in result.stdout, result.stdout  # nothing of the document was skipped
    sys.path.insert(0, str(root / "pkg"))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(root / "pkg"))
        for name in [name for name in sys.modules if name.split(".")[0] == PACKAGE]:
            del sys.modules[name]


@pytest.fixture
def served() -> dict[str, Any]:
    """The document as served (before ``wsgi``: Django's test client reconnects the signals it leaves)."""
    response = DjangoClient().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    document: dict[str, Any] = json.loads(response.content)
    return document


@pytest.fixture
def wsgi(served: dict[str, Any]) -> Iterator[Any]:
    # As Django's test client does: the WSGI handler would close the test transaction's connection.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield get_wsgi_application()
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


@dataclass
class Api:
    """The generated package, its endpoint modules by name, and one authenticated client per user."""

    package: ModuleType
    app: Any
    document: dict[str, Any]

    def module(self, tag: str, operation: str) -> Any:
        return importlib.import_module(f"{PACKAGE}.api.{tag}.{operation}")

    def model(self, name: str) -> Any:
        return getattr(importlib.import_module(f"{PACKAGE}.models"), name)

    def anonymous(self) -> Any:
        import httpx

        return self.package.Client(
            base_url="http://testserver", httpx_args={"transport": httpx.WSGITransport(app=self.app)}
        )

    def login(self, username: str) -> Any:
        """A client holding the token the API hands out for this username and password."""
        token = self.call(
            self.anonymous(), "auth", "auth_token_create", body=self.model("TokenRequest")(username, PASSWORD)
        )
        import httpx

        return self.package.AuthenticatedClient(
            base_url="http://testserver",
            token=token.token,
            prefix="Token",
            httpx_args={"transport": httpx.WSGITransport(app=self.app)},
        )

    def answer(self, client: Any, tag: str, operation: str, **kwargs: Any) -> Any:
        return self.module(tag, operation).sync_detailed(client=client, **kwargs)

    def call(self, client: Any, tag: str, operation: str, **kwargs: Any) -> Any:
        """The parsed answer of a successful call (the test fails on an error, showing it)."""
        response = self.answer(client, tag, operation, **kwargs)
        assert 200 <= int(response.status_code) < 300, (operation, response.status_code, response.content[:500])
        return response.parsed

    def flow_schema(self, procedure: str) -> dict[str, Any]:
        ref = self.document["components"]["schemas"]["Flow"]["discriminator"]["mapping"][procedure]
        schema: dict[str, Any] = self.document["components"]["schemas"][ref.rsplit("/", 1)[1]]
        return schema


@pytest.fixture
def api(generated: ModuleType, served: dict[str, Any], wsgi: Any) -> Api:
    return Api(generated, wsgi, served)


@dataclass(frozen=True)
class Game:
    ruleset: str
    sheet: Callable[[], dict[str, Any]]
    procedure: str
    opening: Callable[[int], dict[str, Any]]
    # Params for the steps the loop takes, by step key (others take none).
    params: dict[str, dict[str, Any]]
    rules_settings: dict[str, Any] | None = None
    gm_opens: bool = False
    finish: str | None = None


GAMES = [
    Game(
        "fate-sotc", sotc_sheet, "declaration", lambda c: {"character": c, "text": "Hay un túnel bajo el muelle."}, {}
    ),
    Game(
        "fate-accelerated", ana_sheet, "concession", lambda c: {"character": c, "terms": "Huyo y pierdo el mapa."}, {}
    ),
    Game(
        "event",
        event_sheet,
        "reaction",
        lambda c: {"character": c, "session": 1, "text": "Si me traicionan, me adelanto."},
        {"reveal": {"text": ""}, "value": {"value": 1}},
        rules_settings={**EVENT_RULES, "optional": {**EVENT_RULES["optional"], "reactions": {"enabled": True}}},
        finish="expire",
    ),
    Game(
        "presagios",
        pc_sheet,
        "challenge",
        lambda c: {"character_id": c, "characteristic": "c1", "difficulty": 3},
        {"roll": {}, "judge_traits": {"accepted": []}, "damage": {"protect": False}},
        gm_opens=True,
    ),
    Game(
        "dont-rest-your-head",
        dryh_sheet,
        "conflict",
        lambda c: {"leader": c, "pain": 2},
        {"choose": {"benefit": "nothing"}},
        gm_opens=True,
    ),
]


def _take_steps(api: Api, clients: dict[str, Any], users: dict[str, User], flow: Any, game: Game) -> Any:
    """Take the steps the flow waits for, as whoever it waits for, until it closes."""
    step_params = api.flow_schema(flow.procedure)["x-step-params"]
    for _ in range(MAX_STEPS):
        if flow.status.value != "open":
            return flow
        awaited = flow.waiting_for.steps if isinstance(flow.waiting_for.steps, list) else []
        if awaited:
            step = awaited[0].step.value
            who = "gm" if awaited[0].gm else next(name for name, user in users.items() if user.pk in awaited[0].users)
        else:  # nothing awaited: the optional step that ends it (an unused reaction expires)
            assert game.finish is not None, flow.actions
            step, who = game.finish, "gm"
        params = api.model(step_params[step].rsplit("/", 1)[1]).from_dict(game.params.get(step, {}))
        body = api.model("FlowStepRequest")(step=step, params=params, idempotency_key=str(uuid.uuid4()))
        flow = api.call(clients[who], "flows", "flows_steps_create", flow_id=flow.id, body=body)
    raise AssertionError(f"{flow.procedure} still open after {MAX_STEPS} steps: {flow.waiting_for}")


@pytest.mark.parametrize("game", GAMES, ids=[game.ruleset for game in GAMES])
def test_a_generated_client_plays_a_scene(api: Api, game: Game) -> None:
    users = {"gm": make_user("gc_gm"), "player": make_user("gc_player")}
    clients = {name: api.login(user.username) for name, user in users.items()}
    m = api.model
    gm, player = clients["gm"], clients["player"]

    campaign_request = m("CampaignCreateRequest")(title="Crónica generada", ruleset=m("RulesetEnum")(game.ruleset))
    if game.rules_settings is not None:
        campaign_request.rules_settings = game.rules_settings
    campaign = api.call(gm, "campaigns", "campaigns_create", body=campaign_request)
    invitation = api.call(
        gm,
        "campaigns",
        "campaigns_invitations_create",
        campaign_id=campaign.id,
        body=m("InvitationRequest")(username="gc_player"),
    )
    api.call(player, "invitations", "invitations_accept_create", invitation_id=invitation.id)
    scene = api.call(
        gm, "campaigns", "campaigns_scenes_create", campaign_id=campaign.id, body=m("SceneCreateRequest")("El muelle")
    )

    draft = m("CharacterCreateInRequest")(name="Lucía")
    draft.sheet = game.sheet()
    character = api.call(player, "campaigns", "campaigns_characters_create", campaign_id=campaign.id, body=draft)
    api.call(player, "characters", "characters_submit_create", character_id=character.id)
    approved = api.call(gm, "characters", "characters_approve_create", character_id=character.id)
    assert approved.status.value == "approved"

    roll = m("RollSpecRequest")(kind="notation", data=m("RollSpecRequestData").from_dict({"expression": "2d6+1"}))
    post = api.call(
        player,
        "scenes",
        "scenes_posts_create",
        scene_id=scene.id,
        body=m("PostCreateRequest")(body="Salto al agua & <nado>.", rolls=[roll]),
    )
    assert post.body_html and "&amp;" in post.body_html
    rolls = api.call(player, "posts", "posts_rolls_list", post_id=post.id)
    dice = [die.face for pool in rolls.results[0].faces for die in pool.dice]
    assert rolls.count == 1 and len(dice) == 2 and all(1 <= face <= 6 for face in dice)

    opening_name = api.flow_schema(f"{game.ruleset}:{game.procedure}")["x-open-params"].rsplit("/", 1)[1]
    start = m("FlowStartRequest")(kind=game.procedure, params=m(opening_name).from_dict(game.opening(character.id)))
    opener = gm if game.gm_opens else player
    flow = api.call(opener, "scenes", "scenes_flows_create", scene_id=scene.id, body=start)
    assert flow.procedure == f"{game.ruleset}:{game.procedure}"
    assert type(flow).__name__.endswith("Flow") and type(flow).__name__ != "Flow"  # the procedure's own type
    refused = api.answer(
        player,
        "flows",
        "flows_steps_create",
        flow_id=flow.id,
        body=m("FlowStepRequest")(step="no_such_step", params=m("NoParams")(), idempotency_key=str(uuid.uuid4())),
    )
    assert int(refused.status_code) == 400
    assert isinstance(refused.parsed, m("Error")) and refused.parsed.error.code == "step_not_available"

    done = _take_steps(api, clients, users, flow, game)
    assert done.status.value in ("settled", "cancelled") and done.status.value == "settled"
    assert done.record  # the procedure's record in words
    again = api.call(gm, "flows", "flows_retrieve", flow_id=done.id)
    assert type(again) is type(done) and again.status.value == "settled"
