"""Learner speed: MaskablePPO steps per second (rollouts and updates together) in the training setups
that could use a 2-core machine, side by side in one run.

For each setup it trains the learning recipe's network (``configs/necromancer_3p.yaml``'s region net,
batch and epochs; no warm start, no evaluation) for ``--steps`` steps from a fresh model, ``--repeats``
times, setups taking turns round by round, and prints steps per second (wall clock; the median over the
rounds) and the ratio to the first setup, for the whole run (start-up, the first collection and the last
update included) and for its steady state (from the end of the first rollout's collection to the end of
the last one's: what a long run sustains):

* ``dummy, 1 thread``: every env in this process, torch on 1 thread (the configs' default);
* ``dummy, 2 threads``: the same with torch on 2 threads (the update's matrix products on both cores);
* ``subproc, 1 thread``: SB3's SubprocVecEnv (a process per env), torch on 1 thread;
* ``chunked 2, 1+2 threads``: ``training/vec_env.py``'s ChunkedSubprocVecEnv (the envs split over 2 worker
  processes), torch on 1 thread while collecting and 2 during the update (``update_threads: 2``);
* ``pipeline, 1 thread``: every env in this process, the update in a thread beside the next rollout's
  collection (``pipeline: true``, ``training/pipeline.py``), torch on 1 thread in each;
* ``pipeline, envs in 1 worker``: the same with every env in one worker process (``vec_env: chunked``,
  ``env_workers: 1``): the learner's process keeps the forward passes and the update, whose thread then
  no longer waits for the interpreter while the envs' Python runs;
* ``the config's own``: the settings ``--config`` names (with ``--baseline``, each tree's own config: the
  recipe of each commit).

``--setups`` picks some of them by their numbers in this list (1-7), the first picked being the reference.

    python benchmarks/learner_speed.py [--steps 32768] [--repeats 3] [--config configs/necromancer_3p.yaml] [--setups 2,5] [--json]
    python benchmarks/learner_speed.py --baseline REV [--setups 7] [--repeats 3] ...   # this tree beside commit REV

``--baseline REV`` runs this benchmark (one round per child process, each tree with its own
``training`` package and its own copy of ``--config``) on this tree and on a temporary git worktree of
REV, alternating, and prints both columns and their ratio (``benchmarks/side_by_side.py``).
Target (issue 28): the 3-seat recipe (setup 7 with the default config) >= 1.5x commit 3710629's steps/s.
"""
from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.append(str(Path(__file__).resolve().parents[1]))  # after PYTHONPATH: the tree asked for wins

# (name, vec_env, torch threads, update threads, pipeline, env workers); None: the config's own value
SETUPS = [("dummy, 1 thread", "dummy", 1, None, False, 2), ("dummy, 2 threads", "dummy", 2, None, False, 2),
          ("subproc, 1 thread", "subproc", 1, None, False, 2), ("chunked 2, 1+2 threads", "chunked", 1, 2, False, 2),
          ("pipeline, 1 thread", "dummy", 1, None, True, 2),
          ("pipeline, envs in 1 worker", "chunked", 1, None, True, 1),
          ("the config's own", None, None, None, None, None)]


