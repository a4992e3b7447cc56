"""The adjective ladder (spec §1.2, §3.2): labels are "Label (+n)", values are never clamped."""

from __future__ import annotations

import unicodedata

from systems.fate_sotc.errors import fate_error

LADDER: dict[int, str] = {
    8: "Legendario",
    7: "Épico",
    6: "Fantástico",
    5: "Excelente",
    4: "Grande",
    3: "Bueno",
    2: "Adecuado",
    1: "Normal",
    0: "Mediocre",
    -1: "Pobre",
    -2: "Terrible",
}
LADDER_EN: dict[int, str] = {
    8: "Legendary",
    7: "Epic",
    6: "Fantastic",
    5: "Superb",
    4: "Great",
    3: "Good",
    2: "Fair",
    1: "Average",
    0: "Mediocre",
    -1: "Poor",
    -2: "Terrible",
}
TOP, BOTTOM = 8, -2


def _strip_accents(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")


_BY_NAME: dict[str, int] = {}
for _value, _name in (*LADDER.items(), *LADDER_EN.items()):
    _BY_NAME[_name.lower()] = _value
    _BY_NAME[_strip_accents(_name).lower()] = _value


def ladder_name(value: int, language: str = "es") -> str:
    names = LADDER_EN if language.startswith("en") else LADDER
    if value > TOP:
        return f"{names[TOP]}+{value - TOP}"
    if value < BOTTOM:
        return f"{names[BOTTOM]}-{BOTTOM - value}"
    return names[value]


def ladder_label(value: int, language: str = "es") -> str:
    """``Bueno (+3)``, ``Mediocre (+0)``, ``Legendario+2 (+10)``, ``Terrible-2 (-4)`` (ASCII minus)."""
    return f"{ladder_name(value, language)} ({value:+d})"


def parse_ladder(label: str) -> int:
    """Inverse of the ladder: case- and accent-insensitive; accepts a trailing ``(+n)`` too."""
    text = label.strip()
    if "(" in text:
        text = text.split("(", 1)[0].strip()
    key = text.lower()
    if key in _BY_NAME:
        return _BY_NAME[key]
    key = _strip_accents(key)
    if key in _BY_NAME:
        return _BY_NAME[key]
    for base, sign in (("legendario", 1), ("legendary", 1), ("terrible", -1)):
        if key.startswith(base) and key[len(base) :][:1] in "+-" and key[len(base) + 1 :].isdigit():
            extra = int(key[len(base) + 1 :])
            return TOP + extra if sign > 0 else BOTTOM - extra
    raise fate_error("invalid_ladder_label", value=label)


def skill_line(skill_label: str, rating: int) -> str:
    """A sheet line: ``Piloto: Bueno (+3)``."""
    return f"{skill_label}: {ladder_label(rating)}"
