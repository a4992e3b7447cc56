"""Event §9.13–§9.18: communal pool, reactions, reckless roll, wild die, progress, skill cap, misc."""

from __future__ import annotations

from typing import Any

import pytest

from systems.dice import ScriptedDice
from systems.errors import RulesError
from systems.event.action import (
    ActionStage,
    ActionState,
    Choice,
    Gate,
    choose,
    finish,
    reckless_roll,
    start_action,
)
from systems.event.bets import (
    Bet,
    BetKind,
    BetStatus,
    gm_accept,
    gm_counter,
    player_reject_counter,
    propose_bet,
)
from systems.event.communal import OpenSessionParams, TakeParams, open_communal_pool, take_communal_die
from systems.event.creation import Question, q12_order, start_q3_round
from systems.event.desafio import (
    Interaction,
    Participant,
    Stage,
    Verdict,
    commit,
    reckless_tiebreak,
    roll_tiebreak,
    settle_tiebreak,
    start_interaction,
)
from systems.event.ladder import Narrator, Outcome
from systems.event.narration import GM, NarrationKind, close_joint, post_part, propose, start_joint, vote
from systems.event.pool import PoolBreakdown, PoolRequest, build_pool, npc_pool
from systems.event.reactions import (
    ReactionStatus,
    ValueReactionParams,
    WriteReactionParams,
    public_view,
    reveal_reaction,
    use_reaction,
    value_reaction,
    write_reaction,
)
from systems.event.settings import EventSettings
from systems.event.sheet import (
    EventSheet,
    Pick,
    PickKind,
    ProgressWindowParams,
    Skill,
    add_progress_pick,
    apply_pick,
    check_progress_pick,
    open_progress,
)
from systems.event.veto import Verdict as VetoVerdict
from systems.event.veto import cast, close, open_window
from tests.systems.vectors import vector

ABS, PAR, FAIL, CRIT = (
    Outcome.ABSOLUTE_SUCCESS,
    Outcome.PARTIAL_SUCCESS,
    Outcome.FAILURE,
    Outcome.CRITICAL_FAILURE,
)


def settings_with(**optional: dict[str, Any]) -> EventSettings:
    return EventSettings.model_validate({"optional": optional})


def pool_of(size: int, wild: bool = False) -> PoolBreakdown:
    return PoolBreakdown(skill_dice=size - 1 - int(wild), wild=int(wild))


def agreed_bet(kind: BetKind = BetKind.RECKLESS) -> Bet:
    return gm_accept(propose_bet(kind, "Si vuelvo a fallar, pierdo la espada."))


# --- §9.13 communal pool -----------------------------------------------------------------------------

COMMUNAL = settings_with(communal_pool={"enabled": True})


@vector("event-127")
def test_taking_a_communal_die(vector_id: str) -> None:
    remaining = open_communal_pool(0, OpenSessionParams(dice=3), COMMUNAL)
    character = EventSheet(skills=(Skill(name="Luchar"),))
    without = build_pool(character, PoolRequest(skills=("Luchar",)), COMMUNAL)
    with_die = build_pool(character, PoolRequest(skills=("Luchar",), communal_dice=1), COMMUNAL)
    assert take_communal_die(remaining, TakeParams(), COMMUNAL) == 2
    assert with_die.total == without.total + 1


@vector("event-128")
def test_one_communal_die_per_pool(vector_id: str) -> None:
    for attempt in (
        lambda: take_communal_die(3, TakeParams(dice=2), COMMUNAL),
        lambda: build_pool(EventSheet(), PoolRequest(communal_dice=2), COMMUNAL),
    ):
        with pytest.raises(RulesError) as err:
            attempt()
        assert err.value.code == "ONE_COMMUNAL_DIE"


@vector("event-129")
def test_empty_communal_pool(vector_id: str) -> None:
    with pytest.raises(RulesError) as err:
        take_communal_die(0, TakeParams(), COMMUNAL)
    assert err.value.code == "COMMUNAL_EMPTY"


