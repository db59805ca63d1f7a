"""alpha-Rank of Necromancers and player teams: OpenSpiel's ``open_spiel.python.egt.alpharank`` on a cross-play matrix.

    python training/alpharank.py docs/results/crossplay_3p/crossplay.json --out docs/results/crossplay_3p
    python training/alpharank.py runs/league_3p/payoff.json --json

The matrix is read as a two-population meta-game: population 0 are the Necromancers (rows), population 1
the player teams (columns); in the profile (Necromancer i, team j) his payoff is his win rate ``w[i][j]``
and the team's is ``1 - w[i][j]`` (constant-sum). alpha-Rank (Omidshafiei et al. 2019,
arXiv:1903.01373) builds the Markov chain in which one population at a time may switch its monomorphic
strategy, with the Fermi fixation probability of a population of size ``m`` at selection intensity
``alpha``, and ranks the profiles by the chain's stationary distribution ``pi``. A strategy's mass is the
sum of ``pi`` over the profiles it is in (the marginal of its population); strategies are ranked by it.

Inputs (recognised by their keys): ``crossplay.json`` of ``training/crossplay.py`` (``necromancers``,
``teams``, ``cells[n][t]["necromancer_win_rate"]``) and ``payoff.json`` of ``training/league_train.py``
(``necromancer``, ``players``, ``win_rate`` rows; every cell must be filled).

Writes, with ``--out DIR``: ``alpharank.json`` (the parameters, each population's strategies with their
mass and rank, and every profile with its mass) and ``alpharank.csv`` (one row per strategy: population,
name, mass, rank). ``--json`` prints the JSON on the last line. Needs the ``openspiel`` extra (OpenSpiel's
alpha-Rank module also imports scipy and matplotlib, which the ``train`` extra brings).
"""
from __future__ import annotations

import argparse
import csv
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from necro_env.game import ConfigError  # noqa: E402

POPULATIONS = ("necromancers", "teams")


def read_matrix(data: dict[str, Any]) -> tuple[list[str], list[str], np.ndarray]:
    """``(necromancer names, team names, his win rates [n x t])`` from a crossplay.json or payoff.json dict;
    ``ConfigError`` naming what is missing or out of range."""
    if not isinstance(data, dict):
        raise ConfigError(f"a cross-play matrix must be a JSON object, got {type(data).__name__}")
    if "cells" in data and "necromancers" in data and "teams" in data:  # training/crossplay.py
        rows, cols = list(data["necromancers"]), list(data["teams"])
        try:
            w = [[data["cells"][n][t]["necromancer_win_rate"] for t in cols] for n in rows]
        except (KeyError, TypeError) as e:
            raise ConfigError(f"crossplay.json: no necromancer_win_rate for a cell ({e!r})") from None
    elif "win_rate" in data and "necromancer" in data and "players" in data:  # training/league_train.py
        rows, cols, w = list(data["necromancer"]), list(data["players"]), data["win_rate"]
    else:
        raise ConfigError("not a cross-play matrix: expected crossplay.json (necromancers, teams, cells) or "
                          "payoff.json (necromancer, players, win_rate)")
    if not rows or not cols:
        raise ConfigError("the matrix has no Necromancer or no team")
    for i, n in enumerate(rows):
        if not isinstance(w, list) or len(w) != len(rows) or not isinstance(w[i], list) or len(w[i]) != len(cols):
            raise ConfigError(f"the win-rate matrix must be {len(rows)} x {len(cols)}")
        for j, t in enumerate(cols):
            x = w[i][j]
            if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x) or not 0 <= x <= 1:
                raise ConfigError(f"win rate of {n} against {t} must be a number in [0, 1], got {x!r} "
                                  "(a league's payoff.json is complete only once every pair has played)")
    return [str(r) for r in rows], [str(c) for c in cols], np.asarray(w, dtype=np.float64)


