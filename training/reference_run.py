"""One reference run of the benchmark suite (``necro-bench-v1``): train one library's learner on a task for a
budget of env steps or until a wall-time cap, whichever comes first, score the trained policy with the task's
evaluation (``necro_env.benchmark.score_policy``), and write one results file.

    python training/reference_run.py --library {sb3,rllib,tianshou,benchmarl} --task TASK --seed S
        [--budget small|large|N] [--max-minutes 60] [--games N] [--eval-seed S] [--workers W]
        [--out-dir results/reference] [--force] [--json] [--quiet]

The learners (what each trains on the task; ``docs/benchmark/README.md``, "Reference results"):

* ``sb3``: sb3-contrib's MaskablePPO with the project's recipe (``training/train.py``), the task's recipe
  config (``RECIPES``: the per-region network, the warm start by cloning the scripted reference, progress
  shaping, the pipelined update) with the task's seats, learner, opponents, reward and game options
  (``Task.single_seat_kwargs``), ``total_steps`` the budget, ``max_minutes`` the cap (the warm start counts
  in it), no periodic evaluation. Env steps: the learner's decisions in the single-seat env.
* ``tianshou``: Tianshou's DQN, the learner of ``examples/tianshou_dqn.py`` (``train_single_seat``), on the
  task's single-seat env against the task's opponents. Env steps: the learner's decisions.
* ``rllib``: Ray RLlib's multi-agent PPO (``training/rllib_train.py``, the settings of
  ``configs/rllib_necro_3p.yaml``): the player seats share the module ``players``, the Necromancer has the
  module ``necromancer``, both learn at once against each other on the task's seats; the module of the
  task's learner is scored (``rllib:CHECKPOINT#MODULE``; in ``selfplay3`` both). Env steps: RLlib's count,
  every agent's decision (the opponents' included).
* ``benchmarl``: BenchMARL's IPPO with its default experiment, algorithm and MLP settings but 4 passes over a
  batch (``examples/benchmarl_ippo.py``, ``train_single_seat``), on the task's single-seat env as a one-agent
  task (IPPO is then PPO on that agent) against the task's opponents. Env steps: the learner's decisions
  (BenchMARL's frames), in whole batches of 6,000.

A library that cannot express a task says so (``ReferenceRunError``): ``sb3``, ``tianshou`` and ``benchmarl``
train one learner on a single-seat env, which the two-sided ``selfplay3`` has not.

Written under ``--out-dir`` (default ``results/reference``):

    <library>_<task>_<budget>_s<seed>.json   the results file (``necro-env benchmark --results DIR`` reads
                                             every ``*.json`` of DIR); ``--json`` also prints it as the last line
    train/<library>_<task>_<budget>__s<seed>/  the run: the library's own files and the trained policy

Results-file fields besides the evaluation's (``score_policy``): ``library``, ``algorithm``, ``seed`` (the
training seed), ``budget`` (``small``, ``large`` or the step count), ``budget_steps``, ``env_steps`` (trained,
as the library counts them), ``max_minutes``, ``capped`` (the cap stopped training before the budget),
``train_seconds``, ``eval_seconds``, ``wall_seconds``, ``policy_files`` (the trained policy's files) and
``training`` (the library's settings: the recipe, the run directory).
Evaluation overrides (``--games``, ``--eval-seed`` other than the task's seed and held-out seeds) are
recorded as ``"protocol": false``.
"""
from __future__ import annotations

import argparse
import json
import math
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from necro_env.benchmark import Task, check_result, get_task, score_policy  # noqa: E402
from necro_env.game.errors import NecroEnvError  # noqa: E402
from training.config import MINUTES_RULE, TrainConfigError, is_minutes  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
#: The libraries a reference run can name, and the algorithm each trains.
LIBRARIES = ("sb3", "rllib", "tianshou", "benchmarl")
ALGORITHMS = {"sb3": "MaskablePPO", "rllib": "PPO", "tianshou": "DQN", "benchmarl": "IPPO"}
#: The wall-time cap of training (the issue's "60 minutes of the 2 cores").
DEFAULT_MAX_MINUTES = 60.0
DEFAULT_OUT_DIR = "results/reference"
#: SB3's recipe config for each one-sided task (the shipped policies' configs).
RECIPES = {"necro3-greedy": "configs/necromancer_3p.yaml", "necro6-greedy": "configs/necromancer_6p.yaml",
           "players3-heuristic": "configs/players_3p.yaml", "player2-greedy": "configs/player_2p.yaml"}
