"""The masking RLModule for Ray RLlib's new API stack (``training/rllib_train.py`` trains it).

It reads necro_env's observation dict as the env gives it, ``{"observation": float32[OBS_SIZE],
"action_mask": int8[NUM_ACTIONS]}`` (no renaming of keys), and is a PPO module: an actor MLP whose
logits of illegal actions are set to the most negative float (so sampling, argmax and the entropy
stay within the mask, and an all-zero mask, which only terminal observations have, gives a uniform
distribution instead of NaNs), and a separate critic MLP (``ValueFunctionAPI.compute_values``).

``model_config``: ``hidden`` (list of layer widths, default ``[256, 256]``). The module lives in the
package, not in ``training/``, because an RLlib checkpoint names its module class by import path:
``necro-env evaluate --necromancer rllib:PATH#necromancer`` must be able to import it. It imports
ray and torch at the top and is imported only by the ``rllib:`` policy loader and RLlib training code.
"""
from __future__ import annotations

from typing import Any

import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule
from torch import nn

MASKED_LOGIT = torch.finfo(torch.float32).min  # exp() of it is 0: masked actions are never sampled


def _mlp(sizes: list[int], out: int) -> nn.Sequential:
    layers: list[nn.Module] = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        layers += [nn.Linear(a, b), nn.Tanh()]
    layers.append(nn.Linear(sizes[-1], out))
    return nn.Sequential(*layers)


class MaskedPPOModule(TorchRLModule, ValueFunctionAPI):
    """Actor and critic MLPs over ``obs["observation"]``, logits masked by ``obs["action_mask"]``."""

    def setup(self) -> None:
        cfg = dict(self.model_config or {})
        hidden = [int(h) for h in cfg.get("hidden", [256, 256])]
        obs_dim = int(self.observation_space["observation"].shape[0])
        n = int(self.action_space.n)
        self.pi = _mlp([obs_dim, *hidden], n)
        self.vf = _mlp([obs_dim, *hidden], 1)

    def _forward(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        logits = self.pi(obs["observation"])
        legal = obs["action_mask"] > 0
        return {Columns.ACTION_DIST_INPUTS: torch.where(legal, logits, torch.full_like(logits, MASKED_LOGIT))}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        return self.vf(batch[Columns.OBS]["observation"]).squeeze(-1)


__all__ = ["MaskedPPOModule", "MASKED_LOGIT"]
