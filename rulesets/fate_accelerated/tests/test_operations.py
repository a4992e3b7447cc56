"""Fate Accelerated operations through ``characters.services.apply_operation``: state after, ledger entry,
refusals (rules, permissions, unapproved characters) that change nothing, and replay from the ledger."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from accounts.models import User
from characters import services
from characters.models import Character, CharacterStatus, LedgerEntry
from rulesets.fate_accelerated.tests.sheet_fixtures import FaeTable, ana_sheet, build_fae
from systems.errors import RulesError

pytestmark = pytest.mark.django_db


@pytest.fixture
def fae(db: None) -> FaeTable:
    return build_fae()


@pytest.fixture
def fae_pool(db: None) -> FaeTable:
    return build_fae(prefix="faep_", rules_settings={"gm_fate_point_pool": True})


def op(
    t: FaeTable,
    actor: User,
    operation: str,
    character: Character | None = None,
    /,
    *,
    reason: str = "",
    **params: Any,
) -> LedgerEntry:
    return services.apply_operation(
        actor=actor, campaign=t.campaign, operation=operation, params=params, character=character, reason=reason
    )


def sheet_of(character: Character) -> dict[str, Any]:
    character.refresh_from_db()
    sheet: dict[str, Any] = character.sheet
    return sheet


def snapshot(t: FaeTable) -> tuple[Any, ...]:
    t.refresh()
    return (
        t.ana.sheet,
        t.carla.sheet,
        t.bruno.sheet,
        services.rules_state(t.campaign),
        LedgerEntry.objects.filter(campaign=t.campaign).count(),
    )


def refused(
    t: FaeTable, code: str, actor: User, operation: str, character: Character | None = None, /, **params: Any
) -> None:
    """The rules refuse with ``code`` and nothing is written."""
    before = snapshot(t)
    with pytest.raises(RulesError) as exc:
        op(t, actor, operation, character, **params)
    assert exc.value.code == code
    assert exc.value.message_es and exc.value.message_en
    assert snapshot(t) == before


def denied(
    t: FaeTable, exc_type: type[Exception], actor: User, operation: str, character: Character | None, /, **params: Any
) -> None:
    before = snapshot(t)
    with pytest.raises(exc_type):
        op(t, actor, operation, character, **params)
    assert snapshot(t) == before


def fp_key(c: Character) -> str:
    return f"character.{c.pk}.fate_points"


# --- Fate points ------------------------------------------------------------------------------------


def test_owner_spends_a_fate_point(fae: FaeTable) -> None:
    entry = op(fae, fae.player, "spend_fate_point", fae.ana, reason="invoco «Atenta a los detalles»", amount=1)
    assert sheet_of(fae.ana)["fate_points"] == 2
    assert entry.operation == "spend_fate_point" and entry.actor == fae.player and entry.character == fae.ana
    assert entry.reason == "invoco «Atenta a los detalles»" and entry.params == {"amount": 1}
    assert entry.before["characters"][str(fae.ana.pk)]["fate_points"] == 3
    assert entry.after["characters"][str(fae.ana.pk)]["fate_points"] == 2
    assert entry.before["campaign"] is None and entry.after["campaign"] is None
    assert entry.changes == {fp_key(fae.ana): [3, 2]}


def test_spending_more_than_you_have_is_refused(fae: FaeTable) -> None:
    refused(fae, "not_enough_fate_points", fae.player, "spend_fate_point", fae.ana, amount=4)


def test_gm_awards_and_adjusts_fate_points(fae: FaeTable) -> None:
    entry = op(fae, fae.gm, "gain_fate_point", fae.ana, reason="buena escena", amount=2)
    assert entry.changes == {fp_key(fae.ana): [3, 5]} and entry.actor == fae.gm
    entry = op(fae, fae.gm, "adjust_fate_points", fae.ana, delta=-5)
    assert entry.changes == {fp_key(fae.ana): [5, 0]}
    refused(fae, "fate_points_negative", fae.gm, "adjust_fate_points", fae.ana, delta=-1)


def test_refresh_tops_up_to_refresh_and_keeps_more(fae: FaeTable) -> None:
    op(fae, fae.gm, "adjust_fate_points", fae.ana, delta=-2)
    entry = op(fae, fae.gm, "refresh_fate_points", fae.ana)
    assert entry.changes == {fp_key(fae.ana): [1, 3]}  # TV-110
    op(fae, fae.gm, "gain_fate_point", fae.ana, amount=2)
    entry = op(fae, fae.gm, "refresh_fate_points", fae.ana)
    assert entry.changes == {} and sheet_of(fae.ana)["fate_points"] == 5  # TV-109


def test_compels(fae: FaeTable) -> None:
    op(fae, fae.gm, "accept_compel", fae.ana)  # TV-078
    assert sheet_of(fae.ana)["fate_points"] == 4
    op(fae, fae.player, "refuse_compel", fae.ana)  # TV-079
    assert sheet_of(fae.ana)["fate_points"] == 3
    op(fae, fae.player2, "fund_compel_offer", fae.carla)  # TV-082: Carla pays her offer
    assert sheet_of(fae.carla)["fate_points"] == 2
    op(fae, fae.gm, "adjust_fate_points", fae.ana, delta=-3)
    refused(fae, "cannot_refuse_compel", fae.player, "refuse_compel", fae.ana)  # TV-080
    op(fae, fae.gm, "adjust_fate_points", fae.carla, delta=-2)
    refused(fae, "not_enough_fate_points", fae.player2, "fund_compel_offer", fae.carla)  # TV-083


# --- Harm ---------------------------------------------------------------------------------------


def test_absorb_a_hit_with_a_box_and_a_mild_consequence(fae: FaeTable) -> None:
    entry = op(
        fae,
        fae.player,
        "absorb_hit",
        fae.ana,
        reason="el golpe de Bruno",
        owner="ignored",
        attacker="bruno",
        shifts=4,
        box=2,
        slots=["mild"],
        texts={"mild": "Torcedura en el tobillo"},
    )  # TV-084
    sheet = sheet_of(fae.ana)
    assert sheet["stress"] == [False, True, False]
    mild = sheet["consequences"]["mild"]
    assert mild["text"] == "Torcedura en el tobillo" and mild["character"] == str(fae.ana.pk)
    assert mild["grants"] == [{"holder": "bruno", "remaining": 1, "same_roll_stacking": False, "source": None}]
    assert entry.changes == {f"character.{fae.ana.pk}.stress": [0, 1], f"character.{fae.ana.pk}.consequences": [0, 1]}
    assert entry.after["characters"][str(fae.ana.pk)] == sheet


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({"shifts": 4, "box": 2}, "absorption_insufficient"),  # TV-085
        ({"shifts": 2}, "absorption_empty"),
        ({"shifts": 2, "slots": ["mild"], "texts": {}}, "consequence_text_required"),
        ({"shifts": 2, "slots": ["mild", "mild"], "texts": {"mild": "x"}}, "duplicate_slot"),
    ],
)
def test_illegal_absorptions_are_refused(fae: FaeTable, params: dict[str, Any], code: str) -> None:
    refused(fae, code, fae.player, "absorb_hit", fae.ana, owner="a", attacker="gm", **params)


def test_checked_boxes_and_filled_slots_cannot_absorb_again(fae: FaeTable) -> None:
    op(fae, fae.player, "absorb_hit", fae.ana, owner="a", attacker="gm", shifts=2, box=2)
    refused(fae, "stress_box_unavailable", fae.player, "absorb_hit", fae.ana, owner="a", attacker="gm", shifts=2, box=2)
    op(
        fae,
        fae.player,
        "absorb_hit",
        fae.ana,
        owner="a",
        attacker="gm",
        shifts=1,
        slots=["mild"],
        texts={"mild": "Miedo"},
    )
    refused(
        fae,
        "consequence_slot_unavailable",
        fae.player,
        "absorb_hit",
        fae.ana,
        owner="a",
        attacker="gm",
        shifts=3,
        box=1,
        slots=["mild"],
        texts={"mild": "Otra"},
    )  # TV-088


def test_malformed_params_are_a_validation_error(fae: FaeTable) -> None:
    denied(fae, ValidationError, fae.player, "absorb_hit", fae.ana, owner="a", attacker="gm", shifts=2, box=4)
    denied(fae, ValidationError, fae.player, "spend_fate_point", fae.ana, amount=0)
    denied(fae, ValidationError, fae.player, "spend_fate_point", fae.ana, amount=1, extra=True)


def test_an_overlong_consequence_is_refused_by_the_rules(fae: FaeTable) -> None:
    refused(
        fae, "invalid_sheet", fae.player, "absorb_hit", fae.ana,
        owner="a", attacker="gm", shifts=2, slots=["mild"], texts={"mild": "x" * 201},
    )  # fmt: skip


def test_taken_out_and_then_no_concession(fae: FaeTable) -> None:
    op(fae, fae.player, "take_out", fae.ana)  # TV-101
    assert sheet_of(fae.ana)["scene_status"] == "taken_out"
    refused(fae, "not_in_conflict", fae.player, "concede", fae.ana, character="x", conflict="K1")
    op(fae, fae.gm, "end_scene", fae.ana)  # TV-102: back in the next scene
    assert sheet_of(fae.ana)["scene_status"] == "active"


def test_concession_pays_one_plus_the_consequences_of_this_conflict(fae: FaeTable) -> None:
    k0 = {"adventure": 1, "session": 1, "scene": 1, "conflict": "K0"}
    k1 = {**k0, "conflict": "K1"}
    op(
        fae,
        fae.player,
        "absorb_hit",
        fae.ana,
        owner="a",
        attacker="gm",
        shifts=6,
        slots=["severe"],
        texts={"severe": "Conmoción"},
        moment=k0,
    )
    op(
        fae,
        fae.player,
        "absorb_hit",
        fae.ana,
        owner="a",
        attacker="gm",
        shifts=2,
        slots=["mild"],
        texts={"mild": "Torcedura"},
        moment=k1,
    )
    refused(
        fae,
        "concession_too_late",
        fae.player,
        "concede",
        fae.ana,
        character="x",
        conflict="K1",
        opposing_roll_pending=True,
    )
    entry = op(fae, fae.player, "concede", fae.ana, reason="me rindo", character="x", conflict="K1")  # TV-106
    assert entry.changes[fp_key(fae.ana)] == [3, 5]
    assert sheet_of(fae.ana)["scene_status"] == "conceded"


def test_recovering_from_consequences(fae: FaeTable) -> None:
    op(
        fae,
        fae.player,
        "absorb_hit",
        fae.ana,
        owner="a",
        attacker="gm",
        shifts=2,
        slots=["mild"],
        texts={"mild": "Torcedura"},
    )
    moment = {"adventure": 1, "session": 4, "scene": 1}
    op(
        fae,
        fae.player,
        "absorb_hit",
        fae.ana,
        owner="a",
        attacker="gm",
        shifts=4,
        slots=["moderate"],
        texts={"moderate": "Fractura"},
        moment=moment,
    )
    recover: dict[str, Any] = {
        "adventure": 1,
        "scene": 9,
        "justification": "Descansa en la posada",
        "gm_confirms": True,
    }
    refused(
        fae,
        "consequence_not_clearable",
        fae.gm,
        "recover_consequence",
        fae.ana,
        severity="mild",
        event="scene_end",
        session=4,
        **recover,
    )  # no rest
    refused(
        fae,
        "consequence_not_clearable",
        fae.gm,
        "recover_consequence",
        fae.ana,
        severity="moderate",
        event="session_end",
        session=4,
        **recover,
    )  # TV-119
    refused(
        fae,
        "recovery_not_confirmed",
        fae.gm,
        "recover_consequence",
        fae.ana,
        severity="moderate",
        event="session_end",
        session=5,
        **{**recover, "gm_confirms": False},
    )
    denied(
        fae,
        PermissionDenied,
        fae.player,
        "recover_consequence",
        fae.ana,
        severity="moderate",
        event="session_end",
        session=5,
        **recover,
    )
    entry = op(
        fae, fae.gm, "recover_consequence", fae.ana, severity="moderate", event="session_end", session=5, **recover
    )
    assert entry.changes == {f"character.{fae.ana.pk}.consequences": [2, 1]}
    op(
        fae,
        fae.gm,
        "recover_consequence",
        fae.ana,
        severity="mild",
        event="scene_end",
        session=4,
        rest_available=True,
        **recover,
    )  # TV-117
    assert sheet_of(fae.ana)["consequences"] == {"mild": None, "moderate": None, "severe": None}


def test_renaming_consequences(fae: FaeTable) -> None:
    op(
        fae,
        fae.player,
        "absorb_hit",
        fae.ana,
        owner="a",
        attacker="bruno",
        shifts=6,
        slots=["mild", "moderate"],
        texts={"mild": "Corte", "moderate": "Fractura dolorosa de pierna"},
    )
    op(fae, fae.player, "rename_consequence", fae.ana, severity="moderate", new_text="Cojeando con muletas")  # TV-122
    moderate = sheet_of(fae.ana)["consequences"]["moderate"]
    assert moderate["text"] == "Cojeando con muletas" and moderate["rename_history"] == ["Fractura dolorosa de pierna"]
    assert moderate["grants"][0]["holder"] == "bruno"
    refused(
        fae, "rename_mild_disabled", fae.player, "rename_consequence", fae.ana, severity="mild", new_text="Otro"
    )  # TV-123
    refused(
        fae, "consequence_slot_empty", fae.player, "rename_consequence", fae.ana, severity="severe", new_text="Otro"
    )


def test_once_per_session_stunt(fae: FaeTable) -> None:
    op(fae, fae.player, "use_stunt", fae.ana, stunt="S2", session=1)  # TV-124
    assert next(s for s in sheet_of(fae.ana)["stunts"] if s["key"] == "S2")["last_used_session"] == 1
    refused(fae, "stunt_already_used", fae.player, "use_stunt", fae.ana, stunt="S2", session=1)
    op(fae, fae.player, "use_stunt", fae.ana, stunt="S2", session=2)
    refused(fae, "stunt_not_once_per_session", fae.player, "use_stunt", fae.ana, stunt="S1", session=3)
    refused(fae, "unknown_stunt", fae.player, "use_stunt", fae.ana, stunt="S9", session=3)


def test_scene_and_session_timers(fae: FaeTable) -> None:
    op(fae, fae.player, "absorb_hit", fae.ana, owner="a", attacker="gm", shifts=1, box=1)
    op(fae, fae.player, "absorb_hit", fae.ana, owner="a", attacker="gm", shifts=3, box=3)
    op(fae, fae.player, "spend_fate_point", fae.ana, amount=3)
    entry = op(fae, fae.gm, "end_scene", fae.ana)  # TV-115
    assert sheet_of(fae.ana)["stress"] == [False, False, False]
    assert entry.changes == {f"character.{fae.ana.pk}.stress": [2, 0]}
    op(fae, fae.gm, "start_scene", fae.ana)  # refresh waits for the session
    assert sheet_of(fae.ana)["fate_points"] == 0  # TV-114
    op(fae, fae.gm, "start_session", fae.ana)
    assert sheet_of(fae.ana)["fate_points"] == 3


def test_refresh_at_scene_start_when_the_campaign_says_so(db: None) -> None:
    t = build_fae(prefix="faes_", rules_settings={"refresh_trigger": "scene_start"})
    op(t, t.player, "spend_fate_point", t.ana, amount=2)
    op(t, t.gm, "start_session", t.ana)
    assert sheet_of(t.ana)["fate_points"] == 1
    op(t, t.gm, "start_scene", t.ana)
    assert sheet_of(t.ana)["fate_points"] == 3


# --- The GM pool --------------------------------------------------------------------------------------


def test_gm_pool_is_refused_when_the_campaign_does_not_use_it(fae: FaeTable) -> None:
    refused(fae, "gm_pool_disabled", fae.gm, "gm_pool_gain", amount=1)


def test_gm_pool(fae_pool: FaeTable) -> None:
    t = fae_pool
    entry = op(t, t.gm, "gm_pool_scene_start", reason="escena 2", pcs_in_scene=3, carried_in=1)
    assert entry.character is None and entry.changes == {"campaign.gm_fate_points": [0, 4]}
    assert entry.before["campaign"] == {"gm_fate_points": 0} and entry.after["campaign"] == {"gm_fate_points": 4}
    op(t, t.gm, "gm_pool_spend", amount=1)
    op(t, t.gm, "gm_pool_gain", amount=2)
    assert services.rules_state(t.campaign) == {"gm_fate_points": 5}
    refused(t, "gm_pool_empty", t.gm, "gm_pool_spend", amount=6)
    denied(t, PermissionDenied, t.player, "gm_pool_gain", None, amount=1)


# --- Permissions and status ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("operation", "params"),
    [
        ("gain_fate_point", {"amount": 1}),
        ("adjust_fate_points", {"delta": 1}),
        ("refresh_fate_points", {}),
        ("accept_compel", {}),
        ("end_scene", {}),
        ("start_scene", {}),
        ("start_session", {}),
    ],
)
def test_gm_only_operations_are_denied_to_the_owner(fae: FaeTable, operation: str, params: dict[str, Any]) -> None:
    denied(fae, PermissionDenied, fae.player, operation, fae.ana, **params)


def test_players_act_only_on_their_own_character(fae: FaeTable) -> None:
    denied(fae, PermissionDenied, fae.player, "spend_fate_point", fae.carla, amount=1)
    denied(fae, PermissionDenied, fae.player, "spend_fate_point", fae.bruno, amount=1)
    denied(fae, PermissionDenied, fae.reader, "spend_fate_point", fae.ana, amount=1)
    denied(fae, PermissionDenied, fae.outsider, "spend_fate_point", fae.ana, amount=1)


def test_unapproved_characters_take_no_operations(fae: FaeTable) -> None:
    draft = services.create_character(actor=fae.player, campaign=fae.campaign, name="Eva", sheet=ana_sheet())
    pending = services.submit_character(actor=fae.player, character=draft)
    assert pending.status == CharacterStatus.PENDING
    before = (pending.sheet, LedgerEntry.objects.count())
    with pytest.raises(ValidationError):
        op(fae, fae.gm, "gain_fate_point", pending, amount=1)
    with pytest.raises(PermissionDenied):  # the policy already stops the owner
        op(fae, fae.player, "spend_fate_point", pending, amount=1)
    pending.refresh_from_db()
    assert (pending.sheet, LedgerEntry.objects.count()) == before


def test_a_character_operation_needs_a_character(fae: FaeTable) -> None:
    refused(fae, "operation_needs_character", fae.gm, "gain_fate_point", None, amount=1)


def test_the_gm_marks_npcs(fae: FaeTable) -> None:
    op(fae, fae.gm, "absorb_hit", fae.bruno, owner="b", attacker=str(fae.ana.pk), shifts=3, box=3)
    assert sheet_of(fae.bruno)["stress"] == [False, False, True]


# --- Replay ---------------------------------------------------------------------------------------


def test_the_ledger_replays_to_the_stored_state(fae_pool: FaeTable) -> None:
    t = fae_pool
    op(t, t.player, "spend_fate_point", t.ana, amount=2)
    op(
        t,
        t.player,
        "absorb_hit",
        t.ana,
        owner="a",
        attacker="gm",
        shifts=4,
        box=2,
        slots=["mild"],
        texts={"mild": "Torcedura"},
    )
    op(t, t.gm, "gain_fate_point", t.ana, amount=3)
    op(t, t.gm, "gm_pool_scene_start", pcs_in_scene=2)
    op(t, t.player2, "refuse_compel", t.carla)
    op(t, t.gm, "gm_pool_spend", amount=1)
    op(t, t.player, "concede", t.ana, character="x", conflict="K1")
    op(t, t.gm, "end_scene", t.ana)
    op(t, t.gm, "start_session", t.carla)
    op(t, t.gm, "recover_consequence", t.ana, severity="mild", event="scene_end", adventure=0, session=0, scene=1,
       justification="descansa", gm_confirms=True, rest_available=True)  # fmt: skip
    t.refresh()
    entries = list(LedgerEntry.objects.filter(campaign=t.campaign))
    for character in (t.ana, t.carla):
        mine = [e for e in entries if str(character.pk) in e.after["characters"]]
        assert mine[-1].after["characters"][str(character.pk)] == character.sheet
        for pool in ("fate_points", "stress", "consequences"):
            key = f"character.{character.pk}.{pool}"
            first = mine[0].before["characters"][str(character.pk)]
            start = {"fate_points": first["fate_points"], "stress": sum(first["stress"]),
                     "consequences": sum(1 for c in first["consequences"].values() if c)}[pool]  # fmt: skip
            deltas = sum(e.changes[key][1] - e.changes[key][0] for e in mine if key in e.changes)
            now = {"fate_points": character.sheet["fate_points"], "stress": sum(character.sheet["stress"]),
                   "consequences": sum(1 for c in character.sheet["consequences"].values() if c)}[pool]  # fmt: skip
            assert start + deltas == now, key
    pool_entries = [e for e in entries if e.after["campaign"] is not None]
    assert pool_entries[-1].after["campaign"] == services.rules_state(t.campaign)
    start = pool_entries[0].before["campaign"]["gm_fate_points"]
    deltas = sum(
        e.changes["campaign.gm_fate_points"][1] - e.changes["campaign.gm_fate_points"][0] for e in pool_entries
    )
    assert start + deltas == services.rules_state(t.campaign)["gm_fate_points"] == 1
    # each entry's before is what the previous entry on the same sheet left
    last: dict[str, Any] = {}
    for entry in entries:
        for pk, sheet in entry.before["characters"].items():
            if pk in last:
                assert last[pk] == sheet
        last.update(entry.after["characters"])


def test_the_gm_ends_the_scene_for_the_whole_table(fae: FaeTable) -> None:
    op(fae, fae.player, "absorb_hit", fae.ana, owner="a", attacker="gm", shifts=1, box=1)
    op(fae, fae.player2, "absorb_hit", fae.carla, owner="c", attacker="gm", shifts=2, box=2)
    op(fae, fae.gm, "absorb_hit", fae.bruno, owner="b", attacker="gm", shifts=3, box=3)
    entry = op(fae, fae.gm, "end_scene", None, reason="fin de la escena 1")
    assert entry.character is None
    assert entry.changes == {f"character.{fae.ana.pk}.stress": [1, 0], f"character.{fae.carla.pk}.stress": [1, 0]}
    assert sheet_of(fae.ana)["stress"] == sheet_of(fae.carla)["stress"] == [False, False, False]
    assert sheet_of(fae.bruno)["stress"] == [False, False, True]  # NPCs are the GM's to clear one by one
    denied(fae, PermissionDenied, fae.player, "end_scene", None)
