"""Building a dice pool (*reserva de dados*, §3.3, §5.2, §6.11): 1 base die, plus 1 + improvements for
one related skill, plus the extras (communal die, reaction value, wild die)."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from systems.errors import RulesError
from systems.event.communal import one_communal_die
from systems.event.reactions import MAX_REACTION_DICE, Reaction, ReactionStatus
from systems.event.settings import DEFAULT_SETTINGS, EventSettings
from systems.event.sheet import EventSheet, is_talent, unknown_skill


@dataclass(frozen=True, slots=True)
class PoolBreakdown:
    """The pool's composition, shown with every roll (§3.9)."""

    skill: str | None = None
    skill_dice: int = 0
    communal: int = 0
    reaction: int = 0
    wild: int = 0
    npc: bool = False
    talent_built: bool = False  # the related skill is the character's talent (§6.2)
    base: int = 1

    @property
    def total(self) -> int:
        return self.base + self.skill_dice + self.communal + self.reaction + self.wild


class PoolRequest(BaseModel):
    """A player's proposed pool; ``skill_approved`` is the GM's judgment of relatedness (human input)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    skills: tuple[str, ...] = Field((), max_length=10)
    skill_approved: bool = True
    communal_dice: int = Field(0, ge=0, le=10)
    wild_die: bool = False


def build_pool(
    sheet: EventSheet | None,
    request: PoolRequest,
    settings: EventSettings | None = None,
    reaction: Reaction | None = None,
) -> PoolBreakdown:
    """Compute a player character's pool. Only one skill counts (§8 A-12); extras stack (§6.11).

    A reaction must be VALUED (its dice are added; the caller then applies ``use_reaction``).
    """
    settings = settings or DEFAULT_SETTINGS
    if len(request.skills) > 1:
        raise RulesError(
            "ONE_SKILL_ONLY",
            "Solo cuenta una habilidad por tirada: elige una.",
            "Only one skill counts per pool: choose one.",
        )
    skill_name: str | None = None
    skill_dice = 0
    talent_built = False
    if request.skills:
        if not request.skill_approved:
            raise RulesError(
                "SKILL_NOT_RELATED",
                "El máster no ha aceptado esa habilidad para esta acción.",
                "The GM has not approved that skill as related to this action.",
            )
        skill = sheet.skill(request.skills[0]) if sheet is not None else None
        if skill is None or sheet is None:
            raise unknown_skill(request.skills[0])
        skill_name, skill_dice = skill.name, skill.dice
        talent_built = settings.talent_enabled and is_talent(sheet, skill.name)
    if request.communal_dice > 1:
        raise one_communal_die()
    if request.communal_dice and not settings.optional.communal_pool.enabled:
        raise _disabled("reserva comunal", "communal pool")
    reaction_dice = 0
    if reaction is not None:
        if not settings.optional.reactions.enabled:
            raise _disabled("reacciones", "reactions")
        if reaction.status is not ReactionStatus.VALUED:
            raise RulesError(
                "REACTION_NOT_VALUED",
                "Solo una reacción valorada por el máster añade dados.",
                "Only a reaction valued by the GM adds dice.",
            )
        reaction_dice = reaction.bonus_dice
        if not 0 <= reaction_dice <= MAX_REACTION_DICE:  # defensive: values are checked when set
            raise RulesError(
                "REACTION_VALUE_RANGE",
                "El valor de una reacción va de 0 a 3.",
                "A reaction's value goes from 0 to 3.",
            )
    if request.wild_die and not settings.optional.wild_die.enabled:
        raise _disabled("dado alocado", "wild die")
    return PoolBreakdown(
        skill=skill_name,
        skill_dice=skill_dice,
        communal=request.communal_dice,
        reaction=reaction_dice,
        wild=int(request.wild_die),
        talent_built=talent_built,
    )


def npc_pool(size: int) -> PoolBreakdown:
    """The GM sets an NPC's pool directly (§8 A-22); NPCs get no communal die, reaction, talent or bet."""
    if size < 1:
        raise RulesError("EMPTY_POOL", "Una reserva de dados nunca está vacía.", "A dice pool is never empty.")
    return PoolBreakdown(skill_dice=size - 1, npc=True)


def _disabled(es: str, en: str) -> RulesError:
    return RulesError(
        "RULE_DISABLED",
        f"La regla opcional «{es}» no está activa en esta campaña.",
        f"The optional rule '{en}' is off in this campaign.",
    )
