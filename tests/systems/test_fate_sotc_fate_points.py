"""fate-sotc §8.15 fate points and aspects: refresh, invocations, free invocations, compels, guesses."""

from __future__ import annotations

import pytest

from systems.errors import RulesError
from systems.fate_sotc.aspects import (
    Aspect,
    HolderType,
    Persistence,
    Visibility,
    expire_free_invocations,
    temporary_aspect,
    transfer_free_invocation,
)
from systems.fate_sotc.compels import (
    Compel,
    CompelKind,
    CompelStatus,
    accept_compel,
    buy_off_compel,
    decline_compel,
    escalate_compel,
    offer_compel,
)
from systems.fate_sotc.fate_points import (
    FpKind,
    Wallet,
    activate_stunt,
    approve_request,
    award_accidental_compel,
    credit,
    refresh,
    release_pending,
    request_spend,
    spend,
    veto_request,
)
from systems.fate_sotc.guessing import GuessRuling, rule_guess, start_guess
from systems.fate_sotc.invocation import (
    InvokeMode,
    Payment,
    RollState,
    buy_advantage,
    invoke,
    invoke_for_effect,
    use_environment,
)
from systems.fate_sotc.maneuvers import resolve_maneuver_on_character
from systems.fate_sotc.operations import NoParams, StartSessionParams, grant_refresh, start_session
from systems.fate_sotc.settings import FateSotcSettings
from systems.fate_sotc.sheet import FateSotcSheet
from tests.systems.test_fate_sotc_support import fate_dice, scripted
from tests.systems.vectors import vector

SCENE = "scene-1"


def code_of(call, *args, **kwargs) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(RulesError) as err:
        call(*args, **kwargs)
    return err.value.code


def roll(skill: int, dice: int, roller: str = "pc") -> RollState:
    return RollState(roller, fate_dice(dice), skill)


def own_aspect(aspect_id: str = "A", holder: str = "pc", **extra: object) -> Aspect:
    return Aspect(id=aspect_id, text=f"Aspecto {aspect_id}", holder_id=holder, **extra)


def sheet_with(aspects: int, fp: int, override: int | None = None) -> FateSotcSheet:
    return FateSotcSheet(
        name="x",
        aspects=tuple(own_aspect(f"a{i}") for i in range(aspects)),
        fate_points=fp,
        refresh_override=override,
    )


@vector("fate-sotc-121")
def test_refresh_tops_up(vector_id: str) -> None:
    got = [grant_refresh(sheet_with(10, fp), NoParams()).fate_points for fp in (3, 12, 10)]
    assert got == [10, 12, 10]


@vector("fate-sotc-122")
def test_refresh_rate_override(vector_id: str) -> None:
    assert grant_refresh(sheet_with(7, 0), NoParams()).fate_points == 7
    assert grant_refresh(sheet_with(7, 2, override=5), NoParams()).fate_points == 5


@vector("fate-sotc-123")
def test_gm_withholds_refresh(vector_id: str) -> None:
    sheet = sheet_with(10, 3)
    assert start_session(sheet, StartSessionParams(refresh=False)).fate_points == 3
    assert start_session(sheet, StartSessionParams()).fate_points == 10


@vector("fate-sotc-124")
def test_fp_advantage(vector_id: str) -> None:
    state, wallet = buy_advantage(roll(2, 0), Wallet.opening(4))
    assert (wallet.fate_points, state.effort) == (3, 3)
    before_roll, before_wallet = roll(2, 0), Wallet.opening(4)
    off = FateSotcSettings(allow_fp_advantage=False)
    assert code_of(buy_advantage, before_roll, before_wallet, off) == "fp_advantage_disabled"
    assert (before_wallet.fate_points, before_roll.effort) == (4, 2)


@vector("fate-sotc-125")
def test_invoke_own_aspect_for_two(vector_id: str) -> None:
    r, w, a = roll(2, 0), Wallet.opening(4), own_aspect()
    out = invoke(r, "pc", w, a, InvokeMode.BONUS, Payment.PAID, gm_approved=True)
    assert (out.invoker.fate_points, out.roll.effort) == (3, 4)
    assert out.invoker.entries[-1].kind is FpKind.INVOKE_OWN
    assert code_of(invoke, r, "pc", w, a, InvokeMode.BONUS, Payment.PAID, gm_approved=False) == "gm_approval_required"
    assert (w.fate_points, r.effort) == (4, 2)


