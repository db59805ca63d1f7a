"""Train a policy with sb3-contrib's MaskablePPO from a YAML config.

    python training/train.py --config configs/necromancer_quick.yaml [--resume] [--force]

Reads top to bottom: config -> seeding -> envs -> model (new or resumed) -> warm start
(behaviour cloning of a scripted teacher, when configured) -> callbacks (critic warm-up, progress,
checkpoints, evaluation, self-play snapshots) -> learn -> final save. While it runs it shows a progress bar
(steps, steps/s, time left, the latest evaluation); ``--quiet`` turns it off.

Run directory ``<out_dir>/<name>__s<seed>/``:
    config.yaml         the config used
    tb/                 TensorBoard logs (with the config as a "hyperparameters" table)
    checkpoints/        ckpt_<steps>.zip + ckpt_<steps>.json (resumable)
    warm_start.json     the behaviour cloning's report (when configured)
    start.safetensors   the network PPO starts from (after the warm start, when configured), weights only
    eval.csv            periodic evaluation: steps, seconds, wins, games, win rate and its 95% interval
    snapshots/          self-play pool (weights-only policy files, when configured)
                        (opponent pools, ``opponent_pool`` / ``necromancer_pool``, are policies drawn per
                        episode; the checkpoints name the drawn ones, and a resume restores them by name)
    final.safetensors   the trained policy, weights only: load it anywhere a policy spec is accepted
                        (its header records the layout fingerprint and the commit read when the
                        run, or its latest resume, started: ``necro_env.fingerprint.source_commit``)
    final.zip           the same as an SB3 model (a pickle: trusted use only, e.g. to continue training)

Checkpoints are taken at rollout boundaries and hold the model (weights, optimizer,
step counter), every random generator (torch, numpy, random, each env's own) and
each env's game in progress, so ``--resume`` continues exactly where the run was
stopped: a resumed run reaches the same weights as an uninterrupted one. They are
written atomically with checksums, and ``--resume`` falls back to the newest intact
one (``training/checkpoint.py``; trusted files only: the model is SB3's pickle format);
a checkpoint made for another observation layout or action table is refused.
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

from necro_env.agents.torch_policy import save_policy
from necro_env.fingerprint import source_commit
from necro_env.game.errors import NecroEnvError
from necro_env.observe import OBS_SIZE
from necro_env.wrappers import SingleSeatEnv
from training.buffers import ReusedRolloutBuffer
from training.checkpoint import resume_latest, save_checkpoint
from training.config import TrainConfig, TrainConfigError, load_config, policy_role
from training.policies import PoolSampler, SnapshotSampler, evaluate_net
from training.sb3_net import NetActorCriticPolicy


def make_env_fn(cfg: TrainConfig, run_dir: Path, trusted: bool = False):
    """A picklable env factory for DummyVecEnv/SubprocVecEnv (``trusted``: opponents may be SB3 .zip files)."""

    def _init():
        if cfg.vec_env not in ("dummy", "batched"):
            torch.set_num_threads(1)  # env workers; the trainer keeps cfg.torch_threads
        sampler = None
        if cfg.selfplay is not None:
            sampler = SnapshotSampler(run_dir / "snapshots", cfg.opponents, cfg.selfplay.p_snapshot,
                                      cfg.selfplay.pool_size, trusted=trusted)
        # opponent pools: one policy per episode, by weight, drawn with the env's own generator
        team = PoolSampler(cfg.opponent_pool, "player", trusted) if cfg.opponent_pool is not None else None
        necro = (PoolSampler(cfg.necromancer_pool, "necromancer", trusted)
                 if cfg.necromancer_pool is not None else None)
        return Monitor(SingleSeatEnv(
            players=cfg.players, learner=cfg.learner, opponents=cfg.opponents,
            necromancer_opponent=cfg.necromancer_opponent, reward=cfg.reward,
            opponent_sampler=sampler, players_sampler=team, necromancer_sampler=necro,
            shaping=cfg.shaping, necromancer=cfg.necromancer, trusted=trusted,
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
        self.latest: dict | None = None
        self.t0 = time.time()

    def _on_training_start(self) -> None:
        self.last = self.model.num_timesteps

    def _on_rollout_start(self) -> None:
        if self.cfg.eval_every and self.model.num_timesteps - self.last >= self.cfg.eval_every:
            self.run_eval()
            self.last = self.model.num_timesteps

    def run_eval(self, net: torch.nn.Module | None = None) -> dict:
        """Evaluate ``net`` (default: the model's network) and log it."""
        # Evaluation must not disturb the training's random streams.
        saved = (torch.get_rng_state(), np.random.get_state(), random.getstate())
        res = evaluate_net(self.model.policy.net if net is None else net, self.cfg, self.cfg.eval_games,
                           seed=10_000 + self.cfg.seed, trusted=self.trusted)
        torch.set_rng_state(saved[0])
        np.random.set_state(saved[1])
        random.setstate(saved[2])
        if getattr(self.model, "_logger", None) is not None:  # none before learn() set it up
            for k in ("win_rate", "lo", "hi"):
                self.logger.record(f"eval/{k}", res[k])
        if not self.csv.exists():
            with self.csv.open("w", newline="") as f:
                csv.writer(f).writerow(["steps", "seconds", "wins", "games", "win_rate", "lo", "hi"])
        with self.csv.open("a", newline="") as f:
            csv.writer(f).writerow([self.model.num_timesteps, f"{time.time() - self.t0:.0f}", res["wins"],
                                    res["games"], f"{res['win_rate']:.4f}", f"{res['lo']:.4f}", f"{res['hi']:.4f}"])
        self.latest = res
        return res

    def _on_step(self) -> bool:
        return True


class Snapshotter(BaseCallback):
    """Self-play: saves the current policy into the opponents' pool every ``every`` steps.

    Snapshots are never deleted during the run (the sampler draws from the newest
    ``pool_size``), so a resumed run can always reload the opponents it was playing."""

    def __init__(self, run_dir: Path, every: int, commit: str | None = None):
        super().__init__()
        self.dir = run_dir / "snapshots"
        self.every = every
        self.commit = commit  # the code's commit, read when the run started (torch_policy.save_policy)
        self.last = 0

    def _on_training_start(self) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        # the newest snapshot taken so far (a resumed run takes the one that fell due where it stopped)
        taken = [int(p.stem[len("snap_"):]) for p in self.dir.glob("snap_*.safetensors")
                 if p.stem[len("snap_"):].isdigit() and int(p.stem[len("snap_"):]) <= self.model.num_timesteps]
        self.last = max(taken, default=0)

    def _on_rollout_start(self) -> None:
        if self.model.num_timesteps - self.last >= self.every:
            save_policy(self.model.policy.net, self.dir / f"snap_{self.model.num_timesteps:010d}.safetensors",
                        "player", {"steps": self.model.num_timesteps}, commit=self.commit)
            self.last = self.model.num_timesteps

    def _on_step(self) -> bool:
        return True


class UpdateThreads(BaseCallback):
    """torch on ``update`` threads during each PPO update, on ``rollout`` threads while collecting."""

    def __init__(self, rollout: int, update: int):
        super().__init__()
        self.rollout, self.update = rollout, update

    def _on_rollout_start(self) -> None:
        torch.set_num_threads(self.rollout)

    def _on_rollout_end(self) -> None:
        torch.set_num_threads(self.update)

    def _on_training_end(self) -> None:
        torch.set_num_threads(self.rollout)

    def _on_step(self) -> bool:
        return True


class CriticWarmup(BaseCallback):
    """PPO's first ``steps`` steps fit the critic only: every parameter but the critic's
    (``net.critic``, ``net.value_out``) is frozen, so the (cloned) actor is left exactly as it is
    while the value learns the return of the policy it will improve. From the first rollout after
    ``steps``, everything trains. Evidence: actor-critic pretraining (../shared/LEARNING.md §2), where
    an actor warm-started with a poor critic first got worse under PPO."""

    CRITIC = ("critic.", "value_out.")

    def __init__(self, steps: int):
        super().__init__()
        self.steps = steps
        self.frozen: list[torch.nn.Parameter] = []

    def _freeze(self) -> None:
        for name, p in self.model.policy.net.named_parameters():
            if not name.startswith(self.CRITIC) and p.requires_grad:
                p.requires_grad_(False)
                self.frozen.append(p)

    def _thaw(self) -> None:
        for p in self.frozen:
            p.requires_grad_(True)
        self.frozen = []

    def _on_training_start(self) -> None:
        if self.model.num_timesteps < self.steps:
            self._freeze()

    def _on_rollout_start(self) -> None:
        if self.frozen and self.model.num_timesteps >= self.steps:
            self._thaw()

    def _on_training_end(self) -> None:
        self._thaw()

    def _on_step(self) -> bool:
        return True


class WallClock(BaseCallback):
    """Stops PPO once the run's wall time (from ``t0``, the warm start included) passes ``seconds``."""

    def __init__(self, t0: float, seconds: float):
        super().__init__()
        self.t0 = t0
        self.seconds = seconds
        self.hit = False

    def _on_step(self) -> bool:
        if time.time() - self.t0 >= self.seconds:
            self.hit = True
            return False
        return True


class Progress(BaseCallback):
    """A progress bar over the run's steps: steps/s, time left and the latest evaluation."""

    def __init__(self, total: int, evaluator: "Evaluator | None"):
        super().__init__()
        self.total = total
        self.evaluator = evaluator
        self.bar = None

    def _on_training_start(self) -> None:
        from tqdm import tqdm

        self.bar = tqdm(total=self.total, initial=self.model.num_timesteps, unit="step", unit_scale=True,
                        dynamic_ncols=True, desc="PPO", smoothing=0.05)

    def _on_rollout_start(self) -> None:
        latest = self.evaluator.latest if self.evaluator is not None else None
        if latest is not None and self.bar is not None:
            self.bar.set_postfix_str(f"eval {latest['win_rate']:.3f} [{latest['lo']:.3f}, {latest['hi']:.3f}]")

    def _on_step(self) -> bool:
        self.bar.update(self.model.num_timesteps - self.bar.n)
        return True

    def _on_training_end(self) -> None:
        if self.bar is not None:
            self.bar.close()


def lr_schedule(cfg: TrainConfig):
    """SB3 learning-rate schedule: constant, or linear from ``learning_rate`` to 0 over the run."""
    lr = cfg.learning_rate
    if cfg.lr_schedule == "constant":
        return lr
    return lambda remaining: lr * remaining  # SB3 passes the remaining fraction of the run


def build_model(cfg: TrainConfig, env, tb_dir: Path) -> MaskablePPO:
    return MaskablePPO(
        NetActorCriticPolicy, env,
        learning_rate=lr_schedule(cfg), n_steps=cfg.n_steps, batch_size=cfg.batch_size,
        n_epochs=cfg.n_epochs, gamma=cfg.gamma, gae_lambda=cfg.gae_lambda, ent_coef=cfg.ent_coef,
        clip_range=cfg.clip_range, vf_coef=cfg.vf_coef, max_grad_norm=cfg.max_grad_norm, target_kl=cfg.target_kl,
        policy_kwargs={"net_arch_spec": cfg.net_spec}, rollout_buffer_class=ReusedRolloutBuffer,
        tensorboard_log=str(tb_dir), seed=cfg.seed, device="cpu", verbose=0,
    )


def warm_start(model: MaskablePPO, cfg: TrainConfig, run_dir: Path, trusted: bool, quiet: bool) -> dict:
    """Behaviour cloning of ``cfg.warm_start.teacher`` into the model's network (``training/bc.py``)."""
    from training.bc import DemoSpec, collect_demos, pretrain

    ws = cfg.warm_start
    say = (lambda msg: None) if quiet else (lambda msg: print(msg, flush=True))
    spec = DemoSpec(players=cfg.players, necromancer=cfg.necromancer, learner=cfg.learner, teacher=ws.teacher,
                    opponents=cfg.opponents, necromancer_opponent=cfg.necromancer_opponent, gamma=cfg.gamma,
                    shaping=cfg.shaping, reward=cfg.reward, game_options=tuple(sorted(cfg.game_options.items())), trusted=trusted)
    t0 = time.time()
    bar = None
    if not quiet:
        from tqdm import tqdm

        bar = tqdm(total=ws.games, unit="game", desc=f"warm start: {ws.teacher} plays", dynamic_ncols=True)
    demos = collect_demos(spec, ws.games, seed=cfg.seed, workers=ws.workers,
                          progress=(lambda k, n: bar.update(k - bar.n)) if bar is not None else None)
    if bar is not None:
        bar.close()
    say(f"warm start: {len(demos['action'])} decisions of {ws.games} games in {time.time() - t0:.0f} s "
        f"(the teacher won {demos['won'].mean():.3f})")
    report = pretrain(model.policy.net, demos, epochs=ws.epochs, batch_size=ws.batch_size, lr=ws.learning_rate,
                      value_coef=ws.value_coef, seed=cfg.seed, log=say)
    report.update(games=ws.games, decisions=int(len(demos["action"])), teacher_win_rate=float(demos["won"].mean()),
                  seconds=time.time() - t0)
    import json

    (run_dir / "warm_start.json").write_text(json.dumps(report, indent=1))
    return report


def averaged_net(net: torch.nn.Module, ckpt_dir: Path, cfg: TrainConfig) -> tuple[torch.nn.Module, list[int]]:
    """A copy of ``net`` holding the mean of the weights of the newest ``cfg.average_last`` checkpoints
    (the run's end included) and the steps of those checkpoints. Weight averaging over the end of a run
    (SWA, Izmailov et al. 2018) gives a smoother policy than its last update alone."""
    import copy

    from training.checkpoint import checkpoint_net_weights, checkpoint_step, checkpoints

    bases = checkpoints(ckpt_dir)[:cfg.average_last]
    states = [checkpoint_net_weights(b, cfg.n_envs, OBS_SIZE) for b in bases]
    out = copy.deepcopy(net)
    out.load_state_dict({k: (sum(s[k].double() for s in states).div(len(states)).to(v.dtype)
                             if v.is_floating_point() else states[0][k])  # buffers such as index tables
                         for k, v in net.state_dict().items()})
    return out, sorted(checkpoint_step(b) for b in bases)


def init_from_policy(model: MaskablePPO, cfg: TrainConfig) -> None:
    """Copy the weights of ``cfg.init_policy`` into the model's network (the config checked, when it was
    built, that the file is of the learner's role and has the config's architecture)."""
    from necro_env.agents.registry import make_policy

    model.policy.net.load_state_dict(make_policy(cfg.init_policy, policy_role(cfg.learner)).net.state_dict())


def train(cfg: TrainConfig, resume: bool = False, force: bool = False, progress: bool = True,
          stop_after: int | None = None, trusted: bool = False) -> Path:
    """Run (or resume) training; returns the run directory. ``stop_after`` ends early (tests).
    ``progress``: show progress bars and messages (``--quiet`` turns them off).
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
    commit = source_commit()  # the code this run trains with, recorded in every policy file it writes
    fns = [make_env_fn(cfg, run_dir, trusted) for _ in range(cfg.n_envs)]
    if cfg.vec_env == "chunked":
        from training.vec_env import ChunkedSubprocVecEnv

        env = ChunkedSubprocVecEnv(fns, workers=cfg.env_workers)
    elif cfg.vec_env == "batched":
        from training.vec_env import BatchedOpponentsVecEnv

        env = BatchedOpponentsVecEnv(fns)
    else:
        env = SubprocVecEnv(fns) if cfg.vec_env == "subproc" else DummyVecEnv(fns)
    env.seed(cfg.seed)
    tb_dir = run_dir / "tb"
    found = None
    if resume:  # the newest intact checkpoint; each unusable one is reported and skipped
        found = resume_latest(ckpt_dir, env, tb_dir, OBS_SIZE, make_env_fn(cfg, run_dir, trusted)().unwrapped.set_state,
                              report=lambda msg: print(f"train.py: {msg}", file=sys.stderr))
    base, model = found if found is not None else (None, build_model(cfg, env, tb_dir))
    t0 = time.time()
    if base is None and cfg.warm_start is not None:
        warm_start(model, cfg, run_dir, trusted, quiet=not progress)
    if base is None and cfg.init_policy is not None:
        init_from_policy(model, cfg)
    if base is None:  # PPO's starting point (training/exploit.py evaluates it as the "before")
        save_policy(model.policy.net, run_dir / "start.safetensors", policy_role(cfg.learner),
                    {"steps": 0, "warm_start": cfg.warm_start is not None}, commit=commit)
    callbacks: list[BaseCallback] = [HyperparameterTable(cfg), Checkpointer(run_dir, cfg.checkpoint_every)]
    if cfg.critic_warmup_steps:
        callbacks.insert(0, CriticWarmup(cfg.critic_warmup_steps))
    evaluator = Evaluator(cfg, run_dir, trusted)
    evaluator.t0 = t0
    if cfg.eval_every:
        callbacks.append(evaluator)
        if base is None:
            evaluator.init_callback(model)
            evaluator.run_eval()  # the starting point (after the warm start)
    if cfg.update_threads is not None and cfg.update_threads != cfg.torch_threads:
        callbacks.append(UpdateThreads(cfg.torch_threads, cfg.update_threads))
    clock = WallClock(t0, cfg.max_minutes * 60) if cfg.max_minutes is not None else None
    if clock is not None:
        callbacks.append(clock)
    if cfg.selfplay is not None:
        callbacks.append(Snapshotter(run_dir, cfg.selfplay.snapshot_every, commit))
    target = cfg.total_steps if stop_after is None else min(cfg.total_steps, stop_after)
    remaining = target - model.num_timesteps
    if progress:
        callbacks.append(Progress(target, evaluator if cfg.eval_every else None))
    if remaining > 0 and cfg.pipeline:
        from training.pipeline import learn_pipelined

        learn_pipelined(model, remaining, CallbackList(callbacks), tb_log_name="ppo", reset_num_timesteps=base is None)
    elif remaining > 0:
        model.learn(total_timesteps=remaining, callback=CallbackList(callbacks),
                    reset_num_timesteps=base is None, progress_bar=False,
                    tb_log_name="ppo")
    finished = model.num_timesteps >= cfg.total_steps or (clock is not None and clock.hit)
    save_checkpoint(model, ckpt_dir)  # before the final policy: average_last reads the run's end from it
    if finished:
        model.save(run_dir / "final.zip")
        info = {"config": cfg.to_dict(), "steps": model.num_timesteps, "seconds": round(time.time() - t0),
                "stopped_by": "max_minutes" if clock is not None and clock.hit else "total_steps"}
        net = model.policy.net
        if cfg.average_last > 1:
            net, info["averaged_checkpoints"] = averaged_net(net, ckpt_dir, cfg)
        if cfg.eval_every:
            evaluator.init_callback(model)
            info["last_evaluation"] = evaluator.run_eval(net)
        save_policy(net, run_dir / "final.safetensors", policy_role(cfg.learner), info, commit=commit)
    env.close()
    if progress:
        last = evaluator.latest
        print(f"trained {cfg.name}: {model.num_timesteps} steps in {time.time() - t0:.0f} s -> {run_dir}"
              + (f"; last evaluation {last['win_rate']:.3f} [{last['lo']:.3f}, {last['hi']:.3f}] over "
                 f"{last['games']} games" if last else ""))
    return run_dir


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--config", required=True, help="YAML config (see training/config.py for the keys)")
    p.add_argument("--resume", action="store_true", help="continue from the run's latest checkpoint")
    p.add_argument("--force", action="store_true", help="delete an existing run directory and start over")
    p.add_argument("--total-steps", type=int, default=None, help="override total_steps")
    p.add_argument("--out-dir", default=None, help="override out_dir")
    p.add_argument("--seed", type=int, default=None, help="override seed (the run directory is <name>__s<seed>)")
    p.add_argument("--quiet", action="store_true", help="no progress bars or messages")
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
        if args.seed is not None:
            over["seed"] = args.seed
        if over:
            cfg = TrainConfig(**{**cfg.__dict__, **over})
        train(cfg, resume=args.resume, force=args.force, trusted=args.trust_pickle, progress=not args.quiet)
    except TrainConfigError as e:
        print(f"train.py: error: {e}", file=sys.stderr)
        return 2
    except NecroEnvError as e:  # e.g. no intact checkpoint to resume from, an untrusted policy file
        print(f"train.py: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
