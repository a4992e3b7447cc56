"""Stunts (Proezas, spec §2.4, §3.11, §6.3): the two templates, applicability and once-per-session use."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, model_validator

from systems.errors import RulesError
from systems.fate_accelerated.actions import Action, Approach

STUNT_BONUS = 2  # template 1 is always +2
_TWO_ACTION_FORM = frozenset({Action.CREATE_ADVANTAGE, Action.OVERCOME})


class StuntTemplate(StrEnum):
    BONUS = "bonus"  # "Debido a que soy/tengo …, recibo un +2 para [acción] de modo [estilo] cuando …"
    ONCE_PER_SESSION = "once_per_session"  # "…, una vez por partida puedo …"
    CUSTOM = "custom"  # the templates are guides, not obligations: needs GM approval


class Stunt(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str = Field(min_length=1, max_length=100)
    template: StuntTemplate
    because: str = Field("", max_length=500)
    actions: frozenset[Action] = frozenset()
    restrictive_circumstance: bool = False
    approach: Approach | None = None
    circumstance: str = Field("", max_length=500)
    bonus: int = STUNT_BONUS
    effect: str = Field("", max_length=500)
    uses_per_session: int = 1
    last_used_session: int | None = None
    gm_approved: bool = False
    text: str = Field("", max_length=1000)  # free text of a custom stunt / rendered sentence

    @model_validator(mode="after")
    def _follows_template(self) -> Stunt:
        if self.template is StuntTemplate.BONUS:
            if not (self.because.strip() and self.circumstance.strip() and self.approach is not None):
                raise ValueError("a +2 stunt needs 'because', one approach and a circumstance")
            if self.bonus != STUNT_BONUS:
                raise ValueError("a template-1 stunt always gives +2")
            if len(self.actions) != 1:
                # The seed: only an especially restrictive circumstance lets one stunt cover both
                # create an advantage and overcome; the GM judges that, so it needs approval.
                if self.actions != _TWO_ACTION_FORM:
                    raise ValueError("a +2 stunt names one action (or create an advantage + overcome)")
                if not (self.restrictive_circumstance and self.gm_approved):
                    raise ValueError("the two-action form needs a restrictive circumstance approved by the GM")
        elif self.template is StuntTemplate.ONCE_PER_SESSION:
            if not (self.because.strip() and self.effect.strip()):
                raise ValueError("a once-per-session stunt needs 'because' and an effect")
            if self.uses_per_session != 1:
                raise ValueError("a template-2 stunt is used once per session")
        elif not (self.text.strip() and self.gm_approved):
            raise ValueError("a custom stunt needs its text and the GM's approval")
        return self


def stunt_applies(stunt: Stunt, action: Action, approach: Approach) -> bool:
    """The software half of applicability; the circumstance itself is the GM's call."""
    return stunt.template is StuntTemplate.BONUS and action in stunt.actions and stunt.approach is approach


def require_applicable(stunt: Stunt, action: Action, approach: Approach, *, circumstance_confirmed: bool) -> int:
    """The bonus ``stunt`` adds to this roll, or a RulesError saying why it cannot apply."""
    if not stunt_applies(stunt, action, approach):
        raise RulesError(
            "stunt_not_applicable",
            f"La proeza «{stunt.key}» no se aplica a esta acción con este estilo.",
            f"Stunt '{stunt.key}' does not apply to this action and approach.",
        )
    if not circumstance_confirmed:
        raise RulesError(
            "stunt_circumstance_rejected",
            f"El DJ no ha confirmado la circunstancia de la proeza «{stunt.key}».",
            f"The GM has not confirmed the circumstance of stunt '{stunt.key}'.",
        )
    return stunt.bonus


def use_once_per_session(stunt: Stunt, session: int) -> Stunt:
    """Mark a template-2 stunt used in ``session``; a second use in the same session is refused."""
    if stunt.template is not StuntTemplate.ONCE_PER_SESSION:
        raise RulesError(
            "stunt_not_once_per_session",
            f"La proeza «{stunt.key}» no es de las de una vez por partida.",
            f"Stunt '{stunt.key}' is not a once-per-session stunt.",
        )
    if stunt.last_used_session == session:
        raise RulesError(
            "stunt_already_used",
            f"La proeza «{stunt.key}» ya se ha usado en esta partida.",
            f"Stunt '{stunt.key}' was already used this session.",
        )
    return stunt.model_copy(update={"last_used_session": session})