@vector("fate-sotc-126")
def test_same_aspect_twice_on_a_roll(vector_id: str) -> None:
    a = own_aspect()
    out = invoke(roll(2, 0), "pc", Wallet.opening(4), a, InvokeMode.BONUS, Payment.PAID, True)
    code = code_of(invoke, out.roll, "pc", out.invoker, out.aspect, InvokeMode.BONUS, Payment.PAID, True)
    assert code == "aspect_already_invoked_on_roll"
    assert out.invoker.fate_points == 3


@vector("fate-sotc-127")
def test_bonus_survives_a_later_reroll(vector_id: str) -> None:
    r = roll(3, -3)
    assert r.effort == 0
    first = invoke(r, "pc", Wallet.opening(5), own_aspect("A"), InvokeMode.BONUS, Payment.PAID, True)
    assert first.roll.effort == 2
    second = invoke(
        first.roll, "pc", first.invoker, own_aspect("B"), InvokeMode.REROLL, Payment.PAID, True, dice=scripted(1)
    )
    assert second.roll.effort == 6
    assert second.invoker.fate_points == 3
    assert [d.total for d in second.roll.history] == [-3]


@vector("fate-sotc-128")
def test_reroll_then_bonus(vector_id: str) -> None:
    r = roll(3, -4)
    assert r.effort == -1
    first = invoke(r, "pc", Wallet.opening(5), own_aspect("A"), InvokeMode.REROLL, Payment.PAID, True, dice=scripted(0))
    assert first.roll.effort == 3
    second = invoke(first.roll, "pc", first.invoker, own_aspect("B"), InvokeMode.BONUS, Payment.PAID, True)
    assert (second.roll.effort, second.invoker.fate_points) == (5, 3)


@vector("fate-sotc-129")
def test_reroll_is_the_same_action(vector_id: str) -> None:
    a = own_aspect("A")
    first = invoke(roll(3, -4), "pc", Wallet.opening(5), a, InvokeMode.REROLL, Payment.PAID, True, dice=scripted(0))
    code = code_of(invoke, first.roll, "pc", first.invoker, a, InvokeMode.BONUS, Payment.PAID, True)
    assert code == "aspect_already_invoked_on_roll"


@vector("fate-sotc-130")
def test_no_points_no_invocation(vector_id: str) -> None:
    code = code_of(invoke, roll(2, 0), "pc", Wallet.opening(0), own_aspect(), InvokeMode.BONUS, Payment.PAID, True)
    assert code == "insufficient_fate_points"


@vector("fate-sotc-131")
def test_tag_compensation_is_pending_until_the_exchange_ends(vector_id: str) -> None:
    theirs = Aspect(id="T", text="Cabezota", holder_id="opponent")
    out = invoke(
        roll(2, 0),
        "pc",
        Wallet.opening(3),
        theirs,
        InvokeMode.BONUS,
        Payment.PAID,
        True,
        detrimental_to_owner=True,
        owner=Wallet.opening(1),
    )
    assert out.invoker.fate_points == 2
    assert out.invoker.entries[-1].kind is FpKind.INVOKE_OTHER
    assert out.owner is not None
    assert (out.owner.fate_points, out.owner.pending) == (1, 1)
    assert code_of(spend, out.owner, 2, FpKind.DECLARATION) == "insufficient_fate_points"
    released = release_pending(out.owner)  # exchange 2 ends
    assert (released.fate_points, released.pending) == (2, 0)
    assert released.applied_sum() == 2


@vector("fate-sotc-132")
def test_scene_aspects_pay_nobody(vector_id: str) -> None:
    dark = Aspect(id="S", text="Oscuro", holder_type=HolderType.SCENE, holder_id=SCENE)
    out = invoke(roll(2, 0), "pc", Wallet.opening(3), dark, InvokeMode.BONUS, Payment.PAID, True)
    assert out.invoker.fate_points == 2
    assert out.owner is None
    assert all(e.counterparty == "bank" for e in out.invoker.entries)