def rank(win_rates: Any, necromancers: list[str], teams: list[str], alpha: float = 100.0, m: int = 50,
         infinite_alpha: bool = False, eps: float = 0.01) -> dict[str, Any]:
    """alpha-Rank of the two-population meta-game of ``win_rates`` (rows: Necromancers, his win rate; the
    teams get 1 - it). Returns the parameters, ``necromancers``/``teams`` (each strategy's ``name``,
    ``mass`` and ``rank``, best first) and ``profiles`` (each pair's ``mass``, largest first)."""
    from open_spiel.python.egt import alpharank, utils

    w = np.asarray(win_rates, dtype=np.float64)
    if w.shape != (len(necromancers), len(teams)):
        raise ConfigError(f"win_rates has shape {w.shape}, expected {(len(necromancers), len(teams))}")
    if not (isinstance(alpha, (int, float)) and alpha > 0 and math.isfinite(alpha)):
        raise ConfigError(f"alpha must be a finite number > 0, got {alpha!r}")
    if isinstance(m, bool) or not isinstance(m, int) or m < 2:
        raise ConfigError(f"m (the population size) must be an int >= 2, got {m!r}")
    tables = [w, 1.0 - w]
    with np.errstate(over="ignore"):  # exp overflows in OpenSpiel's fixation probabilities at large alpha: harmless
        _, _, pi, _, num_strats = alpharank.compute(tables, m=m, alpha=alpha, use_inf_alpha=infinite_alpha,
                                                    inf_alpha_eps=eps)
    pi = np.clip(np.real(np.asarray(pi)), 0.0, None)  # the eigenvector's rounding can leave -1e-17
    pi = pi / pi.sum()
    mass = [np.zeros(len(necromancers)), np.zeros(len(teams))]
    profiles = []
    for pid, p in enumerate(pi):
        i, j = utils.get_strat_profile_from_id(num_strats, pid)
        mass[0][i] += p
        mass[1][j] += p
        profiles.append({"necromancer": necromancers[i], "team": teams[j], "mass": float(p),
                         "necromancer_win_rate": float(w[i, j])})
    profiles.sort(key=lambda r: -r["mass"])

    def ranked(names: list[str], ms: np.ndarray) -> list[dict[str, Any]]:
        order = sorted(range(len(names)), key=lambda k: -ms[k])
        return [{"name": names[k], "mass": float(ms[k]), "rank": r + 1} for r, k in enumerate(order)]

    return {"method": "alpha-Rank (open_spiel.python.egt.alpharank), two populations",
            "payoff": "the Necromancer's win rate; the team's is 1 - it",
            "alpha": "infinite" if infinite_alpha else float(alpha), "m": m,
            **({"eps": eps} if infinite_alpha else {}),
            "necromancers": ranked(necromancers, mass[0]), "teams": ranked(teams, mass[1]), "profiles": profiles}


def write_outputs(result: dict[str, Any], out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    j, c = out / "alpharank.json", out / "alpharank.csv"
    j.write_text(json.dumps(result, indent=1) + "\n")
    with c.open("w", newline="") as f:
        wr = csv.writer(f)
        wr.writerow(["population", "name", "mass", "rank"])
        for pop in POPULATIONS:
            for r in result[pop]:
                wr.writerow([pop, r["name"], f"{r['mass']:.6f}", r["rank"]])
    return [j, c]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("matrix", help="crossplay.json (training/crossplay.py) or payoff.json (training/league_train.py)")
    ap.add_argument("--alpha", type=float, default=100.0, help="selection intensity (default 100)")
    ap.add_argument("--m", type=int, default=50, help="population size of the fixation model (default 50)")
    ap.add_argument("--infinite-alpha", action="store_true",
                    help="the alpha -> infinity limit (with --eps noise; --alpha is then unused)")
    ap.add_argument("--eps", type=float, default=0.01, help="noise of --infinite-alpha (default 0.01)")
    ap.add_argument("--out", default=None, help="folder for alpharank.json and alpharank.csv")
    ap.add_argument("--json", action="store_true", help="print the result as one JSON object on the last line")
    a = ap.parse_args(argv)
    try:
        try:
            data = json.loads(Path(a.matrix).read_text())
        except (OSError, ValueError) as e:
            raise ConfigError(f"cannot read {a.matrix}: {e}") from None
        names_n, names_t, w = read_matrix(data)
        res = rank(w, names_n, names_t, alpha=a.alpha, m=a.m, infinite_alpha=a.infinite_alpha, eps=a.eps)
    except ConfigError as e:
        print(f"alpharank.py: error: {e}", file=sys.stderr)
        return 2
    res = {"source": a.matrix, **res}
    if a.out:
        write_outputs(res, Path(a.out))
    for pop in POPULATIONS:
        print(f"{pop}: " + ", ".join(f"{r['rank']}. {r['name']} {r['mass']:.3f}" for r in res[pop]),
              file=sys.stderr if a.json else sys.stdout)
    if a.json:
        print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
