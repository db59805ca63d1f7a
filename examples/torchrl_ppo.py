"""TorchRL on necro_env: independent PPO per agent group through TorchRL's own ``PettingZooWrapper``.

    python examples/torchrl_ppo.py [--frames 3000] [--frames-per-batch 500] [--players 3]
                                   [--reward win] [--opponents greedy] [--eval-games 100] [--json]

Where the mask is: ``PettingZooWrapper(env, use_mask=True)`` (compulsory for a turn-based AEC env) gives,
per group, ``(group, "mask")`` (which agent acts at this step) and ``(group, "action_mask")`` (the env's
``observation["action_mask"]`` as booleans; all True for agents that do not act); the vector itself is
``(group, "observation", "observation")``. The actor is a
``ProbabilisticActor`` over ``MaskedCategorical`` reading ``(group, "action_mask")``, so it samples legal
actions only; each group's PPO loss is computed on the steps where that group's agent acted.
Groups are TorchRL's default for AEC envs: one per agent (``player_0``, ..., ``necromancer_0``).

What it reports (``_common.py``): every group learns, and at the end the learner's actor (the
Necromancer's; ``player_0``'s in the 2-seat base game), taking its deterministic (most probable legal)
action, plays necro_env's evaluation harness against ``--opponents`` in the other seats, with the random
policy in the same seat on the same games for comparison; each agent's mean training return (with
``reward: win`` the returns of all agents add up to a constant, so only one agent's return says something),
and the illegal actions as a count (training: actions the collector sent that the acting agent's mask
forbade; evaluation: choices outside the legal actions).
"""
from __future__ import annotations

import argparse

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
from _common import EVAL_GAMES, Monitor, add_task_args, finish, learner_of, torchrl_group_policy


def make_env(players: int, seed: int, monitor: Monitor | None = None, reward: str = "win") -> PettingZooWrapper:
    env = necro_env.env(players=players, reward=reward)
    return PettingZooWrapper(env if monitor is None else monitor.wrap(env), use_mask=True, seed=seed)


def run(frames: int = 3000, frames_per_batch: int = 500, players: int = 3, seed: int = 0,
        verbose: bool = True, opponents: str = "greedy", eval_games: int = EVAL_GAMES,
        as_json: bool = True, reward: str = "win") -> dict:
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    monitor = Monitor()
    env = make_env(players, seed, reward=reward)
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

    collector = Collector(make_env(players, seed, monitor, reward), policy, frames_per_batch=frames_per_batch,
                          total_frames=frames)
    stats = {"steps": 0, "reward": reward, "env_steps": 0, "updates": 0, "games": 0}
    for batch in collector:
        stats["env_steps"] += batch.numel()
        for g in groups:
            nxt = batch["next"]
            stats["games"] += int(nxt[g, "done"].any(-2).sum()) if g == groups[0] else 0
            acted = batch[g, "mask"].reshape(batch.shape[0], -1).any(-1)
            if not acted.any():
                continue
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
    stats["steps"] = stats["env_steps"]
    learner = learner_of(players)
    group = next(g for g, agents in env.group_map.items() if learner in agents)
    actor = actors[groups.index(group)]
    learned = torchrl_group_policy("torchrl-ppo", actor, group, list(env.group_map[group]), learner)
    return finish("torchrl", monitor, learned, players, opponents, eval_games, stats, verbose, as_json)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--frames", type=int, default=3000)
    p.add_argument("--frames-per-batch", type=int, default=500)
    a = add_task_args(p).parse_args()
    run(a.frames, a.frames_per_batch, a.players, a.seed, opponents=a.opponents, eval_games=a.eval_games,
        as_json=a.json, reward=a.reward)


if __name__ == "__main__":
    main()
