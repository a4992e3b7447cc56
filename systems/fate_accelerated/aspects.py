"""Aspects, free invocations and boosts (spec §2.3, §2.7, §4.1-4.4).

An aspect is an immutable value: every change (a grant added or used, a reveal, a removal) returns a
new aspect. Consequences are aspects too; they live in the consequence slots of a sheet.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from systems.errors import RulesError
from systems.registry import Names

GM = "gm"  # the holder/invoker id used for the GM side


class AspectKind(StrEnum):
    HIGH_CONCEPT = "high_concept"
    TROUBLE = "trouble"
    CHARACTER = "character"
    SITUATION = "situation"
    CONSEQUENCE = "consequence"
    BOOST = "boost"


class Severity(StrEnum):
    MILD = "mild"
    MODERATE = "moderate"
    SEVERE = "severe"


SLOT_VALUES: dict[Severity, int] = {Severity.MILD: 2, Severity.MODERATE: 4, Severity.SEVERE: 6}
SEVERITY_NAMES = {
    Severity.MILD: Names("Consecuencia leve", "Mild consequence"),
    Severity.MODERATE: Names("Consecuencia moderada", "Moderate consequence"),
    Severity.SEVERE: Names("Consecuencia grave", "Severe consequence"),
}


class AspectStatus(StrEnum):
    ACTIVE = "active"
    REMOVED = "removed"


class RemovedReason(StrEnum):
    SCENE_END = "scene_end"
    OVERCOME = "overcome"
    RECOVERED = "recovered"
    BOOST_USED = "boost_used"
    GM = "gm"
    ADVANTAGE_GONE = "advantage_gone"


class Moment(BaseModel):
    """When something happened: indexes grow through the campaign (session 5 follows session 4)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    adventure: int = Field(ge=0)
    session: int = Field(ge=0)
    scene: int = Field(ge=0)
    conflict: str | None = None


class FreeInvocationGrant(BaseModel):
    """Free invocations one holder has on one aspect; grants from different rolls stay separate records."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    holder: str
    remaining: int = Field(ge=0)
    same_roll_stacking: bool = False  # only the two invocations of a success with style (§4.3.3, A-04)
    source: str | None = None  # the roll or hit that granted it


class Aspect(BaseModel):
    """Any aspect: on a sheet, on the scene board, a consequence or a boost."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str = Field(min_length=1, max_length=200)  # stable id; services use their primary key
    text: str = Field(min_length=1, max_length=200)
    kind: AspectKind
    character: str | None = None  # owner (sheet aspects, consequences) or holder (boosts)
    scene: int | None = None
    hidden: bool = False
    known_by: frozenset[str] = frozenset()
    grants: tuple[FreeInvocationGrant, ...] = ()
    status: AspectStatus = AspectStatus.ACTIVE
    removed_reason: RemovedReason | None = None
    persists_beyond_scene: bool = False
    # consequence-only fields
    severity: Severity | None = None
    taken: Moment | None = None
    inflicted_by: str | None = None
    rename_history: tuple[str, ...] = ()

    @property
    def active(self) -> bool:
        return self.status is AspectStatus.ACTIVE

    def known_to(self, character: str) -> bool:
        """Whether ``character`` knows this aspect exists (needed to invoke it, §4.2)."""
        if character == GM or not self.hidden:
            return True
        return character in self.known_by or character == self.character

    def free_for(self, holder: str) -> int:
        return sum(g.remaining for g in self.grants if g.holder == holder)


def situation_aspect(key: str, text: str, scene: int, *, hidden: bool = False) -> Aspect:
    return Aspect(key=key, text=text, kind=AspectKind.SITUATION, scene=scene, hidden=hidden)


def boost(key: str, text: str, holder: str, scene: int) -> Aspect:
    """A one-use aspect held by ``holder``; it vanishes after its free invocation or at scene end."""
    return Aspect(key=key, text=text, kind=AspectKind.BOOST, character=holder, scene=scene)


def add_grant(aspect: Aspect, grant: FreeInvocationGrant) -> Aspect:
    _require_active(aspect)
    return aspect.model_copy(update={"grants": (*aspect.grants, grant)})


def reveal(aspect: Aspect) -> Aspect:
    """A discovery puts the card on the table for everyone (§4.2)."""
    _require_active(aspect)
    return aspect.model_copy(update={"hidden": False})


def remove_aspect(aspect: Aspect, reason: RemovedReason) -> Aspect:
    """Remove an aspect; its remaining free invocations disappear with it (A-27)."""
    _require_active(aspect)
    return aspect.model_copy(update={"status": AspectStatus.REMOVED, "removed_reason": reason, "grants": ()})


def transfer_boost(aspect: Aspect, to: str, *, gm_approves: bool, settings_allow: bool) -> Aspect:
    """A-05: the holder may pass a boost to an ally with GM approval, when the campaign allows it."""
    _require_active(aspect)
    if aspect.kind is not AspectKind.BOOST:
        raise RulesError("not_a_boost", "Solo se puede ceder un impulso.", "Only a boost can be passed on.")
    if not (settings_allow and gm_approves):
        raise RulesError(
            "boost_transfer_refused",
            "Ceder un impulso a un aliado necesita la aprobación del DJ.",
            "Passing a boost to an ally needs the GM's approval.",
        )
    return aspect.model_copy(update={"character": to})


def end_scene_aspects(aspects: tuple[Aspect, ...], scene: int, *, expire_situations: bool = True) -> tuple[Aspect, ...]:
    """At the end of ``scene``: boosts and (normally) situation aspects of that scene are removed."""
    result = []
    for a in aspects:
        ends = (
            a.active
            and a.scene == scene
            and (
                a.kind is AspectKind.BOOST
                or (a.kind is AspectKind.SITUATION and expire_situations and not a.persists_beyond_scene)
            )
        )
        result.append(remove_aspect(a, RemovedReason.SCENE_END) if ends else a)
    return tuple(result)


def _require_active(aspect: Aspect) -> None:
    if not aspect.active:
        raise RulesError(
            "aspect_gone",
            f"El aspecto «{aspect.text}» ya no existe.",
            f"The aspect '{aspect.text}' no longer exists.",
        )
