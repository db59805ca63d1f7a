"""The README's main job: train a small Necromancer on CPU, then show that it learned.

    python training/demo.py [--config configs/necromancer_quick.yaml] [--games 400] [--json]

1. Trains the config with MaskablePPO (``training/train.py``), from scratch.
2. Evaluates, over the same seeded games against the same players, the trained
   Necromancer, the random Necromancer and the scripted heuristic Necromancer (as a
   reference), with ``necro_env.evaluate`` (seats and seeds as in ``necro-env evaluate``).
3. Prints the table (win rates with 95% Wilson intervals, Ghosts in play, purchases),
   writes the plots and ``summary.json`` under ``<out_dir>/demo/``, and says whether
   learning is shown: the trained Necromancer's interval lies entirely above the
   random Necromancer's. Exit code 0 if it is, 1 if not.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def write_plots(results: dict, out: Path, title: str) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    out.mkdir(parents=True, exist_ok=True)
    labels = list(results)
    rates = [results[k]["necromancer"]["win_rate"] for k in labels]
    lo = [results[k]["necromancer"]["ci95"][0] for k in labels]
    hi = [results[k]["necromancer"]["ci95"][1] for k in labels]
    fig, ax = plt.subplots(figsize=(6, 4))
    xs = np.arange(len(labels))
    ax.bar(xs, rates, yerr=[np.subtract(rates, lo), np.subtract(hi, rates)], capsize=8,
           color=["#c44e52", "#8c8c8c", "#4c72b0"][: len(labels)])
    ax.set_xticks(xs, [f"{k} Necromancer" for k in labels])
    ax.set_ylim(0, 1)
    ax.set_ylabel("Necromancer win rate (95% Wilson interval)")
    ax.set_title(title)
    fig.tight_layout()
    p1 = out / "necromancer_win_rates.png"
    fig.savefig(p1, dpi=100)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(6, 4))
    for k in labels:
        curve = results[k]["necromancer"]["ghost_curve_mean"]
        ax.plot(range(1, len(curve) + 1), curve, marker="o", label=f"{k} Necromancer")
    ax.set_xlabel("round")
    ax.set_ylabel("Ghosts in play (mean, end of round)")
    ax.set_title(title)
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    p2 = out / "ghost_curves.png"
    fig.savefig(p2, dpi=100)
    plt.close(fig)
    return [str(p1), str(p2)]


def format_table(results: dict) -> str:
    head = (f"{'Necromancer':<26} {'win rate':>8}  {'95% interval':<16} {'Ghosts in play':>14} "
            f"{'Ghosts bought':>13} {'powers bought':>13}  most chosen start power")
    lines = [head, "-" * len(head)]
    for k, r in results.items():
        n = r["necromancer"]
        lo, hi = n["ci95"]
        starts = n.get("start_powers") or {}
        top = max(starts.items(), key=lambda kv: kv[1])[0] if starts else "-"
        lines.append(f"{k:<26} {n['win_rate']:>8.3f}  [{lo:.3f}, {hi:.3f}]   {n['mean_ghosts_in_play_at_end']:>14.2f} "
                     f"{n['purchases']['ghosts_mean']:>13.2f} {n['purchases']['powers_mean']:>13.2f}  {top}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--config", default="configs/necromancer_quick.yaml")
    p.add_argument("--games", type=int, default=400, help="evaluation games per Necromancer (default 400)")
    p.add_argument("--seed", type=int, default=20261130, help="evaluation seed")
    p.add_argument("--workers", type=int, default=1, help="evaluation processes")
    p.add_argument("--skip-train", action="store_true", help="reuse the run's final.zip if it exists")
    p.add_argument("--json", action="store_true", help="print the summary as JSON on the last line")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    args = p.parse_args(argv)

    import torch

    torch.set_num_threads(1)
    from necro_env.evaluate import evaluate
    from training.config import TrainConfigError, load_config
    from training.train import train

    try:
        cfg = load_config(args.config)
    except TrainConfigError as e:
        print(f"demo: error: {e}", file=sys.stderr)
        return 2
    run_dir = Path(cfg.out_dir) / cfg.run_name
    model = run_dir / "final.zip"
    t0 = time.time()
    if not (args.skip_train and model.is_file()):
        print(f"[1/2] training {cfg.name}: {cfg.total_steps} steps of MaskablePPO, the Necromancer on "
              f"{cfg.players} seats against '{cfg.opponents}' players ...", flush=True)
        train(cfg, force=True, progress=not args.quiet)
    train_s = time.time() - t0
    print(f"[2/2] evaluating over {args.games} seeded games each (same seeds, same players) ...", flush=True)
    t1 = time.time()
    results = {}
    from necro_env.agents.registry import pretrained_names

    specs = [("trained", str(model)), ("random", "random"), ("heuristic", "heuristic")]
    shipped = f"necromancer_{cfg.players}p"
    if shipped in pretrained_names():  # the policy shipped with the package for these seats, for scale
        specs.append((f"pretrained:{shipped}", f"pretrained:{shipped}"))
    for label, spec in specs:
        results[label] = evaluate(players=cfg.players, necromancer_spec=spec, players_spec=cfg.opponents,
                                  games=args.games, seed=args.seed, workers=args.workers, progress=not args.quiet,
                                  config=dict(cfg.game_options) or None,
                                  trusted=label == "trained")  # the model this demo just trained (SB3 pickle)
    eval_s = time.time() - t1
    title = f"{cfg.players} seats, {cfg.opponents} players, {args.games} games"
    out = Path(cfg.out_dir) / "demo"
    plots = write_plots(results, out, title)
    tr, rd = results["trained"]["necromancer"], results["random"]["necromancer"]
    shown = tr["ci95"][0] > rd["ci95"][1]
    print()
    print(f"The Necromancer against {cfg.opponents} players ({title}):")
    print(format_table(results))
    print()
    verdict = ("LEARNING SHOWN: the trained Necromancer's 95% interval lies above the random Necromancer's"
               if shown else "learning NOT shown: the intervals of the trained and the random Necromancer overlap")
    print(verdict)
    print(f"training {train_s:.0f} s, evaluation {eval_s:.0f} s; plots: {', '.join(plots)}")
    summary = {
        "config": cfg.to_dict(), "games": args.games, "seed": args.seed, "learning_shown": shown,
        "train_seconds": round(train_s, 1), "eval_seconds": round(eval_s, 1), "plots": plots,
        "necromancer": {k: {key: v["necromancer"][key] for key in
                            ("win_rate", "ci95", "mean_ghosts_in_play_at_end", "purchases", "start_powers",
                             "ghost_curve_mean")} for k, v in results.items()},
        "model": str(model),
    }
    os.makedirs(out, exist_ok=True)
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    if args.json:
        print(json.dumps(summary))
    return 0 if shown else 1


if __name__ == "__main__":
    sys.exit(main())
