"""BenchMARL on necro_env: IPPO through a custom task (BenchMARL's PettingZoo task class builds only
``parallel=True`` envs from PettingZoo's registry; this task builds TorchRL's AEC wrapper of our env).

    python examples/benchmarl_ippo.py [--frames 3000] [--players 3] [--out runs/benchmarl]

Where the mask is: as in TorchRL (BenchMARL builds on it), ``(group, "action_mask")`` for the legal
actions, read by BenchMARL's discrete policies through the task's ``action_mask_spec``; ``(group, "mask")``
says which agent acts (``use_mask=True`` is compulsory for a turn-based AEC env). BenchMARL 1.5.2 needs
torchrl < 0.12 (the dev extra pins torchrl 0.11 for it) and pulls torchvision, so install it in the same
pip command as ``torch==2.13.0`` (the Makefile does) or pip may fetch a CUDA build of torch.
"""
from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import torch
from benchmarl.algorithms import IppoConfig
from benchmarl.environments.pettingzoo.common import PettingZooClass
from benchmarl.experiment import Experiment, ExperimentConfig
from benchmarl.models.mlp import MlpConfig
from torchrl.envs import PettingZooWrapper

import necro_env


class NecroIslandTask(PettingZooClass):
    """necro_env's AEC env as a BenchMARL task (config: ``necro_env.env`` keyword arguments)."""

    def get_env_fun(self, num_envs, continuous_actions, seed, device):
        options = dict(self.config)
        return lambda: PettingZooWrapper(necro_env.env(**options), use_mask=True, categorical_actions=True,
                                         seed=seed, device=device)

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


def run(frames: int = 3000, players: int = 3, out: str | None = None, seed: int = 0, verbose: bool = True) -> dict:
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
    experiment = Experiment(task=NecroIslandTask(name="NECROMANCER_ISLAND", config={"players": players}),
                            algorithm_config=IppoConfig.get_from_yaml(), model_config=MlpConfig.get_from_yaml(),
                            critic_model_config=MlpConfig.get_from_yaml(), seed=seed, config=cfg)
    experiment.run()
    # one more rollout with the trained policy: every acting agent's action must be within its action mask
    env = experiment.task.get_env_fun(1, False, seed + 1, "cpu")()
    with torch.no_grad():
        td = env.rollout(200, policy=experiment.policy, break_when_any_done=False)
    illegal = 0
    for g in experiment.group_map:
        acted = td[g, "mask"]
        chosen = td[g, "action"].unsqueeze(-1)
        illegal += int((~td[g, "action_mask"].gather(-1, chosen).squeeze(-1) & acted).sum())
    stats = {"library": "benchmarl", "env_steps": int(experiment.total_frames),
             "iterations": int(experiment.n_iters_performed), "groups": sorted(experiment.group_map),
             "rollout_steps": int(td.numel()), "illegal_actions": illegal}
    if verbose:
        print(json.dumps(stats))
    return stats


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--frames", type=int, default=3000)
    p.add_argument("--players", type=int, default=3)
    p.add_argument("--out", default=None)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    run(a.frames, a.players, a.out, a.seed)


if __name__ == "__main__":
    main()
