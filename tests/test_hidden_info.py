"""What each seat may know (issue "hidden information"): the illegal-action note, the single-seat view's
info, the Necromancer's BUY step under ``hide_coins``, ``glob.turn_order``, the Necromancer's price and
Island features, and a twin-state sweep: states that differ only in hidden information (deck order,
the random generator, the Necromancer's badges, a seat's coins under ``hide_coins``), stepped forward
through whole turns, must look the same to every seat that may not know the difference.
"""
from __future__ import annotations

import numpy as np
import pytest

import necro_env
from necro_env.game import Game, GameConfig, Kind, Phase
from necro_env.game.actions import END_BUY, PICK
from necro_env.game.catalog import GHOST
from necro_env.observe import OFFSETS, Observer
from necro_env.single_seat import SingleSeatEnv

from positions import empty_position, play, put

LAKE = 7          # the 2-player board (3 seats with the Necromancer)
P0, NECRO = 0, 2


def glob(obs: np.ndarray, name: str) -> np.ndarray:
    s, n = OFFSETS[name]
    return obs[s:s + n]


# ----------------------------------------------------------------------------- 1. the illegal-action note
def test_illegal_note_goes_to_the_offender_only():
    """The offender's info lists its legal actions (which reveal its coins); the others learn only who ended the game."""
    env = necro_env.env(players=3, necromancer=False, hide_coins=True)
    env.reset(seed=0)
    offender = env.agent_selection
    assert env.unwrapped.game_state.phase == Phase.PICK
    env.step(END_BUY)                       # in range, never legal in PICK
    assert all(env.terminations.values())
    mine = env.infos[offender]["illegal_action"]
    assert mine["agent"] == offender and mine["action"] == END_BUY and "legal now" in mine["message"]
    for a in env.possible_agents:
        if a == offender:
            continue
        note = env.infos[a]["illegal_action"]
        assert set(note) == {"agent", "message"} and note["agent"] == offender
        assert note["message"] == f"the game ended: {offender} played an illegal action"
    assert env.rewards[offender] == -1 and all(env.rewards[a] == 0 for a in env.possible_agents if a != offender)


# ----------------------------------------------------------------------------- 2. the single-seat view
def test_single_seat_info_holds_no_seed_and_hides_coins():
    """No seed (from which the deck order and the Necromancer's badges follow) in ``info``; ``privileged_info`` has it;
    ``hide_coins``/``hide_necro_reserve`` work as in the AEC env."""
    env = SingleSeatEnv(players=3, necromancer=False, learner="player", opponents="random", hide_coins=True)
    obs, info = env.reset(seed=3)
    assert set(info) == {"seat"}
    assert isinstance(env.privileged_info()["episode_seed"], int)
    s, w = OFFSETS["seat"]
    seats = obs[s:s + w].reshape(6, -1)
    assert seats[0, 2] > 0 and seats[0, 3] == 1          # own coins visible
    assert np.all(seats[1:3, 2:4] == 0)                    # the others' hidden
    done = False
    while not done:
        mask = env.action_masks()
        obs, _, done, _, info = env.step(int(np.flatnonzero(mask)[0]))
        assert "episode_seed" not in info
    necro = SingleSeatEnv(players=3, learner="player", opponents="random", learner_seat=0)
    obs, _ = necro.reset(seed=1)
    assert not glob(obs, "necro.reserve_powers").any() and not glob(obs, "necro.reserve_visible").any()
    shown = SingleSeatEnv(players=3, learner="player", opponents="random", learner_seat=0, hide_necro_reserve=False)
    obs, _ = shown.reset(seed=1)
    assert glob(obs, "necro.reserve_visible").all()
    with pytest.raises(ValueError, match="hide_coins must be a bool"):
        SingleSeatEnv(players=3, hide_coins="yes")


# ----------------------------------------------------------------------------- 3. the BUY step under hide_coins
@pytest.mark.parametrize("hide_coins", [False, True])
def test_buy_step_does_not_depend_on_hidden_coins(hide_coins):
    """GameConfig.hide_coins: the Necromancer's BUY step is entered with 0 coins too, END_BUY alone is a real decision
    (not skipped by skip_forced), and it stays open after a purchase he cannot repeat; without it the engine moves on."""
    g, st = empty_position(players=3, necromancer=True, hide_coins=hide_coins, skip_forced=True)
    put(g, st, 12, "Ghosts", 1)
    st.coins[NECRO] = 0
    g.begin_turn(st, NECRO)
    if hide_coins:
        assert st.phase == Phase.BUY and g.legal_actions(st) == [END_BUY]
        play(g, st, (Kind.END_BUY,))
    assert st.phase == Phase.CONQUER and st.cur_race == GHOST
    g, st = empty_position(players=3, necromancer=True, hide_coins=hide_coins, skip_forced=True)
    st.coins[NECRO] = 2      # price 1 power + 1 Ghost = 2: one purchase, then 1 coin left for a price of 3
    g.begin_turn(st, NECRO)
    assert st.phase == Phase.BUY
    play(g, st, (Kind.BUY_GHOST,))
    if hide_coins:
        assert st.phase == Phase.BUY and g.legal_actions(st) == [END_BUY]
    else:
        assert st.phase == Phase.CONQUER


