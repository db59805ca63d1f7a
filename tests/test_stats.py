"""necro_env.stats: Wilson score intervals and mean intervals against published values."""
import math

import pytest

from necro_env.stats import format_interval, mean_ci, overlaps, wilson


@pytest.mark.parametrize("k, n, lo, hi", [
    (40, 100, 0.3094, 0.4980),   # the usual textbook example
    # Newcombe (1998), Stat. Med. 17:857, Table I, method 3 (score interval without correction):
    (81, 263, 0.2553, 0.3662),
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0000, 0.1611),
    (1, 29, 0.0061, 0.1718),
    (29, 29, 0.8830, 1.0000),
])
def test_wilson_published_values(k, n, lo, hi):
    """wilson() reproduces published 95% Wilson intervals to 4 decimals."""
    got = wilson(k, n)
    assert got[0] == pytest.approx(lo, abs=5e-5)
    assert got[1] == pytest.approx(hi, abs=5e-5)


@pytest.mark.parametrize("n", [1, 2, 10, 57, 1000])
def test_wilson_edges_have_closed_forms(n):
    """k = 0 gives (0, z²/(n+z²)); k = n gives (n/(n+z²), 1): exact at the edges, never a point."""
    z2 = 1.96 ** 2
    assert wilson(0, n) == (0.0, pytest.approx(z2 / (n + z2)))
    lo, hi = wilson(n, n)
    assert hi == 1.0 and lo == pytest.approx(n / (n + z2))


def test_wilson_every_k_is_inside_and_symmetric():
    """For k = 0..n the interval lies in [0, 1], contains k/n, grows with k and mirrors at n - k."""
    n = 37
    prev = (-1.0, -1.0)
    for k in range(n + 1):
        lo, hi = wilson(k, n)
        assert 0.0 <= lo <= k / n <= hi <= 1.0
        assert lo > prev[0] or k == 0
        assert hi > prev[1]
        mlo, mhi = wilson(n - k, n)
        assert lo == pytest.approx(1 - mhi) and hi == pytest.approx(1 - mlo)
        prev = (lo, hi)


def test_wilson_no_games_and_bad_input():
    """n = 0 is uninformative; impossible counts raise instead of returning nonsense."""
    assert wilson(0, 0) == (0.0, 1.0)
    for k, n in ((-1, 5), (6, 5), (0, -1)):
        with pytest.raises(ValueError):
            wilson(k, n)
    with pytest.raises(ValueError):
        wilson(1, 2, z=0)
    with pytest.raises(TypeError):
        wilson(True, 2)


def test_wilson_wider_z_is_wider():
    lo1, hi1 = wilson(30, 80, z=1.0)
    lo2, hi2 = wilson(30, 80, z=2.576)
    assert lo2 < lo1 and hi2 > hi1


def test_mean_ci():
    """mean ± 1.96·s/√n, with the degenerate cases spelled out."""
    m, lo, hi = mean_ci([1, 2, 3, 4])
    s = math.sqrt(sum((x - 2.5) ** 2 for x in (1, 2, 3, 4)) / 3)
    assert m == 2.5 and hi - m == pytest.approx(1.96 * s / 2) and m - lo == pytest.approx(1.96 * s / 2)
    assert mean_ci([7]) == (7.0, 7.0, 7.0)
    assert all(math.isnan(x) for x in mean_ci([]))


def test_overlaps_and_format():
    assert overlaps((0.1, 0.3), (0.3, 0.5))
    assert not overlaps((0.1, 0.29), (0.3, 0.5))
    assert format_interval(0.30941, 0.49797) == "[0.309, 0.498]"
