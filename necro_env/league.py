"""Play a league of policies against each other and rate them with openskill (Plackett-Luce).

The config (YAML) names the seats, the games and the policies::

    players: 4            # seats, the Necromancer included (3-6; 2-5 with necromancer: false)
    necromancer: true     # optional (default: true for 3+ seats)
    games: 40
    seed: 0
    workers: 1            # optional
    handicap: 0           # optional
    policies:             # name (unique label), spec (registry name or file), role
      - {name: greedy, spec: greedy, role: player}
      - {name: random, spec: random, role: player}
      - {name: necro-heuristic, spec: heuristic, role: necromancer}
      - {name: necro-random, spec: random, role: necromancer}

Game i: the Necromancer's seat plays the necromancer-role policies in turn (``i mod k``); the
player seats get the player-role policies in a random order drawn from ``SeedSequence([seed, i, 1])``
(a permutation repeated to fill the seats, so each policy sits as evenly as possible, then shuffled
over the seats). The game itself is seeded as in ``necro-env evaluate`` (``SeedSequence([seed, i])``),
so results do not depend on ``workers``.

Placement for the ratings: when the Necromancer wins he is first and every player shares second;
otherwise the players are ranked by the final standing (winners first, then coins, then race
tokens on the board; equal standings share a place) and the Necromancer is last (``Game.standings``). Every seat is one team of ``PlackettLuce().rate``; a
policy that holds several seats of a game gets the mean of its copies' updated ``mu`` and ``sigma``.
Ratings are updated in game order. The report lists ``mu``, ``sigma`` and ``ordinal`` (mu - 3 sigma)
per policy with its win rate (Wilson 95% interval), as a table, ``--json`` and ``--plots DIR``
(``league_ratings.png``: mu with ±2 sigma bars).
"""
from __future__ import annotations

import argparse
import json
import os
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .stats import format_interval, wilson


@dataclass(frozen=True)
class LeagueEntry:
    name: str
    spec: str
    role: str


@dataclass(frozen=True)
class LeagueConfig:
    """A validated league config (see the module docstring)."""

    players: int
    games: int
    seed: int
    policies: tuple[LeagueEntry, ...]
    necromancer: bool | None = None
    workers: int = 1
    handicap: int = 0
    plots: str | None = None
    extra: dict = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d: dict) -> "LeagueConfig":
        from .agents.base import ROLES
        from .game.errors import ConfigError

        if not isinstance(d, dict):
            raise ConfigError(f"a league config must be a mapping, got {type(d).__name__}")
        known = {"players", "games", "seed", "policies", "necromancer", "workers", "handicap", "plots", "game"}
        unknown = set(d) - known
        if unknown:
            raise ConfigError(f"unknown league config keys {sorted(unknown)}; allowed: {sorted(known)}")
        for key in ("players", "games", "policies"):
            if key not in d:
                raise ConfigError(f"league config needs {key!r}")

        def need_int(key: str, low: int, default: Any = None) -> int:
            v = d.get(key, default)
            if not isinstance(v, int) or isinstance(v, bool) or v < low:
                raise ConfigError(f"league config {key!r} must be an int >= {low}, got {v!r}")
            return v

        players = need_int("players", 2)
        games = need_int("games", 1)
        seed = need_int("seed", 0, 0)
        workers = need_int("workers", 1, 1)
        handicap = need_int("handicap", 0, 0)
        necro = d.get("necromancer")
        if necro is not None and not isinstance(necro, bool):
            raise ConfigError(f"league config 'necromancer' must be true or false, got {necro!r}")
        raw = d["policies"]
        if not isinstance(raw, list) or not raw:
            raise ConfigError("league config 'policies' must be a non-empty list")
        entries = []
        for i, p in enumerate(raw):
            if not isinstance(p, dict) or set(p) - {"name", "spec", "role"} or "spec" not in p:
                raise ConfigError(f"policies[{i}] must be a mapping with spec, optional name and role; got {p!r}")
            role = p.get("role", "player")
            if role not in ROLES:
                raise ConfigError(f"policies[{i}] role must be one of {ROLES}, got {role!r}")
            spec = str(p["spec"])
            entries.append(LeagueEntry(str(p.get("name", spec)), spec, role))
        names = [e.name for e in entries]
        if len(set(names)) != len(names):
            raise ConfigError(f"league policy names must be unique, got {names}")
        extra = d.get("game") or {}
        if not isinstance(extra, dict):
            raise ConfigError("league config 'game' must be a mapping of GameConfig options")
        plots = d.get("plots")
        return cls(players, games, seed, tuple(entries), necro, workers, handicap,
                   None if plots is None else str(plots), dict(extra))


