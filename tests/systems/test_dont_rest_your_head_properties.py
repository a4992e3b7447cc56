"""Hypothesis properties: domination matches the source's wording, outcomes are consistent, and the
conflict state machine keeps coins conserved and non-negative, never settles twice, never mutates."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from systems.dice import SeededDice
from systems.dont_rest_your_head import coins, conflict, crash, snap
from systems.dont_rest_your_head.coins import Chest
from systems.dont_rest_your_head.conflict import ConflictState, Table
from systems.dont_rest_your_head.domination import PRIORITY, dominant, strength, successes
from systems.dont_rest_your_head.outcome import compute_outcome
from systems.dont_rest_your_head.roll import HelperRollRequest, LeaderRollRequest
from systems.dont_rest_your_head.settlement import SettlementChoices, settle, settlement_options
from systems.dont_rest_your_head.sheet import MadnessTalent, Sheet, Status, Talent
from systems.errors import RulesError

die = st.integers(1, 6)
pool = st.lists(die, min_size=0, max_size=7)
NAMES = ("discipline", "exhaustion", "madness", "pain")


def source_wording_dominant(pools: dict[str, Sequence[int]]) -> str | None:
    """The source's procedure, literally: higher strength; then more dice of that value; then the
    next highest value (so a pool that runs out loses); then the fixed order."""

    def beats(a: str, b: str) -> bool:
        ca, cb = Counter(pools[a]), Counter(pools[b])
        for value in range(6, 0, -1):
            if ca[value] != cb[value]:
                return ca[value] > cb[value]
        return PRIORITY[a] > PRIORITY[b]

    best = None
    for name in NAMES:
        if pools.get(name) and (best is None or beats(name, best)):
            best = name
    return best


@given(st.fixed_dictionaries({n: pool for n in NAMES}))
def test_dominant_matches_the_source_wording(pools: dict[str, list[int]]) -> None:
    assert dominant(pools) == source_wording_dominant(pools)


@given(st.fixed_dictionaries({n: pool for n in NAMES}), st.permutations(range(7)))
def test_dominant_ignores_dice_order(pools: dict[str, list[int]], order: list[int]) -> None:
    shuffled = {n: [d[i] for i in order if i < len(d)] for n, d in pools.items()}
    assert dominant(shuffled) == dominant(pools)


@given(
    st.lists(die, min_size=1, max_size=6),
    pool,
    pool,
    st.lists(die, min_size=1, max_size=10),
    st.lists(st.lists(die, min_size=1, max_size=3), max_size=2),
    st.sampled_from([None, "minor", "major"]),
    st.integers(0, 7),
    st.integers(0, 3),
)
def test_outcome_is_consistent(
    d: list[int],
    e: list[int],
    m: list[int],
    p: list[int],
    helpers: list[list[int]],
    talent: str | None,
    exhaustion: int,
    hope: int,
) -> None:
    res = compute_outcome(d, e, m, p, helpers, talent, exhaustion, hope)  # type: ignore[arg-type]
    raw = successes(d) + successes(e) + successes(m) + hope
    assert res.raw_successes == raw
    assert res.gm_degree == successes(p) and res.success == (res.player_degree >= res.gm_degree)
    assert res.player_degree >= raw + sum(successes(h) for h in helpers)
    if talent == "minor":
        assert res.leader_degree == max(raw, exhaustion)
    assert res.dominant_pool is not None and res.superior_pool != "pain"
    top = max(s for s in res.strengths.values() if s is not None)
    assert res.strengths[res.dominant_pool] == top
    assert res.despair_gain == (res.dominant_pool == "pain")  # no shading here
    # helper dice never count for strength
    assert res.strengths["discipline"] == strength(d)


def _sheet(name: str, data: st.DataObject) -> Sheet:
    discipline = data.draw(st.integers(1, 3))
    status = data.draw(st.sampled_from([Status.AWAKE, Status.CRASH_PENDING]))
    exhaustion = 7 if status == Status.CRASH_PENDING else data.draw(st.integers(0, 6))
    return Sheet(
        name=name,
        discipline=discipline,
        permanent_madness=data.draw(st.integers(0, 3 - discipline)),
        exhaustion=exhaustion,
        status=status,
        fight=data.draw(st.integers(0, 3)),
        flight=data.draw(st.integers(0, 3)),
        exhaustion_talent=Talent(name="Atleta"),
        madness_talent=MadnessTalent(name="Preparación"),
    )


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_conflict_flow_invariants(data: st.DataObject) -> None:
    """Random sheets, dice and adjustments: coins are conserved and never negative, the input is
    never mutated, sheets stay valid, and the conflict can't be adjusted or settled once closed."""
    lead, helper = _sheet("lead", data), _sheet("alia", data)
    with_helper = data.draw(st.booleans())
    chest = Chest(despair=data.draw(st.integers(0, 4)), hope=data.draw(st.integers(0, 4)))
    dice = SeededDice(data.draw(st.integers(0, 2**32)))
    c = conflict.declare("c", "lead", ["alia"] if with_helper else [])
    c = conflict.start_rolls(conflict.oppose(c, data.draw(st.integers(1, 8))))
    table = Table(c, chest, {"lead": lead, "alia": helper})
    request = LeaderRollRequest(
        voluntary_increase=data.draw(st.booleans()) and lead.exhaustion < 6,
        temp_madness=data.draw(st.integers(0, 6)),
    )
    table = conflict.roll_leader(table, "lead", request, dice)
    if with_helper:
        table = conflict.roll_helper(table, "alia", HelperRollRequest(), dice)
    table = conflict.roll_pain(table, dice)
    assert table.conflict.state == ConflictState.ADJUSTING
    start_total = table.chest.despair + table.chest.hope
    hope_spent = 0
    for _ in range(data.draw(st.integers(0, 5))):
        action = data.draw(st.sampled_from(["hope", "shade"]))
        before = table
        snapshot = (dict(table.sheets), table.chest, table.conflict)
        try:
            if action == "hope":
                table = conflict.spend_hope(table, "lead")
                hope_spent += 1
            else:
                kind = data.draw(st.sampled_from(["add6", "remove6"]))
                table = conflict.shade(table, kind, data.draw(st.sampled_from(NAMES)))  # type: ignore[arg-type]
        except RulesError:
            assert table is before
        assert (dict(before.sheets), before.chest, before.conflict) == snapshot  # never mutated
        assert table.chest.despair >= 0 and table.chest.hope >= 0
        assert table.chest.despair + table.chest.hope + table.conflict.pending_hope + hope_spent == start_total
    table = conflict.pass_turn(conflict.pass_turn(table, "gm"), "player")
    opts = settlement_options(table)
    choices = SettlementChoices(
        discipline_benefits={pc: data.draw(st.sampled_from(o)) for pc, o in opts.discipline_benefits.items()},
        madness_boxes={pc: data.draw(st.sampled_from(o)) for pc, o in opts.madness_boxes.items() if o},
        consequence=data.draw(st.sampled_from(opts.consequences)),
    )
    try:
        end = settle(table, choices)
    except RulesError as exc:  # only a consequence box with both kinds free needs one more choice
        assert exc.code == "CHOICE_REQUIRED"
        end = settle(table, choices.model_copy(update={"consequence_boxes": {"lead": "fight", "alia": "fight"}}))
    gained = end.conflict.settlement.despair_gained  # type: ignore[union-attr]
    assert end.conflict.state == ConflictState.CLOSED and end.conflict.pending_hope == 0
    assert end.chest.despair + end.chest.hope + hope_spent == start_total + gained
    assert gained <= 1
    for sheet in end.sheets.values():
        again = Sheet.model_validate(sheet.model_dump())
        assert again == sheet
        assert 0 <= sheet.exhaustion <= 7 and sheet.discipline >= 0
        assert (sheet.discipline == 0) == (sheet.status == Status.NIGHTMARE)
    for step in (
        lambda: settle(end, choices),
        lambda: conflict.spend_hope(end, "lead"),
        lambda: conflict.shade(end, "add6", "pain"),
        lambda: conflict.pass_turn(end, "gm"),
    ):
        try:
            step()
        except RulesError as exc:
            assert exc.code in ("ALREADY_SETTLED", "WINDOW_CLOSED")
        else:
            raise AssertionError("a closed conflict accepted a step")