#: RLlib's settings (its mapping, network and PPO settings; the seats come from the task).
RLLIB_RECIPE = "configs/rllib_necro_3p.yaml"


class ReferenceRunError(TrainConfigError):
    """A reference run that cannot be made as asked: an unknown library, task or budget, a cap that is not a
    positive number of minutes, a library that cannot express the task or has no reference run, a run that
    exists already. A ``ConfigError``."""


@dataclass
class Trained:
    """What a library's training gives the scoring: one policy spec per side of the task, and the run's facts."""

    policies: list[Any]
    env_steps: int
    seconds: float
    capped: bool
    policy_files: list[str]
    trusted: bool = False
    picklable: bool = True  # the policies can go to evaluation worker processes
    training: dict[str, Any] = field(default_factory=dict)


# ------------------------------------------------------------------ the request
def check_library(library: Any, task: Task) -> str:
    """``library`` if it has reference runs and can express ``task`` (``ReferenceRunError`` otherwise)."""
    if library not in LIBRARIES:
        raise ReferenceRunError(f"unknown library {library!r}; the libraries are: {', '.join(LIBRARIES)}")
    if library in ("sb3", "tianshou", "benchmarl") and (len(task.sides) != 1 or len(task.sides[0].opponents) != 1):
        raise ReferenceRunError(
            f"library {library} trains one learner on the task's single-seat env against one opponent; task "
            f"{task.name!r} has {len(task.sides)} learned sides ({', '.join(s.learner for s in task.sides)}), each "
            f"scored against a pool of the other: it has no such env (RLlib's multi-agent PPO trains both sides: "
            f"--library rllib)")
    return library


def parse_budget(task: Task, budget: Any) -> tuple[str | int, int]:
    """(the budget as a results file records it, its env steps): a budget name of the task or a positive
    step count (an int, or a string of digits)."""
    names = [n for n, _ in task.budgets]
    if isinstance(budget, str) and budget.strip().isdigit():
        budget = int(budget)
    if isinstance(budget, int) and not isinstance(budget, bool) and budget >= 1:
        return budget, budget
    if isinstance(budget, str) and budget in names:
        return budget, task.budget_steps(budget)
    raise ReferenceRunError(f"task {task.name!r} has the budgets {', '.join(names)} (or a positive number of env "
                            f"steps), got {budget!r}")


def check_minutes(minutes: Any) -> float:
    """``minutes`` if it is a number of minutes ``is_minutes`` takes (``ReferenceRunError`` otherwise)."""
    if not is_minutes(minutes):
        raise ReferenceRunError(f"max_minutes must be {MINUTES_RULE}, got {minutes!r}")
    return float(minutes)


def run_stem(library: str, task: Task, budget: str | int) -> str:
    """The stem every file of one library's runs of a task at a budget shares (results and training folders)."""
    return f"{library}_{task.name}_{budget}"


def results_name(library: str, task: Task, budget: str | int, seed: int) -> str:
    """The name of one run's results file (``necro-env benchmark --results`` reads a folder of them)."""
    return f"{run_stem(library, task, budget)}_s{seed}.json"


# ------------------------------------------------------------------ the libraries
def _import_example(name: str):
    """A module of examples/ (they import their shared ``_common`` by name, so the folder goes on the path)."""
    import importlib

    if str(EXAMPLES) not in sys.path:
        sys.path.insert(0, str(EXAMPLES))
    return importlib.import_module(name)


def sb3_config(task: Task, seed: int, steps: int, max_minutes: float, train_root: Path, name: str,
               overrides: dict[str, Any] | None = None):
    """The ``TrainConfig`` of an SB3 reference run: the task's recipe (``RECIPES``) on the task's seats,
    learner, opponents, reward and game options, for ``steps`` env steps or ``max_minutes``, then ``overrides``
    (tests use them to shrink the run)."""
    from training.config import TrainConfig, config_from_dict, read_yaml

    data = dict(read_yaml(REPO / RECIPES[task.name]))
    kw = task.single_seat_kwargs()
    options = {k: v for k, v in kw.items()
               if k not in ("players", "learner", "opponents", "necromancer_opponent", "reward", "necromancer")}
    data.update(name=name, players=kw["players"], necromancer=task.necromancer, learner=kw["learner"],
                reward=kw["reward"], game_options=options, total_steps=steps, max_minutes=max_minutes, seed=seed,
                out_dir=str(train_root), eval_every=0)
    if "opponents" in kw:
        data["opponents"] = kw["opponents"]
    if "necromancer_opponent" in kw:
        data["necromancer_opponent"] = kw["necromancer_opponent"]
    cfg = config_from_dict(data, where=f"the {task.name} recipe ({RECIPES[task.name]})")
    if overrides:
        cfg = config_from_dict({**cfg.to_dict(), **overrides}, where="the recipe with overrides")
    assert isinstance(cfg, TrainConfig)
    return cfg


