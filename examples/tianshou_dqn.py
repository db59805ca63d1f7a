"""Tianshou 2.x on necro_env: independent DQN learners, one per agent, through Tianshou's own
PettingZoo wrapper and its multi-agent algorithm (``MultiAgentOffPolicyAlgorithm``).

    python examples/tianshou_dqn.py [--epochs 2] [--steps-per-epoch 1000] [--players 3]
                                    [--reward win] [--opponents greedy] [--eval-games 100] [--json]

Where the mask is: Tianshou's ``PettingZooEnv`` turns the env's ``observation["action_mask"]`` into
``batch.obs.mask`` (and ``observation["observation"]`` into ``batch.obs.obs``); its Q-learning policy
takes the argmax over legal actions only and its epsilon-greedy exploration samples legal actions only,
so no glue is needed. The env's end-of-game info has the same keys and shapes in every game, which is
what Tianshou's replay buffer needs to stack infos (the full result is ``env.unwrapped.result()``).

What it reports (``_common.py``): every agent learns, and at the end the learner's network (the
Necromancer's DQN; ``player_0``'s in the 2-seat base game) plays necro_env's evaluation harness against
``--opponents`` in the other seats, with the random policy in the same seat on the same games for
comparison; the learner's mean training return, and the illegal actions as a count (training: actions the
collector sent that the acting agent's mask forbade; evaluation: greedy choices outside the legal actions).

The learner (``dqn_learner``: one agent's network, policy and DQN settings; the replay buffer, collection and
update settings below) is also trained on one seat against fixed opponents by ``train_single_seat``, on the
single-seat Gymnasium env (``necro_env.SINGLE_SEAT_ENV_ID``) with the mask in the observation: the benchmark's
reference runs use it (``training/reference_run.py --library tianshou``).
"""
from __future__ import annotations

import argparse
import time
from typing import Any

import gymnasium
import numpy as np
import torch
from tianshou.algorithm import DQN, MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Batch, Collector, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.env.pettingzoo_env import PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

import necro_env
from _common import EVAL_GAMES, LearnedPolicy, Monitor, add_task_args, finish, learner_of


def make_env(players: int, monitor: Monitor | None = None, reward: str = "win") -> PettingZooEnv:
    env = necro_env.env(players=players, reward=reward)
    return PettingZooEnv(env if monitor is None else monitor.wrap(env))


def learned_policy(policy: DiscreteQLearningPolicy) -> LearnedPolicy:
    """The DQN's greedy action, chosen by Tianshou's own masked forward pass, as a necro_env policy."""
    def choose(observation: np.ndarray, mask: np.ndarray) -> int:
        batch = Batch(obs=Batch(obs=observation[None], mask=mask[None]), info=Batch())
        with torch.no_grad():
            return int(policy(batch).act[0])
    return LearnedPolicy("tianshou-dqn", choose)


#: The learner's training settings: replay buffer, training envs, env steps per collection, minibatch, and
#: gradient steps per collected env step.
BUFFER_SIZE = 20_000
TRAIN_ENVS = 2
COLLECT_STEPS = 100
BATCH_SIZE = 64
UPDATES_PER_STEP = 0.1


def dqn_learner(obs_dim: int, action_space: gymnasium.spaces.Discrete) -> DQN:
    """One agent's learner: a 128-128 MLP Q-network, epsilon-greedy over the legal actions (0.1 in training,
    greedy in inference), Adam at 1e-4, gamma 0.99, 1-step returns, the target network synced every 200
    updates."""
    net = Net(state_shape=obs_dim, action_shape=int(action_space.n), hidden_sizes=[128, 128])
    policy = DiscreteQLearningPolicy(model=net, action_space=action_space, eps_training=0.1, eps_inference=0.0)
    return DQN(policy=policy, optim=AdamOptimizerFactory(lr=1e-4), gamma=0.99, n_step_return_horizon=1,
               target_update_freq=200)


class TianshouMaskedObs(gymnasium.ObservationWrapper):
    """The single-seat env's dict observation (``mask_in_obs=True``) under Tianshou's names: ``obs`` (the
    observation vector) and ``mask`` (the legal actions, bool), which its Q-learning policy reads. Its infos
    are dropped: their arrays change shape between steps (e.g. per-seat figures only at a game's end), which
    Tianshou's replay buffer cannot stack, and DQN does not read them."""

    def __init__(self, env: gymnasium.Env) -> None:
        super().__init__(env)
        space = env.observation_space
        self.observation_space = gymnasium.spaces.Dict({
            "obs": space["observation"], "mask": gymnasium.spaces.MultiBinary(space["action_mask"].shape[0])})

    def observation(self, observation: dict) -> dict:
        return {"obs": observation["observation"], "mask": observation["action_mask"].astype(bool)}

    def reset(self, **kwargs: Any) -> tuple[dict, dict]:
        observation, _info = super().reset(**kwargs)
        return observation, {}

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        observation, reward, terminated, truncated, _info = super().step(action)
        return observation, reward, terminated, truncated, {}


def single_seat_env(env_kwargs: dict[str, Any]) -> TianshouMaskedObs:
    """``gymnasium.make(SINGLE_SEAT_ENV_ID, mask_in_obs=True, **env_kwargs)`` with Tianshou's observation names."""
    return TianshouMaskedObs(gymnasium.make(necro_env.SINGLE_SEAT_ENV_ID, mask_in_obs=True, **env_kwargs))


