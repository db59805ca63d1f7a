"""Cross-play of Necromancers against player teams: who wins the scenario, and how each side plays.

    python training/crossplay.py --players 3 \\
        --necromancers random=random,heuristic=heuristic,vs-greedy=pretrained:necromancer_3p \\
        --teams random=random,greedy=greedy,scenario=pretrained:players_3p \\
        --games 600 --seed 2024 --workers 2 --out docs/results/crossplay_3p

Every pair (Necromancer, team) plays ``--games`` seeded games through ``necro_env.evaluate`` (the harness
of ``necro-env evaluate``: game i seeded from (seed, i), the Necromancer in the last seat, the team's policy
in **every** player seat, so no seat position needs rotating). For each pair it keeps the Necromancer's
win rate with its 95% Wilson interval, his mean Ghost curve, his purchases (Ghosts and powers bought) and
the game length, and, by replaying each game's actions through the engine, where the players' conquests
went: into the Ghosts' regions, into other players' regions (active or in decline), into Lost Tribes or into
empty regions (fractions of all player conquests).

Writes to ``--out``: ``crossplay.json`` (everything above, plus the command's arguments), ``matrix.csv``
(Necromancer, team, wins, games, win rate, interval), ``matrix.png`` (a heatmap of his win rates),
``ghost_curves.png`` (mean Ghosts in play by round, each Necromancer against each team) and
``targets.png`` (the players' conquest targets per team, against each Necromancer). ``--json`` prints the
summary's matrix as one JSON object on the last line.

Specs are the policy specs of ``necro-env evaluate`` (script names, files, ``pretrained:NAME``).
"""
from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from necro_env.evaluate import game_seeds, run_games, summarize  # noqa: E402
from necro_env.game import ConfigError, Game, GameConfig  # noqa: E402
from necro_env.game.actions import OFFSET, Kind  # noqa: E402

TARGETS = ("ghosts", "players", "lost_tribes", "empty")
GHOSTLY, TRIBE = 3, 4  # State.race_status values (necro_env/game/state.py)


def parse_specs(text: str, what: str) -> dict[str, str]:
    """``"label=spec,label=spec"`` (or bare specs, labelled by themselves) -> {label: spec}, in order."""
    out: dict[str, str] = {}
    for item in (t.strip() for t in text.split(",")):
        if not item:
            continue
        label, _, spec = item.partition("=") if "=" in item else (item, "", item)
        label, spec = label.strip(), spec.strip()
        if not label or not spec:
            raise ConfigError(f"--{what}: each entry is LABEL=SPEC or SPEC, got {item!r}")
        if label in out:
            raise ConfigError(f"--{what}: the label {label!r} appears twice")
        out[label] = spec
    if not out:
        raise ConfigError(f"--{what} names no policy")
    return out


def conquest_targets(game: Game, engine_seed: int, actions: list[int]) -> dict[str, int]:
    """Replay one game and count the player seats' conquests by what the region held before."""
    counts = dict.fromkeys(TARGETS, 0)
    st = game.new_state(engine_seed)
    first, last = OFFSET[Kind.CONQUER], OFFSET[Kind.CONQUER] + game.num_regions
    for a in actions:
        if st.decider != game.necro_seat and first <= a < last:
            occ = st.occ[a - first]
            if occ < 0:
                counts["empty"] += 1
            elif st.race_status[occ] == GHOSTLY:
                counts["ghosts"] += 1
            elif st.race_status[occ] == TRIBE:
                counts["lost_tribes"] += 1
            else:
                counts["players"] += 1
        game.apply(st, a)
    if not st.over:
        raise RuntimeError("a replayed game did not end where its record did")
    return counts


def play_pair(players: int, necro_spec: str, team_spec: str, games: int, seed: int, workers: int,
              trusted: bool = False) -> dict[str, Any]:
    """One cell of the matrix: the evaluation summary's figures and the players' conquest targets."""
    cfg = GameConfig(players=players, necromancer=True)
    specs = {"players": (team_spec, "player"), "necromancer": (necro_spec, "necromancer")}
    labels = tuple(["players"] * cfg.num_players + ["necromancer"])
    tasks = [(i, seed, labels) for i in range(games)]
    records = run_games(cfg.to_dict(), specs, tasks, workers=workers, keep_actions=True, trusted=trusted)
    summary = summarize(records, cfg, specs)
    game = Game(cfg)
    totals = dict.fromkeys(TARGETS, 0)
    for i, rec in enumerate(records):
        engine_seed, _ = game_seeds(seed, i, cfg.players)
        if rec.get("engine_seed", engine_seed) != engine_seed:
            raise RuntimeError("the evaluation harness seeded a game differently from game_seeds")
        for k, v in conquest_targets(game, engine_seed, rec["actions"]).items():
            totals[k] += v
    n = sum(totals.values()) or 1
    necro = summary["necromancer"]
    return {
        "necromancer_win_rate": necro["win_rate"], "wins": necro["wins"], "games": games, "ci95": necro["ci95"],
        "ghost_curve_mean": necro["ghost_curve_mean"], "ghosts_bought_mean": necro["purchases"]["ghosts_mean"],
        "powers_bought_mean": necro["purchases"]["powers_mean"], "powers_bought": necro["purchases"]["powers_bought"],
        "mean_rounds": summary["mean_rounds"], "player_conquests_per_game": sum(totals.values()) / games,
        "player_targets": {k: v / n for k, v in totals.items()},
    }


