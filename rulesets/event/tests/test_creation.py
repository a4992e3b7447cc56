"""Event: a sheet that follows the creation rules (§2.5) is submitted and approved; each broken rule is
refused on ``sheet`` and changes nothing; the sheet form round-trips and rejects bad input."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ValidationError

from characters import services
from characters.models import Character, CharacterStatus
from rulesets import registry
from rulesets.event.sheet_form import SheetForm
from rulesets.event.tests.sheet_fixtures import RULES, EventTable, build_event_table, skill, valid_sheet
from systems.event import EventSettings


@pytest.fixture
def ev(db: None) -> EventTable:
    return build_event_table()


def test_a_complete_sheet_is_submitted_and_approved(ev: EventTable) -> None:
    character = ev.draft(sheet=valid_sheet())
    assert character.status == CharacterStatus.DRAFT
    character = services.submit_character(actor=ev.ana, character=character)
    assert character.status == CharacterStatus.PENDING
    character = services.approve_character(actor=ev.gm, character=character)
    assert character.status == CharacterStatus.APPROVED
    sheet = Character.objects.get(pk=character.pk).sheet
    assert sheet["status"] == "ACTIVE"
    assert [(s["name"], s["improvements"]) for s in sheet["skills"]] == [
        ("Atletismo", 2),
        ("Intimidar", 0),
        ("Resistencia", 1),
    ]


@pytest.mark.parametrize(
    ("changes", "code"),
    [
        ({"who_am_i": ""}, "CREATION_INCOMPLETE"),
        ({"appearance": "  "}, "CREATION_INCOMPLETE"),
        ({"skills": [skill("Atletismo", 2), skill("Intimidar")]}, "CREATION_INCOMPLETE"),  # 4 picks of 6 (CV7)
    ],
)
def test_an_incomplete_sheet_is_not_submitted(ev: EventTable, changes: dict[str, Any], code: str) -> None:
    character = ev.draft(sheet=valid_sheet(**changes))
    before = Character.objects.get(pk=character.pk).sheet
    with pytest.raises(ValidationError) as info:
        services.submit_character(actor=ev.ana, character=character)
    assert "sheet" in info.value.message_dict
    assert code in " ".join(info.value.message_dict["sheet"])
    stored = Character.objects.get(pk=character.pk)
    assert (stored.status, stored.sheet) == (CharacterStatus.DRAFT, before)


@pytest.mark.parametrize(
    ("changes", "code"),
    [
        ({"skills": [skill("Atletismo", 2), skill("atletísmo"), skill("Resistencia", 1)]}, "DUPLICATE_SKILL"),  # CV4
        ({"skills": [skill("Atletismo", 6), skill("Intimidar")]}, "SHEET_COMPLETE"),  # 8 picks > 6 (CV6)
        (
            {"skills": [skill("Rayo", category="supernatural"), skill("Vuelo", category="supernatural")]},
            "CATEGORY_LIMIT",  # CV8
        ),
        ({"talent": "pintar"}, "UNKNOWN_SKILL"),  # CV11
    ],
)
def test_a_sheet_breaking_a_rule_is_refused_and_nothing_changes(
    ev: EventTable, changes: dict[str, Any], code: str
) -> None:
    character = ev.draft(sheet=valid_sheet(who_am_i="Soy Valy."))
    before = Character.objects.get(pk=character.pk).sheet
    with pytest.raises(ValidationError) as info:
        services.update_character(actor=ev.ana, character=character, sheet=valid_sheet(**changes))
    assert "sheet" in info.value.message_dict
    assert info.value.message_dict["sheet"]  # the rule, in words ('code' names it in the spec)
    assert Character.objects.get(pk=character.pk).sheet == before
    with pytest.raises(ValidationError):
        ev.draft(sheet=valid_sheet(**changes), name="Otra")
    assert not Character.objects.filter(name="Otra").exists()


def test_the_improvement_cap_is_a_house_rule_apart_from_the_picks(ev: EventTable) -> None:
    ev.campaign.rules_settings = {**RULES, "core": {"max_improvements_per_skill": 2}}
    ev.campaign.save()
    with pytest.raises(ValidationError) as info:
        ev.draft(sheet=valid_sheet(skills=[skill("Atletismo", 3), skill("Intimidar"), skill("Correr")]))
    assert "sheet" in info.value.message_dict


def test_a_raised_skill_cap_asks_for_more_picks(ev: EventTable) -> None:
    ev.campaign.rules_settings = {
        **RULES,
        "optional": {**RULES["optional"], "skill_cap": {"enabled": True, "max_picks": 8}},
    }
    ev.campaign.save()
    character = ev.draft(sheet=valid_sheet())
    with pytest.raises(ValidationError):
        services.submit_character(actor=ev.ana, character=character)
    services.update_character(
        actor=ev.ana, character=character, sheet=valid_sheet(skills=[*valid_sheet()["skills"], skill("Correr", 1)])
    )
    assert services.submit_character(actor=ev.ana, character=character).status == CharacterStatus.PENDING


def test_an_npc_needs_no_complete_sheet(ev: EventTable) -> None:
    npc = services.create_character(
        actor=ev.gm, campaign=ev.campaign, name="Gorton", is_npc=True, sheet={"skills": [skill("Intimidar", 1)]}
    )
    npc = services.approve_character(actor=ev.gm, character=npc)
    assert npc.status == CharacterStatus.APPROVED
    assert npc.sheet["status"] == "ACTIVE"


# --- The sheet form --------------------------------------------------------------------------------


def _settings(ev: EventTable) -> EventSettings:
    settings = services.campaign_settings(ev.campaign)
    assert isinstance(settings, EventSettings)
    return settings


def _post(form: SheetForm) -> dict[str, Any]:
    """What the browser sends back: every field's initial value."""
    data: dict[str, Any] = {}
    for name, field in form.fields.items():
        value = form.initial.get(name, field.initial)
        data[name] = "" if value is None else value
    return data


