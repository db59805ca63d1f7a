"""The fixed action table: one ``Discrete(NUM_ACTIONS)`` for every agent and board.

Sized for the largest board (R = 48 regions); regions a board lacks are always
illegal. Sections are contiguous; offsets are computed from the sizes below.
Targets that name a seat are seat-relative (offset k = the k-th seat after the
decider, clockwise), so one policy can play any seat.

| kind             | size | argument            | meaning |
|------------------|-----:|---------------------|---------|
| PICK             | 6    | column slot k       | take combo k of the column (pays k coins) |
| DECLINE          | 1    | -                   | go into decline instead of expanding |
| ABANDON          | R    | region              | take every token off a region before conquering |
| CONQUER          | R    | region              | conquer a region with tokens from hand |
| FINAL            | R    | region              | last conquest attempt with the reinforcement die |
| END_CONQUEST     | 1    | -                   | stop conquering, start redeployment |
| LIFT             | R    | region              | take 1 token into hand (only before the first PLACE) |
| PLACE            | R    | region              | put 1 token from hand on a region (also the defender's and the Necromancer's returned-Ghost placement; the Lake = the Island where allowed) |
| END_REDEPLOY     | 1    | -                   | finish redeployment (scoring follows) |
| DRAGON           | R    | region              | Dragon Master: conquer with 1 token, put the dragon there |
| HERO             | R    | region              | Heroic: put a hero on a region held |
| ENCAMP           | R    | region              | Bivouacking: put an encampment on a region held |
| FORTRESS         | R    | region              | Fortified: put this turn's fortress on a region held |
| CONVERT          | R    | region              | Sorcerers: replace a lone active enemy token |
| BERSERK_ROLL     | 1    | -                   | Berserk: roll the die, then choose the target |
| STOUT_DECLINE    | 1    | -                   | Stout: END_REDEPLOY, then decline after scoring |
| DIPLOMAT         | 5    | seat offset 1..5    | Diplomat: make peace with that seat |
| NECRO_START      | 6    | drawn badge k       | the Necromancer's starting power |
| BUY_GHOST        | 1    | -                   | the Necromancer buys a Ghost onto the Island |
| BUY_POWER        | 5    | reserve slot k      | the Necromancer buys a reserve power |
| END_BUY          | 1    | -                   | the Necromancer stops buying |

Total: 29 + 10 R = 509.
"""
from __future__ import annotations

import enum
import operator
from typing import NamedTuple

from .board import MAX_REGIONS

R = MAX_REGIONS


class Kind(enum.IntEnum):
    PICK = 0
    DECLINE = 1
    ABANDON = 2
    CONQUER = 3
    FINAL = 4
    END_CONQUEST = 5
    LIFT = 6
    PLACE = 7
    END_REDEPLOY = 8
    DRAGON = 9
    HERO = 10
    ENCAMP = 11
    FORTRESS = 12
    CONVERT = 13
    BERSERK_ROLL = 14
    STOUT_DECLINE = 15
    DIPLOMAT = 16
    NECRO_START = 17
    BUY_GHOST = 18
    BUY_POWER = 19
    END_BUY = 20


SIZES: dict[Kind, int] = {
    Kind.PICK: 6, Kind.DECLINE: 1, Kind.ABANDON: R, Kind.CONQUER: R, Kind.FINAL: R,
    Kind.END_CONQUEST: 1, Kind.LIFT: R, Kind.PLACE: R, Kind.END_REDEPLOY: 1,
    Kind.DRAGON: R, Kind.HERO: R, Kind.ENCAMP: R, Kind.FORTRESS: R, Kind.CONVERT: R,
    Kind.BERSERK_ROLL: 1, Kind.STOUT_DECLINE: 1, Kind.DIPLOMAT: 5,
    Kind.NECRO_START: 6, Kind.BUY_GHOST: 1, Kind.BUY_POWER: 5, Kind.END_BUY: 1,
}
# Arguments start at 1 for DIPLOMAT (a seat offset), at 0 elsewhere.
ARG_BASE: dict[Kind, int] = {k: (1 if k == Kind.DIPLOMAT else 0) for k in Kind}

OFFSET: dict[Kind, int] = {}
_o = 0
for _k in Kind:
    OFFSET[_k] = _o
    _o += SIZES[_k]
NUM_ACTIONS = _o

