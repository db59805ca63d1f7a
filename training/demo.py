"""The README's main job: train a small Necromancer on CPU, show that it learned, and what the shipped policies do.

    python training/demo.py [--config configs/necromancer_quick.yaml] [--games 400] [--shipped-games 400] [--json]

1. Trains the config with MaskablePPO (``training/train.py``), from scratch.
2. Evaluates, over the same seeded games against the same players, the trained
   Necromancer, the random Necromancer and the scripted heuristic Necromancer (as a
   reference), with ``necro_env.evaluate`` (seats and seeds as in ``necro-env evaluate``).
3. Prints the table (win rates with 95% Wilson intervals, Ghosts in play, purchases),
   writes the plots and ``summary.json`` under ``<out_dir>/demo/``, and says whether
   learning is shown: the trained Necromancer's interval lies entirely above the
   random Necromancer's. Exit code 0 if it is, 1 if not.
4. The shipped policies against the baselines they were trained to beat (``SHIPPED``), each pair on
   the same seeded games (default: the first 400 of seed 2024, the report seeds of
   docs/results/LEARNING.md): ``pretrained:necromancer_3p`` and ``pretrained:necromancer_6p`` against
   the heuristic Necromancer, both among greedy players, and ``pretrained:player_2p`` against greedy
   in the 2-seat base game (its seat rotated), the teams ``pretrained:players_3p`` and ``players_6p``
   against greedy players, both in every player seat against the heuristic Necromancer (a team's win
   rate: the games he loses), and the league's last generations (``pretrained:league_necromancer_3p``,
   ``league_players_3p``) against the same baselines, and ``pretrained:exploiter_players_3p`` (the
   coalition best response to the league Necromancer) against greedy players, both in every player
   seat against the league Necromancer. These games run beside the training (their worker
   processes take the core the training leaves idle); the table and ``summary.json``'s ``shipped``
   give both win rates with their intervals and the difference. ``--shipped-games 0`` skips it.
   The exit code does not depend on it.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from necro_env.stats import format_interval  # noqa: E402


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


@dataclass(frozen=True)
class ShippedCheck:
    """One row of the shipped table: ``policy`` in ``role`` on ``players`` seats against greedy players,
    and ``reference`` (a scripted baseline) in the same seat on the same seeded games."""

    policy: str
    players: int
    role: str  # "necromancer", "player" (the base game's rotated seat) or "players" (a team in every player seat)
    reference: str  # what the reference is called in the table
    reference_spec: str  # its policy spec
    necromancer: str = "heuristic"  # the Necromancer a "players" team plays against

    def evaluate(self, spec: str, games: int, seed: int, workers: int) -> dict:
        """Win count, rate and 95% Wilson interval of ``spec`` in this row's seat."""
        from necro_env.evaluate import evaluate

        if self.role == "necromancer":
            res = evaluate(players=self.players, necromancer_spec=spec, players_spec="greedy", games=games,
                           seed=seed, workers=workers)
            side = res["necromancer"]
        elif self.role == "players":  # the team in every player seat wins the games its Necromancer loses
            res = evaluate(players=self.players, necromancer_spec=self.necromancer, players_spec=spec, games=games,
                           seed=seed, workers=workers)
            necro = res["necromancer"]
            lo, hi = necro["ci95"]
            return {"wins": games - necro["wins"], "games": games, "win_rate": 1.0 - necro["win_rate"],
                    "ci95": [1.0 - hi, 1.0 - lo]}
        else:  # the base game: one test seat (rotated) against greedy in the others, as LEARNING.md measures it
            res = evaluate(players=self.players, necromancer=False, players_spec=spec, opponents_spec="greedy",
                           games=games, seed=seed, workers=workers)
            side = next(g for g in res["policies"] if g["group"] == "test")
        return {key: side[key] for key in ("wins", "games", "win_rate", "ci95")}