@vector("fate-sotc-133")
def test_allied_aspect_without_harm_pays_nobody(vector_id: str) -> None:
    ally = Wallet.opening(2)
    aspect = Aspect(id="L", text="Leal hasta la muerte", holder_id="ally")
    out = invoke(roll(2, 0), "pc", Wallet.opening(3), aspect, InvokeMode.BONUS, Payment.PAID, True, owner=ally)
    assert out.invoker.fate_points == 2
    assert out.owner == ally and ally.fate_points == 2 and ally.pending == 0


@vector("fate-sotc-134")
def test_hidden_aspect_must_be_known(vector_id: str) -> None:
    hidden = Aspect(id="H", text="Sentimiento de culpa", holder_id="npc", visibility=Visibility.HIDDEN)
    code = code_of(invoke, roll(2, 0), "pc", Wallet.opening(3), hidden, InvokeMode.BONUS, Payment.PAID, True)
    assert code == "aspect_unknown_to_invoker"


def blinded(persistence: Persistence = Persistence.FRAGILE) -> Aspect:
    return temporary_aspect("C", "Cegado", HolderType.CHARACTER, "npc", "pc", SCENE, persistence=persistence)


@vector("fate-sotc-135")
def test_fragile_aspect_goes_after_first_invocation(vector_id: str) -> None:
    out = invoke(
        roll(2, 0), "pc", Wallet.opening(2), blinded(), InvokeMode.BONUS, Payment.FREE, True, current_scene_id=SCENE
    )
    assert out.invoker.fate_points == 2
    assert out.roll.effort == 4
    assert out.aspect.active is False
    code = code_of(
        invoke, roll(1, 0, "ally"), "ally", Wallet.opening(3), out.aspect, InvokeMode.BONUS, Payment.PAID, True
    )
    assert code == "aspect_inactive"


@vector("fate-sotc-136")
def test_sticky_aspect_survives(vector_id: str) -> None:
    sticky = blinded(Persistence.STICKY)
    first = invoke(
        roll(2, 0), "pc", Wallet.opening(2), sticky, InvokeMode.BONUS, Payment.FREE, True, current_scene_id=SCENE
    )
    assert first.invoker.fate_points == 2
    later = invoke(
        roll(2, 1), "pc", first.invoker, first.aspect, InvokeMode.BONUS, Payment.PAID, True, current_scene_id=SCENE
    )
    assert later.invoker.fate_points == 1
    assert later.aspect.active


@vector("fate-sotc-137")
def test_passing_a_free_invocation(vector_id: str) -> None:
    off_balance = temporary_aspect("F", "Fuera de equilibrio", HolderType.CHARACTER, "thug", "pc", SCENE)
    passed = transfer_free_invocation(off_balance, "pc", "ally", gm_approved=True, current_scene_id=SCENE)
    code = code_of(
        invoke,
        roll(2, 0),
        "pc",
        Wallet.opening(1),
        passed,
        InvokeMode.BONUS,
        Payment.FREE,
        True,
        current_scene_id=SCENE,
    )
    assert code == "free_invocation_unavailable"  # the creator no longer holds it
    used = invoke(
        roll(2, 0, "ally"),
        "ally",
        Wallet.opening(1),
        passed,
        InvokeMode.BONUS,
        Payment.FREE,
        True,
        current_scene_id=SCENE,
    )
    assert used.invoker.fate_points == 1 and used.roll.effort == 4
    sticky_copy = used.aspect.model_copy(update={"active": True})  # even if it were still in play
    code = code_of(
        invoke,
        roll(2, 0),
        "pc",
        Wallet.opening(1),
        sticky_copy,
        InvokeMode.BONUS,
        Payment.FREE,
        True,
        current_scene_id=SCENE,
    )
    assert code == "free_invocation_unavailable"
    in_sight = temporary_aspect("M", "En la mira", HolderType.CHARACTER, "target", "sniper", SCENE)
    code = code_of(transfer_free_invocation, in_sight, "sniper", "ally", gm_approved=False, current_scene_id=SCENE)
    assert code == "no_free_invocation_transfer"


