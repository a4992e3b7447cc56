"""Every test vector of rules/dont-rest-your-head.md §8, run through the conflict state machine."""

from __future__ import annotations

from collections.abc import Sequence

from systems.dice import ScriptedDice, SeededDice
from systems.dont_rest_your_head import coins, conflict, crash, scars
from systems.dont_rest_your_head.coins import Chest
from systems.dont_rest_your_head.conflict import ConflictState, Table
from systems.dont_rest_your_head.domination import degree_word, dominant
from systems.dont_rest_your_head.outcome import compute_outcome
from systems.dont_rest_your_head.pain import collective_pain, combined_pain
from systems.dont_rest_your_head.roll import HelperRollRequest, LeaderRollRequest, prepare_leader_roll
from systems.dont_rest_your_head.settings import DEFAULT_SETTINGS, Settings
from systems.dont_rest_your_head.settlement import SettlementChoices, settle, settlement_options
from systems.dont_rest_your_head.sheet import MadnessTalent, PriceRule, Scar, Sheet, Status, Talent
from systems.errors import RulesError
from tests.systems.vectors import vector

KEY = "dont-rest-your-head"


def v(*numbers: int) -> list[str]:
    return [f"{KEY}-{n}" for n in numbers]


def pc(name: str = "Gavin", **fields: object) -> Sheet:
    base: dict[str, object] = {
        "name": name,
        "exhaustion_talent": Talent(name="Apostar"),
        "madness_talent": MadnessTalent(name="Teletransporte"),
    }
    base.update(fields)
    return Sheet.model_validate(base)


def run(
    leader: Sheet,
    d: Sequence[int],
    e: Sequence[int] = (),
    m: Sequence[int] = (),
    p: Sequence[int] = (),
    *,
    temp_madness: int = 0,
    voluntary: bool = False,
    talent_use: str | None = None,
    madness_talent: bool = False,
    madness_price: int | None = None,
    helpers: dict[str, tuple[Sheet, Sequence[int]]] | None = None,
    chest: Chest | None = None,
    settings: Settings = DEFAULT_SETTINGS,
) -> Table:
    """Declare, oppose and roll a conflict with scripted faces; returns it in ADJUSTING.

    Each roll must consume exactly its faces, so the setup (dice counts from the sheet) is checked too.
    """
    helpers = helpers or {}
    c = conflict.declare("c1", "lead", helpers=list(helpers), scene_id="s1")
    c = conflict.start_rolls(conflict.oppose(c, len(p), madness_price))
    sheets = {"lead": leader, **{name: sheet for name, (sheet, _) in helpers.items()}}
    table = Table(conflict=c, chest=chest or Chest(session_open=True, session_number=1), sheets=sheets)
    request = LeaderRollRequest(
        voluntary_increase=voluntary,
        temp_madness=temp_madness,
        talent_use=talent_use,  # type: ignore[arg-type]
        madness_talent=madness_talent,
    )
    dice = ScriptedDice([*d, *e, *m])
    table = conflict.roll_leader(table, "lead", request, dice, settings)
    assert dice.remaining == 0
    for name, (_, faces) in helpers.items():
        dice = ScriptedDice(faces)
        table = conflict.roll_helper(table, name, HelperRollRequest(), dice)
        assert dice.remaining == 0
    dice = ScriptedDice(p)
    table = conflict.roll_pain(table, dice)
    assert dice.remaining == 0
    assert table.conflict.state == ConflictState.ADJUSTING
    return table


def close(table: Table, settings: Settings = DEFAULT_SETTINGS, **choices: object) -> Table:
    """Both sides pass, then settle with the given choices."""
    table = conflict.pass_turn(conflict.pass_turn(table, "player"), "gm")
    assert table.conflict.state == ConflictState.SETTLING
    out = settle(table, SettlementChoices(**choices), settings)  # type: ignore[arg-type]
    assert out.conflict.state == ConflictState.CLOSED
    return out


class refused:
    """``with refused("CODE"):`` asserts a RulesError with exactly that code."""

    def __init__(self, code: str) -> None:
        self.code = code

    def __enter__(self) -> None:
        return None

    def __exit__(self, exc_type: object, exc: object, tb: object) -> bool:
        assert isinstance(exc, RulesError), f"expected RulesError {self.code}, got {exc!r}"
        assert exc.code == self.code, f"expected {self.code}, got {exc.code}"
        assert exc.message_es and exc.message_en
        return True


# --- 8.1 worked examples from the source -------------------------------------------------------


@vector(*v(1))
def test_basic_roll_pain_dominates_on_next_die(vector_id: str) -> None:
    t = run(pc(exhaustion=2), d=[2, 2, 5], e=[3, 6], p=[1, 3, 5, 6])
    res = conflict.outcome(t.conflict)
    assert (res.player_degree, res.gm_degree, res.success) == (3, 2, True)
    assert res.strengths == {"discipline": 5, "exhaustion": 6, "madness": None, "pain": 6}
    assert res.dominant_pool == "pain" and res.superior_pool == "exhaustion"
    assert "tiene éxito con 3; domina el dolor" in res.summary("Rob")
    assert settlement_options(t).consequences == ("none",)
    with refused("CONSEQUENCE_NOT_ALLOWED"):
        close(t, consequence="exhaustion+1")
    end = close(t)
    assert end.chest.despair == 1
    assert end.sheets["lead"].exhaustion == 2


@vector(*v(2))
def test_discipline_dominates_on_a_loss(vector_id: str) -> None:
    t = run(pc(exhaustion=1), d=[1, 5, 6], e=[2], p=[1, 2, 3, 5])
    res = conflict.outcome(t.conflict)
    assert (res.player_degree, res.gm_degree, res.success) == (2, 3, False)
    assert res.strengths["discipline"] == 6 and res.strengths["exhaustion"] == 2
    assert res.strengths["pain"] == 5 and res.dominant_pool == "discipline"
    assert settlement_options(t).discipline_benefits["lead"] == ("nothing", "exhaustion-1")
    end = close(t, discipline_benefits={"lead": "nothing"}, consequence="none")
    assert (end.sheets["lead"].exhaustion, end.sheets["lead"].fight, end.sheets["lead"].flight) == (1, 0, 0)


