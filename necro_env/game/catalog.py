"""Races and special powers: each one is a single entry of data plus small hooks.

RULES.md §2.1 (races) and §2.2 (powers). Token counts at pick-up are banner +
badge (+4 for Amazons), capped by the box. The engine reads these tables:

* ``discount(board)`` -> a region bitset where the race/power takes 1 token off
  the conquest cost (Tritons: coastal; Commando: every region; Mounted: hill and
  farmland; Underworld: caverns). Giants' discount depends on what they hold and
  is computed by the engine (``GIANTS`` below documents it).
* ``score(ctx)`` -> coins the race/power adds at the end of its owner's turn.
* Decision powers (Berserk, Bivouacking, Diplomat, Dragon Master, Fortified,
  Heroic, Stout) and movement powers (Flying, Seafaring, Underworld adjacency)
  are flags (``P_*`` bits of a race's power set) that the engine's phases consult.

Where the engine (``engine.py``, methods of ``Game``) reads each power; ``_score``
runs every ``score`` hook and ``_discounts`` every ``discount`` hook (a test checks
that each method listed exists and that a flag power's flag is read in one of them):

    Alchemist       _score
    Berserk         _legal_conquer (BERSERK_ROLL), _do_berserk_roll, _do_conquer (phase BERSERK),
                    _compute_legal (phase BERSERK: the targets the roll makes affordable; both
                    take the roll off the cost with the module's ``berserk_cost``)
    Bivouacking     _start_redeploy (lift the encampments), _legal_redeploy, _do_encamp,
                    _next_defender, _defend_step (a defender re-places them), _decline
    Commando        _discounts
    Diplomat        _end_redeploy (phase DIPLOMAT), _diplomat_ok, _do_diplomat, _protected,
                    _begin_turn (the pact ends)
    Dragon Master   _legal_conquer (DRAGON), _do_dragon, _recompute_immune, _clear_markers, _decline
    Flying          _reach
    Forest          _score
    Fortified       _legal_redeploy (FORTRESS), _do_fortress, _score (coins per fortress)
    Heroic          _start_redeploy (lift the heroes), _legal_redeploy (HERO), _do_hero,
                    _clear_markers, _decline
    Hill            _score
    Merchant        _score
    Mounted         _discounts
    Pillaging       _score
    Seafaring       _reach, _conversion_targets (Game.seafaring_ok)
    Spirit          _decline
    Stout           _legal_redeploy (STOUT_DECLINE), _end_redeploy (stout=True)
    Swamp           _score
    Underworld      _reach (every Cavern adjacent), _discounts
    Wealthy         _score (once per race, ``State.wealthy_paid``)

Race ids 0..13 are the 14 races; ``LOST_TRIBE`` (14) and ``GHOST`` (15) occupy
regions like races but are never picked.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .board import Board
from .errors import short_repr


@dataclass(frozen=True)
class ScoreContext:
    """What a scoring hook may look at: the race's regions and this turn's facts."""

    board: Board
    regions: int          # bitset of regions held by the race
    nonempty_conquests: int  # non-empty regions conquered this turn by this race
    fortresses: int       # fortresses standing in the race's regions


def _count(bits: int) -> int:
    return bits.bit_count()


@dataclass(frozen=True)
class RaceDef:
    id: int
    name: str
    banner: int
    box: int
    ability: str
    score: Callable[[ScoreContext], int] | None = None
    score_in_decline: bool = False   # Dwarves keep their mine bonus in decline
    discount: Callable[[Board], int] | None = None


@dataclass(frozen=True)
class PowerDef:
    id: int
    name: str
    badge: int
    effect: str
    score: Callable[[ScoreContext], int] | None = None
    discount: Callable[[Board], int] | None = None
    necromancer_ok: bool = True      # RULES §4.1 rule 4: Spirit/Stout are redrawn


RACES: tuple[RaceDef, ...] = (
    RaceDef(0, "Amazons", 6, 15, "+4 tokens for conquest only; 4 are held back after redeployment"),
    RaceDef(1, "Dwarves", 3, 8, "+1 coin per Mine region, also in decline",
            score=lambda c: _count(c.regions & c.board.mine_mask), score_in_decline=True),
    RaceDef(2, "Elves", 6, 11, "lose no token when conquered"),
    RaceDef(3, "Ghouls", 5, 10, "keep all tokens in decline and keep conquering"),
    RaceDef(4, "Giants", 6, 11, "-1 cost next to a Mountain region they hold"),
    RaceDef(5, "Halflings", 6, 11, "first conquest anywhere; holes in the first 2 regions"),
    RaceDef(6, "Humans", 5, 10, "+1 coin per Farmland region",
            score=lambda c: _count(c.regions & c.board.farmland_mask)),
    RaceDef(7, "Orcs", 5, 10, "+1 coin per non-empty region conquered this turn",
            score=lambda c: c.nonempty_conquests),
    RaceDef(8, "Ratmen", 8, 13, "no ability"),
    RaceDef(9, "Skeletons", 6, 20, "+1 token per 2 non-empty regions conquered this turn"),
    RaceDef(10, "Sorcerers", 5, 18, "convert a lone active enemy token once per opponent per turn"),
    RaceDef(11, "Tritons", 6, 11, "-1 cost on coastal regions",
            discount=lambda b: b.coastal_mask),
    RaceDef(12, "Trolls", 5, 10, "a Troll Lair (+1 defence) in every region"),
    RaceDef(13, "Wizards", 5, 10, "+1 coin per Magic Source region",
            score=lambda c: _count(c.regions & c.board.magic_mask)),
)
(AMAZONS, DWARVES, ELVES, GHOULS, GIANTS, HALFLINGS, HUMANS, ORCS, RATMEN,
 SKELETONS, SORCERERS, TRITONS, TROLLS, WIZARDS) = range(14)
NUM_RACES = 14
LOST_TRIBE = 14
GHOST = 15
NUM_OCCUPANTS = 16
LOST_TRIBE_BOX = 18
GHOST_BOX = 14
AMAZON_BONUS = 4
OCCUPANT_NAMES = tuple(r.name for r in RACES) + ("Lost Tribe", "Ghosts")

POWERS: tuple[PowerDef, ...] = (
    PowerDef(0, "Alchemist", 4, "+2 coins each turn while active", score=lambda c: 2),
    PowerDef(1, "Berserk", 4, "roll the die before each conquest, then choose the target"),
    PowerDef(2, "Bivouacking", 5, "5 encampments, +1 defence each, re-placed every turn"),
    PowerDef(3, "Commando", 4, "-1 cost on every conquest", discount=lambda b: b.all_mask),
    PowerDef(4, "Diplomat", 5, "name an opponent not attacked this turn: peace until our next turn"),
    PowerDef(5, "Dragon Master", 5, "once per turn conquer with 1 token; the dragon makes it immune"),
    PowerDef(6, "Flying", 5, "conquer any land region, no adjacency needed"),
    PowerDef(7, "Forest", 4, "+1 coin per Forest region",
             score=lambda c: _count(c.regions & c.board.forest_mask)),
    PowerDef(8, "Fortified", 3, "one fortress per turn (+1 defence, +1 coin while active)",
             score=lambda c: c.fortresses),
    PowerDef(9, "Heroic", 5, "2 heroes make 2 regions immune"),
    PowerDef(10, "Hill", 4, "+1 coin per Hill region",
             score=lambda c: _count(c.regions & c.board.hill_mask)),
    PowerDef(11, "Merchant", 2, "+1 coin per region held", score=lambda c: _count(c.regions)),
    PowerDef(12, "Mounted", 5, "-1 cost on Hill and Farmland",
             discount=lambda b: b.hill_mask | b.farmland_mask),
    PowerDef(13, "Pillaging", 5, "+1 coin per non-empty region conquered this turn",
             score=lambda c: c.nonempty_conquests),
    PowerDef(14, "Seafaring", 5, "may conquer seas (and the lake outside the scenario)"),
    PowerDef(15, "Spirit", 5, "its decline does not count against the one-in-decline limit",
             necromancer_ok=False),
    PowerDef(16, "Stout", 4, "may go into decline at the end of a normal turn",
             necromancer_ok=False),
    PowerDef(17, "Swamp", 4, "+1 coin per Swamp region",
             score=lambda c: _count(c.regions & c.board.swamp_mask)),
    PowerDef(18, "Underworld", 5, "-1 cost on Caverns; all Caverns are adjacent",
             discount=lambda b: b.cavern_mask),
    PowerDef(19, "Wealthy", 4, "+7 coins once, at the end of the first turn"),
)
(ALCHEMIST, BERSERK, BIVOUACKING, COMMANDO, DIPLOMAT, DRAGON_MASTER, FLYING, FOREST,
 FORTIFIED, HEROIC, HILL, MERCHANT, MOUNTED, PILLAGING, SEAFARING, SPIRIT, STOUT,
 SWAMP, UNDERWORLD, WEALTHY) = range(20)
NUM_POWERS = 20
WEALTHY_BONUS = 7

# Bits of a power set (a race's powers in use is an int bitmask of these).
P_ALCHEMIST, P_BERSERK, P_BIVOUACKING, P_COMMANDO, P_DIPLOMAT, P_DRAGON, P_FLYING, \
    P_FOREST, P_FORTIFIED, P_HEROIC, P_HILL, P_MERCHANT, P_MOUNTED, P_PILLAGING, \
    P_SEAFARING, P_SPIRIT, P_STOUT, P_SWAMP, P_UNDERWORLD, P_WEALTHY = (1 << i for i in range(20))

# Box counts of the markers (RULES §2.2, "Physical pieces").
ENCAMPMENTS = 5
FORTRESSES = 6
TROLL_LAIRS = 10
HOLES = 2
HEROES = 2
DRAGONS = 1

RACE_BY_NAME = {r.name.lower(): r.id for r in RACES}
POWER_BY_NAME = {p.name.lower(): p.id for p in POWERS}


def race_id(name: str) -> int:
    """Race id by (case-insensitive) name; ``ValueError`` lists the names."""
    try:
        return RACE_BY_NAME[(name if isinstance(name, str) else "").strip().lower()]
    except KeyError:
        raise ValueError(f"unknown race {short_repr(name)}; known: {', '.join(r.name for r in RACES)}") from None


def power_id(name: str) -> int:
    """Power id by (case-insensitive) name; ``ValueError`` lists the names."""
    try:
        return POWER_BY_NAME[(name if isinstance(name, str) else "").strip().lower()]
    except KeyError:
        raise ValueError(f"unknown power {short_repr(name)}; known: {', '.join(p.name for p in POWERS)}") from None


def tokens_at_pickup(race: int, power: int) -> int:
    """Tokens a player receives with a combo (RULES §1.3, §2.1 Amazons)."""
    n = RACES[race].banner + POWERS[power].badge
    if race == AMAZONS:
        n += AMAZON_BONUS
    return min(n, RACES[race].box)


def box_count(occupant: int) -> int:
    if occupant == LOST_TRIBE:
        return LOST_TRIBE_BOX
    if occupant == GHOST:
        return GHOST_BOX
    return RACES[occupant].box
