"""Fate Accelerated: invocations (§9.9) and compels (§9.10)."""

from __future__ import annotations

import pytest

from systems.errors import RulesError
from systems.fate_accelerated.actions import Action, Approach, CAMode
from systems.fate_accelerated.aspects import (
    GM,
    Aspect,
    AspectStatus,
    FreeInvocationGrant,
    Severity,
    boost,
    reveal,
    situation_aspect,
)
from systems.fate_accelerated.compels import (
    CompelKind,
    CompelStatus,
    accept_compel,
    negotiate_compel,
    offer_compel,
    refuse_compel,
)
from systems.fate_accelerated.fate_points import FatePointChange, LedgerReason
from systems.fate_accelerated.invocations import InvocationResult, invoke
from systems.fate_accelerated.ladder import Outcome, classify
from systems.fate_accelerated.resolution import settle_action
from systems.fate_accelerated.rolls import ActionRoll, InvokeEffect, InvokePayment, RollPhase, declare_action
from systems.fate_accelerated.stress import apply_hit
from tests.systems.test_fate_accelerated_fixtures import (
    ANA,
    BRUNO,
    CARLA,
    DARIO,
    K1,
    SCENE,
    ana,
    at_total,
    bruno,
    dice,
    rolled,
)
from tests.systems.vectors import vector

PAID, FREE = InvokePayment.FATE_POINT, InvokePayment.FREE
BONUS = InvokeEffect.BONUS


def aspect_of(text: str, owner: str = ANA) -> Aspect:
    sheet = ana() if owner == ANA else bruno()
    return next(a for a in sheet.aspects(owner) if a.text == text)


ATENTA = aspect_of("Atenta a los detalles")
ESPIA = aspect_of("Espía de la Corona")


def inv(
    roll: ActionRoll,
    aspect: Aspect,
    fp: int | None = 3,
    *,
    invoker: str = ANA,
    effect: InvokeEffect = BONUS,
    payment: InvokePayment = PAID,
    **kw,
) -> InvocationResult:
    return invoke(
        roll,
        aspect,
        invoker=invoker,
        effect=effect,
        payment=payment,
        invoker_fate_points=fp,
        justification="así me ayuda",
        **kw,
    )


def outcome_of(roll: ActionRoll) -> tuple[Outcome, int]:
    return classify(roll.total, roll.target_number)


@vector("fate-accelerated-TV-059")
def test_paid_bonus(vector_id: str) -> None:
    r = inv(at_total("r", ANA, Action.OVERCOME, 2, difficulty=3), ATENTA)
    assert r.roll.total == 4 and outcome_of(r.roll) == (Outcome.SUCCESS, 1)
    assert r.invoker_fate_points == 2
    assert r.ledger == (
        FatePointChange(ANA, -1, LedgerReason.INVOKE),
        FatePointChange(GM, 1, LedgerReason.INVOKE),
    )


def _quick_overcome(difficulty: int) -> ActionRoll:
    return rolled("r", ANA, ana(), Action.OVERCOME, Approach.QUICK, "--0-", difficulty=difficulty)


@vector("fate-accelerated-TV-060")
def test_reroll_replaces_faces(vector_id: str) -> None:
    roll = _quick_overcome(2)
    assert roll.total == -1 and outcome_of(roll)[0] is Outcome.FAIL
    r = inv(roll, ESPIA, effect=InvokeEffect.REROLL, dice=dice("+0+0"))
    assert r.roll.faces == "+0+0" and r.roll.total == 4
    assert outcome_of(r.roll) == (Outcome.SUCCESS, 2)
    assert r.invoker_fate_points == 2
    assert r.roll.face_history == ("--0-",)


@vector("fate-accelerated-TV-061")
def test_reroll_then_bonus(vector_id: str) -> None:
    r1 = inv(_quick_overcome(5), ESPIA, effect=InvokeEffect.REROLL, dice=dice("+0+0"))
    assert r1.roll.total == 4 and outcome_of(r1.roll) == (Outcome.FAIL, -1)
    r2 = inv(r1.roll, ATENTA, r1.invoker_fate_points)
    assert r2.roll.total == 6 and outcome_of(r2.roll) == (Outcome.SUCCESS, 1)
    assert r2.invoker_fate_points == 1


