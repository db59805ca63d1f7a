"""``State``: everything that changes during one game, as flat typed fields.

Static facts (board, neighbour bitsets, catalog, action table) live on ``Game``.
A ``State`` is plain ints and lists of ints, so ``clone()`` copies a few small
lists (no ``deepcopy``) and ``to_dict()``/``from_dict()`` round-trip exactly
through JSON, the random generator's position included.

Fields (S = seats, O = 16 occupants: races 0-13, Lost Tribe 14, Ghosts 15,
R = regions of the board):

Seats
    coins[S]          coins of each seat (the Necromancer's are his currency)
    active[S]         active race id, GHOST for the Necromancer, -1 when none
    decl[S]           in-decline race (not Spirit) or -1
    decl_spirit[S]    in-decline race that had Spirit, or -1 (does not count to the limit)
    pact[S]           Diplomat: pact[p] = the seat that may not attack p's active race, or -1
Occupants
    race_owner[O]     seat owning the race (-1 when unused; Lost Tribes: -1)
    race_status[O]    UNUSED 0, ACTIVE 1, DECLINED 2, GHOSTLY 3 (Ghosts), TRIBE 4
    race_power[O]     bitmask of powers in use by that race (0 in decline)
    hand[O]           tokens in hand (for non-acting races: survivors awaiting redeployment)
    tray[O]           tokens in the tray; for GHOST: the Necromancer's Reserve
    well[O]           tokens of that occupant in the Well of Souls
    regions[O]        bitset of regions the occupant holds
Regions
    occ[R], tok[R]    occupant id (-1 empty) and its token count
    lair[R], fort[R], hole[R], hero[R]   0/1 markers; encamp[R] encampment count
    dragon            region of the dragon or -1
    immune            bitset of regions with a hole, a hero or the dragon (derived)
Pieces and counters
    amazon_held       the 4 Amazon tokens held between turns
    holes_placed      holes the current Halflings have placed (max 2)
    hero_pool, encamp_pool   heroes/encampments lifted and waiting to be placed
    wealthy_paid      bitmask of races (occupants) that got Wealthy's +7
Turn
    round             game turn, 1-based
    turn_seat         whose turn it is; decider: who decides now
    phase             a ``Phase``; cur_race: the race acting in CONQUER/REDEPLOY
    segment           GHOUL_SEGMENT = in-decline Ghouls acting first, MAIN_SEGMENT = the main race
    started           NOT_STARTED, ABANDONED (no decline any more), CONQUERED (no abandon any more)
    picked, placed, dragon_used, fort_used   per-turn flags (0/1)
    berserk           the Berserk roll waiting for a target, or -1
    converted, attacked   bitmasks of seats converted / whose active race was attacked this turn
    nonempty          non-empty regions conquered by the acting race this segment
    hold              tokens the Amazons keep in hand at the end of redeployment
    ready_taken       flat [region, n, ...] taken into hand when troops were readied; region
                      FROM_AMAZON_HOLD = the Amazons' 4 held tokens, FROM_ISLAND = the Island
    defend_race       race whose survivors are being placed in DEFEND, or -1
    last_die          the last die roll (-1 before any)
Decks
    race_deck, power_deck, power_discard   banner/badge stacks (front = top)
    col_race, col_power, col_coins         the visible combo column (index 0 = free)
Necromancer
    island            Ghosts on the Island
    ghosts_removed    Ghosts removed by the handicap
    souls             bonus souls in the Well (an unlimited supply of foreign tokens)
    necro_draw        the 6 drawn badges before he picks (then [])
    necro_reserve     his 5 reserve power slots (-1 once bought)
    bought_ghosts, bought_powers   purchase counters
    ghost_curve       Ghosts in play (regions + Island) after each round
End
    over, necro_won (0/1), winners (seats), decisions (actions applied so far, forced ones
    included), forced (actions the engine applied itself because they were the only legal one)
    rng               the generator's state (see ``rng.py``)
"""
from __future__ import annotations

import enum
from typing import Any

from .errors import StateError


