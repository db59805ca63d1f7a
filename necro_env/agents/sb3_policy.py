"""A MaskablePPO model (sb3-contrib ``.zip``) as a policy: ``act`` reads ``view.observation`` and ``view.mask``.

``sb3_contrib`` (and torch) are imported only when a model is loaded, never by ``import necro_env``.
The model must have been trained on the flat observation of ``necro_env.observe.Observer`` with the
engine's action table (``Discrete(NUM_ACTIONS)``); it plays greedily (``deterministic=True``) and
always within the mask. Training code can build on ``SB3Policy`` (e.g. wrap an in-memory model).
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
        action, _ = self.model.predict(view.observation, action_masks=mask, deterministic=self.deterministic)
        return int(np.asarray(action).reshape(-1)[0])


def load_sb3_policy(path: str, role: str = "player") -> SB3Policy:
    """``MaskablePPO.load(path, device="cpu")`` wrapped as a policy named after the file."""
    try:
        import torch
        from sb3_contrib import MaskablePPO
    except ImportError as e:  # pragma: no cover - depends on the install
        from necro_env.game.errors import ConfigError

        raise ConfigError(f"loading {path} needs sb3-contrib and torch (pip install necro_env[train]): {e}") from None
    torch.set_num_threads(1)
    model = MaskablePPO.load(path, device="cpu")
    return SB3Policy(model, name=os.path.basename(path))


__all__ = ["SB3Policy", "load_sb3_policy"]
