"""Chi-square goodness of fit, for the statistical tests of dice sources and roll kinds.

No scipy: the critical value comes from the Wilson-Hilferty approximation, which is within a
fraction of a percent of the exact quantile for the degrees of freedom we use.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping

# Standard normal quantiles for the upper tail.
_Z = {0.01: 2.326347874, 0.001: 3.090232306, 0.0001: 3.719016485}


def chi_square_statistic(observed: Mapping[Hashable, int], expected_probs: Mapping[Hashable, float]) -> float:
    total = sum(observed.values())
    unexpected = set(observed) - set(expected_probs)
    if unexpected:
        raise AssertionError(f"outcomes the exact distribution says are impossible: {sorted(map(str, unexpected))}")
    stat = 0.0
    for outcome, p in expected_probs.items():
        expected = total * p
        stat += (observed.get(outcome, 0) - expected) ** 2 / expected
    return stat


def critical_value(df: int, alpha: float = 0.001) -> float:
    z = _Z[alpha]
    h = 2.0 / (9.0 * df)
    return df * (1.0 - h + z * math.sqrt(h)) ** 3


def assert_fits(samples: Iterable[Hashable], expected_probs: Mapping[Hashable, float], alpha: float = 0.001) -> None:
    """Fail when ``samples`` do not fit ``expected_probs`` (which must sum to 1)."""
    assert abs(sum(expected_probs.values()) - 1.0) < 1e-9, "expected distribution must sum to 1"
    observed = Counter(samples)
    stat = chi_square_statistic(observed, expected_probs)
    df = len(expected_probs) - 1
    limit = critical_value(df, alpha)
    assert stat < limit, f"chi-square {stat:.1f} >= {limit:.1f} (df={df}): the roller is biased"
