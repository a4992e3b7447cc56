"""The one way a procedure or binding refuses: :func:`refuse` with a lower_snake_case code and the reason
in both languages. Codes are stable (API clients match on them); ``systems.errors.RulesError`` carries them.
"""

from __future__ import annotations

import re
from typing import Any

from campaigns.error_codes import STEP_NOT_AVAILABLE, STEP_UNAVAILABLE
from systems.errors import RulesError

_CODE = re.compile(r"^[a-z][a-z0-9_]*$")


def refuse(code: str, es: str, en: str, **details: Any) -> RulesError:
    """A refusal to ``raise``: ``raise refuse("no_roll_to_open", "…", "…")``."""
    if not _CODE.match(code):
        raise ValueError(f"refusal codes are lower_snake_case: {code!r}")
    return RulesError(code, es, en, **details)


def step_not_available(step: str, *, closed: bool = False) -> RulesError:
    """The runner's one answer to a step the procedure's table does not offer now (out of order, unknown,
    or after the procedure closed: the same code, the words say which)."""
    if closed:
        return refuse(
            STEP_NOT_AVAILABLE.code,
            "Este procedimiento ya está cerrado.",
            "This procedure is already closed.",
            step=step,
        )
    return refuse(
        STEP_NOT_AVAILABLE.code,
        f"El paso «{step}» no está disponible ahora.",
        f"The step '{step}' is not available now.",
        step=step,
    )


def step_unavailable(step: str, es: str, en: str) -> RulesError:
    """The runner's one answer to a step the table offers but that cannot succeed now (``Step.unavailable``):
    its words say why (an empty pool, no point to pay)."""
    return refuse(STEP_UNAVAILABLE.code, es, en, step=step)


def unknown_character() -> RulesError:
    return refuse(
        "unknown_character",
        "Ese personaje no está aprobado en esta partida.",
        "That character is not approved in this campaign.",
    )
