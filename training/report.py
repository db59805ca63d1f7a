"""Learning curve of a training run: its periodic evaluations (``eval.csv``) against a scripted reference.

    python training/report.py runs/necromancer_3p__s0 [--reference heuristic --reference random] [--games 400]

Prints a table (steps, win rate, 95% interval) and writes ``learning_curve.png`` in the run
directory: the learner's win rate over training steps with its intervals, and each reference
policy's win rate (same role, same players, evaluated with ``necro_env.evaluate``) as a band.
"""
from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def read_eval(run_dir: Path) -> list[dict]:
    path = run_dir / "eval.csv"
    if not path.is_file():
        raise FileNotFoundError(f"{path} does not exist: was the run trained with eval_every > 0?")
    with path.open() as f:
        return [{k: float(v) for k, v in row.items()} for row in csv.DictReader(f)]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("run_dir")
    p.add_argument("--reference", action="append", default=None,
                   help="policy spec of a reference in the learner's role (repeatable; default: heuristic and random)")
    p.add_argument("--games", type=int, default=400, help="games for the reference's win rate")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--band", action="append", default=None, metavar="NAME=WIN,LO,HI",
                   help="a reference measured elsewhere, drawn as a band without playing it (repeatable; "
                        "e.g. 'heuristic (seed 2024, 600 games)=0.468,0.429,0.508'); no --reference is played then")
    p.add_argument("--out", default=None, help="the plot's path (default: <run_dir>/learning_curve.png)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--trust-pickle", action="store_true",
                   help="allow references or opponents given as SB3 .zip files (pickles: they can run code)")
    args = p.parse_args(argv)
    run_dir = Path(args.run_dir)
    from training.config import load_config

    cfg = load_config(run_dir / "config.yaml")
    rows = read_eval(run_dir)
    from necro_env.evaluate import evaluate

    refs = {}
    for band in args.band or []:
        name, sep, figures = band.rpartition("=")
        try:
            win, lo, hi = (float(x) for x in figures.split(","))
        except ValueError:
            name = ""
        if not sep or not name or not 0 <= lo <= win <= hi <= 1:
            p.error(f"--band must be NAME=WIN,LO,HI with 0 <= LO <= WIN <= HI <= 1, got {band!r}")
        refs[name] = {"win_rate": win, "ci95": [lo, hi]}
    for spec in args.reference or ([] if args.band else ["heuristic", "random"]):
        if cfg.learner == "necromancer":
            refs[spec] = evaluate(cfg.players, necromancer_spec=spec, players_spec=cfg.eval_opponents or cfg.opponents,
                                  games=args.games, seed=args.seed, workers=args.workers,
                                  config=dict(cfg.game_options) or None, trusted=args.trust_pickle)["necromancer"]
        else:
            refs[spec] = next(g for g in evaluate(cfg.players, necromancer_spec=cfg.necromancer_opponent,
                                                  players_spec=spec, opponents_spec=cfg.eval_opponents or cfg.opponents,
                                                  necromancer=cfg.necromancer, games=args.games, seed=args.seed,
                                                  workers=args.workers, config=dict(cfg.game_options) or None,
                                                  trusted=args.trust_pickle)["policies"]
                              if g["group"] == "test")
    print(f"{cfg.name}: the {cfg.learner} against '{cfg.eval_opponents or cfg.opponents}' players, "
          f"{int(rows[-1]['games']) if rows else 0} games per evaluation")
    print(f"{'steps':>9}  {'win rate':>8}  95% interval")
    for r in rows:
        print(f"{int(r['steps']):>9}  {r['win_rate']:>8.3f}  [{r['lo']:.3f}, {r['hi']:.3f}]")
    for spec, ref in refs.items():
        lo, hi = ref["ci95"]
        print(f"{spec:>9}  {ref['win_rate']:>8.3f}  [{lo:.3f}, {hi:.3f}]  (reference)")

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [r["steps"] for r in rows]
    fig, ax = plt.subplots(figsize=(7, 4))
    for (spec, ref), color in zip(refs.items(), ("#4c72b0", "#8c8c8c", "#55a868", "#8172b2")):
        lo, hi = ref["ci95"]
        ax.fill_between([0, max(steps or [1])], lo, hi, color=color, alpha=0.2)
        band = " (95% interval)" if hi > lo else ""  # a band given with lo == hi is a line (a target)
        ax.axhline(ref["win_rate"], color=color, linestyle="-" if band else "--", label=f"{spec}{band}")
    ax.errorbar(steps, [r["win_rate"] for r in rows],
                yerr=[[r["win_rate"] - r["lo"] for r in rows], [r["hi"] - r["win_rate"] for r in rows]],
                marker="o", capsize=4, color="#c44e52", label=f"trained {cfg.learner} (95% interval)")
    ax.set_xlabel("training steps")
    ax.set_ylabel("win rate")
    ax.set_ylim(0, 1)
    ax.set_title(f"{cfg.name}: {cfg.players} seats vs {cfg.eval_opponents or cfg.opponents} players")
    ax.legend(loc="upper left")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    png = Path(args.out) if args.out else run_dir / "learning_curve.png"
    fig.savefig(png, dpi=100)
    plt.close(fig)
    print(f"plot: {png}")
    if args.json:
        print(json.dumps({"run": str(run_dir), "evaluations": rows,
                          "references": {k: {"win_rate": v["win_rate"], "ci95": v["ci95"]} for k, v in refs.items()},
                          "plot": str(png)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