@given(st.integers(0, 6), st.integers(1, 12))
def test_exhaustion_never_above_the_crash_level(start: int, raises: int) -> None:
    sheet = Sheet(
        name="x", exhaustion=start, exhaustion_talent=Talent(name="a"), madness_talent=MadnessTalent(name="b")
    )
    for _ in range(raises):
        sheet = crash.raise_exhaustion(sheet)
        assert sheet.exhaustion <= 7
        assert (sheet.exhaustion == 7) == (sheet.status == Status.CRASH_PENDING)
    Sheet.model_validate(sheet.model_dump())


@given(st.integers(1, 3), st.integers(0, 6), st.integers(1, 20))
def test_snapping_never_goes_below_zero(discipline: int, checks: int, pool_size: int) -> None:
    sheet = Sheet(
        name="x", discipline=discipline, exhaustion_talent=Talent(name="a"), madness_talent=MadnessTalent(name="b")
    )
    for i in range(checks + 12):
        if sheet.status == Status.NIGHTMARE:
            break
        sheet = snap.check_response(sheet, "fight" if i % 2 else "flight", pool_size)
        assert sheet.discipline >= 0 and sheet.fight <= 3 and sheet.flight <= 3
    if sheet.status == Status.NIGHTMARE:
        assert sheet.discipline == 0 and sheet.nightmare_pain == pool_size


@given(
    st.integers(0, 10),
    st.lists(st.sampled_from(["exhaustion-1", "clear_fight", "clear_flight"]), min_size=1, max_size=3),
)
def test_hope_never_goes_negative(hope: int, uses: list[str]) -> None:
    sheet = Sheet(
        name="x",
        exhaustion=5,
        fight=3,
        flight=3,
        exhaustion_talent=Talent(name="a"),
        madness_talent=MadnessTalent(name="b"),
    )
    try:
        _, chest = coins.take_breather(sheet, Chest(hope=hope), uses, True, False)  # type: ignore[arg-type]
    except RulesError as exc:
        assert exc.code == "NO_HOPE" and len(uses) > hope
    else:
        assert chest.hope == hope - len(uses) >= 0