def train_sb3(task: Task, seed: int, steps: int, max_minutes: float, train_root: Path, name: str,
              progress: bool, overrides: dict[str, Any] | None = None) -> Trained:
    from necro_env.agents.torch_policy import policy_header
    from training.train import train

    cfg = sb3_config(task, seed, steps, max_minutes, train_root, name, overrides)
    t0 = time.perf_counter()
    run_dir = train(cfg, progress=progress)
    seconds = time.perf_counter() - t0
    final = run_dir / "final.safetensors"
    info = policy_header(final)["info"]
    return Trained(policies=[str(final)], env_steps=int(info["steps"]), seconds=seconds,
                   capped=info["stopped_by"] == "max_minutes" and int(info["steps"]) < steps,
                   policy_files=[str(final)],
                   training={"recipe": RECIPES[task.name], "run_dir": str(run_dir), "config": cfg.to_dict()})


def rllib_config(task: Task, seed: int, steps: int, max_minutes: float, train_root: Path, name: str,
                 overrides: dict[str, Any] | None = None):
    """The ``RLlibConfig`` of an RLlib reference run: ``RLLIB_RECIPE``'s settings on the task's seats and game
    options, stopped at ``steps`` env steps or ``max_minutes``; no evaluation during training."""
    from training.config import read_yaml
    from training.rllib_config import config_from_dict

    data = dict(read_yaml(REPO / RLLIB_RECIPE))
    data.update(name=name, players=task.players, necromancer=task.necromancer, game_options=dict(task.game_options),
                seed=seed, out_dir=str(train_root), eval_games=0, eval_every=0, max_minutes=max_minutes,
                max_env_steps=steps, policy_mapping="shared", **(overrides or {}))
    # an upper bound: max_env_steps ends the run (an iteration samples about train_batch_size env steps)
    data["iterations"] = 2 * math.ceil(steps / data.get("train_batch_size", 4000)) + 1
    return config_from_dict(data, where=f"the RLlib reference settings ({RLLIB_RECIPE})")


def train_rllib(task: Task, seed: int, steps: int, max_minutes: float, train_root: Path, name: str,
                progress: bool, overrides: dict[str, Any] | None = None) -> Trained:
    import ray

    from training.rllib_train import train

    cfg = rllib_config(task, seed, steps, max_minutes, train_root, name, overrides)
    started_here = not ray.is_initialized()
    t0 = time.perf_counter()
    try:
        out = train(cfg, quiet=not progress)
    finally:
        if started_here and ray.is_initialized():
            ray.shutdown()
    seconds = time.perf_counter() - t0
    module = {"necromancer": "necromancer", "players": "players", "player": "players"}
    policies = [f"rllib:{out['checkpoint']}#{module[s.learner]}" for s in task.sides]
    env_steps = out["env_steps"] or 0
    return Trained(policies=policies, env_steps=env_steps, seconds=seconds,
                   capped=out["stopped_by"] == "max_minutes" and env_steps < steps, policy_files=[out["checkpoint"]],
                   trusted=True, training={"recipe": RLLIB_RECIPE, "run_dir": out["run_dir"],
                                           "iterations": out["iterations"], "config": cfg.to_dict()})


