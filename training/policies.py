"""Trained-policy helpers for training: acting with a MaskablePPO model, the self-play pool,
and the quick evaluation used by the periodic evaluation callback."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch

from necro_env.agents.registry import make_policy
from necro_env.stats import wilson
from necro_env.wrappers import SingleSeatEnv


class ModelPolicy:
    """Wraps a MaskablePPO model as a policy with ``act(view, rng)``.

    deterministic: take the most probable legal action; otherwise sample from the
    masked distribution with the given ``rng`` (so opponents stay reproducible).
    """

    def __init__(self, model: Any, name: str = "model", deterministic: bool = False):
        self.model = model
        self.name = name
        self.deterministic = deterministic

    def probs(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        policy = self.model.policy
        with torch.no_grad():
            t = torch.as_tensor(obs, dtype=torch.float32).unsqueeze(0)
            dist = policy.get_distribution(t, action_masks=mask[None, :])
            return dist.distribution.probs[0].numpy()

    def act(self, view, rng: np.random.Generator) -> int:
        mask = np.asarray(view.mask, dtype=bool)
        p = self.probs(view.observation, mask)
        if self.deterministic:
            return int(np.argmax(np.where(mask, p, -1.0)))
        p = np.where(mask, p, 0.0).astype(np.float64)
        p /= p.sum()
        return int(rng.choice(len(p), p=p))


def load_model_policy(path: str | Path, deterministic: bool = False) -> ModelPolicy:
    from sb3_contrib import MaskablePPO
    model = MaskablePPO.load(str(path), device="cpu")
    return ModelPolicy(model, name=Path(path).name, deterministic=deterministic)


class SnapshotSampler:
    """Self-play opponents: each seat gets a snapshot from the pool with probability
    ``p_snapshot``, else the baseline. Snapshots are read from ``pool_dir`` (newest
    ``pool_size``) and loaded once per process."""

    def __init__(self, pool_dir: Path, baseline: str, p_snapshot: float, pool_size: int):
        self.pool_dir = Path(pool_dir)
        self.baseline = make_policy(baseline, "player")
        self.p = p_snapshot
        self.pool_size = pool_size
        self._cache: dict[str, ModelPolicy] = {}

    def __call__(self, rng: np.random.Generator, seat: int):
        snaps = sorted(self.pool_dir.glob("snap_*.zip"))[-self.pool_size:] if self.pool_dir.exists() else []
        if snaps and rng.random() < self.p:
            return self.restore(snaps[int(rng.integers(len(snaps)))].name)
        return self.baseline

    def restore(self, name: str):
        if name == getattr(self.baseline, "name", None):
            return self.baseline
        if name not in self._cache:
            self._cache[name] = load_model_policy(self.pool_dir / name)
        return self._cache[name]


def evaluate_policy_vs(model: Any, cfg, games: int, seed: int) -> dict:
    """Win rate of the deterministic ``model`` in the learner's role against ``cfg``'s
    evaluation opponents, over ``games`` seeded games (same seeds every call)."""
    env = SingleSeatEnv(
        players=cfg.players, learner=cfg.learner, opponents=cfg.eval_opponents or cfg.opponents,
        necromancer_opponent=cfg.necromancer_opponent, reward="win", necromancer=cfg.necromancer,
        **cfg.game_options,
    )
    env.reset(seed=seed)
    wins = 0
    for _ in range(games):
        obs, _ = env.reset()
        done = False
        reward = 0.0
        while not done:
            action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
            obs, reward, done, _, _ = env.step(int(action))
        wins += reward > 0
    lo, hi = wilson(wins, games)
    return {"wins": int(wins), "games": games, "win_rate": wins / games, "lo": lo, "hi": hi}
