"""fate-sotc §8.10 track size, §8.11 marking stress, §8.12 consequences, §8.13 defeat, §8.14 recovery."""

from __future__ import annotations

import pytest

from systems.errors import RulesError
from systems.fate_sotc.consequences import TAKEN_OUT, Consequence, DurationGrade, Severity, next_consequence
from systems.fate_sotc.defeat import (
    Status,
    TenacityContext,
    concession_prompt,
    demand_alternative_defeat,
    effective_tenacity,
    resolve_concession,
)
from systems.fate_sotc.fate_points import Wallet
from systems.fate_sotc.operations import (
    CloseSceneParams,
    NoParams,
    RestParams,
    StartSessionParams,
    TakeHitParams,
    close_scene,
    new_adventure,
    record_rest,
    start_session,
    take_hit,
)
from systems.fate_sotc.resolution import Track
from systems.fate_sotc.settings import ConcessionFpRule, ConsequenceAssignment, FateSotcSettings
from systems.fate_sotc.sheet import FateSotcSheet, StressOverride, StressTracks, new_character
from systems.fate_sotc.stress import Marked, NeedConsequence, NoEffect, TakenOut, apply_hit, track_size
from tests.systems.vectors import vector


def boxes(*bits: int) -> tuple[bool, ...]:
    return tuple(bool(b) for b in bits)


@vector("fate-sotc-86")
def test_track_size_from_endurance(vector_id: str) -> None:
    sizes = [
        FateSotcSheet(name="x", kind="npc", skills={} if v is None else {"endurance": v}).track_size(Track.HEALTH)
        for v in (None, 1, 2, 3, 4, 5, 6, 8)
    ]
    assert sizes == [5, 6, 6, 7, 7, 8, 8, 8]
    assert FateSotcSheet(name="x", skills={"resolve": 3}).track_size(Track.COMPOSURE) == 7
    assert [track_size(v) for v in (-2, 0)] == [5, 5]


@vector("fate-sotc-87")
def test_track_size_override(vector_id: str) -> None:
    sheet = FateSotcSheet(name="x", skills={"endurance": 3}, stress_bonus_override=StressOverride(health=1))
    assert sheet.track_size(Track.HEALTH) == 8


HITS = {
    "fate-sotc-88": ((0, 0, 0, 0, 0), [3], [Marked(3)], (0, 0, 1, 0, 0)),
    "fate-sotc-89": ((0, 0, 1, 0, 0), [3], [Marked(4)], (0, 0, 1, 1, 0)),
    "fate-sotc-90": ((0, 0, 1, 1, 0), [3], [Marked(5)], (0, 0, 1, 1, 1)),
    "fate-sotc-91": ((0, 0, 1, 1, 1), [3], [NeedConsequence(False)], (0, 0, 1, 1, 1)),
    "fate-sotc-92": ((0, 0, 0, 0, 0), [6], [NeedConsequence(False)], (0, 0, 0, 0, 0)),
    "fate-sotc-93": ((0, 0, 0, 0, 0), [5, 5], [Marked(5), NeedConsequence(False)], (0, 0, 0, 0, 1)),
    "fate-sotc-94": ((0, 0, 1, 0, 0), [1], [Marked(1)], (1, 0, 1, 0, 0)),
    "fate-sotc-95": ((0, 1, 1, 0, 0), [2], [Marked(4)], (0, 1, 1, 1, 0)),
    "fate-sotc-96": ((1, 1, 1, 1, 0), [1, 1], [Marked(5), NeedConsequence(False)], (1, 1, 1, 1, 1)),
    "fate-sotc-97": ((0, 1, 0, 1, 0), [0], [NoEffect()], (0, 1, 0, 1, 0)),
    "fate-sotc-99": (
        (0, 0, 0, 0, 0, 0, 0),
        [6, 7, 7, 6],
        [Marked(6), Marked(7), NeedConsequence(False), NeedConsequence(False)],
        (0, 0, 0, 0, 0, 1, 1),
    ),
}


@vector(*HITS)
def test_apply_hit(vector_id: str) -> None:
    before, hits, results, after = HITS[vector_id]
    track = boxes(*before)
    if vector_id == "fate-sotc-99":
        sheet = new_character("Vigoroso", kind="npc", skills={"endurance": 3})
        assert len(sheet.stress.health) == 7
        track = sheet.stress.health
    for hit, expected in zip(hits, results, strict=True):
        result, track = apply_hit(track, hit)
        assert result == expected
    assert track == boxes(*after)


@vector("fate-sotc-98")
def test_volunteered_consequence(vector_id: str) -> None:
    track = boxes(0, 0, 0, 0, 0)
    result, after = apply_hit(track, 2, choose_consequence=True)
    assert result == NeedConsequence(voluntary=True)
    assert after == track
    assert next_consequence(set()) == Severity.LEVE
    sheet = take_hit(
        FateSotcSheet(name="x"),
        TakeHitParams(track=Track.HEALTH, hit=2, choose_consequence=True, consequence_text="Costilla rota"),
    )
    assert [c.severity for c in sheet.consequences] == [Severity.LEVE]
    assert sheet.stress.health == track


