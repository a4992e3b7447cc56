"""Aspects (spec §2.4, §4.5, §4.12): character, scene, temporary aspects and their free invocations."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from systems.fate_sotc.errors import fate_error


class HolderType(StrEnum):
    CHARACTER = "character"
    SCENE = "scene"
    OBJECT = "object"
    LOCATION = "location"


class Origin(StrEnum):
    CHARACTER = "character"
    SCENE = "scene"
    MANEUVER = "maneuver"
    DECLARATION = "declaration"
    ASSESSMENT = "assessment"
    CONSEQUENCE = "consequence"
    DECEPTION = "deception"
    GM = "gm"


class Persistence(StrEnum):
    PERMANENT = "permanent"
    FRAGILE = "fragile"  # efímero: gone after its first invocation or compel
    STICKY = "sticky"  # duradero: survives invocations


class Visibility(StrEnum):
    PUBLIC = "public"
    HIDDEN = "hidden"


class FreeInvocation(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    holder_character_id: str
    used: bool = False
    expires_scene_id: str | None = None  # None: no scene bound (e.g. set up outside any scene)


class Aspect(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1, max_length=64)
    text: str = Field(min_length=1, max_length=120)
    holder_type: HolderType = HolderType.CHARACTER
    holder_id: str | None = None
    origin: Origin = Origin.CHARACTER
    persistence: Persistence = Persistence.PERMANENT
    active: bool = True
    visibility: Visibility = Visibility.PUBLIC
    known_by: frozenset[str] = frozenset()
    created_by: str | None = None
    scene_id: str | None = None
    free_invocations: tuple[FreeInvocation, ...] = ()
    category: str | None = None  # frase, persona, ayuda: authoring hint only
    role: str | None = None  # historia, situacion: authoring hint only
    persists_past_scene: bool = False  # the GM may keep a temporary aspect after its scene

    @property
    def owner_character_id(self) -> str | None:
        """Only character aspects have an owner who can be compensated (§4.4)."""
        return self.holder_id if self.holder_type is HolderType.CHARACTER else None

    def known_to(self, character_id: str) -> bool:
        return self.visibility is Visibility.PUBLIC or self.holder_id == character_id or character_id in self.known_by

    def free_invocation_index(self, character_id: str, current_scene_id: str | None) -> int | None:
        """The first unused, unexpired free invocation this character holds, if any."""
        for i, fi in enumerate(self.free_invocations):
            if fi.holder_character_id != character_id or fi.used:
                continue
            if fi.expires_scene_id is not None and fi.expires_scene_id != current_scene_id:
                continue  # A7: it lapsed with its scene
            return i
        return None


def temporary_aspect(
    aspect_id: str,
    text: str,
    holder_type: HolderType,
    holder_id: str | None,
    created_by: str,
    scene_id: str | None,
    origin: Origin = Origin.MANEUVER,
    persistence: Persistence = Persistence.FRAGILE,
    visibility: Visibility = Visibility.PUBLIC,
) -> Aspect:
    """A newly created temporary aspect: its creator earns one free invocation (§4.5)."""
    return Aspect(
        id=aspect_id,
        text=text,
        holder_type=holder_type,
        holder_id=holder_id,
        origin=origin,
        persistence=persistence,
        visibility=visibility,
        known_by=frozenset({created_by}),
        created_by=created_by,
        scene_id=scene_id,
        free_invocations=(FreeInvocation(holder_character_id=created_by, expires_scene_id=scene_id),),
    )


def transfer_free_invocation(
    aspect: Aspect, from_id: str, to_id: str, gm_approved: bool, current_scene_id: str | None
) -> Aspect:
    """Pass a free invocation to another character; the GM rules whether it is reasonable (§4.5)."""
    if not gm_approved:
        raise fate_error("no_free_invocation_transfer")
    index = aspect.free_invocation_index(from_id, current_scene_id)
    if index is None:
        raise fate_error("free_invocation_unavailable")
    moved = aspect.free_invocations[index].model_copy(update={"holder_character_id": to_id})
    invocations = (*aspect.free_invocations[:index], moved, *aspect.free_invocations[index + 1 :])
    return aspect.model_copy(update={"free_invocations": invocations, "known_by": aspect.known_by | {to_id}})


def expire_free_invocations(aspect: Aspect, ended_scene_id: str) -> Aspect:
    """Scene end: free invocations bound to that scene are gone (A7)."""
    kept = tuple(fi for fi in aspect.free_invocations if fi.expires_scene_id != ended_scene_id)
    return aspect.model_copy(update={"free_invocations": kept})


def reveal(aspect: Aspect, to_character_id: str) -> Aspect:
    return aspect.model_copy(update={"known_by": aspect.known_by | {to_character_id}})


def deactivate(aspect: Aspect) -> Aspect:
    return aspect.model_copy(update={"active": False})


def after_compel(aspect: Aspect) -> Aspect:
    """A compel consumes a fragile aspect like an invocation does (A8)."""
    return deactivate(aspect) if aspect.persistence is Persistence.FRAGILE else aspect