@vector("fate-sotc-138")
def test_free_invocation_expires_with_its_scene(vector_id: str) -> None:
    aspect = blinded(Persistence.STICKY)
    code = code_of(
        invoke,
        roll(2, 0),
        "pc",
        Wallet.opening(1),
        aspect,
        InvokeMode.BONUS,
        Payment.FREE,
        True,
        current_scene_id="scene-2",
    )
    assert code == "free_invocation_unavailable"
    assert expire_free_invocations(aspect, SCENE).free_invocations == ()


@vector("fate-sotc-139")
def test_one_free_invocation_per_roll(vector_id: str) -> None:
    a = temporary_aspect("X", "Acorralado", HolderType.CHARACTER, "npc", "pc", SCENE, persistence=Persistence.STICKY)
    b = temporary_aspect("Y", "Desorientado", HolderType.CHARACTER, "npc", "pc", SCENE, persistence=Persistence.STICKY)
    first = invoke(roll(2, 0), "pc", Wallet.opening(2), a, InvokeMode.BONUS, Payment.FREE, True, current_scene_id=SCENE)
    code = code_of(
        invoke, first.roll, "pc", first.invoker, b, InvokeMode.BONUS, Payment.FREE, True, current_scene_id=SCENE
    )
    assert code == "free_invocation_limit"
    paid = invoke(first.roll, "pc", first.invoker, b, InvokeMode.BONUS, Payment.PAID, True, current_scene_id=SCENE)
    assert (paid.invoker.fate_points, paid.roll.effort) == (1, 6)


@vector("fate-sotc-140")
def test_compel_accept_or_refuse(vector_id: str) -> None:
    _, accepted = accept_compel(offer_compel(), Wallet.opening(2))
    assert accepted.fate_points == 3
    declined = decline_compel(offer_compel(), Wallet.opening(2))
    settled, paid = buy_off_compel(declined, Wallet.opening(2))
    assert paid.fate_points == 1 and settled.status is CompelStatus.BOUGHT_OFF
    broke = Wallet.opening(0)
    assert not offer_compel().can_refuse(broke)
    assert code_of(decline_compel, offer_compel(), broke) == "compel_not_refusable"
    assert accept_compel(offer_compel(), broke)[1].fate_points == 1


def _escalate_run(fp: int, answers: list[str], escalate: list[bool]) -> tuple[Compel, Wallet]:
    compel, wallet = offer_compel(), Wallet.opening(fp)
    for answer, raise_it in zip(answers, escalate, strict=True):
        if answer == "accept":
            return accept_compel(compel, wallet)
        compel = decline_compel(compel, wallet)
        if raise_it:
            compel = escalate_compel(compel)
        else:
            return buy_off_compel(compel, wallet)
    raise AssertionError("unfinished run")


@vector("fate-sotc-141")
def test_compel_escalation(vector_id: str) -> None:
    assert _escalate_run(3, ["decline", "accept"], [True, False])[1].fate_points == 5  # (a)
    b_compel, b_wallet = _escalate_run(3, ["decline", "decline", "decline"], [True, True, False])
    assert b_wallet.fate_points == 0 and b_compel.stake == 3  # (b)
    assert _escalate_run(3, ["decline"], [False])[1].fate_points == 2  # (c)
    at_three = Compel(stake=3, status=CompelStatus.DECLINED)
    assert code_of(escalate_compel, at_three) == "compel_escalation_limit"  # (d)
    at_two = Compel(stake=2)
    assert code_of(decline_compel, at_two, Wallet.opening(1)) == "compel_not_refusable"  # (e)
    settled, _ = accept_compel(offer_compel(), Wallet.opening(1))
    assert code_of(accept_compel, settled, Wallet.opening(1)) == "already_settled"


