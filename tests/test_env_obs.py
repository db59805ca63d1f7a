"""Observations (DESIGN.md §4): layout, seat-relative features, mask consistency, hidden information.

Hand-built positions come from ``tests/positions.py``; every feature is read back by
name through ``OFFSETS`` and the column tables, so a layout change breaks loudly here.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

import necro_env
from necro_env import observe as O
from necro_env.game import Game, GameConfig, Kind, Phase, encode
from necro_env.game.board import MAX_REGIONS
from necro_env.game.catalog import GHOST, power_id, race_id
from necro_env.observe import OBS_HIGH, OBS_SIZE, OFFSETS, Observer

from positions import begin, empty_position, give_race, put, set_necro_powers

CONFIGS = [(2, False), (3, False), (4, False), (5, False), (3, True), (4, True), (5, True), (6, True)]


# ------------------------------------------------------------------------------ reading helpers
def region(obs: np.ndarray, r: int, col: str) -> np.ndarray:
    s, _ = OFFSETS["region"]
    c, w = O.REGION_COLS[col]
    row = obs[s + r * O.RD_W: s + (r + 1) * O.RD_W]
    return row[c:c + w]


def region_static(obs: np.ndarray, r: int, col: str) -> np.ndarray:
    s, _ = OFFSETS["region_static"]
    c, w = O.REGION_STATIC_COLS[col]
    return obs[s + r * O.RS_W + c: s + r * O.RS_W + c + w]


def seat(obs: np.ndarray, slot: int, col: str) -> np.ndarray:
    s, _ = OFFSETS["seat"]
    c, w = O.SEAT_COLS[col]
    return obs[s + slot * O.SEAT_W + c: s + slot * O.SEAT_W + c + w]


def combo(obs: np.ndarray, slot: int, col: str) -> np.ndarray:
    s, _ = OFFSETS["combo"]
    c, w = O.COMBO_COLS[col]
    return obs[s + slot * O.COMBO_W + c: s + slot * O.COMBO_W + c + w]


def flat(obs: np.ndarray, name: str) -> np.ndarray:
    s, n = OFFSETS[name]
    return obs[s:s + n]


def random_states(players: int, necro: bool, games: int, seed: int = 0, every: int = 1):
    """(game, state) pairs along seeded random games."""
    g = Game(GameConfig(players=players, necromancer=necro))
    rng = random.Random(seed)
    for k in range(games):
        st = g.new_state(seed * 1000 + k)
        i = 0
        while not st.over:
            if i % every == 0:
                yield g, st
            la = g.legal_actions(st)
            g.apply(st, la[rng.randrange(len(la))])
            i += 1
        yield g, st


# ------------------------------------------------------------------------------ layout
def test_layout_is_contiguous_and_documented() -> None:
    """Blocks tile the vector exactly; the docstring's tables (blocks, row columns with their divisors,
    flat features) are generated from OFFSETS, the column tables and SCALES."""
    blocks = ["region_static", "region", "region_learn", "seat", "combo", "necro", "glob"]
    assert [b for b in OFFSETS if "." not in b] == blocks
    pos = 0
    for b in blocks:
        start, length = OFFSETS[b]
        assert start == pos and length > 0
        if b in O.ROW_WIDTHS:
            assert length % O.ROW_WIDTHS[b] == 0
        pos += length
    assert pos == OBS_SIZE
    rows = {"region_static": O.R, "region": O.R, "region_learn": O.R, "seat": O.MAX_SEATS, "combo": O.COLUMN_SLOTS}
    assert OBS_SIZE == (sum(n * O.ROW_WIDTHS[b] for b, n in rows.items())
                        + sum(w for _, w in O._NECRO_FEATURES) + sum(w for _, w in O._GLOB_FEATURES))
    for blk, feats in (("necro", O._NECRO_FEATURES), ("glob", O._GLOB_FEATURES)):
        s, n = OFFSETS[blk]
        assert sum(w for _, w in feats) == n
        for name, w in feats:
            fs, fn = OFFSETS[f"{blk}.{name}"]
            assert fn == w and s <= fs and fs + fn <= s + n
    for cols, width in ((O.REGION_STATIC_COLS, O.RS_W), (O.REGION_COLS, O.RD_W), (O.REGION_LEARN_COLS, O.RL_W),
                        (O.SEAT_COLS, O.SEAT_W), (O.COMBO_COLS, O.COMBO_W)):
        covered = sorted(i for c, w in cols.values() for i in range(c, c + w))
        assert covered == list(range(width))
    assert "\n".join("    " + line for line in O.offsets_table().splitlines()) in O.__doc__
    assert "\n".join("    " + line for line in O.features_table().splitlines()) in O.__doc__
    assert "\n".join("    " + line for line in O.columns_table().splitlines()) in O.__doc__
    assert "hand 4 /20" in O.columns_table() and "necro.souls                  2358   1 /4" in O.features_table()
    assert f"OBS_SIZE = {OBS_SIZE}" in O.__doc__
    assert OBS_HIGH.shape == (OBS_SIZE,) and (OBS_HIGH >= 1).all()


def test_static_region_features() -> None:
    """Per region: exists, terrain one-hot and symbols from the board; regions beyond the board are zero."""
    g = Game(GameConfig(players=3, necromancer=False))
    st = g.new_state(0)
    obs = Observer(g).observe(st, 0)
    b = g.board
    for r in range(MAX_REGIONS):
        if r >= b.num_regions:
            assert not region_static(obs, r, "exists").any() and not region(obs, r, "owner").any()
            continue
        assert region_static(obs, r, "exists")[0] == 1
        assert np.flatnonzero(region_static(obs, r, "terrain")).tolist() == [b.terrain[r]]
        assert region_static(obs, r, "mine")[0] == b.mine[r]
        assert region_static(obs, r, "cavern")[0] == b.cavern[r]
        assert region_static(obs, r, "coastal")[0] == b.coastal[r]
        assert region_static(obs, r, "first_conquest")[0] == b.first_conquest_ok[r]
        assert region_static(obs, r, "lake_neighbour")[0] == (r in b.lake_neighbors)
    assert flat(obs, "glob.board_onehot").tolist() == [0, 1, 0, 0]
    assert flat(obs, "glob.seats_onehot").tolist() == [0, 1, 0, 0, 0]


# ------------------------------------------------------------------------------ seat-relative content
def test_region_owner_is_seat_relative() -> None:
    """DESIGN §4: the viewer is seat 0; owners are relative seats; status, tokens and pieces per region."""
    g, st = empty_position(players=4)
    give_race(g, st, 1, "Orcs", "Alchemist", hand=3)
    give_race(g, st, 2, "Ratmen", declined=True)
    put(g, st, 5, "Orcs", 2, fort=1)
    put(g, st, 6, "Ratmen", 1, lair=1)
    put(g, st, 7, "Lost Tribe", 1)
    put(g, st, 8, "Orcs", 1, hole=1, hero=1, encamp=2, dragon=1)
    begin(g, st, seat=1)
    ob = Observer(g)
    for viewer in range(4):
        obs = ob.observe(st, viewer)
        rel1, rel2 = (1 - viewer) % 4, (2 - viewer) % 4
        assert np.flatnonzero(region(obs, 5, "owner")).tolist() == [rel1]
        assert region(obs, 5, "active")[0] == 1 and region(obs, 5, "declined")[0] == 0
        assert region(obs, 5, "tokens")[0] == pytest.approx(0.2)
        assert region(obs, 5, "fortress")[0] == 1 and region(obs, 5, "lair")[0] == 0
        assert np.flatnonzero(region(obs, 6, "owner")).tolist() == [rel2]
        assert region(obs, 6, "declined")[0] == 1 and region(obs, 6, "lair")[0] == 1
        assert region(obs, 7, "lost_tribe")[0] == 1 and not region(obs, 7, "owner").any()
        for col in ("hole", "hero", "dragon"):
            assert region(obs, 8, col)[0] == 1
        assert region(obs, 8, "encampments")[0] == 2
        assert not region(obs, 9, "owner").any() and region(obs, 9, "tokens")[0] == 0
        # seats: Orcs of seat 1 with Alchemist and 3 in hand sit in slot rel1
        assert np.flatnonzero(seat(obs, rel1, "active_race")).tolist() == [race_id("Orcs")]
        assert np.flatnonzero(seat(obs, rel1, "active_powers")).tolist() == [power_id("Alchemist")]
        assert seat(obs, rel1, "hand")[0] == pytest.approx(3 / 20)
        assert seat(obs, rel1, "active_regions")[0] == pytest.approx(2 / 16)
        assert np.flatnonzero(seat(obs, rel2, "declined_races")).tolist() == [race_id("Ratmen")]
        assert seat(obs, rel2, "declined_regions")[0] == pytest.approx(1 / 16)
        assert seat(obs, rel1, "turn_seat")[0] == 1 and seat(obs, rel1, "decider")[0] == 1
        assert flat(obs, "glob.own_turn")[0] == (viewer == 1)
        assert flat(obs, "glob.viewer_decides")[0] == (viewer == 1)
        assert np.flatnonzero(flat(obs, "glob.turn_seat_rel")).tolist() == [rel1]
        assert flat(obs, "glob.phase_onehot")[Phase.CONQUER] == 1
        assert flat(obs, "glob.acting_hand")[0] == pytest.approx(3 / 20)
        assert seat(obs, 0, "present")[0] == 1 and seat(obs, 3, "present")[0] == 1
        assert not seat(obs, 4, "present").any()


def test_coins_relative_and_hide_coins() -> None:
    """Coins are public by default; with hide_coins only the viewer's own are shown."""
    g = Game(GameConfig(players=5))
    st = g.new_state(0)
    st.coins = [11, 22, 33, 44, 55]
    for hide in (False, True):
        ob = Observer(Game(GameConfig(players=5, hide_coins=hide)))  # hide_coins is a game option
        for v in range(5):
            obs = ob.observe(st, v)
            for s in range(5):
                k = (s - v) % 5
                shown = (not hide) or s == v
                assert seat(obs, k, "coins")[0] == pytest.approx(st.coins[s] / 50 if shown else 0.0)
                assert seat(obs, k, "coins_visible")[0] == shown
    # two states that differ only in another seat's coins look the same to a hide_coins viewer
    hidden = Game(GameConfig(players=5, hide_coins=True))
    ob = Observer(hidden)
    other = st.clone()
    other.coins[3] = 99
    assert np.array_equal(ob.observe(st, 0), Observer(hidden).observe(other, 0))
    assert not np.array_equal(Observer(g).observe(st, 0), Observer(g).observe(other, 0))
    assert not np.array_equal(ob.observe(st, 3), Observer(hidden).observe(other, 3))


