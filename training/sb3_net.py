"""``NetActorCriticPolicy``: sb3-contrib's masked actor-critic policy around a ``necro_env.agents.nets`` network.

MaskablePPO trains it like its own ``MlpPolicy`` (same losses, masking, rollout code); the network
(``RegionNet`` or ``MlpNet``) computes the logits of every action and the value in one pass, so the
per-region heads and the weight sharing of ``RegionNet`` are used as they are. Pass the network's
architecture dict as ``policy_kwargs={"net_arch_spec": {...}}`` (``necro_env.agents.nets.build_net``).
``policy.net`` is a plain ``nn.Module``: ``necro_env.agents.torch_policy.save_policy(policy.net, ...)``
writes the weights-only file users load (no SB3 needed to play it).
"""
from __future__ import annotations

from typing import Any

import numpy as np
import torch
from sb3_contrib.common.maskable.distributions import MaskableCategorical
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from necro_env.agents.nets import build_net


class NetActorCriticPolicy(MaskableActorCriticPolicy):
    """A masked actor-critic whose actor and critic are one ``necro_env.agents.nets`` network."""

    def __init__(self, observation_space, action_space, lr_schedule, net_arch_spec: dict | None = None,
                 **kwargs: Any) -> None:
        self.net_arch_spec = dict(net_arch_spec or {"kind": "region"})
        kwargs["ortho_init"] = False  # the network initialises itself (orthogonal, 0.01 on the logit layers)
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)

    def _build(self, lr_schedule) -> None:
        self.net = build_net(self.net_arch_spec)
        kwargs = dict(self.optimizer_kwargs)
        if self.optimizer_class is torch.optim.Adam:
            # Adam's multi-tensor step: a few torch calls per step instead of ~8 per weight tensor, so the
            # update thread of the pipeline (training/pipeline.py) waits less for the interpreter; the
            # same weights (tests/test_recipe_digest.py)
            kwargs.setdefault("foreach", True)
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **kwargs)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data["net_arch_spec"] = self.net_arch_spec
        return data

    def _dist(self, logits: torch.Tensor, action_masks):
        """``action_dist`` over ``logits`` with ``action_masks`` applied: the distribution sb3-contrib's
        ``proba_distribution(logits)`` + ``apply_masking(masks)`` build, built in one step without torch's
        argument validation (the network's logits are finite by construction). The same float32 values:
        the logits are normalised, the masked ones set to -1e8, and normalised again, as there."""
        dist = self.action_dist
        dist.distribution = MaskableCategorical(logits=logits.view(-1, dist.action_dim), validate_args=False,
                                                masks=action_masks)
        return dist

    def _net(self, obs) -> tuple[torch.Tensor, torch.Tensor]:
        return self.net(self.extract_features(obs))

    def forward(self, obs, deterministic: bool = False, action_masks: np.ndarray | None = None):
        logits, values = self._net(obs)
        dist = self._dist(logits, action_masks)
        actions = dist.get_actions(deterministic=deterministic)
        return actions, values[:, None], dist.log_prob(actions)

    def evaluate_actions(self, obs, actions, action_masks=None):
        logits, values = self._net(obs)
        dist = self._dist(logits, action_masks)
        return values[:, None], dist.log_prob(actions), dist.entropy()

    def get_distribution(self, obs, action_masks=None):
        return self._dist(self._net(obs)[0], action_masks)

    def predict_values(self, obs) -> torch.Tensor:
        return self._net(obs)[1][:, None]


__all__ = ["NetActorCriticPolicy"]
