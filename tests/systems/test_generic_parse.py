"""Parsing generic dice notation: every form, precedence, whitespace, case, labels, canonical text."""

from __future__ import annotations

import pytest

from systems.errors import RulesError
from systems.generic import (
    BinaryOp,
    Compare,
    Constant,
    Dice,
    Negate,
    Notation,
    Part,
    Select,
    clear_parse_cache,
    parse,
    parse_cache_info,
)


def expr(text: str):
    notation = parse(text)
    assert len(notation.parts) == 1
    return notation.parts[0].expression


@pytest.mark.parametrize(
    ("text", "node"),
    [
        ("3d6", Dice(3, 6)),
        ("d20", Dice(1, 20)),
        ("D20", Dice(1, 20)),
        ("4dF", Dice(4, "F")),
        ("4df", Dice(4, "F")),
        ("dF", Dice(1, "F")),
        ("d%", Dice(1, 100)),
        ("2d%", Dice(2, 100)),
        ("4d6kh3", Dice(4, 6, select=Select(True, True, 3))),
        ("4d6k3", Dice(4, 6, select=Select(True, True, 3))),
        ("4d6K3", Dice(4, 6, select=Select(True, True, 3))),
        ("4d6k", Dice(4, 6, select=Select(True, True, 1))),
        ("2d20kl1", Dice(2, 20, select=Select(True, False, 1))),
        ("2d20KL1", Dice(2, 20, select=Select(True, False, 1))),
        ("4d6dl1", Dice(4, 6, select=Select(False, False, 1))),
        ("4d6d1", Dice(4, 6, select=Select(False, False, 1))),
        ("4d6D1", Dice(4, 6, select=Select(False, False, 1))),
        ("4d6dh1", Dice(4, 6, select=Select(False, True, 1))),
        ("3d6!", Dice(3, 6, explode=Compare("=", 6))),
        ("3d6!6", Dice(3, 6, explode=Compare("=", 6))),
        ("3d10!>9", Dice(3, 10, explode=Compare(">", 9))),
        ("3d10!>=9", Dice(3, 10, explode=Compare(">=", 9))),
        ("4dF!", Dice(4, "F", explode=Compare("=", 1))),
        ("4d6r1", Dice(4, 6, reroll=Compare("=", 1))),
        ("4d6r", Dice(4, 6, reroll=Compare("=", 1))),
        ("4d6ro1", Dice(4, 6, reroll=Compare("=", 1))),
        ("4d6R<3", Dice(4, 6, reroll=Compare("<", 3))),
        ("4d6rr<2", Dice(4, 6, reroll=Compare("<", 2), reroll_repeat=True)),
        ("4dFr", Dice(4, "F", reroll=Compare("<", 0))),
        ("6d10>=7", Dice(6, 10, success=Compare(">=", 7))),
        ("6d10>7", Dice(6, 10, success=Compare(">", 7))),
        ("6d10<3", Dice(6, 10, success=Compare("<", 3))),
        ("6d10<=3", Dice(6, 10, success=Compare("<=", 3))),
        ("6d10=10", Dice(6, 10, success=Compare("=", 10))),
        ("6d10>=7f1", Dice(6, 10, success=Compare(">=", 7), failure=Compare("=", 1))),
        ("6d10>=7F<=2", Dice(6, 10, success=Compare(">=", 7), failure=Compare("<=", 2))),
        ("7", Constant(7)),
        ("-2", Negate(Constant(2))),
        ("+2", Constant(2)),
    ],
)
def test_forms(text: str, node: object) -> None:
    assert expr(text) == node


def test_modifiers_in_any_order_give_one_tree() -> None:
    a = expr("6d10r1!kh4>=7f1")
    b = expr("6d10f1>=7kh4!r1")
    assert (
        a
        == b
        == Dice(
            6,
            10,
            reroll=Compare("=", 1),
            explode=Compare("=", 10),
            select=Select(True, True, 4),
            success=Compare(">=", 7),
            failure=Compare("=", 1),
        )
    )
    assert a.canonical() == "6d10r1!kh4>=7f1"


def test_comparison_right_after_explode_belongs_to_it() -> None:
    # ``!>4`` explodes above 4 (Roll20 reading); success needs its own comparison after it.
    assert expr("3d6!>4") == Dice(3, 6, explode=Compare(">", 4))
    assert expr("3d6!>4>3") == Dice(3, 6, explode=Compare(">", 4), success=Compare(">", 3))
    explode_max_and_count = Dice(3, 6, explode=Compare("=", 6), success=Compare(">", 4))
    assert explode_max_and_count.canonical() == "3d6!6>4"
    assert expr("3d6!6>4") == explode_max_and_count