@vector(*v(3))
def test_gambling_minor_use_after_reveal(vector_id: str) -> None:
    t = run(pc(exhaustion=1), d=[4, 4, 5], e=[6, 6], p=[4, 3, 5, 5, 4, 6], voluntary=True)
    assert t.sheets["lead"].exhaustion == 2
    assert not conflict.outcome(t.conflict).success  # 0 vs 1 before the talent
    t = conflict.declare_minor_use(t, "lead", gm_confirms=True)
    res = conflict.outcome(t.conflict)
    assert res.raw_successes == 0 and res.player_degree == 2 and res.gm_degree == 1 and res.success
    assert (res.strengths["discipline"], res.strengths["exhaustion"], res.strengths["pain"]) == (5, 6, 6)
    assert res.dominant_pool == "exhaustion"
    assert close(t).sheets["lead"].exhaustion == 3


@vector(*v(4))
def test_madness_talent_and_madness_dominating(vector_id: str) -> None:
    t = run(
        pc(exhaustion=2),
        d=[4, 4, 1],
        e=[5, 3],
        m=[6, 5, 2, 2],
        p=[5, 5, 5, 4, 4, 3, 3, 1],
        temp_madness=4,
        madness_talent=True,
    )
    res = conflict.outcome(t.conflict)
    assert (res.player_degree, res.gm_degree, res.success) == (4, 3, True)
    without = compute_outcome([4, 4, 1], [5, 3], [], [5, 5, 5, 4, 4, 3, 3, 1])
    assert (without.player_degree, without.success) == (2, False)
    assert [res.strengths[k] for k in ("discipline", "exhaustion", "madness", "pain")] == [4, 5, 6, 5]
    assert res.dominant_pool == "madness"
    end = close(t, madness_boxes={"lead": "flight"})
    lead = end.sheets["lead"]
    assert (lead.fight, lead.flight, lead.exhaustion) == (0, 1, 2)


@vector(*v(5))
def test_snap_while_teleporting(vector_id: str) -> None:
    t = run(
        pc(exhaustion=2, fight=3, flight=3),
        d=[4, 5, 2],
        e=[3, 4],
        m=[6, 6, 1, 2, 3, 5],
        p=[6, 5, 4, 2, 1],
        temp_madness=6,
        madness_talent=True,
        madness_price=3,
    )
    res = conflict.outcome(t.conflict)
    assert (res.player_degree, res.gm_degree, res.success) == (5, 2, True)
    assert res.dominant_pool == "madness"
    assert settlement_options(t).madness_boxes["lead"] == ()  # no free box: a snap is coming
    lead = close(t).sheets["lead"]
    assert (lead.fight, lead.flight, lead.discipline, lead.permanent_madness) == (0, 0, 2, 1)
    assert lead.snap_episode and lead.snap_scene_id == "s1" and lead.status == Status.AWAKE


@vector(*v(6))
def test_major_use_ladies_of_hate(vector_id: str) -> None:
    t = run(pc(exhaustion=2), d=[1, 4, 5], e=[2, 3, 5], p=[6, 5, 4, 3, 3, 2, 1], talent_use="major")
    assert t.sheets["lead"].exhaustion == 3
    res = conflict.outcome(t.conflict)
    assert res.raw_successes == 3 and res.player_degree == 6 and res.gm_degree == 4 and res.success
    assert res.strengths["pain"] == 6 and res.dominant_pool == "pain"
    assert res.superior_pool == "discipline"
    end = close(t)
    assert end.chest.despair == 1 and end.sheets["lead"].exhaustion == 3


@vector(*v(7))
def test_helping(vector_id: str) -> None:
    alia = pc("Alia", exhaustion=1)
    t = run(pc(exhaustion=2), d=[2, 4, 5], e=[6, 1], p=[5, 5, 2, 4], helpers={"alia": (alia, [3, 4, 6])})
    res = conflict.outcome(t.conflict)
    assert (res.leader_degree, res.helper_successes, res.player_degree, res.gm_degree) == (2, 1, 3, 1)
    assert res.success and res.dominant_pool == "exhaustion"
    # counted as discipline, Alia's 6 would have dominated: it is ignored
    assert dominant({"discipline": [2, 4, 5, 3, 4, 6], "exhaustion": [6, 1], "pain": [5, 5, 2, 4]}) == ("discipline")
    end = close(t)
    assert end.sheets["lead"].exhaustion == 3 and end.sheets["alia"].exhaustion == 2
    c = conflict.start_rolls(conflict.oppose(conflict.declare("c2", "lead", ["alia"]), 4))
    table = Table(conflict=c, chest=Chest(), sheets={"lead": pc(), "alia": alia})
    with refused("HELPER_NO_TALENTS"):
        conflict.roll_helper(table, "alia", HelperRollRequest(talent_use="minor"), ScriptedDice([1, 1, 1]))


@vector(*v(8))
def test_failure_with_exhaustion_dominating(vector_id: str) -> None:
    t = run(pc(exhaustion=2), d=[4, 5, 1], e=[6, 4], p=[2, 3, 5])
    res = conflict.outcome(t.conflict)
    assert (res.player_degree, res.gm_degree, res.success, res.dominant_pool) == (1, 2, False, "exhaustion")
    assert settlement_options(t).consequences == ("none", "check_box")
    with refused("CONSEQUENCE_NOT_ALLOWED"):
        close(t, consequence="exhaustion+1")
    lead = close(t, consequence="check_box", consequence_boxes={"lead": "flight"}).sheets["lead"]
    assert (lead.exhaustion, lead.fight, lead.flight) == (3, 0, 1)