@vector("event-130")
def test_communal_die_counts_for_the_gate_and_is_consumed(vector_id: str) -> None:
    character = EventSheet(skills=(Skill(name="Resistencia", improvements=1),))
    pool = build_pool(character, PoolRequest(skills=("Resistencia",), communal_dice=1), COMMUNAL)
    remaining = take_communal_die(3, TakeParams(), COMMUNAL)  # at pool lock, before the gate
    state = start_action(pool, 3, COMMUNAL)
    assert (pool.total, state.gate, state.outcome) == (4, Gate.AUTO_ABSOLUTE, ABS)
    assert remaining == 2


@vector("event-131")
def test_communal_pool_is_set_not_topped_up(vector_id: str) -> None:
    assert open_communal_pool(2, OpenSessionParams(dice=4), COMMUNAL) == 4


@vector("event-132")
def test_vetoed_take_is_denied(vector_id: str) -> None:
    settings = settings_with(communal_pool={"enabled": True, "veto_on_take": True})
    window = close(cast(cast(open_window("Paco", ["Paco", "Daria", "Jenny", GM]), "Daria"), GM))
    assert window.verdict is VetoVerdict.INVALID
    remaining = 3
    with pytest.raises(RulesError) as err:
        take_communal_die(remaining, TakeParams(veto_verdict=window.verdict), settings)
    assert err.value.code == "TAKE_VETOED"
    assert remaining == 3
    assert take_communal_die(remaining, TakeParams(veto_verdict=VetoVerdict.ACCEPTED), settings) == 2


@vector("event-133")
def test_npcs_cannot_take_communal_dice(vector_id: str) -> None:
    with pytest.raises(RulesError) as err:
        take_communal_die(3, TakeParams(npc=True), COMMUNAL)
    assert err.value.code == "NPC_NOT_ALLOWED"


# --- §9.14 reactions ---------------------------------------------------------------------------------

REACTIONS = settings_with(reactions={"enabled": True})


def sealed(session: int = 1, started: bool = False, current: Any = None) -> Any:
    params = WriteReactionParams(
        session=session,
        text="Robert me ataca por la espalda durante la cena",
        nonce="0123456789abcdef",
        committed_at="2026-01-01T20:00:00Z",
        session_started=started,
    )
    return write_reaction(current, params, REACTIONS)


@vector("event-134")
def test_reaction_value_range_and_pool(vector_id: str) -> None:
    revealed = reveal_reaction(sealed())
    with pytest.raises(RulesError) as err:
        value_reaction(revealed, ValueReactionParams(value=4), REACTIONS)
    assert err.value.code == "REACTION_VALUE_RANGE"
    valued = value_reaction(revealed, ValueReactionParams(value=2), REACTIONS)
    character = EventSheet(skills=(Skill(name="Luchar"),))
    assert build_pool(character, PoolRequest(skills=("Luchar",)), REACTIONS, valued).total == 4


@vector("event-135")
def test_one_reaction_per_session_used_once(vector_id: str) -> None:
    first = sealed()
    with pytest.raises(RulesError) as again:
        sealed(current=first)
    assert again.value.code == "REACTION_ALREADY_WRITTEN"
    used = use_reaction(value_reaction(reveal_reaction(first), ValueReactionParams(value=1), REACTIONS))
    with pytest.raises(RulesError) as reused:
        reveal_reaction(used)
    assert reused.value.code == "REACTION_USED"


@vector("event-136")
def test_reaction_valued_zero(vector_id: str) -> None:
    valued = value_reaction(reveal_reaction(sealed()), ValueReactionParams(value=0), REACTIONS)
    character = EventSheet(skills=(Skill(name="Luchar"),))
    pool = build_pool(character, PoolRequest(skills=("Luchar",)), REACTIONS, valued)
    assert pool.total == 2
    assert use_reaction(valued).status is ReactionStatus.USED


@vector("event-137")
def test_sealed_reaction_text_is_hidden_even_from_the_gm(vector_id: str) -> None:
    reaction = sealed()
    view = public_view(reaction)
    assert set(view) == {"session", "status", "committed_at", "digest"}
    assert "Robert" not in str(view)
    assert len(view["digest"]) == 64
    assert public_view(reveal_reaction(reaction))["text"].startswith("Robert")


@vector("event-157")
def test_reaction_locked_once_the_session_starts(vector_id: str) -> None:
    with pytest.raises(RulesError) as err:
        sealed(started=True)
    assert err.value.code == "REACTION_LOCKED"


