"""The README's baseline table: the scripted and the random Necromancer against greedy and random players,
and one greedy seat among random seats in the base game (win rates with 95% Wilson intervals).

    .venv/bin/python benchmarks/baselines.py [--games 600] [--seed 2024] [--workers 2] [--json]

Every cell plays the same seeded games (``necro_env.evaluate``), so the table is reproducible.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from necro_env.evaluate import evaluate  # noqa: E402
from necro_env.stats import format_interval  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=600)
    p.add_argument("--seed", type=int, default=2024)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--json", action="store_true", help="end with one JSON object")
    args = p.parse_args(argv)
    rows, out = [], {"scenario": [], "base": []}
    print("| seats | players | heuristic Necromancer | random Necromancer |")
    print("|---|---|---|---|")
    for n in (3, 4, 5, 6):
        for players in ("greedy", "random"):
            cells = []
            for necro in ("heuristic", "random"):
                r = evaluate(n, necro, players, games=args.games, seed=args.seed, workers=args.workers)["necromancer"]
                cells.append(f"{r['win_rate']:.3f} {format_interval(*r['ci95'])}")
                out["scenario"].append({"seats": n, "players": players, "necromancer": necro,
                                        "win_rate": r["win_rate"], "ci95": r["ci95"]})
            print(f"| {n} | {players} | {cells[0]} | {cells[1]} |", flush=True)
    print()
    for n in (2, 3, 4, 5):
        r = evaluate(n, None, "greedy", games=args.games, seed=args.seed, workers=args.workers,
                     necromancer=False, opponents_spec="random")
        g = next(x for x in r["policies"] if x["group"] == "test")
        out["base"].append({"seats": n, "win_rate": g["win_rate"], "ci95": g["ci95"]})
        rows.append(f"{n} seats {g['win_rate']:.3f} {format_interval(*g['ci95'])}")
    print("base game, one greedy seat among random seats: " + "; ".join(rows))
    if args.json:
        print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
