"""SotC's procedures, each a typed step table (``rulesets.kit.procedures``)."""

from __future__ import annotations

from typing import Any

from rulesets.fate_sotc.procedures.advantage import ADVANTAGE
from rulesets.fate_sotc.procedures.attack import ATTACK
from rulesets.fate_sotc.procedures.compel import COMPEL
from rulesets.fate_sotc.procedures.declaration import DECLARATION
from rulesets.fate_sotc.procedures.invocation import INVOCATION
from rulesets.kit.procedures import Procedure

PROCEDURES: dict[str, Procedure[Any]] = {p.key: p for p in (INVOCATION, COMPEL, ATTACK, ADVANTAGE, DECLARATION)}