# --- §9.15 reckless roll -----------------------------------------------------------------------------

RECKLESS = settings_with(reckless_roll={"enabled": True})


def rolled(pool: int, difficulty: int, stream: list[int], settings: EventSettings = RECKLESS) -> ActionState:
    return choose(start_action(pool_of(pool), difficulty, settings), Choice.ROLL, ScriptedDice(stream))


RECKLESS_ROLLS = {
    "event-138": ([2, 1], FAIL, [1, 1], CRIT, True, Narrator.GM),
    "event-139": ([3, 1], FAIL, [4, 5], ABS, False, Narrator.PLAYER),
    "event-146": ([4, 1], PAR, [1, 2], FAIL, True, Narrator.GM),
}


@vector(*RECKLESS_ROLLS)
def test_reckless_roll_replaces_even_if_worse(vector_id: str) -> None:
    original, first, stream, outcome, triggered, narrator = RECKLESS_ROLLS[vector_id]
    state = rolled(2, 4, original)
    assert (state.outcome, state.stage) == (first, ActionStage.EVALUATED)
    state = reckless_roll(state, agreed_bet(), ScriptedDice(stream))
    assert (state.dice, state.outcome, state.bet_triggered, state.narrator) == (
        tuple(stream),
        outcome,
        triggered,
        narrator,
    )
    assert state.stage is ActionStage.RESOLVED
    assert [t.final for t in state.throws] == [tuple(original), tuple(stream)]


@vector("event-140")
def test_no_reckless_roll_on_automatic_outcomes(vector_id: str) -> None:
    with pytest.raises(RulesError) as err:
        reckless_roll(start_action(pool_of(4), 3, RECKLESS), agreed_bet(), ScriptedDice([1, 1, 1, 1]))
    assert err.value.code == "NO_ROLL"


@vector("event-141")
def test_one_reckless_roll_per_action(vector_id: str) -> None:
    state = reckless_roll(rolled(2, 4, [2, 1]), agreed_bet(), ScriptedDice([3, 1]))
    with pytest.raises(RulesError) as err:
        reckless_roll(state, agreed_bet(), ScriptedDice([6, 6]))
    assert err.value.code == "RECKLESS_ALREADY_USED"


def tie_one_one(settings: EventSettings) -> Interaction:
    ix = start_interaction([Participant("A", 1, "A", seat=1), Participant("B", 1, "B", seat=2)], settings)
    ix = commit(commit(ix, "A", 1, 0), "B", 1, 0)
    ix = roll_tiebreak(ix, ScriptedDice([3, 5]))
    assert ix.tiebreak is not None and ix.tiebreak.provisional is not None
    assert ix.tiebreak.provisional.winner() == "B"
    return ix


@vector("event-142", "event-143", "event-144")
def test_reckless_roll_in_a_desafio_tiebreak(vector_id: str) -> None:
    face, verdict, winners, triggered = {
        "event-142": (6, Verdict.WIN, ("A",), False),
        "event-143": (2, Verdict.WIN, ("B",), True),
        "event-144": (5, Verdict.DRAW, ("A", "B"), False),
    }[vector_id]
    ix = reckless_tiebreak(tie_one_one(RECKLESS), "A", agreed_bet(), ScriptedDice([face]))
    ix = settle_tiebreak(ix)  # B declines a reckless roll of their own
    assert ix.left is not None
    assert (ix.left.verdict, ix.left.winners) == (verdict, winners)
    assert ix.reckless_log == ((("A", agreed_bet(), triggered)),)


@vector("event-145")
def test_rejected_counter_means_no_reckless_roll(vector_id: str) -> None:
    bet = player_reject_counter(gm_counter(propose_bet(BetKind.RECKLESS, "Pierdo la espada"), "Pierdes a tu caballo"))
    assert bet.status is BetStatus.REJECTED
    state = rolled(2, 4, [2, 1])
    with pytest.raises(RulesError) as err:
        reckless_roll(state, bet, ScriptedDice([6, 6]))
    assert err.value.code == "BET_NOT_AGREED"
    final = finish(state)
    assert (final.outcome, final.stage, final.reckless_used, final.bet_triggered) == (
        FAIL,
        ActionStage.RESOLVED,
        False,
        False,
    )