def test_precedence_and_associativity() -> None:
    one, two, three = Constant(1), Constant(2), Constant(3)
    assert expr("1+2*3") == BinaryOp("+", one, BinaryOp("*", two, three))
    assert expr("(1+2)*3") == BinaryOp("*", BinaryOp("+", one, two), three)
    assert expr("1-2-3") == BinaryOp("-", BinaryOp("-", one, two), three)
    assert expr("1-(2-3)") == BinaryOp("-", one, BinaryOp("-", two, three))
    assert expr("-1*2") == BinaryOp("*", Negate(one), two)
    assert expr("2*-3") == BinaryOp("*", two, Negate(three))
    assert expr("3d6+2") == BinaryOp("+", Dice(3, 6), two)
    assert expr("2*1d4+1") == BinaryOp("+", BinaryOp("*", two, Dice(1, 4)), one)
    assert expr("((3))") == three


@pytest.mark.parametrize(
    "text",
    ["3d6+2", " 3d6 + 2 ", "3D6+2", "3 d 6 + 2", "\t3d6\n+2", "3d6+ 2"],
)
def test_whitespace_and_case_are_ignored(text: str) -> None:
    assert expr(text) == BinaryOp("+", Dice(3, 6), Constant(2))


def test_parts_and_labels() -> None:
    notation = parse("[ataque] 1d20+5, 1d8+3 # daño, 2d6")
    assert notation == Notation(
        (
            Part(BinaryOp("+", Dice(1, 20), Constant(5)), "ataque"),
            Part(BinaryOp("+", Dice(1, 8), Constant(3)), "daño"),
            Part(Dice(2, 6)),
        )
    )
    assert notation.canonical() == "[ataque] 1d20+5, [daño] 1d8+3, 2d6"


def test_labels_keep_case_and_accents_and_collapse_spaces() -> None:
    assert parse("1d20+5 #   Ataque   Furtivo  ").parts[0].label == "Ataque Furtivo"
    assert parse("[¡Daño, crítico!] 2d6").parts[0].label == "¡Daño, crítico!"
    assert parse("[] 2d6").parts[0].label is None
    assert parse("[ (paréntesis) ] 1d6").parts[0].label == "(paréntesis)"


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("d20", "1d20"),
        ("4D6K3", "4d6kh3"),
        ("4d6d1", "4d6dl1"),
        ("4df", "4dF"),
        ("d%", "1d100"),
        ("3d6!6", "3d6!"),
        ("3d10!>9", "3d10!>9"),
        ("4d6ro1", "4d6r1"),
        ("4d6rr<2", "4d6rr<2"),
        ("6d10 > 7", "6d10>7"),
        ("+2 + (3)", "2+3"),
        ("1-(2-3)", "1-(2-3)"),
        ("(1-2)-3", "1-2-3"),
        ("2*(3*4)", "2*(3*4)"),
        ("-(1+2)", "-(1+2)"),
        ("--2", "-(-2)"),
        ("1d20+5 # ataque", "[ataque] 1d20+5"),
    ],
)
def test_canonical_text(text: str, canonical: str) -> None:
    notation = parse(text)
    assert notation.canonical() == canonical
    assert parse(canonical) == notation


@pytest.mark.parametrize(
    ("text", "column"),
    [
        ("3d6 x", 5),
        ("3d6+*2", 5),
        ("d", 2),
        ("3d6+", 5),
        ("(1d6", 5),
        ("1d6)", 4),
        ("4d6 4d6", 5),
        ("1d20,,1d6", 6),
        ("3d6 # a [b]", 9),
        ("1.5d6", 2),
    ],
)
def test_syntax_errors_give_the_column(text: str, column: int) -> None:
    with pytest.raises(RulesError) as caught:
        parse(text)
    error = caught.value
    assert error.code == "notation_syntax"
    assert error.details["column"] == column
    assert f"columna {column}" in error.message_es
    assert f"column {column}" in error.message_en


def test_duplicate_modifier_and_label_are_refused() -> None:
    with pytest.raises(RulesError) as caught:
        parse("4d6kh3dl1")
    assert caught.value.code == "duplicate_modifier"
    with pytest.raises(RulesError) as caught:
        parse("3d6!!")
    assert caught.value.code == "duplicate_modifier"
    with pytest.raises(RulesError) as caught:
        parse("[a] 1d6 # b")
    assert caught.value.code == "duplicate_label"


def test_parsing_is_cached() -> None:
    clear_parse_cache()
    first = parse("2d6+2d6+1")
    hits = parse_cache_info().hits
    assert parse("2d6+2d6+1") is first
    assert parse_cache_info().hits == hits + 1