def test_combo_column_features() -> None:
    """The combo column: race, power, coins on it and the tokens it gives."""
    g = Game(GameConfig(players=3, necromancer=False, forced_combos=(("Amazons", "Merchant"), ("Elves", "Flying"))))
    st = g.new_state(0)
    st.col_coins[1] = 2
    obs = Observer(g).observe(st, 0)
    assert np.flatnonzero(combo(obs, 0, "race")).tolist() == [race_id("Amazons")]
    assert np.flatnonzero(combo(obs, 0, "power")).tolist() == [power_id("Merchant")]
    assert combo(obs, 0, "tokens")[0] == pytest.approx(12 / 20)  # 6 + 2 + 4, box 15
    assert combo(obs, 1, "coins")[0] == pytest.approx(2 / 5)
    assert all(combo(obs, k, "present")[0] == 1 for k in range(6))


def test_necromancer_role_and_block() -> None:
    """The Necromancer's seat has the role flag; his block shows Reserve, Island, Well, price."""
    g, st = empty_position(players=4, necromancer=True)
    put(g, st, g.board.lake_neighbors[0], GHOST, 3)
    st.well[GHOST] = 2
    st.well[race_id("Orcs")] = 1
    set_necro_powers(g, st, "Flying", "Hill")
    ob = Observer(g)
    for v in range(4):
        obs = ob.observe(st, v)
        k = (3 - v) % 4
        assert seat(obs, k, "necromancer")[0] == 1 and seat(obs, (k + 1) % 4, "necromancer")[0] == 0
        assert flat(obs, "necro.viewer_is_necromancer")[0] == (v == 3)
        assert flat(obs, "necro.scenario")[0] == 1
        assert flat(obs, "necro.island")[0] == pytest.approx(st.island / 14)
        assert flat(obs, "necro.reserve")[0] == pytest.approx(st.tray[GHOST] / 14)
        assert flat(obs, "necro.well_ghosts")[0] == pytest.approx(2 / 14)
        assert flat(obs, "necro.well_others")[0] == pytest.approx(1 / 20)
        in_play = st.island + 3
        assert flat(obs, "necro.ghosts_in_play")[0] == pytest.approx(in_play / 14)
        assert flat(obs, "necro.price")[0] == pytest.approx(g.purchase_price(st) / 20)
        assert g.purchase_price(st) == 2 + in_play
        assert sorted(np.flatnonzero(flat(obs, "necro.powers_in_use"))) == sorted(
            [power_id("Flying"), power_id("Hill")])
        ghost_region = g.board.lake_neighbors[0]
        assert region(obs, ghost_region, "ghost")[0] == 1 and region(obs, ghost_region, "active")[0] == 1
        assert np.flatnonzero(region(obs, ghost_region, "owner")).tolist() == [k]


