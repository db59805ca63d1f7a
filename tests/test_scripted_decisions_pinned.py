"""The scripted policies' decisions are pinned: a digest of every action ``greedy``, ``heuristic`` and
``heuristic_bold`` take in seeded games (Necromancer Island on 3-6 seats, the base game on 2-5 seats).
The digests were taken with the policies of 3710629 (before their per-decision caches): a speed change
that alters any decision, however slightly, changes them."""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

from necro_env.agents import GreedyAgent, NecromancerHeuristic, View
from necro_env.agents.necromancer import BoldNecromancerHeuristic
from necro_env.game import Game, GameConfig

PINNED = {
    "scenario": "62ebe8593c26b719",
    "base": "c231e65938fb22d2",
}


def digest(necromancer: bool, games: int = 4) -> str:
    h = hashlib.sha256()
    seats = (3, 4, 5, 6) if necromancer else (2, 3, 4, 5)
    last_seat = (NecromancerHeuristic, BoldNecromancerHeuristic, GreedyAgent) if necromancer else (GreedyAgent,)
    for n in seats:
        for cls in last_seat:
            game = Game(GameConfig(players=n, necromancer=necromancer))
            policies = [GreedyAgent()] * (n - 1) + [cls()]
            for g in range(games):
                st = game.new_state(seed=100 + g)
                rngs = [np.random.default_rng([g, s]) for s in range(n)]
                while not st.over:
                    seat = st.decider
                    a = int(policies[seat].act(View(game, st, seat), rngs[seat]))
                    h.update(a.to_bytes(2, "little"))
                    game.apply(st, a)
    return h.hexdigest()[:16]


@pytest.mark.parametrize("kind", ["scenario", "base"])
def test_scripted_decisions_are_pinned(kind: str) -> None:
    assert digest(kind == "scenario") == PINNED[kind]
