"""Character sheet (spec §2.2) and the creation rules of main characters (§2.3)."""

from __future__ import annotations

from collections.abc import Iterator
from enum import StrEnum
from itertools import product
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from systems.errors import RulesError
from systems.presagios.rejections import reject

CharKey = Literal["c1", "c2", "c3"]
CHAR_KEYS: tuple[CharKey, CharKey, CharKey] = ("c1", "c2", "c3")
CREATION_POINTS = 9
CHAR_MIN, CHAR_MAX = 1, 5
NPC_CHAR_MAX = 10  # (R) NPCs: 0..10, no sum rule
TRAIT_MIN, TRAIT_MAX = 1, 3
HITOS_AT_CREATION = 2
STARTING_OVERCOME = 5


def char_index(key: CharKey) -> int:
    return CHAR_KEYS.index(key)


class Kind(StrEnum):
    PRINCIPAL = "principal"
    SECUNDARIO = "secundario"
    MONSTRUO = "monstruo"


class Status(StrEnum):
    IN_STORY = "in_story"
    OUT_OF_STORY = "out_of_story"


class QualityKind(StrEnum):
    CONCEPT = "concept"
    HITO = "hito"
    DESCRIPTOR = "descriptor"
    COMPLICATION = "complication"
    WEAKNESS = "weakness"


class Trait(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1)
    characteristic: CharKey
    value: int  # 1..3, checked by the sheet so the error carries the spec's code
    supernatural: bool = False


class PresagiosSheet(BaseModel):
    """A character. Creation rules are enforced for principals; ``current`` may drop below 0."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1)
    kind: Kind
    concept: str = ""
    base: tuple[int, int, int]
    current: tuple[int, int, int] | None = None  # None at creation: set to ``base``
    traits: tuple[Trait, ...] = ()
    hitos: tuple[str, ...] = ()
    complications: tuple[str, ...] = ()
    descriptors: tuple[str, ...] = ()
    weaknesses: tuple[str, ...] = ()
    overcome: int = Field(default=0, ge=0)
    status: Status = Status.IN_STORY
    status_reason: str = ""  # muerto / loco / en coma... written by the GM
    challenge_locks: frozenset[str] = frozenset()

    @model_validator(mode="before")
    @classmethod
    def _accept_single_complication(cls, data: Any) -> Any:
        # The spec names the field ``complication`` (one string); we store a tuple to count it.
        if isinstance(data, dict) and "complication" in data:
            data = dict(data)
            text = data.pop("complication")
            data.setdefault("complications", (text,) if text else ())
        return data

    @model_validator(mode="after")
    def _check_rules(self) -> PresagiosSheet:
        if self.current is None:
            object.__setattr__(self, "current", self.base)
        if self.kind is Kind.PRINCIPAL:
            check_principal_creation(self)
        else:
            if any(not 0 <= b <= NPC_CHAR_MAX for b in self.base):
                raise reject("CHAR_RANGE", base=self.base)
            if any(not TRAIT_MIN <= t.value <= TRAIT_MAX for t in self.traits):
                raise reject("TRAIT_RANGE")
        return self

    @property
    def currents(self) -> tuple[int, int, int]:
        assert self.current is not None  # filled by the validator
        return self.current

    def current_of(self, key: CharKey) -> int:
        return self.currents[char_index(key)]

    def base_of(self, key: CharKey) -> int:
        return self.base[char_index(key)]

    def with_current(self, key: CharKey, value: int) -> PresagiosSheet:
        values = list(self.currents)
        values[char_index(key)] = value
        return self.model_copy(update={"current": tuple(values)})

    @property
    def in_story(self) -> bool:
        return self.status is Status.IN_STORY


def check_principal_creation(sheet: PresagiosSheet) -> None:
    """Spec §2.3, in the order of the source's steps (the first broken rule is reported)."""
    if not sheet.concept.strip():
        raise reject("CONCEPT_REQUIRED")
    if any(not CHAR_MIN <= b <= CHAR_MAX for b in sheet.base):
        raise reject("CHAR_RANGE", base=sheet.base)
    if sum(sheet.base) != CREATION_POINTS:
        raise reject("CHAR_SUM", total=sum(sheet.base))
    if any(not TRAIT_MIN <= t.value <= TRAIT_MAX for t in sheet.traits):
        raise reject("TRAIT_RANGE")
    for key, rating in zip(CHAR_KEYS, sheet.base, strict=True):
        total = sum(t.value for t in sheet.traits if t.characteristic == key)
        if total != rating:
            raise reject("TRAIT_SUM", characteristic=key, total=total, base=rating)
    if len(sheet.hitos) != HITOS_AT_CREATION:
        raise reject("HITOS_COUNT", count=len(sheet.hitos))
    if len(sheet.complications) != 1:
        raise reject("COMPLICATION_COUNT", count=len(sheet.complications))


def create_character(data: dict[str, Any]) -> PresagiosSheet:
    """Creation (spec §2.3): validate, then start with current = base and 5 overcome for a principal.

    Creation state is set here, not taken from the input (``START_OVERCOME``: "set it automatically").
    """
    data = {k: v for k, v in data.items() if k not in ("current", "status", "challenge_locks")}
    sheet = PresagiosSheet.model_validate({**data, "overcome": 0})
    overcome = STARTING_OVERCOME if sheet.kind is Kind.PRINCIPAL else 0  # A-AMB-29: NPCs have none
    return sheet.model_copy(update={"overcome": overcome, "current": sheet.base})


def trait_splits(rating: int) -> Iterator[tuple[int, ...]]:
    """Every way to split ``rating`` into trait values 1..3, largest first ([3,1], [2,2]...)."""
    if rating == 0:
        yield ()
        return
    for first in range(min(TRAIT_MAX, rating), 0, -1):
        for rest in trait_splits(rating - first):
            if not rest or rest[0] <= first:
                yield (first, *rest)


def valid_base_triples() -> list[tuple[int, int, int]]:
    """The ordered characteristic triples a main character may start with (spec: 19 of them)."""
    triples: list[tuple[int, int, int]] = []
    for first, second, third in product(range(0, CREATION_POINTS + 1), repeat=3):
        base = (first, second, third)
        traits = [
            Trait(name=f"{key}-{i}", characteristic=key, value=v)
            for key, rating in zip(CHAR_KEYS, base, strict=True)
            for i, v in enumerate(next(trait_splits(rating), ()))
        ]
        try:
            PresagiosSheet(
                name="x",
                kind=Kind.PRINCIPAL,
                concept="x",
                base=base,
                traits=tuple(traits),
                hitos=("a", "b"),
                complications=("c",),
            )
        except RulesError:  # any creation code: not a valid triple
            continue
        triples.append(base)
    return triples