@vector("fate-accelerated-TV-062")
def test_same_aspect_once_per_roll(vector_id: str) -> None:
    r1 = inv(at_total("r", ANA, Action.OVERCOME, 2, difficulty=3), ATENTA)
    assert r1.invoker_fate_points == 2
    with pytest.raises(RulesError) as err:
        inv(r1.roll, ATENTA, r1.invoker_fate_points)
    assert err.value.code == "aspect_already_invoked"
    assert r1.roll.invocation_bonus == 2 and r1.invoker_fate_points == 2


@vector("fate-accelerated-TV-063")
def test_different_aspects_stack(vector_id: str) -> None:
    base = at_total("r", ANA, Action.OVERCOME, 2, difficulty=3)
    r1 = inv(base, ATENTA)
    r2 = inv(r1.roll, ESPIA, r1.invoker_fate_points)
    assert r2.roll.total == base.total + 4 and r2.invoker_fate_points == 1


@vector("fate-accelerated-TV-064")
def test_free_invocation_from_grant(vector_id: str) -> None:
    terreno = situation_aspect("terreno", "Terreno irregular", SCENE).model_copy(
        update={"grants": (FreeInvocationGrant(holder=ANA, remaining=1),)}
    )
    base = at_total("r", ANA, Action.OVERCOME, 2, difficulty=3)
    r = inv(base, terreno, payment=FREE)
    assert r.roll.total == base.total + 2 and r.invoker_fate_points == 3 and r.ledger == ()
    assert r.aspect.free_for(ANA) == 0
    later = at_total("r2", ANA, Action.OVERCOME, 2, difficulty=3)
    with pytest.raises(RulesError) as err:
        inv(later, r.aspect, payment=FREE)
    assert err.value.code == "no_free_invocation"
    assert inv(later, r.aspect).invoker_fate_points == 2


def _confiado() -> Aspect:
    return situation_aspect("confiado", "Confiado", SCENE).model_copy(
        update={"grants": (FreeInvocationGrant(holder=ANA, remaining=2, same_roll_stacking=True),)}
    )


@vector("fate-accelerated-TV-065")
def test_sws_grants_stack_on_one_roll(vector_id: str) -> None:
    r1 = inv(at_total("r", ANA, Action.OVERCOME, 3, difficulty=6), _confiado(), payment=FREE)
    r2 = inv(r1.roll, r1.aspect, payment=FREE)
    assert r2.roll.total == 7 and outcome_of(r2.roll) == (Outcome.SUCCESS, 1)
    assert r2.aspect.free_for(ANA) == 0 and r2.invoker_fate_points == 3


@vector("fate-accelerated-TV-066")
def test_no_paid_on_top_of_stacked_free(vector_id: str) -> None:
    r1 = inv(at_total("r", ANA, Action.OVERCOME, 3, difficulty=6), _confiado(), payment=FREE)
    r2 = inv(r1.roll, r1.aspect, payment=FREE)
    with pytest.raises(RulesError) as err:
        inv(r2.roll, r2.aspect, r2.invoker_fate_points, payment=PAID)
    assert err.value.code == "aspect_already_invoked"
    assert r2.invoker_fate_points == 3


@vector("fate-accelerated-TV-067")
def test_exploit_sws_grants_stack(vector_id: str) -> None:
    multitud = situation_aspect("multitud", "Multitud enfurecida", SCENE)
    from systems.fate_accelerated.resolution import apply_advantage

    result = settle_action(at_total("ca", ANA, Action.CREATE_ADVANTAGE, 5, difficulty=2), ca_mode=CAMode.EXPLOIT)
    granted = apply_advantage(result, aspect=multitud)
    assert granted is not None
    base = at_total("r", ANA, Action.OVERCOME, 1, difficulty=3)
    r1 = inv(base, granted, payment=FREE)
    r2 = inv(r1.roll, r1.aspect, payment=FREE)
    assert r2.roll.total == base.total + 4 and r2.aspect.free_for(ANA) == 0


@vector("fate-accelerated-TV-068")
def test_boost_is_used_once(vector_id: str) -> None:
    distraido = boost("distraido", "Distraído", ANA, SCENE)
    r = inv(at_total("r", ANA, Action.OVERCOME, 2, difficulty=3), distraido, payment=FREE)
    assert r.roll.total == 4 and r.invoker_fate_points == 3
    assert r.aspect.status is AspectStatus.REMOVED
    with pytest.raises(RulesError) as err:
        inv(at_total("r2", ANA, Action.OVERCOME, 2, difficulty=3), r.aspect, payment=PAID)
    assert err.value.code == "aspect_gone"