# ------------------------------------------------------------------------------ hidden information
def test_necromancer_reserve_hidden_from_players() -> None:
    """States differing only in his reserve powers look the same to players; he (and
    hide_necro_reserve=False) sees the difference."""
    g = Game(GameConfig(players=5))
    st = g.new_state(4)
    draw_a = list(st.necro_draw)
    spare = [p for p in range(20) if p not in draw_a and p not in st.col_power and p not in (15, 16)]
    other = st.clone()
    other.necro_draw = spare[:6]  # NECRO_START: the 6 drawn badges are hidden too
    for v in range(4):
        assert np.array_equal(Observer(g).observe(st, v), Observer(g).observe(other, v))
    assert not np.array_equal(Observer(g).observe(st, 4), Observer(g).observe(other, 4))
    g.apply(st, encode((Kind.NECRO_START, 0)))
    other = st.clone()
    other.necro_reserve = spare[:5]
    for v in range(4):
        a = Observer(g).observe(st, v)
        b = Observer(g).observe(other, v)
        assert np.array_equal(a, b)
        assert flat(a, "necro.reserve_visible")[0] == 0 and not flat(a, "necro.reserve_powers").any()
        assert flat(a, "necro.reserve_powers_left")[0] == pytest.approx(1.0)  # the count is public
    mine = Observer(g).observe(st, 4)
    got = {(int(i) // 20, int(i) % 20) for i in np.flatnonzero(flat(mine, "necro.reserve_powers"))}
    assert got == {(k, p) for k, p in enumerate(st.necro_reserve) if p >= 0}  # slot k -> its power
    assert not np.array_equal(mine, Observer(g).observe(other, 4))
    open_obs = Observer(g, hide_necro_reserve=False)
    assert not np.array_equal(open_obs.observe(st, 0), Observer(g, hide_necro_reserve=False).observe(other, 0))
    # the state vector for critics reveals everything
    assert not np.array_equal(Observer(g).state_vector(st), Observer(g).state_vector(other))


def test_env_hides_the_reserve_by_default() -> None:
    """The env's observations follow the same rule (hide_necro_reserve defaults to True)."""
    env = necro_env.raw_env(players=4)
    env.reset(seed=0)
    env.step(int(np.flatnonzero(env.observe("necromancer_0")["action_mask"])[0]))
    st = env.game_state
    assert not flat(env.observe("player_0")["observation"], "necro.reserve_powers").any()
    assert flat(env.observe("necromancer_0")["observation"], "necro.reserve_powers").sum() == 5
    shown = necro_env.raw_env(players=4, hide_necro_reserve=False)
    shown.reset(seed=0)
    shown.step(int(np.flatnonzero(shown.observe("necromancer_0")["action_mask"])[0]))
    assert flat(shown.observe("player_0")["observation"], "necro.reserve_powers").sum() == 5
    assert len([p for p in st.necro_reserve if p >= 0]) == 5


# ------------------------------------------------------------------------------ masks and bounds
@pytest.mark.parametrize("players,necro", CONFIGS, ids=[f"{p}{'n' if n else 'b'}" for p, n in CONFIGS])
def test_mask_matches_engine_legality(players: int, necro: bool) -> None:
    """On thousands of random states the selected agent's mask equals the engine's legal set; others are empty."""
    env = necro_env.raw_env(players=players, necromancer=necro)
    rng = np.random.default_rng(players)
    checked = 0
    space = env.observation_space(env.possible_agents[0])
    for seed in range(4):
        env.reset(seed=seed)
        while env.agents and not env.terminations[env.agent_selection]:
            st = env.game_state
            agent = env.agent_selection
            obs = env.observe(agent)
            legal = env.game.legal_actions(st)
            assert np.flatnonzero(obs["action_mask"]).tolist() == legal
            if checked % 7 == 0:
                other = env.possible_agents[(st.decider + 1) % players]
                assert not env.observe(other)["action_mask"].any()
                assert space.contains(obs)
            env.step(int(rng.choice(legal)))
            checked += 1
    assert checked > 400


def test_observations_within_bounds_and_state() -> None:
    """Every observation lies in its Box; state() is the full view of the same size."""
    for players, necro in ((5, False), (6, True)):
        env = necro_env.raw_env(players=players, necromancer=necro, hide_coins=True)
        space = env.observation_space("player_0")["observation"]
        env.reset(seed=1)
        rng = np.random.default_rng(1)
        while not env.terminations[env.agent_selection]:
            for agent in env.possible_agents:
                o = env.observe(agent)["observation"]
                assert o.dtype == np.float32 and space.contains(o)
            s = env.state()
            assert s.shape == (OBS_SIZE,) and env.state_space.contains(s)
            env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))


