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

from .base import BasePolicy, PolicyFileError, PolicyOutputError, UntrustedPolicyError, View


class SB3Policy(BasePolicy):
    """Wraps a loaded sb3-contrib ``MaskablePPO`` (or anything with ``predict(obs, action_masks=...)``)."""

    def __init__(self, model, name: str = "sb3", deterministic: bool = True) -> None:
        self.model = model
        self.name = name
        self.deterministic = deterministic

    def act(self, view: View, rng: np.random.Generator) -> int:
        """The model's choice among the legal actions; ``PolicyOutputError`` if it has none to give
        (sb3-contrib masks with a finite -1e8, so a model whose legal logits are all below that would
        pick a masked action: refused here rather than played)."""
        mask = view.mask.astype(bool)
        if self.deterministic:
            action, _ = self.model.predict(view.observation, action_masks=mask, deterministic=True)
            a = int(np.asarray(action).reshape(-1)[0])
            if not mask[a]:
                raise PolicyOutputError(f"policy {self.name} chose the illegal action {a}: its logits of every "
                                        f"legal action are below sb3-contrib's mask value")
            return a
        p = np.where(mask, self.probabilities(view.observation, mask), 0.0)
        total = p.sum()
        if not (np.isfinite(p).all() and total > 0):
            raise PolicyOutputError(f"policy {self.name}: no finite probability over the legal actions")
        return int(rng.choice(len(p), p=p / total))

    def probabilities(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The model's masked action probabilities for one observation (float64)."""
        import torch

        with torch.no_grad():
            t = torch.as_tensor(obs, dtype=torch.float32).unsqueeze(0)
            dist = self.model.policy.get_distribution(t, action_masks=mask[None, :])
            return dist.distribution.probs[0].numpy().astype(np.float64)


def load_sb3_policy(path: str, role: str = "player", deterministic: bool = True, *,
                    trusted: bool = False) -> SB3Policy:
    """``MaskablePPO.load(path, device="cpu")`` wrapped as a policy named after the file.

    An SB3 ``.zip`` holds pickled Python objects: loading one can run any code, so this refuses
    unless ``trusted=True`` (for files you made, e.g. your own training run's, or trust like a
    program). ``PolicyFileError`` if the file is not a MaskablePPO model for this env."""
    from necro_env.game import NUM_ACTIONS
    from necro_env.observe import OBS_SIZE

    if not trusted:
        raise UntrustedPolicyError(f"refusing to load {path} without trusted=True: an SB3 .zip is a pickle and "
                                   f"loading it can run code")
    if not os.path.isfile(path):
        raise PolicyFileError(f"policy file {path} does not exist")
    try:
        import torch
        from sb3_contrib import MaskablePPO
    except ImportError as e:  # pragma: no cover - depends on the install
        from necro_env.game.errors import ConfigError

        raise ConfigError(f"loading {path} needs sb3-contrib and torch (pip install necro_env[train]): {e}") from None
    torch.set_num_threads(1)
    try:
        model = MaskablePPO.load(path, device="cpu")
    except Exception as e:  # a foreign file fails in many ways inside SB3: report which file and why
        raise PolicyFileError(f"{path} is not a loadable MaskablePPO model ({type(e).__name__}: {e})") from None
    obs, act = getattr(model, "observation_space", None), getattr(model, "action_space", None)
    if getattr(obs, "shape", None) != (OBS_SIZE,) or getattr(act, "n", None) != NUM_ACTIONS:
        raise PolicyFileError(f"{path} is a model for another env: observation shape {getattr(obs, 'shape', None)}, "
                              f"actions {getattr(act, 'n', None)}; necro_env needs ({OBS_SIZE},) and {NUM_ACTIONS}")
    return SB3Policy(model, name=os.path.basename(path), deterministic=deterministic)


__all__ = ["SB3Policy", "load_sb3_policy"]