@vector("fate-sotc-142")
def test_offscreen_and_accidental_compels(vector_id: str) -> None:
    offscreen = offer_compel(CompelKind.OFFSCREEN)
    assert not offscreen.can_refuse(Wallet.opening(2))
    assert code_of(decline_compel, offscreen, Wallet.opening(2)) == "compel_not_refusable"
    _, wallet = accept_compel(offscreen, Wallet.opening(2))
    assert wallet.fate_points == 3 and wallet.entries[-1].kind is FpKind.OFFSCREEN_COMPEL
    accidental = award_accidental_compel(Wallet.opening(2))
    assert accidental.fate_points == 3 and accidental.entries[-1].kind is FpKind.ACCIDENTAL_COMPEL


@vector("fate-sotc-143")
def test_foreshadowing_gift(vector_id: str) -> None:
    gift = offer_compel(CompelKind.FORESHADOW)
    assert accept_compel(gift, Wallet.opening(2))[1].fate_points == 3
    _, refused = buy_off_compel(decline_compel(gift, Wallet.opening(2)), Wallet.opening(2))
    assert refused.fate_points == 1 and refused.entries[-1].kind is FpKind.REFUSE_GM_GIFT


def maneuver(m: int, t: int, avoids: bool = False, sticky: bool = False, fp: int = 2):  # type: ignore[no-untyped-def]
    return resolve_maneuver_on_character(
        m,
        t,
        aspect_id="M1",
        proposed_text="Entorpecido",
        maneuverer_id="pc",
        target_id="npc",
        target=Wallet.opening(fp),
        target_avoids=avoids,
        gm_wants_sticky=sticky,
        scene_id=SCENE,
    )


@vector("fate-sotc-144")
def test_maneuver_on_a_character(vector_id: str) -> None:
    avoided = maneuver(4, 2, avoids=True)
    assert (avoided.status, avoided.target.fate_points, avoided.aspect) == ("avoided", 1, None)
    placed = maneuver(4, 2)
    assert placed.status == "placed" and placed.target.fate_points == 2
    assert placed.aspect is not None
    assert placed.aspect.persistence is Persistence.FRAGILE
    assert [(fi.holder_character_id, fi.used) for fi in placed.aspect.free_invocations] == [("pc", False)]


@vector("fate-sotc-145")
def test_tied_maneuver_fails(vector_id: str) -> None:
    out = maneuver(3, 3)
    assert (out.status, out.aspect) == ("failed", None)


@vector("fate-sotc-146")
def test_sticky_maneuver_needs_a_critical(vector_id: str) -> None:
    two = maneuver(4, 2, sticky=True)
    assert two.aspect is not None and two.aspect.persistence is Persistence.FRAGILE and two.sticky_denied
    three = maneuver(5, 2, sticky=True)
    assert three.aspect is not None and three.aspect.persistence is Persistence.STICKY


@vector("fate-sotc-147")
def test_guessing(vector_id: str) -> None:
    corners = Aspect(
        id="R", text="Rincones Oscuros", holder_type=HolderType.SCENE, holder_id=SCENE, visibility=Visibility.HIDDEN
    )
    guess, wallet = start_guess("pc", "Pobremente Iluminado", Wallet.opening(3))
    close = rule_guess(guess, wallet, GuessRuling.CLOSE_ENOUGH, real_aspect=corners, roll=roll(2, 0), scene_id=SCENE)
    assert close.guesser.fate_points == 2
    assert close.revealed is not None and "pc" in close.revealed.known_by
    assert close.roll is not None and close.roll.effort == 4
    assert code_of(rule_guess, close.guess, wallet, GuessRuling.MISS_SECRET) == "already_settled"
    guess, wallet = start_guess("pc", "Borracho", Wallet.opening(3))
    assert rule_guess(guess, wallet, GuessRuling.MISS_NOT_SECRET).guesser.fate_points == 3
    guess, wallet = start_guess("pc", "Sentimiento de culpa", Wallet.opening(3))
    assert rule_guess(guess, wallet, GuessRuling.MISS_SECRET).guesser.fate_points == 2


