"""Fate Accelerated: harm and taken out (§9.11), concession (§9.12), refresh (§9.13),
scene/session/adventure ends, recovery and renaming (§9.14)."""

from __future__ import annotations

import pytest

from systems.errors import RulesError
from systems.fate_accelerated.actions import Action, Approach
from systems.fate_accelerated.aspects import (
    AspectStatus,
    Moment,
    RemovedReason,
    Severity,
    boost,
    end_scene_aspects,
    situation_aspect,
)
from systems.fate_accelerated.consequences import (
    TimeEvent,
    TimeEventKind,
    clearable_consequences,
    recover_consequence,
    rename_consequence,
)
from systems.fate_accelerated.fate_points import concede, fate_points_at_session_start
from systems.fate_accelerated.ladder import Outcome
from systems.fate_accelerated.resolution import settle_action
from systems.fate_accelerated.rolls import blocks_concession, declare_action
from systems.fate_accelerated.scenes import end_scene, start_scene, start_session
from systems.fate_accelerated.settings import FaeSettings, RefreshTrigger
from systems.fate_accelerated.sheet import FaeSheet, SceneStatus
from systems.fate_accelerated.stress import absorption_options, apply_hit, validate_absorption
from tests.systems.test_fate_accelerated_fixtures import ANA, BRUNO, CONFLICT, K1, SCENE, ana, at_total, bruno, rolled
from tests.systems.vectors import vector

MILD, MODERATE, SEVERE = Severity.MILD, Severity.MODERATE, Severity.SEVERE
TEXT = {MILD: "Torcedura en el tobillo", MODERATE: "Fractura dolorosa de pierna", SEVERE: "Conmoción grave"}


def hit(sheet: FaeSheet, shifts: int, boxes=(), slots=(), moment: Moment = K1, **kw):
    return apply_hit(sheet, ANA, BRUNO, shifts, boxes=boxes, slots=slots, texts=TEXT, moment=moment, **kw)


def with_box(sheet: FaeSheet, *boxes: int) -> FaeSheet:
    return sheet.with_changes(stress=tuple(b in boxes for b in (1, 2, 3)))


def filled(sheet: FaeSheet, *slots: Severity, moment: Moment = K1) -> FaeSheet:
    for s in slots:
        sheet = hit(sheet, 1, slots=(s,), moment=moment).sheet
    return sheet


def options(sheet: FaeSheet, shifts: int) -> set[tuple[int | None, tuple[Severity, ...]]]:
    return {(o.box, o.slots) for o in absorption_options(sheet, shifts, minimal_only=True)}


def invalid(code: str, sheet: FaeSheet, shifts: int, boxes, slots, settings: FaeSettings | None = None) -> None:
    with pytest.raises(RulesError) as err:
        validate_absorption(sheet, shifts, boxes, slots, settings)
    assert err.value.code == code


@vector("fate-accelerated-TV-084")
def test_box_and_mild_absorb_the_source_example(vector_id: str) -> None:
    result = hit(ana(), 4, (2,), (MILD,))
    assert result.absorbed == 4 and not result.taken_out
    assert result.sheet.stress == (False, True, False)
    mild = result.sheet.consequences.mild
    assert mild is not None and mild.text == "Torcedura en el tobillo" and mild.free_for(BRUNO) == 1
    assert result.sheet.scene_status is SceneStatus.ACTIVE


@vector("fate-accelerated-TV-085")
def test_insufficient_choice_is_invalid(vector_id: str) -> None:
    invalid("absorption_insufficient", ana(), 4, (2,), ())


@vector("fate-accelerated-TV-086")
def test_one_box_per_hit(vector_id: str) -> None:
    invalid("one_stress_box_per_hit", ana(), 3, (1, 2), ())


@vector("fate-accelerated-TV-087")
def test_checked_box_unavailable(vector_id: str) -> None:
    sheet = with_box(ana(), 2)
    invalid("stress_box_unavailable", sheet, 2, (2,), ())
    assert options(sheet, 2) == {(3, ()), (None, (MILD,)), (None, (MODERATE,)), (None, (SEVERE,))}


@vector("fate-accelerated-TV-088")
def test_filled_slot_unavailable(vector_id: str) -> None:
    invalid("consequence_slot_unavailable", filled(ana(), MILD), 3, (1,), (MILD,))


