"""Presagios operations through ``characters.services.apply_operation``: state, ledger and refusals."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from accounts.models import User
from characters import services
from characters.models import Character, LedgerEntry
from rulesets import registry
from rulesets.presagios.tests.fixtures import PresagiosTable, build_presagios, pc_sheet
from systems.errors import RulesError
from systems.presagios import RULESET as RULES

BINDING = registry.plugin("presagios").sheet


@pytest.fixture
def pt(db: None) -> PresagiosTable:
    return build_presagios()


def op(
    pt: PresagiosTable,
    actor: User,
    operation: str,
    params: dict[str, Any] | None = None,
    character: Character | None = None,
    reason: str = "",
) -> LedgerEntry:
    return services.apply_operation(
        actor=actor, campaign=pt.campaign, operation=operation, params=params, character=character, reason=reason
    )


def threat(pt: PresagiosTable) -> int:
    return int(services.rules_state(pt.campaign)["threat"])


def set_threat(pt: PresagiosTable, value: int) -> None:
    op(pt, pt.gm, "set_threat", {"value": value})


def sheet(character: Character) -> dict[str, Any]:
    character.refresh_from_db()
    return dict(character.sheet)


def cid(character: Character) -> str:
    return str(character.pk)


def snapshot(pt: PresagiosTable) -> tuple[Any, ...]:
    return (
        services.rules_state(pt.campaign),
        {c.pk: c.sheet for c in Character.objects.filter(campaign=pt.campaign)},
        LedgerEntry.objects.count(),
    )


@contextmanager
def unchanged(pt: PresagiosTable) -> Iterator[None]:
    before = snapshot(pt)
    yield
    assert snapshot(pt) == before


def refused(pt: PresagiosTable, code: str, *args: Any, **kwargs: Any) -> None:
    with unchanged(pt), pytest.raises(RulesError) as excinfo:
        op(pt, *args, **kwargs)
    assert excinfo.value.code == code, excinfo.value


def test_every_registry_operation_is_bound() -> None:
    for operation in RULES.operations:
        assert BINDING.who_may(operation)


def test_initial_state_and_visibility() -> None:
    from systems.presagios.settings import PresagiosSettings, ThreatVisibility

    assert BINDING.initial_campaign_state(PresagiosSettings(initial_threat=3)) == {"threat": 3}
    assert BINDING.pools_public(PresagiosSettings())
    assert not BINDING.pools_public(PresagiosSettings(threat_visibility=ThreatVisibility.GM_ONLY))


# --- spend_overcome ---------------------------------------------------------------------------------


def test_player_spends_overcome_and_it_becomes_threat(pt: PresagiosTable) -> None:
    entry = op(pt, pt.player, "spend_overcome", {"character_id": cid(pt.lucia), "use": "hurry"}, pt.lucia, "Huye antes")
    assert sheet(pt.lucia)["overcome"] == 4
    assert threat(pt) == 1
    assert entry.operation == "spend_overcome"
    assert entry.actor == pt.player
    assert entry.reason == "Huye antes"
    assert entry.character == pt.lucia
    assert entry.params == {"character_id": cid(pt.lucia), "use": "hurry", "note": ""}
    assert entry.changes == {"campaign.threat": [0, 1], f"character.{pt.lucia.pk}.overcome": [5, 4]}
    assert entry.before["campaign"] == {"threat": 0}
    assert entry.after["campaign"] == {"threat": 1}
    assert entry.before["characters"][cid(pt.lucia)]["overcome"] == 5
    assert entry.after["characters"][cid(pt.lucia)] == sheet(pt.lucia)


def test_no_overcome_is_refused(pt: PresagiosTable) -> None:
    params = {"character_id": cid(pt.lucia), "use": "draw_strength"}
    for _ in range(5):
        op(pt, pt.player, "spend_overcome", params, pt.lucia)
    assert sheet(pt.lucia)["overcome"] == 0
    refused(pt, "NO_OVERCOME", pt.player, "spend_overcome", params, pt.lucia)  # vector 53


def test_protection_spend_is_refused_once_threat_reaches_eight(pt: PresagiosTable) -> None:
    set_threat(pt, 8)
    refused(
        pt,
        "PROTECTION_INACTIVE",
        pt.player,
        "spend_overcome",
        {"character_id": cid(pt.lucia), "use": "protection"},
        pt.lucia,
    )
    set_threat(pt, 7)  # vector 35: paying protection at 7 pushes threat to 8
    op(pt, pt.player, "spend_overcome", {"character_id": cid(pt.lucia), "use": "protection"}, pt.lucia)
    assert (threat(pt), sheet(pt.lucia)["overcome"]) == (8, 4)


def test_player_cannot_spend_someone_elses_points(pt: PresagiosTable) -> None:
    params = {"character_id": cid(pt.hugo), "use": "hurry"}
    with unchanged(pt), pytest.raises(PermissionDenied):
        op(pt, pt.player, "spend_overcome", params, pt.hugo)
    # nor through their own sheet with someone else's id in the params
    refused(pt, "character_mismatch", pt.player, "spend_overcome", params, pt.lucia)
    for outsider in (pt.reader, pt.outsider):
        with unchanged(pt), pytest.raises(PermissionDenied):
            op(pt, outsider, "spend_overcome", params, pt.hugo)


def test_retry_belongs_to_the_challenge_flow(pt: PresagiosTable) -> None:
    refused(
        pt,
        "operation_needs_roll",
        pt.player,
        "spend_overcome",
        {"character_id": cid(pt.lucia), "use": "retry"},
        pt.lucia,
    )


def test_npcs_have_no_overcome_to_spend(pt: PresagiosTable) -> None:
    refused(pt, "NOT_A_PRINCIPAL", pt.gm, "spend_overcome", {"character_id": cid(pt.cosa), "use": "hurry"}, pt.cosa)


def test_unapproved_character_is_refused(pt: PresagiosTable) -> None:
    draft = services.create_character(actor=pt.player, campaign=pt.campaign, name="Borrador", sheet=pc_sheet())
    services.submit_character(actor=pt.player, character=draft)
    with unchanged(pt), pytest.raises(ValidationError):
        op(pt, pt.gm, "award_roleplay", {"character_id": cid(draft)}, draft)
    with unchanged(pt), pytest.raises(PermissionDenied):  # the policy: players act on approved characters only
        op(pt, pt.player, "spend_overcome", {"character_id": cid(draft), "use": "hurry"}, draft)


def test_malformed_params_are_a_validation_error(pt: PresagiosTable) -> None:
    with unchanged(pt), pytest.raises(ValidationError):
        op(pt, pt.player, "spend_overcome", {"character_id": cid(pt.lucia), "use": "bribe"}, pt.lucia)
    with unchanged(pt), pytest.raises(ValidationError):
        op(pt, pt.gm, "set_threat", {"value": -1})


# --- spend_threat -------------------------------------------------------------------------------------


def test_gm_spends_threat_and_it_is_lost(pt: PresagiosTable) -> None:
    set_threat(pt, 3)
    entry = op(pt, pt.gm, "spend_threat", {"use": "hurry"}, reason="El monstruo actúa dos veces")
    assert threat(pt) == 2
    assert entry.changes == {"campaign.threat": [3, 2]}
    assert entry.character is None


def test_spend_threat_refusals(pt: PresagiosTable) -> None:
    refused(pt, "NO_THREAT", pt.gm, "spend_threat", {"use": "hurry"})  # threat 0
    set_threat(pt, 2)
    with unchanged(pt), pytest.raises(PermissionDenied):
        op(pt, pt.player, "spend_threat", {"use": "hurry"})
    with unchanged(pt), pytest.raises(PermissionDenied):
        op(pt, pt.player, "spend_threat", {"use": "hurry", "for_character_id": cid(pt.lucia)}, pt.lucia)
    refused(
        pt,
        "NO_PROTECTION_FOR_SECONDARY",
        pt.gm,
        "spend_threat",
        {"use": "protection", "for_character_id": cid(pt.criado)},
        pt.criado,
    )


def test_gm_protects_the_monster_from_its_sheet(pt: PresagiosTable) -> None:
    set_threat(pt, 6)
    entry = op(pt, pt.gm, "spend_threat", {"use": "protection", "for_character_id": cid(pt.cosa)}, pt.cosa)
    assert threat(pt) == 5  # vector 39
    assert entry.character == pt.cosa
    assert entry.changes == {"campaign.threat": [6, 5]}


# --- activate_quality -------------------------------------------------------------------------------


def _quality(activator: Character | None, owner: Character, quality: str, against: bool) -> dict[str, Any]:
    return {
        "activator_id": cid(activator) if activator else None,
        "owner_id": cid(owner),
        "quality": quality,
        "purpose": "new_element",
        "against_owner": against,
    }


def test_activating_another_principals_complication_transfers_the_point(pt: PresagiosTable) -> None:
    set_threat(pt, 3)
    entry = op(pt, pt.player, "activate_quality", _quality(pt.lucia, pt.hugo, "complication", True), pt.lucia)
    assert (sheet(pt.lucia)["overcome"], sheet(pt.hugo)["overcome"], threat(pt)) == (4, 6, 3)  # vector 46
    assert entry.changes == {
        f"character.{pt.lucia.pk}.overcome": [5, 4],
        f"character.{pt.hugo.pk}.overcome": [5, 6],
    }


def test_helpful_and_own_activations(pt: PresagiosTable) -> None:
    set_threat(pt, 2)
    op(pt, pt.player, "activate_quality", _quality(pt.lucia, pt.lucia, "hito", False), pt.lucia)
    assert (sheet(pt.lucia)["overcome"], threat(pt)) == (4, 3)  # vector 48
    op(pt, pt.player, "activate_quality", _quality(pt.lucia, pt.lucia, "complication", True), pt.lucia)
    assert (sheet(pt.lucia)["overcome"], threat(pt)) == (4, 3)  # vector 51: net 0
    op(pt, pt.player, "activate_quality", _quality(pt.lucia, pt.cosa, "weakness", True), pt.lucia)
    assert (sheet(pt.lucia)["overcome"], threat(pt)) == (3, 4)  # vector 50: no transfer to a monster


def test_gm_activation_pays_threat_from_the_campaign(pt: PresagiosTable) -> None:
    set_threat(pt, 6)
    entry = op(pt, pt.gm, "activate_quality", _quality(None, pt.lucia, "complication", True))
    assert (threat(pt), sheet(pt.lucia)["overcome"]) == (5, 6)  # vector 47
    assert entry.changes == {"campaign.threat": [6, 5], f"character.{pt.lucia.pk}.overcome": [5, 6]}
    op(pt, pt.gm, "activate_quality", {**_quality(None, pt.cosa, "descriptor", False), "activator_id": ""})
    assert threat(pt) == 4  # vector 49: the point is lost


def test_activation_refusals(pt: PresagiosTable) -> None:
    refused(pt, "NO_THREAT", pt.gm, "activate_quality", _quality(None, pt.lucia, "complication", True))  # vector 54
    # a sheet only spends its own points: neither the GM's threat nor another principal's overcome
    refused(
        pt,
        "character_mismatch",
        pt.player,
        "activate_quality",
        _quality(None, pt.lucia, "complication", True),
        pt.lucia,
    )
    refused(
        pt, "character_mismatch", pt.gm, "activate_quality", _quality(None, pt.lucia, "complication", True), pt.lucia
    )
    refused(
        pt, "character_mismatch", pt.player, "activate_quality", _quality(pt.hugo, pt.lucia, "concept", False), pt.lucia
    )
    with unchanged(pt), pytest.raises(PermissionDenied):
        op(pt, pt.player, "activate_quality", _quality(pt.hugo, pt.lucia, "concept", False), pt.hugo)
    forcing = {**_quality(pt.lucia, pt.hugo, "complication", True), "purpose": "force_failure"}
    refused(pt, "operation_needs_roll", pt.player, "activate_quality", forcing, pt.lucia)


# --- GM awards and threat -----------------------------------------------------------------------------


def test_award_roleplay(pt: PresagiosTable) -> None:
    entry = op(pt, pt.gm, "award_roleplay", {"character_id": cid(pt.lucia)}, pt.lucia, "Escena del espejo")
    assert sheet(pt.lucia)["overcome"] == 6
    assert entry.before["campaign"] is None  # threat is not read: it can't change
    assert entry.changes == {f"character.{pt.lucia.pk}.overcome": [5, 6]}
    with unchanged(pt), pytest.raises(PermissionDenied):
        op(pt, pt.player, "award_roleplay", {"character_id": cid(pt.lucia)}, pt.lucia)
    refused(pt, "NOT_A_PRINCIPAL", pt.gm, "award_roleplay", {"character_id": cid(pt.criado)}, pt.criado)
    refused(pt, "character_mismatch", pt.gm, "award_roleplay", {"character_id": cid(pt.hugo)}, pt.lucia)


@pytest.mark.parametrize(
    ("start", "against_monster", "after"),
    [(5, False, 4), (0, True, 0), (8, False, 8)],  # vectors 25, 27, 28
)
def test_declare_danger(pt: PresagiosTable, start: int, against_monster: bool, after: int) -> None:
    set_threat(pt, start)
    op(pt, pt.gm, "declare_danger", {"against_monster": against_monster})
    assert threat(pt) == after


def test_declare_danger_with_no_threat_is_refused(pt: PresagiosTable) -> None:
    refused(pt, "NO_THREAT", pt.gm, "declare_danger", {})  # vector 26
    with unchanged(pt), pytest.raises(PermissionDenied):
        op(pt, pt.player, "declare_danger", {"against_monster": True})


@pytest.mark.parametrize(("start", "omens", "after"), [(4, 2, 5), (5, 2, 5), (0, 0, 0), (0, 1, 1), (9, 5, 10)])
def test_omen_check(pt: PresagiosTable, start: int, omens: int, after: int) -> None:
    set_threat(pt, start)  # vectors 15, 16, 17, 18, 21
    op(pt, pt.gm, "omen_check", {"omens": omens})
    assert threat(pt) == after


def test_confirm_threat_gain_and_set_threat(pt: PresagiosTable) -> None:
    entry = op(pt, pt.gm, "confirm_threat_gain", {"reason": "character_out", "note": "El criado murió"})
    assert threat(pt) == 1
    assert entry.changes == {"campaign.threat": [0, 1]}
    entry = op(pt, pt.gm, "set_threat", {"value": 6}, reason="Nuevo escenario")
    assert threat(pt) == 6
    assert entry.changes == {"campaign.threat": [1, 6]}
    with unchanged(pt), pytest.raises(PermissionDenied):
        op(pt, pt.player, "confirm_threat_gain", {"reason": "negative_event"})
    refused(pt, "character_mismatch", pt.gm, "set_threat", {"value": 2}, pt.lucia)


# --- damage, protection, recovery, locks ------------------------------------------------------------


def _damage(character: Character, key: str, amount: int, protect: bool = False) -> dict[str, Any]:
    return {"character_id": cid(character), "characteristic": key, "amount": amount, "protect": protect}


def test_damage_declined_and_protected(pt: PresagiosTable) -> None:
    set_threat(pt, 4)
    entry = op(pt, pt.player, "apply_damage", _damage(pt.lucia, "c2", 2), pt.lucia, "Reto peligroso fallido")
    assert sheet(pt.lucia)["current"] == [4, 1, 2]  # vector 29
    assert entry.changes == {f"character.{pt.lucia.pk}.c2": [3, 1]}
    op(pt, pt.player, "apply_damage", _damage(pt.lucia, "c1", 2, protect=True), pt.lucia)
    assert (sheet(pt.lucia)["current"], sheet(pt.lucia)["overcome"], threat(pt)) == ([4, 1, 2], 4, 5)  # vector 30


def test_mandatory_protection_and_leaving_the_story(pt: PresagiosTable) -> None:
    set_threat(pt, 4)
    op(pt, pt.gm, "apply_damage", _damage(pt.lucia, "c3", 3), pt.lucia)
    assert (sheet(pt.lucia)["current"][2], sheet(pt.lucia)["overcome"], threat(pt)) == (2, 4, 5)  # vector 31
    set_threat(pt, 8)
    entry = op(pt, pt.gm, "apply_damage", _damage(pt.lucia, "c3", 3), pt.lucia)
    after = sheet(pt.lucia)
    assert after["current"][2] == -1  # vector 32: a characteristic may go below zero
    assert after["status"] == "out_of_story"
    assert entry.changes == {f"character.{pt.lucia.pk}.c3": [2, -1]}
    assert threat(pt) == 8  # the +1 is proposed; the GM confirms it with confirm_threat_gain


def test_secondary_has_no_protection_and_monster_is_protected_with_threat(pt: PresagiosTable) -> None:
    set_threat(pt, 4)
    refused(pt, "NO_PROTECTION_FOR_SECONDARY", pt.gm, "apply_damage", _damage(pt.criado, "c1", 1, True), pt.criado)
    op(pt, pt.gm, "apply_damage", _damage(pt.criado, "c1", 3), pt.criado)
    assert (sheet(pt.criado)["current"][0], sheet(pt.criado)["status"]) == (-1, "out_of_story")  # vector 38
    op(pt, pt.gm, "apply_damage", _damage(pt.cosa, "c1", 2, True), pt.cosa)
    assert (sheet(pt.cosa)["current"][0], threat(pt)) == (5, 3)


def test_damage_refusals(pt: PresagiosTable) -> None:
    set_threat(pt, 8)
    refused(pt, "PROTECTION_INACTIVE", pt.player, "apply_damage", _damage(pt.lucia, "c1", 1, True), pt.lucia)
    with unchanged(pt), pytest.raises(PermissionDenied):
        op(pt, pt.player, "apply_damage", _damage(pt.hugo, "c1", 1), pt.hugo)
    with unchanged(pt), pytest.raises(PermissionDenied):
        op(pt, pt.player, "apply_damage", _damage(pt.cosa, "c1", 1), pt.cosa)
    refused(pt, "character_mismatch", pt.player, "apply_damage", _damage(pt.hugo, "c1", 1), pt.lucia)


def test_restore_never_above_base(pt: PresagiosTable) -> None:
    op(pt, pt.gm, "apply_damage", _damage(pt.hugo, "c1", 3), pt.hugo)
    assert sheet(pt.hugo)["current"][0] == 2
    entry = op(
        pt,
        pt.gm,
        "restore_characteristic",
        {"character_id": cid(pt.hugo), "characteristic": "c1", "amount": 9},
        pt.hugo,
    )
    assert sheet(pt.hugo)["current"][0] == 5
    assert entry.changes == {f"character.{pt.hugo.pk}.c1": [2, 5]}
    with unchanged(pt), pytest.raises(PermissionDenied):
        op(
            pt,
            pt.player2,
            "restore_characteristic",
            {"character_id": cid(pt.hugo), "characteristic": "c1", "amount": 1},
            pt.hugo,
        )


def test_lock_challenge(pt: PresagiosTable) -> None:
    for challenge in ("reto-9", "reto-2"):
        entry = op(pt, pt.gm, "lock_challenge", {"character_id": cid(pt.lucia), "challenge_id": challenge}, pt.lucia)
    assert sheet(pt.lucia)["challenge_locks"] == ["reto-2", "reto-9"]
    assert entry.changes == {}
    with unchanged(pt), pytest.raises(PermissionDenied):
        op(pt, pt.player, "lock_challenge", {"character_id": cid(pt.lucia), "challenge_id": "x"}, pt.lucia)


# --- replay -------------------------------------------------------------------------------------------


def test_ledger_replays_to_the_stored_state(pt: PresagiosTable) -> None:
    set_threat(pt, 3)
    op(pt, pt.player, "spend_overcome", {"character_id": cid(pt.lucia), "use": "hurry"}, pt.lucia)
    op(pt, pt.player2, "activate_quality", _quality(pt.hugo, pt.lucia, "complication", True), pt.hugo)
    op(pt, pt.gm, "activate_quality", _quality(None, pt.hugo, "complication", True))
    op(pt, pt.gm, "omen_check", {"omens": 3})
    op(pt, pt.gm, "declare_danger", {})
    op(pt, pt.player, "apply_damage", _damage(pt.lucia, "c2", 2), pt.lucia)
    op(pt, pt.gm, "apply_damage", _damage(pt.criado, "c2", 4), pt.criado)
    op(pt, pt.gm, "confirm_threat_gain", {"reason": "character_out"})
    op(pt, pt.gm, "award_roleplay", {"character_id": cid(pt.hugo)}, pt.hugo)
    op(
        pt,
        pt.gm,
        "restore_characteristic",
        {"character_id": cid(pt.lucia), "characteristic": "c2", "amount": 1},
        pt.lucia,
    )
    op(pt, pt.gm, "spend_threat", {"use": "protection", "for_character_id": cid(pt.cosa)}, pt.cosa)

    entries = list(LedgerEntry.objects.filter(campaign=pt.campaign).order_by("id"))
    stored_state = services.rules_state(pt.campaign)
    stored_sheets = {c.pk: c.sheet for c in Character.objects.filter(campaign=pt.campaign)}

    # the last entry that wrote each thing holds what is stored
    last_state = [e.after["campaign"] for e in entries if e.after["campaign"] is not None][-1]
    assert last_state == stored_state
    for pk, stored in stored_sheets.items():
        written = [e.after["characters"][str(pk)] for e in entries if str(pk) in e.after["characters"]]
        if written:
            assert written[-1] == stored

    # each numeric pool: its first recorded value plus every change equals the stored value
    stored_pools = BINDING.pool_values(stored_state, stored_sheets)
    seen: dict[str, int] = {}
    for entry in entries:
        before = BINDING.pool_values(
            entry.before["campaign"], {int(k): v for k, v in entry.before["characters"].items()}
        )
        for key, value in before.items():
            seen.setdefault(key, value)
        for key, (old, new) in entry.changes.items():
            assert key in seen
            seen[key] += new - old
    assert seen["campaign.threat"] == stored_pools["campaign.threat"] == 3
    for key, value in seen.items():
        assert stored_pools[key] == value, key
    assert seen[f"character.{pt.criado.pk}.c2"] == -2