@vector("fate-sotc-100")
def test_social_hit_marks_composure(vector_id: str) -> None:
    sheet = take_hit(FateSotcSheet(name="x"), TakeHitParams(track=Track.COMPOSURE, hit=2))
    assert sheet.stress.health == boxes(0, 0, 0, 0, 0)
    assert sheet.stress.composure == boxes(0, 1, 0, 0, 0)


SEVERE = {
    "fate-sotc-101": ((0, 0, 0, 0, 0), 2, Marked(2), (0, 1, 0, 0, 0)),
    "fate-sotc-102": ((0, 0, 1, 1, 1), 3, TakenOut(), (0, 0, 1, 1, 1)),
}


@vector(*SEVERE)
def test_hits_with_a_severe_consequence_held(vector_id: str) -> None:
    before, hit, expected, after = SEVERE[vector_id]
    result, track = apply_hit(boxes(*before), hit, severe_held=True)
    assert result == expected
    assert track == boxes(*after)


@vector("fate-sotc-103")
def test_cannot_volunteer_with_severe_held(vector_id: str) -> None:
    with pytest.raises(RulesError) as err:
        apply_hit(boxes(0, 0, 0, 0, 0), 2, choose_consequence=True, severe_held=True)
    assert err.value.code == "consequence_slots_full"


@vector("fate-sotc-104")
def test_consequence_sequence(vector_id: str) -> None:
    helds = [set(), {"leve"}, {"leve", "moderada"}, {"leve", "moderada", "severa"}]
    assert [next_consequence(h) for h in helds] == ["leve", "moderada", "severa", TAKEN_OUT]


@vector("fate-sotc-105")
def test_severe_held_means_taken_out(vector_id: str) -> None:
    assert next_consequence({"severa"}) == TAKEN_OUT


@vector("fate-sotc-106")
def test_lowest_free_slot(vector_id: str) -> None:
    helds = [{"moderada"}, {"leve", "moderada"}, {"leve", "moderada", "severa"}]
    assert [next_consequence(h) for h in helds] == ["leve", "severa", TAKEN_OUT]


@vector("fate-sotc-107")
def test_escalating_assignment(vector_id: str) -> None:
    cfg = FateSotcSettings(consequence_assignment=ConsequenceAssignment.ESCALATING)
    assert [next_consequence({"moderada"}, cfg), next_consequence({"leve"}, cfg)] == ["severa", "moderada"]


@vector("fate-sotc-108")
def test_full_sequence_until_taken_out(vector_id: str) -> None:
    sheet = new_character("Clay", kind="npc")
    seen = []
    for hit in (3, 3, 3, 3, 4, 2, 5, 1, 1):
        before = sheet
        sheet = take_hit(sheet, TakeHitParams(track=Track.HEALTH, hit=hit, consequence_text=f"golpe {hit}"))
        if sheet.status is Status.TAKEN_OUT:
            seen.append("TAKEN_OUT")
        elif len(sheet.consequences) > len(before.consequences):
            seen.append(sheet.consequences[-1].severity.value)
        else:
            changed = [
                i + 1 for i, (a, b) in enumerate(zip(before.stress.health, sheet.stress.health, strict=True)) if a != b
            ]
            seen.append(f"Marked({changed[0]})")
    assert seen == [
        "Marked(3)",
        "Marked(4)",
        "Marked(5)",
        "leve",
        "moderada",
        "Marked(2)",
        "severa",
        "Marked(1)",
        "TAKEN_OUT",
    ]
    assert sheet.stress.health == boxes(1, 1, 1, 1, 1)
    assert {c.severity for c in sheet.consequences} == {Severity.LEVE, Severity.MODERADA, Severity.SEVERA}


def test_a_required_consequence_needs_its_text() -> None:
    sheet = FateSotcSheet(name="x", stress=StressTracks(health=boxes(0, 0, 1, 1, 1)))
    with pytest.raises(RulesError) as err:
        take_hit(sheet, TakeHitParams(track=Track.HEALTH, hit=3))
    assert err.value.code == "consequence_required"


@vector("fate-sotc-109")
def test_demand_a_different_defeat(vector_id: str) -> None:
    assert demand_alternative_defeat(Status.TAKEN_OUT, Wallet.opening(3)).fate_points == 0
    with pytest.raises(RulesError) as err:
        demand_alternative_defeat(Status.TAKEN_OUT, Wallet.opening(0))
    assert err.value.code == "insufficient_fate_points"
    with pytest.raises(RulesError) as err:
        demand_alternative_defeat(Status.ACTIVE, Wallet.opening(3))
    assert err.value.code == "not_taken_out"


