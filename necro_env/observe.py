"""State -> per-viewer observation vectors (DESIGN.md §4).

``Observer(game).observe(st, seat)`` returns one float32 vector of ``OBS_SIZE``
entries, the same size on every board and seat count (sized for MAX_REGIONS = 48
regions and MAX_SEATS = 6 seats; missing regions and seats are all zeros). It is
**seat-relative**: the viewer is seat 0 and every other seat is numbered by its
offset clockwise from the viewer (the same offsets the DIPLOMAT actions use), so
one policy can play any seat. The Necromancer's seat is marked by a role flag.

It holds only what the viewer may know: the deck order and the Necromancer's
drawn/reserve badges are never shown to the players (unless
``hide_necro_reserve=False``), and with ``hide_coins=True`` only the viewer's own
coins are shown (RULES §1.2 keeps coins face down; DESIGN.md §4 makes them public by
default since every gain is scored in the open). ``state_vector(st)`` is the full
view for centralised critics: absolute seat order (seat 0 = player_0 in slot 0),
coins and the Necromancer's reserve revealed, no viewer (the viewer flags
``own_turn``, ``viewer_decides``, ``defending``, ``viewer_is_necromancer`` are 0).

Scales: every count is divided by a fixed divisor so that typical values lie in 0..1
(``SCALES``; written ``/d`` in the tables below); features without one are 0/1 flags,
one-hots or (region ``encampments``) a plain count, and ``glob.round_frac`` is the round
divided by the game's number of turns. ``OBS_HIGH`` holds a generous upper bound per
entry (used by the env's ``Box``).

Layout. Blocks with rows (one row per region, seat slot or column slot) list the
columns of a row; ``OFFSETS`` gives ``(start, length)`` of every block and of every
flat feature; ``REGION_STATIC_COLS``, ``REGION_COLS``, ``SEAT_COLS`` and ``COMBO_COLS``
give ``(column, width)`` inside a row.

    block            start  length  rows x cols
    region_static        0     720    48 x 15
    region             720     816    48 x 17
    region_learn      1536     192    48 x 4
    seat              1728     402    6 x 67
    combo             2130     222    6 x 37
    necro             2352     256    flat
    glob              2608     101    flat
    OBS_SIZE = 2709

Row columns (name, column(s), divisor):

    region_static exists 0, terrain 1-7, mine 8, magic 9, cavern 10, border 11, first_conquest 12,
                  coastal 13, lake_neighbour 14
    region        owner 0-5, lost_tribe 6, ghost 7, active 8, declined 9, tokens 10 /10, lair 11,
                  fortress 12, encampments 13, hole 14, hero 15, dragon 16
    region_learn  cost 0 /10, reachable 1, affordable 2, threat 3 /6
    seat          present 0, necromancer 1, coins 2 /50, coins_visible 3, hand 4 /20, tray 5 /20,
                  active_regions 6 /16, declined_regions 7 /16, active_race 8-21,
                  active_powers 22-41, declined_races 42-55, spirit_decline 56, pact_with 57-62,
                  turn_seat 63, decider 64, attacked 65, converted 66
    combo         present 0, race 1-14, power 15-34, coins 35 /5, tokens 36 /20

What they hold:

    region_static: exists; terrain one-hot (farmland forest hill swamp mountain sea lake;
        the mountain's +1 defence is the terrain's 5th column); mine, magic, cavern; border
        (touches the board's outer edge); first_conquest (RULES §1.6); coastal (next to a sea
        or the lake); lake_neighbour.
    region: owner = the owning seat relative to the viewer, one-hot (also for the Ghosts,
        owned by the Necromancer; none for the Lost Tribe); lost_tribe; ghost; active (an
        active race or the Ghosts); declined; tokens; lair, fortress, encampments (count),
        hole, hero, dragon markers.
    region_learn (what a learner would otherwise infer from the rules): cost, reachable and
        affordable are about the race conquering now (``cur_race`` in the CONQUER and BERSERK
        phases; all 0 in the other phases): cost = tokens that race needs to conquer the region
        (0 where it cannot reach); reachable = it may try to conquer it now (adjacency, first
        conquest, powers, immunity, pacts; ``Game.conquest_options``); affordable =
        reachable and cost <= its tokens in hand; threat = how
        many neighbouring regions are held by races that could attack the region's occupant
        (active races, the Ghosts and in-decline Ghouls of the other seats; of every seat for an
        empty or Lost Tribe region).
    seat (slot k = the k-th seat clockwise from the viewer; slots past the seat count are
        all 0): present; necromancer (the role); coins; coins_visible (0 for the others'
        coins under ``hide_coins``); hand (tokens in hand of its active race); tray (that
        race's tokens left in the box); active_regions, declined_regions (regions held by
        its active race / its in-decline races); active_race one-hot (none for the
        Ghosts); active_powers multi-hot; declined_races multi-hot (the Spirit one
        included); spirit_decline; pact_with one-hot (Diplomat: the relative seat that may
        not attack this seat's active race); turn_seat, decider (none once the game is
        over); attacked_this_turn, converted_this_turn.
    combo (slot j = combo j of the column, 0 = free): present, race one-hot, power
        one-hot, coins on it, tokens_at_pickup (what taking it gives).
    necro (flat, by name in OFFSETS; all 0 in the base game except reserve_visible in
        ``state_vector``): scenario, viewer_is_necromancer, reserve (his Ghosts in the
        box), island, well_ghosts, well_others (other tokens in the Well), souls,
        ghosts_in_play (regions + Island), price (of his next purchase: powers in use +
        Ghosts on the map, the Island and in his hand), bought_ghosts, bought_powers,
        reserve_powers_left, ghosts_removed, island_returnable (Ghosts he may still put back
        on the Island this redeployment, RULES A14; 0 outside his turn), affordable_purchases
        (how many purchases in a row his coins pay at that price, at most 10; hidden like his
        coins under ``hide_coins``), powers_in_use
        (20), reserve_powers (5 slots x 20 one-hot, hidden), drawn_powers (6 slots x 20
        one-hot, hidden), reserve_visible (0 where the badges are hidden).
    glob (flat): round_frac, last_round, rounds_left (game turns after this one), game_turns, seats_onehot (5: 2..6 seats),
        board_onehot (4: boards 2..5), phase_onehot (9, ``Phase``), own_turn,
        viewer_decides, defending, turn_seat_rel (6), decider_rel (6), turn_order (6:
        one-hot of the viewer's place in the round, 0 = it starts the round; all 0 in
        ``state_vector``), berserk_pending, berserk_roll (4: 0..3), last_die (0 before
        any roll), die_rolled, acting_hand, hold, ghoul_segment, started (3: nothing yet,
        abandoned, conquered), picked, placed, dragon_used, fort_used, hero_pool,
        encamp_pool, nonempty, holes_placed, cur_race (16 occupants), defend_race (16),
        amazon_held, races_in_deck, powers_in_deck (the deck and the discard), over,
        victory_anytime

Flat features (name, start, length, divisor):

    necro.scenario               2352   1       necro.viewer_is_necromancer  2353   1
    necro.reserve                2354   1 /14   necro.island                 2355   1 /14
    necro.well_ghosts            2356   1 /14   necro.well_others            2357   1 /20
    necro.souls                  2358   1 /4    necro.ghosts_in_play         2359   1 /14
    necro.price                  2360   1 /20   necro.bought_ghosts          2361   1 /14
    necro.bought_powers          2362   1 /5    necro.reserve_powers_left    2363   1 /5
    necro.ghosts_removed         2364   1 /2    necro.island_returnable      2365   1 /14
    necro.affordable_purchases   2366   1 /5    necro.powers_in_use          2367  20
    necro.reserve_powers         2387 100       necro.drawn_powers           2487 120
    necro.reserve_visible        2607   1
    glob.round_frac              2608   1       glob.last_round              2609   1
    glob.rounds_left             2610   1 /10   glob.game_turns              2611   1 /10
    glob.seats_onehot            2612   5       glob.board_onehot            2617   4
    glob.phase_onehot            2621   9       glob.own_turn                2630   1
    glob.viewer_decides          2631   1       glob.defending               2632   1
    glob.turn_seat_rel           2633   6       glob.decider_rel             2639   6
    glob.turn_order              2645   6       glob.berserk_pending         2651   1
    glob.berserk_roll            2652   4       glob.last_die                2656   1 /3
    glob.die_rolled              2657   1       glob.acting_hand             2658   1 /20
    glob.hold                    2659   1 /4    glob.ghoul_segment           2660   1
    glob.started                 2661   3       glob.picked                  2664   1
    glob.placed                  2665   1       glob.dragon_used             2666   1
    glob.fort_used               2667   1       glob.hero_pool               2668   1 /2
    glob.encamp_pool             2669   1 /5    glob.nonempty                2670   1 /10
    glob.holes_placed            2671   1 /2    glob.cur_race                2672  16
    glob.defend_race             2688  16       glob.amazon_held             2704   1 /4
    glob.races_in_deck           2705   1 /14   glob.powers_in_deck          2706   1 /20
    glob.over                    2707   1       glob.victory_anytime         2708   1

"own_turn" = it is the viewer's turn; "viewer_decides" = the viewer must decide now;
"defending" = the viewer decides outside its turn (a defender placing survivors, or
the Necromancer placing returned Ghosts). "acting_hand" = tokens in hand of the race
that acts now (the defender's race while defending).
"""
from __future__ import annotations

import struct
from itertools import compress
from functools import reduce
from operator import attrgetter, ne, or_

import numpy as np