def load_config(path: str) -> LeagueConfig:
    """Read and validate a league YAML file (``ConfigError`` on bad content)."""
    import yaml

    from .game.errors import ConfigError

    with open(path, encoding="utf-8") as f:
        try:
            data = yaml.safe_load(f)
        except (yaml.YAMLError, ValueError, RecursionError) as e:  # ValueError: bad UTF-8, a 4,300+ digit int
            raise ConfigError(f"{path}: not valid YAML ({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''})") from None
    return LeagueConfig.from_dict(data)


def schedule(cfg: LeagueConfig, game_cfg) -> list[tuple[int, int, tuple[str, ...]]]:
    """The (index, seed, seat labels) of every game of the league."""
    from .game.errors import ConfigError

    player_pols = [e.name for e in cfg.policies if e.role == "player"]
    necro_pols = [e.name for e in cfg.policies if e.role == "necromancer"]
    if not player_pols:
        raise ConfigError("a league needs at least one policy with role: player")
    if game_cfg.necromancer and not necro_pols:
        raise ConfigError("a league with the Necromancer needs a policy with role: necromancer")
    if not game_cfg.necromancer and necro_pols:
        raise ConfigError("necromancer-role policies given, but the league plays the base game")
    seats = game_cfg.num_players
    tasks = []
    for i in range(cfg.games):
        rng = np.random.default_rng(np.random.SeedSequence([cfg.seed, i, 1]))
        perm = [player_pols[j] for j in rng.permutation(len(player_pols))]
        labels = [perm[s % len(perm)] for s in range(seats)]
        labels = [labels[j] for j in rng.permutation(seats)]
        if game_cfg.necromancer:
            labels.append(necro_pols[i % len(necro_pols)])
        tasks.append((i, cfg.seed, tuple(labels)))
    return tasks


def placements(rec: dict[str, Any], necro_seat: int) -> list[int]:
    """Rank of every seat in one game (1 = best, equal ranks share a place): the engine's
    ``Game.standings``, stored in each game record by ``necro_env.evaluate``."""
    return rec["placements"]


def rate(records: list[dict[str, Any]], names: list[str], necro_seat: int) -> dict[str, Any]:
    """openskill Plackett-Luce ratings after the games, in order: {name: rating}."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {name: model.rating(name=name) for name in names}
    for rec in records:
        seats = rec["seats"]
        ranks = placements(rec, necro_seat)
        teams = [[ratings[lab]] for lab in seats]
        new = model.rate(teams, ranks=ranks)
        acc: dict[str, list] = {}
        for lab, team in zip(seats, new):
            acc.setdefault(lab, []).append(team[0])
        for lab, copies in acc.items():
            mu = sum(c.mu for c in copies) / len(copies)
            sigma = sum(c.sigma for c in copies) / len(copies)
            ratings[lab] = model.rating(mu=mu, sigma=sigma, name=lab)
    return ratings


def run_league(cfg: LeagueConfig, progress: bool = False, trusted: bool = False) -> dict[str, Any]:
    """Play the league and return its summary (the JSON of ``necro-env league``).

    trusted: allow policy files that can run code when loaded (SB3 ``.zip``); it is the caller's
    decision (``--trust-pickle``), never the config file's."""
    from .agents.registry import check_policy
    from .evaluate import run_games
    from .game import GameConfig

    game_cfg = GameConfig(players=cfg.players, necromancer=cfg.necromancer, handicap=cfg.handicap, **cfg.extra)
    specs = {e.name: (e.spec, e.role) for e in cfg.policies}
    for e in cfg.policies:
        check_policy(e.spec, e.role, trusted=trusted)  # fail early on a bad spec, without loading it
    tasks = schedule(cfg, game_cfg)
    t0 = time.perf_counter()
    records = run_games(game_cfg.to_dict(), specs, tasks, workers=cfg.workers, progress=progress,
                        desc=f"league {cfg.players} seats", trusted=trusted)
    seconds = time.perf_counter() - t0
    necro_seat = game_cfg.players - 1 if game_cfg.necromancer else -1
    ratings = rate(records, [e.name for e in cfg.policies], necro_seat)
    rows = []
    for e in cfg.policies:
        played = [r for r in records if e.name in r["seats"]]
        wins = sum(1 for r in played if any(r["seats"][s] == e.name for s in r["winners"]))
        lo, hi = wilson(wins, len(played))
        seat_ranks = [placements(r, necro_seat)[s] for r in played for s, lab in enumerate(r["seats"]) if lab == e.name]
        coins = [r["coins"][s] for r in played for s, lab in enumerate(r["seats"]) if lab == e.name]
        rt = ratings[e.name]
        rows.append({
            "name": e.name, "spec": e.spec, "role": e.role, "games": len(played), "wins": wins,
            "win_rate": wins / len(played) if played else 0.0, "ci95": [lo, hi],
            "mean_rank": float(np.mean(seat_ranks)) if seat_ranks else None,
            "mean_coins": float(np.mean(coins)) if coins else None,
            "mu": rt.mu, "sigma": rt.sigma, "ordinal": rt.ordinal(),
        })
    rows.sort(key=lambda r: -r["ordinal"])
    return {
        "config": {"players": game_cfg.players, "necromancer": bool(game_cfg.necromancer), "games": cfg.games,
                   "seed": cfg.seed, "handicap": cfg.handicap,
                   "policies": [{"name": e.name, "spec": e.spec, "role": e.role} for e in cfg.policies]},
        "model": "openskill PlackettLuce (mu0 25, sigma0 25/3); ordinal = mu - 3 sigma",
        "ratings": rows,
        "necromancer_win_rate": (sum(1 for r in records if r["necro_won"]) / len(records)
                                 if game_cfg.necromancer else None),
        "run": {"workers": cfg.workers, "seconds": round(seconds, 3)},
    }


