"""No te Duermas: creating a protagonist by the rules (§2.2), the draft checks, and the sheet form."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ValidationError

from characters import services
from characters.models import Character, CharacterStatus
from rulesets import registry
from rulesets.dont_rest_your_head.sheet import BINDING
from rulesets.dont_rest_your_head.sheet_form import SheetForm
from rulesets.dont_rest_your_head.tests.sheet_fixtures import ANSWERS, DryhTable, build_dryh_table, valid_sheet


@pytest.fixture
def dryh(db: None) -> DryhTable:
    return build_dryh_table()


def _draft(dryh: DryhTable, sheet: dict[str, Any]) -> Character:
    return services.create_character(actor=dryh.player, campaign=dryh.campaign, name="Gavin", sheet=sheet)


def test_a_complete_sheet_is_submitted_and_approved(dryh: DryhTable) -> None:
    character = _draft(dryh, valid_sheet())
    assert character.status == CharacterStatus.DRAFT
    character = services.submit_character(actor=dryh.player, character=character)
    assert character.status == CharacterStatus.PENDING
    character = services.approve_character(actor=dryh.gm, character=character)
    assert character.status == CharacterStatus.APPROVED
    sheet = Character.objects.get(pk=character.pk).sheet
    assert (sheet["discipline"], sheet["discipline_base"], sheet["exhaustion"]) == (3, 3, 0)
    assert (sheet["fight"], sheet["flight"], sheet["permanent_madness"], sheet["scars"]) == (0, 0, 0, [])
    assert sheet["status"] == "awake"
    assert sheet["exhaustion_talent"]["name"] == "Vista de Lince"
    assert sheet["madness_talent"]["price_rule"]["kind"] == "at_least"
    assert sheet["questions"] == ANSWERS
    assert "name" not in sheet  # the character row holds the name


def test_a_half_written_sheet_saves_as_a_draft(dryh: DryhTable) -> None:
    character = _draft(dryh, {"exhaustion_talent": {"name": "Apostar"}, "questions": {"awake": "  deudas "}})
    assert character.sheet["exhaustion_talent"] == {"name": "Apostar", "description": ""}
    assert "madness_talent" not in character.sheet
    assert character.sheet["questions"]["awake"] == "deudas"
    assert character.sheet["discipline"] == 3
    empty = services.create_character(actor=dryh.player2, campaign=dryh.campaign, name="Vacía")
    assert empty.sheet["exhaustion"] == 0


@pytest.mark.parametrize(
    "bad",
    [
        {"exhaustion": 9},
        {"fight": 4},
        {"discipline": "mucha"},
        {"exhaustion_talent": {"name": "x" * 121}},
        {"madness_talent": {"name": "Preparación", "price_rule": {"kind": "fixed"}}},
        {"questions": {"awake": 3}},
        {"questions": {"favourite_colour": "azul"}},
        {"hope": 3},
    ],
    ids=["exhaustion-range", "boxes-range", "type", "talent-length", "price-shape", "answer-type", "question", "extra"],
)
def test_a_draft_refuses_wrong_types_and_ranges(dryh: DryhTable, bad: dict[str, Any]) -> None:
    with pytest.raises(ValidationError) as exc:
        _draft(dryh, bad)
    assert "sheet" in exc.value.message_dict
    assert not Character.objects.filter(campaign=dryh.campaign).exists()


BROKEN_RULES = [
    ("discipline", {"discipline": 2, "permanent_madness": 1}, "disciplina"),
    ("discipline-base", {"discipline_base": 4, "discipline": 4}, "disciplina"),
    ("exhaustion", {"exhaustion": 1}, "agotamiento"),
    ("fight", {"fight": 1}, "casillas"),
    ("flight", {"flight": 2}, "casillas"),
    ("permanent-madness", {"permanent_madness": 1}, "locura permanente"),
    ("scars", {"scars": [{"text": "El Distrito Trece", "created_session": 0}]}, "cicatrices"),
    ("status", {"status": "asleep", "discipline_restore_to": 3}, "despierto"),
    ("no-exhaustion-talent", {"exhaustion_talent": {"name": ""}}, "exhaustion_talent"),
    ("no-madness-talent", {"madness_talent": None}, "madness_talent"),
    ("unanswered", {"questions": {**ANSWERS, "path": ""}}, "¿Cuál es tu camino?"),
    ("no-questions", {"questions": None}, "¿Qué te ha mantenido despierto?"),
]


@pytest.mark.parametrize(("changes", "message"), [c[1:] for c in BROKEN_RULES], ids=[c[0] for c in BROKEN_RULES])
def test_each_creation_rule_refuses_submission_and_changes_nothing(
    dryh: DryhTable, changes: dict[str, Any], message: str
) -> None:
    sheet = {k: v for k, v in valid_sheet(**changes).items() if v is not None}
    character = _draft(dryh, sheet)
    stored = Character.objects.get(pk=character.pk).sheet
    with pytest.raises(ValidationError) as exc:
        services.submit_character(actor=dryh.player, character=character)
    assert message in " ".join(exc.value.message_dict["sheet"])
    character.refresh_from_db()
    assert character.status == CharacterStatus.DRAFT
    assert character.sheet == stored
    # The GM can't approve it either (an NPC is the only draft a GM approves directly).
    with pytest.raises(ValidationError):
        services.approve_character(actor=dryh.gm, character=character)


def test_a_protagonist_is_not_a_pain_score(dryh: DryhTable) -> None:
    character = _draft(dryh, {"pain": 3})
    with pytest.raises(ValidationError) as exc:
        services.submit_character(actor=dryh.player, character=character)
    assert "talentos" in " ".join(exc.value.message_dict["sheet"])


def test_an_npc_of_the_opposition_is_a_pain_score(dryh: DryhTable) -> None:
    npc = services.create_character(
        actor=dryh.gm, campaign=dryh.campaign, name="Chico de los periódicos", is_npc=True, sheet={"pain": 2}
    )
    npc = services.approve_character(actor=dryh.gm, character=npc)
    assert npc.sheet == {"pain": 2}
    with pytest.raises(ValidationError):
        services.create_character(actor=dryh.gm, campaign=dryh.campaign, name="Nada", is_npc=True, sheet={"pain": 0})


def test_an_npc_may_keep_a_protagonists_sheet(dryh: DryhTable) -> None:
    sheet = valid_sheet(discipline=0, permanent_madness=3, status="nightmare", nightmare_pain=8)
    npc = services.create_character(actor=dryh.gm, campaign=dryh.campaign, name="Pesadilla", is_npc=True, sheet=sheet)
    npc = services.approve_character(actor=dryh.gm, character=npc)
    assert npc.sheet["status"] == "nightmare"
    assert npc.sheet["nightmare_pain"] == 8


# --- the sheet form ---------------------------------------------------------------------------------


def _post(form: SheetForm) -> dict[str, Any]:
    """What a browser sends back for an unchanged form."""
    data = {}
    for name, field in form.fields.items():
        value = form.initial.get(name, field.initial)
        data[name] = "" if value is None else str(value)
    return data


def test_the_form_is_registered() -> None:
    assert registry.plugin("dont-rest-your-head").sheet_form is SheetForm


def test_the_form_round_trips_a_stored_sheet(dryh: DryhTable) -> None:
    stored = BINDING.new_sheet(BINDING.draft_sheet(valid_sheet(), None), None, is_npc=False)
    battered = {**stored, "exhaustion": 4, "fight": 2, "scars": [{"text": "Mi hija", "created_session": 1}]}
    for sheet in (stored, battered):
        form = SheetForm(_post(SheetForm(sheet=sheet)), sheet=sheet)
        assert form.is_valid(), form.errors
        assert form.to_sheet() == sheet


def test_the_form_builds_a_sheet_that_passes_creation(dryh: DryhTable) -> None:
    data = {
        "exhaustion_talent_name": "Atleta",
        "exhaustion_talent_description": "Corre, salta y trepa.",
        "madness_talent_name": "Teletransporte",
        "madness_talent_description": "De un sitio a otro.",
        "madness_price_kind": "range",
        "madness_price_min": "1",
        "madness_price_max": "6",
        **{f"question_{key}": answer for key, answer in ANSWERS.items()},
    }
    form = SheetForm(data)
    assert form.is_valid(), form.errors
    character = _draft(dryh, form.to_sheet())
    character = services.submit_character(actor=dryh.player, character=character)
    assert character.sheet["madness_talent"]["price_rule"] == {"kind": "range", "n": None, "min": 1, "max": 6}
    assert character.sheet["questions"] == ANSWERS


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"madness_price_kind": "fixed", "madness_price_n": ""}, "madness_price_n"),
        ({"madness_price_kind": "range", "madness_price_min": "5", "madness_price_max": "2"}, "madness_price_max"),
        ({"madness_price_n": "7"}, "madness_price_n"),
        ({"madness_price_kind": "siempre"}, "madness_price_kind"),
        ({"exhaustion_talent_name": "x" * 121}, "exhaustion_talent_name"),
        ({"question_path": "x" * 2001}, "question_path"),
    ],
)
def test_the_form_rejects_bad_input(changes: dict[str, str], field: str) -> None:
    form = SheetForm({**_post(SheetForm()), **changes})
    assert not form.is_valid()
    assert field in form.errors


def test_the_npc_form_asks_for_pain() -> None:
    form = SheetForm({"pain": "4"}, is_npc=True)
    assert list(form.fields) == ["pain"]
    assert form.is_valid()
    assert form.to_sheet() == {"pain": 4}
    assert not SheetForm({"pain": "0"}, is_npc=True).is_valid()
    former_pc = BINDING.draft_sheet(valid_sheet(), None)
    assert "exhaustion_talent_name" in SheetForm(sheet=former_pc, is_npc=True).fields


def test_the_form_states_the_creation_rules() -> None:
    form = SheetForm()
    assert "Obligatorio" in str(form["exhaustion_talent_name"].help_text)
    assert form["madness_talent_name"].label == "Talento de locura"
    assert form.question_fields[0].label == "¿Qué te ha mantenido despierto?"


def test_the_form_fragment_reads_like_the_paper_sheet() -> None:
    from django.template.loader import render_to_string

    markup = render_to_string("dont_rest_your_head/sheet_form.html", {"form": SheetForm()})
    for expected in ("Disciplina 3 · Agotamiento 0", "¿Cuál es tu camino?", "Talento de locura", "Precio del talento"):
        assert expected in markup, expected
    npc = render_to_string("dont_rest_your_head/sheet_form.html", {"form": SheetForm(is_npc=True)})
    assert "Puntuación de dolor" in npc and "Talento" not in npc
