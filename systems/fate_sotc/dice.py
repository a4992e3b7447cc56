"""Fudge dice read from d6 (spec §3.1): 1-2 -> -1, 3-4 -> 0, 5-6 -> +1; four of them are 4dF."""

from __future__ import annotations

import re
from dataclasses import dataclass

from systems.dice import DiceSource
from systems.fate_sotc.errors import fate_error

DF_FROM_D6: dict[int, int] = {1: -1, 2: -1, 3: 0, 4: 0, 5: 1, 6: 1}
GLYPH: dict[int, str] = {-1: "[-]", 0: "[ ]", 1: "[+]"}
# Inner text of a bracketed glyph (spaces stripped, lower-cased) -> face. Hyphen or en dash for minus.
_GLYPH_VALUES: dict[str, int] = {"+": 1, "-": -1, "–": -1, "": 0, "blanco": 0}
_BRACKETED = re.compile(r"\[([^\]]*)\]")


def df_from_d6(d: int) -> int:
    """One d6 read as a Fudge die."""
    try:
        return DF_FROM_D6[d]
    except KeyError:
        raise fate_error("invalid_d6", value=d) from None


@dataclass(frozen=True, slots=True)
class FateDice:
    """One throw of 4dF: the raw d6 are kept for audit (§2.11), faces and total are derived."""

    d6: tuple[int, ...]
    faces: tuple[int, ...]
    total: int

    @property
    def glyphs(self) -> str:
        return " ".join(GLYPH[f] for f in self.faces)

    def render(self) -> str:
        """``[-] [+] [-] [-] = -2`` as the source shows a roll."""
        return f"{self.glyphs} = {self.total:+d}"


def dice_from_d6(d6: tuple[int, ...] | list[int]) -> FateDice:
    faces = tuple(df_from_d6(d) for d in d6)
    return FateDice(tuple(d6), faces, sum(faces))


def dice_from_faces(faces: tuple[int, ...] | list[int]) -> FateDice:
    """Dice entered as faces (manual entry, tests); there are no raw d6 to keep."""
    if any(f not in GLYPH for f in faces):
        raise fate_error("invalid_glyph", value=list(faces))
    return FateDice((), tuple(faces), sum(faces))


def roll_4df(source: DiceSource) -> FateDice:
    """Four d6 from the injected source, read as Fudge dice (hot path: no validation needed)."""
    r = source.roll
    a, b, c, d = r(6), r(6), r(6), r(6)
    m = DF_FROM_D6
    fa, fb, fc, fd = m[a], m[b], m[c], m[d]
    return FateDice((a, b, c, d), (fa, fb, fc, fd), fa + fb + fc + fd)


def parse_glyphs(text: str) -> FateDice:
    """``"[-] [+] [ ] [blanco]"`` -> faces; spacing inside and between brackets is free."""
    tokens = _BRACKETED.findall(text)
    leftover = _BRACKETED.sub("", text).strip()
    if not tokens or leftover:
        raise fate_error("invalid_glyph", value=text)
    faces: list[int] = []
    for token in tokens:
        key = token.replace(" ", "").lower()
        if key not in _GLYPH_VALUES:
            raise fate_error("invalid_glyph", value=token)
        faces.append(_GLYPH_VALUES[key])
    return dice_from_faces(tuple(faces))