def test_observations_are_fresh_arrays() -> None:
    """Each observe() returns new arrays (a stored observation never changes under the caller)."""
    env = necro_env.raw_env(players=4)
    env.reset(seed=0)
    a = env.observe("necromancer_0")
    keep = a["observation"].copy()
    env.step(int(np.flatnonzero(a["action_mask"])[0]))
    b = env.observe("necromancer_0")
    assert np.array_equal(a["observation"], keep)
    assert a["observation"] is not b["observation"] and a["action_mask"] is not b["action_mask"]


# ------------------------------------------------------------------------------ the incremental fill
@pytest.mark.parametrize("players,necro", [(2, False), (5, False), (3, True), (6, True)])
def test_incremental_fill_equals_fresh_fill(players: int, necro: bool) -> None:
    """An Observer that updates its buffers incrementally gives exactly what a fresh one computes."""
    rng = random.Random(players)
    for hide in (False, True):
        g = Game(GameConfig(players=players, necromancer=necro, hide_coins=hide))
        ob = Observer(g, hide_coins=hide)
        for _, st in random_states(players, necro, games=3, seed=players + hide):
            v = st.decider if (st.decider >= 0 and rng.random() < 0.7) else rng.randrange(players)
            assert np.array_equal(ob.observe(st, v), Observer(g, hide_coins=hide).observe(st, v))
            if rng.random() < 0.05:
                assert np.array_equal(ob.state_vector(st), Observer(g, hide_coins=hide).state_vector(st))