from .game import Game, Phase, State
from .game.board import MAX_REGIONS
from .game.catalog import GHOST, GHOULS, NUM_OCCUPANTS, NUM_POWERS, NUM_RACES, tokens_at_pickup
from .game.engine import bits as _bits
from .game.errors import ConfigError, short_repr
from .game.state import ACTIVE, DECLINED, GHOSTLY, GHOUL_SEGMENT, TRIBE

MAX_SEATS = 6
R = MAX_REGIONS
NUM_PHASES = len(Phase)

# ----------------------------------------------------------------- column tables
# name -> (column, width) inside one row of a block; the widths are the tables' sums.
REGION_STATIC_COLS = {
    "exists": (0, 1), "terrain": (1, 7), "mine": (8, 1), "magic": (9, 1), "cavern": (10, 1),
    "border": (11, 1), "first_conquest": (12, 1), "coastal": (13, 1), "lake_neighbour": (14, 1),
}
REGION_COLS = {
    "owner": (0, MAX_SEATS), "lost_tribe": (6, 1), "ghost": (7, 1), "active": (8, 1), "declined": (9, 1),
    "tokens": (10, 1), "lair": (11, 1), "fortress": (12, 1), "encampments": (13, 1),
    "hole": (14, 1), "hero": (15, 1), "dragon": (16, 1),
}
SEAT_COLS = {
    "present": (0, 1), "necromancer": (1, 1), "coins": (2, 1), "coins_visible": (3, 1), "hand": (4, 1),
    "tray": (5, 1), "active_regions": (6, 1), "declined_regions": (7, 1), "active_race": (8, NUM_RACES),
    "active_powers": (22, NUM_POWERS), "declined_races": (42, NUM_RACES), "spirit_decline": (56, 1),
    "pact_with": (57, MAX_SEATS), "turn_seat": (63, 1), "decider": (64, 1), "attacked": (65, 1),
    "converted": (66, 1),
}
# Features a learner would otherwise have to infer from the rules, about the race acting now
# (``cur_race``: the race whose turn segment runs; none before a combo is picked).
REGION_LEARN_COLS = {"cost": (0, 1), "reachable": (1, 1), "affordable": (2, 1), "threat": (3, 1)}
COMBO_COLS = {"present": (0, 1), "race": (1, NUM_RACES), "power": (15, NUM_POWERS), "coins": (35, 1),
              "tokens": (36, 1)}
COLUMN_SLOTS = 6

# One power one-hot per reserve slot / drawn slot, so BUY_POWER k and NECRO_START k can be
# told apart by a policy (a plain multi-hot would hide which slot holds which power).
RESERVE_SLOTS = 5
DRAW_SLOTS = 6
_NECRO_FEATURES = (
    ("scenario", 1), ("viewer_is_necromancer", 1), ("reserve", 1), ("island", 1), ("well_ghosts", 1),
    ("well_others", 1), ("souls", 1), ("ghosts_in_play", 1), ("price", 1), ("bought_ghosts", 1),
    ("bought_powers", 1), ("reserve_powers_left", 1), ("ghosts_removed", 1), ("island_returnable", 1),
    ("affordable_purchases", 1), ("powers_in_use", NUM_POWERS), ("reserve_powers", RESERVE_SLOTS * NUM_POWERS),
    ("drawn_powers", DRAW_SLOTS * NUM_POWERS), ("reserve_visible", 1),
)
_GLOB_FEATURES = (
    ("round_frac", 1), ("last_round", 1), ("rounds_left", 1), ("game_turns", 1), ("seats_onehot", 5), ("board_onehot", 4),
    ("phase_onehot", NUM_PHASES), ("own_turn", 1), ("viewer_decides", 1), ("defending", 1),
    ("turn_seat_rel", MAX_SEATS), ("decider_rel", MAX_SEATS), ("turn_order", MAX_SEATS),
    ("berserk_pending", 1), ("berserk_roll", 4),
    ("last_die", 1), ("die_rolled", 1), ("acting_hand", 1), ("hold", 1), ("ghoul_segment", 1),
    ("started", 3), ("picked", 1), ("placed", 1), ("dragon_used", 1), ("fort_used", 1), ("hero_pool", 1),
    ("encamp_pool", 1), ("nonempty", 1), ("holes_placed", 1), ("cur_race", NUM_OCCUPANTS),
    ("defend_race", NUM_OCCUPANTS), ("amazon_held", 1), ("races_in_deck", 1), ("powers_in_deck", 1),
    ("over", 1), ("victory_anytime", 1),
)

#: Divisor of every scaled feature ("block.feature"): the observation holds the count / divisor.
#: Features not listed are 0/1 flags, one-hots or (region ``encampments``) a plain count;
#: ``glob.round_frac`` is the round / the game's number of turns.
SCALES = {
    "region.tokens": 10, "region_learn.cost": 10, "region_learn.threat": 6,
    "seat.coins": 50, "seat.hand": 20, "seat.tray": 20, "seat.active_regions": 16, "seat.declined_regions": 16,
    "combo.coins": 5, "combo.tokens": 20,
    "necro.reserve": 14, "necro.island": 14, "necro.well_ghosts": 14, "necro.well_others": 20,
    "necro.souls": 4, "necro.ghosts_in_play": 14, "necro.price": 20, "necro.bought_ghosts": 14,
    "necro.bought_powers": 5, "necro.reserve_powers_left": 5, "necro.ghosts_removed": 2,
    "necro.island_returnable": 14, "necro.affordable_purchases": 5,
    "glob.game_turns": 10, "glob.rounds_left": 10, "glob.last_die": 3, "glob.acting_hand": 20, "glob.hold": 4, "glob.hero_pool": 2,
    "glob.encamp_pool": 5, "glob.nonempty": 10, "glob.holes_placed": 2, "glob.amazon_held": 4,
    "glob.races_in_deck": NUM_RACES, "glob.powers_in_deck": NUM_POWERS,
}


def _row_width(cols: dict[str, tuple[int, int]], block: str) -> int:
    """Columns of one row; ImportError unless the table tiles ``0..width-1`` exactly."""
    pos = 0
    for name, (c, w) in cols.items():
        if c != pos:
            raise ImportError(f"{block} column {name!r} starts at {c}, expected {pos} (the table must tile the row)")
        pos += w
    return pos


RS_W = _row_width(REGION_STATIC_COLS, "region_static")
RD_W = _row_width(REGION_COLS, "region")
RL_W = _row_width(REGION_LEARN_COLS, "region_learn")
SEAT_W = _row_width(SEAT_COLS, "seat")
COMBO_W = _row_width(COMBO_COLS, "combo")
ROW_TABLES = {"region_static": REGION_STATIC_COLS, "region": REGION_COLS, "region_learn": REGION_LEARN_COLS,
              "seat": SEAT_COLS, "combo": COMBO_COLS}
ROW_WIDTHS = {"region_static": RS_W, "region": RD_W, "region_learn": RL_W, "seat": SEAT_W, "combo": COMBO_W}


def _build_offsets() -> tuple[dict[str, tuple[int, int]], int]:
    offsets: dict[str, tuple[int, int]] = {}
    o = 0
    for name, size in (("region_static", R * RS_W), ("region", R * RD_W), ("region_learn", R * RL_W),
                       ("seat", MAX_SEATS * SEAT_W), ("combo", COLUMN_SLOTS * COMBO_W)):
        offsets[name] = (o, size)
        o += size
    for block, feats in (("necro", _NECRO_FEATURES), ("glob", _GLOB_FEATURES)):
        start = o
        for name, size in feats:
            offsets[f"{block}.{name}"] = (o, size)
            o += size
        offsets[block] = (start, o - start)
    return offsets, o


#: name -> (start, length): the blocks and every flat feature of the necro and glob blocks.
OFFSETS, OBS_SIZE = _build_offsets()
for _name in SCALES:
    _block, _feat = _name.split(".")
    if _name not in OFFSETS and _feat not in ROW_TABLES.get(_block, {}):
        raise ImportError(f"SCALES names {_name!r}, which is not a feature")


def offsets_table() -> str:
    """The block table of the module docstring, generated from ``OFFSETS``."""
    rows = {"region_static": f"{R} x {RS_W}", "region": f"{R} x {RD_W}", "region_learn": f"{R} x {RL_W}",
            "seat": f"{MAX_SEATS} x {SEAT_W}",
            "combo": f"{COLUMN_SLOTS} x {COMBO_W}", "necro": "flat", "glob": "flat"}
    lines = ["block            start  length  rows x cols"]
    for name, shape in rows.items():
        s, n = OFFSETS[name]
        lines.append(f"{name:<16}{s:>6}  {n:>6}    {shape}")
    return "\n".join(lines)


def _scale_note(name: str) -> str:
    return f" /{SCALES[name]}" if name in SCALES else ""


def columns_table(width: int = 96) -> str:
    """The columns of every row block (``*_COLS`` tables) with their divisors, as in the module docstring."""
    lines = []
    for block, cols in ROW_TABLES.items():
        cells = []
        for name, (c, w) in cols.items():
            span = f"{c}" if w == 1 else f"{c}-{c + w - 1}"
            cells.append(f"{name} {span}{_scale_note(f'{block}.{name}')}")
        line = f"{block:<14}"
        for i, cell in enumerate(cells):
            piece = cell + ("," if i < len(cells) - 1 else "")
            if len(line) + 1 + len(piece) > width and line.strip():
                lines.append(line.rstrip())
                line = " " * 14
            line += ("" if line.endswith(" ") or not line.strip() else " ") + piece
        lines.append(line.rstrip())
    return "\n".join(lines)