@vector("fate-accelerated-TV-089")
def test_oversized_box_is_legal(vector_id: str) -> None:
    result = hit(ana(), 1, (3,))
    assert result.absorbed == 3 and result.sheet.stress == (False, False, True)
    assert validate_absorption(ana(), 1, (3,), (), FaeSettings(require_minimal_absorption=True)) == 3


@vector("fate-accelerated-TV-090")
def test_removable_part_only_refused_when_minimal_required(vector_id: str) -> None:
    assert validate_absorption(ana(), 2, (1,), (MILD,)) == 3
    invalid("absorption_not_minimal", ana(), 2, (1,), (MILD,), FaeSettings(require_minimal_absorption=True))


OPTIONS = {
    "fate-accelerated-TV-091": (
        (),
        (),
        1,
        {(1, ()), (2, ()), (3, ()), (None, (MILD,)), (None, (MODERATE,)), (None, (SEVERE,))},
    ),
    "fate-accelerated-TV-092": (
        (),
        (),
        3,
        {(3, ()), (1, (MILD,)), (2, (MILD,)), (None, (MODERATE,)), (None, (SEVERE,))},
    ),
    "fate-accelerated-TV-093": ((), (), 4, {(2, (MILD,)), (3, (MILD,)), (None, (MODERATE,)), (None, (SEVERE,))}),
    "fate-accelerated-TV-094": (
        (),
        (),
        7,
        {
            (1, (SEVERE,)),
            (1, (MILD, MODERATE)),
            (2, (SEVERE,)),
            (2, (MILD, MODERATE)),
            (3, (MODERATE,)),
            (3, (SEVERE,)),
            (None, (MILD, SEVERE)),
            (None, (MODERATE, SEVERE)),
        },
    ),
    "fate-accelerated-TV-097": ((1, 2, 3), (), 5, {(None, (SEVERE,)), (None, (MILD, MODERATE))}),
    "fate-accelerated-TV-099": ((3,), (MILD,), 4, {(None, (MODERATE,)), (None, (SEVERE,))}),
    "fate-accelerated-TV-100": ((), (MODERATE,), 4, {(2, (MILD,)), (3, (MILD,)), (None, (SEVERE,))}),
}


@vector(*OPTIONS)
def test_minimal_options(vector_id: str) -> None:
    boxes, slots, shifts, expected = OPTIONS[vector_id]
    sheet = filled(with_box(ana(), *boxes), *slots)
    assert options(sheet, shifts) == expected
    assert len(absorption_options(sheet, shifts)) == len(expected)  # no duplicates


@vector("fate-accelerated-TV-095")
def test_fifteen_shifts_need_everything(vector_id: str) -> None:
    all_options = absorption_options(ana(), 15, minimal_only=False)
    assert [(o.box, o.slots) for o in all_options] == [(3, (MILD, MODERATE, SEVERE))]


@vector("fate-accelerated-TV-096", "fate-accelerated-TV-098")
def test_no_option_means_taken_out(vector_id: str) -> None:
    sheet, shifts = {
        "fate-accelerated-TV-096": (ana(), 16),
        "fate-accelerated-TV-098": (filled(with_box(ana(), 1, 2, 3), MILD, MODERATE), 7),
    }[vector_id]
    assert absorption_options(sheet, shifts, minimal_only=False) == []
    result = hit(sheet, shifts, taken_out=True)
    assert result.taken_out and result.sheet.scene_status is SceneStatus.TAKEN_OUT


@vector("fate-accelerated-TV-101")
def test_choosing_to_be_taken_out(vector_id: str) -> None:
    result = hit(ana(), 1, taken_out=True)
    assert result.sheet.scene_status is SceneStatus.TAKEN_OUT
    assert result.sheet.stress == (False, False, False) and result.sheet.consequences.filled() == ()


@vector("fate-accelerated-TV-102")
def test_taken_out_cannot_act_until_next_scene(vector_id: str) -> None:
    out = hit(ana(), 1, taken_out=True).sheet
    with pytest.raises(RulesError) as err:
        declare_action("r", ANA, out, Action.OVERCOME, Approach.QUICK, difficulty=2)
    assert err.value.code == "actor_out_of_scene"
    back = start_scene(end_scene(out))
    assert back.scene_status is SceneStatus.ACTIVE
    assert declare_action("r", ANA, back, Action.OVERCOME, Approach.QUICK, difficulty=2).roll.actor == ANA


