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
    final.zip           the trained policy (load it anywhere a policy name is accepted)

Checkpoints are taken at rollout boundaries and hold the model (weights, optimizer,
step counter), every random generator (torch, numpy, random, each env's own) and
each env's game in progress, so ``--resume`` continues exactly where the run was
stopped: a resumed run reaches the same weights as an uninterrupted one.
"""
from __future__ import annotations

import argparse
import csv
import json
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

from necro_env.wrappers import SingleSeatEnv
from training.config import TrainConfig, TrainConfigError, load_config
from training.policies import SnapshotSampler, evaluate_policy_vs


def make_env_fn(cfg: TrainConfig, run_dir: Path):
    """A picklable env factory for DummyVecEnv/SubprocVecEnv."""

    def _init():
        if cfg.vec_env == "subproc":
            torch.set_num_threads(1)  # env workers; the trainer keeps cfg.torch_threads
        sampler = None
        if cfg.selfplay is not None:
            sampler = SnapshotSampler(run_dir / "snapshots", cfg.opponents, cfg.selfplay.p_snapshot,
                                      cfg.selfplay.pool_size)
        return Monitor(SingleSeatEnv(
            players=cfg.players, learner=cfg.learner, opponents=cfg.opponents,
            necromancer_opponent=cfg.necromancer_opponent, reward=cfg.reward,
            opponent_sampler=sampler, shaping=cfg.shaping, necromancer=cfg.necromancer, **cfg.game_options,
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

    def __init__(self, cfg: TrainConfig, run_dir: Path):
        super().__init__()
        self.cfg = cfg
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
        res = evaluate_policy_vs(self.model, self.cfg, self.cfg.eval_games, seed=10_000 + self.cfg.seed)
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


def save_checkpoint(model: MaskablePPO, ckpt_dir: Path) -> Path:
    ckpt_dir.mkdir(parents=True, exist_ok=True)
    steps = model.num_timesteps
    base = ckpt_dir / f"ckpt_{steps:010d}"
    model.save(str(base) + ".zip")
    numpy_rng, python_rng = np.random.get_state(), random.getstate()
    extra = {
        "num_timesteps": steps,
        "last_obs": np.asarray(model._last_obs).tolist(),
        "last_episode_starts": np.asarray(model._last_episode_starts).astype(int).tolist(),
        "env_states": model.get_env().env_method("get_state"),
        "torch_rng": torch.get_rng_state().tolist(),
        "numpy_rng": [numpy_rng[0], numpy_rng[1].tolist(),
                      *[int(x) if not isinstance(x, float) else x for x in numpy_rng[2:]]],
        "python_rng": [python_rng[0], list(python_rng[1]), python_rng[2]],
    }
    tmp = Path(str(base) + ".json.tmp")
    tmp.write_text(json.dumps(extra))
    tmp.replace(Path(str(base) + ".json"))  # the .json marks a complete checkpoint
    return base


def latest_checkpoint(ckpt_dir: Path) -> Path | None:
    done = sorted(ckpt_dir.glob("ckpt_*.json"))
    return Path(str(done[-1])[: -len(".json")]) if done else None


def restore_checkpoint(base: Path, env, cfg: TrainConfig, tb_dir: Path) -> MaskablePPO:
    model = MaskablePPO.load(str(base) + ".zip", env=env, device="cpu", tensorboard_log=str(tb_dir))
    extra = json.loads(Path(str(base) + ".json").read_text())
    env.reset()  # wrappers such as Monitor insist on a reset before the first step
    for i, s in enumerate(extra["env_states"]):
        env.env_method("set_state", s, indices=[i])
    model._last_obs = np.asarray(extra["last_obs"], dtype=np.float32)
    model._last_episode_starts = np.asarray(extra["last_episode_starts"], dtype=bool)
    model.num_timesteps = int(extra["num_timesteps"])
    torch.set_rng_state(torch.tensor(extra["torch_rng"], dtype=torch.uint8))
    n = extra["numpy_rng"]
    np.random.set_state((n[0], np.asarray(n[1], dtype=np.uint32), n[2], n[3], n[4]))
    p = extra["python_rng"]
    random.setstate((p[0], tuple(p[1]), p[2]))
    return model


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
          stop_after: int | None = None) -> Path:
    """Run (or resume) training; returns the run directory. ``stop_after`` ends early (tests)."""
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
    fns = [make_env_fn(cfg, run_dir) for _ in range(cfg.n_envs)]
    env = SubprocVecEnv(fns) if cfg.vec_env == "subproc" else DummyVecEnv(fns)
    env.seed(cfg.seed)
    tb_dir = run_dir / "tb"
    base = latest_checkpoint(ckpt_dir) if resume else None
    if resume and base is None and any(ckpt_dir.glob("*")):
        raise TrainConfigError(f"no complete checkpoint in {ckpt_dir}")
    model = restore_checkpoint(base, env, cfg, tb_dir) if base is not None else build_model(cfg, env, tb_dir)
    callbacks: list[BaseCallback] = [HyperparameterTable(cfg), Checkpointer(run_dir, cfg.checkpoint_every)]
    evaluator = Evaluator(cfg, run_dir)
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
        train(cfg, resume=args.resume, force=args.force)
    except TrainConfigError as e:
        print(f"train.py: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