def format_table(summary: dict[str, Any]) -> str:
    c = summary["config"]
    lines = [f"league: {c['players']} seats, {'Necromancer Island' if c['necromancer'] else 'base game'}, "
             f"{c['games']} games, seed {c['seed']}"]
    head = (f"{'policy':<18} {'role':<12} {'games':>5} {'win rate':>8}  {'95% CI':<16} {'mean rank':>9} "
            f"{'mu':>7} {'sigma':>6} {'ordinal':>8}")
    lines += [head, "-" * len(head)]
    for r in summary["ratings"]:
        rank = f"{r['mean_rank']:.2f}" if r["mean_rank"] is not None else "-"
        lines.append(f"{r['name'][:18]:<18} {r['role']:<12} {r['games']:>5} {r['win_rate']:>8.3f}  "
                     f"{format_interval(*r['ci95']):<16} {rank:>9} {r['mu']:>7.2f} {r['sigma']:>6.2f} {r['ordinal']:>8.2f}")
    if summary.get("necromancer_win_rate") is not None:
        lines.append(f"Necromancer win rate (all his policies): {summary['necromancer_win_rate']:.3f}")
    return "\n".join(lines)


def write_plot(summary: dict[str, Any], directory: str) -> str:
    """``league_ratings.png``: each policy's mu with ±2 sigma bars (best ordinal on top)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(directory, exist_ok=True)
    rows = summary["ratings"][::-1]
    fig, ax = plt.subplots(figsize=(7, 1.2 + 0.5 * len(rows)))
    ys = np.arange(len(rows))
    colors = ["#c44e52" if r["role"] == "necromancer" else "#4c72b0" for r in rows]
    ax.errorbar([r["mu"] for r in rows], ys, xerr=[2 * r["sigma"] for r in rows], fmt="none",
                ecolor="gray", capsize=4)
    ax.scatter([r["mu"] for r in rows], ys, c=colors, zorder=3)
    ax.set_yticks(ys, [f"{r['name']} ({r['role']})" for r in rows])
    ax.set_xlabel("openskill mu (±2 sigma)")
    ax.set_title(f"league: {summary['config']['players']} seats, {summary['config']['games']} games")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    path = os.path.join(directory, "league_ratings.png")
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from .cli_args import add_trust_argument, nonneg_int, positive_int

    parser.add_argument("config", metavar="CONFIG.yaml", help="league config (see configs/league_example.yaml)")
    parser.add_argument("--games", type=positive_int, default=None, help="override the config's games")
    parser.add_argument("--seed", type=nonneg_int, default=None, help="override the config's seed")
    parser.add_argument("--workers", type=positive_int, default=None, help="override the config's workers")
    parser.add_argument("--json", action="store_true", help="print the summary as one JSON object on the last line")
    parser.add_argument("--plots", metavar="DIR", default=None, help="write league_ratings.png to DIR")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    add_trust_argument(parser)


def run(args: argparse.Namespace) -> int:
    import dataclasses

    cfg = load_config(args.config)
    over = {k: getattr(args, k) for k in ("games", "seed", "workers") if getattr(args, k) is not None}
    if over:
        cfg = dataclasses.replace(cfg, **over)
    summary = run_league(cfg, progress=not args.quiet, trusted=args.trust_pickle)
    print(format_table(summary))
    plots = args.plots or cfg.plots
    if plots:
        print(f"wrote {write_plot(summary, plots)}")
    if args.json:
        print(json.dumps(summary, sort_keys=True))
    return 0


__all__ = ["LeagueConfig", "LeagueEntry", "load_config", "schedule", "placements", "rate", "run_league",
           "format_table", "write_plot", "add_arguments", "run"]