@vector("fate-sotc-148")
def test_guess_defeated_by_deception(vector_id: str) -> None:
    deceiver = Wallet.opening(1)
    guess, wallet = start_guess("pc", "Cobarde", Wallet.opening(3))
    a = rule_guess(
        guess,
        wallet,
        GuessRuling.DECEIVED,
        deceiver_id="liar",
        deceiver_returns_point=True,
        deceiver_places_aspect=True,
        placed_text="Crédulo",
        scene_id=SCENE,
    )
    assert a.guesser.fate_points == 3
    assert a.placed is not None and a.placed.holder_id == "pc"
    assert [fi.holder_character_id for fi in a.placed.free_invocations] == ["liar"]
    b = rule_guess(guess, wallet, GuessRuling.DECEIVED, deceiver_id="liar", deceiver_returns_point=True)
    assert (b.guesser.fate_points, b.placed) == (3, None)
    c = rule_guess(guess, wallet, GuessRuling.DECEIVED, deceiver_id="liar")
    assert (c.guesser.fate_points, c.placed) == (2, None)
    assert deceiver.fate_points == 1  # the deceiver never gains the point


@vector("fate-sotc-149")
def test_tag_for_effect_sets_up_a_compel(vector_id: str) -> None:
    target_aspect = Aspect(id="I", text="Irascible", holder_id="target")
    instigator, _ = invoke_for_effect(Wallet.opening(3), "pc", target_aspect, Payment.PAID, gm_approved=True)
    assert instigator.fate_points == 2
    compel = offer_compel(CompelKind.TAG_FOR_EFFECT)
    assert accept_compel(compel, Wallet.opening(1))[1].fate_points == 2
    _, bought = buy_off_compel(decline_compel(compel, Wallet.opening(1)), Wallet.opening(1))
    assert bought.fate_points == 0 and instigator.fate_points == 2  # no refund
    made = temporary_aspect(
        "T2", "Provocado", HolderType.CHARACTER, "target", "pc", SCENE, persistence=Persistence.STICKY
    )
    free, _ = invoke_for_effect(Wallet.opening(3), "pc", made, Payment.FREE, gm_approved=True, current_scene_id=SCENE)
    assert free.fate_points == 3


@vector("fate-sotc-150")
def test_declaration_costs_only_on_approval(vector_id: str) -> None:
    wallet = Wallet.opening(4)
    request = request_spend(FpKind.DECLARATION, wallet)
    settled, paid = approve_request(request, wallet)
    assert paid.fate_points == 3
    assert code_of(veto_request, settled) == "already_settled"
    vetoed = veto_request(request_spend(FpKind.DECLARATION, wallet))
    assert vetoed.status == "vetoed" and wallet.fate_points == 4


@vector("fate-sotc-151")
def test_stunt_activation(vector_id: str) -> None:
    assert activate_stunt(Wallet.opening(2), 1).fate_points == 1
    assert activate_stunt(Wallet.opening(2), 0).fate_points == 2
    assert code_of(activate_stunt, Wallet.opening(0), 1) == "insufficient_fate_points"


@vector("fate-sotc-152")
def test_use_the_environment(vector_id: str) -> None:
    rigging = Aspect(id="T", text="Tramoyas", holder_type=HolderType.SCENE, holder_id=SCENE)
    use = use_environment(Wallet.opening(2), rigging, "weapons", gm_approved=True)
    assert use.wallet.fate_points == 1
    assert (use.skill_key, use.lasts) == ("weapons", "roll")


@vector("fate-sotc-153")
def test_ledger_sums_to_the_balance(vector_id: str) -> None:
    wallet = Wallet.opening(5)
    seen = []
    wallet = invoke(roll(2, 0), "pc", wallet, own_aspect(), InvokeMode.BONUS, Payment.PAID, True).invoker
    seen.append(wallet.fate_points)
    wallet = credit(wallet, 1, FpKind.COMPEL_ACCEPTED)
    seen.append(wallet.fate_points)
    wallet = approve_request(request_spend(FpKind.DECLARATION, wallet), wallet)[1]
    seen.append(wallet.fate_points)
    wallet = refresh(wallet, 10)
    seen.append(wallet.fate_points)
    assert seen == [4, 5, 4, 10]
    assert wallet.applied_sum() == wallet.fate_points
    assert sum(e.delta for e in wallet.entries if e.kind is not FpKind.CREATION) == 10 - 5
