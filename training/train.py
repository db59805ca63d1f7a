"""Train a policy with sb3-contrib's MaskablePPO from a YAML config.

    python training/train.py --config configs/necromancer_quick.yaml [--resume] [--force]

Reads top to bottom: config -> seeding -> envs -> model (new or resumed) ->
callbacks (checkpoints, evaluation, self-play snapshots) -> learn -> final save.

Run directory ``<out_dir>/<name>__s<seed>/``:
    config.yaml         the config used
    tb/                 TensorBoard logs (with the config as a "hyperparameters" table)
    checkpoints/        ckpt_<steps>.zip + ckpt_<steps>.json (resumable)
    eval.csv            periodic evaluation: steps, wins, games, win rate and its 95% interval
    snapshots/          self-play pool (when configured)
    final.zip           the trained policy (load it anywhere a policy name is accepted, with --trust-pickle)

Checkpoints are taken at rollout boundaries and hold the model (weights, optimizer,
step counter), every random generator (torch, numpy, random, each env's own) and
each env's game in progress, so ``--resume`` continues exactly where the run was
stopped: a resumed run reaches the same weights as an uninterrupted one. They are
written atomically with checksums, and ``--resume`` falls back to the newest intact
one (``training/checkpoint.py``; trusted files only: the model is SB3's pickle format).
Opponents given as SB3 ``.zip`` paths need ``--trust-pickle``.
"""
from __future__ import annotations

import argparse
import csv
import random
import shutil
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import torch
import yaml
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback, CallbackList
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

from necro_env.game.errors import NecroEnvError
from necro_env.observe import OBS_SIZE
from necro_env.wrappers import SingleSeatEnv
from training.checkpoint import resume_latest, save_checkpoint
from training.config import TrainConfig, TrainConfigError, load_config
from training.policies import SnapshotSampler, evaluate_policy_vs


def make_env_fn(cfg: TrainConfig, run_dir: Path, trusted: bool = False):
    """A picklable env factory for DummyVecEnv/SubprocVecEnv (``trusted``: opponents may be SB3 .zip files)."""

    def _init():
        if cfg.vec_env == "subproc":
            torch.set_num_threads(1)  # env workers; the trainer keeps cfg.torch_threads
        sampler = None
        if cfg.selfplay is not None:
            sampler = SnapshotSampler(run_dir / "snapshots", cfg.opponents, cfg.selfplay.p_snapshot,
                                      cfg.selfplay.pool_size, trusted=trusted)
        return Monitor(SingleSeatEnv(
            players=cfg.players, learner=cfg.learner, opponents=cfg.opponents,
            necromancer_opponent=cfg.necromancer_opponent, reward=cfg.reward,
            opponent_sampler=sampler, shaping=cfg.shaping, necromancer=cfg.necromancer, trusted=trusted,
            **cfg.game_options,
        ))  # Monitor logs episode returns/lengths (rollout/ep_rew_mean in TensorBoard)

    return _init


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


class HyperparameterTable(BaseCallback):
    """Writes the run's config to TensorBoard as a markdown table (the "hyperparameters" text, as CleanRL does)."""

    def __init__(self, cfg: TrainConfig):
        super().__init__()
        self.cfg = cfg

    def _on_training_start(self) -> None:
        rows = "\n".join(f"|{k}|{v}|" for k, v in self.cfg.to_dict().items())
        self.logger.record("hyperparameters", f"|param|value|\n|-|-|\n{rows}", exclude=("stdout", "log", "json", "csv"))
        self.logger.dump(self.model.num_timesteps)

    def _on_step(self) -> bool:
        return True


class Checkpointer(BaseCallback):
    """Saves a resumable checkpoint at the first rollout boundary after every ``every`` steps."""

    def __init__(self, run_dir: Path, every: int):
        super().__init__()
        self.dir = run_dir / "checkpoints"
        self.every = every
        self.last = 0

    def _on_training_start(self) -> None:
        self.last = self.model.num_timesteps

    def _on_rollout_start(self) -> None:
        if self.every and self.model.num_timesteps - self.last >= self.every:
            save_checkpoint(self.model, self.dir)
            self.last = self.model.num_timesteps

    def _on_step(self) -> bool:
        return True


class Evaluator(BaseCallback):
    """Every ``every`` steps: win rate of the deterministic policy vs the baselines, logged with its interval."""

    def __init__(self, cfg: TrainConfig, run_dir: Path, trusted: bool = False):
        super().__init__()
        self.cfg = cfg
        self.trusted = trusted
        self.csv = run_dir / "eval.csv"
        self.last = 0

    def _on_training_start(self) -> None:
        self.last = self.model.num_timesteps
        if not self.csv.exists():
            with self.csv.open("w", newline="") as f:
                csv.writer(f).writerow(["steps", "wins", "games", "win_rate", "lo", "hi"])

    def _on_rollout_start(self) -> None:
        if self.cfg.eval_every and self.model.num_timesteps - self.last >= self.cfg.eval_every:
            self.run_eval()
            self.last = self.model.num_timesteps

    def run_eval(self) -> dict:
        # Evaluation must not disturb the training's random streams.
        saved = (torch.get_rng_state(), np.random.get_state(), random.getstate())
        res = evaluate_policy_vs(self.model, self.cfg, self.cfg.eval_games, seed=10_000 + self.cfg.seed,
                                 trusted=self.trusted)
        torch.set_rng_state(saved[0])
        np.random.set_state(saved[1])
        random.setstate(saved[2])
        for k in ("win_rate", "lo", "hi"):
            self.logger.record(f"eval/{k}", res[k])
        with self.csv.open("a", newline="") as f:
            csv.writer(f).writerow([self.model.num_timesteps, res["wins"], res["games"],
                                    f"{res['win_rate']:.4f}", f"{res['lo']:.4f}", f"{res['hi']:.4f}"])
        return res

    def _on_step(self) -> bool:
        return True