@vector("fate-accelerated-TV-103")
def test_traded_hit_absorbed_by_box_two(vector_id: str) -> None:
    result = settle_action(
        at_total("at", BRUNO, Action.ATTACK, 7, target=ANA),
        at_total("d", ANA, Action.DEFEND, 4),
        trade_shift_for_boost=True,
    )
    assert (result.outcome, result.shifts) == (Outcome.SUCCESS_WITH_STYLE, 3)
    assert result.boost_holders == (BRUNO,)
    event = result.harm_event()
    assert event is not None and event.shifts == 2
    absorbed = hit(ana(), event.shifts, (2,))
    assert absorbed.absorbed == 2 and absorbed.sheet.stress == (False, True, False)


# --- §9.12 concession -------------------------------------------------------------------------------

K0 = Moment(adventure=1, session=1, scene=0, conflict="K0")
CONCEDE = {
    "fate-accelerated-TV-104": (lambda: ana(), 4),
    "fate-accelerated-TV-105": (lambda: filled(ana(), MILD, MODERATE), 6),
    "fate-accelerated-TV-106": (lambda: filled(filled(ana(), SEVERE, moment=K0), MILD), 5),
    "fate-accelerated-TV-108": (lambda: hit(ana(), 6, (), (MILD, MODERATE)).sheet, 6),
}


@vector(*CONCEDE)
def test_concession_fate_points(vector_id: str) -> None:
    build, fp = CONCEDE[vector_id]
    result = concede(build(), ANA, CONFLICT)
    assert result.sheet.fate_points == fp and result.awarded == fp - 3
    assert result.sheet.scene_status is SceneStatus.CONCEDED


@vector("fate-accelerated-TV-107")
def test_concede_before_the_opponent_rolls(vector_id: str) -> None:
    attack = at_total("at", BRUNO, Action.ATTACK, 4, target=ANA)
    with pytest.raises(RulesError) as err:
        concede(ana(), ANA, CONFLICT, opposing_rolls_pending=[blocks_concession(attack, ANA)])
    assert err.value.code == "concession_too_late"
    settled = settle_action(attack, at_total("d", ANA, Action.DEFEND, 2))
    absorbed = hit(ana(), settled.effects.harm, (2,)).sheet
    declared_next = declare_action("at2", BRUNO, bruno(), Action.ATTACK, Approach.QUICK, target=ANA).roll
    pending = [blocks_concession(settled.roll, ANA), blocks_concession(declared_next, ANA)]
    assert concede(absorbed, ANA, CONFLICT, opposing_rolls_pending=pending).sheet.fate_points == 4


# --- §9.13 refresh ----------------------------------------------------------------------------------

REFRESH = {
    "fate-accelerated-TV-109": (5, 2, 5),
    "fate-accelerated-TV-110": (1, 3, 3),
    "fate-accelerated-TV-111": (3, 3, 3),
    "fate-accelerated-TV-112": (0, 2, 2),
    "fate-accelerated-TV-113": (7, 3, 7),
}


@vector(*REFRESH)
def test_fate_points_at_session_start(vector_id: str) -> None:
    fp, refresh, expected = REFRESH[vector_id]
    assert fate_points_at_session_start(fp, refresh) == expected


@vector("fate-accelerated-TV-114")
def test_no_refresh_between_scenes_of_a_session(vector_id: str) -> None:
    broke = ana(fate_points=0)
    assert start_scene(end_scene(broke)).fate_points == 0
    assert start_session(broke).fate_points == 3
    assert start_scene(broke, FaeSettings(refresh_trigger=RefreshTrigger.SCENE_START)).fate_points == 3


# --- §9.14 ends of scenes, sessions, adventures; recovery; renaming ---------------------------------


def ev(kind: TimeEventKind, session: int = 1, adventure: int = 1, scene: int = 1) -> TimeEvent:
    return TimeEvent(kind, adventure, session, scene)


@vector("fate-accelerated-TV-115")
def test_scene_end_clears_stress(vector_id: str) -> None:
    assert end_scene(with_box(ana(), 1, 3)).stress == (False, False, False)


@vector("fate-accelerated-TV-116")
def test_scene_end_removes_boosts_and_situation_aspects(vector_id: str) -> None:
    aspects = (
        boost("b", "Distraído", ANA, SCENE),
        situation_aspect("sol", "Sol espléndido", SCENE),
        situation_aspect("niebla", "Niebla", SCENE).model_copy(update={"persists_beyond_scene": True}),
    )
    b, sol, niebla = end_scene_aspects(aspects, SCENE)
    assert b.status is AspectStatus.REMOVED
    assert sol.status is AspectStatus.REMOVED and sol.removed_reason is RemovedReason.SCENE_END
    assert niebla.active


