"""Multi-agent PPO with Ray RLlib (new API stack) from a YAML config: the path beyond one machine.

    python training/rllib_train.py --config configs/rllib_necro_3p.yaml [--resume] [--force] [--address auto]
        [--auth-token-file FILE]

Reads top to bottom: config -> Ray -> RLlib's config (env, policy mapping, masking RLModule,
env runners, learners, PPO) -> algorithm (new or restored) -> iterations (metrics, checkpoints,
evaluation through necro_env's harness) -> final checkpoint and evaluation.

* The env is ``necro_env.env(...)`` behind RLlib's stock ``PettingZooEnv``; each agent is mapped to an
  RLModule by the config's ``policy_mapping`` (default: the players share ``players``, ``necromancer_0``
  has ``necromancer``). The module (``necro_env.agents.rllib_module.MaskedPPOModule``) reads the
  observation dict as the env gives it (``observation`` and ``action_mask``).
* RLlib's env pre-check stays on. It resets the env and steps one *unmasked*
  ``action_space.sample()``, which is almost always illegal: under the env's default
  ``illegal_action="terminate"`` that ends the probe's game (-1 to the prober, every agent done), a
  well-formed multi-agent step, so the check passes; the env runner then resets every env before it
  samples, so the probe never reaches training. (``illegal_action="raise"`` would fail the check, which
  is why this script always builds the env with the default.) Illegal actions *during training* are
  counted (``illegal_actions`` in the metrics) and are 0 with the masking module.
* Scaling: ``num_env_runners`` remote processes sample (``num_envs_per_env_runner`` envs each);
  ``num_learners`` remote learners update (0: the driver learns). ``--address`` joins a running Ray
  cluster (``ray start --head`` on one machine, ``ray start --address HEAD:6379`` on the others; every
  node needs necro_env installed and this repository at the same path). Ray >= 2.60 clusters use token
  authentication: with an explicit ``HOST:PORT`` the script turns token mode on when it finds a token
  (``--auth-token-file``, ``RAY_AUTH_TOKEN``, ``RAY_AUTH_TOKEN_PATH``, ``~/.ray/auth_token``), and a failed
  join says what to copy where (``ray_auth_settings``, ``join_error_message``). Without ``--address`` a
  local Ray is started with as many CPUs as the runners and learners need.

Run directory ``<out_dir>/<name>__s<seed>/``:
    config.yaml         the config used (``--resume`` continues only with the same config, ``iterations`` aside)
    progress.csv        one row per iteration: env steps, env steps/s, episodes, returns per module,
                        the Necromancer's training win rate, illegal actions
    tb/                 the same scalars for TensorBoard
    checkpoints/iter_<N>/  RLlib checkpoints (written to a temporary name, then renamed); the last 3 are kept
    checkpoint/         the final checkpoint: ``necro-env evaluate --necromancer rllib:<run>/checkpoint#necromancer
                        --trust-pickle`` (RLlib checkpoints are pickles: trusted use only)
    eval.csv            evaluations through ``necro_env.evaluate``: iteration, module, role, opponents, wins,
                        games, win rate and its 95% interval

The run ends after ``iterations``, or earlier after the first iteration that reaches ``max_env_steps`` env steps
or ends past ``max_minutes`` of training (``stop_reason``; the summary's ``stopped_by``), with the same final
checkpoint and evaluation.
"""
from __future__ import annotations

import argparse
import csv
import math
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import yaml

from necro_env.game.errors import NecroEnvError
from training.config import TrainConfigError
from training.rllib_config import RLlibConfig, load_config

REPO = Path(__file__).resolve().parents[1]
ENV_NAME = "necro_env_aec"
KEEP_CHECKPOINTS = 3


def make_env(env_config: dict):
    """RLlib's env creator: the AEC env behind RLlib's stock PettingZoo wrapper."""
    import necro_env
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    return PettingZooEnv(necro_env.env(**dict(env_config)))


def _callbacks_class():
    from ray.rllib.callbacks.callbacks import RLlibCallback

    class NecroMetrics(RLlibCallback):
        """Per finished game: illegal actions (0 with masking), the Necromancer's win, truncation."""

        def on_episode_end(self, *, episode, metrics_logger=None, **kwargs) -> None:
            if metrics_logger is None:
                return
            last = episode.get_infos(-1, env_steps=False)  # each agent's last info: the terminal one
            infos = [i for i in last.values() if isinstance(i, dict)]
            metrics_logger.log_value("illegal_actions", sum(1 for i in infos if "illegal_action" in i), reduce="sum")
            ends = [i for i in infos if "over" in i]
            if ends:
                metrics_logger.log_value("necromancer_won", float(ends[0]["necromancer_won"]), reduce="mean",
                                         window=100)
                metrics_logger.log_value("truncated_games", int(ends[0]["truncated"]), reduce="sum")

    return NecroMetrics


