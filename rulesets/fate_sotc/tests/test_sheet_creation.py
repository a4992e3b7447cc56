"""FATE SotC: creating a character follows the rules (spec §2.2-§2.7), and the sheet form round-trips."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ValidationError

from campaigns.models import Role
from characters import services
from characters.models import Character, CharacterStatus
from rulesets.fate_sotc.sheet_form import SheetForm
from rulesets.fate_sotc.tests.sheet_fixtures import (
    SKILLS,
    SotcTable,
    aspects,
    build_sotc_table,
    make_campaign,
    sheet_data,
    stunts,
)
from systems.fate_sotc.settings import FateSotcSettings
from tests.personas import add_member, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def sotc(db: None) -> SotcTable:
    return build_sotc_table()


def _draft(table: SotcTable, **over: Any) -> Character:
    return services.create_character(
        actor=table.player, campaign=table.campaign, name="Doc Méndez", sheet=sheet_data(**over)
    )


def test_a_complete_sheet_is_submitted_and_approved(sotc: SotcTable) -> None:
    character = _draft(sotc, fate_points=50, stress={"health": [True] * 5, "composure": [False] * 5})
    character = services.submit_character(actor=sotc.player, character=character)
    assert character.status == CharacterStatus.PENDING
    character = services.approve_character(actor=sotc.gm, character=character)
    assert character.status == CharacterStatus.APPROVED
    sheet = character.sheet
    assert "name" not in sheet  # the character row holds the name
    assert sheet["kind"] == "pc"
    assert sheet["fate_points"] == 10  # = refresh rate = number of aspects, whatever the player typed
    assert sheet["stress"]["health"] == [False] * 7  # Vigor Bueno (+3): 5 + 2, and no marks at creation
    assert sheet["stress"]["composure"] == [False] * 6  # Coraje Normal (+1): 5 + 1
    assert sheet["consequences"] == [] and sheet["status"] == "active"
    assert all(stunt["approved"] for stunt in sheet["stunts"])  # approved with the character


def _skills_with(**changes: int | None) -> dict[str, int]:
    skills = dict(SKILLS)
    for key, value in changes.items():
        if value is None:
            skills.pop(key)
        else:
            skills[key] = value
    return skills


BROKEN: list[tuple[str, dict[str, Any], str]] = [
    ("pyramid", {"skills": _skills_with(guns=4)}, "skill_pyramid_mismatch"),
    ("missing skill", {"skills": _skills_with(deceit=None)}, "skill_pyramid_mismatch"),
    ("too few aspects", {"aspects": aspects(9)}, "aspect_count_mismatch"),
    ("too many aspects", {"aspects": aspects(11)}, "aspect_count_mismatch"),
    ("too few stunts", {"stunts": stunts(4)}, "stunt_count_mismatch"),
    ("too many stunts", {"stunts": stunts(6)}, "stunt_count_mismatch"),
    ("negative skill", {"skills": _skills_with(deceit=-1)}, "negative_skill"),
    ("unknown skill", {"skills": {**_skills_with(deceit=None), "hacking": 1}}, "unknown_skill"),
]


@pytest.mark.parametrize(("case", "over", "code"), BROKEN, ids=[b[0] for b in BROKEN])
def test_each_broken_creation_rule_refuses_the_submission(
    sotc: SotcTable, case: str, over: dict[str, Any], code: str
) -> None:
    character = _draft(sotc, **over)
    before = Character.objects.get(pk=character.pk).sheet
    with pytest.raises(ValidationError) as info:
        services.submit_character(actor=sotc.player, character=character)
    assert "sheet" in info.value.message_dict
    assert code in " ".join(info.value.message_dict["sheet"])
    character.refresh_from_db()
    assert character.status == CharacterStatus.DRAFT
    assert character.sheet == before


def test_skill_above_the_creation_maximum(db: None) -> None:
    gm, player = make_user("max_gm"), make_user("max_player")
    campaign = make_campaign(gm, skill_pyramid={"6": 1, "1": 1}, max_skill_at_creation=5)
    add_member(campaign, gm, player, Role.PLAYER)
    character = services.create_character(
        actor=player, campaign=campaign, name="Titán", sheet=sheet_data(skills={"might": 6, "guns": 1})
    )
    with pytest.raises(ValidationError) as info:
        services.submit_character(actor=player, character=character)
    assert "skill_above_creation_max" in " ".join(info.value.message_dict["sheet"])


@pytest.mark.parametrize(
    "over",
    [
        {"aspects": [*aspects(9), {"id": "x", "text": "as del aire de la gran guerra"}]},  # duplicate aspect
        {"skills": {"guns": "muchísimo"}},
        {"aspects": [{"id": "a", "text": "x" * 121}]},
    ],
    ids=["duplicate aspect", "not a number", "aspect too long"],
)
def test_a_draft_with_impossible_values_is_not_saved(sotc: SotcTable, over: dict[str, Any]) -> None:
    count = Character.objects.count()
    with pytest.raises(ValidationError) as info:
        _draft(sotc, **over)
    assert "sheet" in info.value.message_dict
    assert Character.objects.count() == count


def test_a_half_written_draft_saves(sotc: SotcTable) -> None:
    character = services.create_character(
        actor=sotc.player, campaign=sotc.campaign, name="A medias", sheet={"skills": {"guns": 3}}
    )
    assert character.sheet["skills"] == {"guns": 3}
    assert character.sheet["stress"]["health"] == [False] * 5


def test_under_warn_the_gm_decides(db: None) -> None:
    gm, player = make_user("warn_gm"), make_user("warn_player")
    campaign = make_campaign(gm, skill_pyramid_enforcement="warn")
    add_member(campaign, gm, player, Role.PLAYER)
    character = services.create_character(
        actor=player, campaign=campaign, name="Libre", sheet=sheet_data(aspects=aspects(3))
    )
    character = services.submit_character(actor=player, character=character)
    character = services.approve_character(actor=gm, character=character)
    assert character.sheet["fate_points"] == 3


def test_an_npc_skips_the_pyramid_and_keeps_its_points(sotc: SotcTable) -> None:
    sheet = sotc.npc.sheet
    assert sheet["kind"] == "npc"
    assert sheet["skills"]["deceit"] == -1
    assert sheet["fate_points"] == 3 and sheet["tenacity"] == 2
    assert sheet["stress"]["composure"] == [False] * 7  # Coraje Grande (+4)


# --- The sheet form -------------------------------------------------------------------------------


def _as_post(form: SheetForm) -> dict[str, Any]:
    """What a browser sends back for an unchanged form."""
    data: dict[str, Any] = {}
    for name in form.fields:
        value = form[name].value()
        data[name] = "" if value is None else value
    return data


def test_the_form_round_trips_a_stored_sheet(sotc: SotcTable) -> None:
    settings = services.campaign_settings(sotc.campaign)
    sheet = sotc.hero.sheet
    unbound = SheetForm(sheet=sheet, settings=settings)
    form = SheetForm(_as_post(unbound), sheet=sheet, settings=settings)
    assert form.is_valid(), form.errors
    assert form.to_sheet() == sheet


def test_the_form_round_trips_an_npc(sotc: SotcTable) -> None:
    settings = services.campaign_settings(sotc.campaign)
    sheet = sotc.npc.sheet
    form = SheetForm(_as_post(SheetForm(sheet=sheet, settings=settings, is_npc=True)), sheet=sheet, is_npc=True)
    assert form.is_valid(), form.errors
    assert form.to_sheet() == sheet


def test_a_new_sheet_from_the_form_is_a_valid_draft_and_submits(sotc: SotcTable) -> None:
    settings = services.campaign_settings(sotc.campaign)
    post: dict[str, Any] = {f"skill_{k}": str(v) for k, v in SKILLS.items()}
    post.update({f"aspect_{i + 1}": a["text"] for i, a in enumerate(aspects())})
    for j, stunt in enumerate(stunts(), start=1):
        post[f"stunt_{j}_name"] = stunt["name"]
        post[f"stunt_{j}_skill"] = stunt["linked_skill"] or ""
        post[f"stunt_{j}_fp_cost"] = str(stunt["fp_cost"])
        post[f"stunt_{j}_description"] = stunt["description"]
    form = SheetForm(post, settings=settings)
    assert form.is_valid(), form.errors
    sheet = form.to_sheet()
    assert sheet["skills"] == SKILLS
    assert [a["id"] for a in sheet["aspects"]] == [f"aspecto-{i}" for i in range(1, 11)]
    character = services.create_character(actor=sotc.player, campaign=sotc.campaign, name="Nueva", sheet=sheet)
    character = services.submit_character(actor=sotc.player, character=character)
    assert character.status == CharacterStatus.PENDING
    assert character.sheet["fate_points"] == 10


@pytest.mark.parametrize(
    ("post", "field"),
    [
        ({"aspect_1": "Piloto temeraria", "aspect_2": "PILOTO TEMERARIA"}, "aspect_2"),
        ({"skill_guns": "9"}, "skill_guns"),  # not on a player's creation ladder
        ({"skill_guns": "-1"}, "skill_guns"),
        ({"aspect_1": "x" * 121}, "aspect_1"),
        ({"stunt_1_description": "Sin nombre"}, "stunt_1_name"),
        ({"stunt_1_name": "Cara", "stunt_1_fp_cost": "7"}, "stunt_1_fp_cost"),
    ],
    ids=["duplicate aspect", "rating too high", "negative rating", "aspect too long", "stunt without name", "cost"],
)
def test_the_form_rejects_bad_input(post: dict[str, str], field: str) -> None:
    form = SheetForm(post, settings=FateSotcSettings())
    assert not form.is_valid()
    assert field in form.errors


def test_the_form_states_the_creation_rules() -> None:
    form = SheetForm(settings=FateSotcSettings())
    assert "Excelente (+5)" in form.fields["skill_academics"].help_text or any(
        "1 × Excelente (+5)" in str(f.help_text) for f in form.fields.values()
    )
    assert "10 aspectos" in str(form.fields["aspect_1"].help_text)
    assert "5 virtudes" in str(form.fields["stunt_1_name"].help_text)
    assert "Salud" in str(form.fields["skill_endurance"].help_text)
    assert "Bueno (+3)" in [label for _v, label in form.fields["skill_guns"].choices]  # type: ignore[attr-defined]
