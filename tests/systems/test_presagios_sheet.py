"""Spec §8.6: character creation (vectors presagios-57..66)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

import systems.presagios as presagios_rules
from systems.errors import RulesError
from systems.presagios.sheet import Kind, PresagiosSheet, create_character, valid_base_triples
from tests.systems.test_presagios_fixtures import sheet_data
from tests.systems.vectors import vector


def _traits(**per_char: list[int]) -> list[dict[str, Any]]:
    return [
        {"name": f"{key}-{i}", "characteristic": key, "value": value}
        for key, values in per_char.items()
        for i, value in enumerate(values)
    ]


@vector("presagios-57")
def test_valid_creation_starts_with_five_points(vector_id: str) -> None:
    data = sheet_data((4, 3, 2), traits=_traits(c1=[3, 1], c2=[2, 1], c3=[2]))
    sheet = create_character({**data, "overcome": 0, "current": [1, 1, 1]})  # creation state is set, not taken
    assert sheet.overcome == 5 and sheet.current == sheet.base == (4, 3, 2)
    assert sheet.kind is Kind.PRINCIPAL and len(sheet.hitos) == 2 and len(sheet.complications) == 1
    model = presagios_rules.RULESET.sheet_model
    assert model is PresagiosSheet


@vector("presagios-58")
def test_valid_creation_with_many_small_traits(vector_id: str) -> None:
    data = sheet_data((5, 3, 1), traits=_traits(c1=[3, 2], c2=[1, 1, 1], c3=[1]))
    assert create_character(data).base == (5, 3, 1)


# vector: (changes to a valid sheet, expected code)
BROKEN: dict[str, list[tuple[dict[str, Any], str]]] = {
    "presagios-59": [({"base": (5, 4, 0), "traits": _traits(c1=[3, 2], c2=[3, 1])}, "CHAR_RANGE")],
    "presagios-60": [({"base": (6, 2, 1), "traits": _traits(c1=[3, 3], c2=[2], c3=[1])}, "CHAR_RANGE")],
    "presagios-61": [({"base": (4, 4, 2), "traits": _traits(c1=[3, 1], c2=[3, 1], c3=[2])}, "CHAR_SUM")],
    "presagios-62": [({"base": (5, 2, 2), "traits": _traits(c1=[3, 3], c2=[2], c3=[2])}, "TRAIT_SUM")],
    "presagios-63": [({"base": (5, 2, 2), "traits": _traits(c1=[4, 1], c2=[2], c3=[2])}, "TRAIT_RANGE")],
    "presagios-64": [({"hitos": ["uno"]}, "HITOS_COUNT"), ({"hitos": ["uno", "dos", "tres"]}, "HITOS_COUNT")],
    "presagios-65": [({"complication": ""}, "COMPLICATION_COUNT"), ({"complications": []}, "COMPLICATION_COUNT")],
}


@vector(*BROKEN)
def test_creation_rules_reject(vector_id: str) -> None:
    for changes, code in BROKEN[vector_id]:
        data = sheet_data((3, 3, 3))
        if "complications" in changes:
            data.pop("complication")
        data.update(changes)
        with pytest.raises(RulesError) as err:
            create_character(data)
        assert err.value.code == code, changes
        assert err.value.message_es and err.value.message_en


@vector("presagios-66")
def test_nineteen_ordered_base_triples(vector_id: str) -> None:
    triples = valid_base_triples()
    assert len(triples) == 19
    shapes = Counter(tuple(sorted(t, reverse=True)) for t in triples)
    assert set(shapes) == {(5, 3, 1), (5, 2, 2), (4, 4, 1), (4, 3, 2), (3, 3, 3)}
    assert shapes[(4, 3, 2)] == 6 and shapes[(3, 3, 3)] == 1


def test_npcs_have_no_creation_sum_rule() -> None:
    sheet = create_character({"name": "Sombra", "kind": "monstruo", "base": (6, 0, 2)})
    assert sheet.overcome == 0 and sheet.current == (6, 0, 2)
    with pytest.raises(RulesError) as err:
        create_character({"name": "x", "kind": "principal", "concept": " ", "base": (3, 3, 3)})
    assert err.value.code == "CONCEPT_REQUIRED"
