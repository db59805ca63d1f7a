"""Opponent speed: decisions per second of the scripted policies (``greedy`` players, the ``heuristic``
Necromancer), and the start-up of ``necro-env simulate``, this tree beside a baseline tree in one run.

Each round runs one worker process per tree (the order alternating round by round, so changing machine
load hits both alike). A worker plays ``--games`` whole games on each of 3 and 6 seats (greedy players,
the heuristic Necromancer; seeds ``--seed`` ...) through the engine, timing only the policies' ``act``
calls (the engine's legal actions, cached on the state, are computed before) by CPU time (``time.process_time``), and reports decisions per CPU second per policy. The games
are the same in both trees when the policies decide alike, so the workers also report a digest of
every action taken: a difference is printed (the speed-up would then compare different games).

``--startup`` times ``python -m necro_env.cli simulate --players 4 --games 1 --seed 0`` instead
(CPU seconds of the child process, user + system, median over the rounds).

    python benchmarks/opponent_speed.py [--baseline-tree /work/wt/base | --baseline REV] [--games 20]
        [--repeats 5] [--seed 0] [--startup] [--json]

``--baseline REV`` checks the commit out in a temporary ``git worktree`` (removed afterwards);
``--baseline-tree`` uses an existing checkout. Without either, only this tree is timed.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
SEATS = (3, 6)


# ------------------------------------------------------------------------------ the worker (either tree)
def worker(games: int, seed: int) -> dict:
    """Play the games with the tree on ``sys.path``; decisions, CPU seconds and an action digest per policy."""
    import hashlib
    import time

    import numpy as np

    from necro_env.agents import GreedyAgent, NecromancerHeuristic, View
    from necro_env.game import Game, GameConfig

    clock = time.process_time
    out: dict = {}
    digest = hashlib.sha256()
    for n in SEATS:
        game = Game(GameConfig(players=n, necromancer=True))
        greedy, necro = GreedyAgent(), NecromancerHeuristic()
        pols = [greedy] * (n - 1) + [necro]
        counts = {"greedy": [0, 0.0], "heuristic": [0, 0.0]}
        for g in range(games):
            st = game.new_state(seed=seed + g)
            rngs = [np.random.default_rng([seed + g, s]) for s in range(n)]
            while not st.over:
                seat = st.decider
                p = pols[seat]
                view = View(game, st, seat)
                game.legal_actions(st)  # the engine's work (cached on the state), not the policy's
                t0 = clock()
                a = p.act(view, rngs[seat])
                dt = clock() - t0
                c = counts[p.name]
                c[0] += 1
                c[1] += dt
                digest.update(int(a).to_bytes(2, "little"))
                game.apply(st, int(a))
        for name, (d, s) in counts.items():
            out[f"{name} {n} seats"] = d / s if s > 0 else 0.0
    out["digest"] = digest.hexdigest()[:16]
    return out


# ------------------------------------------------------------------------------ driving the workers
@contextlib.contextmanager
def baseline_tree(rev: str | None, tree: str | None):
    """The baseline checkout's path (None: no baseline); ``rev`` is checked out in a temporary worktree."""
    if tree:
        yield str(Path(tree).resolve())
        return
    if not rev:
        yield None
        return
    tmp = tempfile.mkdtemp(prefix="necro_baseline_")
    subprocess.run(["git", "-C", str(HERE), "worktree", "add", "--detach", tmp, rev], check=True,
                   capture_output=True)
    try:
        yield tmp
    finally:
        subprocess.run(["git", "-C", str(HERE), "worktree", "remove", "--force", tmp], capture_output=True)


def _env(tree: str) -> dict:
    return {**os.environ, "PYTHONPATH": tree}


def run_worker(tree: str, games: int, seed: int) -> dict:
    code = (f"import sys, json; sys.path.insert(0, {tree!r}); sys.path.insert(1, {str(HERE / 'benchmarks')!r}); "
            f"import opponent_speed as o; print(json.dumps(o.worker({games}, {seed})))")
    res = subprocess.run([sys.executable, "-c", code], env=_env(tree), cwd=tree, capture_output=True, text=True)
    if res.returncode:
        raise SystemExit(f"worker in {tree} failed:\n{res.stderr}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def run_startup(tree: str) -> float:
    """CPU seconds (user + system) of one ``simulate`` child process run from ``tree``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "necro_env.cli", "simulate", "--players", "4", "--games", "1",
                    "--seed", "0"], env=_env(tree), cwd=tree, check=True, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--baseline", default=None, help="a git revision to compare with (temporary worktree)")
    p.add_argument("--baseline-tree", default=None, help="an existing checkout to compare with")
    p.add_argument("--games", type=int, default=20, help="games per seat count per round")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--startup", action="store_true", help="time simulate's start-up instead")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    with baseline_tree(args.baseline, args.baseline_tree) as base:
        trees = {"current": str(HERE)}
        if base:
            trees["baseline"] = base
        names = list(trees)
        rounds: dict[str, list[dict]] = {k: [] for k in names}
        for r in range(args.repeats):
            for k in (names if r % 2 == 0 else names[::-1]):
                if args.startup:
                    rounds[k].append({"simulate start-up s": run_startup(trees[k])})
                else:
                    rounds[k].append(run_worker(trees[k], args.games, args.seed))
    keys = [k for k in rounds["current"][0] if k != "digest"]
    med = {t: {k: statistics.median(x[k] for x in rounds[t]) for k in keys} for t in names}
    result = {"median": med, "repeats": args.repeats, "clock": "process_cpu"}
    if not args.startup:
        result["games"] = args.games
        result["same_games"] = len({x["digest"] for t in names for x in rounds[t]}) == 1
    unit = "CPU s" if args.startup else "decisions/s"
    print(f"{'':<24}{'current':>14}" + (f"{'baseline':>14}{'ratio':>8}" if base else "") + f"   ({unit}, median "
          f"of {args.repeats})")
    for k in keys:
        line = f"{k:<24}{med['current'][k]:>14,.3f}" if args.startup else f"{k:<24}{med['current'][k]:>14,.0f}"
        if base:
            b = med["baseline"][k]
            ratio = (b / med["current"][k]) if args.startup else (med["current"][k] / b)
            line += (f"{b:>14,.3f}" if args.startup else f"{b:>14,.0f}") + f"{ratio:>8.2f}"
        print(line)
    if args.startup and base:
        print("(ratio: baseline CPU s / current CPU s)")
    if not args.startup:
        print("same games in both trees" if result["same_games"] else "DIFFERENT games: the trees decide differently")
    if args.json:
        print(json.dumps(result, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
