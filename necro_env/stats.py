"""Small statistics helpers for evaluations: Wilson intervals for win rates, normal intervals for means.

Pure Python (``math`` only), so the evaluation tools and training code can use them anywhere.
"""
from __future__ import annotations

import math
from typing import Iterable, Sequence

#: The two-sided 95% normal quantile used by default.
Z95 = 1.959963984540054


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval ``(lo, hi)`` for ``k`` successes in ``n`` trials.

    ``n == 0`` gives the uninformative ``(0.0, 1.0)``. The interval always lies in
    [0, 1], never collapses to a point at k = 0 or k = n, and contains ``k / n``.
    """
    if isinstance(k, bool) or isinstance(n, bool):
        raise TypeError("k and n must be integers, not bools")
    if n < 0 or k < 0 or k > n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    if z <= 0:
        raise ValueError(f"z must be positive, got {z}")
    if n == 0:
        return 0.0, 1.0
    p = k / n
    z2 = z * z
    denom = 1.0 + z2 / n
    center = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / denom
    lo, hi = center - half, center + half
    # Exact at the edges (rounding can leave 1e-17 below 0 or above 1).
    if k == 0:
        lo = 0.0
    if k == n:
        hi = 1.0
    return max(0.0, lo), min(1.0, hi)


def mean_ci(values: Sequence[float] | Iterable[float], z: float = 1.96) -> tuple[float, float, float]:
    """``(mean, lo, hi)``: the sample mean with a normal-approximation interval (``mean ± z·s/√n``).

    One value gives a zero-width interval; no values give ``(nan, nan, nan)``.
    """
    xs = [float(v) for v in values]
    n = len(xs)
    if n == 0:
        return math.nan, math.nan, math.nan
    m = sum(xs) / n
    if n == 1:
        return m, m, m
    var = sum((x - m) ** 2 for x in xs) / (n - 1)
    half = z * math.sqrt(var / n)
    return m, m - half, m + half


def overlaps(a: tuple[float, float], b: tuple[float, float]) -> bool:
    """Whether two closed intervals ``(lo, hi)`` share a point."""
    return a[0] <= b[1] and b[0] <= a[1]


def format_interval(lo: float, hi: float, digits: int = 3) -> str:
    """``[0.309, 0.498]``-style text for tables."""
    return f"[{lo:.{digits}f}, {hi:.{digits}f}]"


__all__ = ["Z95", "wilson", "mean_ci", "overlaps", "format_interval"]
