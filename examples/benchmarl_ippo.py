"""BenchMARL on necro_env: IPPO through a custom task (BenchMARL's PettingZoo task class builds only
``parallel=True`` envs from PettingZoo's registry; this task builds TorchRL's AEC wrapper of our env).

    python examples/benchmarl_ippo.py [--frames 3000] [--players 3] [--out runs/benchmarl]
                                      [--reward win] [--opponents greedy] [--eval-games 100] [--json]

Where the mask is: as in TorchRL (BenchMARL builds on it), ``(group, "action_mask")`` for the legal
actions, read by BenchMARL's discrete policies through the task's ``action_mask_spec``; ``(group, "mask")``
says which agent acts (``use_mask=True`` is compulsory for a turn-based AEC env). BenchMARL 1.5.2 needs
torchrl < 0.12 (the dev extra pins torchrl 0.11 for it) and pulls torchvision, so install it in the same
pip command as ``torch==2.13.0`` (the Makefile does) or pip may fetch a CUDA build of torch.

What it reports (``_common.py``): every group learns, and at the end the learner group's policy (the
Necromancer's; ``player_0``'s in the 2-seat base game), taking its deterministic (most probable legal)
action, plays necro_env's evaluation harness against ``--opponents`` in the other seats, with the random
policy in the same seat on the same games for comparison; each group's mean training return, and the
illegal actions as a count (training: actions the collector sent that the acting agent's mask forbade;
evaluation: choices outside the legal actions). BenchMARL's own progress line shows the mean return over
all groups: with ``reward: win`` the returns of all agents add up to a constant (-1 on 3 seats: one
winner), so that mean stays at -1/3 whatever is learned; read the learner group's return instead.

The same learner (IPPO with BenchMARL's default experiment, algorithm and MLP settings, on the CPU) is also
trained on one seat against fixed opponents by ``train_single_seat``: the single-seat Gymnasium env
(``necro_env.SINGLE_SEAT_ENV_ID``, the mask in the observation) as a one-agent PettingZoo parallel env
(``SingleSeatParallel``) in TorchRL's wrapper, where IPPO is PPO on that one agent. The benchmark's
reference runs use it (``training/reference_run.py --library benchmarl``).
"""
from __future__ import annotations

import argparse
import contextlib
import io
import random
import tempfile
import time
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import torch

from benchmarl.algorithms import IppoConfig
from benchmarl.environments.pettingzoo.common import PettingZooClass
from benchmarl.experiment import Experiment, ExperimentConfig
from benchmarl.experiment.callback import Callback
from benchmarl.models.mlp import MlpConfig
from pettingzoo.utils.env import ParallelEnv
from torchrl.envs import PettingZooWrapper

import necro_env
from _common import (EVAL_GAMES, LearnedPolicy, Monitor, add_task_args, finish, learner_of,
                     torchrl_group_policy)


class NecroIslandTask(PettingZooClass):
    """necro_env's AEC env as a BenchMARL task (config: ``necro_env.env`` keyword arguments); its envs
    report to ``monitor`` (a ``_common.Monitor``) when one is set."""

    monitor: Monitor | None = None

    def get_env_fun(self, num_envs, continuous_actions, seed, device):
        options = dict(self.config)
        monitor = self.monitor

        def make():
            env = necro_env.env(**options)
            return PettingZooWrapper(env if monitor is None else monitor.wrap(env), use_mask=True,
                                     categorical_actions=True, seed=seed, device=device)
        return make

    def supports_continuous_actions(self) -> bool:
        return False

    def supports_discrete_actions(self) -> bool:
        return True

    def has_state(self) -> bool:
        return False

    def has_render(self, env) -> bool:
        return False

    def max_steps(self, env) -> int:
        return 5000  # a game is a few hundred agent decisions

    @staticmethod
    def env_name() -> str:
        return "necro_env"


#: The agent name of the one-agent env (TorchRL makes it a group of its own).
SEAT_AGENT = "learner"