def crossplay(players: int, necromancers: dict[str, str], teams: dict[str, str], games: int, seed: int,
              workers: int = 1, progress: bool = True, trusted: bool = False) -> dict[str, Any]:
    """Every (Necromancer, team) pair; ``{"cells": {necro: {team: cell}}, ...}``."""
    cells: dict[str, dict[str, Any]] = {}
    t0 = time.perf_counter()
    for nl, ns in necromancers.items():
        cells[nl] = {}
        for tl, ts in teams.items():
            cell = play_pair(players, ns, ts, games, seed, workers, trusted=trusted)
            cells[nl][tl] = cell
            if progress:
                lo, hi = cell["ci95"]
                print(f"{players} seats: Necromancer {nl} vs {tl} players: {cell['necromancer_win_rate']:.3f} "
                      f"[{lo:.3f}, {hi:.3f}] ({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True)
    return {"players": players, "games": games, "seed": seed, "necromancers": necromancers, "teams": teams,
            "cells": cells, "seconds": round(time.perf_counter() - t0, 1)}


def write_outputs(res: dict[str, Any], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "crossplay.json").write_text(json.dumps(res, indent=1, sort_keys=True) + "\n")
    with (out / "matrix.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["necromancer", "team", "wins", "games", "necromancer_win_rate", "lo", "hi"])
        for nl, row in res["cells"].items():
            for tl, c in row.items():
                w.writerow([nl, tl, c["wins"], c["games"], f"{c['necromancer_win_rate']:.4f}",
                            f"{c['ci95'][0]:.4f}", f"{c['ci95'][1]:.4f}"])
    _plots(res, out)


def _plots(res: dict[str, Any], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    necros, teams = list(res["cells"]), list(res["teams"])
    m = np.array([[res["cells"][n][t]["necromancer_win_rate"] for t in teams] for n in necros])
    fig, ax = plt.subplots(figsize=(1.6 + 1.5 * len(teams), 1.2 + 0.7 * len(necros)))
    im = ax.imshow(m, vmin=0, vmax=1, cmap="RdBu_r")
    ax.set_xticks(range(len(teams)), [f"{t} players" for t in teams])
    ax.set_yticks(range(len(necros)), necros)
    for i in range(len(necros)):
        for j in range(len(teams)):
            lo, hi = res["cells"][necros[i]][teams[j]]["ci95"]
            ax.text(j, i, f"{m[i, j]:.2f}\n[{lo:.2f}, {hi:.2f}]", ha="center", va="center", fontsize=8,
                    color="white" if abs(m[i, j] - 0.5) > 0.3 else "black")
    ax.set_title(f"Necromancer win rate, {res['players']} seats ({res['games']} games, seed {res['seed']})")
    fig.colorbar(im, ax=ax, fraction=0.04)
    fig.tight_layout()
    fig.savefig(out / "matrix.png", dpi=110)
    plt.close(fig)

    fig, axes = plt.subplots(1, len(teams), figsize=(3.2 * len(teams), 3), sharey=True, squeeze=False)
    for ax, t in zip(axes[0], teams):
        for n in necros:
            curve = res["cells"][n][t]["ghost_curve_mean"]
            ax.plot(range(1, len(curve) + 1), curve, marker=".", label=n)
        ax.set_title(f"vs {t} players")
        ax.set_xlabel("round")
    axes[0][0].set_ylabel("mean Ghosts in play")
    axes[0][-1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "ghost_curves.png", dpi=110)
    plt.close(fig)

    fig, axes = plt.subplots(1, len(necros), figsize=(3.2 * len(necros), 3), sharey=True, squeeze=False)
    for ax, n in zip(axes[0], necros):
        bottom = np.zeros(len(teams))
        for k in TARGETS:
            vals = np.array([res["cells"][n][t]["player_targets"][k] for t in teams])
            ax.bar(teams, vals, bottom=bottom, label=k.replace("_", " "))
            bottom += vals
        ax.set_title(f"vs Necromancer {n}")
        ax.tick_params(axis="x", labelsize=7)
    axes[0][0].set_ylabel("share of the players' conquests")
    axes[0][-1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "targets.png", dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=3, help="seats, the Necromancer included (3-6)")
    ap.add_argument("--necromancers", default="random=random,heuristic=heuristic",
                    help="LABEL=SPEC,... the Necromancers (rows)")
    ap.add_argument("--teams", default="random=random,greedy=greedy", help="LABEL=SPEC,... the player teams (columns)")
    ap.add_argument("--games", type=int, default=600)
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--out", default=None, help="folder for the JSON, CSV and plots (default: none written)")
    ap.add_argument("--json", action="store_true", help="print the matrix as one JSON object on the last line")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--trust-pickle", action="store_true", help="allow pickled policy files (SB3 .zip)")
    a = ap.parse_args(argv)
    try:  # the learned policies' forward passes on one thread: more only contend for the cores with the games
        import torch

        torch.set_num_threads(1)
    except ImportError:
        pass
    try:
        if not 3 <= a.players <= 6:
            raise ConfigError(f"--players must be 3-6 (the Necromancer scenario), got {a.players}")
        if a.games < 1 or a.workers < 1 or a.seed < 0:
            raise ConfigError("--games and --workers must be >= 1 and --seed >= 0")
        res = crossplay(a.players, parse_specs(a.necromancers, "necromancers"), parse_specs(a.teams, "teams"),
                        a.games, a.seed, a.workers, progress=not a.quiet, trusted=a.trust_pickle)
    except ConfigError as e:
        print(f"crossplay.py: error: {e}", file=sys.stderr)
        return 2
    if a.out:
        write_outputs(res, Path(a.out))
    if a.json:
        print(json.dumps({n: {t: c["necromancer_win_rate"] for t, c in row.items()} for n, row in res["cells"].items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