@pytest.mark.parametrize("players,necro", [(4, False), (5, True)])
def test_incremental_fill_over_unrelated_states(players: int, necro: bool) -> None:
    """States of different games in shuffled order (large jumps between calls) still give the fresh result."""
    rng = random.Random(7)
    g = Game(GameConfig(players=players, necromancer=necro))
    states = [st.clone() for _, st in random_states(players, necro, games=3, seed=11, every=4)]
    rng.shuffle(states)
    ob = Observer(g)
    for st in states[:200]:
        v = rng.randrange(players)
        assert np.array_equal(ob.observe(st, v), Observer(g).observe(st, v))


def test_token_count_outside_a_byte() -> None:
    """Token counts are diffed packed a byte per region; a hand-made count above 255 still shows (and back)."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Giants", "Commando", hand=5)
    put(g, st, 4, "Giants", 3)
    ob = Observer(g)
    ob.observe(st, 0)
    st.tok[4] = 300
    st.tok[7] = 1  # another region changes in the same call
    obs = ob.observe(st, 0)
    assert region(obs, 4, "tokens")[0] == pytest.approx(30.0)
    assert region(obs, 7, "tokens")[0] == pytest.approx(0.1)
    assert np.array_equal(obs, Observer(g).observe(st, 0))
    st.tok[4] = 2
    obs = ob.observe(st, 0)
    assert region(obs, 4, "tokens")[0] == pytest.approx(0.2)
    assert np.array_equal(obs, Observer(g).observe(st, 0))


def test_pending_decisions() -> None:
    """The pending decision shows: a Berserk roll waiting for its target, and a defender's decision."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Ratmen", "Berserk", hand=8)
    begin(g, st, seat=0)
    g.apply(st, encode((Kind.BERSERK_ROLL, 0)))
    obs = Observer(g).observe(st, 0)
    assert flat(obs, "glob.berserk_pending")[0] == 1
    assert np.flatnonzero(flat(obs, "glob.berserk_roll")).tolist() == [st.berserk]
    assert flat(obs, "glob.phase_onehot")[Phase.BERSERK] == 1
    # a defender: seat 1's Orcs hold 3 regions and lose one to seat 0: they choose where survivors go
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Giants", "Commando", hand=10)
    give_race(g, st, 1, "Orcs", "Merchant")
    first = [r for r in range(g.num_regions) if g.board.first_conquest_ok[r]]
    land = [r for r in range(g.num_regions) if r != first[0] and g.board.terrain[r] < 5]
    a, b, c = first[0], land[0], land[1]
    put(g, st, a, "Orcs", 3)
    put(g, st, b, "Orcs", 1)
    put(g, st, c, "Orcs", 1)
    begin(g, st, seat=0)
    g.apply(st, encode((Kind.CONQUER, a)))
    g.apply(st, encode((Kind.END_CONQUEST, 0)))
    while st.phase == Phase.REDEPLOY:
        g.apply(st, encode((Kind.END_REDEPLOY, 0)) if encode((Kind.END_REDEPLOY, 0)) in g.legal_actions(st)
                else g.legal_actions(st)[-1])
    assert st.phase == Phase.DEFEND and st.decider == 1 and st.turn_seat == 0
    obs = Observer(g).observe(st, 1)
    assert flat(obs, "glob.defending")[0] == 1 and flat(obs, "glob.own_turn")[0] == 0
    assert flat(obs, "glob.viewer_decides")[0] == 1
    assert np.flatnonzero(flat(obs, "glob.defend_race")).tolist() == [race_id("Orcs")]
    assert flat(obs, "glob.acting_hand")[0] == pytest.approx(st.hand[race_id("Orcs")] / 20)


