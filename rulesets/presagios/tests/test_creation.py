"""Presagios creation: the sheet of a main character follows spec §2.3 before it can be approved."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ValidationError

from characters import services
from characters.models import Character, CharacterStatus
from rulesets import registry
from rulesets.presagios.sheet_form import SheetForm
from rulesets.presagios.tests.fixtures import PresagiosTable, build_presagios, npc_sheet, pc_sheet
from systems.presagios.settings import PresagiosSettings

BINDING = registry.plugin("presagios").sheet


@pytest.fixture
def pt(db: None) -> PresagiosTable:
    return build_presagios()


def _draft(pt: PresagiosTable, sheet: dict[str, Any], name: str = "Marta") -> Character:
    return services.create_character(actor=pt.player, campaign=pt.campaign, name=name, sheet=sheet)


def _trait(name: str, key: str, value: int, supernatural: bool = False) -> dict[str, Any]:
    return {"name": name, "characteristic": key, "value": value, "supernatural": supernatural}


# --- submit and approve ---------------------------------------------------------------------------


def test_valid_sheet_is_submitted_and_approved_with_creation_state(pt: PresagiosTable) -> None:
    character = _draft(pt, pc_sheet())
    assert character.status == CharacterStatus.DRAFT
    assert "overcome" not in character.sheet  # a draft keeps only what the player writes
    character = services.submit_character(actor=pt.player, character=character)
    assert character.status == CharacterStatus.PENDING
    character = services.approve_character(actor=pt.gm, character=character)
    assert character.status == CharacterStatus.APPROVED
    assert character.sheet["overcome"] == 5  # spec vector 57
    assert character.sheet["current"] == [4, 3, 2]
    assert character.sheet["status"] == "in_story"
    assert character.sheet["challenge_locks"] == []
    assert "name" not in character.sheet  # the row holds the name


def test_spec_vector_58_is_valid(pt: PresagiosTable) -> None:
    traits = [
        _trait("Fuerza", "c1", 3),
        _trait("Reflejos", "c1", 2),
        _trait("Labia", "c2", 1),
        _trait("Encanto", "c2", 1),
        _trait("Calle", "c2", 1),
        _trait("Memoria", "c3", 1),
    ]
    character = _draft(pt, pc_sheet(base=[5, 3, 1], traits=traits))
    assert services.submit_character(actor=pt.player, character=character).status == CharacterStatus.PENDING


def test_submitted_overcome_and_current_are_set_automatically(pt: PresagiosTable) -> None:
    """START_OVERCOME: "set it automatically" — whatever the input says."""
    sheet = BINDING.new_sheet({**pc_sheet(), "overcome": 9, "current": [1, 1, 1]}, None, is_npc=False)
    assert sheet["overcome"] == 5
    assert sheet["current"] == [4, 3, 2]


BROKEN = [
    ("CONCEPT_REQUIRED", {"concept": "  "}),
    ("CHAR_RANGE", {"base": [5, 4, 0]}),  # vector 59
    ("CHAR_RANGE", {"base": [6, 2, 1]}),  # vector 60
    ("CHAR_SUM", {"base": [4, 4, 2]}),  # vector 61
    ("TRAIT_SUM", {"traits": [_trait("A", "c1", 3), _trait("B", "c1", 3)]}),  # vector 62 (partial)
    ("TRAIT_RANGE", {"base": [5, 2, 2], "traits": [_trait("A", "c1", 4)]}),  # vector 63, draft-level too
    ("HITOS_COUNT", {"hitos": ["Solo uno"]}),  # vector 64
    ("HITOS_COUNT", {"hitos": ["Uno", "Dos", "Tres"]}),  # vector 64
    ("COMPLICATION_COUNT", {"complications": []}),  # vector 65
    ("COMPLICATION_COUNT", {"complications": ["Una", "Otra"]}),
]


@pytest.mark.parametrize(("code", "changes"), BROKEN, ids=[f"{c}-{i}" for i, (c, _) in enumerate(BROKEN)])
def test_each_broken_creation_rule_refuses_submit_and_changes_nothing(
    pt: PresagiosTable, code: str, changes: dict[str, Any]
) -> None:
    sheet = pc_sheet(**changes)
    if code == "TRAIT_RANGE":
        # a trait worth +4 can't even be saved as a draft (a range), so it reaches the rules via the API path
        with pytest.raises(ValidationError) as excinfo:
            _draft(pt, sheet)
        assert "sheet" in excinfo.value.error_dict
        assert not Character.objects.filter(name="Marta").exists()
        return
    character = _draft(pt, sheet)
    stored = dict(character.sheet)
    with pytest.raises(ValidationError) as excinfo:
        services.submit_character(actor=pt.player, character=character)
    assert code in " ".join(excinfo.value.message_dict["sheet"])
    character.refresh_from_db()
    assert character.status == CharacterStatus.DRAFT
    assert character.sheet == stored


def test_trait_range_code_from_the_rules(pt: PresagiosTable) -> None:
    from systems.errors import RulesError

    with pytest.raises(RulesError) as excinfo:
        BINDING.new_sheet(pc_sheet(base=[5, 2, 2], traits=[_trait("A", "c1", 4)]), None, is_npc=False)
    assert excinfo.value.code == "TRAIT_RANGE"


def test_gm_cannot_approve_a_pending_sheet_the_gm_broke(pt: PresagiosTable) -> None:
    character = _draft(pt, pc_sheet())
    services.submit_character(actor=pt.player, character=character)
    services.update_character(actor=pt.gm, character=character, sheet=pc_sheet(hitos=[]))
    with pytest.raises(ValidationError):
        services.approve_character(actor=pt.gm, character=character)
    character.refresh_from_db()
    assert character.status == CharacterStatus.PENDING


def test_player_character_must_be_principal_and_npc_must_not(pt: PresagiosTable) -> None:
    character = _draft(pt, pc_sheet(kind="monstruo"))
    with pytest.raises(ValidationError) as excinfo:
        services.submit_character(actor=pt.player, character=character)
    assert "PC_KIND" in " ".join(excinfo.value.message_dict["sheet"])
    npc = services.create_character(actor=pt.gm, campaign=pt.campaign, name="X", is_npc=True, sheet=pc_sheet())
    with pytest.raises(ValidationError) as excinfo:
        services.approve_character(actor=pt.gm, character=npc)
    assert "NPC_KIND" in " ".join(excinfo.value.message_dict["sheet"])


def test_npcs_have_free_ratings_and_no_overcome(pt: PresagiosTable) -> None:
    assert pt.cosa.sheet["base"] == [5, 0, 2]
    assert pt.cosa.sheet["overcome"] == 0
    npc = services.create_character(
        actor=pt.gm, campaign=pt.campaign, name="Gigante", is_npc=True, sheet=npc_sheet(base=[10, 1, 0])
    )
    assert services.approve_character(actor=pt.gm, character=npc).sheet["current"] == [10, 1, 0]


def test_draft_accepts_half_written_sheets_but_checks_ranges(pt: PresagiosTable) -> None:
    character = _draft(pt, {"concept": "A medias"})
    assert character.sheet["concept"] == "A medias"
    assert character.sheet["traits"] == []
    for bad in ({"base": [11, 1, 1]}, {"traits": [_trait("X", "c4", 1)]}, {"hitos": "no es una lista"}, {"x": 1}):
        with pytest.raises(ValidationError):
            _draft(pt, bad, name="Mala")
    assert not Character.objects.filter(name="Mala").exists()


# --- the sheet form -------------------------------------------------------------------------------


def _data_from(form: SheetForm) -> dict[str, Any]:
    """What a browser would post for the form as rendered (unchecked boxes are left out)."""
    data: dict[str, Any] = {}
    for name, field in form.fields.items():
        value = form.initial.get(name, field.initial)
        if isinstance(value, bool):
            if value:
                data[name] = "on"
        elif value is not None:
            data[name] = str(value)
    return data


@pytest.mark.parametrize("is_npc", [False, True])
def test_sheet_form_round_trips(is_npc: bool) -> None:
    stored = BINDING.draft_sheet(npc_sheet() if is_npc else pc_sheet(), None)
    form = SheetForm(_data_from(SheetForm(sheet=stored, is_npc=is_npc)), sheet=stored, is_npc=is_npc)
    assert form.is_valid(), form.errors
    assert form.to_sheet() == stored
    assert BINDING.draft_sheet(form.to_sheet(), None) == stored


def test_sheet_form_output_passes_creation() -> None:
    form = SheetForm(_data_from(SheetForm(sheet=pc_sheet())), sheet=pc_sheet())
    assert form.is_valid(), form.errors
    assert BINDING.new_sheet(form.to_sheet(), None, is_npc=False)["overcome"] == 5
    assert all(ok for _text, ok in form.creation_checks())


def test_sheet_form_labels_follow_the_campaign_settings() -> None:
    settings = PresagiosSettings(characteristic_labels=("Cuerpo", "Alma", "Mente"))
    form = SheetForm(settings=settings)
    assert form.fields["base_c1"].label == "Cuerpo"
    assert "9" in str(form.fields["base_c1"].help_text)
    assert form.fields["hito_1"].label == "Hito 1"
    assert "kind" not in form.fields  # a player's character is always a main character


@pytest.mark.parametrize(
    ("field", "value"),
    [("base_c1", "6"), ("base_c2", "0"), ("base_c3", "tres"), ("c1_trait_0_value", "4")],
)
def test_sheet_form_rejects_out_of_range_input(field: str, value: str) -> None:
    data = _data_from(SheetForm(sheet=pc_sheet()))
    data[field] = value
    form = SheetForm(data, sheet=pc_sheet())
    assert not form.is_valid()
    assert field in form.errors


def test_sheet_form_rejects_half_written_traits() -> None:
    data = _data_from(SheetForm(sheet=pc_sheet()))
    data["c3_trait_1_name"] = "Sin valor"
    data["c2_trait_3_value"] = "2"
    form = SheetForm(data, sheet=pc_sheet())
    assert not form.is_valid()
    assert "c3_trait_1_value" in form.errors
    assert "c2_trait_3_name" in form.errors


def test_sheet_form_for_npcs_offers_secondary_or_monster() -> None:
    form = SheetForm(is_npc=True)
    kind: Any = form.fields["kind"]
    assert [value for value, _label in kind.choices] == ["secundario", "monstruo"]
    data = _data_from(SheetForm(sheet=npc_sheet(), is_npc=True))
    data["kind"] = "principal"
    assert not SheetForm(data, sheet=npc_sheet(), is_npc=True).is_valid()


def test_sheet_form_creation_checks_show_what_is_missing() -> None:
    checks = dict(SheetForm(sheet={"concept": "Algo", "base": [4, 4, 2]}).creation_checks())
    assert list(checks.values()) == [True, False, False, False, False]