def features_table() -> str:
    """Every flat feature of the necro and glob blocks with its offset (``OFFSETS`` entries) and divisor."""
    lines = []
    for block in ("necro", "glob"):
        items = [(k, v) for k, v in OFFSETS.items() if k.startswith(block + ".")]
        cells = [f"{k:<28}{s:>5} {n:>3}{_scale_note(k):<4}" for k, (s, n) in items]
        for i in range(0, len(cells), 2):
            lines.append("   ".join(cells[i:i + 2]).rstrip())
    return "\n".join(lines)


def _build_high() -> np.ndarray:
    """Generous per-entry upper bounds (all features are >= 0)."""
    high = np.ones(OBS_SIZE, dtype=np.float32)

    def rows(block: str, name: str, value: float) -> None:
        s, n = OFFSETS[block]
        c, w = ROW_TABLES[block][name]
        view = high[s:s + n].reshape(-1, ROW_WIDTHS[block])
        view[:, c:c + w] = value

    rows("region", "tokens", 5.0)        # 50 tokens
    rows("region", "encampments", 5.0)
    rows("region_learn", "cost", 5.0)         # 50 tokens
    rows("region_learn", "threat", 2.0)       # 12 neighbours
    rows("seat", "coins", 100.0)         # 5000 coins
    for name in ("hand", "tray", "active_regions", "declined_regions"):
        rows("seat", name, 5.0)
    rows("combo", "coins", 10.0)       # 50 coins on one combo
    for name in ("reserve", "island", "well_ghosts", "well_others", "souls", "ghosts_in_play", "price",
                 "bought_ghosts", "bought_powers", "ghosts_removed", "reserve_powers_left", "affordable_purchases"):
        s, n = OFFSETS[f"necro.{name}"]
        high[s:s + n] = 10.0
    for name in ("game_turns", "acting_hand", "hold", "hero_pool", "encamp_pool", "nonempty",
                 "holes_placed", "amazon_held", "races_in_deck", "powers_in_deck"):
        s, n = OFFSETS[f"glob.{name}"]
        high[s:s + n] = 10.0
    return high


OBS_HIGH = _build_high()

# ================================================================= the writer's positions
# Everything below is derived from the tables above at import; the writer uses no other number.
_SC = {name: 1 / d for name, d in SCALES.items()}  # multipliers (x * (1/d) == x / d in float32)
_SC_TOKENS = _SC["region.tokens"]
_SC_COINS, _SC_HAND, _SC_TRAY = _SC["seat.coins"], _SC["seat.hand"], _SC["seat.tray"]
_SC_ACTIVE_REGIONS, _SC_DECLINED_REGIONS = _SC["seat.active_regions"], _SC["seat.declined_regions"]
_SC_ACTING_HAND = _SC["glob.acting_hand"]


def _col(cols: dict[str, tuple[int, int]], name: str) -> int:
    return cols[name][0]


def _span(cols: dict[str, tuple[int, int]], *names: str) -> slice:
    """The columns of ``names`` as one slice; ImportError unless they are adjacent, in this order."""
    start = pos = cols[names[0]][0]
    for name in names:
        c, w = cols[name]
        if c != pos:
            raise ImportError(f"observation columns {names} must be adjacent, in this order (the writer "
                              f"rewrites them together)")
        pos += w
    return slice(start, pos)


_RS0 = OFFSETS["region_static"][0]
_RD0 = OFFSETS["region"][0]
_RL0 = OFFSETS["region_learn"][0]
_L_COST, _L_REACHABLE, _L_AFFORDABLE, _L_THREAT = (_col(REGION_LEARN_COLS, c)
                                                  for c in ("cost", "reachable", "affordable", "threat"))
_SC_COST, _SC_THREAT = _SC["region_learn.cost"], _SC["region_learn.threat"]
_THREAT_AT = [_RL0 + r * RL_W + _L_THREAT for r in range(R)]   # canonical position of each region's threat
_THREAT_VALUES = [k * _SC_THREAT for k in range(R + 1)]          # k neighbours -> the written value
_span(REGION_LEARN_COLS, "cost", "reachable", "affordable")  # rewritten together
_SEAT0 = OFFSETS["seat"][0]
_COMBO0 = OFFSETS["combo"][0]
_N = {name: OFFSETS[f"necro.{name}"][0] for name, _ in _NECRO_FEATURES}
_G = {name: OFFSETS[f"glob.{name}"][0] for name, _ in _GLOB_FEATURES}
_DEFEND = int(Phase.DEFEND)
_CONQUER, _BERSERK = int(Phase.CONQUER), int(Phase.BERSERK)
_G_ACTING_HAND = _G["acting_hand"]  # written on every call

# ---- region rows
# Rewritten together from an owner code.
_R_OWNERSHIP = _span(REGION_COLS, "owner", "lost_tribe", "ghost", "active", "declined")
_R_TOKENS = _col(REGION_COLS, "tokens")
_R_DRAGON = _col(REGION_COLS, "dragon")
# State marker list -> its region column (the writer copies the list into the column).
_MARKER_FIELDS = ("lair", "fort", "encamp", "hole", "hero")
_R_MARKERS = tuple(_col(REGION_COLS, c) for c in ("lair", "fortress", "encampments", "hole", "hero"))
_markers_of = attrgetter(*_MARKER_FIELDS)

# Owner codes: a region's ownership columns are row ``code`` of ``_OWNER_TABLE`` (absolute seats).
_CODE_EMPTY, _CODE_TRIBE = 0, 1
_CODE_GHOST = 2                              # + owner seat
_CODE_ACTIVE = _CODE_GHOST + MAX_SEATS       # + owner seat
_CODE_DECLINED = _CODE_ACTIVE + MAX_SEATS    # + owner seat
_NUM_CODES = _CODE_DECLINED + MAX_SEATS


def _owner_table() -> np.ndarray:
    t = np.zeros((_NUM_CODES, _R_OWNERSHIP.stop - _R_OWNERSHIP.start), dtype=np.float32)
    at = {name: _col(REGION_COLS, name) - _R_OWNERSHIP.start
          for name in ("owner", "lost_tribe", "ghost", "active", "declined")}
    t[_CODE_TRIBE, at["lost_tribe"]] = 1
    for k in range(MAX_SEATS):
        t[_CODE_GHOST + k, [at["owner"] + k, at["ghost"], at["active"]]] = 1
        t[_CODE_ACTIVE + k, [at["owner"] + k, at["active"]]] = 1
        t[_CODE_DECLINED + k, [at["owner"] + k, at["declined"]]] = 1
    return t


_OWNER_TABLE = _owner_table()
_OWNER_W = _OWNER_TABLE.shape[1]
_OWNER_ROWS = [memoryview(row) for row in _OWNER_TABLE]   # for memoryview slice copies

# ---- seat rows
_S_PRESENT = _col(SEAT_COLS, "present")
_S_NECROMANCER = _col(SEAT_COLS, "necromancer")
_S_COINS = _col(SEAT_COLS, "coins")
_S_COINS_VISIBLE = _col(SEAT_COLS, "coins_visible")
_S_HAND = _col(SEAT_COLS, "hand")
_S_TRAY = _col(SEAT_COLS, "tray")
_S_ACTIVE_REGIONS = _col(SEAT_COLS, "active_regions")
_S_DECLINED_REGIONS = _col(SEAT_COLS, "declined_regions")
_S_ACTIVE_RACE = _col(SEAT_COLS, "active_race")
_S_ACTIVE_POWERS = _col(SEAT_COLS, "active_powers")
_S_DECLINED_RACES = _col(SEAT_COLS, "declined_races")
_S_SPIRIT = _col(SEAT_COLS, "spirit_decline")
_S_PACT = _col(SEAT_COLS, "pact_with")
# Rewritten together when a seat's races change / when its pact changes.
_S_RACES = _span(SEAT_COLS, "active_race", "active_powers", "declined_races", "spirit_decline")
_S_PACTS = _span(SEAT_COLS, "pact_with")
_S_FLAG_COLS = (_col(SEAT_COLS, "turn_seat"), _col(SEAT_COLS, "decider"))   # one-hots over the seats
_S_BIT_COLS = (_col(SEAT_COLS, "attacked"), _col(SEAT_COLS, "converted"))   # bit s of a State bitmask
_S_TURN, _S_DECIDER = _S_FLAG_COLS
_S_RACES_ZERO = memoryview(np.zeros(_S_RACES.stop - _S_RACES.start, dtype=np.float32))  # slice-assigned
_S_ATTACKED, _S_CONVERTED = _S_BIT_COLS

# ---- combo rows
_C_PRESENT = _col(COMBO_COLS, "present")
_C_RACE = _col(COMBO_COLS, "race")
_C_POWER = _col(COMBO_COLS, "power")
_C_COINS = _col(COMBO_COLS, "coins")
_C_TOKENS = _col(COMBO_COLS, "tokens")
_COMBO_ZERO = memoryview(np.zeros(COLUMN_SLOTS * COMBO_W, dtype=np.float32))  # slice-assigned

# ---- necro badges: powers in use, reserve slots and drawn slots are one contiguous run
_N_BADGES = slice(_N["powers_in_use"], _N["drawn_powers"] + DRAW_SLOTS * NUM_POWERS)
_N_RESERVE_AT = _N["reserve_powers"] - _N["powers_in_use"]   # inside the badge run
_N_DRAWN_AT = _N["drawn_powers"] - _N["powers_in_use"]
if _N["reserve_powers"] != _N["powers_in_use"] + NUM_POWERS or \
        _N["drawn_powers"] != _N["reserve_powers"] + RESERVE_SLOTS * NUM_POWERS:
    raise ImportError("necro features powers_in_use, reserve_powers, drawn_powers must be contiguous")

