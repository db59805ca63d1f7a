"""AEC env speed: random legal play through the full PettingZoo loop, against PettingZoo's classics.

For necro_env on 3-6 seats (the Necromancer scenario; ``--base`` adds the base game on
2-5 seats) and for PettingZoo's ``connect_four_v3`` and ``chess_v6`` (each through its
own ``env()``, i.e. with its wrappers) it runs, in this one process, the loop every
AEC user writes:

    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()      # observation + mask
        action = None if done else uniform pick among np.flatnonzero(obs["action_mask"])
        env.step(action)

resetting with a new seed after every game. In each of ``--repeats`` rounds every env
plays whole games until at least ``--decisions`` decisions (non-dead steps); the
envs take turns round by round (alternating the order), so changing machine load hits
them alike. It reports decisions per second (the median over the rounds) and the
ratio of each to connect four (taken within each round, then the median; the lowest
round's ratio is shown too). The pick is the same cheap numpy draw for
every env. Time is this process's CPU time by default (``--wall`` for the wall
clock): on a shared machine other processes then disturb the figures less.
Target (issue 28): necro_env on 6 seats >= 3x connect four in the same run, 3-6 seats all >= 2.5x
(issue 5's was 2x on 6 seats).

    python benchmarks/env_speed.py [--decisions 20000] [--repeats 3] [--seed 0] [--json] [--base] [--ceiling]
    python benchmarks/env_speed.py --baseline REV [--repeats 12] ...   # this tree beside commit REV

``--baseline REV`` runs this benchmark (one round per child process) on this tree and on a
temporary git worktree of REV, alternating, and prints both columns and their ratio
(``benchmarks/side_by_side.py``): decisions/s and the ratio to connect four of each tree.
"""
from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Callable

import numpy as np

from necro_env.simulate import random_draws

TARGET_RATIO = 3.0
TARGET_RATIO_ALL = 2.5  # every Necromancer seat count (3-6)


def run(env, decisions: int, seed: int, clock: Callable[[], float] = time.process_time
        ) -> tuple[int, float, int]:
    """Play whole random games until ``decisions`` decisions; (decisions, seconds of ``clock``, games)."""
    rng = np.random.default_rng(seed)
    draws = random_draws(rng)
    flatnonzero = np.flatnonzero
    done_decisions = games = 0
    t0 = clock()
    while done_decisions < decisions:
        env.reset(seed=seed + games)
        games += 1
        for _agent in env.agent_iter():
            obs, _reward, terminated, truncated, _info = env.last()
            if terminated or truncated:
                action = None
            else:
                if not draws:
                    draws = random_draws(rng)
                nz = flatnonzero(obs["action_mask"])
                action = int(nz[draws.pop() % len(nz)])
                done_decisions += 1
            env.step(action)
    elapsed = clock() - t0
    return done_decisions, elapsed, games


def _classic(name: str, reg_id: str) -> Callable | None:
    """The constructor of one of PettingZoo's classic envs (with its wrappers), or None if it cannot be built."""
    try:
        import pettingzoo

        if reg_id in getattr(pettingzoo, "aec_registry", {}):  # PettingZoo >= 1.27: the registry
            pettingzoo.make("aec", reg_id).close()  # fails here, not mid-run, if a dependency is missing
            return lambda: pettingzoo.make("aec", reg_id)
        module = importlib.import_module(f"pettingzoo.classic.{name}")  # older versions
        return module.env
    except ImportError as e:  # pygame / python-chess missing
        print(f"# {name} unavailable: {e}", file=sys.stderr)
        return None


class _FreeObserver:
    """``--ceiling``: an observer whose ``observe`` costs one array copy (of the first observation it made):
    the loop then pays for everything but writing the observation, which bounds what a faster one can give."""

    def __init__(self, observer) -> None:
        self._observer = observer
        self._vec = None

    def observe(self, st, seat: int, out=None):
        if self._vec is None:
            self._vec = self._observer.observe(st, seat)
        return self._vec.copy()


def _free_observation_env(players: int):
    import necro_env

    env = necro_env.env(players=players)
    env.unwrapped.observer = _FreeObserver(env.unwrapped.observer)
    return env