@vector(*v(9))
def test_shading_remove_then_add(vector_id: str) -> None:
    t = run(pc(exhaustion=2), d=[6, 5, 1], e=[5, 1], p=[4, 3, 2], chest=Chest(despair=3))
    res = conflict.outcome(t.conflict)
    assert (res.player_degree, res.gm_degree, res.success, res.dominant_pool) == (2, 2, True, "discipline")
    t = conflict.shade(t, "remove6", "discipline")
    res = conflict.outcome(t.conflict)
    assert res.pools.discipline == (5, 1) and res.dominant_pool == "discipline"
    t = conflict.shade(t, "add6", "exhaustion")
    res = conflict.outcome(t.conflict)
    assert sorted(res.pools.exhaustion, reverse=True) == [6, 5, 1] and res.dominant_pool == "exhaustion"
    assert (res.player_degree, res.gm_degree, res.success) == (2, 2, True)
    assert (t.chest.despair, t.conflict.pending_hope) == (1, 2)
    end = close(t)
    assert end.sheets["lead"].exhaustion == 3
    assert (end.chest.despair, end.chest.hope) == (1, 2)
    assert end.conflict.settlement is not None and end.conflict.settlement.despair_gained == 0


@vector(*v(10))
def test_improve_successes_with_hope(vector_id: str) -> None:
    t = run(pc(exhaustion=2), d=[2, 4, 5], e=[3, 5], p=[1, 2, 3, 4, 4], chest=Chest(hope=2))
    assert not conflict.outcome(t.conflict).success
    t = conflict.spend_hope(t, "lead", 1)
    res = conflict.outcome(t.conflict)
    assert res.pools.discipline == (2, 4, 5, 1)
    assert (res.player_degree, res.gm_degree, res.success) == (3, 3, True)
    assert t.chest.hope == 1 and res.dominant_pool == "discipline"


@vector(*v(11))
def test_taking_a_breather(vector_id: str) -> None:
    alia = pc("Alia", exhaustion=5, fight=2)
    sheet, chest = coins.take_breather(
        alia, Chest(hope=3), ["exhaustion-1", "exhaustion-1", "clear_fight"], gm_allows=True, in_conflict=False
    )
    assert (sheet.exhaustion, sheet.fight, sheet.flight, chest.hope) == (3, 1, 0, 0)


@vector(*v(12))
def test_recover_discipline(vector_id: str) -> None:
    gavin = pc(discipline=2, permanent_madness=1)
    sheet, chest = coins.recover_discipline(gavin, Chest(hope=3), gm_confirms=True, in_conflict=False)
    assert (sheet.discipline, sheet.permanent_madness, chest.hope) == (3, 0, 0)


@vector(*v(13))
def test_minor_use_at_low_exhaustion(vector_id: str) -> None:
    t = run(pc(exhaustion=0), d=[4, 5, 6], e=[5], p=[4, 6], voluntary=True)
    t = conflict.declare_minor_use(t, "lead", gm_confirms=True)
    res = conflict.outcome(t.conflict)
    assert (res.raw_successes, res.player_degree, res.gm_degree, res.success) == (0, 1, 0, True)
    assert res.descriptor == "adecuado" and res.dominant_pool == "discipline"


@vector(*v(14))
def test_two_newspaper_boys(vector_id: str) -> None:
    assert combined_pain([2, 2]) == 4
    assert combined_pain([4, 4]) == 6


@vector(*v(15))
def test_collective_pain_set_then_lowered(vector_id: str) -> None:
    c = conflict.oppose(conflict.declare("a", "lead"), collective_pain(6))
    t = conflict.roll_pain(Table(conflict.start_rolls(c), Chest(), {"lead": pc()}), SeededDice(1))
    assert len(t.conflict.pain_roll.dice) == 6  # type: ignore[union-attr]
    c = conflict.oppose(conflict.oppose(conflict.declare("b", "lead"), 6), collective_pain(4))
    t = conflict.roll_pain(Table(conflict.start_rolls(c), Chest(), {"lead": pc()}), SeededDice(1))
    assert len(t.conflict.pain_roll.dice) == 4  # type: ignore[union-attr]


SCAR = "No pude encontrar a mi hija en el Distrito Trece"


@vector(*v(16))
def test_scar_rerolls_exhaustion(vector_id: str) -> None:
    lead = pc(exhaustion=4, scars=(Scar(text=SCAR, created_session=1),))
    t = run(lead, d=[4, 4, 5], e=[4, 5, 6, 6], p=[2, 5, 6])
    res = conflict.outcome(t.conflict)
    assert (res.player_degree, res.gm_degree, res.success) == (0, 1, False)
    t = conflict.invoke_scar(t, "lead", 0, "exhaustion", gm_confirms=True, dice=ScriptedDice([1, 3, 6, 6]))
    res = conflict.outcome(t.conflict)
    assert (res.player_degree, res.gm_degree, res.success) == (2, 1, True)
    assert res.dominant_pool == "exhaustion"
    assert t.sheets["lead"].scars[0].invoked_this_session
    with refused("SCAR_ALREADY_INVOKED"):
        conflict.invoke_scar(t, "lead", 0, "discipline", gm_confirms=True, dice=ScriptedDice([1, 1, 1]))
    assert close(t).sheets["lead"].exhaustion == 5