# ---- the canonical vector (see ``Observer``): the observation layout in absolute seat order
# + a constant 0, a constant 1 and the one-hot of the seat deciding outside its turn.
_ZERO = OBS_SIZE
_ONE = OBS_SIZE + 1
_DEFENDER = OBS_SIZE + 2
# The conquest columns (cost, reachable, affordable) of the regions live in a run of their own at the
# end, 3 entries per region, so that one slice assignment rewrites all of them; every index array
# (and ``state_vector``'s) maps the region_learn rows' columns there.
_CONQ0 = _DEFENDER + MAX_SEATS
_CANON_SIZE = _CONQ0 + 3 * R
_CONQ_OBS = np.array([_RL0 + r * RL_W + c for r in range(R) for c in (_L_COST, _L_REACHABLE, _L_AFFORDABLE)],
                     dtype=np.intp)   # observation positions of the run's entries, in its order


def _canonical_index() -> np.ndarray:
    """Index into the canonical vector for each entry of ``state_vector`` (the identity but for the
    conquest columns); the viewers' index arrays start from it."""
    perm = np.arange(OBS_SIZE, dtype=np.intp)
    perm[_CONQ_OBS] = np.arange(_CONQ0, _CONQ0 + 3 * R)
    return perm


_CONQ_ROW_BYTES = 3 * 4
_NOT_REACHABLE = bytes(_CONQ_ROW_BYTES)


def _conquest_row(cost: int, affordable: bool) -> bytes:
    """The float32 bytes of one region's (cost, reachable, affordable) for a reachable region."""
    return struct.pack("3f", cost * _SC_COST, 1.0, 1.0 if affordable else 0.0)


_CONQ_ROWS = [(_conquest_row(c, False), _conquest_row(c, True)) for c in range(256)]   # [cost][affordable]

# ---- glob features: ``Observer._update_glob`` writes each from one State value (or two), one by one.
# ``defender`` is the canonical-only one-hot behind the viewer's ``defending`` flag.
_G_PHASE, _G_STARTED, _G_CUR_RACE, _G_DEFEND_RACE, _G_BERSERK_ROLL = (
    _G[f] for f in ("phase_onehot", "started", "cur_race", "defend_race", "berserk_roll"))
_G_TURN, _G_DECIDER = _G["turn_seat_rel"], _G["decider_rel"]
_G_PLACED, _G_NONEMPTY, _G_OVER = _G["placed"], _G["nonempty"], _G["over"]
_G_ROUND_FRAC, _G_LAST_ROUND, _G_ROUNDS_LEFT = _G["round_frac"], _G["last_round"], _G["rounds_left"]
_G_RACES_IN_DECK, _G_POWERS_IN_DECK = _G["races_in_deck"], _G["powers_in_deck"]
_G_BERSERK_PENDING, _G_DIE_ROLLED, _G_LAST_DIE = _G["berserk_pending"], _G["die_rolled"], _G["last_die"]
_G_HOLD, _G_GHOUL_SEGMENT, _G_PICKED = _G["hold"], _G["ghoul_segment"], _G["picked"]
_G_DRAGON_USED, _G_FORT_USED, _G_HERO_POOL = _G["dragon_used"], _G["fort_used"], _G["hero_pool"]
_G_ENCAMP_POOL, _G_HOLES_PLACED, _G_AMAZON_HELD = _G["encamp_pool"], _G["holes_placed"], _G["amazon_held"]
_SC_NONEMPTY, _SC_ROUNDS_LEFT = _SC["glob.nonempty"], _SC["glob.rounds_left"]
_SC_RACES_IN_DECK, _SC_POWERS_IN_DECK = _SC["glob.races_in_deck"], _SC["glob.powers_in_deck"]
_SC_LAST_DIE, _SC_HOLD, _SC_HERO_POOL = _SC["glob.last_die"], _SC["glob.hold"], _SC["glob.hero_pool"]
_SC_ENCAMP_POOL, _SC_HOLES_PLACED, _SC_AMAZON_HELD = (
    _SC["glob.encamp_pool"], _SC["glob.holes_placed"], _SC["glob.amazon_held"])
# The glob features ``_update_glob`` writes; the others are constant per game (the template), per
# viewer (the index arrays) or written on every call (acting_hand).
_GLOB_UPDATED = {
    "phase_onehot", "started", "turn_seat_rel", "decider_rel", "cur_race", "placed", "nonempty", "round_frac",
    "last_round", "rounds_left", "races_in_deck", "powers_in_deck", "over", "berserk_roll", "berserk_pending",
    "die_rolled", "last_die", "defend_race", "hold", "ghoul_segment", "picked", "dragon_used", "fort_used",
    "hero_pool", "encamp_pool", "holes_placed", "amazon_held",
}
_GLOB_ELSEWHERE = {"game_turns", "seats_onehot", "board_onehot", "victory_anytime", "own_turn", "viewer_decides",
                   "defending", "turn_order", "acting_hand"}
_unwritten = {f for f, _ in _GLOB_FEATURES} - _GLOB_ELSEWHERE - _GLOB_UPDATED
if _unwritten:
    raise ImportError(f"glob features {sorted(_unwritten)} are written nowhere (add them to _update_glob)")

# ---- necro counts (rewritten together by ``Observer._write_necro_counts``)
(_N_RESERVE, _N_ISLAND, _N_WELL_GHOSTS, _N_WELL_OTHERS, _N_SOULS, _N_IN_PLAY, _N_PRICE, _N_AFFORDABLE,
 _N_BOUGHT_GHOSTS, _N_BOUGHT_POWERS, _N_POWERS_LEFT, _N_REMOVED, _N_RETURNABLE) = (
    _N[f] for f in ("reserve", "island", "well_ghosts", "well_others", "souls", "ghosts_in_play", "price",
                    "affordable_purchases", "bought_ghosts", "bought_powers", "reserve_powers_left",
                    "ghosts_removed", "island_returnable"))
(_SC_RESERVE, _SC_ISLAND, _SC_WELL_GHOSTS, _SC_WELL_OTHERS, _SC_SOULS, _SC_IN_PLAY, _SC_PRICE, _SC_AFFORDABLE,
 _SC_BOUGHT_GHOSTS, _SC_BOUGHT_POWERS, _SC_POWERS_LEFT, _SC_REMOVED, _SC_RETURNABLE) = (
    _SC[f"necro.{f}"] for f in ("reserve", "island", "well_ghosts", "well_others", "souls", "ghosts_in_play", "price",
                                "affordable_purchases", "bought_ghosts", "bought_powers", "reserve_powers_left",
                                "ghosts_removed", "island_returnable"))
_GHOST_BIT = 1 << GHOST

_POW2 = tuple(1 << i for i in range(max(MAX_REGIONS, NUM_OCCUPANTS, MAX_SEATS)))


def _sync_regions(new: list[int], old: list[int], hint: int) -> tuple[int, int]:
    """``_sync`` for the per-occupant region bitsets: (the occupants whose bitset changed, the union of
    the regions that left or joined a bitset)."""
    m = moved = 0
    for i in _bits(hint):
        v, o = new[i], old[i]
        if v != o:
            old[i] = v
            m |= 1 << i
            moved |= v ^ o
    if old != new:
        for i in compress(range(len(new)), map(ne, new, old)):
            v, o = new[i], old[i]
            old[i] = v
            m |= 1 << i
            moved |= v ^ o
    return m, moved


_BIT = [1 << x for x in range(NUM_OCCUPANTS)] + [0]   # occupant -> its bit; index -1 (none) -> 0


def _one_hot(vec, pos: int, old: int, new: int) -> None:
    """Move the 1 of the one-hot at ``pos`` from index ``old`` to ``new`` (-1: none)."""
    if old >= 0:
        vec[pos + old] = 0.0
    if new >= 0:
        vec[pos + new] = 1.0


def _seat_flag(rows, col: int, old: int, new: int) -> None:
    """Move a flag held by one seat (column ``col`` of the seat rows ``rows``) from seat ``old`` to ``new`` (-1: none)."""
    if old >= 0:
        rows[old][col] = 0.0
    if new >= 0:
        rows[new][col] = 1.0


def _changed(new: list | tuple, old: list | tuple) -> list[int]:
    """Indices where two equally long sequences differ (C-level scan)."""
    return list(compress(range(len(new)), map(ne, new, old)))


def _sync(new: list, old: list, hint: int) -> int:
    """Copy ``new`` into ``old`` (our copy, as long) in place and return the bitset of the indices that
    changed. The indices of the bitset ``hint`` (where the caller expects the changes) are checked
    first and one list comparison tells whether they were all: the common case, a region or two
    changing in a 48-entry list, then costs a few compares instead of a full scan."""
    m = 0
    for i in _bits(hint):
        v = new[i]
        if v != old[i]:
            old[i] = v
            m |= 1 << i
    if old != new:
        for i in compress(range(len(new)), map(ne, new, old)):
            old[i] = new[i]
            m |= 1 << i
    return m


