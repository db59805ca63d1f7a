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

Scales (so that typical values lie in 0..1): tokens /10, coins /50, hand and tray
/20, region counts /16, Ghost counts /14, purchase price /20. ``OBS_HIGH`` holds a
generous upper bound per entry (used by the env's ``Box``).

Layout. Blocks with rows (one row per region, seat slot or column slot) list the
columns of a row; ``OFFSETS`` gives ``(start, length)`` of every block and of every
flat feature; ``REGION_STATIC_COLS`` etc. give ``(column, width)`` inside a row.

    block            start  length  rows x cols
    region_static        0     720    48 x 15
    region             720     816    48 x 17
    seat              1536     402    6 x 67
    combo             1938     222    6 x 37
    necro             2160     255    flat
    glob              2415     100    flat
    OBS_SIZE = 2515

    region_static columns: exists 0, terrain one-hot 1-7 (farmland forest hill swamp
        mountain sea lake; the mountain's +1 defence is terrain 5th column), mine 8,
        magic 9, cavern 10, border 11, first_conquest 12, coastal 13, lake_neighbour 14
    region columns: owner relative seat one-hot 0-5, lost_tribe 6, ghost 7, active 8
        (an active race or the Ghosts), declined 9, tokens/10 10, lair 11, fortress 12,
        encampments 13 (count), hole 14, hero 15, dragon 16
    seat columns: present 0, necromancer 1, coins/50 2, coins_visible 3, hand/20 4
        (tokens in hand of the active race), tray/20 5 (its tokens left in the box),
        active_regions/16 6, declined_regions/16 7, active race one-hot 8-21, active
        powers multi-hot 22-41, declined races multi-hot 42-55, spirit_decline 56,
        pact_with one-hot 57-62 (Diplomat: the relative seat that may not attack this
        seat's active race), turn_seat 63, decider 64, attacked_this_turn 65,
        converted_this_turn 66
    combo columns: present 0, race one-hot 1-14, power one-hot 15-34, coins/5 35,
        tokens_at_pickup/20 36
    necro (flat, by name in OFFSETS): scenario, viewer_is_necromancer, reserve,
        island, well_ghosts, well_others, souls, ghosts_in_play, price (of his next
        purchase: powers in use + Ghosts on the map, the Island and in his hand),
        bought_ghosts, bought_powers, reserve_powers_left, ghosts_removed,
        island_returnable (Ghosts he may still put back on the Island this redeployment,
        RULES A14; 0 outside his turn), powers_in_use (20),
        reserve_powers (5 slots x 20 one-hot, hidden), drawn_powers (6 slots x 20
        one-hot, hidden), reserve_visible
    glob (flat): round_frac, last_round, game_turns, seats_onehot (5: 2..6 seats),
        board_onehot (4: boards 2..5), phase_onehot (9, ``Phase``), own_turn,
        viewer_decides, defending, turn_seat_rel (6), decider_rel (6), turn_order (6:
        one-hot of the viewer's place in the round, 0 = it starts the round; all 0 in
        ``state_vector``),
        berserk_pending, berserk_roll (4: 0..3), last_die, die_rolled, acting_hand,
        hold, ghoul_segment, started (3), picked, placed, dragon_used, fort_used,
        hero_pool, encamp_pool, nonempty, holes_placed, cur_race (16 occupants),
        defend_race (16), amazon_held, races_in_deck, powers_in_deck, over,
        victory_anytime

Flat features (name, start, length):

    necro.scenario               2160  1   necro.viewer_is_necromancer  2161  1
    necro.reserve                2162  1   necro.island                 2163  1
    necro.well_ghosts            2164  1   necro.well_others            2165  1
    necro.souls                  2166  1   necro.ghosts_in_play         2167  1
    necro.price                  2168  1   necro.bought_ghosts          2169  1
    necro.bought_powers          2170  1   necro.reserve_powers_left    2171  1
    necro.ghosts_removed         2172  1   necro.island_returnable      2173  1
    necro.powers_in_use          2174 20   necro.reserve_powers         2194 100
    necro.drawn_powers           2294 120   necro.reserve_visible        2414  1
    glob.round_frac              2415  1   glob.last_round              2416  1
    glob.game_turns              2417  1   glob.seats_onehot            2418  5
    glob.board_onehot            2423  4   glob.phase_onehot            2427  9
    glob.own_turn                2436  1   glob.viewer_decides          2437  1
    glob.defending               2438  1   glob.turn_seat_rel           2439  6
    glob.decider_rel             2445  6   glob.turn_order              2451  6
    glob.berserk_pending         2457  1   glob.berserk_roll            2458  4
    glob.last_die                2462  1   glob.die_rolled              2463  1
    glob.acting_hand             2464  1   glob.hold                    2465  1
    glob.ghoul_segment           2466  1   glob.started                 2467  3
    glob.picked                  2470  1   glob.placed                  2471  1
    glob.dragon_used             2472  1   glob.fort_used               2473  1
    glob.hero_pool               2474  1   glob.encamp_pool             2475  1
    glob.nonempty                2476  1   glob.holes_placed            2477  1
    glob.cur_race                2478 16   glob.defend_race             2494 16
    glob.amazon_held             2510  1   glob.races_in_deck           2511  1
    glob.powers_in_deck          2512  1   glob.over                    2513  1
    glob.victory_anytime         2514  1

"own_turn" = it is the viewer's turn; "viewer_decides" = the viewer must decide now;
"defending" = the viewer decides outside its turn (a defender placing survivors, or
the Necromancer placing returned Ghosts). "acting_hand" = tokens in hand of the race
that acts now (the defender's race while defending).
"""
from __future__ import annotations

from itertools import compress
from operator import ne

import numpy as np

from .game import Game, Phase, State
from .game.board import MAX_REGIONS
from .game.engine import bits as _bits
from .game.catalog import (
    GHOST, NUM_OCCUPANTS, NUM_POWERS, NUM_RACES, tokens_at_pickup,
)
from .game.state import ACTIVE, DECLINED, GHOSTLY, TRIBE

MAX_SEATS = 6
R = MAX_REGIONS
NUM_PHASES = len(Phase)

# ----------------------------------------------------------------- column tables
REGION_STATIC_COLS = {
    "exists": (0, 1), "terrain": (1, 7), "mine": (8, 1), "magic": (9, 1), "cavern": (10, 1),
    "border": (11, 1), "first_conquest": (12, 1), "coastal": (13, 1), "lake_neighbour": (14, 1),
}
RS_W = 15
REGION_COLS = {
    "owner": (0, 6), "lost_tribe": (6, 1), "ghost": (7, 1), "active": (8, 1), "declined": (9, 1),
    "tokens": (10, 1), "lair": (11, 1), "fortress": (12, 1), "encampments": (13, 1),
    "hole": (14, 1), "hero": (15, 1), "dragon": (16, 1),
}
RD_W = 17
SEAT_COLS = {
    "present": (0, 1), "necromancer": (1, 1), "coins": (2, 1), "coins_visible": (3, 1), "hand": (4, 1),
    "tray": (5, 1), "active_regions": (6, 1), "declined_regions": (7, 1), "active_race": (8, NUM_RACES),
    "active_powers": (22, NUM_POWERS), "declined_races": (42, NUM_RACES), "spirit_decline": (56, 1),
    "pact_with": (57, MAX_SEATS), "turn_seat": (63, 1), "decider": (64, 1), "attacked": (65, 1),
    "converted": (66, 1),
}
SEAT_W = 67
COMBO_COLS = {"present": (0, 1), "race": (1, NUM_RACES), "power": (15, NUM_POWERS), "coins": (35, 1),
              "tokens": (36, 1)}
COMBO_W = 37
COLUMN_SLOTS = 6

# One power one-hot per reserve slot / drawn slot, so BUY_POWER k and NECRO_START k can be
# told apart by a policy (a plain multi-hot would hide which slot holds which power).
RESERVE_SLOTS = 5
DRAW_SLOTS = 6
_NECRO_FEATURES = (
    ("scenario", 1), ("viewer_is_necromancer", 1), ("reserve", 1), ("island", 1), ("well_ghosts", 1),
    ("well_others", 1), ("souls", 1), ("ghosts_in_play", 1), ("price", 1), ("bought_ghosts", 1),
    ("bought_powers", 1), ("reserve_powers_left", 1), ("ghosts_removed", 1), ("island_returnable", 1),
    ("powers_in_use", NUM_POWERS), ("reserve_powers", RESERVE_SLOTS * NUM_POWERS),
    ("drawn_powers", DRAW_SLOTS * NUM_POWERS), ("reserve_visible", 1),
)
_GLOB_FEATURES = (
    ("round_frac", 1), ("last_round", 1), ("game_turns", 1), ("seats_onehot", 5), ("board_onehot", 4),
    ("phase_onehot", NUM_PHASES), ("own_turn", 1), ("viewer_decides", 1), ("defending", 1),
    ("turn_seat_rel", MAX_SEATS), ("decider_rel", MAX_SEATS), ("turn_order", MAX_SEATS),
    ("berserk_pending", 1), ("berserk_roll", 4),
    ("last_die", 1), ("die_rolled", 1), ("acting_hand", 1), ("hold", 1), ("ghoul_segment", 1),
    ("started", 3), ("picked", 1), ("placed", 1), ("dragon_used", 1), ("fort_used", 1), ("hero_pool", 1),
    ("encamp_pool", 1), ("nonempty", 1), ("holes_placed", 1), ("cur_race", NUM_OCCUPANTS),
    ("defend_race", NUM_OCCUPANTS), ("amazon_held", 1), ("races_in_deck", 1), ("powers_in_deck", 1),
    ("over", 1), ("victory_anytime", 1),
)


def _build_offsets() -> tuple[dict[str, tuple[int, int]], int]:
    offsets: dict[str, tuple[int, int]] = {}
    o = 0
    for name, size in (("region_static", R * RS_W), ("region", R * RD_W), ("seat", MAX_SEATS * SEAT_W),
                       ("combo", COLUMN_SLOTS * COMBO_W)):
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


def offsets_table() -> str:
    """The block table of the module docstring, generated from ``OFFSETS``."""
    rows = {"region_static": f"{R} x {RS_W}", "region": f"{R} x {RD_W}", "seat": f"{MAX_SEATS} x {SEAT_W}",
            "combo": f"{COLUMN_SLOTS} x {COMBO_W}", "necro": "flat", "glob": "flat"}
    lines = ["block            start  length  rows x cols"]
    for name, shape in rows.items():
        s, n = OFFSETS[name]
        lines.append(f"{name:<16}{s:>6}  {n:>6}    {shape}")
    return "\n".join(lines)


def features_table() -> str:
    """Every flat feature of the necro and glob blocks with its offset (``OFFSETS`` entries)."""
    lines = []
    for block in ("necro", "glob"):
        items = [(k, v) for k, v in OFFSETS.items() if k.startswith(block + ".")]
        cells = [f"{k:<28}{s:>5} {n:>2}" for k, (s, n) in items]
        for i in range(0, len(cells), 2):
            lines.append("   ".join(cells[i:i + 2]).rstrip())
    return "\n".join(lines)


def _build_high() -> np.ndarray:
    """Generous per-entry upper bounds (all features are >= 0)."""
    high = np.ones(OBS_SIZE, dtype=np.float32)

    def rows(block: str, width: int, cols: dict, name: str, value: float) -> None:
        s, n = OFFSETS[block]
        c, w = cols[name]
        view = high[s:s + n].reshape(-1, width)
        view[:, c:c + w] = value

    rows("region", RD_W, REGION_COLS, "tokens", 5.0)        # 50 tokens
    rows("region", RD_W, REGION_COLS, "encampments", 5.0)
    rows("seat", SEAT_W, SEAT_COLS, "coins", 100.0)         # 5000 coins
    for name in ("hand", "tray", "active_regions", "declined_regions"):
        rows("seat", SEAT_W, SEAT_COLS, name, 5.0)
    rows("combo", COMBO_W, COMBO_COLS, "coins", 10.0)       # 50 coins on one combo
    for name in ("reserve", "island", "well_ghosts", "well_others", "souls", "ghosts_in_play", "price",
                 "bought_ghosts", "bought_powers", "ghosts_removed", "reserve_powers_left"):
        s, n = OFFSETS[f"necro.{name}"]
        high[s:s + n] = 10.0
    for name in ("game_turns", "acting_hand", "hold", "hero_pool", "encamp_pool", "nonempty",
                 "holes_placed", "amazon_held", "races_in_deck", "powers_in_deck"):
        s, n = OFFSETS[f"glob.{name}"]
        high[s:s + n] = 10.0
    return high


OBS_HIGH = _build_high()

# Flat positions used on the hot path.
_RS0 = OFFSETS["region_static"][0]
_RD0 = OFFSETS["region"][0]
_GLOBALS0 = OFFSETS["seat"][0]
_SEAT0 = OFFSETS["seat"][0]
_COMBO0 = OFFSETS["combo"][0]
_NECRO0 = OFFSETS["necro"][0]
_GLOB0 = OFFSETS["glob"][0]
_DEFEND = int(Phase.DEFEND)


_N = {name: OFFSETS[f"necro.{name}"][0] for name, _ in _NECRO_FEATURES}
_N_POWERS, _N_RESERVE, _N_DRAWN = (_N[k] - OFFSETS["necro"][0]
                                   for k in ("powers_in_use", "reserve_powers", "drawn_powers"))
# The scalars sit in one contiguous run, in this order: one slice write updates them all.
_N_SCALAR_ORDER = ("reserve", "island", "well_ghosts", "well_others", "souls", "ghosts_in_play", "price",
                   "bought_ghosts", "bought_powers", "reserve_powers_left", "ghosts_removed", "island_returnable")
_N_SCALAR0 = _N[_N_SCALAR_ORDER[0]]
assert [_N[k] for k in _N_SCALAR_ORDER] == list(range(_N_SCALAR0, _N_SCALAR0 + len(_N_SCALAR_ORDER)))
_N_BADGES0 = _N["powers_in_use"]
_N_BADGES1 = _N["drawn_powers"] + DRAW_SLOTS * NUM_POWERS
_G = {name: OFFSETS[f"glob.{name}"][0] for name, _ in _GLOB_FEATURES}
# The canonical vector (see ``Observer``) = the observation layout in absolute seat
# order + a constant 0, a constant 1 and the one-hot of a seat deciding outside its turn.
_ZERO = OBS_SIZE
_ONE = OBS_SIZE + 1
_DEFENDER_ABS = OBS_SIZE + 2
_CANON_SIZE = OBS_SIZE + 2 + MAX_SEATS
# Positions inside the glob block (and, past its end, the defender one-hot of the canonical vector),
# written by ``Observer._update`` through ``_glob_spec``.
_GL = {name: start - OFFSETS["glob"][0] for name, start in _G.items()}
_G_DEFENDER = _DEFENDER_ABS - OFFSETS["glob"][0]
_DEFENDER = _DEFENDER_ABS
(_G_PHASE, _G_STARTED, _G_ROUND, _G_LAST_ROUND, _G_TURN_REL, _G_DECIDER_REL, _G_OVER, _G_BERSERK_PENDING,
 _G_BERSERK_ROLL, _G_DIE_ROLLED, _G_LAST_DIE, _G_ACTING_HAND, _G_CUR_RACE, _G_DEFEND_RACE, _G_HOLD, _G_GHOUL,
 _G_PICKED, _G_PLACED, _G_DRAGON_USED, _G_FORT_USED, _G_HERO_POOL, _G_ENCAMP_POOL, _G_NONEMPTY, _G_HOLES,
 _G_AMAZON, _G_RACES_DECK, _G_POWERS_DECK) = (
    _GL[k] for k in ("phase_onehot", "started", "round_frac", "last_round", "turn_seat_rel", "decider_rel", "over",
                     "berserk_pending", "berserk_roll", "die_rolled", "last_die", "acting_hand", "cur_race",
                     "defend_race", "hold", "ghoul_segment", "picked", "placed", "dragon_used", "fort_used",
                     "hero_pool", "encamp_pool", "nonempty", "holes_placed", "amazon_held", "races_in_deck",
                     "powers_in_deck"))

# Owner codes per occupant (row of _OWNER_TABLE): 0 empty, 1 Lost Tribe, 2+k Ghosts of relative
# seat k, 8+k active race of relative seat k, 14+k declined race of relative seat k.
_OWNER_TABLE = np.zeros((20, 10), dtype=np.float32)
_OWNER_TABLE[1, 6] = 1
for _k in range(MAX_SEATS):
    _OWNER_TABLE[2 + _k, [_k, 7, 8]] = 1
    _OWNER_TABLE[8 + _k, [_k, 8]] = 1
    _OWNER_TABLE[14 + _k, [_k, 9]] = 1

_SC_TOK = 0.1
_SC_COINS = 1 / 50
_SC_HAND = 1 / 20
_SC_REG = 1 / 16
_SC_GHOST = 1 / 14


def _glob_spec(game_turns: int) -> tuple[tuple, tuple]:
    """(offset in the glob block, scale) per entry of ``Observer._update``'s two glob tuples
    (the often changing values, then the rest); scale None = a one-hot, -1 = none."""
    hot = ((_G_PHASE, None), (_G_STARTED, None), (_G_TURN_REL, None), (_G_DECIDER_REL, None), (_G_DEFENDER, None),
           (_G_CUR_RACE, None), (_G_PLACED, 1.0), (_G_NONEMPTY, 0.1))
    cold = ((_G_ROUND, 1 / game_turns), (_G_LAST_ROUND, 1.0), (_G_RACES_DECK, 1 / NUM_RACES),
            (_G_POWERS_DECK, 1 / NUM_POWERS), (_G_OVER, 1.0), (_G_BERSERK_ROLL, None), (_G_BERSERK_PENDING, 1.0),
            (_G_DIE_ROLLED, 1.0), (_G_LAST_DIE, 1 / 3), (_G_DEFEND_RACE, None), (_G_HOLD, 0.25), (_G_GHOUL, 1.0),
            (_G_PICKED, 1.0), (_G_DRAGON_USED, 1.0), (_G_FORT_USED, 1.0), (_G_HERO_POOL, 0.5),
            (_G_ENCAMP_POOL, 0.2), (_G_HOLES, 0.5), (_G_AMAZON, 0.25))
    return hot, cold


def _write_changes(block: np.ndarray, spec: tuple, vals: tuple, old: tuple | None) -> None:
    """Write the features of ``vals`` that differ from ``old`` (None: all) into ``block`` by ``spec``."""
    if old is None:
        old = (-1,) * len(vals)
        todo = range(len(vals))
    else:
        todo = _changed(vals, old)
    for i in todo:
        off, scale = spec[i]
        v = vals[i]
        if scale is None:  # a one-hot; -1 = none
            o = old[i]
            if o >= 0:
                block[off + o] = 0.0
            if v >= 0:
                block[off + v] = 1.0
        else:
            block[off] = v * scale


def _changed(new: list, old: list) -> list[int]:
    """Indices where two equally long lists differ (C-level scan)."""
    return list(compress(range(len(new)), map(ne, new, old)))


class Observer:
    """Fills observation vectors for one ``Game`` (one board, one seat count).

    hide_coins: show only the viewer's own coins (others read 0, ``coins_visible`` 0); None
    (default) = the game's ``GameConfig.hide_coins``.
    hide_necro_reserve: hide the Necromancer's reserve and drawn badges from the players
    (default True); he always sees his own.

    How it is fast: the Observer keeps one *canonical* vector (absolute seat order,
    nothing hidden, plus a constant 0, a constant 1 and a few helper entries) and a
    snapshot of the state lists it was built from. A call updates only what changed
    since the previous call (list comparisons are C-level; one action changes little)
    and then gathers the viewer's observation with one ``numpy.take`` through a
    precomputed index array per viewer. The index array does everything
    viewer-specific: it rotates seat slots, owner and pact one-hots and the turn/decider
    one-hots to the viewer's seat, and points hidden entries (others' coins under
    ``hide_coins``, the reserve badges) at the constant 0.
    """

    def __init__(self, game: Game, hide_coins: bool | None = None, hide_necro_reserve: bool = True) -> None:
        self.game = game
        self.hide_coins = game.config.hide_coins if hide_coins is None else bool(hide_coins)
        self.hide_necro_reserve = bool(hide_necro_reserve)
        b = game.board
        self.n = n = game.num_seats
        self.nr = nr = b.num_regions
        self.necro_seat = game.necro_seat
        t = np.zeros(_CANON_SIZE, dtype=np.float32)
        rs = t[_RS0:_RS0 + R * RS_W].reshape(R, RS_W)
        lake_nbrs = set(b.lake_neighbors)
        for r in range(nr):
            rs[r, 0] = 1
            rs[r, 1 + b.terrain[r]] = 1
            rs[r, 8] = b.mine[r]
            rs[r, 9] = b.magic[r]
            rs[r, 10] = b.cavern[r]
            rs[r, 11] = b.border[r]
            rs[r, 12] = b.first_conquest_ok[r]
            rs[r, 13] = b.coastal[r]
            rs[r, 14] = r in lake_nbrs
        t[_G["game_turns"]] = game.game_turns / 10
        t[_G["seats_onehot"] + n - 2] = 1
        t[_G["board_onehot"] + b.key - 2] = 1
        t[_G["victory_anytime"]] = game.config.victory_check == "anytime"
        t[_N["scenario"]] = game.necromancer
        t[_N["reserve_visible"]] = 1
        t[_ONE] = 1
        seat_t = t[_SEAT0:_SEAT0 + MAX_SEATS * SEAT_W].reshape(MAX_SEATS, SEAT_W)
        seat_t[:n, 0] = 1  # present
        seat_t[:n, 3] = 1  # coins visible (the viewer's index array hides them)
        if self.necro_seat >= 0:
            seat_t[self.necro_seat, 1] = 1
        self._template = t
        self._gt = game.game_turns
        self._glob_spec = _glob_spec(game.game_turns)
        self._pickup = [[tokens_at_pickup(r, p) * _SC_HAND for p in range(NUM_POWERS)] for r in range(NUM_RACES)]
        self._perm = [self._index(v) for v in range(n)]
        self._reset_canon()

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
            return self._canon[:OBS_SIZE].copy()
        out[:] = self._canon[:OBS_SIZE]
        return out

    def graph(self, st: State, seat: int) -> dict[str, np.ndarray]:
        """The same information as ``observe`` shaped for graph neural networks.

        ``nodes``: float32 ``(R, 32)``, one row per region of this board: its
        ``region_static`` columns then its ``region`` columns (see the tables above);
        ``edge_index``: int64 ``(2, 2E)``, every border in both directions (static per board);
        ``globals``: float32, the seat, combo, necro and glob blocks of the observation.
        """
        obs = self.observe(st, seat)
        r = self.game.num_regions
        nodes = np.concatenate([obs[_RS0:_RS0 + r * RS_W].reshape(r, RS_W),
                                obs[_RD0:_RD0 + r * RD_W].reshape(r, RD_W)], axis=1)
        return {"nodes": nodes, "edge_index": self._edge_index, "globals": obs[_GLOBALS0:]}

    @property
    def _edge_index(self) -> np.ndarray:
        ei = getattr(self, "_edge_index_cache", None)
        if ei is None:
            e = np.asarray(self.game.board.edges, dtype=np.int64).T
            ei = self._edge_index_cache = np.concatenate([e, e[::-1]], axis=1)
            ei.setflags(write=False)
        return ei

    # ------------------------------------------------------------------ the per-viewer index arrays
    def _index(self, v: int) -> np.ndarray:
        """Index into the canonical vector for each observation entry of viewer ``v``."""
        n, ns = self.n, self.necro_seat
        perm = np.arange(OBS_SIZE, dtype=np.intp)

        def seat_at(k: int) -> int | None:  # the absolute seat in relative slot k
            return (v + k) % n if k < n else None

        for r in range(R):
            base = _RD0 + r * RD_W
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
                if 57 <= c < 63:
                    j = seat_at(c - 57)
                    perm[pos] = _ZERO if j is None else src + 57 + j
                elif c in (2, 3) and self.hide_coins and k != 0:
                    perm[pos] = _ZERO
                else:
                    perm[pos] = src + c
        perm[_N["viewer_is_necromancer"]] = _ONE if v == ns else _ZERO
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
        self._canon = self._template.copy()
        c = self._canon
        self._rd = c[_RD0:_RD0 + R * RD_W].reshape(R, RD_W)
        self._seat = c[_SEAT0:_SEAT0 + MAX_SEATS * SEAT_W].reshape(MAX_SEATS, SEAT_W)
        self._combo = c[_COMBO0:_COMBO0 + COLUMN_SLOTS * COMBO_W].reshape(COLUMN_SLOTS, COMBO_W)
        self._ro = self._rs = self._occ = self._tok = None
        self._codes: list[int] = []
        self._codes_arr = None
        self._markers: tuple = (None,) * 5
        self._dragon = -2
        self._sig: list = [None] * MAX_SEATS
        self._flags: tuple = (-1, -1, 0, 0)  # the template's flag columns are all 0
        self._col: tuple = (None, None, None)
        self._necro_key = None
        self._well = self._reserve = self._draw = None
        self._ghot: tuple | None = None
        self._gcold: tuple | None = None
        self._glob = self._canon[_GLOB0:]

    def _codes_for(self, st: State) -> list[int]:
        """Per occupant (index -1 = empty) its row of ``_OWNER_TABLE`` (absolute seats)."""
        c = [0] * (NUM_OCCUPANTS + 1)
        for x in range(NUM_OCCUPANTS):
            status = st.race_status[x]
            o = st.race_owner[x]
            if status == TRIBE:
                c[x] = 1
            elif o >= 0:
                if status == GHOSTLY:
                    c[x] = 2 + o
                elif status == ACTIVE:
                    c[x] = 8 + o
                elif status == DECLINED:
                    c[x] = 14 + o
        return c

    def _update(self, st: State) -> None:
        """Bring the canonical vector up to date with ``st`` (only what changed since the last call)."""
        nr = self.nr
        canon = self._canon

        # ---- regions
        rd = self._rd
        if st.race_owner != self._ro or st.race_status != self._rs:
            self._codes = self._codes_for(st)
            self._codes_arr = np.array(self._codes, dtype=np.intp)
            self._ro = st.race_owner[:]
            self._rs = st.race_status[:]
            self._occ = None
        occ = st.occ
        prev = self._occ
        if prev is None or len(prev) != nr:
            rd[:nr, 0:10] = _OWNER_TABLE[self._codes_arr[np.fromiter(occ, np.intp, nr)]]
            self._occ = occ[:]
        elif occ != prev:
            ch = _changed(occ, prev)
            if len(ch) > 3:
                rd[:nr, 0:10] = _OWNER_TABLE[self._codes_arr[np.fromiter(occ, np.intp, nr)]]
            else:
                codes = self._codes
                for i in ch:
                    rd[i, 0:10] = _OWNER_TABLE[codes[occ[i]]]
            self._occ = occ[:]
        # Token counts: the whole list packed into one int (a byte per region), so the regions
        # whose count changed are the nonzero bytes of an XOR (cheaper than a list scan).
        tok = st.tok
        try:
            tkey = int.from_bytes(bytes(tok), "little")
        except ValueError:  # a count outside 0..255 (only in hand-made states): rewrite the column
            tkey = -1
        prev = self._tok
        tok_bits = 0  # regions whose token count changed (-1: maybe all)
        if tkey < 0 or prev is None or prev < 0:
            np.multiply(np.fromiter(tok, np.intp, nr), _SC_TOK, out=rd[:nr, 10], casting="unsafe")
            tok_bits = -1
        elif tkey != prev:
            x = tkey ^ prev
            while x:
                i = ((x & -x).bit_length() - 1) >> 3
                rd[i, 10] = tok[i] * _SC_TOK
                tok_bits |= 1 << i
                x &= ~(0xFF << (i << 3))
        self._tok = tkey
        markers = (st.lair, st.fort, st.encamp, st.hole, st.hero)
        if markers != self._markers:
            pm = self._markers
            for j, lst in enumerate(markers):
                if lst != pm[j]:
                    rd[:nr, 11 + j] = lst
            self._markers = tuple(x[:] for x in markers)
        if st.dragon != self._dragon:
            rd[:nr, 16] = 0.0
            if st.dragon >= 0:
                rd[st.dragon, 16] = 1.0
            self._dragon = st.dragon

        # ---- seats: a signature per seat; rewrite the rows whose signature changed
        coins, active, decl, decl_spirit, pact = st.coins, st.active, st.decl, st.decl_spirit, st.pact
        regions, hand, tray, rp = st.regions, st.hand, st.tray, st.race_power
        todo = range(self.n)
        if todo:
            sigs = self._sig
            seat_rows = self._seat
            for s in todo:
                a = active[s]
                d = decl[s]
                ds = decl_spirit[s]
                if a >= 0:
                    sig = (coins[s], a, rp[a], d, ds, hand[a], tray[a], regions[a], regions[d] if d >= 0 else 0,
                           regions[ds] if ds >= 0 else 0, pact[s])
                else:
                    sig = (coins[s], -1, 0, d, ds, 0, 0, 0, regions[d] if d >= 0 else 0,
                           regions[ds] if ds >= 0 else 0, pact[s])
                old = sigs[s]
                if sig == old:
                    continue
                row = seat_rows[s]
                if old is None or old[1:5] != sig[1:5]:
                    row[8:57] = 0.0
                    if a >= 0:
                        if a < NUM_RACES:
                            row[8 + a] = 1.0
                        for p in _bits(sig[2]):
                            row[22 + p] = 1.0
                    if d >= 0:
                        row[42 + d] = 1.0
                    if ds >= 0:
                        row[42 + ds] = 1.0
                        row[56] = 1.0
                if old is None or old[10] != sig[10]:
                    row[57:63] = 0.0
                    if sig[10] >= 0:
                        row[57 + sig[10]] = 1.0
                if old is None:
                    row[2] = sig[0] * _SC_COINS
                    row[4:8] = (sig[5] * _SC_HAND, sig[6] * _SC_HAND, sig[7].bit_count() * _SC_REG,
                                (sig[8] | sig[9]).bit_count() * _SC_REG)
                else:  # one scalar at a time: usually only the hand changed
                    if old[0] != sig[0]:
                        row[2] = sig[0] * _SC_COINS
                    if old[5] != sig[5]:
                        row[4] = sig[5] * _SC_HAND
                    if old[6] != sig[6]:
                        row[5] = sig[6] * _SC_HAND
                    if old[7] != sig[7]:
                        row[6] = sig[7].bit_count() * _SC_REG
                    if old[8] != sig[8] or old[9] != sig[9]:
                        row[7] = (sig[8] | sig[9]).bit_count() * _SC_REG
                sigs[s] = sig
        # turn_seat / decider one-hots (none once the game is over), attacked / converted bits
        flags = (-1 if st.over else st.turn_seat, -1 if st.over else st.decider, st.attacked, st.converted)
        old = self._flags
        if flags != old:
            sv = self._seat
            for col, (v, o) in enumerate(zip(flags[:2], old[:2]), 63):
                if v != o:
                    if o >= 0:
                        sv[o, col] = 0.0
                    if v >= 0:
                        sv[v, col] = 1.0
            for col, (v, o) in enumerate(zip(flags[2:], old[2:]), 65):
                for s in _bits(v ^ o):
                    sv[s, col] = (v >> s) & 1
            self._flags = flags

        # ---- combo column
        if (st.col_race, st.col_power, st.col_coins) != self._col:
            blk = self._combo
            blk[:] = 0.0
            for j in range(len(st.col_race)):
                race, power = st.col_race[j], st.col_power[j]
                blk[j, 0] = 1
                blk[j, 1 + race] = 1
                blk[j, 15 + power] = 1
                blk[j, 35] = st.col_coins[j] * 0.2
                blk[j, 36] = self._pickup[race][power]
            self._col = (st.col_race[:], st.col_power[:], st.col_coins[:])

        # ---- the Necromancer
        if self.necro_seat >= 0:
            held = regions[GHOST]
            key = (tray[GHOST], st.island, st.souls, held, rp[GHOST], st.bought_ghosts, st.bought_powers,
                   st.ghosts_removed, hand[GHOST], self.game.island_cap(st))
            badges = (self._necro_key is None or rp[GHOST] != self._necro_key[4]
                      or st.necro_reserve != self._reserve or st.necro_draw != self._draw)
            if badges or key != self._necro_key or (tok_bits & held) or st.well != self._well:
                self._write_necro(st, badges)
                self._necro_key = key
                self._well = st.well[:]
                if badges:
                    self._reserve = st.necro_reserve[:]
                    self._draw = st.necro_draw[:]

        # ---- turn, phase and the pending decision: the acting hand, then two tuples of raw values
        # (see ``_glob_spec``), the often changing ones and the rest; only changed features are written.
        over = st.over
        turn, decider, ph = st.turn_seat, st.decider, st.phase
        acting = st.defend_race if ph == _DEFEND else st.cur_race
        self._glob[_G_ACTING_HAND] = hand[acting] * _SC_HAND if acting >= 0 else 0.0  # changes nearly every call
        hot = (ph, st.started, -1 if over else turn, decider if not over else -1,
               decider if (not over and decider != turn) else -1, st.cur_race, st.placed, st.nonempty)
        if hot != self._ghot:
            _write_changes(self._glob, self._glob_spec[0], hot, self._ghot)
            self._ghot = hot
        rnd, berserk, last_die = st.round, st.berserk, st.last_die
        cold = (rnd, rnd >= self._gt, len(st.race_deck), len(st.power_deck) + len(st.power_discard), over,
                berserk, berserk >= 0, last_die >= 0, last_die if last_die > 0 else 0, st.defend_race, st.hold,
                st.segment == 0, st.picked, st.dragon_used, st.fort_used, st.hero_pool, st.encamp_pool,
                st.holes_placed, st.amazon_held)
        if cold != self._gcold:
            _write_changes(self._glob, self._glob_spec[1], cold, self._gcold)
            self._gcold = cold

    def _write_necro(self, st: State, badges: bool = True) -> None:
        """Rewrite the necro scalars (one slice write) and, if ``badges``, the power one-hots."""
        well = st.well
        pu = st.race_power[GHOST]
        island = st.island
        tok = st.tok
        in_play = island + sum([tok[r] for r in _bits(st.regions[GHOST])])
        canon = self._canon
        returnable = self.game.island_cap(st) - island
        canon[_N_SCALAR0:_N_SCALAR0 + len(_N_SCALAR_ORDER)] = (
            st.tray[GHOST] * _SC_GHOST, island * _SC_GHOST, well[GHOST] * _SC_GHOST,
            (sum(well) - well[GHOST]) * _SC_HAND, st.souls * 0.25, in_play * _SC_GHOST,
            (pu.bit_count() + in_play + st.hand[GHOST]) * _SC_HAND, st.bought_ghosts * _SC_GHOST,
            st.bought_powers * 0.2, (len(st.necro_reserve) - st.necro_reserve.count(-1)) * 0.2,
            st.ghosts_removed * 0.5, (returnable if returnable > 0 else 0) * _SC_GHOST)
        if badges:
            blk = canon[_N_BADGES0:_N_BADGES1]
            blk[:] = 0.0
            for p in _bits(pu):
                blk[p] = 1.0
            for k, p in enumerate(st.necro_reserve):
                if p >= 0:
                    blk[_N_RESERVE - _N_POWERS + k * NUM_POWERS + p] = 1.0
            for k, p in enumerate(st.necro_draw):
                blk[_N_DRAWN - _N_POWERS + k * NUM_POWERS + p] = 1.0


def state_vector(game: Game, st: State) -> np.ndarray:
    """Convenience: ``Observer(game).state_vector(st)`` (builds an Observer; reuse one in loops)."""
    return Observer(game).state_vector(st)


__all__ = ["Observer", "OBS_SIZE", "OBS_HIGH", "OFFSETS", "MAX_SEATS", "REGION_STATIC_COLS", "REGION_COLS",
           "SEAT_COLS", "COMBO_COLS", "offsets_table", "features_table", "state_vector"]
