"""The registry entry, the conflict state machine's refusals, the settings variants and the sheet."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

import systems.dont_rest_your_head as dont_rest_your_head_rules
from systems.dice import ScriptedDice, SeededDice
from systems.dont_rest_your_head import RULESET, coins, conflict, crash, snap
from systems.dont_rest_your_head.coins import Chest
from systems.dont_rest_your_head.conflict import ConflictState, Table
from systems.dont_rest_your_head.operations import Party, PcAndChest
from systems.dont_rest_your_head.roll import LeaderRollRequest, prepare_leader_roll
from systems.dont_rest_your_head.settings import Settings
from systems.dont_rest_your_head.sheet import Sheet, Status, check_creation, new_protagonist
from systems.errors import RulesError
from tests.systems.test_dont_rest_your_head_vectors import close, pc, refused, run


def test_registry_entry() -> None:
    rs = dont_rest_your_head_rules.RULESET
    assert rs is RULESET and rs.names.es == "No te Duermas"
    assert [k.key for k in rs.roll_kinds] == ["conflict", "leader", "helper", "pain"]
    assert all(k.request_model is not None for k in rs.roll_kinds)
    assert {p.key for p in rs.pools} >= {"despair", "hope", "discipline", "permanent_madness"}
    assert {t.key for t in rs.tracks} == {"exhaustion", "fight", "flight", "scars"}
    keys = {op.key for op in rs.operations}
    assert {
        "take_breather",
        "recover_discipline",
        "create_scar",
        "transform_scar",
        "carry_out_crash",
        "wake_up",
        "complete_recovery",
        "open_session",
        "close_session",
        "conflict_shade",
        "conflict_spend_hope",
        "conflict_settle",
        "conflict_invoke_scar",
    } <= keys
    assert rs.default_settings() == Settings()
    s = Settings()
    assert (s.fight_boxes, s.flight_boxes, s.crash_when_exhaustion_exceeds, s.seal_rolls) == (3, 3, 6, True)
    assert s.voluntary_increase_scope == "per_roll" and s.despair_per_pain_domination == "one_per_conflict"
    assert s.consequence_targets == "leader_only" and s.snap_during_recovery == "literal"


def test_resolve_validates_dicts_at_the_edge() -> None:
    assert RULESET.resolve is not None
    out = RULESET.resolve(
        "conflict", {"discipline": 3, "exhaustion": 2, "pain": 4}, ScriptedDice([2, 2, 5, 3, 6, 1, 3, 5, 6])
    )
    assert out.outcome.dominant_pool == "pain"  # vector 1 through the registry
    with pytest.raises(ValidationError):
        RULESET.resolve("pain", {"pain": "many"}, SeededDice(1))
    with refused("PAIN_RANGE"):
        RULESET.resolve("pain", {"pain": 0}, SeededDice(1))
    with pytest.raises(RulesError):
        RULESET.resolve("fate", {}, SeededDice(1))


def test_a_whole_conflict_through_generic_operations() -> None:
    """The Django layer's view: look operations up by key, validate params, apply."""

    def apply(key: str, state: object, dice: object = None, **params: object) -> object:
        op = RULESET.operation(key)
        assert op.params_model is not None
        return op.apply(state, op.params_model.model_validate(params), None, dice=dice)

    declare = RULESET.extras["declare_conflict"]
    t = Table(declare("c", "lead"), Chest(despair=1), {"lead": pc(exhaustion=1, fight=1)})
    t = apply("conflict_oppose", t, opponents=[2, 2])
    assert t.conflict.pain == 4
    t = apply("conflict_start_rolls", t)
    t = apply("conflict_roll_leader", t, ScriptedDice([1, 5, 6, 2]), pc="lead")
    t = apply("conflict_roll_pain", t, ScriptedDice([1, 2, 3, 5]))
    t = apply("conflict_shade", t, kind="add6", pool="discipline")
    t = apply("conflict_pass", t, side="player")
    t = apply("conflict_resolve", t)
    t = apply("conflict_settle", t, discipline_benefits={"lead": "exhaustion-1"})
    assert t.conflict.state == ConflictState.CLOSED and (t.chest.despair, t.chest.hope) == (0, 1)
    assert t.sheets["lead"].exhaustion == 0
    state = apply("take_breather", PcAndChest(t.sheets["lead"], t.chest), uses=["clear_fight"], gm_allows=True)
    assert (state.sheet.fight, state.chest.hope) == (0, 0)
    party = apply("close_session", Party(Chest(hope=1, session_open=True), {"lead": state.sheet}), spends={"lead": []})
    assert party.chest.session_open is False


