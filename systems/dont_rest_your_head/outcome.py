"""The outcome of a conflict (§3.3-3.4): current pools after adjustments, degrees, domination."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from systems.dont_rest_your_head.domination import (
    DEGREE_WORD_EN,
    DOMINANT_PHRASE_EN,
    DOMINANT_PHRASE_ES,
    degree_word,
    dominant,
    pool_key,
    strength,
    successes,
)

TalentUse = Literal["minor", "major"]


@dataclass(frozen=True)
class Shade:
    """One GM shading (ensombrecer): add a 6 to, or remove a 6 from, a pool in play."""

    kind: Literal["add6", "remove6"]
    pool: Literal["discipline", "exhaustion", "madness", "pain"]


@dataclass(frozen=True)
class Pools:
    """The four pools as they stand now (hope 1s, scar rerolls and shading applied)."""

    discipline: tuple[int, ...]
    exhaustion: tuple[int, ...]
    madness: tuple[int, ...]
    pain: tuple[int, ...]

    def as_dict(self) -> dict[str, tuple[int, ...]]:
        return {
            "discipline": self.discipline,
            "exhaustion": self.exhaustion,
            "madness": self.madness,
            "pain": self.pain,
        }


@dataclass(frozen=True)
class Outcome:
    """The provisional (or final) result of a conflict; immutable evidence for the post."""

    pools: Pools
    raw_successes: int  # the leader's own dice successes, hope 1s included
    leader_degree: int  # after the minor floor / major bonus
    helper_successes: int
    player_degree: int
    gm_degree: int
    success: bool
    dominant_pool: str | None
    superior_pool: str | None
    strengths: dict[str, int | None]
    despair_gain: bool
    descriptor: str | None  # degree word on a success

    def summary(self, pc_name: str, language: str = "es") -> str:
        """The post line, in the source's style ("Rob tiene éxito con 3; domina el dolor")."""
        dom = self.dominant_pool or "pain"
        if language.startswith("en"):
            head = (
                f"{pc_name} succeeds with {self.player_degree} ({DEGREE_WORD_EN[self.descriptor or 'mínimo']})"
                if self.success
                else f"{pc_name} fails ({self.player_degree} against {self.gm_degree})"
            )
            return f"{head}; {DOMINANT_PHRASE_EN[dom]} dominates"
        head = (
            f"{pc_name} tiene éxito con {self.player_degree}"
            if self.success
            else f"{pc_name} fracasa ({self.player_degree} contra {self.gm_degree})"
        )
        return f"{head}; domina {DOMINANT_PHRASE_ES[dom]}"


def current_pools(
    discipline: Sequence[int],
    exhaustion: Sequence[int],
    madness: Sequence[int],
    pain: Sequence[int],
    hope_ones: int = 0,
    shading: Sequence[Shade] = (),
) -> Pools:
    """(S) each hope coin is a discipline die showing 1 (B-AMB-17); shading applies in order."""
    pools = {
        "discipline": [*discipline, *([1] * hope_ones)],
        "exhaustion": list(exhaustion),
        "madness": list(madness),
        "pain": list(pain),
    }
    for op in shading:
        if op.kind == "add6":
            pools[op.pool].append(6)
        else:
            pools[op.pool].remove(6)
    return Pools(*(tuple(pools[k]) for k in ("discipline", "exhaustion", "madness", "pain")))


def compute_outcome(
    discipline: Sequence[int],
    exhaustion: Sequence[int],
    madness: Sequence[int],
    pain: Sequence[int],
    helpers: Sequence[Sequence[int]] = (),
    talent_use: TalentUse | None = None,
    exhaustion_at_roll: int = 0,
    hope_ones: int = 0,
    shading: Sequence[Shade] = (),
) -> Outcome:
    """§3.4. Helpers add successes only: their dice never enter domination (S)."""
    pools = current_pools(discipline, exhaustion, madness, pain, hope_ones, shading)
    raw = successes(pools.discipline) + successes(pools.exhaustion) + successes(pools.madness)
    own = raw
    if talent_use == "minor":
        own = max(own, exhaustion_at_roll)  # (S) floor = exhaustion; before helpers (R, B-AMB-06)
    elif talent_use == "major":
        own += exhaustion_at_roll  # (S) the level after the +1 made before rolling
    helper_succ = sum(successes(h) for h in helpers)
    player = own + helper_succ
    gm = successes(pools.pain)
    won = player >= gm  # (S) ties go to the protagonist
    as_dict = pools.as_dict()
    # Sort each pool once; the same keys give both the dominant and the top pool (§3.1).
    keys = [(pool_key(name, dice), name) for name, dice in as_dict.items() if dice]
    dom = max(keys)[1] if keys else None
    own_keys = [k for k in keys if k[1] != "pain"]
    top = max(own_keys)[1] if own_keys else None
    if shading:
        plain = current_pools(discipline, exhaustion, madness, pain, hope_ones).as_dict()
        dom_plain = dominant(plain)
    else:
        dom_plain = dom
    # (S)+(R, B-AMB-09) no coin when shading made pain dominate
    despair_gain = dom == "pain" and dom_plain == "pain"
    return Outcome(
        pools=pools,
        raw_successes=raw,
        leader_degree=own,
        helper_successes=helper_succ,
        player_degree=player,
        gm_degree=gm,
        success=won,
        dominant_pool=dom,
        superior_pool=top,
        strengths={k: strength(v) for k, v in as_dict.items()},
        despair_gain=despair_gain,
        descriptor=degree_word(player) if won else None,
    )