# --- §9.16 wild die ----------------------------------------------------------------------------------

WILD = settings_with(wild_die={"enabled": True})


@vector("event-147", "event-148")
def test_wild_die_bet_on_actions(vector_id: str) -> None:
    stream, outcome, triggered = {
        "event-147": ([4, 1, 2], PAR, False),
        "event-148": ([1, 2, 3], FAIL, True),
    }[vector_id]
    wild_bet = agreed_bet(BetKind.WILD_DIE)
    character = EventSheet(skills=(Skill(name="Luchar"),))
    pool = build_pool(character, PoolRequest(skills=("Luchar",), wild_die=wild_bet.agreed), WILD)
    assert pool.total == 3
    state = choose(start_action(pool, 4, WILD), Choice.ROLL, ScriptedDice(stream))
    assert (state.outcome, state.bet_triggered) == (outcome, triggered)


@vector("event-149")
def test_wild_die_forces_the_roll(vector_id: str) -> None:
    state = start_action(pool_of(4, wild=True), 3, WILD)
    assert state.gate is Gate.FORCED_ROLL and state.offered == (Choice.ROLL,)
    state = choose(state, Choice.ROLL, ScriptedDice([1, 1, 1, 1]))
    assert (state.rolled, state.outcome, state.bet_triggered) == (True, CRIT, True)
    lenient = settings_with(wild_die={"enabled": True, "forces_roll": False})
    auto = start_action(pool_of(4, wild=True), 3, lenient)
    assert (auto.gate, auto.outcome, auto.dice, auto.bet_triggered) == (Gate.AUTO_ABSOLUTE, ABS, (), False)


@vector("event-150", "event-151")
def test_wild_die_bet_in_a_desafio(vector_id: str) -> None:
    a_split, b_split, left_winner, right_winner, triggered = {
        "event-150": ((2, 0), (1, 1), "A", "B", False),
        "event-151": ((1, 1), (2, 0), "B", "A", True),
    }[vector_id]
    a = Participant("A", 2, "A", seat=1, wild_die=True)  # pool 1 + wild die
    b = Participant("B", 2, "B", seat=2)
    ix = commit(commit(start_interaction([a, b], WILD), "A", *a_split), "B", *b_split)
    assert ix.left is not None and ix.right is not None
    assert (ix.left.winner(), ix.right.winner()) == (left_winner, right_winner)
    assert ix.wild_bets_triggered == {"A": triggered}


# --- §9.17 progress and skill cap --------------------------------------------------------------------

PROGRESS = settings_with(progress={"enabled": True})


def six_pick_sheet() -> EventSheet:
    return EventSheet(
        skills=(Skill(name="Luchar"), Skill(name="Sigilo"), Skill(name="Trepar", improvements=3)),
        status="ACTIVE",
    )


@vector("event-152")
def test_progress_pick_beyond_six(vector_id: str) -> None:
    sheet = open_progress(six_pick_sheet(), ProgressWindowParams(window=1), PROGRESS)
    grown = add_progress_pick(sheet, Pick(kind=PickKind.IMPROVEMENT, skill="Luchar"), PROGRESS)
    luchar = grown.skill("Luchar")
    assert luchar is not None and luchar.display == "Luchar+"
    assert grown.total_picks == 7 and grown.creation_picks == 6
    EventSheet.model_validate(grown.model_dump())  # still a valid sheet


@vector("event-153")
def test_one_progress_pick_per_window(vector_id: str) -> None:
    sheet = open_progress(six_pick_sheet(), ProgressWindowParams(window=1), PROGRESS)
    sheet = add_progress_pick(sheet, Pick(kind=PickKind.IMPROVEMENT, skill="Luchar"), PROGRESS)
    with pytest.raises(RulesError) as err:
        add_progress_pick(sheet, Pick(kind=PickKind.NEW_SKILL, skill="Nadar"), PROGRESS)
    assert err.value.code == "PROGRESS_ALREADY_USED"


