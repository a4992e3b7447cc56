"""Event transitions not pinned by a numbered vector: creation end, talent choice, progress expiry,
bet negotiation order, joint-narration parts, reaction expiry, interaction cancel."""

from __future__ import annotations

import pytest

from systems.dice import ScriptedDice
from systems.errors import RulesError
from systems.event.bets import BetKind, gm_accept, gm_reject, player_accept_counter, propose_bet
from systems.event.creation import event_rule_a_met, roll_q3_order
from systems.event.desafio import Participant, Stage, cancel, commit, start_interaction
from systems.event.reactions import (
    ReactionStatus,
    WriteReactionParams,
    expire_reaction,
    reveal_reaction,
    write_reaction,
)
from systems.event.settings import EventSettings
from systems.event.sheet import (
    AnswerParams,
    EventSheet,
    Pick,
    PickKind,
    ProgressWindowParams,
    SheetStatus,
    Skill,
    TalentParams,
    add_progress_pick,
    answer_appearance,
    answer_who_am_i,
    choose_talent,
    expire_progress,
    finish_creation,
    open_progress,
)

TALENT = EventSettings.model_validate({"optional": {"talent": {"enabled": True}}})


def complete_sheet() -> EventSheet:
    sheet = EventSheet(skills=(Skill(name="Carterista", improvements=2), Skill(name="Sigilo", improvements=2)))
    sheet = answer_who_am_i(sheet, AnswerParams(text="Valy, aprendiz de Mano de Bruma."))
    return answer_appearance(sheet, AnswerParams(text="Joven, delgada y siempre de gris."))


def test_finish_creation_needs_every_answer() -> None:
    with pytest.raises(RulesError) as err:
        finish_creation(EventSheet(skills=(Skill(name="Luchar"),)))
    assert err.value.code == "CREATION_INCOMPLETE"
    active = finish_creation(complete_sheet())
    assert active.status is SheetStatus.ACTIVE
    with pytest.raises(RulesError) as again:
        finish_creation(active)
    assert again.value.code == "NOT_CREATING"
    with pytest.raises(RulesError) as blank:
        answer_who_am_i(EventSheet(), AnswerParams(text="   "))
    assert blank.value.code == "EMPTY_ANSWER"


def test_talent_is_one_own_skill_chosen_once_after_q3() -> None:
    with pytest.raises(RulesError) as early:
        choose_talent(EventSheet(skills=(Skill(name="Luchar"),)), TalentParams(skill="Luchar"), TALENT)
    assert early.value.code == "TALENT_TOO_EARLY"
    with pytest.raises(RulesError) as off:
        choose_talent(complete_sheet(), TalentParams(skill="Sigilo"))
    assert off.value.code == "TALENT_DISABLED"
    with pytest.raises(RulesError) as foreign:
        choose_talent(complete_sheet(), TalentParams(skill="Volar"), TALENT)
    assert foreign.value.code == "UNKNOWN_SKILL"
    chosen = choose_talent(complete_sheet(), TalentParams(skill=" SIGILO "), TALENT)
    assert chosen.talent == "sigilo"
    with pytest.raises(RulesError) as twice:
        choose_talent(chosen, TalentParams(skill="Carterista"), TALENT)
    assert twice.value.code == "TALENT_ALREADY_CHOSEN"


def test_progress_token_expires_with_the_next_session() -> None:
    settings = EventSettings.model_validate({"optional": {"progress": {"enabled": True}}})
    sheet = expire_progress(open_progress(complete_sheet(), ProgressWindowParams(window=3), settings))
    with pytest.raises(RulesError) as err:
        add_progress_pick(sheet, Pick(kind=PickKind.NEW_SKILL, skill="Nadar"), settings)
    assert err.value.code == "NO_PROGRESS_TOKEN"
    with pytest.raises(RulesError) as off:
        open_progress(complete_sheet(), ProgressWindowParams(window=1))
    assert off.value.code == "PROGRESS_DISABLED"


def test_bet_steps_in_order() -> None:
    bet = propose_bet(BetKind.WILD_DIE, "Se me rompe la cuerda")
    with pytest.raises(RulesError) as err:
        player_accept_counter(bet)
    assert err.value.code == "BET_STEP_OUT_OF_ORDER"
    rejected = gm_reject(bet)
    with pytest.raises(RulesError):
        gm_accept(rejected)
    second = propose_bet(BetKind.WILD_DIE, "Pierdo la linterna", previous=rejected)
    assert gm_accept(second).agreed


def test_event_rule_a_is_unanimous() -> None:
    assert event_rule_a_met(["Daria", "Paco"], ["Paco", "Daria"])
    assert not event_rule_a_met(["Daria", "Paco", "Jenny"], ["Paco", "Daria"])


def test_q3_order_rolled_by_the_server() -> None:
    dice = ScriptedDice([5, 5, 5, 6, 6, 3, 1, 1, 1, 2, 2, 2, 6, 6, 6])
    order, attempts = roll_q3_order(["A", "B", "C"], dice)
    # A = 15 and B = 15 tie at the top; C = 3. Re-roll A = 6, B = 18: B first, then clockwise.
    assert order == ("B", "C", "A")
    assert [{p: r.total for p, r in a.items()} for a in attempts] == [{"A": 15, "B": 15, "C": 3}, {"A": 6, "B": 18}]
    assert dice.remaining == 0


def test_reaction_expires_at_session_end() -> None:
    settings = EventSettings.model_validate({"optional": {"reactions": {"enabled": True}}})
    params = WriteReactionParams(session=2, text="Si me asaltan en el puerto", nonce="abcdefgh", committed_at="t")
    expired = expire_reaction(write_reaction(None, params, settings))
    assert expired.status is ReactionStatus.EXPIRED
    with pytest.raises(RulesError) as err:
        reveal_reaction(expired)
    assert err.value.code == "REACTION_EXPIRED"


def test_interaction_cancel_only_before_reveal() -> None:
    ix = start_interaction([Participant("A", 1, "A", 1), Participant("B", 1, "B", 2)])
    assert cancel(commit(ix, "A", 1, 0)).stage is Stage.CANCELLED
    revealed = commit(commit(ix, "A", 1, 0), "B", 0, 1)
    with pytest.raises(RulesError) as err:
        cancel(revealed)
    assert err.value.code == "ALREADY_REVEALED"
