"""TorchRL on necro_env: independent PPO per agent group through TorchRL's own ``PettingZooWrapper``.

    python examples/torchrl_ppo.py [--frames 3000] [--frames-per-batch 500] [--players 3]

Where the mask is: ``PettingZooWrapper(env, use_mask=True)`` (compulsory for a turn-based AEC env) gives,
per group, ``(group, "mask")`` (which agent acts at this step) and ``(group, "action_mask")`` (the env's
``observation["action_mask"]`` as booleans; all True for agents that do not act); the vector itself is
``(group, "observation", "observation")``. The actor is a
``ProbabilisticActor`` over ``MaskedCategorical`` reading ``(group, "action_mask")``, so it samples legal
actions only; each group's PPO loss is computed on the steps where that group's agent acted.
Groups are TorchRL's default for AEC envs: one per agent (``player_0``, ..., ``necromancer_0``).
"""
from __future__ import annotations

import argparse
import json

import torch
from tensordict.nn import TensorDictModule, TensorDictSequential
from torch import nn
try:
    from torchrl.collectors import Collector
except ImportError:  # torchrl < 0.13 (the version BenchMARL 1.5 needs) calls it SyncDataCollector
    from torchrl.collectors import SyncDataCollector as Collector
from torchrl.envs import PettingZooWrapper
from torchrl.modules import MLP, MaskedCategorical, ProbabilisticActor, ValueOperator
from torchrl.objectives import ClipPPOLoss, ValueEstimators

import necro_env


def make_env(players: int, seed: int) -> PettingZooWrapper:
    return PettingZooWrapper(necro_env.env(players=players), use_mask=True, seed=seed)


def run(frames: int = 3000, frames_per_batch: int = 500, players: int = 3, seed: int = 0,
        verbose: bool = True) -> dict:
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    env = make_env(players, seed)
    groups = list(env.group_map)
    actors, losses, optims = [], {}, {}
    for g in groups:
        obs = (g, "observation", "observation")  # the env's observation dict, less the mask TorchRL took out
        obs_dim = env.observation_spec[obs].shape[-1]
        n_actions = env.full_action_spec[g, "action"].space.n
        logits = TensorDictModule(MLP(in_features=obs_dim, out_features=n_actions, num_cells=[128, 128],
                                      activation_class=nn.Tanh),
                                  in_keys=[obs], out_keys=[(g, "logits")])
        actor = ProbabilisticActor(logits, in_keys={"logits": (g, "logits"), "mask": (g, "action_mask")},
                                   out_keys=[(g, "action")], distribution_class=MaskedCategorical,
                                   return_log_prob=True, log_prob_key=(g, "action_log_prob"))
        critic = ValueOperator(MLP(in_features=obs_dim, out_features=1, num_cells=[128, 128],
                                   activation_class=nn.Tanh),
                               in_keys=[obs], out_keys=[(g, "state_value")])
        loss = ClipPPOLoss(actor_network=actor, critic_network=critic, clip_epsilon=0.2, entropy_coeff=0.01,
                           normalize_advantage=False)
        loss.set_keys(reward=(g, "reward"), action=(g, "action"), sample_log_prob=(g, "action_log_prob"),
                      value=(g, "state_value"), done=(g, "done"), terminated=(g, "terminated"),
                      advantage=(g, "advantage"), value_target=(g, "value_target"))
        loss.make_value_estimator(ValueEstimators.GAE, gamma=0.99, lmbda=0.95)
        actors.append(actor)
        losses[g] = loss
        optims[g] = torch.optim.Adam(loss.parameters(), lr=3e-4)
    policy = TensorDictSequential(*actors)

    collector = Collector(make_env(players, seed), policy, frames_per_batch=frames_per_batch,
                                  total_frames=frames)
    stats = {"library": "torchrl", "env_steps": 0, "updates": 0, "illegal_actions": 0, "games": 0}
    for batch in collector:
        stats["env_steps"] += batch.numel()
        for g in groups:
            nxt = batch["next"]
            stats["games"] += int(nxt[g, "done"].any(-2).sum()) if g == groups[0] else 0
            acted = batch[g, "mask"].reshape(batch.shape[0], -1).any(-1)
            if not acted.any():
                continue
            # an action outside the env's mask would be illegal: count it (0 with the masked actor)
            chosen = batch[g, "action"].reshape(batch.shape[0], -1)[acted]
            legal = batch[g, "action_mask"].reshape(batch.shape[0], -1, batch[g, "action_mask"].shape[-1])[acted]
            stats["illegal_actions"] += int((~legal.gather(-1, chosen.unsqueeze(-1))).sum())
            with torch.no_grad():
                losses[g].value_estimator(batch, params=losses[g].critic_network_params,
                                          target_params=losses[g].target_critic_network_params)
            data = batch[acted]
            for _epoch in range(2):
                out = losses[g](data)
                total = out["loss_objective"] + out["loss_critic"] + out["loss_entropy"]
                optims[g].zero_grad()
                total.backward()
                nn.utils.clip_grad_norm_(losses[g].parameters(), 0.5)
                optims[g].step()
                stats["updates"] += 1
        collector.update_policy_weights_()
    collector.shutdown()
    if verbose:
        print(json.dumps(stats))
    return stats


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--frames", type=int, default=3000)
    p.add_argument("--frames-per-batch", type=int, default=500)
    p.add_argument("--players", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    run(a.frames, a.frames_per_batch, a.players, a.seed)


if __name__ == "__main__":
    main()
