"""Fate Accelerated creation: the creation rules on submission and approval, drafts, the sheet form."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ValidationError

from characters import services
from characters.models import Character, CharacterStatus
from rulesets import registry
from rulesets.fate_accelerated.tests.sheet_fixtures import (
    S1,
    S2,
    FaeTable,
    ana_sheet,
    approaches,
    bruno_sheet,
    build_fae,
)
from systems.fate_accelerated.settings import FaeSettings

pytestmark = pytest.mark.django_db

BINDING = registry.plugin("fate-accelerated").sheet
SheetForm = registry.plugin("fate-accelerated").sheet_form


@pytest.fixture
def fae(db: None) -> FaeTable:
    return build_fae()


def _stunt(n: int) -> dict[str, Any]:
    return {"template": "once_per_session", "because": f"tengo el truco {n}", "effect": f"hacer la cosa {n}"}


def test_complete_sheet_submits_and_is_approved(fae: FaeTable) -> None:
    draft = services.create_character(actor=fae.player, campaign=fae.campaign, name="Eva", sheet=ana_sheet())
    assert draft.status == CharacterStatus.DRAFT
    pending = services.submit_character(actor=fae.player, character=draft)
    assert pending.status == CharacterStatus.PENDING
    approved = services.approve_character(actor=fae.gm, character=pending)
    assert approved.status == CharacterStatus.APPROVED
    sheet = approved.sheet
    # §2.8: refresh 3 with two stunts, starting fate points = refresh, fresh tracks
    assert sheet["refresh"] == 3 and sheet["fate_points"] == 3
    assert sheet["stress"] == [False, False, False]
    assert sheet["consequences"] == {"mild": None, "moderate": None, "severe": None}
    assert [s["key"] for s in sheet["stunts"]] == ["S1", "S2"]


def test_submission_resets_the_live_state_of_a_new_character(fae: FaeTable) -> None:
    draft = services.create_character(
        actor=fae.player, campaign=fae.campaign, name="Eva", sheet=ana_sheet(fate_points=40, stress=[True, True, True])
    )
    sheet = services.submit_character(actor=fae.player, character=draft).sheet
    assert sheet["fate_points"] == 3 and sheet["stress"] == [False, False, False]


@pytest.mark.parametrize(
    ("stunt_count", "refresh"),
    [(0, 3), (3, 3), (4, 2), (5, 1)],  # TV-129 (and §6.7.2)
)
def test_refresh_follows_the_stunt_count(fae: FaeTable, stunt_count: int, refresh: int) -> None:
    draft = services.create_character(
        actor=fae.player,
        campaign=fae.campaign,
        name="Eva",
        sheet=ana_sheet(stunts=[_stunt(i) for i in range(stunt_count)]),
    )
    sheet = services.submit_character(actor=fae.player, character=draft).sheet
    assert sheet["refresh"] == refresh and sheet["fate_points"] == refresh


BROKEN_RULES = {
    "approach array (TV-127)": ana_sheet(approaches=approaches(3, 3, 2, 1, 0, 0)),
    "approach above +3 (TV-128)": ana_sheet(approaches=approaches(4, 2, 2, 1, 1, 0)),
    "approach below 0 (TV-128)": ana_sheet(approaches=approaches(3, 2, 2, 1, 1, -1)),
    "missing approach": ana_sheet(approaches={"careful": 3, "clever": 2}),
    "no high concept (TV-130)": ana_sheet(high_concept=""),
    "no trouble": ana_sheet(trouble="   "),
    "four other aspects (TV-130)": ana_sheet(other_aspects=["a", "b", "c", "d"]),
    "six stunts (TV-129)": ana_sheet(stunts=[_stunt(i) for i in range(6)]),
    "+2 stunt without approach": ana_sheet(stunts=[{**S1, "approach": None}]),
    "+2 stunt with two actions and no restriction": ana_sheet(
        stunts=[{**S1, "actions": ["attack", "defend"], "restrictive_circumstance": True}]
    ),
    "once-per-session stunt without effect": ana_sheet(stunts=[{**S2, "effect": ""}]),
    "custom stunt without text": ana_sheet(stunts=[{"template": "custom", "text": ""}]),
    "duplicate stunt keys": ana_sheet(stunts=[dict(S1), {**S2, "key": "S1"}]),
    "player character with an NPC kind": ana_sheet(kind="npc_mook"),
}


@pytest.mark.parametrize("sheet", list(BROKEN_RULES.values()), ids=list(BROKEN_RULES))
def test_each_broken_creation_rule_refuses_submission_and_changes_nothing(fae: FaeTable, sheet: dict[str, Any]) -> None:
    draft = Character.objects.create(campaign=fae.campaign, owner=fae.player, name="Eva", sheet=sheet)
    with pytest.raises(ValidationError) as exc:
        services.submit_character(actor=fae.player, character=draft)
    assert "sheet" in exc.value.message_dict
    draft.refresh_from_db()
    assert draft.status == CharacterStatus.DRAFT and draft.sheet == sheet


def test_a_broken_rule_also_refuses_approval(fae: FaeTable) -> None:
    pending = Character.objects.create(
        campaign=fae.campaign,
        owner=fae.player,
        name="Eva",
        status=CharacterStatus.PENDING,
        sheet=ana_sheet(high_concept=""),
    )
    with pytest.raises(ValidationError) as exc:
        services.approve_character(actor=fae.gm, character=pending)
    assert "sheet" in exc.value.message_dict
    pending.refresh_from_db()
    assert pending.status == CharacterStatus.PENDING


def test_custom_and_two_action_stunts_are_approved_with_the_character(fae: FaeTable) -> None:
    stunts = [
        {"template": "custom", "text": "Puedo hablar con los cuervos."},
        {**S1, "key": "", "actions": ["overcome", "create_advantage"], "restrictive_circumstance": True},
    ]
    draft = services.create_character(
        actor=fae.player, campaign=fae.campaign, name="Eva", sheet=ana_sheet(stunts=stunts)
    )
    sheet = services.submit_character(actor=fae.player, character=draft).sheet
    assert [s["gm_approved"] for s in sheet["stunts"]] == [True, True]
    assert sheet["stunts"][1]["actions"] == ["create_advantage", "overcome"]
    assert len({s["key"] for s in sheet["stunts"]}) == 2


def test_npcs_are_not_bound_to_the_creation_array(fae: FaeTable) -> None:
    npc = services.create_character(
        actor=fae.gm,
        campaign=fae.campaign,
        name="Dario",
        is_npc=True,
        sheet=bruno_sheet(approaches=approaches(3, 3, 3, 0, 0, 0)),
    )
    sheet = services.approve_character(actor=fae.gm, character=npc).sheet
    assert sheet["kind"] == "npc_main"
    assert sheet["approaches"]["careful"] == 3


def test_a_half_written_draft_saves_but_bad_types_and_ranges_do_not(fae: FaeTable) -> None:
    half = {"high_concept": "Espía", "approaches": {"careful": 3}, "stunts": [{"template": "bonus"}]}
    draft = services.create_character(actor=fae.player, campaign=fae.campaign, name="Eva", sheet=half)
    assert draft.sheet["high_concept"] == "Espía"
    for bad in (
        {"approaches": {"careful": 7}},
        {"approaches": {"stealth": 1}},
        {"stunts": [{"template": "superpower"}]},
        {"other_aspects": ["a", "b", "c", "d"]},
        {"fate_points": -1},
        {"unknown": 1},
    ):
        with pytest.raises(ValidationError) as exc:
            services.update_character(actor=fae.player, character=draft, sheet=bad)
        assert "sheet" in exc.value.message_dict
    draft.refresh_from_db()
    assert draft.sheet["high_concept"] == "Espía"


# --- The sheet form ---------------------------------------------------------------------------------


def _post_data(form: Any) -> dict[str, Any]:
    """What a browser posts for an unchanged form."""
    data: dict[str, Any] = {}
    for name in form.fields:
        value = form[name].value()
        if value is None or value is False:
            continue
        data[name] = "on" if value is True else str(value)
    return data


@pytest.mark.parametrize("is_npc", [False, True])
def test_form_round_trips_a_stored_sheet(fae: FaeTable, is_npc: bool) -> None:
    character = fae.bruno if is_npc else fae.ana
    if is_npc:
        sheet = BINDING.new_sheet(
            bruno_sheet(other_aspects=[{"text": "Le deben dinero", "hidden": True}], stunts=[dict(S2)]),
            None,
            is_npc=True,
        )
    else:
        sheet = character.sheet
    form = SheetForm(sheet=sheet, is_npc=is_npc)
    again = SheetForm(_post_data(form), sheet=sheet, is_npc=is_npc)
    assert again.is_valid(), again.errors
    assert again.to_sheet() == sheet


def test_form_output_is_a_draft_and_submits(fae: FaeTable) -> None:
    form = SheetForm(
        {
            "high_concept": "Médica de campaña",
            "trouble": "Demasiado curiosa",
            "aspect_1": "Manos firmes",
            "careful": "3",
            "clever": "2",
            "sneaky": "2",
            "flashy": "1",
            "quick": "1",
            "forceful": "0",
            "stunt_1_template": "bonus",
            "stunt_1_because": "he cosido a cien soldados",
            "stunt_1_actions": "overcome",
            "stunt_1_approach": "careful",
            "stunt_1_circumstance": "cuando curo una herida",
        }
    )
    assert form.is_valid(), form.errors
    sheet = form.to_sheet()
    assert sheet["stunts"][0]["key"] == "S1" and sheet["stunts"][0]["actions"] == ["overcome"]
    draft = services.create_character(actor=fae.player, campaign=fae.campaign, name="Eva", sheet=sheet)
    assert SheetForm(sheet=draft.sheet)["careful"].value() == 3
    done = services.submit_character(actor=fae.player, character=draft)
    assert done.sheet["other_aspects"][0]["text"] == "Manos firmes"
    # the stored draft round-trips through the form as well
    form = SheetForm(sheet=draft.sheet)
    again = SheetForm(_post_data(form), sheet=draft.sheet)
    assert again.is_valid() and again.to_sheet() == draft.sheet


@pytest.mark.parametrize(
    "bad",
    [
        {"careful": "4"},  # above +3
        {"careful": "-1"},  # below 0
        {"careful": "x"},
        {"high_concept": "x" * 201},
        {"stunt_1_template": "superpower"},
        {"stunt_1_because": "sin plantilla"},  # a stunt needs its template
        {"stunt_1_template": "once_per_session", "stunt_1_approach": "careful"},  # only +2 stunts name one
        {"stunt_6_template": "bonus"},  # there is no sixth stunt row
    ],
)
def test_form_rejects_bad_input(bad: dict[str, str]) -> None:
    form = SheetForm({"high_concept": "Espía", **bad})
    if "stunt_6_template" in bad:
        assert "stunt_6_template" not in form.fields
        return
    assert not form.is_valid()


def test_form_follows_the_campaign_settings() -> None:
    settings = FaeSettings(other_aspects_max=1, stunts_max=2, stunts_free=1, stunts_suggested_start=1)
    form = SheetForm(settings=settings)
    assert "aspect_1" in form.fields and "aspect_2" not in form.fields
    assert "stunt_2_template" in form.fields and "stunt_3_template" not in form.fields
    assert "Mediocre (+0)" in str(form["careful"]) and "Grande (+3)" in str(form["careful"])
    assert "+3, +2, +2, +1, +1, +0" in str(form["careful"].help_text)