@vector(*v(17))
def test_scar_transformed_to_avoid_a_crash(vector_id: str) -> None:
    lead = pc(exhaustion=6, scars=(Scar(text=SCAR, created_session=1),))
    t = run(lead, d=[4, 4, 4], e=[6, 5, 5, 5, 5, 5], p=[4], chest=Chest(hope=1))
    end = close(t)
    sheet = end.sheets["lead"]
    assert (sheet.exhaustion, sheet.status) == (7, Status.CRASH_PENDING)
    grant = scars.TransformBenefit(kind="hope_grant", coins=5, uses=("exhaustion-1",) * 5)
    sheet = scars.transform_scar(sheet, 0, grant, gm_confirms=True)
    assert (sheet.exhaustion, sheet.status) == (2, Status.AWAKE)
    assert sheet.scars[0].crossed_out
    assert end.chest.hope == 1  # the grant never touches the chest
    with refused("SCAR_CROSSED_OUT"):
        scars.transform_scar(sheet, 0, grant, gm_confirms=True)
    with refused("SCAR_CROSSED_OUT"):
        scars.check_invocable(sheet, 0)


@vector(*v(18))
def test_longer_pool_wins_the_tie(vector_id: str) -> None:
    assert dominant({"discipline": [6, 3, 2], "pain": [6, 3]}) == "discipline"
    # length beats the fixed order: the same dice with the names swapped
    assert dominant({"pain": [6, 3, 2], "discipline": [6, 3]}) == "pain"


@vector(*v(19))
def test_cannot_add_a_six_to_an_absent_pool(vector_id: str) -> None:
    t = run(pc(), d=[4, 5, 1], p=[2, 3], chest=Chest(despair=2))
    for pool in ("madness", "exhaustion"):
        with refused("POOL_NOT_IN_PLAY"):
            conflict.shade(t, "add6", pool)  # type: ignore[arg-type]
    assert t.chest.despair == 2


@vector(*v(20))
def test_shading_with_an_empty_chest(vector_id: str) -> None:
    t = run(pc(), d=[6, 2, 1], p=[2, 3], chest=Chest(despair=0))
    with refused("NO_DESPAIR"):
        conflict.shade(t, "remove6", "discipline")


@vector(*v(21))
def test_crash_effects(vector_id: str) -> None:
    sheet = pc(status="crash_pending", exhaustion=7, fight=2, flight=1)
    asleep = crash.carry_out_crash(sheet)
    assert (asleep.exhaustion, asleep.fight, asleep.flight) == (0, 0, 0)
    assert not asleep.talents_available and asleep.discipline_restore_to == 3
    awake = crash.wake_up(asleep)
    assert awake.discipline == 1 and not awake.talents_available
    recovered = crash.complete_recovery(awake)
    assert recovered.discipline == 3 and recovered.talents_available
    assert recovered.status == Status.AWAKE and recovered.discipline_restore_to is None


@vector(*v(22))
def test_madness_talent_price(vector_id: str) -> None:
    stone = MadnessTalent(name="Piel de Piedra", price_rule=PriceRule(kind="at_least", n=3))
    sheet = pc(permanent_madness=1, discipline=2, madness_talent=stone)
    with refused("MADNESS_PRICE"):
        prepare_leader_roll(sheet, LeaderRollRequest(temp_madness=2, madness_talent=True))
    _, _, madness = prepare_leader_roll(sheet, LeaderRollRequest(temp_madness=3, madness_talent=True))
    assert madness == 4


@vector(*v(23))
def test_coins_do_not_carry_over(vector_id: str) -> None:
    chest = Chest(hope=3, despair=4, session_number=1, session_open=True)
    sheets = {"alia": pc("Alia", exhaustion=3, fight=1), "gavin": pc(exhaustion=2)}
    assert coins.even_split(3, ["alia", "gavin"]) == {"alia": 2, "gavin": 1}
    with refused("NO_HOPE"):
        coins.close_session(chest, sheets, {"alia": ["exhaustion-1"] * 3, "gavin": ["exhaustion-1"]}, 0)
    closed, out = coins.close_session(
        chest, sheets, {"alia": ["exhaustion-1", "clear_fight"], "gavin": ["exhaustion-1"]}, 0
    )
    assert (closed.hope, closed.despair) == (0, 0)
    assert (out["alia"].exhaustion, out["alia"].fight, out["gavin"].exhaustion) == (2, 0, 1)
    reopened = coins.open_session(closed)
    assert (reopened.hope, reopened.despair, reopened.session_number) == (0, 0, 2)


@vector(*v(24))
def test_one_scar_per_session(vector_id: str) -> None:
    sheet = scars.create_scar(pc(), "Vi arder el Distrito Trece", 5, gm_approves=True)
    with refused("SCAR_LIMIT"):
        scars.create_scar(sheet, "Otra", 5, gm_approves=True)
    sheet = scars.create_scar(sheet, "Otra", 6, gm_approves=True)
    assert [s.created_session for s in sheet.scars] == [5, 6]


# --- 8.2 hand-computed cases -------------------------------------------------------------------

# vector -> (sheet fields, temp madness, D, E, M, P, degrees, success, dominant, top)
PLAIN = {
    25: ({}, 0, [6, 4, 1], [], [], [6, 4, 2], (1, 1), True, "pain", "discipline"),
    26: ({"exhaustion": 2}, 0, [4, 2, 1], [6, 6], [], [6, 5, 5, 5], (2, 0), True, "exhaustion", "exhaustion"),
    27: ({}, 0, [6, 3, 2], [], [], [6, 3], (2, 1), True, "discipline", "discipline"),
    29: ({}, 3, [5, 2, 1], [], [5, 2, 1], [4, 4, 4], (4, 0), True, "discipline", "discipline"),
    30: ({"exhaustion": 2}, 2, [3, 2, 1], [4, 4], [4, 4], [4, 2], (3, 1), True, "madness", "madness"),
    31: ({"exhaustion": 2}, 0, [4, 2, 1], [5, 3], [], [5, 3], (3, 1), True, "exhaustion", "exhaustion"),
    32: ({}, 0, [5, 5, 2], [], [], [5, 5, 2], (1, 1), True, "discipline", "discipline"),
    33: ({"exhaustion": 2}, 2, [6, 2, 1], [6, 2], [6, 3], [6, 1], (4, 1), True, "madness", "madness"),
    34: ({"exhaustion": 2}, 0, [5, 4, 3], [6, 2], [], [6, 6, 1], (2, 1), True, "pain", "exhaustion"),
    35: ({}, 0, [4, 5, 6], [], [], [4, 5], (0, 0), True, "discipline", "discipline"),
    36: ({}, 0, [4, 4, 2], [], [], [1, 2, 3], (1, 3), False, "discipline", "discipline"),
}


