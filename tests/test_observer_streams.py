"""The incremental ``Observer`` on long observation streams, against the slow reference encoder.

``test_observer_reference.py`` compares sampled steps; here every decision of seeded random games
(about 7,000 in all: 2-5 seats base game, 3-6 Necromancer, ``hide_coins`` and ``hide_necro_reserve``
on and off) is compared for a viewer drawn at random, every few steps every viewer in a shuffled
order and the state vector, and the stream is broken on purpose: states of other games in between
(large jumps back and forth) and the Observer pickled mid-game. Any update the incremental writer
misses, or makes for the wrong seat, shows up as a difference from the reference.
"""
from __future__ import annotations

import pickle
import random

import numpy as np
import pytest

from necro_env.game import Game, GameConfig
from necro_env.observe import Observer

from reference_observer import reference_observation, reference_state_vector

CONFIGS = [(2, False), (3, False), (4, False), (5, False), (3, True), (4, True), (5, True), (6, True)]


def _same(fast: np.ndarray, ref: np.ndarray, what: str) -> None:
    bad = np.flatnonzero(fast != ref)
    assert bad.size == 0, f"{what}: {bad.size} entries differ, first at {bad[:8].tolist()}"


@pytest.mark.parametrize("hide_reserve", [True, False], ids=["reserve_hidden", "reserve_shown"])
@pytest.mark.parametrize("hide_coins", [False, True], ids=["coins_shown", "hide_coins"])
@pytest.mark.parametrize("players,necro", CONFIGS)
def test_observation_stream_equals_reference(players: int, necro: bool, hide_coins: bool, hide_reserve: bool) -> None:
    rng = random.Random(f"{players} {necro} {hide_coins} {hide_reserve}")
    game = Game(GameConfig(players=players, necromancer=necro, hide_coins=hide_coins, skip_forced=rng.random() < 0.5))
    ob = Observer(game, hide_necro_reserve=hide_reserve)

    def check(st, viewer: int, step: int) -> None:
        ref = reference_observation(game, st, viewer, hide_coins=hide_coins, hide_necro_reserve=hide_reserve)
        _same(ob.observe(st, viewer), ref, f"step {step} viewer {viewer}")

    others = []   # states of an earlier game of the same Game
    st = game.new_state(rng.randrange(1 << 30))
    for k in range(120):
        if st.over:
            break
        if k % 2 == 0:
            others.append(st.clone())
        game.apply(st, rng.choice(game.legal_actions(st)))
    st = game.new_state(rng.randrange(1 << 30))
    step = 0
    while True:
        if step % 9 == 0:
            viewers = list(range(players))
            rng.shuffle(viewers)
            for v in viewers:
                check(st, v, step)
            _same(ob.state_vector(st), reference_state_vector(game, st), f"step {step} state vector")
        else:
            check(st, rng.randrange(players), step)
        if step % 37 == 5 and others:   # a jump to another game's state and back
            check(rng.choice(others), rng.randrange(players), step)
        if step % 101 == 50:
            ob = pickle.loads(pickle.dumps(ob))
        if st.over:
            break
        game.apply(st, rng.choice(game.legal_actions(st)))
        step += 1
    assert step > 100