def train_tianshou(task: Task, seed: int, steps: int, max_minutes: float, train_root: Path, name: str,
                   progress: bool, overrides: dict[str, Any] | None = None) -> Trained:
    import torch

    if overrides:
        raise ReferenceRunError(f"the Tianshou learner takes no overrides, got {sorted(overrides)}")
    dqn = _import_example("tianshou_dqn")
    run_dir = train_root / f"{name}__s{seed}"
    run_dir.mkdir(parents=True)
    t0 = time.perf_counter()
    algorithm, info = dqn.train_single_seat(task.single_seat_kwargs(), steps, seed=seed,
                                            max_seconds=max_minutes * 60)
    seconds = time.perf_counter() - t0
    path = run_dir / "dqn.pt"
    torch.save(algorithm.policy.state_dict(), path)  # load into examples/tianshou_dqn.dqn_learner(...).policy
    (run_dir / "training.json").write_text(json.dumps(info, indent=1) + "\n")
    policy = dqn.learned_policy(algorithm.policy)
    policy.name = f"tianshou-dqn:{path}"
    return Trained(policies=[policy], env_steps=info["env_steps"], seconds=seconds,
                   capped=info["capped"] and info["env_steps"] < steps, policy_files=[str(path)], picklable=False,
                   training={"learner": "examples/tianshou_dqn.py (dqn_learner, train_single_seat)",
                             "run_dir": str(run_dir), "episodes": info["episodes"],
                             "env_kwargs": task.single_seat_kwargs()})


def train_benchmarl(task: Task, seed: int, steps: int, max_minutes: float, train_root: Path, name: str,
                    progress: bool, overrides: dict[str, Any] | None = None) -> Trained:
    import torch

    ippo = _import_example("benchmarl_ippo")
    run_dir = train_root / f"{name}__s{seed}"
    run_dir.mkdir(parents=True)
    policy, info = ippo.train_single_seat(task.single_seat_kwargs(), steps, seed=seed, max_seconds=max_minutes * 60,
                                          out=str(run_dir / "benchmarl"), progress=progress, overrides=overrides)
    path = run_dir / "policy.pt"
    torch.save(info.pop("policy_state"), path)  # the state dict of the experiment's policy module
    (run_dir / "training.json").write_text(json.dumps(info, indent=1) + "\n")
    policy.name = f"benchmarl-ippo:{path}"
    return Trained(policies=[policy], env_steps=info["env_steps"], seconds=info["seconds"],
                   capped=info["capped"] and info["env_steps"] < steps, policy_files=[str(path)], picklable=False,
                   training={"learner": "examples/benchmarl_ippo.py (train_single_seat)", "run_dir": str(run_dir),
                             "iterations": info["iterations"], "epochs": ippo.SINGLE_SEAT_EPOCHS,
                             "env_kwargs": task.single_seat_kwargs()})


TRAINERS = {"sb3": train_sb3, "rllib": train_rllib, "tianshou": train_tianshou, "benchmarl": train_benchmarl}