@vector(*v(*PLAIN))
def test_hand_computed_domination(vector_id: str) -> None:
    fields, temp, d, e, m, p, degrees, success, dom, top = PLAIN[int(vector_id.rsplit("-", 1)[1])]
    t = run(pc(**fields), d=d, e=e, m=m, p=p, temp_madness=temp)
    res = conflict.outcome(t.conflict)
    assert (res.player_degree, res.gm_degree) == degrees
    assert res.success is success and res.dominant_pool == dom and res.superior_pool == top
    before = t.sheets["lead"]
    choices: dict[str, object] = {}
    if dom == "madness":
        choices["madness_boxes"] = {"lead": "fight"}
    end = close(t, **choices)
    after = end.sheets["lead"]
    # the dominating pool's effect, checked for every row
    assert end.chest.despair == (1 if dom == "pain" else 0)
    assert after.exhaustion == before.exhaustion + (1 if dom == "exhaustion" else 0)
    assert after.fight == before.fight + (1 if dom == "madness" else 0)
    if vector_id == f"{KEY}-35":
        assert res.descriptor == "mínimo"
    if vector_id == f"{KEY}-36":
        assert settlement_options(t).consequences == ("none", "exhaustion+1", "check_box")
        assert settlement_options(t).discipline_benefits["lead"] == ("nothing",)


@vector(*v(28))
def test_longer_pain_pool_wins(vector_id: str) -> None:
    t = run(pc(discipline=2), d=[6, 3], p=[6, 3, 2])
    res = conflict.outcome(t.conflict)
    assert (res.player_degree, res.gm_degree, res.success, res.dominant_pool) == (1, 2, False, "pain")
    assert settlement_options(t).consequences == ("none", "exhaustion+1", "check_box")
    assert close(t, consequence="check_box", consequence_boxes={"lead": "fight"}).chest.despair == 1


@vector(*v(37))
def test_voluntary_increase_to_six(vector_id: str) -> None:
    t = run(pc(exhaustion=5), d=[4, 4, 4], e=[4, 4, 4, 4, 4, 4], p=[4], voluntary=True)
    assert t.sheets["lead"].exhaustion == 6 and len(t.conflict.leader_roll.exhaustion) == 6  # type: ignore[union-attr]


@vector(*v(38))
def test_voluntary_increase_at_six(vector_id: str) -> None:
    with refused("EXHAUSTION_CAP"):
        run(pc(exhaustion=6), d=[4, 4, 4], e=[4] * 7, p=[4], voluntary=True)
    t = run(pc(exhaustion=6), d=[4, 4, 4], e=[4] * 6, p=[4])  # the player confirms without it
    assert t.sheets["lead"].exhaustion == 6


@vector(*v(39))
def test_major_use_is_the_increase(vector_id: str) -> None:
    t = run(pc(exhaustion=2), d=[4, 4, 4], e=[4, 4, 4], p=[1], voluntary=True, talent_use="major")
    assert t.sheets["lead"].exhaustion == 3
    res = conflict.outcome(t.conflict)
    assert res.raw_successes == 0 and res.player_degree == 3


@vector(*v(40))
def test_crash_via_domination(vector_id: str) -> None:
    t = run(pc(exhaustion=6), d=[4, 5, 2], e=[6, 6, 4, 4, 2, 1], p=[6, 5, 3])
    res = conflict.outcome(t.conflict)
    assert (res.player_degree, res.gm_degree, res.success, res.dominant_pool) == (3, 1, True, "exhaustion")
    lead = close(t).sheets["lead"]
    assert (lead.exhaustion, lead.status) == (7, Status.CRASH_PENDING)


@vector(*v(41))
def test_crash_via_consequence(vector_id: str) -> None:
    t = run(pc(exhaustion=6), d=[4, 5, 5], e=[4, 4, 4, 5, 5, 6], p=[6, 6, 1, 2])
    res = conflict.outcome(t.conflict)
    assert (res.player_degree, res.gm_degree, res.success, res.dominant_pool) == (0, 2, False, "pain")
    end = close(t, consequence="exhaustion+1")
    assert end.chest.despair == 1
    assert (end.sheets["lead"].exhaustion, end.sheets["lead"].status) == (7, Status.CRASH_PENDING)


@vector(*v(42))
def test_madness_box_choice_when_fight_is_full(vector_id: str) -> None:
    t = run(pc(fight=3, flight=1), d=[4, 4, 5], m=[6], p=[5, 2], temp_madness=1)
    res = conflict.outcome(t.conflict)
    assert (res.player_degree, res.gm_degree, res.success, res.dominant_pool) == (0, 1, False, "madness")
    opts = settlement_options(t)
    assert opts.madness_boxes["lead"] == ("flight",) and opts.consequences == ("none", "exhaustion+1")
    with refused("BOX_FULL"):
        close(t, madness_boxes={"lead": "fight"})
    lead = close(t).sheets["lead"]
    assert (lead.fight, lead.flight) == (3, 2)


@vector(*v(43))
def test_snap_by_consequence(vector_id: str) -> None:
    t = run(pc(fight=3, flight=3, exhaustion=1), d=[4, 4, 5], e=[6], p=[1, 2, 5])
    res = conflict.outcome(t.conflict)
    assert (res.player_degree, res.gm_degree, res.success, res.dominant_pool) == (0, 2, False, "exhaustion")
    lead = close(t, consequence="check_box").sheets["lead"]
    assert lead.exhaustion == 2
    assert (lead.fight, lead.flight, lead.discipline, lead.permanent_madness) == (0, 0, 2, 1)