# Plain-int offsets for the hot paths.
PICK = OFFSET[Kind.PICK]
DECLINE = OFFSET[Kind.DECLINE]
ABANDON = OFFSET[Kind.ABANDON]
CONQUER = OFFSET[Kind.CONQUER]
FINAL = OFFSET[Kind.FINAL]
END_CONQUEST = OFFSET[Kind.END_CONQUEST]
LIFT = OFFSET[Kind.LIFT]
PLACE = OFFSET[Kind.PLACE]
END_REDEPLOY = OFFSET[Kind.END_REDEPLOY]
DRAGON = OFFSET[Kind.DRAGON]
HERO = OFFSET[Kind.HERO]
ENCAMP = OFFSET[Kind.ENCAMP]
FORTRESS = OFFSET[Kind.FORTRESS]
CONVERT = OFFSET[Kind.CONVERT]
BERSERK_ROLL = OFFSET[Kind.BERSERK_ROLL]
STOUT_DECLINE = OFFSET[Kind.STOUT_DECLINE]
DIPLOMAT = OFFSET[Kind.DIPLOMAT]
NECRO_START = OFFSET[Kind.NECRO_START]
BUY_GHOST = OFFSET[Kind.BUY_GHOST]
BUY_POWER = OFFSET[Kind.BUY_POWER]
END_BUY = OFFSET[Kind.END_BUY]

# index -> (kind, arg), built once; decode is a list lookup.
_DECODE: list[tuple[Kind, int]] = []
for _k in Kind:
    for _i in range(SIZES[_k]):
        _DECODE.append((_k, _i + ARG_BASE[_k]))

# Kinds as plain ints, and per action index its kind / argument as plain ints, for the hot paths (the
# bots; the engine's per-action dispatch table): comparing plain ints is cheaper than comparing ``Kind`` members.
K_PICK = int(Kind.PICK)
K_DECLINE = int(Kind.DECLINE)
K_ABANDON = int(Kind.ABANDON)
K_CONQUER = int(Kind.CONQUER)
K_FINAL = int(Kind.FINAL)
K_END_CONQUEST = int(Kind.END_CONQUEST)
K_LIFT = int(Kind.LIFT)
K_PLACE = int(Kind.PLACE)
K_END_REDEPLOY = int(Kind.END_REDEPLOY)
K_DRAGON = int(Kind.DRAGON)
K_HERO = int(Kind.HERO)
K_ENCAMP = int(Kind.ENCAMP)
K_FORTRESS = int(Kind.FORTRESS)
K_CONVERT = int(Kind.CONVERT)
K_BERSERK_ROLL = int(Kind.BERSERK_ROLL)
K_STOUT_DECLINE = int(Kind.STOUT_DECLINE)
K_DIPLOMAT = int(Kind.DIPLOMAT)
K_NECRO_START = int(Kind.NECRO_START)
K_BUY_GHOST = int(Kind.BUY_GHOST)
K_BUY_POWER = int(Kind.BUY_POWER)
K_END_BUY = int(Kind.END_BUY)
if sorted(name for name in globals() if name.startswith("K_")) != sorted(f"K_{k.name}" for k in Kind):
    raise ImportError("actions.py: every Kind needs its K_ constant")
KIND_OF: list[int] = [int(k) for k, _ in _DECODE]   # action index -> kind (plain int)
ARG_OF: list[int] = [arg for _, arg in _DECODE]     # action index -> argument


class Action(NamedTuple):
    """A decoded action: its kind and argument (region, slot or seat offset; 0 if none)."""

    kind: Kind
    arg: int = 0

    def __str__(self) -> str:
        if SIZES[self.kind] == 1:
            return self.kind.name.lower()
        return f"{self.kind.name.lower()} {self.arg}"


def _as_int(x, what: str) -> int:
    """``x`` as an exact int: ints and numpy ints pass; bools, floats and strings are refused."""
    if isinstance(x, bool):
        raise ValueError(f"{what} must be an int, got {x!r}")
    try:
        return operator.index(x)
    except TypeError:
        raise ValueError(f"{what} must be an int, got {x!r}") from None


def encode(action: Action | tuple) -> int:
    """``Action`` -> index; ``ValueError`` if the argument is out of the section."""
    kind = Kind(action[0])
    arg = _as_int(action[1], f"the argument of {kind.name}") if len(action) > 1 else 0
    lo = ARG_BASE[kind]
    hi = lo + SIZES[kind] - 1
    if SIZES[kind] == 1:
        if arg not in (0, lo):
            raise ValueError(f"{kind.name} takes no argument, got {arg}")
        return OFFSET[kind]
    if not lo <= arg <= hi:
        raise ValueError(f"{kind.name} argument must be in {lo}..{hi}, got {arg}")
    return OFFSET[kind] + arg - lo


def decode(index: int) -> Action:
    """Index -> ``Action``; ``ValueError`` outside ``0..NUM_ACTIONS-1``."""
    index = _as_int(index, f"an action (an int in 0..{NUM_ACTIONS - 1})")
    if not 0 <= index < NUM_ACTIONS:
        raise ValueError(f"action {index} is out of range 0..{NUM_ACTIONS - 1}")
    k, a = _DECODE[index]
    return Action(k, a)


def action_table() -> list[tuple[str, int, int]]:
    """``(kind name, offset, size)`` rows of the table, in order."""
    return [(k.name, OFFSET[k], SIZES[k]) for k in Kind]
