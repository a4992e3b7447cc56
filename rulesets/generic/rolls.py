"""Dice notation: available in every campaign, whatever its ruleset (``notation`` kind)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from rolls.serialization import to_jsonable
from rulesets.kit.rolls import JSON, DieFace, Prepared, Resolved
from systems.dice import DiceSource
from systems.generic import NotationRequest, roll_notation

NOTATION = "notation"
FUDGE_GLYPHS = {-1: "−", 0: " ", 1: "+"}


class GenericRollBinding:
    key = "generic"

    def input_model(self, kind: str) -> type[BaseModel]:
        return NotationRequest

    def kind_allowed(self, kind: str, *, gm_kinds: bool) -> bool:
        return kind == NOTATION

    def prepare(self, kind: str, data: JSON, sheet: JSON | None, settings: BaseModel | None) -> Prepared:
        request = NotationRequest.model_validate(data)
        return Prepared(request=request, public=request.model_dump(mode="json"))

    def resolve(self, kind: str, prepared: Prepared, dice: DiceSource, settings: BaseModel | None) -> Resolved:
        request: Any = prepared.request
        result = roll_notation(request.expression, dice, label=request.label)
        text = result.text()
        stored = {
            "canonical": result.canonical,
            "text": text,
            "totals": list(result.totals),
            "capped": result.capped,
            "parts": [
                {
                    "label": part.part.label,
                    "total": part.total,
                    "dice": [
                        {"sides": str(roll.term.sides), "fudge": roll.term.fudge, "faces": to_jsonable(roll.dice)}
                        for roll in part.rolls
                    ],
                }
                for part in result.parts
            ],
        }
        return Resolved(result=stored, secret={}, summary_es=text, summary_en=text)

    def faces(self, kind: str, result: JSON) -> list[DieFace]:
        drawn: list[DieFace] = []
        for part in result.get("parts", []):
            for group in part.get("dice", []):
                fudge = bool(group.get("fudge"))
                for die in group.get("faces", []):
                    face = int(die["face"])
                    glyph = FUDGE_GLYPHS.get(face, str(face)) if fudge else str(face)
                    counts = not (die.get("rerolled") or die.get("dropped"))
                    note = "exploded" if die.get("exploded") else ("rerolled" if die.get("rerolled") else "")
                    pool = "fudge" if fudge else f"d{group['sides']}"
                    drawn.append(DieFace(pool, face, glyph, counts, note))
        return drawn


BINDING = GenericRollBinding()