@vector(*v(44))
def test_snap_into_nightmare(vector_id: str) -> None:
    lead = pc(discipline=1, exhaustion=3, permanent_madness=2, fight=3, flight=3)
    t = run(lead, d=[4], e=[5, 2, 1], m=[6, 6, 3, 2], p=[6, 5, 3], temp_madness=2)
    res = conflict.outcome(t.conflict)
    assert (res.player_degree, res.gm_degree, res.success, res.dominant_pool) == (4, 1, True, "madness")
    end = close(t)
    sheet = end.sheets["lead"]
    assert sheet.discipline == 0 and sheet.status == Status.NIGHTMARE and sheet.nightmare_pain == 8
    assert end.conflict.settlement is not None and end.conflict.settlement.nightmares == {"lead": 8}


@vector(*v(45))
def test_permanent_madness_die_can_dominate(vector_id: str) -> None:
    t = run(pc(permanent_madness=1), d=[2, 3, 4], m=[6], p=[5, 1])
    res = conflict.outcome(t.conflict)
    assert (res.player_degree, res.gm_degree, res.success, res.dominant_pool) == (2, 1, True, "madness")
    assert close(t, madness_boxes={"lead": "flight"}).sheets["lead"].flight == 1


@vector(*v(46))
def test_discipline_benefit_reduce(vector_id: str) -> None:
    t = run(pc(exhaustion=2), d=[6, 2, 1], e=[4, 3], p=[5, 4])
    res = conflict.outcome(t.conflict)
    assert (res.player_degree, res.gm_degree, res.success, res.dominant_pool) == (3, 0, True, "discipline")
    assert close(t, discipline_benefits={"lead": "exhaustion-1"}).sheets["lead"].exhaustion == 1


@vector(*v(47))
def test_discipline_benefit_then_consequence(vector_id: str) -> None:
    t = run(pc(fight=3, flight=3), d=[6, 5, 4], p=[1, 2, 5])
    res = conflict.outcome(t.conflict)
    assert (res.player_degree, res.gm_degree, res.success, res.dominant_pool) == (0, 2, False, "discipline")
    end = close(t, discipline_benefits={"lead": "clear_fight"}, consequence="check_box")
    lead = end.sheets["lead"]
    assert (lead.fight, lead.flight, lead.discipline, lead.permanent_madness) == (3, 3, 3, 0)
    with refused("BOX_FULL"):
        close(
            t,
            discipline_benefits={"lead": "clear_fight"},
            consequence="check_box",
            consequence_boxes={"lead": "flight"},
        )


@vector(*v(48))
def test_consequence_ban_with_madness(vector_id: str) -> None:
    t = run(pc(), d=[4, 5, 5], m=[6, 3], p=[1, 2, 4], temp_madness=2)
    res = conflict.outcome(t.conflict)
    assert (res.player_degree, res.gm_degree, res.success, res.dominant_pool) == (1, 2, False, "madness")
    assert settlement_options(t).consequences == ("none", "exhaustion+1")
    with refused("CONSEQUENCE_NOT_ALLOWED"):
        close(t, madness_boxes={"lead": "fight"}, consequence="check_box")
    assert close(t, madness_boxes={"lead": "fight"}).sheets["lead"].fight == 1


@vector(*v(49))
def test_pain_dominates_on_a_failure(vector_id: str) -> None:
    t = run(pc(), d=[4, 4, 5], p=[6, 1, 2])
    res = conflict.outcome(t.conflict)
    assert (res.player_degree, res.gm_degree, res.success, res.dominant_pool) == (0, 2, False, "pain")
    assert settlement_options(t).consequences == ("none", "exhaustion+1", "check_box")
    assert close(t).chest.despair == 1


MINOR = {
    50: ({"exhaustion": 3}, [4, 5, 6], [1, 4, 5], [2, 6], 1, (3, 1), "discipline", 3),
    51: ({"exhaustion": 2}, [1, 2, 3], [1, 6], [1, 2, 3, 4, 5], 4, (4, 3), "exhaustion", 3),
}


@vector(*v(*MINOR))
def test_minor_floor(vector_id: str) -> None:
    fields, d, e, p, raw, degrees, dom, exhaustion_after = MINOR[int(vector_id.rsplit("-", 1)[1])]
    t = conflict.declare_minor_use(run(pc(**fields), d=d, e=e, p=p), "lead", gm_confirms=True)
    res = conflict.outcome(t.conflict)
    assert res.raw_successes == raw and (res.player_degree, res.gm_degree) == degrees
    assert res.success and res.dominant_pool == dom
    assert close(t).sheets["lead"].exhaustion == exhaustion_after


@vector(*v(52))
def test_minor_use_at_exhaustion_zero(vector_id: str) -> None:
    t = run(pc(), d=[4, 5, 6], p=[1])
    with refused("MINOR_NEEDS_EXHAUSTION"):
        conflict.declare_minor_use(t, "lead", gm_confirms=True)


@vector(*v(53))
def test_major_use_with_high_exhaustion(vector_id: str) -> None:
    t = run(pc(exhaustion=4), d=[4, 5, 6], e=[4, 4, 5, 5, 6], p=[1, 1, 2, 6, 6, 6], talent_use="major")
    assert t.sheets["lead"].exhaustion == 5
    res = conflict.outcome(t.conflict)
    assert (res.raw_successes, res.player_degree, res.gm_degree, res.success) == (0, 5, 3, True)
    assert res.dominant_pool == "pain" and res.superior_pool == "exhaustion"
    assert close(t).chest.despair == 1


@vector(*v(54))
def test_major_use_at_six(vector_id: str) -> None:
    with refused("EXHAUSTION_CAP"):
        prepare_leader_roll(pc(exhaustion=6), LeaderRollRequest(talent_use="major"))


