"""Campaign settings (spec §2.1): every optional rule with the spec's recommended default."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, field_validator


class Enforcement(StrEnum):
    OFF = "off"
    WARN = "warn"
    STRICT = "strict"


class ConsequenceAssignment(StrEnum):
    LOWEST_FREE_SLOT = "lowest_free_slot"
    ESCALATING = "escalating"


class FreeInvocationExpiry(StrEnum):
    SCENE = "scene"
    NEXT_ROLL = "next_roll"


class EscalationTrigger(StrEnum):
    AFTER_DECLINE = "after_decline"
    AFTER_ACCEPT = "after_accept"


class ConcessionFpRule(StrEnum):
    ON_REFUSAL = "on_refusal"
    ALWAYS_IF_REASONABLE = "always_if_reasonable"


class InitiativeMode(StrEnum):
    SKILL = "skill"
    ROTATING = "rotating"


class FinalTiebreak(StrEnum):
    GM_ORDER = "gm_order"
    RANDOM = "random"
    JOIN_ORDER = "join_order"


class TiePolicy(StrEnum):
    NO_WINNER = "no_winner"
    BOTH_SUCCEED = "both_succeed"
    REROLL = "reroll"


class CombineRule(StrEnum):
    ONE_PLUS_ONE_MINUS = "one_plus_one_minus"
    SUM_CLAMP = "sum_clamp"


class ThrowCostRule(StrEnum):
    CUMULATIVE = "cumulative"
    LINEAR = "linear"


class SkillDef(BaseModel):
    """One entry of the GM-editable skill catalogue (§2.3)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str = Field(min_length=1, max_length=40)
    label_es: str = Field(min_length=1, max_length=60)
    label_en: str = Field(min_length=1, max_length=60)


# The 28 SotC skills (§2.3): key, Spanish label, English label.
DEFAULT_SKILLS: tuple[SkillDef, ...] = tuple(
    SkillDef(key=k, label_es=es, label_en=en)
    for k, es, en in (
        ("academics", "Educación", "Academics"),
        ("alertness", "Alerta", "Alertness"),
        ("art", "Arte", "Art"),
        ("athletics", "Atletismo", "Athletics"),
        ("burglary", "Seguridad", "Burglary"),
        ("contacting", "Contactos", "Contacting"),
        ("deceit", "Engañar", "Deceit"),
        ("drive", "Conducir", "Drive"),
        ("empathy", "Empatía", "Empathy"),
        ("endurance", "Vigor", "Endurance"),
        ("engineering", "Ingeniería", "Engineering"),
        ("fists", "Puños", "Fists"),
        ("gambling", "Juego", "Gambling"),
        ("guns", "Puntería", "Guns"),
        ("intimidation", "Intimidación", "Intimidation"),
        ("investigation", "Investigación", "Investigation"),
        ("leadership", "Liderazgo", "Leadership"),
        ("might", "Fuerza", "Might"),
        ("mysteries", "Misterios", "Mysteries"),
        ("pilot", "Piloto", "Pilot"),
        ("rapport", "Carisma", "Rapport"),
        ("resolve", "Coraje", "Resolve"),
        ("resources", "Recursos", "Resources"),
        ("science", "Ciencia", "Science"),
        ("sleight_of_hand", "Prestidigitación", "Sleight of Hand"),
        ("stealth", "Sigilo", "Stealth"),
        ("survival", "Supervivencia", "Survival"),
        ("weapons", "Armas", "Weapons"),
    )
)


class StressSkills(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    health: str = "endurance"  # Vigor lengthens Salud [SRC]
    composure: str = "resolve"  # Coraje lengthens Serenidad [SRC]


class InitiativeSkills(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    physical: str = "alertness"
    social: str = "empathy"
    mental: str = "empathy"  # [PROPOSED] A15: the source names no mental initiative skill


class FateSotcSettings(BaseModel):
    """Campaign configuration; validated from untrusted JSON, immutable once built."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    aspects_per_character: int = Field(default=10, ge=1)
    stunts_per_character: int = Field(default=5, ge=0)
    skill_pyramid: dict[int, int] = Field(default_factory=lambda: {5: 1, 4: 2, 3: 3, 2: 4, 1: 5})
    skill_pyramid_enforcement: Enforcement = Enforcement.WARN
    max_skill_at_creation: int = 5
    skill_catalogue: tuple[SkillDef, ...] = DEFAULT_SKILLS
    default_skill_rating: int = 0
    stress_base_boxes: int = Field(default=5, ge=1)
    # (minimum rating, extra boxes), ascending; ratings <= 0 give +0.
    stress_bonus_table: tuple[tuple[int, int], ...] = ((1, 1), (3, 2), (5, 3))
    stress_skill: StressSkills = StressSkills()
    max_consequences: int = Field(default=3, ge=1, le=3)
    consequence_assignment: ConsequenceAssignment = ConsequenceAssignment.LOWEST_FREE_SLOT
    critical_threshold: int = Field(default=3, ge=1)
    spin_enabled: bool = True
    allow_fp_advantage: bool = True
    max_fp_advantage_per_roll: int | None = Field(default=None, ge=0)
    max_free_invocations_per_roll: int | None = Field(default=1, ge=0)
    free_invocation_expiry: FreeInvocationExpiry = FreeInvocationExpiry.SCENE
    compel_escalation_enabled: bool = True
    compel_escalation_trigger: EscalationTrigger = EscalationTrigger.AFTER_DECLINE
    compel_escalation_max: int = Field(default=3, ge=1)
    player_compel_on_others_cost: int = Field(default=1, ge=0)
    concession_fp_rule: ConcessionFpRule = ConcessionFpRule.ON_REFUSAL
    tenacity_enabled: bool = False
    initiative_mode: InitiativeMode = InitiativeMode.SKILL
    initiative_skill: InitiativeSkills = InitiativeSkills()
    initiative_tiebreak_skill: str = "resolve"
    initiative_final_tiebreak: FinalTiebreak = FinalTiebreak.GM_ORDER
    opposed_tie_policy: TiePolicy = TiePolicy.NO_WINNER
    combine_rule: CombineRule = CombineRule.ONE_PLUS_ONE_MINUS
    default_simple_difficulty: int = 1  # UI pre-fill only
    sprint_difficulty: int = 0
    sprint_min_one_zone: bool = True
    throw_cost_rule: ThrowCostRule = ThrowCostRule.CUMULATIVE
    person_weight: int = Field(default=2, ge=0)
    moderate_rest_hours: int = Field(default=6, ge=0)
    clear_stress_on_scene_end: bool = True
    minion_rules_enabled: bool = False

    @field_validator("skill_pyramid")
    @classmethod
    def _pyramid_counts_positive(cls, value: dict[int, int]) -> dict[int, int]:
        if any(count < 0 for count in value.values()):
            raise ValueError("skill_pyramid counts must be >= 0")
        return value

    @field_validator("stress_bonus_table")
    @classmethod
    def _bonus_table_sorted(cls, value: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
        return tuple(sorted(value))

    def skill_label(self, key: str, language: str = "es") -> str:
        for skill in self.skill_catalogue:
            if skill.key == key:
                return skill.label_en if language.startswith("en") else skill.label_es
        return key


DEFAULT_SETTINGS = FateSotcSettings()