def _recover(sheet: FaeSheet, sev: Severity, event: TimeEvent, confirm: bool = True, rest: bool = False):
    return recover_consequence(
        sheet, sev, event, justification="Descansa en la posada", gm_confirms=confirm, rest_available=rest
    )


@vector("fate-accelerated-TV-117")
def test_mild_clears_at_scene_end_with_rest(vector_id: str) -> None:
    sheet = filled(ana(), MILD)
    assert _recover(sheet, MILD, ev(TimeEventKind.SCENE_END), rest=True).consequences.mild is None


@vector("fate-accelerated-TV-118")
def test_mild_needs_a_chance_to_rest(vector_id: str) -> None:
    sheet = filled(ana(), MILD)
    assert clearable_consequences(sheet, ev(TimeEventKind.SCENE_END), rest_available=False) == ()
    with pytest.raises(RulesError) as err:
        _recover(sheet, MILD, ev(TimeEventKind.SCENE_END), rest=False)
    assert err.value.code == "consequence_not_clearable"
    assert _recover(sheet, MILD, ev(TimeEventKind.SCENE_END, scene=2), rest=True).consequences.mild is None


S4 = Moment(adventure=1, session=4, scene=10, conflict="K4")


@vector("fate-accelerated-TV-119")
def test_moderate_clears_at_end_of_next_session(vector_id: str) -> None:
    sheet = filled(ana(), MODERATE, moment=S4)
    assert clearable_consequences(sheet, ev(TimeEventKind.SESSION_END, session=4)) == ()
    with pytest.raises(RulesError):
        _recover(sheet, MODERATE, ev(TimeEventKind.SESSION_END, session=4))
    assert _recover(sheet, MODERATE, ev(TimeEventKind.SESSION_END, session=5)).consequences.moderate is None


@vector("fate-accelerated-TV-120")
def test_unconfirmed_recovery_is_offered_again(vector_id: str) -> None:
    sheet = filled(ana(), MODERATE, moment=S4)
    with pytest.raises(RulesError) as err:
        _recover(sheet, MODERATE, ev(TimeEventKind.SESSION_END, session=5), confirm=False)
    assert err.value.code == "recovery_not_confirmed"
    assert clearable_consequences(sheet, ev(TimeEventKind.SESSION_END, session=6)) == (MODERATE,)
    assert _recover(sheet, MODERATE, ev(TimeEventKind.SESSION_END, session=6)).consequences.moderate is None


@vector("fate-accelerated-TV-121")
def test_severe_clears_at_end_of_adventure(vector_id: str) -> None:
    sheet = filled(ana(), SEVERE, moment=Moment(adventure=1, session=2, scene=3))
    for session in (2, 3):
        assert clearable_consequences(sheet, ev(TimeEventKind.SESSION_END, session=session)) == ()
    assert _recover(sheet, SEVERE, ev(TimeEventKind.ADVENTURE_END, session=3)).consequences.severe is None


@vector("fate-accelerated-TV-122")
def test_rename_keeps_slot_timer_and_grants(vector_id: str) -> None:
    sheet = filled(ana(), MODERATE, moment=S4)
    renamed = rename_consequence(sheet, MODERATE, "Cojeando con muletas")
    moderate = renamed.consequences.moderate
    assert moderate is not None and moderate.text == "Cojeando con muletas"
    assert moderate.taken is not None and moderate.taken.session == 4
    assert moderate.free_for(BRUNO) == 1
    assert moderate.rename_history == ("Fractura dolorosa de pierna",)
    assert clearable_consequences(renamed, ev(TimeEventKind.SESSION_END, session=5)) == (MODERATE,)


@vector("fate-accelerated-TV-123")
def test_rename_mild_disabled_by_default(vector_id: str) -> None:
    sheet = filled(ana(), MILD)
    with pytest.raises(RulesError) as err:
        rename_consequence(sheet, MILD, "Tobillo vendado")
    assert err.value.code == "rename_mild_disabled"
    allowed = rename_consequence(sheet, MILD, "Tobillo vendado", FaeSettings(allow_rename_mild=True))
    assert allowed.consequences.mild is not None and allowed.consequences.mild.text == "Tobillo vendado"


def test_rolled_roll_blocks_concession_only_when_aimed_at_you() -> None:
    attack = rolled("at", BRUNO, ana(), Action.ATTACK, Approach.QUICK, "0000", target=ANA)
    assert blocks_concession(attack, ANA) and not blocks_concession(attack, BRUNO)