class Phase(enum.IntEnum):
    NECRO_START = 0   # the Necromancer picks his starting power
    PICK = 1          # pick a combo from the column
    CONQUER = 2       # abandon / conquer / powers / end conquest (and decline at the start)
    BERSERK = 3       # Berserk rolled: choose the target
    REDEPLOY = 4      # lift / place / pieces / end
    DIPLOMAT = 5      # name the seat of the pact
    DEFEND = 6        # a defender places its survivors at the end of the attacker's turn
    BUY = 7           # the Necromancer buys Ghosts and powers
    OVER = 8


UNUSED, ACTIVE, DECLINED, GHOSTLY, TRIBE = range(5)
# ``State.segment``: which part of the seat's turn runs (in-decline Ghouls go before the main race).
GHOUL_SEGMENT, MAIN_SEGMENT = 0, 1
# ``State.started``: what the acting race has done in this segment of the turn.
NOT_STARTED, ABANDONED, CONQUERED = 0, 1, 2
# Pseudo-regions of ``State.ready_taken``: tokens readied from the Amazons' hold / from the Island.
FROM_AMAZON_HOLD, FROM_ISLAND = -1, -2

LIST_FIELDS = (
    "coins", "active", "decl", "decl_spirit", "pact",
    "race_owner", "race_status", "race_power", "hand", "tray", "well", "regions",
    "occ", "tok", "lair", "fort", "hole", "hero", "encamp",
    "ready_taken", "race_deck", "power_deck", "power_discard",
    "col_race", "col_power", "col_coins", "necro_draw", "necro_reserve",
    "ghost_curve", "winners",
)
INT_FIELDS = (
    "dragon", "immune", "amazon_held", "holes_placed", "hero_pool", "encamp_pool", "wealthy_paid",
    "round", "turn_seat", "decider", "phase", "cur_race", "segment",
    "started", "picked", "placed", "dragon_used", "fort_used", "berserk",
    "converted", "attacked", "nonempty", "hold", "defend_race", "last_die",
    "island", "ghosts_removed", "souls", "bought_ghosts", "bought_powers",
    "over", "necro_won", "decisions", "forced", "rng",
)
ALL_FIELDS = LIST_FIELDS + INT_FIELDS


class State:
    """The mutable part of a game. Build one with ``Game.new_state(seed)``."""

    __slots__ = ALL_FIELDS + ("_legal",)

    def clone(self) -> "State":
        """An independent copy (lists copied, ints shared); the legal-action cache is kept."""
        c = State.__new__(State)
        for f in LIST_FIELDS:
            setattr(c, f, getattr(self, f)[:])
        for f in INT_FIELDS:
            setattr(c, f, getattr(self, f))
        c._legal = self._legal
        return c

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of every field (exact; big bitsets stay ints)."""
        d: dict[str, Any] = {f: getattr(self, f)[:] for f in LIST_FIELDS}
        for f in INT_FIELDS:
            d[f] = getattr(self, f)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "State":
        """Inverse of ``to_dict``; ``StateError`` on missing, extra or mistyped fields."""
        if not isinstance(d, dict):
            raise StateError(f"a saved state must be a dict, got {type(d).__name__}")
        missing = [f for f in ALL_FIELDS if f not in d]
        extra = [k if isinstance(k, str) else f"<a {type(k).__name__}>" for k in d if k not in ALL_FIELDS]
        if missing or extra:
            raise StateError(f"saved state fields do not match: missing {missing}, unexpected {extra}")
        s = cls.__new__(cls)
        for f in LIST_FIELDS:
            v = d[f]
            if not isinstance(v, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in v):
                raise StateError(f"saved state field {f!r} must be a list of ints")
            setattr(s, f, list(v))
        for f in INT_FIELDS:
            v = d[f]
            if not isinstance(v, int) or isinstance(v, bool):
                raise StateError(f"saved state field {f!r} must be an int, got {v!r}")
            setattr(s, f, v)
        s._legal = None
        return s

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, State):
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in ALL_FIELDS)

    def __repr__(self) -> str:
        return (f"State(round={self.round}, seat={self.turn_seat}, decider={self.decider}, "
                f"phase={Phase(self.phase).name}, coins={self.coins}, over={bool(self.over)})")
