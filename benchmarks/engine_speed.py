"""Engine speed: random-play decisions per second through the engine API, and start-up time.

For every board (2-5 seats, base game) and every Necromancer seat count (3-6) it plays
seeded random games twice over the same choices:

* mask: ``game.legal_action_mask(st, out=buf)`` into a preallocated int8 buffer,
  ``np.flatnonzero``, a uniform pick among the nonzeros, ``game.apply``: what an
  environment step pays for legality;
* list: ``game.legal_actions(st)`` (the sorted list) and the same pick, no mask,
  so the mask's cost is the difference between the two columns.

Both loops draw their choices from ``np.random.default_rng([seed, i])`` in batches
(the same draws, so both play identical games; the decision counts are checked
equal). Each figure is the median over ``--repeats`` runs; the games are timed by this process's
CPU time (``--wall``: the wall clock). Start-up (import of
``necro_env.game`` + ``Game`` construction + the first ``new_state``) is timed in a
fresh interpreter. Target (issue 2): >= 30,000 decisions/s with the mask on the
4-player board, start-up < 1 s.

    python benchmarks/engine_speed.py [--games 20] [--repeats 5] [--seed 0] [--json]
    python benchmarks/engine_speed.py --baseline REV [--repeats 5] ...   # this tree beside commit REV

``--baseline REV`` runs this benchmark (one repeat per child process) on this tree and on a
temporary git worktree of REV, alternating, and prints both columns and their ratio
(``benchmarks/side_by_side.py``): mask and list decisions/s per row and the start-up time.
Target (issue 28): mask decisions/s >= 1.4x commit 3710629's on every row, start-up < 0.5 s.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

import numpy as np

from necro_env.game import NUM_ACTIONS, Game, GameConfig
from necro_env.simulate import random_draws

CONFIGS = [(2, False), (3, False), (4, False), (5, False), (3, True), (4, True), (5, True), (6, True)]
TARGET_DPS = 30_000
TARGET_STARTUP_S = 1.0

_STARTUP_SNIPPET = """
import time
t0 = time.perf_counter()
from necro_env.game import Game, GameConfig
game = Game(GameConfig(players=4, necromancer=False))
t1 = time.perf_counter()
game.new_state(0)
t2 = time.perf_counter()
print(t1 - t0, t2 - t1)
"""



def run_mask(game: Game, games: int, seed: int, clock: Callable[[], float] = time.process_time) -> tuple[int, float]:
    """Random play choosing among the nonzeros of the legal mask; (decisions, seconds)."""
    buf = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask_of, apply, flatnonzero = game.legal_action_mask, game.apply, np.flatnonzero
    decisions, elapsed = 0, 0.0
    for i in range(games):
        rng = np.random.default_rng([seed, i])
        st = game.new_state(int(rng.integers(0, 1 << 63)))
        draws = random_draws(rng)
        t0 = clock()
        while not st.over:
            if not draws:
                draws = random_draws(rng)
            nz = flatnonzero(mask_of(st, buf))
            apply(st, int(nz[draws.pop() % len(nz)]))
        elapsed += clock() - t0
        decisions += st.decisions
    return decisions, elapsed


def run_list(game: Game, games: int, seed: int, clock: Callable[[], float] = time.process_time) -> tuple[int, float]:
    """The same games through ``legal_actions`` only (no mask); (decisions, seconds)."""
    legal, apply = game.legal_actions, game.apply
    decisions, elapsed = 0, 0.0
    for i in range(games):
        rng = np.random.default_rng([seed, i])
        st = game.new_state(int(rng.integers(0, 1 << 63)))
        draws = random_draws(rng)
        t0 = clock()
        while not st.over:
            if not draws:
                draws = random_draws(rng)
            la = legal(st)
            apply(st, la[draws.pop() % len(la)])
        elapsed += clock() - t0
        decisions += st.decisions
    return decisions, elapsed


def startup_time(repeats: int = 3) -> dict:
    """Median cold start-up in a fresh interpreter: import + Game(), and the first new_state."""
    build, first = [], []
    for _ in range(repeats):
        out = subprocess.run([sys.executable, "-c", _STARTUP_SNIPPET], check=True,
                             capture_output=True, text=True).stdout.split()
        build.append(float(out[0]))
        first.append(float(out[1]))
    b, f = statistics.median(build), statistics.median(first)
    return {"import_and_game_s": b, "first_new_state_s": f, "startup_s": b + f}


def bench(games: int, repeats: int, seed: int, clock: Callable[[], float] = time.process_time) -> list[dict]:
    rows = []
    for players, necro in CONFIGS:
        t0 = time.perf_counter()
        game = Game(GameConfig(players=players, necromancer=necro))
        build_s = time.perf_counter() - t0
        run_mask(game, 1, seed + 1)  # warm the per-game caches outside the timing
        mask_dps, list_dps = [], []
        decisions = 0
        for k in range(repeats):
            order = (run_mask, run_list) if k % 2 == 0 else (run_list, run_mask)
            got = {}
            for fn in order:
                got[fn] = fn(game, games, seed, clock)
            (dm, tm), (dl, tl) = got[run_mask], got[run_list]
            if dm != dl:
                raise RuntimeError(f"mask and list loops diverged ({dm} vs {dl} decisions)")
            decisions = dm
            mask_dps.append(dm / tm)
            list_dps.append(dl / tl)
        m, l_ = statistics.median(mask_dps), statistics.median(list_dps)
        rows.append({
            "players": players, "necromancer": necro, "games": games,
            "decisions_per_game": decisions / games,
            "mask_decisions_per_sec": m, "list_decisions_per_sec": l_,
            "mask_us_per_decision": 1e6 / m, "list_us_per_decision": 1e6 / l_,
            "game_build_s": build_s,
        })
    return rows


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=20, help="games per repeat and configuration (default 20)")
    p.add_argument("--repeats", type=int, default=5, help="repeats; the median is reported (default 5)")
    p.add_argument("--seed", type=int, default=0, help="base seed (default 0)")
    p.add_argument("--json", action="store_true", help="also print the results as one JSON object (last line)")
    p.add_argument("--wall", action="store_true",
                   help="time the games with the wall clock (default: this process's CPU time, which a busy "
                        "shared machine disturbs less; start-up is always wall time)")
    spec = importlib.util.spec_from_file_location("side_by_side", Path(__file__).with_name("side_by_side.py"))
    sbs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sbs)
    sbs.add_argument(p)
    args = p.parse_args(argv)
    if args.games < 1 or args.repeats < 1 or args.seed < 0:
        p.error("--games and --repeats must be >= 1 and --seed >= 0")
    if args.baseline:
        return _against(sbs, args)

    start = startup_time()
    rows = bench(args.games, args.repeats, args.seed, time.perf_counter if args.wall else time.process_time)

    print(f"engine random play: {args.games} games x {args.repeats} repeats per row (median), seed {args.seed}")
    print(f"{'seats':>5} {'scenario':<12}{'dec/game':>9}{'mask dec/s':>12}{'list dec/s':>12}"
          f"{'mask us':>9}{'list us':>9}{'mask cost':>10}")
    for r in rows:
        cost = r["mask_us_per_decision"] - r["list_us_per_decision"]
        print(f"{r['players']:>5} {'Necromancer' if r['necromancer'] else 'base':<12}"
              f"{r['decisions_per_game']:>9.1f}{r['mask_decisions_per_sec']:>12,.0f}"
              f"{r['list_decisions_per_sec']:>12,.0f}{r['mask_us_per_decision']:>9.2f}"
              f"{r['list_us_per_decision']:>9.2f}{cost:>8.2f}us")
    print(f"start-up (fresh interpreter, median of 3): import + Game() {start['import_and_game_s'] * 1e3:.1f} ms, "
          f"first new_state {start['first_new_state_s'] * 1e3:.2f} ms, total {start['startup_s'] * 1e3:.1f} ms")
    four = next(r for r in rows if r["players"] == 4 and not r["necromancer"])
    ok_speed = four["mask_decisions_per_sec"] >= TARGET_DPS
    ok_start = start["startup_s"] < TARGET_STARTUP_S
    print(f"target: >= {TARGET_DPS:,} dec/s on the 4-player board (mask): "
          f"{four['mask_decisions_per_sec']:,.0f} {'PASS' if ok_speed else 'FAIL'}; "
          f"start-up < {TARGET_STARTUP_S:.0f} s: {start['startup_s']:.3f} s {'PASS' if ok_start else 'FAIL'}")
    if args.json:
        print(json.dumps({"rows": rows, "startup": start, "target_met": ok_speed and ok_start,
                          "games": args.games, "repeats": args.repeats, "seed": args.seed,
                          "package": sys.modules["necro_env"].__file__}))
    return 0


def _against(sbs, args) -> int:
    """``--baseline REV``: each round one child run per tree (``--repeats 1``, the same seed and games)."""
    def child_args(_k: int) -> list[str]:
        return ["--games", str(args.games), "--repeats", "1", "--seed", str(args.seed), "--json"] + \
            (["--wall"] if args.wall else [])

    def extract(res: dict) -> dict[str, float]:
        rows = {}
        for r in res["rows"]:
            name = f"{r['players']} {'necro' if r['necromancer'] else 'base'}"
            rows[f"{name} mask dec/s"] = r["mask_decisions_per_sec"]
            rows[f"{name} list dec/s"] = r["list_decisions_per_sec"]
        rows["start-up s"] = res["startup"]["startup_s"]
        return rows

    table = sbs.compare(__file__, args.baseline, child_args, args.repeats, extract, lower_is_better=("start-up s",))
    if args.json:
        print(json.dumps(table, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