CONCESSIONS = {
    "fate-sotc-110": ((1, 2, True, True, None), (Status.CONCEDED, 1, 2, False)),
    "fate-sotc-111": ((1, 2, False, True, None), (Status.ACTIVE, 2, 1, True)),
    "fate-sotc-112": ((1, 0, False, True, None), (Status.ACTIVE, 2, 0, True)),
    "fate-sotc-113": ((1, 2, False, False, None), (Status.ACTIVE, 1, 2, True)),
    "fate-sotc-114": ((1, 2, True, True, ConcessionFpRule.ALWAYS_IF_REASONABLE), (Status.CONCEDED, 2, 1, False)),
}


@vector(*CONCESSIONS)
def test_concession(vector_id: str) -> None:
    (conceder, opponent, accepted, reasonable, rule), expected = CONCESSIONS[vector_id]
    cfg = FateSotcSettings(concession_fp_rule=rule) if rule else FateSotcSettings()
    out = resolve_concession(Wallet.opening(conceder), Wallet.opening(opponent), accepted, reasonable, cfg)
    got = (out.conceder_status, out.conceder.fate_points, out.opponent.fate_points, out.conflict_continues)
    assert got == expected


@vector("fate-sotc-115")
def test_tenacity(vector_id: str) -> None:
    cfg = FateSotcSettings(tenacity_enabled=True)
    assert effective_tenacity(2, TenacityContext.VITAL) == 3
    assert effective_tenacity(2, TenacityContext.TRIVIAL) == 1
    assert concession_prompt(1, 1, cfg) is True
    assert [concession_prompt(2, n, cfg) for n in (1, 2)] == [False, True]
    assert concession_prompt(0, 0, cfg) is True and concession_prompt(3, 3, cfg) is False
    assert concession_prompt(1, 1) is False  # the optional rule is off by default


def wounded(*severities: str) -> FateSotcSheet:
    cons = tuple(Consequence(severity=s, track="health", text=f"herida {s}") for s in severities)
    return FateSotcSheet(
        name="x",
        stress=StressTracks(health=boxes(0, 1, 1, 0, 0), composure=boxes(1, 0, 0, 0, 0)),
        consequences=cons,
    )


@vector("fate-sotc-116")
def test_scene_close_clears_stress_and_mild(vector_id: str) -> None:
    sheet = close_scene(wounded("leve", "moderada"), CloseSceneParams())
    assert sheet.stress.health == boxes(0, 0, 0, 0, 0) and sheet.stress.composure == boxes(0, 0, 0, 0, 0)
    assert [c.severity for c in sheet.consequences] == [Severity.MODERADA]


@vector("fate-sotc-117")
def test_scene_close_without_breather(vector_id: str) -> None:
    before = wounded("leve", "moderada")
    assert close_scene(before, CloseSceneParams(no_breather=True)) == before


REST = {"fate-sotc-118": [((6, True), []), ((5, True), ["moderada"]), ((8, False), ["moderada"])]}


@vector(*REST)
def test_rest_heals_moderate(vector_id: str) -> None:
    for (hours, suitable), left in REST[vector_id]:
        sheet = record_rest(wounded("moderada"), RestParams(hours=hours, suitable=suitable))
        assert [c.severity.value for c in sheet.consequences] == left


@vector("fate-sotc-119")
def test_severe_lasts_until_new_adventure(vector_id: str) -> None:
    sheet = wounded("severa")
    assert close_scene(sheet, CloseSceneParams()).consequences == sheet.consequences
    assert record_rest(sheet, RestParams(hours=6, suitable=True)).consequences == sheet.consequences
    assert new_adventure(sheet, NoParams()).consequences == ()


@vector("fate-sotc-120")
def test_back_to_back_session(vector_id: str) -> None:
    sheet = start_session(wounded("leve", "moderada", "severa"), StartSessionParams(back_to_back=True, refresh=False))
    grades = {c.severity: c.grade for c in sheet.consequences}
    assert grades == {Severity.MODERADA: DurationGrade.LEVE, Severity.SEVERA: DurationGrade.MODERADA}
    # The slots stay taken: a forced consequence takes the character out.
    forced = take_hit(
        sheet.model_copy(update={"stress": StressTracks(health=boxes(1, 1, 1, 1, 1))}),
        TakeHitParams(track=Track.HEALTH, hit=1, consequence_text="otra"),
    )
    assert forced.status is Status.TAKEN_OUT
    # moderada now heals at the next normal scene close; severa after a 6 h rest.
    assert {c.severity for c in close_scene(sheet, CloseSceneParams()).consequences} == {Severity.SEVERA}
    assert record_rest(sheet, RestParams(hours=6, suitable=True)).consequences == ()