class Snapshotter(BaseCallback):
    """Self-play: saves the current policy into the opponents' pool every ``every`` steps.

    Snapshots are never deleted during the run (the sampler draws from the newest
    ``pool_size``), so a resumed run can always reload the opponents it was playing."""

    def __init__(self, run_dir: Path, every: int):
        super().__init__()
        self.dir = run_dir / "snapshots"
        self.every = every
        self.last = 0

    def _on_training_start(self) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        self.last = self.model.num_timesteps

    def _on_rollout_start(self) -> None:
        if self.model.num_timesteps - self.last >= self.every:
            self.model.save(self.dir / f"snap_{self.model.num_timesteps:010d}.zip")
            self.last = self.model.num_timesteps

    def _on_step(self) -> bool:
        return True


def build_model(cfg: TrainConfig, env, tb_dir: Path) -> MaskablePPO:
    arch = list(cfg.net_arch)
    return MaskablePPO(
        "MlpPolicy", env,
        learning_rate=cfg.learning_rate, n_steps=cfg.n_steps, batch_size=cfg.batch_size,
        n_epochs=cfg.n_epochs, gamma=cfg.gamma, gae_lambda=cfg.gae_lambda, ent_coef=cfg.ent_coef,
        clip_range=cfg.clip_range, policy_kwargs={"net_arch": {"pi": arch, "vf": arch}},
        tensorboard_log=str(tb_dir), seed=cfg.seed, device="cpu", verbose=0,
    )


def train(cfg: TrainConfig, resume: bool = False, force: bool = False, progress: bool = True,
          stop_after: int | None = None, trusted: bool = False) -> Path:
    """Run (or resume) training; returns the run directory. ``stop_after`` ends early (tests).
    ``trusted``: opponents given as SB3 .zip paths may load (they are pickles; ``--trust-pickle``)."""
    torch.set_num_threads(cfg.torch_threads)
    run_dir = Path(cfg.out_dir) / cfg.run_name
    ckpt_dir = run_dir / "checkpoints"
    if run_dir.exists() and not resume:
        if not force:
            raise TrainConfigError(f"run directory {run_dir} exists: pass --resume to continue it or --force to restart")
        shutil.rmtree(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text(yaml.safe_dump(cfg.to_dict(), sort_keys=False))
    seed_everything(cfg.seed)
    fns = [make_env_fn(cfg, run_dir, trusted) for _ in range(cfg.n_envs)]
    env = SubprocVecEnv(fns) if cfg.vec_env == "subproc" else DummyVecEnv(fns)
    env.seed(cfg.seed)
    tb_dir = run_dir / "tb"
    found = None
    if resume:  # the newest intact checkpoint; each unusable one is reported and skipped
        found = resume_latest(ckpt_dir, env, tb_dir, OBS_SIZE, make_env_fn(cfg, run_dir, trusted)().unwrapped.set_state,
                              report=lambda msg: print(f"train.py: {msg}", file=sys.stderr))
    base, model = found if found is not None else (None, build_model(cfg, env, tb_dir))
    callbacks: list[BaseCallback] = [HyperparameterTable(cfg), Checkpointer(run_dir, cfg.checkpoint_every)]
    evaluator = Evaluator(cfg, run_dir, trusted)
    if cfg.eval_every:
        callbacks.append(evaluator)
    if cfg.selfplay is not None:
        callbacks.append(Snapshotter(run_dir, cfg.selfplay.snapshot_every))
    target = cfg.total_steps if stop_after is None else min(cfg.total_steps, stop_after)
    remaining = target - model.num_timesteps
    t0 = time.time()
    if remaining > 0:
        model.learn(total_timesteps=remaining, callback=CallbackList(callbacks),
                    reset_num_timesteps=base is None, progress_bar=False,
                    tb_log_name="ppo")
    if model.num_timesteps >= cfg.total_steps:
        model.save(run_dir / "final.zip")
        if cfg.eval_every:
            evaluator.init_callback(model)
            evaluator.run_eval()
    save_checkpoint(model, ckpt_dir)
    env.close()
    if progress:
        print(f"trained {cfg.name}: {model.num_timesteps} steps in {time.time() - t0:.0f} s -> {run_dir}")
    return run_dir


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--config", required=True, help="YAML config (see training/config.py for the keys)")
    p.add_argument("--resume", action="store_true", help="continue from the run's latest checkpoint")
    p.add_argument("--force", action="store_true", help="delete an existing run directory and start over")
    p.add_argument("--total-steps", type=int, default=None, help="override total_steps")
    p.add_argument("--out-dir", default=None, help="override out_dir")
    p.add_argument("--trust-pickle", action="store_true",
                   help="allow opponents given as SB3 .zip files (pickles: they can run code when loaded)")
    args = p.parse_args(argv)
    try:
        cfg = load_config(args.config)
        over = {}
        if args.total_steps is not None:
            over["total_steps"] = args.total_steps
        if args.out_dir is not None:
            over["out_dir"] = args.out_dir
        if over:
            cfg = TrainConfig(**{**cfg.__dict__, **over})
        train(cfg, resume=args.resume, force=args.force, trusted=args.trust_pickle)
    except TrainConfigError as e:
        print(f"train.py: error: {e}", file=sys.stderr)
        return 2
    except NecroEnvError as e:  # e.g. no intact checkpoint to resume from, an untrusted policy file
        print(f"train.py: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