#: The shipped policies against the baselines their configs were trained to beat (docs/results/LEARNING.md).
#: ``heuristic`` in a player seat is the greedy player: it names the greedy test seat here, since a test
#: seat named like its opponents ("greedy" against "greedy") would not be told apart from them.
SHIPPED = (
    ShippedCheck("pretrained:necromancer_3p", 3, "necromancer", "heuristic Necromancer", "heuristic"),
    ShippedCheck("pretrained:necromancer_6p", 6, "necromancer", "heuristic Necromancer", "heuristic"),
    ShippedCheck("pretrained:player_2p", 2, "player", "greedy player", "heuristic"),
    ShippedCheck("pretrained:players_3p", 3, "players", "greedy players", "greedy"),
    ShippedCheck("pretrained:players_6p", 6, "players", "greedy players", "greedy"),
    ShippedCheck("pretrained:league_necromancer_3p", 3, "necromancer", "heuristic Necromancer", "heuristic"),
    ShippedCheck("pretrained:league_players_3p", 3, "players", "greedy players", "greedy"),
    # The coalition best response to the league Necromancer, against him (docs/results/STRATEGY.md).
    ShippedCheck("pretrained:exploiter_players_3p", 3, "players", "greedy players v league", "greedy",
                 necromancer="pretrained:league_necromancer_3p"),
)


def difference_interval(a: dict, b: dict) -> list[float]:
    """95% interval of ``a``'s win rate minus ``b``'s from their Wilson intervals (Newcombe's method 10).
    It treats the two as independent samples; on the same seeded games their outcomes are positively
    correlated, so the interval is, if anything, too wide."""
    pa, pb = a["win_rate"], b["win_rate"]
    (la, ua), (lb, ub) = a["ci95"], b["ci95"]
    d = pa - pb
    return [d - math.hypot(pa - la, ub - pb), d + math.hypot(ua - pa, pb - lb)]


def shipped_table(games: int, seed: int, workers: int, checks=SHIPPED) -> dict:
    """Every check in ``checks``: the shipped policy and its reference on the same ``games`` seeded games."""
    t0 = time.time()
    rows = []
    for c in checks:
        shipped = c.evaluate(c.policy, games, seed, workers)
        ref = c.evaluate(c.reference_spec, games, seed, workers)
        against = c.necromancer if c.role == "players" else "greedy"  # a team faces its row's Necromancer
        rows.append({"policy": c.policy, "players": c.players, "role": c.role, "opponents": against,
                     "shipped": shipped, "reference": {"policy": c.reference, **ref},
                     "difference": shipped["win_rate"] - ref["win_rate"],
                     "difference_ci95": difference_interval(shipped, ref)})
    return {"games": games, "seed": seed, "rows": rows, "seconds": round(time.time() - t0, 1)}


def format_shipped(table: dict) -> str:
    w = max([len("shipped policy")] + [len(r["policy"]) for r in table["rows"]])  # the policy column fits its longest name
    a = max([22] + [len(r["reference"]["policy"]) for r in table["rows"]])  # so does the reference's
    head = (f"{'shipped policy':<{w}} {'seats':>5}  {'win rate':>8}  {'95% interval':<16}  {'against':<{a}} "
            f"{'win rate':>8}  {'95% interval':<16}  {'difference [95%]'}")
    lines = [head, "-" * len(head)]
    for r in table["rows"]:
        s, ref = r["shipped"], r["reference"]
        dl, dh = r["difference_ci95"]
        lines.append(f"{r['policy']:<{w}} {r['players']:>5}  {s['win_rate']:>8.3f}  {format_interval(*s['ci95']):<16}  "
                     f"{ref['policy']:<{a}} {ref['win_rate']:>8.3f}  {format_interval(*ref['ci95']):<16}  "
                     f"{r['difference']:+.3f} [{dl:+.3f}, {dh:+.3f}]")
    return "\n".join(lines)


#: Games per policy in the shipped table by default: with the training and the first table, make demo
#: takes about 4 minutes on 2 cores (training/README.md gives the timing).
SHIPPED_GAMES = 400


