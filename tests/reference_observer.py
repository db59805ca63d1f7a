"""A slow, plain-Python reference encoder of the observation, written from ``necro_env.observe``'s
module docstring (its tables and the "What they hold" notes), not from the fast ``Observer``.

It fills a Python list feature by feature, by name: positions come only from the documented
tables (``OFFSETS``, the ``*_COLS`` row tables, the ``SCALES`` divisors) and every value is
computed from the ``State`` here, so a writer that puts a value in the wrong column, scales it
wrongly or forgets to update it after a change disagrees with this encoder
(``tests/test_observer_reference.py`` compares the two on random games).

    reference_observation(game, st, viewer, hide_coins=False, hide_necro_reserve=True)
    reference_state_vector(game, st)      # the centralised view: absolute seats, nothing hidden

A new feature is added here too, from its documentation.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from necro_env.game import Game, Phase, State
from necro_env.game.catalog import GHOST, GHOULS, NUM_RACES, tokens_at_pickup
from necro_env.game.state import ACTIVE, DECLINED, GHOSTLY, GHOUL_SEGMENT, TRIBE
from necro_env.observe import MAX_SEATS, OBS_SIZE, OFFSETS, ROW_TABLES, ROW_WIDTHS, SCALES


class _Vector:
    """An observation under construction; every write names its feature and checks its bounds."""

    def __init__(self, base: list[float] | None = None) -> None:
        self.v = list(base) if base is not None else [0.0] * OBS_SIZE

    def row(self, block: str, i: int, name: str, value: float, k: int = 0) -> None:
        """Row ``i`` of a row block: column ``name`` (entry ``k`` of a one-hot/multi-hot)."""
        start, length = OFFSETS[block]
        col, width = ROW_TABLES[block][name]
        if not 0 <= k < width:
            raise IndexError(f"{block}.{name}: entry {k} outside its {width} columns")
        pos = start + i * ROW_WIDTHS[block] + col + k
        if not start <= pos < start + length:
            raise IndexError(f"{block} row {i} is outside the block")
        self.v[pos] = float(value)

    def scaled(self, block: str, i: int, name: str, count: int) -> None:
        self.row(block, i, name, count / SCALES[f"{block}.{name}"])

    def flat(self, name: str, value: float, k: int = 0) -> None:
        """A flat necro/glob feature (entry ``k`` of a one-hot)."""
        start, width = OFFSETS[name]
        if not 0 <= k < width:
            raise IndexError(f"{name}: entry {k} outside its {width} entries")
        self.v[start + k] = float(value)

    def flat_scaled(self, name: str, count: int) -> None:
        self.flat(name, count / SCALES[name])


@lru_cache(maxsize=16)
def _board_rows(game: Game) -> tuple[float, ...]:
    """The region_static block of a game's board (it never changes during a game)."""
    b = game.board
    out = _Vector()
    lake_neighbours = set(b.lake_neighbors)
    for r in range(b.num_regions):
        out.row("region_static", r, "exists", 1)
        out.row("region_static", r, "terrain", 1, k=b.terrain[r])
        out.row("region_static", r, "mine", b.mine[r])
        out.row("region_static", r, "magic", b.magic[r])
        out.row("region_static", r, "cavern", b.cavern[r])
        out.row("region_static", r, "border", b.border[r])
        out.row("region_static", r, "first_conquest", b.first_conquest_ok[r])
        out.row("region_static", r, "coastal", b.coastal[r])
        out.row("region_static", r, "lake_neighbour", r in lake_neighbours)
    return tuple(out.v)


def _regions_held(mask: int) -> list[int]:
    return [r for r in range(mask.bit_length()) if (mask >> r) & 1]


