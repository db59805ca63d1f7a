"""Trained-policy helpers for training: the self-play pool of snapshots and the quick
evaluation used by the periodic evaluation callback. Snapshots play through
``necro_env.agents.sb3_policy.SB3Policy`` (sampling with the env's own generator)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from necro_env.agents.registry import make_policy
from necro_env.agents.sb3_policy import SB3Policy, load_sb3_policy
from necro_env.stats import wilson
from necro_env.wrappers import SingleSeatEnv


class SnapshotSampler:
    """Self-play opponents: each seat gets a snapshot from the pool with probability
    ``p_snapshot``, else the baseline. Snapshots are read from ``pool_dir`` (newest
    ``pool_size``) and loaded once per process."""

    def __init__(self, pool_dir: Path, baseline: str, p_snapshot: float, pool_size: int):
        self.pool_dir = Path(pool_dir)
        self.baseline = make_policy(baseline, "player")
        self.p = p_snapshot
        self.pool_size = pool_size
        self._cache: dict[str, SB3Policy] = {}

    def __call__(self, rng: np.random.Generator, seat: int):
        snaps = sorted(self.pool_dir.glob("snap_*.zip"))[-self.pool_size:] if self.pool_dir.exists() else []
        if snaps and rng.random() < self.p:
            return self.restore(snaps[int(rng.integers(len(snaps)))].name)
        return self.baseline

    def restore(self, name: str):
        if name == getattr(self.baseline, "name", None):
            return self.baseline
        if name not in self._cache:
            import torch

            threads = torch.get_num_threads()  # loading must not change the trainer's setting
            self._cache[name] = load_sb3_policy(str(self.pool_dir / name), "player", deterministic=False)
            torch.set_num_threads(threads)
        return self._cache[name]


def evaluate_policy_vs(model: Any, cfg, games: int, seed: int) -> dict:
    """Win rate of the deterministic ``model`` in the learner's role against ``cfg``'s
    evaluation opponents, over ``games`` seeded games (same seeds every call)."""
    env = SingleSeatEnv(
        players=cfg.players, learner=cfg.learner, opponents=cfg.eval_opponents or cfg.opponents,
        necromancer_opponent=cfg.necromancer_opponent, reward="win", necromancer=cfg.necromancer,
        **cfg.game_options,
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