def _shipped_table_alone(games: int, seed: int) -> dict:
    """``shipped_table`` in a process of its own (one torch thread, games in-process): beside the training,
    which keeps one core busy, it takes the other."""
    import torch

    torch.set_num_threads(1)
    return shipped_table(games, seed, workers=1)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--config", default="configs/necromancer_quick.yaml")
    p.add_argument("--games", type=int, default=400, help="evaluation games per Necromancer (default 400)")
    p.add_argument("--seed", type=int, default=20261130, help="evaluation seed")
    p.add_argument("--workers", type=int, default=1, help="evaluation processes for the first table (default 1)")
    p.add_argument("--shipped-games", type=int, default=SHIPPED_GAMES,
                   help=f"games per policy in the shipped policies' table (default {SHIPPED_GAMES}; 0 skips it)")
    p.add_argument("--shipped-seed", type=int, default=2024,
                   help="its seed (default 2024, the report seeds of docs/results/LEARNING.md)")
    p.add_argument("--skip-train", action="store_true", help="reuse the run's final.zip if it exists")
    p.add_argument("--json", action="store_true", help="print the summary as JSON on the last line")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    args = p.parse_args(argv)
    for name in ("games", "workers"):
        if getattr(args, name) < 1:
            p.error(f"--{name} must be at least 1, got {getattr(args, name)}")
    if args.shipped_games < 0:
        p.error(f"--shipped-games must be 0 (skip the table) or more, got {args.shipped_games}")

    import torch

    torch.set_num_threads(1)
    from training.config import TrainConfigError, load_config

    try:
        cfg = load_config(args.config)
    except TrainConfigError as e:
        print(f"demo: error: {e}", file=sys.stderr)
        return 2
    t0 = time.time()
    background = shipped_job = None
    if args.shipped_games:  # its games need no trained model: a second process plays them while the model trains
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor

        background = ProcessPoolExecutor(1, mp_context=mp.get_context("spawn"))
        shipped_job = background.submit(_shipped_table_alone, args.shipped_games, args.shipped_seed)
        print(f"[beside] the shipped policies against the baselines: {len(SHIPPED)} x 2 x {args.shipped_games} "
              f"seeded games in a second process ...", flush=True)
    try:
        return _train_and_report(args, cfg, t0, shipped_job)
    finally:
        if background is not None:
            background.shutdown(wait=False, cancel_futures=True)


def _train_and_report(args, cfg, t0: float, shipped_job) -> int:
    from necro_env.agents.registry import pretrained_names
    from necro_env.evaluate import evaluate
    from training.train import train

    run_dir = Path(cfg.out_dir) / cfg.run_name
    model = run_dir / "final.zip"
    if not (args.skip_train and model.is_file()):
        print(f"[1/2] training {cfg.name}: {cfg.total_steps} steps of MaskablePPO, the Necromancer on "
              f"{cfg.players} seats against '{cfg.opponents}' players ...", flush=True)
        train(cfg, force=True, progress=not args.quiet)
    train_s = time.time() - t0
    print(f"[2/2] evaluating over {args.games} seeded games each (same seeds, same players) ...", flush=True)
    t1 = time.time()
    results = {}
    specs = [("trained", str(model)), ("random", "random"), ("heuristic", "heuristic")]
    same_seats = f"necromancer_{cfg.players}p"
    if same_seats in pretrained_names():  # the policy shipped with the package for these seats, for scale
        specs.append((f"pretrained:{same_seats}", f"pretrained:{same_seats}"))
    for label, spec in specs:
        results[label] = evaluate(players=cfg.players, necromancer_spec=spec, players_spec=cfg.opponents,
                                  games=args.games, seed=args.seed, workers=args.workers, progress=not args.quiet,
                                  config=dict(cfg.game_options) or None,
                                  trusted=label == "trained")  # the model this demo just trained (SB3 pickle)
    eval_s = time.time() - t1
    t2 = time.time()
    shipped = shipped_job.result() if shipped_job is not None else None
    wait_s = time.time() - t2
    total_s = time.time() - t0
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
    if shipped is not None:
        print()
        print(f"The shipped policies against the baselines (the Necromancers among greedy players, the teams "
              f"against the heuristic Necromancer, the exploiter against the league's; {shipped['games']} games each, seed {shipped['seed']}, the same "
              f"games for both sides of a row):")
        print(format_shipped(shipped))
        print("difference: the shipped policy's win rate minus the baseline's, its interval from the two "
              "intervals (Newcombe)")
    print()
    print(f"training {train_s:.0f} s, evaluation {eval_s:.0f} s"
          + (f", shipped policies {shipped['seconds']:.0f} s (beside them; {wait_s:.0f} s waited for after them)"
             if shipped is not None else "")
          + f"; {total_s:.0f} s in all; plots: {', '.join(plots)}")
    summary = {
        "config": cfg.to_dict(), "games": args.games, "seed": args.seed, "learning_shown": shown,
        "train_seconds": round(train_s, 1), "eval_seconds": round(eval_s, 1), "total_seconds": round(total_s, 1),
        "plots": plots,
        "necromancer": {k: {key: v["necromancer"][key] for key in
                            ("win_rate", "ci95", "mean_ghosts_in_play_at_end", "purchases", "start_powers",
                             "ghost_curve_mean")} for k, v in results.items()},
        "model": str(model),
        "shipped": shipped,
    }
    os.makedirs(out, exist_ok=True)
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    if args.json:
        print(json.dumps(summary))
    return 0 if shown else 1


if __name__ == "__main__":
    sys.exit(main())
