"""Trained-policy helpers for training: the self-play pool of snapshots and the quick
evaluation used by the periodic evaluation callback. Snapshots play through
``necro_env.agents.sb3_policy.SB3Policy`` (sampling with the env's own generator).

Snapshots are SB3 ``.zip`` files (pickles) that this run wrote into its own directory: they are
loaded as trusted, like the run's checkpoints. Only names of the form ``snap_<steps>.zip`` inside
the pool directory are ever loaded (a saved env state cannot point elsewhere)."""
from __future__ import annotations

import re

from pathlib import Path
from typing import Any

import numpy as np

from necro_env.agents.registry import make_policy
from necro_env.agents.sb3_policy import SB3Policy, load_sb3_policy
from necro_env.game.errors import StateError
from necro_env.stats import wilson
from necro_env.wrappers import SingleSeatEnv


class SnapshotSampler:
    """Self-play opponents: each seat gets a snapshot from the pool with probability
    ``p_snapshot``, else the baseline. Snapshots are read from ``pool_dir`` (newest
    ``pool_size``) and loaded once per process."""

    SNAPSHOT = re.compile(r"snap_[0-9]{10}\.zip")

    def __init__(self, pool_dir: Path, baseline: str, p_snapshot: float, pool_size: int, trusted: bool = False):
        self.pool_dir = Path(pool_dir)
        self.baseline = make_policy(baseline, "player", trusted=trusted)
        self.p = p_snapshot
        self.pool_size = pool_size
        self._cache: dict[str, SB3Policy] = {}

    def __call__(self, rng: np.random.Generator, seat: int):
        snaps = sorted(self.pool_dir.glob("snap_*.zip"))[-self.pool_size:] if self.pool_dir.exists() else []
        if snaps and rng.random() < self.p:
            return self.restore(snaps[int(rng.integers(len(snaps)))].name)
        return self.baseline

    def restore(self, name: str):
        """The policy called ``name`` (the baseline's name or a snapshot file of the pool)."""
        if name == getattr(self.baseline, "name", None):
            return self.baseline
        if not isinstance(name, str) or not self.SNAPSHOT.fullmatch(name) or not (self.pool_dir / name).is_file():
            raise StateError(f"no opponent {name!r} here: expected the baseline "
                             f"{getattr(self.baseline, 'name', None)!r} or a snap_<10 digits>.zip of {self.pool_dir}")
        if name not in self._cache:
            import torch

            threads = torch.get_num_threads()  # loading must not change the trainer's setting
            self._cache[name] = load_sb3_policy(str(self.pool_dir / name), "player", deterministic=False,
                                                trusted=True)  # this run's own snapshot
            torch.set_num_threads(threads)
        return self._cache[name]


def evaluate_policy_vs(model: Any, cfg, games: int, seed: int, trusted: bool = False) -> dict:
    """Win rate of the deterministic ``model`` in the learner's role against ``cfg``'s
    evaluation opponents, over ``games`` seeded games (same seeds every call)."""
    env = SingleSeatEnv(
        players=cfg.players, learner=cfg.learner, opponents=cfg.eval_opponents or cfg.opponents,
        necromancer_opponent=cfg.necromancer_opponent, reward="win", necromancer=cfg.necromancer,
        trusted=trusted, **cfg.game_options,
    )
    wins = 0
    for i in range(games):
        obs, _ = env.reset(seed=seed) if i == 0 else env.reset()
        done = False
        reward = 0.0
        while not done:
            action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
            obs, reward, done, _, _ = env.step(int(action))
        wins += reward > 0
    lo, hi = wilson(wins, games)
    return {"wins": int(wins), "games": games, "win_rate": wins / games, "lo": lo, "hi": hi}