@vector(*v(55))
def test_major_then_exhaustion_dominates(vector_id: str) -> None:
    t = run(pc(exhaustion=2), d=[4, 4, 5], e=[6, 6, 1], p=[5, 5, 2], talent_use="major")
    res = conflict.outcome(t.conflict)
    assert (res.player_degree, res.gm_degree, res.success, res.dominant_pool) == (4, 1, True, "exhaustion")
    assert close(t).sheets["lead"].exhaustion == 4


@vector(*v(56))
def test_helper_snaps(vector_id: str) -> None:
    helper = pc("Alia", fight=3, flight=3)
    t = run(pc(), d=[1, 4, 4], m=[6, 2], p=[3, 5], temp_madness=2, helpers={"alia": (helper, [2, 5, 6])})
    res = conflict.outcome(t.conflict)
    assert (res.leader_degree, res.helper_successes, res.player_degree, res.gm_degree) == (2, 1, 3, 1)
    assert res.success and res.dominant_pool == "madness"
    end = close(t, madness_boxes={"lead": "fight"})
    assert end.sheets["lead"].fight == 1
    alia = end.sheets["alia"]
    assert (alia.fight, alia.flight, alia.discipline, alia.permanent_madness) == (0, 0, 2, 1)


@vector(*v(57))
def test_unclear_leader(vector_id: str) -> None:
    sheets = {"gavin": pc(exhaustion=1), "alia": pc("Alia", exhaustion=2)}
    c = conflict.start_rolls(conflict.oppose(conflict.declare_group("g", ["gavin", "alia"]), 4))
    t = Table(conflict=c, chest=Chest(), sheets=sheets)
    t = conflict.roll_leader(t, "gavin", LeaderRollRequest(temp_madness=2), ScriptedDice([1, 2, 6, 3, 2, 2]))
    t = conflict.roll_leader(t, "alia", LeaderRollRequest(), ScriptedDice([1, 5, 5, 2, 4]))
    t = conflict.roll_pain(t, ScriptedDice([1, 2, 3, 4]))
    assert t.conflict.state == ConflictState.REVEALED
    t = conflict.pick_leader(t)
    assert t.conflict.leader == "gavin" and t.conflict.helpers == ("alia",)
    res = conflict.outcome(t.conflict)
    assert (res.leader_degree, res.helper_successes, res.player_degree, res.gm_degree) == (5, 1, 6, 3)
    assert res.success and res.dominant_pool == "discipline"
    assert set(settlement_options(t).discipline_benefits) == {"gavin", "alia"}
    end = close(t, discipline_benefits={"gavin": "exhaustion-1", "alia": "exhaustion-1"})
    assert (end.sheets["gavin"].exhaustion, end.sheets["alia"].exhaustion) == (0, 1)


@vector(*v(58))
def test_hope_one_flips_a_tie_break(vector_id: str) -> None:
    t = run(pc(discipline=2), d=[5, 2], p=[5, 2, 1], chest=Chest(hope=1))
    res = conflict.outcome(t.conflict)
    assert (res.player_degree, res.gm_degree, res.success, res.dominant_pool) == (1, 2, False, "pain")
    t = conflict.spend_hope(t, "lead")
    res = conflict.outcome(t.conflict)
    assert (res.player_degree, res.gm_degree, res.success, res.dominant_pool) == (2, 2, True, "discipline")
    end = close(t)
    assert (end.chest.hope, end.chest.despair) == (0, 0)


@vector(*v(59))
def test_shading_away_pain_forces_madness(vector_id: str) -> None:
    t = run(pc(), d=[4, 4, 2], m=[6, 2], p=[6, 5, 1], temp_madness=2, chest=Chest(despair=1))
    res = conflict.outcome(t.conflict)
    assert (res.player_degree, res.gm_degree, res.success, res.dominant_pool) == (2, 1, True, "pain")
    t = conflict.shade(t, "remove6", "pain")
    res = conflict.outcome(t.conflict)
    assert res.pools.pain == (5, 1) and res.dominant_pool == "madness" and not res.despair_gain
    assert (t.chest.despair, t.conflict.pending_hope) == (0, 1)
    end = close(t, madness_boxes={"lead": "flight"})
    assert end.sheets["lead"].flight == 1 and (end.chest.despair, end.chest.hope) == (0, 1)


@vector(*v(60))
def test_shading_makes_pain_dominate_no_coin(vector_id: str) -> None:
    t = run(pc(exhaustion=2), d=[5, 4, 2], e=[5, 3], p=[5, 2, 1], chest=Chest(despair=1))
    assert conflict.outcome(t.conflict).dominant_pool == "discipline"
    t = conflict.shade(t, "add6", "pain")
    res = conflict.outcome(t.conflict)
    assert res.dominant_pool == "pain" and not res.despair_gain
    assert (res.player_degree, res.gm_degree, res.success) == (2, 2, True)
    end = close(t)
    assert (end.chest.despair, end.chest.hope) == (0, 1)


@vector(*v(61))
def test_pain_dominated_anyway_earns_the_coin(vector_id: str) -> None:
    t = run(pc(), d=[5, 4, 2], p=[6, 3], chest=Chest(despair=1))
    t = conflict.shade(t, "add6", "pain")
    assert t.chest.despair == 0 and conflict.outcome(t.conflict).despair_gain
    end = close(t)
    assert (end.chest.despair, end.chest.hope) == (1, 1)


@vector(*v(62))
def test_removing_an_absent_six(vector_id: str) -> None:
    t = run(pc(exhaustion=1), d=[4, 4, 4], e=[3], p=[4], chest=Chest(despair=1))
    with refused("NO_SIX_IN_POOL"):
        conflict.shade(t, "remove6", "exhaustion")


