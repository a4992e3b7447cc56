"""fate-sotc §8.1 dice and §8.2 ladder vectors."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from systems.dice import ScriptedDice
from systems.errors import RulesError
from systems.fate_sotc.dice import df_from_d6, dice_from_d6, parse_glyphs, roll_4df
from systems.fate_sotc.ladder import ladder_label, parse_ladder
from tests.systems.vectors import vector


@vector("fate-sotc-1")
def test_d6_maps_to_fudge_faces(vector_id: str) -> None:
    assert [df_from_d6(d) for d in range(1, 7)] == [-1, -1, 0, 0, 1, 1]


@vector("fate-sotc-2")
def test_impossible_d6_is_refused(vector_id: str) -> None:
    for bad in (0, 7):
        with pytest.raises(RulesError) as err:
            df_from_d6(bad)
        assert err.value.code == "invalid_d6"


ROLLS = {
    "fate-sotc-3": ([1, 2, 3, 4], (-1, -1, 0, 0), -2, "[-] [-] [ ] [ ]"),
    "fate-sotc-4": ([5, 6, 5, 6], (1, 1, 1, 1), 4, "[+] [+] [+] [+]"),
    "fate-sotc-5": ([1, 1, 2, 2], (-1, -1, -1, -1), -4, None),
    "fate-sotc-6": ([3, 4, 4, 3], (0, 0, 0, 0), 0, None),
    "fate-sotc-7": ([6, 3, 2, 4], (1, 0, -1, 0), 0, None),
    "fate-sotc-8": ([5, 1, 6, 5], (1, -1, 1, 1), 2, None),
    "fate-sotc-9": ([2, 5, 1, 2], (-1, 1, -1, -1), -2, None),
}


@vector(*ROLLS)
def test_server_roll_reads_d6_as_fudge(vector_id: str) -> None:
    d6, faces, total, glyphs = ROLLS[vector_id]
    rolled = roll_4df(ScriptedDice(d6))
    assert rolled.d6 == tuple(d6)  # raw dice kept for audit
    assert rolled.faces == faces
    assert rolled.total == total
    assert rolled == dice_from_d6(d6)
    if glyphs is not None:
        assert rolled.glyphs == glyphs
    if vector_id == "fate-sotc-9":
        assert rolled.faces == parse_glyphs("[-] [+] [-] [-]").faces  # same faces as vector 10


GLYPHS = {
    "fate-sotc-10": ("[-] [+] [-] [-]", (-1, 1, -1, -1), -2),
    "fate-sotc-11": ("[+] [  ] [  ] [  ]", (1, 0, 0, 0), 1),
    "fate-sotc-12": ("[  ] [+ ] [  ]  [-]", (0, 1, 0, -1), 0),
    "fate-sotc-13": ("[–] [blanco] [+] [+]", (-1, 0, 1, 1), 1),
}


@vector(*GLYPHS)
def test_parse_glyphs(vector_id: str) -> None:
    text, faces, total = GLYPHS[vector_id]
    parsed = parse_glyphs(text)
    assert parsed.faces == faces
    assert parsed.total == total


def test_render_shows_glyphs_and_total() -> None:
    assert dice_from_d6([2, 5, 1, 2]).render() == "[-] [+] [-] [-] = -2"
    with pytest.raises(RulesError) as err:
        parse_glyphs("[x] [+]")
    assert err.value.code == "invalid_glyph"


@vector("fate-sotc-14")
def test_face_tuple_enumeration(vector_id: str) -> None:
    counts = Counter(sum(t) for t in itertools.product((-1, 0, 1), repeat=4))
    assert [counts[s] for s in range(-4, 5)] == [1, 4, 10, 16, 19, 16, 10, 4, 1]


@vector("fate-sotc-15")
def test_d6_tuple_enumeration(vector_id: str) -> None:
    counts = Counter(dice_from_d6(list(t)).total for t in itertools.product(range(1, 7), repeat=4))
    assert [counts[s] for s in range(-4, 5)] == [16, 64, 160, 256, 304, 256, 160, 64, 16]


LABELS = {
    "fate-sotc-16": {
        -2: "Terrible (-2)",
        -1: "Pobre (-1)",
        0: "Mediocre (+0)",
        1: "Normal (+1)",
        2: "Adecuado (+2)",
        3: "Bueno (+3)",
        4: "Grande (+4)",
        5: "Excelente (+5)",
        6: "Fantástico (+6)",
        7: "Épico (+7)",
        8: "Legendario (+8)",
    },
    "fate-sotc-17": {9: "Legendario+1 (+9)", 10: "Legendario+2 (+10)", 12: "Legendario+4 (+12)"},
    "fate-sotc-18": {-3: "Terrible-1 (-3)", -4: "Terrible-2 (-4)", -6: "Terrible-4 (-6)"},
}


@vector(*LABELS)
def test_ladder_labels(vector_id: str) -> None:
    for value, label in LABELS[vector_id].items():
        assert ladder_label(value) == label
        assert "−" not in label  # ASCII hyphen-minus only


@vector("fate-sotc-19")
def test_parse_ladder(vector_id: str) -> None:
    assert [parse_ladder(s) for s in ("Normal", "Adecuado", "Mediocre", "Pobre", "Legendario")] == [1, 2, 0, -1, 8]
    assert parse_ladder("epico") == 7 and parse_ladder("FANTASTICO") == 6
    assert parse_ladder("Legendario+2 (+10)") == 10 and parse_ladder("Terrible-2") == -4
    with pytest.raises(RulesError):
        parse_ladder("Increíble")
