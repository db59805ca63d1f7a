"""The fast incremental ``Observer`` against the slow reference encoder (``reference_observer.py``).

Random games on every seat count (2-5 base game, 3-6 Necromancer), hide_coins on and off.
The fast observer follows every step of every game (so its incremental updates run on
every transition); at sampled steps every viewer's observation and the state vector must
equal the reference bit for bit. A wrong column, scale or a missed update shows up here.
"""
from __future__ import annotations

import numpy as np
import pytest

from necro_env.game import Game, GameConfig
from necro_env.observe import OFFSETS, ROW_TABLES, ROW_WIDTHS, Observer

from reference_observer import reference_observation, reference_state_vector

CONFIGS = [(2, False), (3, False), (4, False), (5, False), (3, True), (4, True), (5, True), (6, True)]
GAMES = 20            # per seat count and hide_coins setting: 320 games in all
SAMPLES = 6           # steps per game compared viewer by viewer (plus the first and the last)


def _feature(i: int) -> str:
    """The name of observation entry ``i``: ``block[row].column+k`` or ``block.feature+k``."""
    for block, cols in ROW_TABLES.items():
        start, length = OFFSETS[block]
        if start <= i < start + length:
            row, c = divmod(i - start, ROW_WIDTHS[block])
            name, (col, _) = next((n, cw) for n, cw in cols.items() if cw[0] <= c < cw[0] + cw[1])
            return f"{block}[{row}].{name}+{c - col}"
    name, (start, _) = next((k, v) for k, v in OFFSETS.items() if "." in k and v[0] <= i < v[0] + v[1])
    return f"{name}+{i - start}"


def _where(fast: np.ndarray, ref: np.ndarray) -> str:
    """The features in which two vectors differ, by name."""
    return "; ".join(f"{_feature(i)}: fast {fast[i]} reference {ref[i]}" for i in np.flatnonzero(fast != ref)[:8])


def _check(game: Game, ob: Observer, st, hide: bool) -> None:
    for v in range(game.num_seats):
        fast, ref = ob.observe(st, v), reference_observation(game, st, v, hide_coins=hide)
        assert np.array_equal(fast, ref), f"viewer {v}: {_where(fast, ref)}"
    fast, ref = ob.state_vector(st), reference_state_vector(game, st)
    assert np.array_equal(fast, ref), f"state vector: {_where(fast, ref)}"


@pytest.mark.parametrize("hide", [False, True], ids=["coins_shown", "hide_coins"])
@pytest.mark.parametrize("players,necro", CONFIGS)
def test_fast_observer_equals_reference(players: int, necro: bool, hide: bool) -> None:
    rng = np.random.default_rng([players, necro, hide])
    for k in range(GAMES):
        options = {"final_die": "any"} if k % 3 == 1 else {}
        game = Game(GameConfig(players=players, necromancer=necro, hide_coins=hide, skip_forced=k % 2 == 0,
                               **options))
        ob = Observer(game)
        st = game.new_state(int(rng.integers(1 << 62)))
        steps = 0
        sample = set(rng.integers(0, 400, size=SAMPLES).tolist()) | {0}
        while not st.over:
            if steps in sample:
                _check(game, ob, st, hide)
            else:
                ob.observe(st, st.decider)  # the incremental update runs on every step
            la = game.legal_actions(st)
            game.apply(st, la[int(rng.integers(len(la)))])
            steps += 1
        _check(game, ob, st, hide)


def test_reference_catches_a_wrong_column() -> None:
    """The comparison is not vacuous: a fast vector with one feature moved disagrees with the reference."""
    game = Game(GameConfig(players=4))
    st = game.new_state(1)
    for _ in range(30):
        game.apply(st, game.legal_actions(st)[-1])
    obs = Observer(game).observe(st, 0)
    assert np.array_equal(obs, reference_observation(game, st, 0))
    hand, tray = (OFFSETS["seat"][0] + ROW_TABLES["seat"][c][0] for c in ("hand", "tray"))
    broken = obs.copy()
    broken[hand], broken[tray] = obs[tray], obs[hand]  # the viewer's hand and tray swapped
    assert obs[hand] != obs[tray] and not np.array_equal(broken, reference_observation(game, st, 0))
    assert _feature(hand) == "seat[0].hand+0" and _feature(OFFSETS["glob.phase_onehot"][0] + 2) == "glob.phase_onehot+2"