@vector("fate-accelerated-TV-069")
def test_paid_needs_a_fate_point(vector_id: str) -> None:
    with pytest.raises(RulesError) as err:
        inv(at_total("r", ANA, Action.OVERCOME, 2, difficulty=3), ATENTA, 0)
    assert err.value.code == "not_enough_fate_points"


@vector("fate-accelerated-TV-070")
def test_hidden_aspect_needs_knowing(vector_id: str) -> None:
    miedo = aspect_of("Miedo a los ratones", BRUNO)
    roll = at_total("r", ANA, Action.ATTACK, 2, target=BRUNO)
    with pytest.raises(RulesError) as err:
        inv(roll, miedo)
    assert err.value.code == "aspect_unknown"
    assert inv(roll, reveal(miedo)).roll.total == 4


@vector("fate-accelerated-TV-071")
def test_oppose_raises_fixed_difficulty(vector_id: str) -> None:
    enterrado = situation_aspect("escombros", "Enterrado bajo los escombros", SCENE)
    roll = at_total("b", BRUNO, Action.OVERCOME, 3, difficulty=2)
    assert outcome_of(roll)[0] is Outcome.SUCCESS
    r = inv(roll, enterrado, effect=InvokeEffect.OPPOSE)
    assert r.roll.target_number == 4 and outcome_of(r.roll) == (Outcome.FAIL, -1)
    assert r.invoker_fate_points == 2


@vector("fate-accelerated-TV-072")
def test_oppose_in_a_contest_is_booked_on_the_defence(vector_id: str) -> None:
    multitud = situation_aspect("multitud", "Multitud enfurecida", SCENE)
    attack = at_total("at", BRUNO, Action.ATTACK, 4, target=ANA)
    defend = at_total("d", ANA, Action.DEFEND, 3)
    r = inv(defend, multitud, 2, invoker=CARLA, effect=InvokeEffect.OPPOSE, opposing=attack)
    assert r.roll.total == 5 and r.invoker_fate_points == 1
    result = settle_action(attack, r.roll)
    assert (result.outcome, result.shifts) == (Outcome.FAIL, -1)
    assert (result.defender_outcome, result.defender_shifts) == (Outcome.SUCCESS, 1)
    assert result.harm_event() is None


@vector("fate-accelerated-TV-073")
def test_aid_ally(vector_id: str) -> None:
    carla_roll = at_total("c", CARLA, Action.OVERCOME, 2, difficulty=3)
    r = inv(carla_roll, ATENTA, 3, invoker=ANA, effect=InvokeEffect.AID_ALLY)
    assert r.roll.total == 4 and outcome_of(r.roll) == (Outcome.SUCCESS, 1)
    assert r.invoker_fate_points == 2
    assert all(c.party != CARLA for c in r.ledger)  # Carla's FP stay at 2


@vector("fate-accelerated-TV-074")
def test_no_invocation_before_the_dice(vector_id: str) -> None:
    declared = declare_action("r", ANA, ana(), Action.OVERCOME, Approach.QUICK, difficulty=2).roll
    assert declared.phase is RollPhase.DECLARED
    with pytest.raises(RulesError) as err:
        inv(declared, ATENTA)
    assert err.value.code == "invocation_window_not_open"


@vector("fate-accelerated-TV-075")
def test_no_invocation_after_resolution(vector_id: str) -> None:
    resolved = settle_action(at_total("r", ANA, Action.OVERCOME, 3, difficulty=2)).roll
    with pytest.raises(RulesError) as err:
        inv(resolved, ATENTA)
    assert err.value.code == "invocation_window_closed"


def _hit_ana(shifts: int, boxes, slots, texts):
    return apply_hit(ana(), ANA, BRUNO, shifts, boxes=boxes, slots=slots, texts=texts, moment=K1, source="hit")