class SingleSeatParallel(ParallelEnv):
    """The single-seat Gymnasium env (``mask_in_obs=True``: ``{"observation", "action_mask"}``) as a
    PettingZoo parallel env with one agent, ``SEAT_AGENT``; the opponents' moves happen inside its step.
    Its infos are dropped (their arrays change shape at a game's end, which TorchRL's specs cannot hold)."""

    metadata = {"name": "necro_env_single_seat", "render_modes": []}

    def __init__(self, env_kwargs: dict[str, Any]) -> None:
        self.env = gymnasium.make(necro_env.SINGLE_SEAT_ENV_ID, mask_in_obs=True, **env_kwargs)
        self.possible_agents = [SEAT_AGENT]
        self.agents: list[str] = []

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.env.observation_space

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.env.action_space

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        observation, _info = self.env.reset(seed=seed, options=options)
        self.agents = [SEAT_AGENT]
        return {SEAT_AGENT: observation}, {SEAT_AGENT: {}}

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        observation, reward, terminated, truncated, _info = self.env.step(int(actions[SEAT_AGENT]))
        if terminated or truncated:
            self.agents = []
        a = SEAT_AGENT
        return {a: observation}, {a: float(reward)}, {a: bool(terminated)}, {a: bool(truncated)}, {a: {}}

    def close(self) -> None:
        self.env.close()


class SingleSeatTask(NecroIslandTask):
    """A one-agent BenchMARL task of ``SingleSeatParallel`` (config: its env keyword arguments)."""

    def get_env_fun(self, num_envs, continuous_actions, seed, device):
        kwargs = dict(self.config)

        def make():
            return PettingZooWrapper(SingleSeatParallel(kwargs), use_mask=False, categorical_actions=True,
                                     seed=seed, device=device)
        return make

    @staticmethod
    def env_name() -> str:
        return "necro_env_single_seat"


class _TimeUp(Exception):
    """Raised after a training step once the wall-time cap of ``train_single_seat`` has passed."""


class _WallClock(Callback):
    def __init__(self, max_seconds: float | None) -> None:
        super().__init__()
        self.max_seconds = max_seconds
        self.t0 = time.perf_counter()

    def on_train_end(self, training_td, group: str) -> None:
        if self.max_seconds is not None and time.perf_counter() - self.t0 >= self.max_seconds:
            raise _TimeUp


#: Passes over each batch of the single-seat runs. BenchMARL's default is 45 (tuned for VMAS's cheap
#: simulators): on this env's observation it would spend about 5x the collection's time in updates, and a
#: reference run would see a third of its budget in the wall-time cap; 4 is PPO's usual order.
SINGLE_SEAT_EPOCHS = 4


def single_seat_experiment_config(steps: int, out: str, overrides: dict[str, Any] | None = None) -> ExperimentConfig:
    """BenchMARL's default experiment settings (6,000 frames a batch from 10 envs, minibatches of 400, Adam at
    5e-5, gamma 0.99) but ``SINGLE_SEAT_EPOCHS`` passes over a batch, on the CPU for ``steps`` frames, with no
    evaluation, loggers or checkpoints; ``overrides``: fields of ``ExperimentConfig`` set over those (tests
    shrink the batches with them)."""
    cfg = ExperimentConfig.get_from_yaml()
    cfg.train_device = cfg.sampling_device = "cpu"
    cfg.max_n_frames = steps
    cfg.on_policy_n_minibatch_iters = SINGLE_SEAT_EPOCHS
    cfg.evaluation = False
    cfg.render = False
    cfg.loggers = []
    cfg.create_json = False
    cfg.checkpoint_interval = 0
    cfg.checkpoint_at_end = False
    cfg.save_folder = out
    for key, value in (overrides or {}).items():
        if not hasattr(cfg, key):
            raise ValueError(f"{key!r} is not a field of BenchMARL's ExperimentConfig")
        setattr(cfg, key, value)
    return cfg


def train_single_seat(env_kwargs: dict[str, Any], steps: int, seed: int = 0, max_seconds: float | None = None,
                      out: str | None = None, progress: bool = False,
                      overrides: dict[str, Any] | None = None) -> tuple[LearnedPolicy, dict[str, Any]]:
    """IPPO (BenchMARL's defaults) on one seat of the single-seat env (``env_kwargs``: its keyword arguments,
    e.g. a benchmark task's ``single_seat_kwargs()``) for ``steps`` frames (the learner's decisions; BenchMARL
    collects whole batches of 6,000, so the run stops at the first batch at or past ``steps``) or until
    ``max_seconds`` of wall time have passed (checked after each batch's training), whichever comes first.
    Returns the learned policy (deterministic: the most probable legal action) and ``{"env_steps",
    "iterations", "seconds", "capped", "policy_state"}`` (``policy_state``: the policy module's state dict).

    BenchMARL seeds Python's, NumPy's and torch's global generators from ``seed`` (``seed_everything``); they
    are restored after the run, so nothing outside sees a change. Its progress bar and messages go to the
    terminal only with ``progress``; ``overrides``: see ``single_seat_experiment_config``."""
    py_state, np_state = random.getstate(), np.random.get_state()
    try:
        with torch.random.fork_rng(devices=[]):
            return _train_single_seat(env_kwargs, steps, seed, max_seconds, out, progress, overrides)
    finally:
        random.setstate(py_state)
        np.random.set_state(np_state)