@pytest.mark.parametrize("hide_coins", [False, True])
def test_pick_with_no_coins_is_not_skipped_under_hide_coins(hide_coins):
    """A PICK with one legal slot (0 coins) would be skipped as forced, which would tell the others his coins."""
    g = Game(GameConfig(players=2, necromancer=False, skip_forced=True, hide_coins=hide_coins))
    st = g.new_state(0)
    st.coins[0] = 0
    g.invalidate(st)
    assert g.legal_actions(st) == [PICK]
    g.begin_turn(st, 0)  # the engine's own turn start, forced decisions skipped
    assert (st.phase == Phase.PICK) == hide_coins


def test_turn_flags_reset_when_a_turn_begins():
    """glob.started / glob.placed (and nonempty, hold) are reset when a turn begins, so the Necromancer's BUY step
    does not show the previous seat's values."""
    env = necro_env.env(players=3)
    env.reset(seed=5)
    raw = env.unwrapped
    seen_buy = 0
    rng = np.random.default_rng(0)
    while env.agents and seen_buy < 3:
        st = raw.game_state
        if st.phase == Phase.BUY:
            seen_buy += 1
            assert st.started == st.placed == st.nonempty == st.hold == 0
            obs = raw.observe(env.agent_selection)["observation"]
            assert list(glob(obs, "glob.started")) == [1, 0, 0] and glob(obs, "glob.placed")[0] == 0
        obs, _, term, _, _ = env.last()
        env.step(None if term else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if not env.agents or env.unwrapped.game_state.over:
            env.reset(seed=int(rng.integers(1000)))
    assert seen_buy == 3


# ----------------------------------------------------------------------------- 4. turn order
@pytest.mark.parametrize("players,necro", [(2, False), (4, False), (5, False), (4, True)])
def test_turn_order_feature(players, necro):
    """glob.turn_order: one-hot of the viewer's place in the round (0 starts it), the same for a place whatever the
    state, different for different places; all zero in the centralised state vector."""
    g = Game(GameConfig(players=players, necromancer=necro))
    obs_by_seat: dict[int, set] = {}
    for seed in range(4):
        st = g.new_state(seed)
        o = Observer(g)
        rng = np.random.default_rng(seed)
        for _ in range(int(rng.integers(0, 60))):
            if st.over:
                break
            la = g.legal_actions(st)
            g.apply(st, la[int(rng.integers(len(la)))])
        for s in range(players):
            v = glob(o.observe(st, s), "glob.turn_order")
            assert v.sum() == 1 and v[s] == 1
            obs_by_seat.setdefault(s, set()).add(v.tobytes())
        assert not glob(o.state_vector(st), "glob.turn_order").any()
    assert all(len(v) == 1 for v in obs_by_seat.values())
    assert len({next(iter(v)) for v in obs_by_seat.values()}) == players


# ----------------------------------------------------------------------------- 5. the Necromancer's features
def test_price_and_island_returnable_features():
    """necro.price is the price of his next purchase (Ghosts readied into his hand count), necro.island_returnable
    the Ghosts he may still put back on the Island (RULES A14), 0 outside his turn."""
    g, st = empty_position(players=3, necromancer=True)
    put(g, st, 12, "Ghosts", 3)
    st.tray[GHOST] -= 3
    st.island += 3                       # 4 on the Island
    st.coins[NECRO] = 0
    o = Observer(g)
    before = o.observe(st, NECRO)
    assert glob(before, "necro.island_returnable")[0] == 0
    g.begin_turn(st, NECRO)
    assert st.hand[GHOST] == 6 and st.island == 0
    obs = o.observe(st, NECRO)
    price = st.race_power[GHOST].bit_count() + 3 + 4   # = what BUY would cost after this turn's redeployment
    assert glob(obs, "necro.price")[0] == pytest.approx(price / 20)
    assert glob(obs, "necro.island_returnable")[0] == pytest.approx(4 / 14)
    play(g, st, (Kind.END_CONQUEST,), (Kind.PLACE, LAKE), (Kind.PLACE, LAKE))
    obs = o.observe(st, P0)              # the players see it too (it is public)
    assert glob(obs, "necro.island_returnable")[0] == pytest.approx(2 / 14)
    assert glob(obs, "necro.price")[0] == pytest.approx(price / 20)


def test_render_as_hides_what_the_seat_may_not_know():
    """render_as(agent): the ansi text from one seat: others' coins hidden under hide_coins, badges hidden from players."""
    env = necro_env.env(players=3, hide_coins=True, render_mode="ansi")
    env.reset(seed=2)
    raw = env.unwrapped
    st = raw.game_state
    spectator = env.render()
    mine = raw.render_as("player_0")
    assert "coins   ?" in mine and f"coins {st.coins[0]:>3}" in mine
    drawn = st.necro_draw or [p for p in st.necro_reserve if p >= 0]
    from necro_env.game.catalog import POWERS
    hidden_names = [POWERS[p].name for p in drawn]
    assert all(n in spectator for n in hidden_names)
    assert "hidden" in mine
    assert "hidden" not in raw.render_as("necromancer_0")


# ----------------------------------------------------------------------------- 6. twin states
KINDS = ("deck", "rng", "badges", "coins")


def _twin(engine: dict, kind: str, rng: np.random.Generator, n_seats: int, necro_seat: int):
    """A copy of the engine dict differing only in hidden information; the seats that know the difference
    (None if the change is impossible here)."""
    e = {k: (v[:] if isinstance(v, list) else v) for k, v in engine.items()}
    if kind == "deck":
        if len(e["race_deck"]) < 2 and len(e["power_deck"]) < 2:
            return None
        for f in ("race_deck", "power_deck"):
            d = e[f]
            if len(d) >= 2:
                i, j = rng.choice(len(d), 2, replace=False)
                d[i], d[j] = d[j], d[i]
        return e, set()
    if kind == "rng":
        e["rng"] = int(rng.integers(1, 2**63))
        return e, set()
    if kind == "badges":
        slots = "necro_draw" if e["necro_draw"] else "necro_reserve"
        own = [k for k, p in enumerate(e[slots]) if p >= 0]
        if necro_seat < 0 or not own or not e["power_deck"]:
            return None
        from necro_env.game.catalog import POWERS
        deck = [k for k, p in enumerate(e["power_deck"]) if POWERS[p].necromancer_ok]
        if not deck:
            return None
        k, d = own[int(rng.integers(len(own)))], deck[int(rng.integers(len(deck)))]
        e[slots][k], e["power_deck"][d] = e["power_deck"][d], e[slots][k]
        return e, {necro_seat}
    seat = int(rng.integers(n_seats))
    e["coins"][seat] += int(rng.integers(1, 25))
    return e, {seat}


def _revealed(a, b) -> bool:
    """True once the twins legitimately differ in public information (a card was drawn, a die rolled, a
    badge bought, the game ended)."""
    sa, sb = a.game_state, b.game_state
    return (sa.col_race != sb.col_race or sa.col_power != sb.col_power or sa.last_die != sb.last_die
            or sa.race_power != sb.race_power or sa.power_discard != sb.power_discard or sa.over or sb.over)


@pytest.mark.parametrize("players,necro", [(2, False), (3, False), (5, False), (3, True), (4, True), (6, True)])
def test_twin_states_look_the_same_to_seats_that_may_not_know(players, necro):
    """Positions from random play, a twin differing only in hidden information, both stepped through whole turns
    with the same actions: every seat that may not know the difference sees identical observations, masks,
    infos and rewards, until public information legitimately differs."""
    rng = np.random.default_rng(players * 10 + necro)
    cases = 240 if players <= 3 else 120
    checked = 0
    for case in range(cases):
        kind = KINDS[case % len(KINDS)]
        hide = kind == "coins" or bool(case % 2)
        a = necro_env.raw_env(players=players, necromancer=necro, hide_coins=hide)
        b = necro_env.raw_env(players=players, necromancer=necro, hide_coins=hide)
        a.reset(seed=int(rng.integers(10_000)))
        for _ in range(int(rng.integers(0, 150))):
            if a.game_state.over:
                break
            a.step(int(rng.choice(np.flatnonzero(a.observe(a.agent_selection)["action_mask"]))))
        if a.game_state.over:
            continue
        saved = a.get_state()
        twin = _twin(saved["engine"], kind, rng, players, a.game.necro_seat)
        if twin is None:
            continue
        saved["engine"], knowing = twin
        b.set_state(saved, verify=False)
        watchers = [ag for ag in a.possible_agents if a.seat_of(ag) not in knowing]
        start_seat, turns = a.game_state.turn_seat, 0
        while turns < 2 and not _revealed(a, b):
            for ag in watchers:
                oa, ob = a.observe(ag), b.observe(ag)
                assert np.array_equal(oa["observation"], ob["observation"]), (kind, ag)
                assert np.array_equal(oa["action_mask"], ob["action_mask"]), (kind, ag)
                assert a.infos[ag] == b.infos[ag] and a._cumulative_rewards[ag] == b._cumulative_rewards[ag]
            assert a.agent_selection == b.agent_selection, kind
            ag = a.agent_selection
            common = np.flatnonzero(a.observe(ag)["action_mask"] & b.observe(ag)["action_mask"])
            assert len(common), (kind, ag)  # the same decision is open in both twins
            action = int(rng.choice(common))
            a.step(action)
            b.step(action)
            if a.game_state.turn_seat != start_seat:
                start_seat, turns = a.game_state.turn_seat, turns + 1
            checked += 1
    assert checked > 5 * cases