def algo_config(cfg: RLlibConfig):
    """RLlib's ``PPOConfig`` for ``cfg``."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    from necro_env.agents.rllib_module import MaskedPPOModule

    register_env(ENV_NAME, make_env)
    mapping = cfg.mapping()

    def policy_mapping_fn(agent_id, episode=None, **kwargs):
        return mapping[agent_id]

    model = {"hidden": list(cfg.hidden)}
    return (
        PPOConfig()
        .environment(ENV_NAME, env_config=cfg.env_config())
        .env_runners(num_env_runners=cfg.num_env_runners, num_envs_per_env_runner=cfg.num_envs_per_env_runner,
                     num_cpus_per_env_runner=1)
        .learners(num_learners=cfg.num_learners)
        .multi_agent(policies=set(cfg.modules()), policy_mapping_fn=policy_mapping_fn)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            m: RLModuleSpec(module_class=MaskedPPOModule, model_config=model) for m in cfg.modules()}))
        .training(train_batch_size_per_learner=cfg.train_batch_size, minibatch_size=cfg.minibatch_size,
                  num_epochs=cfg.num_epochs, lr=cfg.lr, gamma=cfg.gamma, lambda_=cfg.lambda_,
                  entropy_coeff=cfg.entropy_coeff, clip_param=cfg.clip_param, vf_loss_coeff=cfg.vf_loss_coeff,
                  grad_clip=cfg.grad_clip)
        .callbacks(_callbacks_class())
        .debugging(seed=cfg.seed)
        .reporting(metrics_num_episodes_for_smoothing=100)
    )


# ------------------------------------------------------------------ joining a cluster (token authentication)
AUTH_MODE_VAR, TOKEN_VAR, TOKEN_PATH_VAR = "RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH"


def default_token_file() -> Path:
    """Where ``ray get-auth-token --generate`` and a local ``ray.init()`` keep the token (``~/.ray/auth_token``)."""
    return Path.home() / ".ray" / "auth_token"


def ray_auth_settings(address: str | None, token_file: str | None, environ=None) -> dict[str, str]:
    """The environment variables with which the driver joins the cluster at ``address`` (``os.environ`` updates).

    Ray >= 2.60 clusters use token authentication once a token exists on the head node, but a driver given
    an explicit address (``HOST:PORT``, unlike ``auto``) never turns it on by itself and is refused
    (``InvalidAuthToken``, then a ``ConnectionError``). So with ``address``: ``token_file`` (``--auth-token-file``)
    is used as ``RAY_AUTH_TOKEN_PATH`` and token mode is turned on; without it token mode is turned on when
    a token is at hand (``RAY_AUTH_TOKEN``, ``RAY_AUTH_TOKEN_PATH`` or ``~/.ray/auth_token``). An explicit
    ``RAY_AUTH_MODE`` (e.g. ``disabled``) is left as it is. ``TrainConfigError`` for a token file that is
    missing or empty, or one given without ``address``.
    """
    env = os.environ if environ is None else environ
    if token_file is not None:
        if not address:
            raise TrainConfigError("--auth-token-file is for joining a cluster: pass --address HOST:PORT too")
        path = Path(token_file).expanduser()
        if not path.is_file() or not path.read_text().strip():
            raise TrainConfigError(f"--auth-token-file {token_file}: no token there (a file holding the cluster's "
                                   f"token: `ray get-auth-token` on the head node prints it)")
        out = {TOKEN_PATH_VAR: str(path.resolve())}
        if AUTH_MODE_VAR not in env:
            out[AUTH_MODE_VAR] = "token"
        return out
    if not address or AUTH_MODE_VAR in env:
        return {}
    if env.get(TOKEN_VAR) or env.get(TOKEN_PATH_VAR) or default_token_file().is_file():
        return {AUTH_MODE_VAR: "token"}
    return {}


def join_error_message(address: str, error: BaseException, settings: dict[str, str]) -> str:
    """What to do when joining the cluster at ``address`` failed (most often: token authentication)."""
    source = settings.get(TOKEN_PATH_VAR) or "RAY_AUTH_TOKEN / RAY_AUTH_TOKEN_PATH / ~/.ray/auth_token"
    used = (f"token mode on, token from {source}" if settings.get(AUTH_MODE_VAR) == "token"
            else "no token found here (RAY_AUTH_TOKEN, RAY_AUTH_TOKEN_PATH, ~/.ray/auth_token)")
    return (f"could not join the Ray cluster at {address} ({type(error).__name__}: {' '.join(str(error).split())[:300]}; "
            f"{used}). Ray >= 2.60 clusters use token authentication: print the head node's token with "
            f"`ray get-auth-token` there and copy it to this machine and to every other node as ~/.ray/auth_token "
            f"(or pass --auth-token-file FILE here, or set RAY_AUTH_TOKEN); start every node with RAY_AUTH_MODE=token "
            f"(`RAY_AUTH_MODE=token ray start --address {address}`). On the head node itself --address auto finds "
            f"the token. A cluster started with RAY_AUTH_MODE=disabled needs no token (trusted networks only).")


def start_ray(cfg: RLlibConfig, address: str | None, auth: dict[str, str] | None = None) -> None:
    """Join the cluster at ``address`` (with ``auth``'s environment, see ``ray_auth_settings``), or start a
    local Ray sized for the runners and learners."""
    os.environ.update(auth or {})
    if auth and "ray._raylet" in sys.modules:  # Ray read its config when imported: re-read it (as Ray itself does)
        from ray._raylet import Config

        Config.initialize("")
    import ray

    pythonpath = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)
    runtime_env = {"env_vars": {"PYTHONPATH": pythonpath, "OMP_NUM_THREADS": str(cfg.torch_threads)}}
    if ray.is_initialized():
        return
    if address:
        try:
            ray.init(address=address, runtime_env=runtime_env)
        except (ConnectionError, RuntimeError, ray.exceptions.RayError) as e:
            raise TrainConfigError(join_error_message(address, e, auth or {})) from e
    else:
        ray.init(num_cpus=max(2, cfg.num_env_runners + cfg.num_learners), include_dashboard=False,
                 runtime_env=runtime_env, log_to_driver=False)


# ------------------------------------------------------------------ checkpoints
def checkpoints(run_dir: Path) -> list[tuple[int, Path]]:
    """The run's iteration checkpoints, oldest first (temporary ones left by a crash are ignored)."""
    found = []
    d = run_dir / "checkpoints"
    if d.is_dir():
        for p in d.iterdir():
            if p.is_dir() and p.name.startswith("iter_") and p.name[5:].isdigit() \
                    and (p / "rllib_checkpoint.json").is_file():
                found.append((int(p.name[5:]), p))
    return sorted(found)


def save(algo, path: Path) -> Path:
    """``algo.save_to_path`` into a temporary directory, then renamed to ``path`` (replacing it)."""
    tmp = path.with_name(path.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    algo.save_to_path(str(tmp.resolve()))
    old = path.with_name(path.name + ".old")
    if path.exists():
        shutil.rmtree(old, ignore_errors=True)
        os.replace(path, old)
    os.replace(tmp, path)
    shutil.rmtree(old, ignore_errors=True)
    return path


# ------------------------------------------------------------------ metrics
def _num(x: Any) -> float:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return float("nan")
    return v


def scalars(result: dict, cfg: RLlibConfig) -> dict[str, float]:
    """The scalars of one iteration's result that progress.csv and TensorBoard keep."""
    runners = result.get("env_runners", {})
    out = {
        "env_steps": _num(result.get("num_env_steps_sampled_lifetime", runners.get("num_env_steps_sampled_lifetime"))),
        "iteration_seconds": _num(result.get("time_this_iter_s")),
        "env_steps_this_iter": _num(runners.get("num_env_steps_sampled")),
        "episodes": _num(runners.get("num_episodes_lifetime")),
        "episode_len_mean": _num(runners.get("episode_len_mean")),
        "illegal_actions": _num(runners.get("illegal_actions", 0)),
        "truncated_games": _num(runners.get("truncated_games", 0)),
        "necromancer_win_rate": _num(runners.get("necromancer_won")),
    }
    out["env_steps_per_s"] = out["env_steps_this_iter"] / out["iteration_seconds"] \
        if out["iteration_seconds"] and out["iteration_seconds"] > 0 else float("nan")
    returns = runners.get("module_episode_returns_mean", {}) or {}
    for m in cfg.modules():
        out[f"return_{m}"] = _num(returns.get(m))
    learners = result.get("learners", {})
    for m in cfg.modules():
        stats = learners.get(m, {})
        out[f"entropy_{m}"] = _num(stats.get("entropy"))
        out[f"vf_loss_{m}"] = _num(stats.get("vf_loss"))
    return out


class MetricsWriter:
    """progress.csv (header written once; a resumed run appends) and TensorBoard scalars."""

    def __init__(self, run_dir: Path) -> None:
        self.csv = run_dir / "progress.csv"
        try:
            from torch.utils.tensorboard import SummaryWriter

            self.tb = SummaryWriter(str(run_dir / "tb"))
        except ImportError:  # tensorboard is in the train extra; the CSV is always written
            self.tb = None

    def write(self, iteration: int, row: dict[str, float]) -> None:
        new = not self.csv.exists()
        with self.csv.open("a", newline="") as f:
            w = csv.writer(f)
            if new:
                w.writerow(["iteration", *row])
            w.writerow([iteration, *(("" if math.isnan(v) else f"{v:.6g}") for v in row.values())])
        if self.tb is not None:
            for k, v in row.items():
                if not math.isnan(v):
                    self.tb.add_scalar(k, v, iteration)
            self.tb.flush()

    def close(self) -> None:
        if self.tb is not None:
            self.tb.close()


# ------------------------------------------------------------------ evaluation
def evaluate_checkpoint(cfg: RLlibConfig, ckpt: Path, iteration: int, run_dir: Path,
                        quiet: bool = False) -> list[dict[str, Any]]:
    """Each module against the scripted baselines through ``necro_env.evaluate`` (see ``RLlibConfig``)."""
    from necro_env.evaluate import evaluate

    if not cfg.eval_games or not cfg.necromancer:
        return []  # the harness's match-ups need the Necromancer's seat (see RLlibConfig.eval_every)
    mapping = cfg.mapping()
    rows = []
    for m in cfg.modules():
        agents = [a for a, mid in mapping.items() if mid == m]
        spec = f"rllib:{ckpt}#{m}"
        seed = 10_000 + cfg.seed
        for role in ("necromancer", "player"):  # a module mapped to both roles is evaluated in each
            if role == "necromancer" and "necromancer_0" in agents:
                s = evaluate(cfg.players, necromancer_spec=spec, players_spec=cfg.eval_players, games=cfg.eval_games,
                             seed=seed, trusted=True, config=dict(cfg.game_options))
                res, opp = s["necromancer"], cfg.eval_players
            elif role == "player" and any(a.startswith("player_") for a in agents):
                s = evaluate(cfg.players, necromancer_spec=cfg.eval_necromancer, players_spec=spec,
                             games=cfg.eval_games, seed=seed, trusted=True, config=dict(cfg.game_options))
                res, opp = next(g for g in s["policies"] if g["role"] == "player"), cfg.eval_necromancer
            else:
                continue
            rows.append({"iteration": iteration, "module": m, "role": role, "opponents": opp, "wins": res["wins"],
                         "games": res["games"], "win_rate": res["win_rate"], "lo": res["ci95"][0],
                         "hi": res["ci95"][1]})
    path = run_dir / "eval.csv"
    new = not path.exists()
    with path.open("a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]) if rows else ["iteration"])
        if new:
            w.writeheader()
        w.writerows(rows)
    if not quiet:
        for r in rows:
            print(f"  eval it {iteration}: {r['module']} ({r['role']}) vs {r['opponents']}: "
                  f"{r['wins']}/{r['games']} = {r['win_rate']:.3f} [{r['lo']:.3f}, {r['hi']:.3f}]", flush=True)
    return rows


# ------------------------------------------------------------------ the run
def stop_reason(cfg: RLlibConfig, env_steps: float, seconds: float) -> str | None:
    """Why the run stops after an iteration that ends with ``env_steps`` sampled, ``seconds`` into training:
    ``"max_env_steps"``, ``"max_minutes"`` or None (go on, up to ``iterations``)."""
    if cfg.max_env_steps is not None and env_steps >= cfg.max_env_steps:
        return "max_env_steps"
    if cfg.max_minutes is not None and seconds >= cfg.max_minutes * 60:
        return "max_minutes"
    return None


def train(cfg: RLlibConfig, resume: bool = False, force: bool = False, quiet: bool = False,
          address: str | None = None, auth: dict[str, str] | None = None) -> dict[str, Any]:
    """Run ``cfg``; returns a summary (run dir, final checkpoint, last metrics, evaluations, illegal actions).
    ``auth``: environment variables for joining the cluster at ``address`` (``ray_auth_settings``)."""
    import torch

    torch.set_num_threads(cfg.torch_threads)
    run_dir = Path(cfg.out_dir) / cfg.run_name
    saved_cfg = run_dir / "config.yaml"
    if resume:
        if not saved_cfg.is_file():
            raise TrainConfigError(f"--resume: {run_dir} has no run to resume (no config.yaml)")
        before = yaml.safe_load(saved_cfg.read_text())
        now = cfg.to_dict()
        diff = sorted(k for k in set(before) | set(now) if k != "iterations" and before.get(k) != now.get(k))
        if diff:
            raise TrainConfigError(f"--resume: the config differs from the run's in {diff} (only iterations may change)")
    elif run_dir.exists():
        if not force:
            raise TrainConfigError(f"{run_dir} exists: pass --resume to continue it or --force to start over")
        shutil.rmtree(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    saved_cfg.write_text(yaml.safe_dump(cfg.to_dict(), sort_keys=False))

    start_ray(cfg, address, auth)
    algo = algo_config(cfg).build_algo()
    metrics = MetricsWriter(run_dir)
    evals: list[dict[str, Any]] = []
    row: dict[str, float] = {}
    try:
        done = 0
        if resume:
            ckpts = checkpoints(run_dir)
            if ckpts:
                done, path = ckpts[-1]
                algo.restore_from_path(str(path.resolve()))
                if not quiet:
                    print(f"resumed {run_dir} from iteration {done} ({path})", flush=True)
        t0 = time.time()
        illegal = 0.0
        it = done
        stopped_by = "iterations"
        for it in range(done + 1, cfg.iterations + 1):
            result = algo.train()
            row = scalars(result, cfg)
            illegal = row["illegal_actions"] if not math.isnan(row["illegal_actions"]) else illegal
            metrics.write(it, row)
            if not quiet:
                rets = " ".join(f"{m}={row[f'return_{m}']:+.2f}" for m in cfg.modules())
                print(f"it {it}/{cfg.iterations}: {row['env_steps']:.0f} env steps, {row['env_steps_per_s']:.0f}/s, "
                      f"returns {rets}, illegal {row['illegal_actions']:.0f}", flush=True)
            stopped_by = stop_reason(cfg, row["env_steps"], time.time() - t0) or stopped_by
            last = it == cfg.iterations or stopped_by != "iterations"
            if (cfg.checkpoint_every and it % cfg.checkpoint_every == 0) or last:
                ckpt = save(algo, run_dir / "checkpoints" / f"iter_{it:06d}")
                for _, old in checkpoints(run_dir)[:-KEEP_CHECKPOINTS]:
                    shutil.rmtree(old, ignore_errors=True)
                if (cfg.eval_every and it % cfg.eval_every == 0) and not last:
                    evals += evaluate_checkpoint(cfg, ckpt, it, run_dir, quiet)
            if last:
                break
        final = save(algo, run_dir / "checkpoint")
        evals += evaluate_checkpoint(cfg, final, it, run_dir, quiet)
        summary = {"run_dir": str(run_dir), "checkpoint": str(final), "iterations": it,
                   "seconds": round(time.time() - t0, 1), "last": row, "evaluations": evals,
                   "illegal_actions": illegal, "modules": cfg.modules(), "stopped_by": stopped_by,
                   "env_steps": int(row["env_steps"]) if row and not math.isnan(row["env_steps"]) else None}
        if not quiet:
            print(f"final checkpoint: {final} (modules {', '.join(cfg.modules())})", flush=True)
        return summary
    finally:
        metrics.close()
        algo.stop()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Multi-agent PPO on necro_env with Ray RLlib")
    p.add_argument("--config", required=True, help="YAML config (see training/rllib_config.py)")
    p.add_argument("--resume", action="store_true", help="continue the run from its newest checkpoint")
    p.add_argument("--force", action="store_true", help="delete an existing run directory and start over")
    p.add_argument("--address", default=None, help="join a running Ray cluster ('auto' or HEAD:6379)")
    p.add_argument("--auth-token-file", default=None, metavar="FILE",
                   help="with --address: the cluster's token (Ray >= 2.60 token authentication; default: "
                        "RAY_AUTH_TOKEN, RAY_AUTH_TOKEN_PATH or ~/.ray/auth_token when there)")
    p.add_argument("--quiet", action="store_true")
    args = p.parse_args(argv)
    try:
        auth = ray_auth_settings(args.address, args.auth_token_file)
        cfg = load_config(args.config)
        train(cfg, resume=args.resume, force=args.force, quiet=args.quiet, address=args.address, auth=auth)
    except (TrainConfigError, NecroEnvError) as e:
        print(f"rllib_train: error: {e}", file=sys.stderr)
        return 2
    except ImportError as e:
        print(f"rllib_train: error: {e} (install the rllib extra: pip install -e '.[rllib]')", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