def test_out_of_order_steps_are_refused() -> None:
    c = conflict.declare("c", "lead", ["alia"])
    t = Table(c, Chest(), {"lead": pc(), "alia": pc("Alia")})
    with refused("WRONG_STATE"):
        conflict.roll_pain(t, SeededDice(1))
    with refused("WRONG_STATE"):
        conflict.start_rolls(c)
    with refused("PAIN_RANGE"):
        conflict.oppose(c, 0)
    t = Table(conflict.start_rolls(conflict.oppose(c, 2)), Chest(despair=1), t.sheets)
    assert conflict.is_sealed(t.conflict)
    with refused("WINDOW_CLOSED"):
        conflict.shade(t, "add6", "pain")
    with refused("NOT_LEADER"):
        conflict.roll_leader(t, "alia", LeaderRollRequest(), SeededDice(1))
    t = conflict.roll_leader(t, "lead", LeaderRollRequest(), SeededDice(1))
    with refused("DUPLICATE_ROLL"):
        conflict.roll_leader(t, "lead", LeaderRollRequest(), SeededDice(1))
    t = conflict.roll_pain(t, SeededDice(2))
    assert t.conflict.state == ConflictState.AWAITING_ROLLS  # the helper hasn't posted
    t = conflict.drop_helper(t, "alia")
    assert t.conflict.state == ConflictState.ADJUSTING and not conflict.is_sealed(t.conflict)
    assert t.conflict.involved == ("lead",)
    with refused("WRONG_STATE"):
        conflict.void(t)
    from systems.dont_rest_your_head.settlement import SettlementChoices, settle

    with refused("WRONG_STATE"):
        settle(t, SettlementChoices())
    with refused("NOT_LEADER"):
        conflict.spend_hope(t, "alia")


def test_void_keeps_the_voluntary_increase() -> None:
    c = conflict.start_rolls(conflict.oppose(conflict.declare("c", "lead"), 2))
    t = conflict.roll_leader(
        Table(c, Chest(), {"lead": pc(exhaustion=1)}), "lead", LeaderRollRequest(voluntary_increase=True), SeededDice(3)
    )
    t = conflict.void(t)
    assert t.conflict.state == ConflictState.VOID and t.sheets["lead"].exhaustion == 2
    assert not conflict.in_unsettled_conflict(t.conflict, "lead")


def test_gm_resolve_waits_for_the_player_after_a_shading() -> None:
    t = conflict.shade(run(pc(), d=[6, 4, 4], p=[4], chest=Chest(despair=1)), "remove6", "discipline")
    with refused("RESOLVE_TOO_SOON"):
        conflict.gm_resolve(t)
    assert conflict.gm_resolve(t, player_notified_and_timed_out=True).conflict.state == ConflictState.SETTLING
    # a player change after the shading resets the passes: one pass is not enough
    t2 = conflict.pass_turn(t, "gm")
    assert conflict.pass_turn(t2, "player").conflict.state == ConflictState.SETTLING
    assert conflict.gm_resolve(conflict.pass_turn(t, "player"), True).conflict.state == ConflictState.SETTLING


def test_minor_and_major_are_exclusive() -> None:
    t = run(pc(exhaustion=1), d=[4, 4, 4], e=[4, 4], p=[4], talent_use="major")
    with refused("TALENT_USE_EXCLUSIVE"):
        conflict.declare_minor_use(t, "lead", gm_confirms=True)
    t = conflict.declare_minor_use(run(pc(exhaustion=1), d=[4, 4, 4], e=[4], p=[4]), "lead", True)
    with refused("TALENT_USE_EXCLUSIVE"):
        conflict.declare_minor_use(t, "lead", True)


def test_cannot_roll_asleep_or_as_a_nightmare() -> None:
    for status, extra in (("asleep", {"discipline_restore_to": 3}), ("nightmare", {"discipline": 0})):
        with refused("CANNOT_ROLL"):
            prepare_leader_roll(pc(status=status, **extra), LeaderRollRequest())


def test_per_scene_voluntary_increase_setting() -> None:
    per_scene = Settings(voluntary_increase_scope="per_scene")
    sheet, _, _ = prepare_leader_roll(pc(), LeaderRollRequest(voluntary_increase=True), per_scene, scene_id="s")
    with refused("ONCE_PER_ROLL"):
        prepare_leader_roll(sheet, LeaderRollRequest(voluntary_increase=True), per_scene, scene_id="s")
    assert prepare_leader_roll(sheet, LeaderRollRequest(voluntary_increase=True), scene_id="s")[1] == 2
    assert prepare_leader_roll(sheet, LeaderRollRequest(voluntary_increase=True), per_scene, None, "t")[1] == 2