def _encode(game: Game, st: State, viewer: int | None, hide_coins: bool, hide_reserve: bool) -> np.ndarray:
    n = game.num_seats
    necro = game.necro_seat if game.necromancer else None
    over = bool(st.over)

    def rel(seat: int) -> int:
        """The slot of an absolute seat: its offset clockwise from the viewer (absolute without one)."""
        return seat if viewer is None else (seat - viewer) % n

    vec = _Vector(_board_rows(game))

    # ---- region: owner, status, tokens, markers
    for r in range(game.board.num_regions):
        x = st.occ[r]
        if x >= 0:
            status = st.race_status[x]
            if status == TRIBE:
                vec.row("region", r, "lost_tribe", 1)
            elif status in (GHOSTLY, ACTIVE, DECLINED) and st.race_owner[x] >= 0:
                vec.row("region", r, "owner", 1, k=rel(st.race_owner[x]))
                if status == GHOSTLY:
                    vec.row("region", r, "ghost", 1)
                vec.row("region", r, "declined" if status == DECLINED else "active", 1)
        vec.scaled("region", r, "tokens", st.tok[r])
        vec.row("region", r, "lair", st.lair[r])
        vec.row("region", r, "fortress", st.fort[r])
        vec.row("region", r, "encampments", st.encamp[r])
        vec.row("region", r, "hole", st.hole[r])
        vec.row("region", r, "hero", st.hero[r])
        vec.row("region", r, "dragon", st.dragon == r)

    # ---- region_learn: the acting race's costs and reach, the threat to each occupant
    race = st.cur_race
    if race >= 0 and st.phase in (Phase.CONQUER, Phase.BERSERK):
        reach = game.targets(st, race)
        for r in range(game.board.num_regions):
            if (reach >> r) & 1:
                cost = game.conquest_cost(st, r, race)
                vec.scaled("region_learn", r, "cost", cost)
                vec.row("region_learn", r, "reachable", 1)
                vec.row("region_learn", r, "affordable", cost <= st.hand[race])
    attackers = []  # (seat, the regions its attacking races hold)
    for seat in range(n):
        races = [x for x in (st.active[seat],) if x >= 0]
        if GHOULS in (st.decl[seat], st.decl_spirit[seat]):
            races.append(GHOULS)
        attackers.append((seat, set(r for x in races for r in _regions_held(st.regions[x]))))
    for r in range(game.board.num_regions):
        x = st.occ[r]
        owner = st.race_owner[x] if x >= 0 else -1
        enemy = set().union(*(held for seat, held in attackers if seat != owner))
        vec.scaled("region_learn", r, "threat", sum(1 for q in game.board.neighbors[r] if q in enemy))

    # ---- seat slots
    for seat in range(n):
        k = rel(seat)
        vec.row("seat", k, "present", 1)
        vec.row("seat", k, "necromancer", seat == necro)
        if not (hide_coins and viewer is not None and seat != viewer):
            vec.scaled("seat", k, "coins", st.coins[seat])
            vec.row("seat", k, "coins_visible", 1)
        a = st.active[seat]
        if a >= 0:
            vec.scaled("seat", k, "hand", st.hand[a])
            vec.scaled("seat", k, "tray", st.tray[a])
            vec.scaled("seat", k, "active_regions", len(_regions_held(st.regions[a])))
            if a < NUM_RACES:
                vec.row("seat", k, "active_race", 1, k=a)
            for p in range(st.race_power[a].bit_length()):
                if (st.race_power[a] >> p) & 1:
                    vec.row("seat", k, "active_powers", 1, k=p)
        declined = [x for x in (st.decl[seat], st.decl_spirit[seat]) if x >= 0]
        vec.scaled("seat", k, "declined_regions", sum(len(_regions_held(st.regions[x])) for x in declined))
        for x in declined:
            vec.row("seat", k, "declined_races", 1, k=x)
        vec.row("seat", k, "spirit_decline", st.decl_spirit[seat] >= 0)
        if st.pact[seat] >= 0:
            vec.row("seat", k, "pact_with", 1, k=rel(st.pact[seat]))
        vec.row("seat", k, "turn_seat", not over and st.turn_seat == seat)
        vec.row("seat", k, "decider", not over and st.decider == seat)
        vec.row("seat", k, "attacked", (st.attacked >> seat) & 1)
        vec.row("seat", k, "converted", (st.converted >> seat) & 1)

    # ---- combo column
    for j, (race, power, coins) in enumerate(zip(st.col_race, st.col_power, st.col_coins)):
        vec.row("combo", j, "present", 1)
        vec.row("combo", j, "race", 1, k=race)
        vec.row("combo", j, "power", 1, k=power)
        vec.scaled("combo", j, "coins", coins)
        vec.scaled("combo", j, "tokens", tokens_at_pickup(race, power))

    # ---- the Necromancer
    badges_hidden = viewer is not None and viewer != necro and hide_reserve
    vec.flat("necro.reserve_visible", not badges_hidden)
    if necro is not None:
        vec.flat("necro.scenario", 1)
        vec.flat("necro.viewer_is_necromancer", viewer == necro)
        in_play = st.island + sum(st.tok[r] for r in _regions_held(st.regions[GHOST]))
        in_use = st.race_power[GHOST]
        vec.flat_scaled("necro.reserve", st.tray[GHOST])
        vec.flat_scaled("necro.island", st.island)
        vec.flat_scaled("necro.well_ghosts", st.well[GHOST])
        vec.flat_scaled("necro.well_others", sum(st.well[x] for x in range(len(st.well)) if x != GHOST))
        vec.flat_scaled("necro.souls", st.souls)
        vec.flat_scaled("necro.ghosts_in_play", in_play)
        price = bin(in_use).count("1") + in_play + st.hand[GHOST]
        vec.flat_scaled("necro.price", price)
        if not (hide_coins and viewer is not None and viewer != necro):
            coins, buys = st.coins[necro], 0
            while buys < 10 and coins >= price + buys:
                coins -= price + buys
                buys += 1
            vec.flat_scaled("necro.affordable_purchases", buys)
        vec.flat_scaled("necro.bought_ghosts", st.bought_ghosts)
        vec.flat_scaled("necro.bought_powers", st.bought_powers)
        vec.flat_scaled("necro.reserve_powers_left", sum(1 for p in st.necro_reserve if p >= 0))
        vec.flat_scaled("necro.ghosts_removed", st.ghosts_removed)
        vec.flat_scaled("necro.island_returnable", max(0, game.island_cap(st) - st.island))
        for p in range(in_use.bit_length()):
            if (in_use >> p) & 1:
                vec.flat("necro.powers_in_use", 1, k=p)
        if not badges_hidden:
            width = OFFSETS["necro.powers_in_use"][1]
            for slot, p in enumerate(st.necro_reserve):
                if p >= 0:
                    vec.flat("necro.reserve_powers", 1, k=slot * width + p)
            for slot, p in enumerate(st.necro_draw):
                vec.flat("necro.drawn_powers", 1, k=slot * width + p)

    # ---- turn, phase and the pending decision
    vec.flat("glob.round_frac", st.round / game.game_turns)
    vec.flat("glob.last_round", st.round >= game.game_turns)
    vec.flat_scaled("glob.rounds_left", max(0, game.game_turns - st.round))
    vec.flat_scaled("glob.game_turns", game.game_turns)
    vec.flat("glob.seats_onehot", 1, k=n - 2)
    vec.flat("glob.board_onehot", 1, k=game.board.key - 2)
    vec.flat("glob.phase_onehot", 1, k=st.phase)
    if not over:
        vec.flat("glob.turn_seat_rel", 1, k=rel(st.turn_seat))
        vec.flat("glob.decider_rel", 1, k=rel(st.decider))
        if viewer is not None:
            vec.flat("glob.own_turn", st.turn_seat == viewer)
            vec.flat("glob.viewer_decides", st.decider == viewer)
            vec.flat("glob.defending", st.decider == viewer and st.turn_seat != viewer)
    if viewer is not None:
        vec.flat("glob.turn_order", 1, k=viewer)  # seat 0 starts every round
    if st.berserk >= 0:
        vec.flat("glob.berserk_pending", 1)
        vec.flat("glob.berserk_roll", 1, k=st.berserk)
    vec.flat("glob.die_rolled", st.last_die >= 0)
    vec.flat_scaled("glob.last_die", max(st.last_die, 0))
    acting = st.defend_race if st.phase == Phase.DEFEND else st.cur_race
    vec.flat_scaled("glob.acting_hand", st.hand[acting] if acting >= 0 else 0)
    vec.flat_scaled("glob.hold", st.hold)
    vec.flat("glob.ghoul_segment", st.segment == GHOUL_SEGMENT)
    vec.flat("glob.started", 1, k=st.started)
    for name in ("picked", "placed", "dragon_used", "fort_used"):
        vec.flat(f"glob.{name}", getattr(st, name))
    for name in ("hero_pool", "encamp_pool", "nonempty", "holes_placed", "amazon_held"):
        vec.flat_scaled(f"glob.{name}", getattr(st, name))
    if st.cur_race >= 0:
        vec.flat("glob.cur_race", 1, k=st.cur_race)
    if st.defend_race >= 0:
        vec.flat("glob.defend_race", 1, k=st.defend_race)
    vec.flat_scaled("glob.races_in_deck", len(st.race_deck))
    vec.flat_scaled("glob.powers_in_deck", len(st.power_deck) + len(st.power_discard))
    vec.flat("glob.over", over)
    vec.flat("glob.victory_anytime", game.config.victory_check == "anytime")
    return np.array(vec.v, dtype=np.float32)


def reference_observation(game: Game, st: State, viewer: int, hide_coins: bool = False,
                          hide_necro_reserve: bool = True) -> np.ndarray:
    """What ``Observer(game, hide_coins, hide_necro_reserve).observe(st, viewer)`` must return."""
    if not 0 <= viewer < game.num_seats or game.num_seats > MAX_SEATS:
        raise ValueError(f"viewer {viewer} is not a seat of this game")
    return _encode(game, st, viewer, hide_coins, hide_necro_reserve)


def reference_state_vector(game: Game, st: State) -> np.ndarray:
    """What ``Observer(game).state_vector(st)`` must return."""
    return _encode(game, st, None, False, False)
