"""No te Duermas: every operation through ``apply_operation`` on the database, its ledger and its refusals."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from characters import services
from characters.models import Character, LedgerEntry
from rulesets.dont_rest_your_head.sheet import BINDING
from rulesets.dont_rest_your_head.tests.sheet_fixtures import DryhTable, build_dryh_table, valid_sheet
from systems.dont_rest_your_head import RULESET as RULES
from systems.errors import RulesError

CONFLICT_OPS = [op.key for op in RULES.operations if op.key.startswith("conflict_")]


@pytest.fixture
def dryh(db: None) -> DryhTable:
    return build_dryh_table()


def apply(
    dryh: DryhTable,
    operation: str,
    params: dict[str, Any] | None = None,
    character: Character | None = None,
    actor: Any = None,
    reason: str = "",
) -> LedgerEntry:
    return services.apply_operation(
        actor=actor or dryh.gm,
        campaign=dryh.campaign,
        operation=operation,
        params=params,
        character=character,
        reason=reason,
    )


def sheet(character: Character) -> dict[str, Any]:
    return dict(Character.objects.get(pk=character.pk).sheet)


def snapshot(dryh: DryhTable) -> tuple[Any, ...]:
    sheets = dict(Character.objects.filter(campaign=dryh.campaign).values_list("pk", "sheet"))
    return sheets, services.rules_state(dryh.campaign), dryh.ledger_count()


def refused(dryh: DryhTable, code: str, operation: str, params: dict[str, Any] | None = None, **kw: Any) -> RulesError:
    before = snapshot(dryh)
    with pytest.raises(RulesError) as exc:
        apply(dryh, operation, params, **kw)
    assert exc.value.code == code, exc.value.message_es
    assert snapshot(dryh) == before
    return exc.value


# --- the session and the chests -------------------------------------------------------------------


def test_a_new_campaign_has_empty_chests(dryh: DryhTable) -> None:
    assert dryh.chest() == {"despair": 0, "hope": 0, "session_number": 0, "session_open": False}


def test_open_session_starts_the_chests(dryh: DryhTable) -> None:
    dryh.campaign.rules_settings = {"initial_despair_per_session": 2}
    dryh.campaign.save()
    dryh.set_chest(hope=4, despair=1)
    entry = apply(dryh, "open_session", reason="Sesión 1")
    assert dryh.chest() == {"despair": 2, "hope": 0, "session_number": 1, "session_open": True}
    assert entry.operation == "open_session"
    assert entry.actor == dryh.gm
    assert entry.reason == "Sesión 1"
    assert entry.character is None
    assert entry.before["campaign"]["hope"] == 4
    assert entry.after["campaign"] == dryh.chest()
    assert entry.changes == {"campaign.despair": [1, 2], "campaign.hope": [4, 0]}
    refused(dryh, "SESSION_OPEN", "open_session")


def test_close_session_spends_the_shares_and_resets_everything(dryh: DryhTable) -> None:
    scar = {"text": "Mi hija", "created_session": 1, "invoked_this_session": True, "crossed_out": False}
    swap = {"kind": "madness", "replacement": {"name": "Fuego", "description": ""}, "scope": "scene", "scene_id": "s1"}
    alia = dryh.approved(exhaustion=3, fight=1)
    gavin = dryh.approved(dryh.player2, "Gavin", scars=[scar], talent_swaps=[swap])
    apply(dryh, "open_session")
    dryh.set_chest(hope=3, despair=4)
    entry = apply(
        dryh, "close_session", {"spends": {str(alia.pk): ["exhaustion-1", "clear_fight"]}}, reason="Fin de la sesión"
    )
    assert dryh.chest() == {"despair": 0, "hope": 0, "session_number": 1, "session_open": False}
    assert (sheet(alia)["exhaustion"], sheet(alia)["fight"]) == (2, 0)
    assert sheet(gavin)["scars"][0]["invoked_this_session"] is False  # not named in the spends, reset all the same
    assert sheet(gavin)["talent_swaps"] == []
    assert entry.changes == {
        "campaign.despair": [4, 0],
        "campaign.hope": [3, 0],
        f"character.{alia.pk}.exhaustion": [3, 2],
        f"character.{alia.pk}.fight": [1, 0],
    }
    assert set(entry.after["characters"]) == {str(alia.pk), str(gavin.pk)}


def test_close_session_refusals(dryh: DryhTable) -> None:
    alia = dryh.approved(exhaustion=3)
    refused(dryh, "SESSION_CLOSED", "close_session")
    apply(dryh, "open_session")
    dryh.set_chest(hope=1)
    refused(dryh, "NO_HOPE", "close_session", {"spends": {str(alia.pk): ["exhaustion-1", "exhaustion-1"]}})
    refused(dryh, "CONFLICTS_OPEN", "close_session", {"open_conflicts": 1})
    refused(dryh, "NOT_INVOLVED", "close_session", {"spends": {"Alia": ["exhaustion-1"]}})


# --- hope spent on one protagonist --------------------------------------------------------------------


def test_take_a_breather_vector_11(dryh: DryhTable) -> None:
    alia = dryh.approved(exhaustion=5, fight=2)
    dryh.set_chest(hope=3)
    entry = apply(
        dryh,
        "take_breather",
        {"uses": ["exhaustion-1", "exhaustion-1", "clear_fight"]},
        character=alia,
        reason="Un café en la estación",
    )
    assert (sheet(alia)["exhaustion"], sheet(alia)["fight"], sheet(alia)["flight"]) == (3, 1, 0)
    assert dryh.chest()["hope"] == 0
    assert entry.character == alia
    assert entry.params["uses"] == ["exhaustion-1", "exhaustion-1", "clear_fight"]
    assert entry.params["gm_allows"] is False  # what was asked; the GM applying it is the allowance
    assert entry.before["characters"][str(alia.pk)]["exhaustion"] == 5
    assert entry.after["characters"][str(alia.pk)] == sheet(alia)
    assert entry.changes == {
        "campaign.hope": [3, 0],
        f"character.{alia.pk}.exhaustion": [5, 3],
        f"character.{alia.pk}.fight": [2, 1],
    }


def test_a_breather_averts_a_pending_crash(dryh: DryhTable) -> None:
    alia = dryh.approved(exhaustion=7, status="crash_pending")
    dryh.set_chest(hope=1)
    apply(dryh, "take_breather", {"uses": ["exhaustion-1"]}, character=alia)
    assert (sheet(alia)["exhaustion"], sheet(alia)["status"]) == (6, "awake")


def test_breather_refusals(dryh: DryhTable) -> None:
    alia = dryh.approved(exhaustion=1)
    dryh.set_chest(hope=1)
    refused(dryh, "NO_HOPE", "take_breather", {"uses": ["exhaustion-1", "exhaustion-1"]}, character=alia)
    refused(dryh, "NOTHING_TO_CLEAR", "take_breather", {"uses": ["clear_flight"]}, character=alia)
    refused(dryh, "IN_CONFLICT", "take_breather", {"uses": ["exhaustion-1"], "in_conflict": True}, character=alia)
    with pytest.raises(ValidationError):  # at least one use
        apply(dryh, "take_breather", {"uses": []}, character=alia)


def test_recover_discipline_vectors_12_and_65(dryh: DryhTable) -> None:
    gavin = dryh.approved(discipline=2, permanent_madness=1)
    dryh.set_chest(hope=3)
    entry = apply(dryh, "recover_discipline", character=gavin, reason="Horas de calma")
    assert (sheet(gavin)["discipline"], sheet(gavin)["permanent_madness"]) == (3, 0)
    assert dryh.chest()["hope"] == 0
    assert entry.changes[f"character.{gavin.pk}.discipline"] == [2, 3]
    low = dryh.approved(dryh.player2, "Alia", discipline=1, permanent_madness=2)
    dryh.set_chest(hope=4)
    apply(dryh, "recover_discipline", character=low)
    assert (sheet(low)["discipline"], sheet(low)["permanent_madness"], dryh.chest()["hope"]) == (2, 1, 0)


def test_recover_discipline_refusals_vectors_66_67(dryh: DryhTable) -> None:
    gavin = dryh.approved(discipline=2, permanent_madness=1)
    dryh.set_chest(hope=2)
    refused(dryh, "NO_HOPE", "recover_discipline", character=gavin)
    full = dryh.approved(dryh.player2, "Alia")
    dryh.set_chest(hope=5)
    refused(dryh, "NOTHING_TO_RECOVER", "recover_discipline", character=full)
    refused(dryh, "IN_CONFLICT", "recover_discipline", {"in_conflict": True}, character=gavin)


# --- scars --------------------------------------------------------------------------------------------


def test_create_scar_once_per_session_vector_24(dryh: DryhTable) -> None:
    gavin = dryh.approved()
    apply(dryh, "open_session")
    dryh.set_chest(session_number=5)
    entry = apply(
        dryh, "create_scar", {"text": "No pude encontrar a mi hija en el Distrito Trece", "session": 0}, gavin
    )
    scars = sheet(gavin)["scars"]
    assert scars == [
        {
            "text": "No pude encontrar a mi hija en el Distrito Trece",
            "created_session": 5,  # the campaign's session, whatever the request said
            "invoked_this_session": False,
            "crossed_out": False,
        }
    ]
    assert sheet(gavin)["scar_created_session"] == 5
    assert entry.changes == {}  # no number moved; before/after hold the change
    assert entry.before["characters"][str(gavin.pk)]["scars"] == []
    refused(dryh, "SCAR_LIMIT", "create_scar", {"text": "Otra", "session": 5}, character=gavin)
    dryh.set_chest(session_number=6)
    apply(dryh, "create_scar", {"text": "Otra", "session": 6}, gavin)
    assert len(sheet(gavin)["scars"]) == 2


def test_transform_scar_to_avoid_a_crash_vector_17(dryh: DryhTable) -> None:
    scar = {"text": "Mi hija", "created_session": 1, "invoked_this_session": False, "crossed_out": False}
    gavin = dryh.approved(exhaustion=7, status="crash_pending", scars=[scar])
    dryh.set_chest(hope=2)
    benefit = {"kind": "hope_grant", "coins": 5, "uses": ["exhaustion-1"] * 5}
    entry = apply(dryh, "transform_scar", {"scar_index": 0, "benefit": benefit}, gavin)
    after = sheet(gavin)
    assert (after["exhaustion"], after["status"], after["scars"][0]["crossed_out"]) == (2, "awake", True)
    assert dryh.chest()["hope"] == 2  # granted coins never touch the chest
    assert entry.changes == {f"character.{gavin.pk}.exhaustion": [7, 2]}
    refused(dryh, "SCAR_CROSSED_OUT", "transform_scar", {"scar_index": 0, "benefit": benefit}, character=gavin)
    refused(dryh, "SCAR_NOT_FOUND", "transform_scar", {"scar_index": 3, "benefit": benefit}, character=gavin)


def test_transform_scar_refusals_and_swap(dryh: DryhTable) -> None:
    scar = {"text": "Mi hija", "created_session": 1, "invoked_this_session": False, "crossed_out": False}
    gavin = dryh.approved(scars=[scar])
    too_many = {"kind": "hope_grant", "coins": 6, "uses": []}
    refused(dryh, "BAD_GRANT", "transform_scar", {"scar_index": 0, "benefit": too_many}, character=gavin)
    refused(
        dryh,
        "NOTHING_TO_CLEAR",
        "transform_scar",
        {"scar_index": 0, "benefit": {"kind": "hope_grant", "coins": 1, "uses": ["exhaustion-1"]}},
        character=gavin,
    )
    swap = {"kind": "madness", "replacement": {"name": "Fuego", "description": ""}, "scope": "permanent"}
    apply(dryh, "transform_scar", {"scar_index": 0, "benefit": {"kind": "swap_madness_talent", "swap": swap}}, gavin)
    assert sheet(gavin)["talent_swaps"][0]["replacement"]["name"] == "Fuego"


# --- the crash ----------------------------------------------------------------------------------------


def test_the_crash_sleep_wake_and_recovery_vector_21(dryh: DryhTable) -> None:
    alia = dryh.approved(exhaustion=7, status="crash_pending", fight=2, flight=1)
    entry = apply(dryh, "carry_out_crash", character=alia, reason="Se duerme en el metro")
    s = sheet(alia)
    assert (s["status"], s["exhaustion"], s["fight"], s["flight"], s["discipline_restore_to"]) == ("asleep", 0, 0, 0, 3)
    assert entry.changes == {
        f"character.{alia.pk}.exhaustion": [7, 0],
        f"character.{alia.pk}.fight": [2, 0],
        f"character.{alia.pk}.flight": [1, 0],
    }
    refused(dryh, "WRONG_STATUS", "carry_out_crash", character=alia)
    refused(dryh, "WRONG_STATUS", "complete_recovery", character=alia)
    apply(dryh, "wake_up", character=alia)
    assert (sheet(alia)["status"], sheet(alia)["discipline"]) == ("recovering", 1)
    refused(dryh, "WRONG_STATUS", "wake_up", character=alia)
    apply(dryh, "complete_recovery", character=alia)
    s = sheet(alia)
    assert (s["status"], s["discipline"], s["discipline_restore_to"]) == ("awake", 3, None)


def test_crash_disaster_needs_the_players_agreement(dryh: DryhTable) -> None:
    alia = dryh.approved(exhaustion=7, status="crash_pending")
    refused(dryh, "GM_NOT_CONFIRMED", "crash_disaster", character=alia)
    apply(dryh, "crash_disaster", {"player_agrees": True}, alia)
    assert sheet(alia)["status"] == "removed"
    awake = dryh.approved(dryh.player2, "Gavin")
    refused(dryh, "WRONG_STATUS", "crash_disaster", {"player_agrees": True}, character=awake)


def test_end_scene_ends_the_snap_episode_and_scene_swaps(dryh: DryhTable) -> None:
    swaps = [
        {"kind": "madness", "replacement": {"name": "Fuego", "description": ""}, "scope": "scene", "scene_id": "s1"},
        {"kind": "exhaustion", "replacement": {"name": "Correr", "description": ""}, "scope": "permanent"},
    ]
    alia = dryh.approved(snap_episode=True, snap_scene_id="s1", talent_swaps=swaps)
    apply(dryh, "end_scene", {"scene_id": "s1"}, alia)
    s = sheet(alia)
    assert (s["snap_episode"], s["snap_scene_id"]) == (False, None)
    assert [w["replacement"]["name"] for w in s["talent_swaps"]] == ["Correr"]


# --- conflict steps, permissions and statuses -------------------------------------------------------------


@pytest.mark.parametrize("operation", CONFLICT_OPS)
def test_conflict_steps_belong_to_the_roll_flow(dryh: DryhTable, operation: str) -> None:
    dryh.approved()
    params = {"pc": "1", "by_pc": "1", "kind": "add6", "pool": "pain", "side": "gm", "scar_index": 0}
    model = RULES.operation(operation).params_model
    fields = set(model.model_fields) if model is not None else set()
    err = refused(dryh, "operation_needs_roll", operation, {k: v for k, v in params.items() if k in fields})
    assert "conflicto" in err.message_es


def test_players_apply_no_operation_of_this_game(dryh: DryhTable) -> None:
    alia = dryh.approved(exhaustion=2)
    gavin = dryh.approved(dryh.player2, "Gavin", exhaustion=2)
    dryh.set_chest(hope=3)
    before = snapshot(dryh)
    for actor, character in ((dryh.player, alia), (dryh.player, gavin), (dryh.reader, alia)):
        with pytest.raises(PermissionDenied):
            apply(dryh, "take_breather", {"uses": ["exhaustion-1"]}, character=character, actor=actor)
    with pytest.raises(PermissionDenied):
        apply(dryh, "open_session", actor=dryh.player)
    assert snapshot(dryh) == before
    assert all(BINDING.who_may(op) == {"gm"} for op in RULES.operations)


def test_an_unapproved_character_is_refused(dryh: DryhTable) -> None:
    draft = services.create_character(actor=dryh.player, campaign=dryh.campaign, name="Borrador", sheet=valid_sheet())
    dryh.set_chest(hope=3)
    before = snapshot(dryh)
    with pytest.raises(ValidationError):
        apply(dryh, "take_breather", {"uses": ["exhaustion-1"]}, character=draft)
    assert snapshot(dryh) == before


def test_an_opposition_npc_has_no_protagonist_tracks(dryh: DryhTable) -> None:
    npc = services.create_character(
        actor=dryh.gm, campaign=dryh.campaign, name="Dragón", is_npc=True, sheet={"pain": 10}
    )
    npc = services.approve_character(actor=dryh.gm, character=npc)
    refused(dryh, "not_a_protagonist", "wake_up", character=npc)


def test_a_character_operation_needs_a_character(dryh: DryhTable) -> None:
    refused(dryh, "character_required", "wake_up")


# --- replay ---------------------------------------------------------------------------------------------


def test_the_ledger_replays_to_the_stored_state(dryh: DryhTable) -> None:
    scar = {"text": "Mi hija", "created_session": 0, "invoked_this_session": False, "crossed_out": False}
    alia = dryh.approved(exhaustion=5, fight=3, flight=1, discipline=2, permanent_madness=1, scars=[scar])
    gavin = dryh.approved(dryh.player2, "Gavin", exhaustion=7, status="crash_pending")
    # Conflicts (issue 5) filled the chests during session 1; every change from here goes through the ledger.
    dryh.set_chest(hope=9, despair=2, session_number=1, session_open=True)
    apply(dryh, "take_breather", {"uses": ["exhaustion-1", "clear_fight", "clear_flight"]}, alia)
    apply(dryh, "recover_discipline", character=alia)
    with pytest.raises(RulesError):
        apply(dryh, "recover_discipline", character=alia)
    apply(dryh, "carry_out_crash", character=gavin)
    apply(dryh, "wake_up", character=gavin)
    apply(dryh, "transform_scar", {"scar_index": 0, "benefit": {"kind": "hope_grant", "coins": 2, "uses": []}}, alia)
    apply(dryh, "close_session", {"spends": {str(alia.pk): ["exhaustion-1", "clear_fight"]}})
    apply(dryh, "open_session")

    entries = list(LedgerEntry.objects.filter(campaign=dryh.campaign).order_by("id"))
    assert [e.operation for e in entries] == [
        "take_breather",
        "recover_discipline",
        "carry_out_crash",
        "wake_up",
        "transform_scar",
        "close_session",
        "open_session",
    ]
    # The last entry that read each row holds what is stored now.
    last_state = next(e for e in reversed(entries) if e.after["campaign"] is not None)
    assert last_state.after["campaign"] == dryh.chest()
    for character in (alia, gavin):
        last = next(e for e in reversed(entries) if str(character.pk) in e.after["characters"])
        assert last.after["characters"][str(character.pk)] == sheet(character)
    # Each pool: where it started plus every delta is where it is.
    stored = BINDING.pool_values(dryh.chest(), {alia.pk: sheet(alia), gavin.pk: sheet(gavin)})
    for key, value in stored.items():
        moves = [e.changes[key] for e in entries if key in e.changes]
        if not moves:
            continue
        assert moves[0][0] + sum(after - before for before, after in moves) == value, key
        # and the moves chain: each starts where the previous ended
        assert all(moves[i][1] == moves[i + 1][0] for i in range(len(moves) - 1)), key
    assert stored[f"character.{alia.pk}.exhaustion"] == 3
    assert stored[f"character.{gavin.pk}.discipline"] == 1
