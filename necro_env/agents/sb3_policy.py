"""A MaskablePPO model (sb3-contrib ``.zip``) as a policy: ``act`` reads ``view.observation`` and ``view.mask``.

``sb3_contrib`` (and torch) are imported only when a model is loaded, never by ``import necro_env``.
The model must have been trained on the flat observation of ``necro_env.observe.Observer`` with the
engine's action table (``Discrete(NUM_ACTIONS)``). It plays greedily by default (``deterministic=True``);
with ``deterministic=False`` it samples from the masked action distribution with the ``rng`` it is
handed (never torch's global generator), so seeded matches against it replay exactly. It always
stays within the mask. Training code uses it for in-memory models and self-play snapshots.
"""
from __future__ import annotations

import os

import numpy as np

from .base import BasePolicy, View


class SB3Policy(BasePolicy):
    """Wraps a loaded sb3-contrib ``MaskablePPO`` (or anything with ``predict(obs, action_masks=...)``)."""

    def __init__(self, model, name: str = "sb3", deterministic: bool = True) -> None:
        self.model = model
        self.name = name
        self.deterministic = deterministic

    def act(self, view: View, rng: np.random.Generator) -> int:
        mask = view.mask.astype(bool)
        if self.deterministic:
            action, _ = self.model.predict(view.observation, action_masks=mask, deterministic=True)
            return int(np.asarray(action).reshape(-1)[0])
        p = np.where(mask, self.probabilities(view.observation, mask), 0.0)
        return int(rng.choice(len(p), p=p / p.sum()))

    def probabilities(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The model's masked action probabilities for one observation (float64)."""
        import torch

        with torch.no_grad():
            t = torch.as_tensor(obs, dtype=torch.float32).unsqueeze(0)
            dist = self.model.policy.get_distribution(t, action_masks=mask[None, :])
            return dist.distribution.probs[0].numpy().astype(np.float64)


def load_sb3_policy(path: str, role: str = "player", deterministic: bool = True) -> SB3Policy:
    """``MaskablePPO.load(path, device="cpu")`` wrapped as a policy named after the file."""
    try:
        import torch
        from sb3_contrib import MaskablePPO
    except ImportError as e:  # pragma: no cover - depends on the install
        from necro_env.game.errors import ConfigError

        raise ConfigError(f"loading {path} needs sb3-contrib and torch (pip install necro_env[train]): {e}") from None
    torch.set_num_threads(1)
    model = MaskablePPO.load(path, device="cpu")
    return SB3Policy(model, name=os.path.basename(path), deterministic=deterministic)


__all__ = ["SB3Policy", "load_sb3_policy"]
