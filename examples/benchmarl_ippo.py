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
"""
from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from benchmarl.algorithms import IppoConfig
from benchmarl.environments.pettingzoo.common import PettingZooClass
from benchmarl.experiment import Experiment, ExperimentConfig
from benchmarl.models.mlp import MlpConfig
from torchrl.envs import PettingZooWrapper

import necro_env
from necro_env.rewards import REWARD_SCHEMES
from _common import EVAL_GAMES, Monitor, evaluate_learner, learner_of, report, summary, torchrl_group_policy


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
    evaluation = evaluate_learner(learned, players, opponents, eval_games)
    stats = {"steps": int(experiment.total_frames), "reward": reward, "env_steps": int(experiment.total_frames),
             "iterations": int(experiment.n_iters_performed), "groups": sorted(experiment.group_map)}
    out = summary("benchmarl", monitor, evaluation, stats)
    if verbose:
        report(out, as_json)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--frames", type=int, default=3000)
    p.add_argument("--players", type=int, default=3)
    p.add_argument("--out", default=None)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--reward", default="win", choices=REWARD_SCHEMES, help="the env's reward scheme")
    p.add_argument("--opponents", default="greedy", help="the scripted opponents of the final evaluation")
    p.add_argument("--eval-games", type=int, default=EVAL_GAMES)
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    a = p.parse_args()
    run(a.frames, a.players, a.out, a.seed, opponents=a.opponents, eval_games=a.eval_games, as_json=a.json,
        reward=a.reward)


if __name__ == "__main__":
    main()