class _Shown:
    """What an Observer's canonical vector shows: the State values it was written from (copies of the
    lists). ``Observer._update`` compares a State with them and rewrites what differs; the initial
    values (None, or -1 for a one-hot: the template shows none) make the first call write everything."""

    __slots__ = (
        # regions
        "race_owner", "race_status", "occ", "tok", "markers", "dragon",
        # per occupant (shared by the blocks)
        "hand", "tray", "race_power", "regions",
        # seats
        "active", "decl", "decl_spirit", "coins", "pact", "seat_turn", "seat_decider", "attacked", "converted",
        # combo column
        "col_race", "col_power", "col_coins",
        # necro
        "necro_in_use", "necro_reserve", "necro_draw", "cur_race", "ready_taken", "island_cap", "necro_counts",
        "well",
        # glob
        "phase", "started", "glob_cur_race", "placed", "nonempty", "turn_seat", "decider", "over", "glob_turn",
        "glob_decider", "glob_defender", "glob_cold",
    )
    _ONE_HOTS = ("seat_turn", "seat_decider", "phase", "started", "glob_cur_race", "glob_turn", "glob_decider",
                 "glob_defender")

    def __init__(self) -> None:
        for name in self.__slots__:
            setattr(self, name, None)
        for name in self._ONE_HOTS:
            setattr(self, name, -1)
        self.markers = (None,) * len(_MARKER_FIELDS)
        self.dragon = -2
        self.attacked = self.converted = 0   # the template's attacked/converted bits are all 0
        # ``Observer._update_glob``'s cold tuple: berserk and defend_race are one-hots
        self.glob_cold = (None, None, None, -1, None, -1) + (None,) * 9