def one_run(cfg, vec_env: str | None, threads: int | None, update: int | None, pipeline: bool | None,
            workers: int | None, steps: int, out: str) -> tuple[float, float]:
    """``(steps/s of the whole run, steps/s of its steady state)``: the whole run from ``train()``'s call to its
    return (start-up, first collection and last update included); the steady state from the end of the first
    rollout's collection to the end of the last one's (what a long run sustains)."""
    import torch
    from sb3_contrib import MaskablePPO

    from training.config import TrainConfig
    from training.train import train

    if vec_env is None:  # the config's own settings
        vec_env, threads, update, pipeline, workers = (cfg.vec_env, cfg.torch_threads, cfg.update_threads,
                                                       cfg.pipeline, cfg.env_workers)
    c = TrainConfig(**{**cfg.__dict__, "vec_env": vec_env, "torch_threads": threads, "total_steps": steps,
                       "env_workers": workers, "update_threads": update, "pipeline": pipeline,
                       "warm_start": None, "eval_every": 0, "checkpoint_every": 0, "max_minutes": None,
                       "out_dir": out, "name": f"speed_{vec_env}_{threads}_{update}_{int(pipeline)}"})
    ends: list[tuple[float, int]] = []  # (time, num_timesteps) at the end of each rollout's collection
    collect = MaskablePPO.collect_rollouts

    def timed(model, *a, **k):
        more = collect(model, *a, **k)
        ends.append((time.perf_counter(), model.num_timesteps))
        return more

    MaskablePPO.collect_rollouts = timed
    try:
        t0 = time.perf_counter()
        train(c, force=True, progress=False)
        dt = time.perf_counter() - t0
    finally:
        MaskablePPO.collect_rollouts = collect
    torch.set_num_threads(1)
    (ta, na), (tb, nb) = ends[0], ends[-1]
    return steps / dt, (nb - na) / (tb - ta) if tb > ta else float("nan")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=32768)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--config", default="configs/necromancer_3p.yaml")
    p.add_argument("--setups", default=None, help="comma-separated setup numbers (1-7; default: all)")
    p.add_argument("--json", action="store_true")
    sbs = _side_by_side()
    sbs.add_argument(p)
    args = p.parse_args(argv)
    setups = SETUPS
    if args.setups:
        try:
            picked = [int(x) for x in args.setups.split(",")]
        except ValueError:
            picked = []
        if not picked or any(not 1 <= k <= len(SETUPS) for k in picked):
            p.error(f"--setups takes numbers 1-{len(SETUPS)} separated by commas, got {args.setups!r}")
        setups = [SETUPS[k - 1] for k in picked]
    if args.baseline:
        return _against(sbs, args)
    from training.config import load_config

    cfg = load_config(args.config)
    rates: dict[str, list[float]] = {name: [] for name, *_ in setups}
    steady: dict[str, list[float]] = {name: [] for name, *_ in setups}
    with tempfile.TemporaryDirectory() as out:
        for r in range(args.repeats):
            order = setups if r % 2 == 0 else setups[::-1]
            for name, *setup in order:
                whole, inner = one_run(cfg, *setup, args.steps, out)
                rates[name].append(whole)
                steady[name].append(inner)
    base = statistics.median(rates[setups[0][0]])
    base_steady = statistics.median(steady[setups[0][0]])
    print(f"MaskablePPO steps/s, {cfg.name}'s network and PPO settings, {args.steps} steps x {args.repeats} rounds "
          f"(median; wall clock; steady: from the end of the first rollout to the end of the last)")
    print(f"{'setup':<28} {'steps/s':>8} {'ratio':>6} {'steady':>8} {'ratio':>6}   rounds (whole run)")
    for name, *_ in setups:
        med, med_s = statistics.median(rates[name]), statistics.median(steady[name])
        print(f"{name:<28} {med:>8.0f} {med / base:>6.2f} {med_s:>8.0f} {med_s / base_steady:>6.2f}   "
              f"{', '.join(f'{x:.0f}' for x in rates[name])}")
    if args.json:
        import necro_env

        print(json.dumps({"setups": {k: {"median": statistics.median(v), "rounds": v,
                                         "steady_median": statistics.median(steady[k]), "steady_rounds": steady[k]}
                                     for k, v in rates.items()},
                          "package": necro_env.__file__}))
    return 0


def _side_by_side():
    """``benchmarks/side_by_side.py`` (this tree's), loaded by path."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("side_by_side", Path(__file__).resolve().parent / "side_by_side.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _against(sbs, args) -> int:
    """``--baseline REV``: each round one child run per tree (``--repeats 1``, the same setups and steps)."""
    def child_args(k: int) -> list[str]:
        out = ["--steps", str(args.steps), "--repeats", "1", "--config", args.config, "--json"]
        return out + (["--setups", args.setups] if args.setups else [])

    def extract(res: dict) -> dict[str, float]:
        rows = {}
        for k, v in res["setups"].items():
            rows[f"{k} steps/s"] = v["median"]
            if math.isfinite(v["steady_median"]):  # a run of one rollout has no steady state
                rows[f"{k} steady steps/s"] = v["steady_median"]
        return rows

    table = sbs.compare(__file__, args.baseline, child_args, args.repeats, extract)
    if args.json:
        print(json.dumps(table, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