# ------------------------------------------------------------------ the run
def reference_run(library: str, task: str | Task, seed: int, budget: str | int = "small",
                  max_minutes: float = DEFAULT_MAX_MINUTES, games: int | None = None, eval_seed: int | None = None,
                  workers: int = 1, out_dir: str | Path = DEFAULT_OUT_DIR, force: bool = False,
                  progress: bool = False, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """Train, score and write one results file (see the module docstring); returns the result (its
    ``file`` field: where it was written). ``overrides``: keys of the library's config set over the
    reference settings (sb3: ``TrainConfig``, rllib: ``RLlibConfig``, benchmarl: BenchMARL's
    ``ExperimentConfig``), for tests; a run with any is
    recorded with them under ``training``."""
    task = get_task(task) if isinstance(task, str) else task
    check_library(library, task)
    budget, steps = parse_budget(task, budget)
    max_minutes = check_minutes(max_minutes)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ReferenceRunError(f"seed must be an int >= 0 (the training seed; the task reports "
                                f"{', '.join(map(str, task.train_seeds))}), got {seed!r}")
    out_dir = Path(out_dir)
    stem = run_stem(library, task, budget)
    result_file = out_dir / results_name(library, task, budget, seed)
    run_dir = out_dir / "train" / f"{stem}__s{seed}"
    for path in (result_file, run_dir):
        if path.exists() and not force:
            raise ReferenceRunError(f"{path} exists: pass --force to run it again (it is replaced)")
    if library not in TRAINERS:  # check_library let through a library without a trainer
        raise ReferenceRunError(f"library {library} has no reference run; the libraries with one: {', '.join(TRAINERS)}")
    if overrides is not None and not isinstance(overrides, dict):
        raise ReferenceRunError(f"overrides must be a mapping of config keys, got {overrides!r}")
    if run_dir.exists():
        shutil.rmtree(run_dir)
    result_file.unlink(missing_ok=True)
    t0 = time.perf_counter()
    trained = TRAINERS[library](task, seed, steps, max_minutes, out_dir / "train", stem, progress, overrides)
    t1 = time.perf_counter()
    res = score_policy(task, trained.policies, games, eval_seed, workers if trained.picklable else 1,
                       trusted=trained.trusted, progress=progress)
    t2 = time.perf_counter()
    res.update({
        "library": library, "algorithm": ALGORITHMS[library], "seed": seed, "budget": budget, "budget_steps": steps,
        "env_steps": trained.env_steps, "max_minutes": max_minutes, "capped": trained.capped,
        "train_seconds": round(trained.seconds, 1), "eval_seconds": round(t2 - t1, 1),
        "wall_seconds": round(t2 - t0, 1), "policy_files": trained.policy_files,
        "training": {**trained.training, **({"overrides": overrides} if overrides else {})},
    })
    counted = [p.illegal_actions for p in trained.policies if hasattr(p, "illegal_actions")]
    if counted:  # an in-memory policy (Tianshou's) counts its choices outside the legal actions
        res["eval_illegal_actions"] = int(sum(counted))
    check_result(res, str(result_file))
    out_dir.mkdir(parents=True, exist_ok=True)
    result_file.write_text(json.dumps(res, sort_keys=True, indent=1, default=str) + "\n")
    res["file"] = str(result_file)
    return res


def format_run(res: dict[str, Any]) -> str:
    """A few readable lines about a finished run."""
    from necro_env.benchmark import format_result

    stop = "the wall-time cap" if res["capped"] else "the budget"
    return "\n".join([
        f"{res['library']} {res['algorithm']} on {res['task']}, seed {res['seed']}, budget {res['budget']} "
        f"({res['budget_steps']:,} env steps): trained {res['env_steps']:,} env steps in {res['train_seconds']:.0f} s "
        f"(stopped by {stop}; cap {res['max_minutes']:g} min)",
        format_result(res),
        f"wrote {res['file']}",
    ])


def positive_minutes(text: str) -> float:
    """``--max-minutes``: ``check_minutes`` of the number ``text`` names, as an argparse type."""
    try:
        return check_minutes(float(text))
    except (ValueError, ReferenceRunError):
        raise argparse.ArgumentTypeError(f"must be {MINUTES_RULE}, got {text!r}") from None


def main(argv: list[str] | None = None) -> int:
    from necro_env.cli_args import nonneg_int, positive_int

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--library", required=True, help=f"one of {', '.join(LIBRARIES)}")
    p.add_argument("--task", required=True, help="a task of the suite (necro-env benchmark --list)")
    p.add_argument("--seed", type=nonneg_int, required=True, help="the training seed (the tasks report 0, 1, 2)")
    p.add_argument("--budget", default="small", help="small, large or a number of env steps (default small)")
    p.add_argument("--max-minutes", type=positive_minutes, default=DEFAULT_MAX_MINUTES,
                   help=f"wall-time cap of training (default {DEFAULT_MAX_MINUTES:g})")
    p.add_argument("--games", type=positive_int, default=None,
                   help="evaluation games per opponent (default: the task's; another count is not the protocol)")
    p.add_argument("--eval-seed", type=nonneg_int, default=None, help="evaluation seed (default: the task's)")
    p.add_argument("--workers", type=positive_int, default=1,
                   help="evaluation processes (default 1; Tianshou's in-memory policy always uses 1)")
    p.add_argument("--out-dir", default=DEFAULT_OUT_DIR,
                   help=f"where the results file and the run go (default {DEFAULT_OUT_DIR})")
    p.add_argument("--force", action="store_true", help="run again over an existing results file and run directory")
    p.add_argument("--json", action="store_true", help="print the results file's JSON as the last line")
    p.add_argument("--quiet", action="store_true", help="no progress bars or messages")
    args = p.parse_args(argv)
    try:
        res = reference_run(args.library, args.task, args.seed, args.budget, args.max_minutes, args.games,
                            args.eval_seed, args.workers, args.out_dir, args.force, progress=not args.quiet)
    except NecroEnvError as e:  # ConfigError (bad input, a task a library cannot express) and the others
        print(f"reference_run: error: {e}", file=sys.stderr)
        return 2
    except ImportError as e:
        print(f"reference_run: error: {e} (install the library's extra: pip install -e '.[train,rllib,dev]'; "
              f"make install installs them all)", file=sys.stderr)
        return 2
    print(format_run(res))
    if args.json:
        print(json.dumps({k: v for k, v in res.items() if k != "file"}, sort_keys=True, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