class Observer:
    """Fills observation vectors for one ``Game`` (one board, one seat count).

    hide_coins: show only the viewer's own coins (others read 0, ``coins_visible`` 0). It is the
    game's ``GameConfig.hide_coins`` (its one home: under it the engine also keeps coins out of the
    turn flow, so an observer cannot hide coins the game does not); the argument is accepted as
    None (default) or that same value, and a contradicting value raises ``ConfigError``.
    hide_necro_reserve: hide the Necromancer's reserve and drawn badges from the players
    (default True); he always sees his own.

    How it is fast: the Observer keeps one *canonical* vector (absolute seat order,
    nothing hidden, plus a constant 0, a constant 1, a few helper entries and the
    conquest columns in a run of their own) and, in a ``_Shown``, copies of the State
    values it was written from. A call updates only what changed since the previous
    call: the per-occupant lists (hand, tray, powers, regions) are synced once into
    bitsets of the occupants that changed, which the blocks share; the 48-entry region
    lists are checked first where a change is expected (regions that changed hands, the
    regions of a race whose hand changed) and scanned whole only if that was not all;
    each block then compares its State values with the snapshot (C-level list and tuple
    comparisons; one action changes little) and rewrites what differs, single entries
    through a memoryview and the conquest columns with one bytes slice. It then gathers
    the viewer's observation with one ``numpy.take`` through a precomputed index array
    per viewer. The index array does everything viewer-specific: it rotates seat slots,
    owner and pact one-hots and the turn/decider one-hots to the viewer's seat, and
    points hidden entries (others' coins under ``hide_coins``, the reserve badges) at
    the constant 0 (``state_vector`` gathers through one too, for the conquest columns).

    Adding a feature: give it a column (``*_COLS``) or a flat entry (``_NECRO_FEATURES``,
    ``_GLOB_FEATURES``) and a divisor in ``SCALES``, write it in the block's ``_update_*``
    method by name (with a snapshot of its State value in ``_Shown``), and describe it in
    ``tests/reference_observer.py`` (the slow encoder the test suite compares with this one
    on random games).
    """

    def __init__(self, game: Game, hide_coins: bool | None = None, hide_necro_reserve: bool = True) -> None:
        self.game = game
        if hide_coins is not None and bool(hide_coins) != game.config.hide_coins:
            raise ConfigError(f"Observer(hide_coins={short_repr(hide_coins)}) contradicts the game's "
                              f"GameConfig.hide_coins={game.config.hide_coins}: hide_coins is a game option, "
                              f"build the Game with GameConfig(hide_coins=...)")
        self.hide_necro_reserve = bool(hide_necro_reserve)
        self.n = game.num_seats
        self.nr = game.board.num_regions
        self.necro_seat = game.necro_seat
        self._template = self._build_template()
        self._game_turns = game.game_turns
        self._pickup = [[tokens_at_pickup(r, p) * _SC["combo.tokens"] for p in range(NUM_POWERS)]
                        for r in range(NUM_RACES)]
        self._perm = [self._index(v) for v in range(self.n)]
        self._state_perm = _canonical_index()
        self._reset_canon()

    def __reduce__(self):
        """Pickled (and deep-copied) as its arguments: everything else is a cache of what the canonical
        vector shows (numpy views and memoryviews of it, which do not pickle), rebuilt on first use."""
        return (Observer, (self.game, None, self.hide_necro_reserve))

    @property
    def hide_coins(self) -> bool:
        """``game.config.hide_coins`` (the observer keeps no copy)."""
        return self.game.config.hide_coins

    # ------------------------------------------------------------------ public
    def observe(self, st: State, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """The observation of ``seat`` (a fresh array, or ``out`` filled in place)."""
        if not 0 <= seat < self.n:
            raise ValueError(f"seat must be in 0..{self.n - 1}, got {seat!r}")
        self._update(st)
        if out is None:
            return self._canon.take(self._perm[seat])
        np.take(self._canon, self._perm[seat], out=out)
        return out

    def state_vector(self, st: State, out: np.ndarray | None = None) -> np.ndarray:
        """The centralised-critic view (absolute seats, coins and badges shown; no deck order, no generator)."""
        self._update(st)
        if out is None:
            return self._canon.take(self._state_perm)
        np.take(self._canon, self._state_perm, out=out)
        return out

    def graph(self, st: State, seat: int) -> dict[str, np.ndarray]:
        """The same information as ``observe`` shaped for graph neural networks.

        ``nodes``: float32 ``(R, RS_W + RD_W + RL_W)``, one row per region of this board: its
        ``region_static``, ``region`` and ``region_learn`` columns (see the tables above);
        ``edge_index``: int64 ``(2, 2E)``, every border in both directions (static per board);
        ``globals``: float32, the seat, combo, necro and glob blocks of the observation.
        """
        obs = self.observe(st, seat)
        r = self.nr
        nodes = np.concatenate([obs[_RS0:_RS0 + r * RS_W].reshape(r, RS_W),
                                obs[_RD0:_RD0 + r * RD_W].reshape(r, RD_W),
                                obs[_RL0:_RL0 + r * RL_W].reshape(r, RL_W)], axis=1)
        return {"nodes": nodes, "edge_index": self._edge_index, "globals": obs[_SEAT0:]}

    @property
    def _edge_index(self) -> np.ndarray:
        ei = getattr(self, "_edge_index_cache", None)
        if ei is None:
            e = np.asarray(self.game.board.edges, dtype=np.int64).T
            ei = self._edge_index_cache = np.concatenate([e, e[::-1]], axis=1)
            ei.setflags(write=False)
        return ei

    # ------------------------------------------------------------------ built once per Observer
    def _build_template(self) -> np.ndarray:
        """The canonical vector's constant part: the board, the seats present, the game's settings."""
        game, b, n = self.game, self.game.board, self.n
        t = np.zeros(_CANON_SIZE, dtype=np.float32)
        rs = t[_RS0:_RS0 + R * RS_W].reshape(R, RS_W)
        lake_nbrs = set(b.lake_neighbors)
        c = REGION_STATIC_COLS
        for r in range(self.nr):
            rs[r, _col(c, "exists")] = 1
            rs[r, _col(c, "terrain") + b.terrain[r]] = 1
            rs[r, _col(c, "mine")] = b.mine[r]
            rs[r, _col(c, "magic")] = b.magic[r]
            rs[r, _col(c, "cavern")] = b.cavern[r]
            rs[r, _col(c, "border")] = b.border[r]
            rs[r, _col(c, "first_conquest")] = b.first_conquest_ok[r]
            rs[r, _col(c, "coastal")] = b.coastal[r]
            rs[r, _col(c, "lake_neighbour")] = r in lake_nbrs
        t[_G["game_turns"]] = game.game_turns / SCALES["glob.game_turns"]
        t[_G["seats_onehot"] + n - 2] = 1
        t[_G["board_onehot"] + b.key - 2] = 1
        t[_G["victory_anytime"]] = game.config.victory_check == "anytime"
        t[_N["scenario"]] = game.necromancer
        t[_N["reserve_visible"]] = 1
        t[_ONE] = 1
        seats = t[_SEAT0:_SEAT0 + MAX_SEATS * SEAT_W].reshape(MAX_SEATS, SEAT_W)
        seats[:n, _S_PRESENT] = 1
        seats[:n, _S_COINS_VISIBLE] = 1  # the viewer's index array hides them
        if self.necro_seat >= 0:
            seats[self.necro_seat, _S_NECROMANCER] = 1
        return t

    def _index(self, v: int) -> np.ndarray:
        """Index into the canonical vector for each observation entry of viewer ``v``."""
        n, ns = self.n, self.necro_seat
        perm = _canonical_index()

        def seat_at(k: int) -> int | None:  # the absolute seat in relative slot k
            return (v + k) % n if k < n else None

        hidden_coins = (_S_COINS, _S_COINS_VISIBLE) if self.hide_coins else ()
        for r in range(R):
            base = _RD0 + r * RD_W + _col(REGION_COLS, "owner")
            for k in range(MAX_SEATS):
                s = seat_at(k)
                perm[base + k] = _ZERO if s is None else base + s
        for k in range(MAX_SEATS):
            s = seat_at(k)
            for c in range(SEAT_W):
                pos = _SEAT0 + k * SEAT_W + c
                if s is None:
                    perm[pos] = _ZERO
                    continue
                src = _SEAT0 + s * SEAT_W
                if _S_PACTS.start <= c < _S_PACTS.stop:
                    j = seat_at(c - _S_PACTS.start)
                    perm[pos] = _ZERO if j is None else src + _S_PACTS.start + j
                elif c in hidden_coins and k != 0:
                    perm[pos] = _ZERO
                else:
                    perm[pos] = src + c
        perm[_N["viewer_is_necromancer"]] = _ONE if v == ns else _ZERO
        if self.hide_coins and v != ns:  # it follows from his coins
            perm[_N["affordable_purchases"]] = _ZERO
        if v != ns and self.hide_necro_reserve:
            for name in ("reserve_powers", "drawn_powers", "reserve_visible"):
                s, w = OFFSETS[f"necro.{name}"]
                perm[s:s + w] = _ZERO
        for name in ("turn_seat_rel", "decider_rel"):
            s, w = OFFSETS[f"glob.{name}"]
            for j in range(w):
                a = seat_at(j)
                perm[s + j] = _ZERO if a is None else s + a
        s, w = OFFSETS["glob.turn_order"]
        for j in range(w):
            perm[s + j] = _ONE if j == v else _ZERO
        perm[_G["own_turn"]] = _G["turn_seat_rel"] + v
        perm[_G["viewer_decides"]] = _G["decider_rel"] + v
        perm[_G["defending"]] = _DEFENDER + v
        return perm

    # ------------------------------------------------------------------ the canonical vector
    def _reset_canon(self) -> None:
        self._canon = c = self._template.copy()
        # Scalar writes go through a memoryview of the same memory: about half the cost of a numpy
        # item assignment (the value is rounded to float32 alike).
        self._cm = memoryview(c)
        self._rd = c[_RD0:_RD0 + R * RD_W].reshape(R, RD_W)
        self._learn = c[_RL0:_RL0 + R * RL_W].reshape(R, RL_W)
        self._board_version = 0  # bumped whenever ownership, tokens, markers or the dragon change
        self._seat = c[_SEAT0:_SEAT0 + MAX_SEATS * SEAT_W].reshape(MAX_SEATS, SEAT_W)
        self._seat_mv = [memoryview(row) for row in self._seat]
        self._shown = _Shown()
        self._codes: list[int] = []
        self._codes_arr = None
        # Per occupant, the seats showing it: as their active race / as an in-decline race.
        self._active_seats: list[tuple[int, ...]] = []
        self._declined_seats: list[tuple[int, ...]] = []
        self._learn_key = None
        self._cb = self._cm.cast("B")   # the same memory as bytes, for the conquest columns' run
        self._conq_bytes = slice(_CONQ0 * 4, (_CONQ0 + 3 * self.nr) * 4)
        self._threat_dirty = -1   # regions whose threat must be rewritten (a bitset; -1: all)

    def _update(self, st: State) -> None:
        """Bring the canonical vector up to date with ``st`` (only what changed since the last call).

        Each block compares the State with ``self._shown`` (copies of what the canonical vector was
        written from; C-level list comparisons) and rewrites what differs. The per-occupant lists
        are synced once here into bitsets of the occupants whose entry changed (-1: all), which the
        blocks share."""
        sh = self._shown
        hand, tray, power, regions = st.hand, st.tray, st.race_power, st.regions
        if sh.hand is None:   # the first call
            sh.hand, sh.tray, sh.race_power, sh.regions = hand[:], tray[:], power[:], regions[:]
            hand_m = tray_m = power_m = regions_m = moved = -1
        else:
            acting = _BIT[st.cur_race] | _BIT[st.defend_race]   # where hands and regions usually change
            hand_m = 0 if hand == sh.hand else _sync(hand, sh.hand, acting)
            tray_m = 0 if tray == sh.tray else _sync(tray, sh.tray, acting)
            power_m = 0 if power == sh.race_power else _sync(power, sh.race_power, acting)
            if regions == sh.regions:
                regions_m = moved = 0
            else:
                regions_m, moved = _sync_regions(regions, sh.regions, acting)
        tok_changed = self._update_regions(st, sh, hand_m, moved)
        self._update_seats(st, sh, hand_m, tray_m, power_m, regions_m)
        self._update_learn(st)
        if st.col_race != sh.col_race or st.col_power != sh.col_power or st.col_coins != sh.col_coins:
            self._update_combo(st)
        if self.necro_seat >= 0:
            self._update_necro(st, sh, (hand_m | tray_m | power_m | regions_m) & _GHOST_BIT, tok_changed)
        self._update_glob(st, sh)

    # ---- region block
    def _owner_codes(self, st: State) -> list[int]:
        """Per occupant (index -1 = empty) its owner code, a row of ``_OWNER_TABLE``."""
        c = [_CODE_EMPTY] * (NUM_OCCUPANTS + 1)
        for x in range(NUM_OCCUPANTS):
            status = st.race_status[x]
            o = st.race_owner[x]
            if status == TRIBE:
                c[x] = _CODE_TRIBE
            elif o >= 0:
                if status == GHOSTLY:
                    c[x] = _CODE_GHOST + o
                elif status == ACTIVE:
                    c[x] = _CODE_ACTIVE + o
                elif status == DECLINED:
                    c[x] = _CODE_DECLINED + o
        return c

    def _update_regions(self, st: State, sh: "_Shown", hand_m: int, moved: int) -> int:
        """Ownership, tokens, markers and the dragon; returns the bitset of regions whose token
        count changed (-1: maybe all). ``hand_m``: the occupants whose hand changed; ``moved``: the
        regions that left or joined an occupant's bitset (``_update``); they tell where the changes
        probably are."""
        nr, rd = self.nr, self._rd
        # ownership columns (owner one-hot, Lost Tribe, Ghost, active, declined) from owner codes
        if st.race_owner != sh.race_owner or st.race_status != sh.race_status:
            self._codes = self._owner_codes(st)
            self._codes_arr = np.array(self._codes, dtype=np.intp)
            sh.race_owner = st.race_owner[:]
            sh.race_status = st.race_status[:]
            sh.occ = None   # every ownership row is rewritten below
        occ, shown = st.occ, sh.occ
        occ_changed = 0
        if shown is None or len(shown) != nr:
            rd[:nr, _R_OWNERSHIP] = _OWNER_TABLE[self._codes_arr[np.fromiter(occ, np.intp, nr)]]
            sh.occ = occ[:]
            occ_changed = -1
        elif occ != shown:
            # a region changes occupant when it leaves one occupant's bitset and joins another's
            occ_changed = _sync(occ, shown, moved if moved > 0 else 0)
            if occ_changed.bit_count() > 3:
                rd[:nr, _R_OWNERSHIP] = _OWNER_TABLE[self._codes_arr[np.fromiter(occ, np.intp, nr)]]
            else:
                codes, cm = self._codes, self._cm
                for r in _bits(occ_changed):
                    at = _RD0 + _R_OWNERSHIP.start + r * RD_W
                    cm[at:at + _OWNER_W] = _OWNER_ROWS[codes[occ[r]]]
        if occ_changed:
            self._board_version += 1
            self._threat_dirty = -1 if occ_changed < 0 or self._threat_dirty < 0 else self._threat_dirty | occ_changed
        # tokens: they change in a region or two per action, mostly where the occupancy changed or in
        # a region of a race whose hand changed (troops placed or lifted): those are checked first
        tok, shown = st.tok, sh.tok
        tok_changed = 0
        if shown is None:
            np.multiply(np.fromiter(tok, np.intp, nr), _SC_TOKENS, out=rd[:nr, _R_TOKENS], casting="unsafe")
            sh.tok = tok[:]
            tok_changed = -1
        elif tok != shown:
            # tokens change where the occupancy changed, or else in a region of a race whose hand changed
            # (troops placed or lifted)
            hint = occ_changed if occ_changed > 0 else 0
            if hand_m > 0:
                regions = st.regions
                for x in _bits(hand_m):
                    hint |= regions[x]
            tok_changed = _sync(tok, shown, hint)
            cm = self._cm
            for r in _bits(tok_changed):
                cm[_RD0 + _R_TOKENS + r * RD_W] = tok[r] * _SC_TOKENS
        if tok_changed:
            self._board_version += 1
        # markers (copies of the State lists) and the dragon
        markers = _markers_of(st)
        if markers != sh.markers:
            for col, lst, old in zip(_R_MARKERS, markers, sh.markers):
                if lst != old:
                    rd[:nr, col] = lst
            sh.markers = tuple(lst[:] for lst in markers)
            self._board_version += 1
        if st.dragon != sh.dragon:
            rd[:nr, _R_DRAGON] = 0.0
            if st.dragon >= 0:
                rd[st.dragon, _R_DRAGON] = 1.0
            sh.dragon = st.dragon
            self._board_version += 1
        return tok_changed

    # ---- region_learn block
    def _update_learn(self, st: State) -> None:
        """The threat to each region's occupant (rewritten when the board changed), and cost, reach and
        affordability for the race conquering now (recomputed when the board, that race's hand, powers,
        the immune regions or the pacts changed, and rewritten where they differ; all 0 outside the
        CONQUER and BERSERK phases)."""
        if self._threat_dirty:
            self._write_threat(st, self._threat_dirty)
            self._threat_dirty = 0
        ph = st.phase
        if ph != _CONQUER and ph != _BERSERK:
            if self._learn_key is not None:
                self._cb[self._conq_bytes] = bytes(len(self._cb[self._conq_bytes]))
                self._learn_key = None
            return
        race = st.cur_race
        hand = st.hand[race]
        key = (self._board_version, race, hand, st.race_power[race], st.immune, st.pact)
        if key == self._learn_key:
            return
        self._learn_key = key[:-1] + (st.pact[:],)
        regions, costs = self.game.conquest_options(st)
        rows, table = [_NOT_REACHABLE] * self.nr, _CONQ_ROWS
        try:
            for r, cost in zip(regions, costs):
                rows[r] = table[cost][cost <= hand]
        except IndexError:  # a cost above the table's
            for r, cost in zip(regions, costs):
                rows[r] = _conquest_row(cost, cost <= hand)
        self._cb[self._conq_bytes] = b"".join(rows)

    def _write_threat(self, st: State, dirty: int) -> None:
        """Rewrite the threat of the regions of the bitset ``dirty`` (their occupant changed; -1: all)
        and of their neighbours."""
        attack = attack_masks(st, self.n)
        every = reduce(or_, attack)
        enemy = [every & ~m for m in attack]   # index -1: no owner (empty, Lost Tribe): every attacker
        owner, occ, nbr, value = st.race_owner, st.occ, self.game.nbr, _THREAT_VALUES
        if dirty == -1:
            threat = [(nb & enemy[owner[x] if x >= 0 else -1]).bit_count() for nb, x in zip(nbr, occ)]
            np.multiply(threat, _SC_THREAT, out=self._learn[:self.nr, _L_THREAT], casting="unsafe")
            return
        near = dirty
        for r in _bits(dirty):
            near |= nbr[r]
        c = self._cm
        for r in _bits(near):
            x = occ[r]
            c[_THREAT_AT[r]] = value[(nbr[r] & enemy[owner[x] if x >= 0 else -1]).bit_count()]

    # ---- seat block
    def _update_seats(self, st: State, sh: "_Shown", hand_m: int, tray_m: int, power_m: int,
                      regions_m: int) -> None:
        """Per seat its races, powers, pact, coins and counts; whose turn / decision; attacked, converted.
        The ``*_m`` bitsets: the occupants whose hand, tray, powers, regions changed (``_update``)."""
        active, decl, decl_spirit = st.active, st.decl, st.decl_spirit
        mvs = self._seat_mv
        if hand_m < 0 or tray_m < 0 or power_m < 0 or regions_m < 0 or sh.active is None:
            moved = range(self.n)   # the first call: every seat
        elif active != sh.active or decl != sh.decl or decl_spirit != sh.decl_spirit:
            # races changed seats (a pick, a decline): those seats are rewritten
            moved = {*_changed(active, sh.active), *_changed(decl, sh.decl), *_changed(decl_spirit, sh.decl_spirit)}
        else:
            moved = ()
        if moved:
            self._map_seats(active, decl, decl_spirit)
            sh.active, sh.decl, sh.decl_spirit = active[:], decl[:], decl_spirit[:]
            for s in moved:
                self._write_seat_races(st, s)
                self._write_seat_counts(st, s)
            if type(moved) is range:
                hand_m = tray_m = power_m = regions_m = 0   # all written
        if power_m:
            for x in _bits(power_m):
                for s in self._active_seats[x]:
                    self._write_seat_races(st, s)
        if hand_m:
            hand = st.hand
            for x in _bits(hand_m):
                for s in self._active_seats[x]:
                    mvs[s][_S_HAND] = hand[x] * _SC_HAND
        if tray_m:
            tray = st.tray
            for x in _bits(tray_m):
                for s in self._active_seats[x]:
                    mvs[s][_S_TRAY] = tray[x] * _SC_TRAY
        if regions_m:
            regions = st.regions
            for x in _bits(regions_m):
                for s in self._active_seats[x]:
                    mvs[s][_S_ACTIVE_REGIONS] = regions[x].bit_count() * _SC_ACTIVE_REGIONS
                for s in self._declined_seats[x]:
                    self._write_seat_counts(st, s)
        coins = st.coins
        if coins != sh.coins:
            for s in (range(self.n) if sh.coins is None else _changed(coins, sh.coins)):
                mvs[s][_S_COINS] = coins[s] * _SC_COINS
            sh.coins = coins[:]
        pact = st.pact
        if pact != sh.pact:
            old = sh.pact or [-1] * self.n
            for s in _changed(pact, old):
                _one_hot(mvs[s], _S_PACT, old[s], pact[s])
            sh.pact = pact[:]
        over = st.over
        turn = -1 if over else st.turn_seat
        if turn != sh.seat_turn:
            _seat_flag(mvs, _S_TURN, sh.seat_turn, turn)
            sh.seat_turn = turn
        decider = -1 if over else st.decider
        if decider != sh.seat_decider:
            _seat_flag(mvs, _S_DECIDER, sh.seat_decider, decider)
            sh.seat_decider = decider
        v = st.attacked
        if v != sh.attacked:
            for s in _bits(v ^ sh.attacked):
                mvs[s][_S_ATTACKED] = (v >> s) & 1
            sh.attacked = v
        v = st.converted
        if v != sh.converted:
            for s in _bits(v ^ sh.converted):
                mvs[s][_S_CONVERTED] = (v >> s) & 1
            sh.converted = v

    def _map_seats(self, active: list[int], decl: list[int], decl_spirit: list[int]) -> None:
        """Per occupant, the seats showing it as their active race / as an in-decline race."""
        act: list[tuple[int, ...]] = [()] * NUM_OCCUPANTS
        dec: list[tuple[int, ...]] = [()] * NUM_OCCUPANTS
        for s in range(self.n):
            a, d, ds = active[s], decl[s], decl_spirit[s]
            if a >= 0:
                act[a] += (s,)
            if d >= 0:
                dec[d] += (s,)
            if ds >= 0 and ds != d:
                dec[ds] += (s,)
        self._active_seats, self._declined_seats = act, dec

    def _write_seat_races(self, st: State, s: int) -> None:
        """Seat ``s``'s active race, its powers, its in-decline races and the Spirit flag."""
        a, d, ds = st.active[s], st.decl[s], st.decl_spirit[s]
        mv = self._seat_mv[s]
        mv[_S_RACES] = _S_RACES_ZERO
        if a >= 0:
            if a < NUM_RACES:  # the Necromancer's Ghosts are no race of the one-hot
                mv[_S_ACTIVE_RACE + a] = 1.0
            for p in _bits(st.race_power[a]):
                mv[_S_ACTIVE_POWERS + p] = 1.0
        if d >= 0:
            mv[_S_DECLINED_RACES + d] = 1.0
        if ds >= 0:
            mv[_S_DECLINED_RACES + ds] = 1.0
            mv[_S_SPIRIT] = 1.0

    def _write_seat_counts(self, st: State, s: int) -> None:
        """Seat ``s``'s tokens in hand and in the box and its regions (active race, in-decline races)."""
        a, d, ds = st.active[s], st.decl[s], st.decl_spirit[s]
        regions, mv = st.regions, self._seat_mv[s]
        declined = (regions[d] if d >= 0 else 0) | (regions[ds] if ds >= 0 else 0)
        mv[_S_DECLINED_REGIONS] = declined.bit_count() * _SC_DECLINED_REGIONS
        if a >= 0:
            mv[_S_HAND] = st.hand[a] * _SC_HAND
            mv[_S_TRAY] = st.tray[a] * _SC_TRAY
            mv[_S_ACTIVE_REGIONS] = regions[a].bit_count() * _SC_ACTIVE_REGIONS
        else:
            mv[_S_HAND] = mv[_S_TRAY] = mv[_S_ACTIVE_REGIONS] = 0.0

    # ---- combo block
    def _update_combo(self, st: State) -> None:
        """The visible combos of the column: race, power, coins on it, tokens it gives."""
        c = self._cm
        c[_COMBO0:_COMBO0 + COLUMN_SLOTS * COMBO_W] = _COMBO_ZERO
        for j, (race, power, coins) in enumerate(zip(st.col_race, st.col_power, st.col_coins)):
            at = _COMBO0 + j * COMBO_W
            c[at + _C_PRESENT] = 1.0
            c[at + _C_RACE + race] = 1.0
            c[at + _C_POWER + power] = 1.0
            c[at + _C_COINS] = coins * _SC["combo.coins"]
            c[at + _C_TOKENS] = self._pickup[race][power]
        sh = self._shown
        sh.col_race, sh.col_power, sh.col_coins = st.col_race[:], st.col_power[:], st.col_coins[:]

    # ---- necro block
    def _update_necro(self, st: State, sh: "_Shown", ghost_changed: int, tok_changed: int) -> None:
        """The Necromancer's counts and his power badges. The Well's two counts are rewritten when the Well
        changes, the other counts together when one of them changes. ``ghost_changed``: the Ghosts' hand,
        tray, powers or regions changed."""
        if (st.race_power[GHOST] != sh.necro_in_use or st.necro_reserve != sh.necro_reserve
                or st.necro_draw != sh.necro_draw):
            self._write_necro_badges(st.race_power[GHOST], st.necro_reserve, st.necro_draw)
            sh.necro_in_use = st.race_power[GHOST]
            sh.necro_reserve, sh.necro_draw = st.necro_reserve[:], st.necro_draw[:]
            ghost_changed = 1
        well = st.well
        if well != sh.well:
            c = self._cm
            c[_N_WELL_GHOSTS] = well[GHOST] * _SC_WELL_GHOSTS
            c[_N_WELL_OTHERS] = (sum(well) - well[GHOST]) * _SC_WELL_OTHERS
            sh.well = well[:]
        if st.cur_race != sh.cur_race or st.ready_taken != sh.ready_taken:
            sh.cur_race, sh.ready_taken = st.cur_race, st.ready_taken[:]
            cap = self.game.island_cap(st)   # it depends on these two
            if cap != sh.island_cap:
                sh.island_cap = cap
                ghost_changed = 1
        counts = (st.island, st.souls, st.bought_ghosts, st.bought_powers, st.ghosts_removed,
                  st.coins[self.necro_seat])
        if ghost_changed or counts != sh.necro_counts or (tok_changed & st.regions[GHOST]):
            self._write_necro_counts(st)
            sh.necro_counts = counts

    def _write_necro_counts(self, st: State) -> None:
        """Every necro count but the Well's."""
        c = self._cm
        island, tok = st.island, st.tok
        in_play = island + sum([tok[r] for r in _bits(st.regions[GHOST])])
        returnable = self._shown.island_cap - island
        c[_N_RESERVE] = st.tray[GHOST] * _SC_RESERVE
        c[_N_ISLAND] = island * _SC_ISLAND
        c[_N_SOULS] = st.souls * _SC_SOULS
        c[_N_IN_PLAY] = in_play * _SC_IN_PLAY
        price = st.race_power[GHOST].bit_count() + in_play + st.hand[GHOST]
        c[_N_PRICE] = price * _SC_PRICE
        c[_N_AFFORDABLE] = affordable_purchases(st.coins[self.necro_seat], price) * _SC_AFFORDABLE
        c[_N_BOUGHT_GHOSTS] = st.bought_ghosts * _SC_BOUGHT_GHOSTS
        c[_N_BOUGHT_POWERS] = st.bought_powers * _SC_BOUGHT_POWERS
        c[_N_POWERS_LEFT] = (len(st.necro_reserve) - st.necro_reserve.count(-1)) * _SC_POWERS_LEFT
        c[_N_REMOVED] = st.ghosts_removed * _SC_REMOVED
        c[_N_RETURNABLE] = (returnable if returnable > 0 else 0) * _SC_RETURNABLE

    def _write_necro_badges(self, in_use: int, reserve: list[int], drawn: list[int]) -> None:
        blk = self._canon[_N_BADGES]
        blk[:] = 0.0
        for p in _bits(in_use):
            blk[p] = 1.0
        for k, p in enumerate(reserve):
            if p >= 0:
                blk[_N_RESERVE_AT + k * NUM_POWERS + p] = 1.0
        for k, p in enumerate(drawn):
            blk[_N_DRAWN_AT + k * NUM_POWERS + p] = 1.0

    # ---- glob block
    def _update_glob(self, st: State, sh: "_Shown") -> None:
        """Turn, phase, the pending decision and the per-turn counters: each feature compared with what it
        shows and rewritten when it differs (one-hots move their 1)."""
        m = self._cm
        ph = st.phase
        acting = st.defend_race if ph == _DEFEND else st.cur_race
        m[_G_ACTING_HAND] = st.hand[acting] * _SC_ACTING_HAND if acting >= 0 else 0.0  # changes nearly every call
        if ph != sh.phase:
            _one_hot(m, _G_PHASE, sh.phase, ph)
            sh.phase = ph
        v = st.started
        if v != sh.started:
            _one_hot(m, _G_STARTED, sh.started, v)
            sh.started = v
        v = st.cur_race
        if v != sh.glob_cur_race:
            _one_hot(m, _G_CUR_RACE, sh.glob_cur_race, v)
            sh.glob_cur_race = v
        v = st.placed
        if v != sh.placed:
            m[_G_PLACED] = v * 1.0
            sh.placed = v
        v = st.nonempty
        if v != sh.nonempty:
            m[_G_NONEMPTY] = v * _SC_NONEMPTY
            sh.nonempty = v
        over, turn, decider = st.over, st.turn_seat, st.decider
        if turn != sh.turn_seat or decider != sh.decider or over != sh.over:
            self._write_turn(over, turn, decider)
        # the rest changes a few times a turn: one tuple comparison, then feature by feature
        cold = (st.round, len(st.race_deck), len(st.power_deck) + len(st.power_discard), st.berserk, st.last_die,
                st.defend_race, st.hold, st.segment, st.picked, st.dragon_used, st.fort_used, st.hero_pool,
                st.encamp_pool, st.holes_placed, st.amazon_held)
        if cold != sh.glob_cold:
            self._write_glob_cold(cold, sh.glob_cold)
            sh.glob_cold = cold

    def _write_glob_cold(self, cold: tuple, old: tuple) -> None:
        """The glob features of ``_update_glob``'s ``cold`` tuple that differ from ``old``."""
        m = self._cm
        (rnd, races, powers, berserk, last_die, defend_race, hold, segment, picked, dragon_used, fort_used,
         hero_pool, encamp_pool, holes_placed, amazon_held) = cold
        (o_rnd, o_races, o_powers, o_berserk, o_last_die, o_defend_race, o_hold, o_segment, o_picked, o_dragon_used,
         o_fort_used, o_hero_pool, o_encamp_pool, o_holes_placed, o_amazon_held) = old
        if rnd != o_rnd:
            gt = self._game_turns
            m[_G_ROUND_FRAC] = rnd * (1 / gt)
            m[_G_LAST_ROUND] = (rnd >= gt) * 1.0
            m[_G_ROUNDS_LEFT] = max(0, gt - rnd) * _SC_ROUNDS_LEFT
        if races != o_races:
            m[_G_RACES_IN_DECK] = races * _SC_RACES_IN_DECK
        if powers != o_powers:
            m[_G_POWERS_IN_DECK] = powers * _SC_POWERS_IN_DECK
        if berserk != o_berserk:
            _one_hot(m, _G_BERSERK_ROLL, o_berserk, berserk)
            m[_G_BERSERK_PENDING] = (berserk >= 0) * 1.0
        if last_die != o_last_die:
            m[_G_DIE_ROLLED] = (last_die >= 0) * 1.0
            m[_G_LAST_DIE] = (last_die if last_die > 0 else 0) * _SC_LAST_DIE
        if defend_race != o_defend_race:
            _one_hot(m, _G_DEFEND_RACE, o_defend_race, defend_race)
        if hold != o_hold:
            m[_G_HOLD] = hold * _SC_HOLD
        if segment != o_segment:
            m[_G_GHOUL_SEGMENT] = (segment == GHOUL_SEGMENT) * 1.0
        if picked != o_picked:
            m[_G_PICKED] = picked * 1.0
        if dragon_used != o_dragon_used:
            m[_G_DRAGON_USED] = dragon_used * 1.0
        if fort_used != o_fort_used:
            m[_G_FORT_USED] = fort_used * 1.0
        if hero_pool != o_hero_pool:
            m[_G_HERO_POOL] = hero_pool * _SC_HERO_POOL
        if encamp_pool != o_encamp_pool:
            m[_G_ENCAMP_POOL] = encamp_pool * _SC_ENCAMP_POOL
        if holes_placed != o_holes_placed:
            m[_G_HOLES_PLACED] = holes_placed * _SC_HOLES_PLACED
        if amazon_held != o_amazon_held:
            m[_G_AMAZON_HELD] = amazon_held * _SC_AMAZON_HELD

    def _write_turn(self, over: int, turn: int, decider: int) -> None:
        """The game-over flag and the turn / decider / defender one-hots (none once the game is over)."""
        m, sh = self._cm, self._shown
        m[_G_OVER] = over * 1.0
        t, d = (-1, -1) if over else (turn, decider)
        defender = decider if (not over and decider != turn) else -1
        _one_hot(m, _G_TURN, sh.glob_turn, t)
        _one_hot(m, _G_DECIDER, sh.glob_decider, d)
        _one_hot(m, _DEFENDER, sh.glob_defender, defender)
        sh.glob_turn, sh.glob_decider, sh.glob_defender = t, d, defender
        sh.over, sh.turn_seat, sh.decider = over, turn, decider


def attack_masks(st: State, seats: int) -> list[int]:
    """Per seat, the regions from which it can attack: its active race (the Necromancer's Ghosts included)
    and its in-decline Ghouls. Index -1 (no owner) is an empty mask (the last entry)."""
    regions, active = st.regions, st.active
    if len(active) != seats:
        active = active[:seats]
    out = [regions[a] if a >= 0 else 0 for a in active]
    if GHOULS in st.decl or GHOULS in st.decl_spirit:
        for s in range(seats):
            if GHOULS in (st.decl[s], st.decl_spirit[s]):
                out[s] |= regions[GHOULS]
    out.append(0)
    return out


def affordable_purchases(coins: int, price: int) -> int:
    """How many purchases in a row ``coins`` pay when the first costs ``price`` (each next one 1 more), at most 10."""
    k = 0
    while k < 10 and coins >= price + k:
        coins -= price + k
        k += 1
    return k


def state_vector(game: Game, st: State) -> np.ndarray:
    """Convenience: ``Observer(game).state_vector(st)`` (builds an Observer; reuse one in loops)."""
    return Observer(game).state_vector(st)


__all__ = ["Observer", "OBS_SIZE", "OBS_HIGH", "OFFSETS", "MAX_SEATS", "REGION_STATIC_COLS", "REGION_COLS",
           "REGION_LEARN_COLS", "attack_masks", "affordable_purchases",
           "SEAT_COLS", "COMBO_COLS", "SCALES", "offsets_table", "features_table", "columns_table", "state_vector"]