@pytest.mark.parametrize("players,necro", [(2, False), (6, True)])
def test_graph_observation_matches_the_flat_one(players, necro):
    """``Observer.graph``: one node row per region (static + dynamic columns), every border in
    both directions, and the non-region blocks as globals, all equal to the flat observation."""
    from necro_env.game import Game, GameConfig
    from necro_env.observe import Observer
    g = Game(GameConfig(players=players, necromancer=necro))
    o = Observer(g)
    st = g.new_state(3)
    for _ in range(40):
        g.apply(st, g.legal_actions(st)[-1])
    flat_obs = o.observe(st, 1)
    gr = o.graph(st, 1)
    r = g.num_regions
    assert gr["nodes"].shape == (r, 36) and gr["nodes"].dtype == np.float32
    rs0, rd0, rl0 = OFFSETS["region_static"][0], OFFSETS["region"][0], OFFSETS["region_learn"][0]
    assert np.array_equal(gr["nodes"][:, :15], flat_obs[rs0:rs0 + 15 * r].reshape(r, 15))
    assert np.array_equal(gr["nodes"][:, 15:32], flat_obs[rd0:rd0 + 17 * r].reshape(r, 17))
    assert np.array_equal(gr["nodes"][:, 32:], flat_obs[rl0:rl0 + 4 * r].reshape(r, 4))
    pairs = set(map(tuple, gr["edge_index"].T.tolist()))
    assert pairs == {(a, b) for a in range(r) for b in g.board.neighbors[a]}
    assert np.array_equal(gr["globals"], flat_obs[OFFSETS["seat"][0]:])