def test_despair_per_involved_pc_and_consequence_for_all() -> None:
    s = Settings(despair_per_pain_domination="one_per_involved_pc", consequence_targets="all_involved")
    t = run(pc(), d=[4, 4, 5], p=[6, 1, 2], helpers={"alia": (pc("Alia"), [4, 4, 4])}, settings=s)
    end = close(t, s, consequence="exhaustion+1")
    assert end.chest.despair == 2
    assert (end.sheets["lead"].exhaustion, end.sheets["alia"].exhaustion) == (1, 1)
    default = close(t, consequence="exhaustion+1")
    assert default.chest.despair == 1 and default.sheets["alia"].exhaustion == 0


def test_snap_during_recovery_settings() -> None:
    recovering = pc(status="recovering", discipline=1, discipline_restore_to=3, fight=3, flight=3)
    literal = snap.check_response(recovering, None, 4)
    assert literal.status == Status.NIGHTMARE and literal.nightmare_pain == 4
    gentle = snap.check_response(recovering, None, 4, Settings(snap_during_recovery="permanent_only"))
    assert gentle.status == Status.RECOVERING and gentle.discipline == 1
    assert gentle.discipline_restore_to == 2 and gentle.permanent_madness == 1
    asleep = crash.carry_out_crash(pc(status="crash_pending", exhaustion=7, discipline=2, permanent_madness=1))
    assert crash.complete_recovery(crash.wake_up(asleep)).discipline == 2  # (R, B-AMB-14)


def test_crash_threshold_setting_and_breather_averting_a_crash() -> None:
    low = Settings(crash_when_exhaustion_exceeds=4)
    sheet = crash.raise_exhaustion(pc(exhaustion=4), low)
    assert (sheet.exhaustion, sheet.status) == (5, Status.CRASH_PENDING)
    with refused("EXHAUSTION_CAP"):
        prepare_leader_roll(pc(exhaustion=4), LeaderRollRequest(voluntary_increase=True), low)
    sheet, chest = coins.take_breather(
        pc(status="crash_pending", exhaustion=7), Chest(hope=1), ["exhaustion-1"], True, False
    )
    assert (sheet.exhaustion, sheet.status, chest.hope) == (6, Status.AWAKE, 0)
    with refused("WRONG_STATUS"):
        crash.carry_out_crash(sheet)
    with refused("GM_NOT_CONFIRMED"):
        crash.crash_disaster(pc(status="crash_pending", exhaustion=7), gm_agrees=True, player_agrees=False)
    assert crash.crash_disaster(pc(status="crash_pending", exhaustion=7), True, True).status == Status.REMOVED


def test_sheet_validation_and_creation() -> None:
    with pytest.raises(ValidationError):
        pc(exhaustion=7)  # 7 only while crash-pending
    with pytest.raises(ValidationError):
        pc(fight=4)
    with pytest.raises(ValidationError):
        Sheet.model_validate(pc(fight=2).model_dump(), context={"settings": Settings(fight_boxes=1)})
    with pytest.raises(ValidationError):
        pc(discipline=0)  # discipline 0 is a Nightmare
    with pytest.raises(ValidationError):
        Sheet.model_validate({"name": "x"})  # both talents are required
    fresh = new_protagonist("Alia", pc().exhaustion_talent, pc().madness_talent)
    assert check_creation(fresh) is fresh and fresh.invariant_holds()
    with refused("CREATION_RULES"):
        check_creation(pc(exhaustion=1))
    assert not pc(discipline=2).invariant_holds()


def test_recover_discipline_refusals() -> None:
    with refused("IN_CONFLICT"):
        coins.recover_discipline(pc(discipline=2, permanent_madness=1), Chest(hope=3), True, True)
    with refused("GM_NOT_CONFIRMED"):
        coins.recover_discipline(pc(discipline=2, permanent_madness=1), Chest(hope=3), False, False)
    with refused("WRONG_STATUS"):
        coins.recover_discipline(
            pc(status="recovering", discipline=1, discipline_restore_to=2, permanent_madness=1),
            Chest(hope=5),
            True,
            False,
        )


def test_close_session_needs_conflicts_closed() -> None:
    with refused("CONFLICTS_OPEN"):
        coins.close_session(Chest(session_open=True), {}, {}, open_conflicts=1)
    with refused("SESSION_CLOSED"):
        coins.close_session(Chest(), {}, {}, open_conflicts=0)
    assert coins.open_session(Chest(), Settings(initial_despair_per_session=2)).despair == 2