@vector(*v(63))
def test_spent_despair_is_not_yet_hope(vector_id: str) -> None:
    t = run(pc(), d=[6, 4, 4], p=[6, 4], chest=Chest(despair=2, hope=0))
    t = conflict.shade(conflict.shade(t, "add6", "pain"), "remove6", "discipline")
    assert (t.chest.hope, t.conflict.pending_hope) == (0, 2)
    with refused("NO_HOPE"):
        conflict.spend_hope(t, "lead")
    assert close(t).chest.hope == 2


@vector(*v(64))
def test_breather_blocked_in_a_conflict(vector_id: str) -> None:
    t = run(pc(exhaustion=2), d=[4, 4, 4], e=[4, 4], p=[4], chest=Chest(hope=2))
    assert conflict.in_unsettled_conflict(t.conflict, "lead")
    with refused("IN_CONFLICT"):
        coins.take_breather(
            t.sheets["lead"], t.chest, ["exhaustion-1"], True, conflict.in_unsettled_conflict(t.conflict, "lead")
        )
    end = close(t)
    busy = conflict.in_unsettled_conflict(end.conflict, "lead")
    with refused("GM_NOT_ALLOWED"):
        coins.take_breather(end.sheets["lead"], end.chest, ["exhaustion-1"], False, busy)
    sheet, chest = coins.take_breather(end.sheets["lead"], end.chest, ["exhaustion-1"], True, busy)
    assert (sheet.exhaustion, chest.hope) == (1, 1)


@vector(*v(65))
def test_recover_at_discipline_one(vector_id: str) -> None:
    sheet, chest = coins.recover_discipline(pc(discipline=1, permanent_madness=2), Chest(hope=4), True, False)
    assert (sheet.discipline, sheet.permanent_madness, chest.hope) == (2, 1, 0)


@vector(*v(66))
def test_recover_without_enough_coins(vector_id: str) -> None:
    with refused("NO_HOPE"):
        coins.recover_discipline(pc(discipline=2, permanent_madness=1), Chest(hope=2), True, False)


@vector(*v(67))
def test_recover_at_full_discipline(vector_id: str) -> None:
    with refused("NOTHING_TO_RECOVER"):
        coins.recover_discipline(pc(), Chest(hope=5), True, False)


COMBINED = {68: [([3, 3, 2], 6)], 69: [([5, 2, 2], 7), ([4], 4)]}


@vector(*v(*COMBINED))
def test_combined_pain(vector_id: str) -> None:
    for scores, expected in COMBINED[int(vector_id.rsplit("-", 1)[1])]:
        assert combined_pain(scores) == expected


@vector(*v(70))
def test_temporary_madness_limit(vector_id: str) -> None:
    with refused("MADNESS_RANGE"):
        prepare_leader_roll(pc(), LeaderRollRequest(temp_madness=7))
    assert prepare_leader_roll(pc(), LeaderRollRequest(temp_madness=6))[2] == 6


@vector(*v(71))
def test_helper_talent_use(vector_id: str) -> None:
    c = conflict.start_rolls(conflict.oppose(conflict.declare("c", "lead", ["alia"]), 2))
    t = Table(conflict=c, chest=Chest(), sheets={"lead": pc(), "alia": pc("Alia", exhaustion=2)})
    for use in ("minor", "major"):
        with refused("HELPER_NO_TALENTS"):
            conflict.roll_helper(t, "alia", HelperRollRequest(talent_use=use), ScriptedDice([1, 1, 1]))  # type: ignore[arg-type]


@vector(*v(72))
def test_talents_during_recovery(vector_id: str) -> None:
    recovering = pc(status="recovering", discipline=1, discipline_restore_to=3, exhaustion=1)
    with refused("TALENTS_UNAVAILABLE"):
        run(recovering, d=[4], e=[4, 4], p=[4], talent_use="major")
    t = run(recovering, d=[4], e=[4], p=[4])
    assert len(t.conflict.leader_roll.discipline) == 1  # type: ignore[union-attr]


@vector(*v(73))
def test_crash_pending_pc_rolls(vector_id: str) -> None:
    pending = pc(status="crash_pending", exhaustion=7)
    with refused("EXHAUSTION_CAP"):
        run(pending, d=[4, 4, 4], e=[4] * 8, p=[4], voluntary=True)
    t = run(pending, d=[4, 4, 4], e=[6, 4, 4, 4, 4, 4, 4], p=[4])
    assert len(t.conflict.leader_roll.exhaustion) == 7  # type: ignore[union-attr]
    assert conflict.outcome(t.conflict).dominant_pool == "exhaustion"
    lead = close(t).sheets["lead"]
    assert (lead.exhaustion, lead.status) == (7, Status.CRASH_PENDING)


@vector(*v(74))
def test_scar_after_shading(vector_id: str) -> None:
    lead = pc(scars=(Scar(text=SCAR, created_session=1),))
    t = conflict.shade(run(lead, d=[6, 4, 4], p=[4], chest=Chest(despair=1)), "remove6", "discipline")
    with refused("SCAR_AFTER_SHADING"):
        conflict.invoke_scar(t, "lead", 0, "discipline", gm_confirms=True, dice=ScriptedDice([1, 1, 1]))


@vector(*v(75))
def test_scar_reroll_keeps_hope_ones(vector_id: str) -> None:
    lead = pc(scars=(Scar(text=SCAR, created_session=1),))
    t = conflict.spend_hope(run(lead, d=[4, 5, 6], p=[4], chest=Chest(hope=1)), "lead")
    assert conflict.outcome(t.conflict).pools.discipline == (4, 5, 6, 1)
    t = conflict.invoke_scar(t, "lead", 0, "discipline", gm_confirms=True, dice=ScriptedDice([2, 2, 6]))
    res = conflict.outcome(t.conflict)
    assert res.pools.discipline == (2, 2, 6, 1) and res.raw_successes == 3


@vector(*v(76))
def test_degree_words(vector_id: str) -> None:
    words = {1: "adecuado", 2: "impresionante", 3: "extraordinario", 4: "irreal", 7: "irreal"}
    assert {n: degree_word(n) for n in words} == words
