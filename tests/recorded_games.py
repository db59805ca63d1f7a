"""Game records for the viewer tests: whole games of random legal play through the env."""
from __future__ import annotations

import numpy as np

import necro_env


def random_record(players: int, necromancer: bool, seed: int) -> dict:
    """A whole game of uniformly random legal play (choices seeded by ``seed``), as its record."""
    env = necro_env.env(players=players, necromancer=necromancer)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _agent in env.agent_iter():
        obs, _r, term, trunc, _i = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return env.unwrapped.record()