def _train_single_seat(env_kwargs: dict[str, Any], steps: int, seed: int, max_seconds: float | None,
                       out: str | None, progress: bool,
                       overrides: dict[str, Any] | None) -> tuple[LearnedPolicy, dict[str, Any]]:
    torch.set_num_threads(1)
    out = out or tempfile.mkdtemp(prefix="benchmarl_")
    Path(out).mkdir(parents=True, exist_ok=True)
    clock = _WallClock(max_seconds)
    experiment = Experiment(task=SingleSeatTask(name="NECRO_SINGLE_SEAT", config=dict(env_kwargs)),
                            algorithm_config=IppoConfig.get_from_yaml(), model_config=MlpConfig.get_from_yaml(),
                            critic_model_config=MlpConfig.get_from_yaml(), seed=seed,
                            config=single_seat_experiment_config(steps, out, overrides), callbacks=[clock])
    capped = False
    with contextlib.ExitStack() as quiet:
        if not progress:
            quiet.enter_context(contextlib.redirect_stdout(io.StringIO()))
            quiet.enter_context(contextlib.redirect_stderr(io.StringIO()))
        try:
            experiment.run()
        except _TimeUp:
            capped = True
    seconds = time.perf_counter() - clock.t0
    group = next(g for g, agents in experiment.group_map.items() if SEAT_AGENT in agents)
    actor = experiment.policy.select_subsequence(out_keys=[(group, "action")])
    learned = torchrl_group_policy("benchmarl-ippo", actor, group, list(experiment.group_map[group]), SEAT_AGENT)
    return learned, {"env_steps": int(experiment.total_frames), "iterations": int(experiment.n_iters_performed),
                     "seconds": round(seconds, 1), "capped": capped,
                     "policy_state": experiment.policy.state_dict()}


def run(frames: int = 3000, players: int = 3, out: str | None = None, seed: int = 0, verbose: bool = True,
        opponents: str = "greedy", eval_games: int = EVAL_GAMES, as_json: bool = True, reward: str = "win") -> dict:
    cfg = ExperimentConfig.get_from_yaml()
    cfg.train_device = cfg.sampling_device = "cpu"
    cfg.max_n_frames = frames
    cfg.on_policy_collected_frames_per_batch = 500
    cfg.on_policy_n_envs_per_worker = 1
    cfg.on_policy_n_minibatch_iters = 1
    cfg.on_policy_minibatch_size = 250
    cfg.evaluation = False
    cfg.render = False
    cfg.loggers = []
    cfg.create_json = False
    cfg.checkpoint_interval = 0
    cfg.save_folder = out or tempfile.mkdtemp(prefix="benchmarl_")
    Path(cfg.save_folder).mkdir(parents=True, exist_ok=True)
    monitor = Monitor()
    task = NecroIslandTask(name="NECROMANCER_ISLAND", config={"players": players, "reward": reward})
    task.monitor = monitor
    experiment = Experiment(task=task, algorithm_config=IppoConfig.get_from_yaml(),
                            model_config=MlpConfig.get_from_yaml(), critic_model_config=MlpConfig.get_from_yaml(),
                            seed=seed, config=cfg)
    experiment.run()
    learner = learner_of(players)
    group = next(g for g, agents in experiment.group_map.items() if learner in agents)
    actor = experiment.policy.select_subsequence(out_keys=[(group, "action")])
    learned = torchrl_group_policy("benchmarl-ippo", actor, group, list(experiment.group_map[group]), learner)
    stats = {"steps": int(experiment.total_frames), "reward": reward, "env_steps": int(experiment.total_frames),
             "iterations": int(experiment.n_iters_performed), "groups": sorted(experiment.group_map)}
    return finish("benchmarl", monitor, learned, players, opponents, eval_games, stats, verbose, as_json)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--frames", type=int, default=3000)
    p.add_argument("--out", default=None)
    a = add_task_args(p).parse_args()
    run(a.frames, a.players, a.out, a.seed, opponents=a.opponents, eval_games=a.eval_games, as_json=a.json,
        reward=a.reward)


if __name__ == "__main__":
    main()