class _TimeUp(Exception):
    """Raised between two collections when the wall-time cap of ``train_single_seat`` has passed."""


def train_single_seat(env_kwargs: dict[str, Any], steps: int, seed: int = 0,
                      max_seconds: float | None = None) -> tuple[DQN, dict[str, Any]]:
    """The learner (``dqn_learner`` and this file's training settings) trained on one seat of the single-seat
    env (``env_kwargs``: its keyword arguments, e.g. a benchmark task's ``single_seat_kwargs()``) for ``steps``
    env steps (the learner's decisions; the last collection may pass it by less than ``COLLECT_STEPS``) or
    until ``max_seconds`` of wall time have passed, whichever comes first. Returns the algorithm and
    ``{"env_steps", "episodes", "seconds", "capped"}`` (``capped``: the time ran out first).

    Tianshou draws its exploration and its replay samples from NumPy's global generator and its network's
    initial weights from torch's: both are seeded from ``seed`` for the run and restored after it, so a run
    of a budget is reproducible and nothing outside sees a change."""
    saved = np.random.get_state()
    try:
        with torch.random.fork_rng(devices=[]):
            np.random.seed(seed)
            torch.manual_seed(seed)
            return _train_single_seat(env_kwargs, steps, seed, max_seconds)
    finally:
        np.random.set_state(saved)


def _train_single_seat(env_kwargs: dict[str, Any], steps: int, seed: int,
                       max_seconds: float | None) -> tuple[DQN, dict[str, Any]]:
    torch.set_num_threads(1)
    probe = single_seat_env(env_kwargs)
    algorithm = dqn_learner(probe.observation_space["obs"].shape[0], probe.action_space)
    probe.close()
    train_envs = DummyVectorEnv([lambda: single_seat_env(env_kwargs) for _ in range(TRAIN_ENVS)])
    train_envs.seed(seed)
    buffer = VectorReplayBuffer(BUFFER_SIZE, TRAIN_ENVS)
    collector = Collector(algorithm, train_envs, buffer, exploration_noise=True)
    t0 = time.perf_counter()

    def check_time(epoch: int, env_step: int) -> None:  # called before every collection
        if max_seconds is not None and time.perf_counter() - t0 >= max_seconds:
            raise _TimeUp

    capped = False
    try:
        algorithm.run_training(OffPolicyTrainerParams(
            training_collector=collector, max_epochs=1, epoch_num_steps=steps,
            collection_step_num_env_steps=COLLECT_STEPS, batch_size=BATCH_SIZE,
            update_step_num_gradient_steps_per_sample=UPDATES_PER_STEP, training_fn=check_time,
            show_progress=False, verbose=False))
    except _TimeUp:
        capped = True
    train_envs.close()
    return algorithm, {"env_steps": int(collector.collect_step), "episodes": int(collector.collect_episode),
                       "seconds": round(time.perf_counter() - t0, 2), "capped": capped}


def run(epochs: int = 2, steps_per_epoch: int = 1000, players: int = 3, seed: int = 0,
        verbose: bool = True, opponents: str = "greedy", eval_games: int = EVAL_GAMES,
        as_json: bool = True, reward: str = "win") -> dict:
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    monitor = Monitor()
    env = make_env(players)
    obs_dim = env.observation_space["observation"].shape[0]
    # one learner per agent, in the env's agent order
    algorithms = [dqn_learner(obs_dim, env.action_space) for _agent in env.agents]
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=algorithms, env=env)

    train_envs = DummyVectorEnv([lambda: make_env(players, monitor, reward) for _ in range(TRAIN_ENVS)])
    test_envs = DummyVectorEnv([lambda: make_env(players, reward=reward) for _ in range(2)])
    train_envs.seed(seed)
    test_envs.seed(seed + 1000)
    buffer = VectorReplayBuffer(BUFFER_SIZE, len(train_envs))
    train_collector = Collector(algorithm, train_envs, buffer, exploration_noise=True)
    test_collector = Collector(algorithm, test_envs, exploration_noise=False)
    learner_idx = env.agent_idx[learner_of(players)]
    result = algorithm.run_training(OffPolicyTrainerParams(
        training_collector=train_collector,
        test_collector=test_collector,
        max_epochs=epochs,
        epoch_num_steps=steps_per_epoch,
        collection_step_num_env_steps=COLLECT_STEPS,
        test_step_num_episodes=2,
        batch_size=BATCH_SIZE,
        update_step_num_gradient_steps_per_sample=UPDATES_PER_STEP,
        multi_agent_return_reduction=lambda rew: rew[:, learner_idx],  # the score: the learner's return
        show_progress=False,
        verbose=False,
    ))
    keys = set(buffer.info.get_keys())
    learner = algorithms[learner_idx].policy
    return finish("tianshou", monitor, learned_policy(learner), players, opponents, eval_games, {
        "steps": int(train_collector.collect_step),
        "reward": reward,
        "env_steps": int(train_collector.collect_step),
        "episodes": int(train_collector.collect_episode),
        "buffer_info_keys": sorted(keys),
        "best_score": float(result.best_score),
    }, verbose, as_json)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--steps-per-epoch", type=int, default=1000)
    a = add_task_args(p).parse_args()
    run(a.epochs, a.steps_per_epoch, a.players, a.seed, opponents=a.opponents, eval_games=a.eval_games,
        as_json=a.json, reward=a.reward)


if __name__ == "__main__":
    main()