def test_learning_features_from_a_hand_built_position() -> None:
    """region_learn: costs, reach and affordability of the conquering race, threat to each occupant (3-player
    board: Ratmen hold 3, whose neighbours are 2 (mountain), 4, 9 and 10 (mountain); Orcs x4 on 9, x1 on 10)."""
    from necro_env.game.positions import begin, empty_position, give_race, put
    from necro_env.observe import REGION_LEARN_COLS

    g, st = empty_position(players=3)
    give_race(g, st, 0, "Ratmen", hand=4)
    put(g, st, 3, "Ratmen", 1)
    give_race(g, st, 1, "Orcs")
    put(g, st, 9, "Orcs", 4)
    put(g, st, 10, "Orcs", 1)
    begin(g, st, 0)
    obs = Observer(g).observe(st, 0)
    s, _ = OFFSETS["region_learn"]
    learn = obs[s:s + 48 * 4].reshape(48, 4)
    col = {k: c for k, (c, _) in REGION_LEARN_COLS.items()}
    reach = {r for r in range(g.num_regions) if learn[r, col["reachable"]]}
    assert {2, 4, 9, 10} <= reach and 3 not in reach          # neighbours (and first-conquest regions), not its own
    costs = {r: round(float(learn[r, col["cost"]]) * 10) for r in (2, 4, 9, 10)}
    assert costs == {2: 3, 4: 2, 9: 6, 10: 4}
    assert {r for r in (2, 4, 9, 10) if learn[r, col["affordable"]]} == {2, 4, 10}
    # threat: region 3 (the Ratmen's) neighbours the Orcs' 9 and 10; the Orcs' 9 and 10 neighbour the Ratmen's 3
    assert round(float(learn[3, col["threat"]]) * 6) == 2
    assert round(float(learn[9, col["threat"]]) * 6) == 1 and round(float(learn[10, col["threat"]]) * 6) == 1
    # outside a conquest the cost columns are empty
    from necro_env.game import Kind, encode
    g.apply(st, encode((Kind.END_CONQUEST,)))
    obs = Observer(g).observe(st, 0)
    assert not obs[s:s + 48 * 4].reshape(48, 4)[:, :3].any()


@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_an_observer_survives_pickling_and_copying_mid_game(how: str) -> None:
    """Envs travel to worker processes (the chunked vec env pickles them): an Observer copied mid-game,
    its caches full, observes exactly what the original does from then on."""
    import copy
    import pickle

    g = Game(GameConfig(players=4))
    st = g.new_state(5)
    obs = Observer(g)
    rng = random.Random(3)
    for _ in range(60):
        for seat in range(g.num_seats):
            obs.observe(st, seat)
        g.apply(st, rng.choice(g.legal_actions(st)))
    twin = pickle.loads(pickle.dumps(obs)) if how == "pickle" else copy.deepcopy(obs)
    for _ in range(60):
        if st.over:
            break
        for seat in range(g.num_seats):
            np.testing.assert_array_equal(twin.observe(st, seat), obs.observe(st, seat))
        g.apply(st, rng.choice(g.legal_actions(st)))