@vector("fate-accelerated-TV-076")
def test_ally_uses_the_attackers_grant(vector_id: str) -> None:
    hit = _hit_ana(2, (), (Severity.MILD,), {Severity.MILD: "Torcedura en el tobillo"})
    torcedura = hit.sheet.consequences.mild
    assert torcedura is not None and torcedura.free_for(BRUNO) == 1
    attack = at_total("da", DARIO, Action.ATTACK, 1, target=ANA)
    with pytest.raises(RulesError) as err:
        inv(attack, torcedura, None, invoker=DARIO, payment=FREE, grant_holder=BRUNO)
    assert err.value.code == "grant_not_lent"
    r = inv(attack, torcedura, None, invoker=DARIO, payment=FREE, grant_holder=BRUNO, holder_consents=True)
    assert r.roll.total == attack.total + 2
    assert r.aspect.free_for(BRUNO) == 0 and r.ledger == ()


@vector("fate-accelerated-TV-077")
def test_each_consequence_grants_the_attacker(vector_id: str) -> None:
    hit = _hit_ana(
        7,
        (1,),
        (Severity.MILD, Severity.MODERATE),
        {Severity.MILD: "Conmoción", Severity.MODERATE: "Brazo roto"},
    )
    assert len(hit.consequences) == 2 and hit.absorbed == 7
    assert [c.free_for(BRUNO) for c in hit.consequences] == [1, 1]
    assert hit.sheet.consequences.mild == hit.consequences[0]


# --- §9.10 compels ----------------------------------------------------------------------------------

HERMANO = "ana:trouble"


def _gm_compel():
    return offer_compel(ANA, HERMANO, CompelKind.DECISION, GM, "Te quedas a proteger a tu hermano")


def _apply(fp: dict[str, int], ledger) -> dict[str, int]:
    out = dict(fp)
    for row in ledger:
        out[row.party] = out.get(row.party, 0) + row.delta
    return out


@vector("fate-accelerated-TV-078")
def test_accept_compel(vector_id: str) -> None:
    step = accept_compel(_gm_compel())
    assert step.compel.status is CompelStatus.ACCEPTED
    assert _apply({ANA: 1}, step.ledger)[ANA] == 2
    with pytest.raises(RulesError) as err:  # settled once only
        accept_compel(step.compel)
    assert err.value.code == "compel_settled"


@vector("fate-accelerated-TV-079")
def test_refuse_compel(vector_id: str) -> None:
    step = refuse_compel(_gm_compel(), target_fate_points=1)
    assert step.compel.status is CompelStatus.REFUSED
    assert _apply({ANA: 1}, step.ledger)[ANA] == 0
    assert FatePointChange(GM, 1, LedgerReason.COMPEL_REFUSE) in step.ledger


@vector("fate-accelerated-TV-080")
def test_cannot_refuse_at_zero(vector_id: str) -> None:
    compel = _gm_compel()
    with pytest.raises(RulesError) as err:
        refuse_compel(compel, target_fate_points=0)
    assert err.value.code == "cannot_refuse_compel"
    assert _apply({ANA: 0}, accept_compel(compel).ledger)[ANA] == 1


@vector("fate-accelerated-TV-081")
def test_self_compel_funded_by_gm(vector_id: str) -> None:
    compel = offer_compel(ANA, ATENTA.key, CompelKind.EVENT, ANA, "Me distraigo con un detalle")
    assert compel.is_self_compel and compel.fp_source == GM
    step = accept_compel(compel)
    assert _apply({ANA: 3}, step.ledger) == {ANA: 4}


@vector("fate-accelerated-TV-082")
def test_player_compel_paid_by_compeller(vector_id: str) -> None:
    compel = offer_compel(
        ANA, HERMANO, CompelKind.EVENT, CARLA, "Tu hermano aparece en mal momento", compeller_fate_points=2
    )
    compel = negotiate_compel(compel, "Tu hermano aparece justo ahora")
    assert compel.status is CompelStatus.NEGOTIATING
    start = {CARLA: 2, ANA: 3}
    accepted = _apply(start, accept_compel(compel).ledger)
    assert (accepted[CARLA], accepted[ANA]) == (1, 4)
    refused = _apply(start, refuse_compel(compel, target_fate_points=3).ledger)
    assert (refused[CARLA], refused[ANA]) == (2, 2)


@vector("fate-accelerated-TV-083")
def test_compeller_must_fund_the_offer(vector_id: str) -> None:
    with pytest.raises(RulesError) as err:
        offer_compel(ANA, HERMANO, CompelKind.EVENT, CARLA, "Algo pasa", compeller_fate_points=0)
    assert err.value.code == "compeller_cannot_pay"


def test_bruno_fixture_has_hidden_aspect() -> None:
    assert aspect_of("Miedo a los ratones", BRUNO).hidden