@vector("event-154")
def test_skill_cap_changes_max_picks(vector_id: str) -> None:
    eight = settings_with(skill_cap={"enabled": True, "max_picks": 8})
    data = {"skills": [{"name": "Luchar", "improvements": 4}, {"name": "Trepar", "improvements": 2}]}
    sheet = EventSheet.model_validate(data, context={"settings": eight})
    assert sheet.creation_picks == 8
    with pytest.raises(RulesError) as err:
        apply_pick(sheet, Pick(kind=PickKind.NEW_SKILL, skill="Nadar"), eight)
    assert err.value.code == "SHEET_COMPLETE"
    four = settings_with(skill_cap={"enabled": True, "max_picks": 4})
    assert start_q3_round(["A", "B"], {"A": 4, "B": 4}, 5, four.max_picks).done
    assert start_q3_round(["A", "B"], {"A": 4, "B": 3}, 4, four.max_picks).queue == ("B",)


@vector("event-155")
def test_vetoed_progress_pick_can_be_replaced(vector_id: str) -> None:
    voters = ["Daria", "Paco", "Jenny", GM]
    sheet = open_progress(six_pick_sheet(), ProgressWindowParams(window=2), PROGRESS)
    first = Pick(kind=PickKind.NEW_SKILL, skill="Volar")
    check_progress_pick(sheet, first, PROGRESS)
    w1 = close(cast(cast(open_window("Daria", voters), "Paco"), GM))
    assert w1.verdict is VetoVerdict.INVALID  # not applied: the token stays valid
    second = Pick(kind=PickKind.NEW_SKILL, skill="Nadar")
    check_progress_pick(sheet, second, PROGRESS)
    w2 = close(open_window("Daria", voters))
    assert w2.verdict is VetoVerdict.ACCEPTED
    grown = add_progress_pick(sheet, second, PROGRESS)
    assert grown.skill("Nadar") is not None and grown.skill("Volar") is None and grown.progress_used


# --- §9.18 miscellaneous -----------------------------------------------------------------------------


@vector("event-156")
def test_q12_order_rotate_or_fixed(vector_id: str) -> None:
    seats = ["Daria", "Paco", "Jenny"]
    assert q12_order(seats, Question.WHO_AM_I, "rotate") == ("Daria", "Paco", "Jenny")
    assert q12_order(seats, Question.APPEARANCE, "rotate") == ("Paco", "Jenny", "Daria")
    assert q12_order(seats, Question.APPEARANCE, "fixed") == ("Daria", "Paco", "Jenny")


@vector("event-158")
def test_joint_narration_in_seat_order(vector_id: str) -> None:
    joint = start_joint([("B", 2), ("A", 1)])
    assert joint.next_author == "A"
    with pytest.raises(RulesError) as err:
        post_part(joint, "B", "Yo primero.")
    assert err.value.code == "NOT_YOUR_PART"
    joint = post_part(post_part(joint, "A", "Parte de A."), "B", "Parte de B.")
    with pytest.raises(RulesError) as not_gm:
        close_joint(joint, "A")
    assert not_gm.value.code == "GM_ONLY"
    assert close_joint(joint, GM).closed


@vector("event-159")
def test_skill_display(vector_id: str) -> None:
    assert Skill(name="Atletismo", improvements=2).display == "Atletismo++"
    assert Skill(name="Atletismo").display == "Atletismo"


@vector("event-160")
def test_npc_won_right_fist_is_narrated_by_the_gm(vector_id: str) -> None:
    npc = Participant("Horace", npc_pool(3).total, narrator=GM, seat=None, npc=True)
    a = Participant("A", 2, "Daria", seat=1)
    ix = commit(commit(start_interaction([npc, a]), "Horace", 1, 2), "A", 2, 0)
    assert ix.stage is Stage.NARRATION
    assert ix.left is not None and ix.right is not None
    assert ix.left.winner() == "A" and dict(ix.left.counts) == {"Horace": 1, "A": 2}
    assert ix.right.winner() == "Horace" and ix.narrators == (GM,)
    n = propose(NarrationKind.GM, GM, "Horace cuenta lo ocurrido.", [GM, "Daria"], narration_veto=True)
    with pytest.raises(RulesError) as err:
        vote(n, "Daria")
    assert err.value.code == "GM_NARRATION_NOT_VETOABLE"
