"""Campaign settings: the core switches, the ten optional rules and the §8 interpretations (spec §6.13).

Validated from untrusted JSON; every default is the spec's recommendation. Rule violations raise a
pydantic error whose ``type`` is the spec's code (e.g. ``SCALE_REQUIRED``), so forms and the API can
report it like any other validation error.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

from systems.errors import RulesError
from systems.event.ladder import D6, Scale, check_scale, derived_scale

ExplodeScope = Literal["actions", "interactions", "creation_order"]
RecklessScope = Literal["action_roll", "desafio_tiebreak"]


def rule_violation(error: RulesError) -> PydanticCustomError:
    """Turn a RulesError raised while validating untrusted JSON into a pydantic error with its code."""
    return PydanticCustomError(error.code, error.message_en, {"message_es": error.message_es})


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CoreSettings(_Frozen):
    narration_veto: bool = False  # §4.1: asked explicitly at set-up
    veto_window_hours: float = Field(24, gt=0)
    veto_response_hours: float = Field(24, gt=0)
    veto_voter_scope: Literal["campaign", "scene"] = "campaign"
    creation_q12_order: Literal["fixed", "rotate"] = "fixed"
    max_improvements_per_skill: int = Field(6, ge=0, le=60)


class SkillCapRule(_Frozen):
    enabled: bool = False
    max_picks: int = Field(6, ge=1, le=20)


class TalentRule(_Frozen):
    enabled: bool = False
    in_desafio_tiebreaks: bool = True


class ExplodingDiceRule(_Frozen):
    enabled: bool = False
    scope: frozenset[ExplodeScope] = frozenset({"actions", "interactions"})
    chain: bool = True
    max_extra_dice: int = Field(100, ge=0, le=1000)

    @model_validator(mode="after")
    def _scope_not_empty(self) -> ExplodingDiceRule:
        if not self.scope:
            raise PydanticCustomError(
                "SCOPE_EMPTY",
                "Exploding dice need at least one scope.",
                {"message_es": "Los dados explosivos necesitan al menos un ámbito."},
            )
        return self


class TotalChallengeRule(_Frozen):
    enabled: bool = False


class ProgressRule(_Frozen):
    enabled: bool = False
    trigger: Literal["session", "arc", "gm"] = "gm"
    subject_to_veto: bool = True


class NSidedRule(_Frozen):
    enabled: bool = False
    sides: int = Field(10, ge=2, le=1000)
    scale: tuple[tuple[int, int], ...] | None = None
    gate_basis: Literal["value", "rank"] = "value"

    @model_validator(mode="after")
    def _scale_fits(self) -> NSidedRule:
        try:
            if self.scale is None:
                derived_scale(self.sides)
            else:
                check_scale(self.scale, self.sides)
        except RulesError as error:
            raise rule_violation(error) from None
        return self


class CommunalPoolRule(_Frozen):
    enabled: bool = False
    veto_on_take: bool = False


class ReactionsRule(_Frozen):
    enabled: bool = False


class RecklessRollRule(_Frozen):
    enabled: bool = False
    allowed_on: frozenset[RecklessScope] = frozenset({"action_roll", "desafio_tiebreak"})


class WildDieRule(_Frozen):
    enabled: bool = False
    forces_roll: bool = True


class OptionalRules(_Frozen):
    skill_cap: SkillCapRule = SkillCapRule()
    talent: TalentRule = TalentRule()
    exploding_dice: ExplodingDiceRule = ExplodingDiceRule()
    total_challenge: TotalChallengeRule = TotalChallengeRule()
    progress: ProgressRule = ProgressRule()
    n_sided: NSidedRule = NSidedRule()
    communal_pool: CommunalPoolRule = CommunalPoolRule()
    reactions: ReactionsRule = ReactionsRule()
    reckless_roll: RecklessRollRule = RecklessRollRule()
    wild_die: WildDieRule = WildDieRule()


class Interpretations(_Frozen):
    empty_left_tie: Literal["draw"] = "draw"
    empty_right_tie: Literal["joint", "gm"] = "joint"
    same_outcome_order: Literal["seat", "submission"] = "seat"
    overruled_interaction_narration: Literal["gm"] = "gm"


class SkillCategory(_Frozen):
    """A house-rule category of skills (§2.6), e.g. one supernatural skill that cannot be improved."""

    key: str = Field(min_length=1, max_length=40)
    label: str = ""
    max_per_character: int | None = Field(None, ge=0)
    improvable: bool = True
    rounds: frozenset[int] = frozenset()


class HouseRules(_Frozen):
    skill_categories: tuple[SkillCategory, ...] = ()

    def category(self, key: str | None) -> SkillCategory | None:
        for cat in self.skill_categories:
            if cat.key == key:
                return cat
        return None


class EventSettings(_Frozen):
    """Every campaign setting of the Event spec, with the recommended defaults."""

    model_config = ConfigDict(frozen=True, extra="ignore")  # tolerate "ruleset"/"ruleset_version" keys

    ruleset: Literal["event"] = "event"
    ruleset_version: str = "1.2.181020"
    core: CoreSettings = CoreSettings()
    optional: OptionalRules = OptionalRules()
    interpretations: Interpretations = Interpretations()
    house_rules: HouseRules = HouseRules()

    # Effective values (§6.13).
    @cached_property
    def sides(self) -> int:
        return self.optional.n_sided.sides if self.optional.n_sided.enabled else D6

    @cached_property
    def max_picks(self) -> int:
        return self.optional.skill_cap.max_picks if self.optional.skill_cap.enabled else 6

    @cached_property
    def gate_basis(self) -> str:
        return self.optional.n_sided.gate_basis if self.optional.n_sided.enabled else "value"

    @cached_property
    def scale(self) -> Scale:
        n_sided = self.optional.n_sided
        if n_sided.enabled and n_sided.scale is not None:
            return check_scale(n_sided.scale, self.sides)
        return derived_scale(self.sides)

    @cached_property
    def derived_cache(self) -> dict[str, Any]:
        """Values derived once per (frozen) settings object, off the hot path: dice rules, action profile."""
        return {}

    def explodes(self, scope: ExplodeScope) -> bool:
        rule = self.optional.exploding_dice
        return rule.enabled and scope in rule.scope

    @property
    def talent_enabled(self) -> bool:
        return self.optional.talent.enabled

    def reckless_allowed(self, on: RecklessScope) -> bool:
        rule = self.optional.reckless_roll
        return rule.enabled and on in rule.allowed_on


DEFAULT_SETTINGS = EventSettings()


def setup_warnings(player_count: int) -> tuple[str, ...]:
    """Warnings for the campaign set-up wizard (§8 A-4): with the GM and one player, no answer of that
    player can ever collect 2 vetoes. The rule is not changed, only flagged."""
    warnings: list[str] = []
    eligible_for_a_player_answer = player_count  # the GM plus the other players
    if eligible_for_a_player_answer < 2:
        warnings.append("VETO_UNREACHABLE")
    return tuple(warnings)