def _candidates(base: bool, ceiling: bool = False) -> list[tuple[str, Callable, int]]:
    """(name, constructor, decision budget divisor) for every env that can be built here."""
    import necro_env

    out: list[tuple[str, Callable, int]] = []
    for p in (3, 4, 5, 6):
        out.append((f"necro_env {p} seats", lambda p=p: necro_env.env(players=p), 1))
    # The env's default applies single-option decisions itself (skip_forced): each agent decision
    # then carries ~1.27 engine actions. This row times one engine action per agent step.
    out.append(("necro_env 6, all steps", lambda: necro_env.env(players=6, skip_forced=False), 1))
    if ceiling:
        out.append(("necro_env 6, obs free", lambda: _free_observation_env(6), 1))
    if base:
        for p in (2, 3, 4, 5):
            out.append((f"necro_env base {p}p", lambda p=p: necro_env.env(players=p, necromancer=False), 1))
    for name, reg_id, div in (("connect_four_v3", "classic/connect_four-v3", 1),
                              ("chess_v6", "classic/chess-v6", 8)):  # chess ~10x slower: a smaller budget
        ctor = _classic(name, reg_id)
        if ctor is not None:
            out.append((name, ctor, div))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=2000,
                        help="decisions per env per round (whole games; chess gets an eighth)")
    parser.add_argument("--repeats", type=int, default=12, help="rounds; the envs take turns in each round")
    parser.add_argument("--wall", action="store_true",
                        help="time with the wall clock (default: this process's CPU time, which a busy "
                             "shared machine disturbs less)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    parser.add_argument("--base", action="store_true", help="also time the base game on 2-5 seats")
    parser.add_argument("--ceiling", action="store_true",
                        help="also time 6 seats with the observation free (a copy of one fixed vector): what "
                             "the loop costs without writing observations, the most a faster observer can give")
    sbs = _side_by_side()
    sbs.add_argument(parser)
    args = parser.parse_args(argv)
    if args.baseline:
        return _against(sbs, args)

    envs = [(name, make(), div) for name, make, div in _candidates(args.base, args.ceiling)]
    rates: dict[str, list[float]] = {name: [] for name, _, _ in envs}
    clock = time.perf_counter if args.wall else time.process_time
    for rep in range(args.repeats):
        order = envs if rep % 2 == 0 else envs[::-1]  # alternate the order: no env always runs first
        for name, env, div in order:
            d, secs, _games = run(env, max(args.decisions // div, 1), args.seed + 1000 * rep, clock)
            rates[name].append(d / secs)
    for _, env, _ in envs:
        env.close()
    med = {name: statistics.median(v) for name, v in rates.items()}
    c4_rates = rates.get("connect_four_v3")
    # Ratios are taken round by round (the same machine load) and then the median over rounds.
    per_round = {name: [a / b for a, b in zip(v, c4_rates)] for name, v in rates.items()} if c4_rates else {}
    ratio = {name: statistics.median(v) for name, v in per_round.items()}
    ratio_min = {name: min(v) for name, v in per_round.items()}
    result = {
        "decisions_per_s": {k: round(v, 1) for k, v in med.items()},
        "ratio_to_connect_four": {k: round(v, 2) for k, v in ratio.items()},
        "ratio_to_connect_four_min": {k: round(v, 2) for k, v in ratio_min.items()},
        "target_ratio": TARGET_RATIO,
        "repeats": args.repeats,
        "decisions": args.decisions,
        "clock": "wall" if args.wall else "process_cpu",
        "package": importlib.import_module("necro_env").__file__,
    }
    six = ratio.get("necro_env 6 seats")
    every = [ratio.get(f"necro_env {p} seats") for p in (3, 4, 5, 6)]
    result["target_all_met"] = bool(ratio) and all(r is not None and r >= TARGET_RATIO_ALL for r in every)
    result["target_ratio_all"] = TARGET_RATIO_ALL
    result["target_met"] = bool(six and six >= TARGET_RATIO) and result["target_all_met"]
    if args.json:
        print(json.dumps(result, sort_keys=True))
        return 0
    print(f"{'env':<22}{'decisions/s':>14}{'x connect four':>16}{'lowest round':>14}")
    for name, v in med.items():
        r = f"{ratio[name]:.2f}" if ratio else "-"
        lo = f"{ratio_min[name]:.2f}" if ratio else "-"
        print(f"{name:<22}{v:>14,.0f}{r:>16}{lo:>14}")
    if six:
        print(f"necro_env 6 seats / connect four = {six:.2f} (target >= {TARGET_RATIO}), 3-6 seats "
              f"{min(r for r in every if r is not None):.2f} at least (target >= {TARGET_RATIO_ALL}): "
              + ("met" if result["target_met"] else "NOT met"))
    return 0


def _side_by_side():
    """benchmarks/side_by_side.py (loaded by path: this file is also loaded by path in the tests)."""
    spec = importlib.util.spec_from_file_location("side_by_side", Path(__file__).with_name("side_by_side.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _against(sbs, args) -> int:
    """``--baseline REV``: each round one child run per tree (``--repeats 1``, the round's seed)."""
    def child_args(k: int) -> list[str]:
        out = ["--decisions", str(args.decisions), "--repeats", "1", "--seed", str(args.seed + 1000 * k), "--json"]
        return (out + (["--wall"] if args.wall else []) + (["--base"] if args.base else [])
                + (["--ceiling"] if args.ceiling else []))

    def extract(res: dict) -> dict[str, float]:
        rows = {f"{k} dec/s": v for k, v in res["decisions_per_s"].items()}
        rows.update({f"{k} x c4": v for k, v in res["ratio_to_connect_four"].items() if k != "connect_four_v3"})
        return rows

    table = sbs.compare(__file__, args.baseline, child_args, args.repeats, extract)
    if args.json:
        print(json.dumps(table, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
