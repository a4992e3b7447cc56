"""FATE SotC: every operation through ``apply_operation`` on the database, with its ledger entry and refusals."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from characters import services
from characters.models import Character, CharacterStatus, LedgerEntry
from rulesets import registry
from rulesets.fate_sotc.tests.sheet_fixtures import (
    RULESET,
    SotcTable,
    build_sotc_table,
    op,
    pools,
    snapshot,
)
from systems.errors import RulesError
from systems.fate_sotc import RULESET as RULES

pytestmark = pytest.mark.django_db


@pytest.fixture
def sotc(db: None) -> SotcTable:
    return build_sotc_table()


def _set_sheet(character: Character, **changes: Any) -> None:
    """Test setup only: put the stored sheet in a given state (play would get there through the ledger)."""
    character.refresh_from_db()
    Character.objects.filter(pk=character.pk).update(sheet={**character.sheet, **changes})
    character.refresh_from_db()


def _refused(table: SotcTable, actor: Any, character: Character, operation: str, code: str, **params: Any) -> None:
    before = snapshot(character)
    with pytest.raises(RulesError) as info:
        op(table, actor, character, operation, **params)
    assert info.value.code == code
    assert info.value.message_es and info.value.message_en
    assert snapshot(character) == before


def _key(character: Character, pool: str) -> str:
    return f"character.{character.pk}.{pool}"


def test_every_registry_operation_is_mapped() -> None:
    """No operation of the ruleset is left without a who and a target."""
    binding = registry.plugin(RULESET).sheet
    for operation in RULES.operations:
        assert binding.who_may(operation) in ({"gm"}, {"gm", "owner"})
        assert binding.targets(operation, None, 7)  # type: ignore[arg-type]  # an operation without params.character_ids == (7,)


# --- Fate points ----------------------------------------------------------------------------------

# (operation, who applies it, params, fate point delta, pending delta)
FP_OPERATIONS: list[tuple[str, str, dict[str, Any], int, int]] = [
    ("fp_advantage", "player", {}, -1, 0),
    ("refuse_gm_gift", "player", {}, -1, 0),
    ("avoid_maneuver_aspect", "player", {}, -1, 0),
    ("guess", "player", {}, -1, 0),
    ("compel_buy_off", "player", {"amount": 2}, -2, 0),
    ("invoke_own", "gm", {"gm_approved": True}, -1, 0),
    ("invoke_other", "gm", {"gm_approved": True}, -1, 0),
    ("invoke_effect_own", "gm", {"gm_approved": True}, -1, 0),
    ("invoke_effect_other", "gm", {"gm_approved": True}, -1, 0),
    ("declaration", "gm", {"gm_approved": True}, -1, 0),
    ("use_environment", "gm", {"gm_approved": True}, -1, 0),
    ("compel_accepted", "gm", {"amount": 2}, 2, 0),
    ("offscreen_compel", "gm", {}, 1, 0),
    ("accidental_compel", "gm", {}, 1, 0),
    ("gm_foreshadow_gift", "gm", {}, 1, 0),
    ("concession_reward", "gm", {}, 1, 0),
    ("guess_refund", "gm", {}, 1, 0),
    ("deceiver_returns_point", "gm", {}, 1, 0),
    ("concession_refused_penalty", "gm", {}, -1, 0),
    ("gm_blind_guess_charge", "gm", {"amount": 3}, -3, 0),
    ("tag_compensation", "gm", {}, 0, 1),
]


@pytest.mark.parametrize(
    ("operation", "who", "params", "delta", "pending"), FP_OPERATIONS, ids=[o[0] for o in FP_OPERATIONS]
)
def test_fate_point_operations(
    sotc: SotcTable, operation: str, who: str, params: dict[str, Any], delta: int, pending: int
) -> None:
    actor = sotc.player if who == "player" else sotc.gm
    before_sheet, count = snapshot(sotc.hero)
    entry = op(sotc, actor, sotc.hero, operation, reason="Escena del zepelín", **params)
    sotc.hero.refresh_from_db()
    assert sotc.hero.sheet["fate_points"] == 10 + delta
    assert sotc.hero.sheet["fate_points_pending"] == pending
    assert LedgerEntry.objects.count() == count + 1
    assert entry.operation == operation
    assert entry.actor == actor and entry.reason == "Escena del zepelín" and entry.character == sotc.hero
    assert entry.before["characters"][str(sotc.hero.pk)] == before_sheet
    assert entry.after["characters"][str(sotc.hero.pk)] == sotc.hero.sheet
    assert entry.before["campaign"] is None and entry.after["campaign"] is None
    expected = {}
    if delta:
        expected[_key(sotc.hero, "fate_points")] = [10, 10 + delta]
    if pending:
        expected[_key(sotc.hero, "fate_points_pending")] = [0, pending]
    assert entry.changes == expected


def test_spending_without_points_is_refused(sotc: SotcTable) -> None:
    _set_sheet(sotc.hero, fate_points=0)
    for operation in ("fp_advantage", "guess", "refuse_gm_gift", "avoid_maneuver_aspect"):
        _refused(sotc, sotc.player, sotc.hero, operation, "insufficient_fate_points")
    _refused(sotc, sotc.gm, sotc.hero, "declaration", "insufficient_fate_points", gm_approved=True)
    _refused(sotc, sotc.player, sotc.hero, "stunt_activation", "insufficient_fate_points", stunt_index=1)


def test_penalties_never_go_below_zero(sotc: SotcTable) -> None:
    _set_sheet(sotc.hero, fate_points=1)
    entry = op(sotc, sotc.gm, sotc.hero, "gm_blind_guess_charge", amount=3)
    assert entry.changes == {_key(sotc.hero, "fate_points"): [1, 0]}
    entry = op(sotc, sotc.gm, sotc.hero, "concession_refused_penalty")
    assert entry.changes == {}  # already at zero: nothing to take (vector 112)


def test_invocations_need_the_gms_approval(sotc: SotcTable) -> None:
    for operation in ("invoke_own", "invoke_other", "declaration", "use_environment"):
        _refused(sotc, sotc.gm, sotc.hero, operation, "gm_approval_required")


def test_a_player_cannot_approve_their_own_invocation(sotc: SotcTable) -> None:
    before = snapshot(sotc.hero)
    with pytest.raises(PermissionDenied):
        op(sotc, sotc.player, sotc.hero, "invoke_own", gm_approved=True)
    assert snapshot(sotc.hero) == before


def test_fp_advantage_can_be_disabled(sotc: SotcTable) -> None:
    sotc.campaign.rules_settings = {**sotc.campaign.rules_settings, "allow_fp_advantage": False}
    sotc.campaign.save()
    _refused(sotc, sotc.player, sotc.hero, "fp_advantage", "fp_advantage_disabled")


def test_a_compel_cannot_be_bought_off_without_the_stake(sotc: SotcTable) -> None:
    _set_sheet(sotc.hero, fate_points=1)
    _refused(sotc, sotc.player, sotc.hero, "compel_buy_off", "compel_not_refusable", amount=2)


def test_stunt_activation(sotc: SotcTable) -> None:
    entry = op(sotc, sotc.player, sotc.hero, "stunt_activation", stunt_index=1)  # "Tiro imposible", 1 PD
    assert entry.changes == {_key(sotc.hero, "fate_points"): [10, 9]}
    entry = op(sotc, sotc.player, sotc.hero, "stunt_activation", stunt_index=0)  # free
    assert entry.changes == {}
    _refused(sotc, sotc.player, sotc.hero, "stunt_activation", "invalid_value", stunt_index=9)


def test_refresh_tops_up_and_keeps_a_surplus(sotc: SotcTable) -> None:
    _set_sheet(sotc.hero, fate_points=3)
    entry = op(sotc, sotc.gm, sotc.hero, "refresh")
    assert entry.changes == {_key(sotc.hero, "fate_points"): [3, 10]}
    _set_sheet(sotc.hero, fate_points=12)
    entry = op(sotc, sotc.gm, sotc.hero, "refresh")
    assert entry.changes == {}  # vector 121: surplus kept


def test_pending_points_are_released(sotc: SotcTable) -> None:
    op(sotc, sotc.gm, sotc.hero, "tag_compensation")
    entry = op(sotc, sotc.gm, sotc.hero, "release_pending")
    assert entry.changes == {_key(sotc.hero, "fate_points"): [10, 11], _key(sotc.hero, "fate_points_pending"): [1, 0]}


def test_start_session_refreshes_unless_withheld(sotc: SotcTable) -> None:
    _set_sheet(sotc.hero, fate_points=2)
    op(sotc, sotc.gm, sotc.hero, "start_session", refresh=False)
    assert pools(sotc.hero)[_key(sotc.hero, "fate_points")] == 2  # vector 123
    op(sotc, sotc.gm, sotc.hero, "start_session")
    assert pools(sotc.hero)[_key(sotc.hero, "fate_points")] == 10


# --- Stress, consequences, defeat -----------------------------------------------------------------


def test_the_full_hit_sequence_of_vector_108(sotc: SotcTable) -> None:
    jet = sotc.rival  # 5-box tracks
    hits: list[tuple[int, str | None]] = [
        (3, None),
        (3, None),
        (3, None),
        (3, "Costillas rotas"),
        (4, "Conmoción"),
        (2, None),
        (5, "Pierna destrozada"),
        (1, None),
        (1, None),
    ]
    for hit, text in hits:
        params: dict[str, Any] = {"track": "health", "hit": hit}
        if text:
            params["consequence_text"] = text
        op(sotc, sotc.player2, jet, "take_hit", **params)
    jet.refresh_from_db()
    assert jet.sheet["stress"]["health"] == [True] * 5
    assert [c["severity"] for c in jet.sheet["consequences"]] == ["leve", "moderada", "severa"]
    assert jet.sheet["status"] == "taken_out"


def test_take_hit_ledger_and_refusals(sotc: SotcTable) -> None:
    entry = op(sotc, sotc.player, sotc.hero, "take_hit", reason="Puñetazo del matón", track="composure", hit=2)
    assert entry.changes == {_key(sotc.hero, "composure"): [0, 1]}
    assert entry.after["characters"][str(sotc.hero.pk)]["stress"]["composure"][1] is True
    # A hit past the last box needs a consequence, and its text.
    _refused(sotc, sotc.player, sotc.hero, "take_hit", "consequence_required", track="health", hit=8)
    entry = op(sotc, sotc.player, sotc.hero, "take_hit", track="health", hit=8, consequence_text="Brazo roto")
    assert entry.changes == {_key(sotc.hero, "consequences"): [0, 1]}
    # A voluntary consequence is impossible with a severe one held (vector 103).
    _set_sheet(sotc.hero, consequences=[{"severity": "severa", "track": "health", "text": "Coma"}])
    _refused(
        sotc,
        sotc.player,
        sotc.hero,
        "take_hit",
        "consequence_slots_full",
        track="health",
        hit=2,
        choose_consequence=True,
    )


def test_consequences_recover(sotc: SotcTable) -> None:
    for text in ("Ojo morado", "Tobillo torcido", "Fiebre"):
        op(
            sotc,
            sotc.player,
            sotc.hero,
            "take_hit",
            track="health",
            hit=2,
            choose_consequence=True,
            consequence_text=text,
        )
    op(sotc, sotc.player, sotc.hero, "take_hit", track="health", hit=2)
    entry = op(sotc, sotc.gm, sotc.hero, "close_scene")
    assert entry.changes == {_key(sotc.hero, "consequences"): [3, 2], _key(sotc.hero, "health"): [1, 0]}
    op(sotc, sotc.gm, sotc.hero, "record_rest", hours=5, suitable=True)
    assert pools(sotc.hero)[_key(sotc.hero, "consequences")] == 2  # 5 h is not enough
    op(sotc, sotc.gm, sotc.hero, "record_rest", hours=8, suitable=True)
    assert pools(sotc.hero)[_key(sotc.hero, "consequences")] == 1
    op(sotc, sotc.gm, sotc.hero, "new_adventure")
    assert pools(sotc.hero)[_key(sotc.hero, "consequences")] == 0


def test_close_scene_without_breather_keeps_everything(sotc: SotcTable) -> None:
    op(sotc, sotc.player, sotc.hero, "take_hit", track="health", hit=1)
    op(
        sotc,
        sotc.player,
        sotc.hero,
        "take_hit",
        track="health",
        hit=1,
        choose_consequence=True,
        consequence_text="Corte",
    )
    entry = op(sotc, sotc.gm, sotc.hero, "close_scene", no_breather=True)
    assert entry.changes == {}


def test_back_to_back_session_steps_consequences_down(sotc: SotcTable) -> None:
    op(
        sotc,
        sotc.player,
        sotc.hero,
        "take_hit",
        track="health",
        hit=1,
        choose_consequence=True,
        consequence_text="Corte",
    )
    op(
        sotc,
        sotc.player,
        sotc.hero,
        "take_hit",
        track="health",
        hit=1,
        choose_consequence=True,
        consequence_text="Esguince",
    )
    op(sotc, sotc.gm, sotc.hero, "start_session", back_to_back=True)
    sotc.hero.refresh_from_db()
    assert [(c["severity"], c["duration_grade"]) for c in sotc.hero.sheet["consequences"]] == [("moderada", "leve")]


def test_clear_stress_and_remove_consequence(sotc: SotcTable) -> None:
    op(sotc, sotc.player, sotc.hero, "take_hit", track="health", hit=1)
    op(sotc, sotc.player, sotc.hero, "take_hit", track="composure", hit=1)
    entry = op(sotc, sotc.gm, sotc.hero, "clear_stress", track="health")
    assert entry.changes == {_key(sotc.hero, "health"): [1, 0]}
    _refused(sotc, sotc.gm, sotc.hero, "remove_consequence", "no_such_consequence", severity="leve")
    op(
        sotc,
        sotc.player,
        sotc.hero,
        "take_hit",
        track="health",
        hit=1,
        choose_consequence=True,
        consequence_text="Corte",
    )
    entry = op(sotc, sotc.gm, sotc.hero, "remove_consequence", severity="leve", reason="Ciencia")
    assert entry.changes == {_key(sotc.hero, "consequences"): [1, 0]}


def test_demanding_another_defeat(sotc: SotcTable) -> None:
    _refused(sotc, sotc.player, sotc.hero, "defeat_outcome_demand", "not_taken_out")
    op(sotc, sotc.gm, sotc.hero, "set_status", status="taken_out")
    entry = op(sotc, sotc.player, sotc.hero, "defeat_outcome_demand")
    assert entry.changes == {_key(sotc.hero, "fate_points"): [10, 0]}
    _refused(sotc, sotc.player, sotc.hero, "defeat_outcome_demand", "insufficient_fate_points")


# --- Aspects and skills ---------------------------------------------------------------------------


def test_temporary_aspects(sotc: SotcTable) -> None:
    aspect = {"id": "cegado-1", "text": "Cegado", "origin": "maneuver", "persistence": "fragile"}
    op(sotc, sotc.gm, sotc.hero, "add_temporary_aspect", aspect=aspect)
    sotc.hero.refresh_from_db()
    stored = sotc.hero.sheet["temporary_aspects"][0]
    assert stored["text"] == "Cegado" and stored["holder_id"] == str(sotc.hero.pk)
    _refused(sotc, sotc.gm, sotc.hero, "add_temporary_aspect", "aspect_id_taken", aspect=aspect)
    op(sotc, sotc.gm, sotc.hero, "remove_temporary_aspect", aspect_id="cegado-1")
    _refused(sotc, sotc.gm, sotc.hero, "remove_temporary_aspect", "unknown_aspect", aspect_id="cegado-1")


def test_set_skill_resizes_the_track(sotc: SotcTable) -> None:
    op(sotc, sotc.player, sotc.hero, "take_hit", track="health", hit=7)
    entry = op(sotc, sotc.gm, sotc.hero, "set_skill", skill="endurance", rating=0, reason="Herida mal curada")
    sotc.hero.refresh_from_db()
    assert len(sotc.hero.sheet["stress"]["health"]) == 5  # the mark in box 7 went with the box (§2.7)
    assert entry.changes == {_key(sotc.hero, "health"): [1, 0]}
    _refused(sotc, sotc.gm, sotc.hero, "set_skill", "invalid_value", skill="guns", rating=-1)


def test_an_npc_through_the_ledger(sotc: SotcTable) -> None:
    entry = op(sotc, sotc.gm, sotc.npc, "fp_advantage")
    assert entry.changes == {_key(sotc.npc, "fate_points"): [3, 2]}


# --- Who may ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("operation", "params"),
    [
        ("refresh", {}),
        ("compel_accepted", {"amount": 3}),
        ("gm_foreshadow_gift", {}),
        ("set_skill", {"skill": "guns", "rating": 8}),
        ("clear_stress", {}),
        ("set_status", {"status": "active"}),
        ("remove_consequence", {"severity": "leve"}),
    ],
)
def test_a_player_cannot_apply_gm_operations(sotc: SotcTable, operation: str, params: dict[str, Any]) -> None:
    before = snapshot(sotc.hero)
    with pytest.raises(PermissionDenied):
        op(sotc, sotc.player, sotc.hero, operation, **params)
    assert snapshot(sotc.hero) == before


@pytest.mark.parametrize("who", ["player", "reader", "outsider"])
def test_nobody_but_the_owner_marks_a_sheet(sotc: SotcTable, who: str) -> None:
    actor = getattr(sotc, who)
    before = snapshot(sotc.rival)
    with pytest.raises(PermissionDenied):
        op(sotc, actor, sotc.rival, "fp_advantage")
    with pytest.raises(PermissionDenied):
        op(sotc, actor, sotc.npc, "take_hit", track="health", hit=1)
    assert snapshot(sotc.rival) == before


def test_an_unapproved_character_is_refused(sotc: SotcTable) -> None:
    draft = services.create_character(actor=sotc.player, campaign=sotc.campaign, name="Borrador", sheet={})
    count = LedgerEntry.objects.count()
    with pytest.raises(ValidationError):
        op(sotc, sotc.gm, draft, "gm_foreshadow_gift")
    with pytest.raises(PermissionDenied):  # its owner may not operate it before approval either
        op(sotc, sotc.player, draft, "fp_advantage")
    assert LedgerEntry.objects.count() == count
    assert Character.objects.get(pk=draft.pk).status == CharacterStatus.DRAFT


def test_malformed_params_are_a_validation_error(sotc: SotcTable) -> None:
    before = snapshot(sotc.hero)
    with pytest.raises(ValidationError):
        op(sotc, sotc.player, sotc.hero, "take_hit", track="alma", hit=1)
    with pytest.raises(ValidationError):
        op(sotc, sotc.player, sotc.hero, "fp_advantage", amount=0)
    assert snapshot(sotc.hero) == before


# --- Replay ---------------------------------------------------------------------------------------


def test_the_ledger_replays_to_the_stored_sheet(sotc: SotcTable) -> None:
    hero = sotc.hero
    steps: list[tuple[Any, str, dict[str, Any]]] = [
        (sotc.player, "fp_advantage", {}),
        (sotc.gm, "compel_accepted", {"amount": 2}),
        (sotc.gm, "declaration", {"gm_approved": True}),
        (sotc.player, "take_hit", {"track": "health", "hit": 3}),
        (sotc.player, "take_hit", {"track": "health", "hit": 3}),
        (sotc.player, "take_hit", {"track": "composure", "hit": 6}),
        (sotc.player, "take_hit", {"track": "health", "hit": 9, "consequence_text": "Costilla rota"}),
        (sotc.gm, "tag_compensation", {}),
        (sotc.player, "stunt_activation", {"stunt_index": 1}),
        (sotc.gm, "release_pending", {}),
        (sotc.gm, "close_scene", {}),
        (sotc.player, "guess", {}),
        (sotc.gm, "refresh", {}),
    ]
    for actor, operation, params in steps:
        op(sotc, actor, hero, operation, **params)
    entries = list(LedgerEntry.objects.filter(character=hero).order_by("id"))
    assert [e.operation for e in entries] == [s[1] for s in steps]
    hero.refresh_from_db()
    assert entries[-1].after["characters"][str(hero.pk)] == hero.sheet
    for earlier, later in itertools.pairwise(entries):
        assert earlier.after["characters"] == later.before["characters"]  # no lost update between entries
    binding = registry.plugin(RULESET).sheet
    first = binding.pool_values(None, {hero.pk: entries[0].before["characters"][str(hero.pk)]})
    stored = pools(hero)
    assert set(first) == set(stored)
    for key, start in first.items():
        moved = sum(e.changes[key][1] - e.changes[key][0] for e in entries if key in e.changes)
        assert start + moved == stored[key], key
    assert stored[_key(hero, "fate_points")] == 10  # refresh at the end tops up to 10 aspects