def test_the_registry_gives_the_event_form() -> None:
    assert registry.plugin("event").sheet_form is SheetForm


def test_the_form_round_trips_a_sheet(ev: EventTable) -> None:
    character = ev.approved(sheet=valid_sheet(talent="atletismo", skills=[*valid_sheet()["skills"]]))
    sheet = Character.objects.get(pk=character.pk).sheet
    form = SheetForm(sheet=sheet, settings=_settings(ev))
    bound = SheetForm(_post(form), sheet=sheet, settings=_settings(ev))
    assert bound.is_valid(), bound.errors
    assert bound.to_sheet() == sheet


def test_the_form_round_trips_a_draft_with_a_category(ev: EventTable) -> None:
    draft = ev.draft(sheet=valid_sheet(skills=[skill("Rayo", category="supernatural", improvable=False)]))
    form = SheetForm(sheet=draft.sheet, settings=_settings(ev))
    bound = SheetForm(_post(form), sheet=draft.sheet, settings=_settings(ev))
    assert bound.is_valid(), bound.errors
    assert bound.to_sheet() == draft.sheet


def test_the_form_builds_a_sheet_that_passes_submission(ev: EventTable) -> None:
    data = {
        "handle": "Khan",
        "who_am_i": "Soy Khan.",
        "appearance": "Alto y calvo.",
        "skill_0_name": "Carterista",
        "skill_0_improvements": "3",
        "skill_1_name": "  Abrir   cerraduras ",
        "skill_1_improvements": "1",
    }
    form = SheetForm(data, settings=_settings(ev))
    assert form.is_valid(), form.errors
    sheet = form.to_sheet()
    assert [s["name"] for s in sheet["skills"]] == ["Carterista", "Abrir cerraduras"]
    character = ev.draft(sheet=sheet)
    assert services.submit_character(actor=ev.ana, character=character).status == CharacterStatus.PENDING


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"skill_0_name": "Atletismo", "skill_1_name": "ATLETISMO"}, "Ya tienes la habilidad"),  # duplicate (CV4)
        ({"skill_0_name": "Atletismo", "skill_0_improvements": "6", "skill_1_name": "Correr"}, "6"),  # 8 picks
        ({"skill_0_improvements": "2"}, "habilidad"),  # improvements without a skill
        ({"skill_0_name": "Rayo", "skill_0_category": "supernatural", "skill_0_improvements": "1"}, "mejoras"),
        ({"skill_0_name": "Atletismo", "skill_0_improvements": "7"}, ""),  # over the per-skill cap
        ({"skill_0_name": "Atletismo", "talent": "Pintar"}, "Pintar"),  # the talent is one of the skills
    ],
)
def test_the_form_rejects_bad_input(ev: EventTable, data: dict[str, str], message: str) -> None:
    form = SheetForm(data, settings=_settings(ev))
    assert not form.is_valid()
    assert message in str(form.errors)


def test_the_form_states_the_creation_rules(ev: EventTable) -> None:
    form = SheetForm(settings=_settings(ev))
    assert "6 elecciones" in form.creation_help
    assert "talent" in form.fields
    assert "skill_0_category" in form.fields
