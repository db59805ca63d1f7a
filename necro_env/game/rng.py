"""A tiny deterministic random generator that lives inside the game state.

SplitMix64 on Python ints: its whole state is one integer, so ``State.clone()``
copies it for free and ``to_dict()`` stores it exactly. Every chance event of a
game (deck shuffles, the Necromancer's draw, the reinforcement die) draws from
the one generator of that game's state; nothing uses global random state.
"""
from __future__ import annotations

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def next_u64(s: int) -> tuple[int, int]:
    """Advance a SplitMix64 state; return ``(new_state, output)``."""
    s = (s + GOLDEN) & MASK64
    z = s
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return s, z ^ (z >> 31)


def below(s: int, n: int) -> tuple[int, int]:
    """Uniform integer in ``[0, n)`` (rejection sampling, no modulo bias)."""
    if n <= 0:
        raise ValueError(f"below() needs n >= 1, got {n}")
    limit = (1 << 64) - ((1 << 64) % n)
    while True:
        s, z = next_u64(s)
        if z < limit:
            return s, z % n


def shuffle(s: int, items: list) -> int:
    """Fisher-Yates shuffle of ``items`` in place; returns the new state."""
    for i in range(len(items) - 1, 0, -1):
        s, j = below(s, i + 1)
        items[i], items[j] = items[j], items[i]
    return s


def seed_state(seed: int) -> int:
    """Map any non-negative integer seed to a generator state."""
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed!r}")
    s, _ = next_u64(seed & MASK64)
    return s ^ ((seed >> 64) & MASK64)
