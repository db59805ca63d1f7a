"""Evaluate policies over many seeded games: win rates with Wilson intervals, coins, Ghosts in play.

Two set-ups, one harness:

* **Scenario** (3-6 seats, the default): the last seat is the Necromancer (``--necromancer``,
  default ``heuristic``); the player seats play ``--players-policy`` (default ``greedy``). With
  ``--opponents SPEC`` one *test* seat plays ``--players-policy`` and the other player seats play
  ``--opponents``; the test seat rotates over the player seats (game i: seat ``i mod (N-1)``).
* **Base game** (``--no-necromancer``, 2-5 seats; 2 seats always): one test seat plays
  ``--players-policy`` against ``--opponents`` (default ``random``) in every other seat, rotated
  over all seats (game i: seat ``i mod N``), so no seat position biases the result.

Game i is seeded from ``numpy.random.SeedSequence([seed, i])``: one child seeds the engine, one
child per seat seeds that seat's policy generator. Results are gathered in game order, so the same
command gives the same numbers for any ``--workers`` (games run in a process pool).

A group wins a game when one of its seats is among the winners (a shared win counts; ``shared``
says how often). Outputs: a table (win rate + Wilson interval, mean final coins per seat of the
group), the Necromancer's win rate, purchases, starting powers and mean Ghosts in play by round
(a game he won keeps its final count in later rounds), per-seat win rates; ``--json`` prints all
of it as one JSON object on the last line of stdout; ``--plots DIR`` writes ``win_rates.png`` and
``ghost_curve.png``. ``evaluate(...)`` returns the same dict for training code.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from . import loop
from .loop import MAX_DECISIONS  # noqa: F401  (a public name of this module)
from .stats import format_interval, wilson

# ---------------------------------------------------------------------------------- one game


def game_seeds(seed: int, index: int, seats: int) -> tuple[int, list[np.random.Generator]]:
    """Engine seed and one policy generator per seat for game ``index`` of a run seeded ``seed``."""
    ss = np.random.SeedSequence([int(seed), int(index)])
    engine_ss, *seat_ss = ss.spawn(seats + 1)
    words = engine_ss.generate_state(2, dtype=np.uint32)
    engine_seed = (int(words[0]) << 32) | int(words[1])
    return engine_seed, [np.random.default_rng(s) for s in seat_ss]


def play_game(game, policies: Sequence, engine_seed: int, rngs: Sequence[np.random.Generator],
              on_decision: Callable | None = None, keep_actions: bool = False,
              on_end: Callable | None = None) -> dict[str, Any]:
    """Play one game with ``policies[seat]`` (``necro_env.loop.play``); return its record (see ``_record``).

    ``on_decision(view, action)`` (optional) sees every decision before it is applied;
    ``on_end(game, state)`` (optional) sees the finished game's state.
    An illegal action raises the engine's ``IllegalActionError`` (nothing is substituted); a game
    past ``MAX_DECISIONS`` decisions raises ``necro_env.loop.GameLoopError`` (a ``RuntimeError``).
    ``keep_actions``: the record also holds ``actions`` and the engine's ``result``.
    """
    from .game.catalog import GHOST

    for p in policies:
        reset = getattr(p, "reset", None)
        if reset is not None:
            reset()
    st = game.new_state(engine_seed)
    actions: list[int] = []
    bought: list[list[int]] = []  # Ghosts and powers the Necromancer bought in each round
    start_power = -1
    rnd = 0
    done = (0, 0)

    def before(view, action) -> None:
        nonlocal rnd
        if on_decision is not None:
            on_decision(view, action)
        rnd = st.round

    def after(view, action) -> None:
        nonlocal start_power, done
        if keep_actions:
            actions.append(int(action))
        if game.necromancer:
            if start_power < 0 and st.race_power[GHOST]:
                start_power = st.race_power[GHOST].bit_length() - 1
            if st.round != rnd or st.over:
                bought.append([st.bought_ghosts - done[0], st.bought_powers - done[1]])
                done = (st.bought_ghosts, st.bought_powers)

    loop.play(game, st, policies, rngs, on_decision=before, after=after, max_decisions=loop.MAX_DECISIONS)
    if on_end is not None:
        on_end(game, st)
    rec = _record(game, st, start_power, bought)
    if keep_actions:
        rec["actions"] = actions
        rec["result"] = game.result(st)
    return rec


def _record(game, st, start_power: int, bought_by_round: list[list[int]]) -> dict[str, Any]:
    from .game.catalog import GHOST, POWERS

    res = game.result(st)
    rec = {
        "winners": res["winners"],
        "necro_won": res["necromancer_won"],
        "coins": res["coins"],
        "rounds": res["rounds_played"],
        "decisions": st.decisions,
        "tokens_on_board": [game.tokens_on_board(st, s) for s in range(game.num_seats)],
        "placements": game.standings(st),
    }
    if game.necromancer:
        in_use = st.race_power[GHOST]
        bought = [POWERS[p].name for p in range(len(POWERS)) if (in_use >> p) & 1 and p != start_power]
        rec.update({
            "ghost_curve": res["ghost_curve"],
            "ghosts_in_play": res["ghosts_in_play"],
            "bought_ghosts": res["bought_ghosts"],
            "bought_powers": res["bought_powers"],
            "start_power": POWERS[start_power].name if start_power >= 0 else None,
            "powers_bought": bought,
            "bought_by_round": bought_by_round,
        })
    return rec


# ---------------------------------------------------------------------------------- worker pool
_WORKER: dict[str, Any] = {}


def _init_worker(config: dict, specs: dict[str, tuple[Any, str]], keep_actions: bool = False,
                 trusted: bool = False) -> None:
    """Build the game and every labelled policy once per process."""
    from .agents.registry import make_policy
    from .game import Game, GameConfig

    _WORKER["game"] = Game(GameConfig.from_dict(config))
    _WORKER["policies"] = {label: make_policy(spec, role, trusted=trusted) for label, (spec, role) in specs.items()}
    _WORKER["keep_actions"] = keep_actions
    _one_thread_per_worker()


def _one_thread_per_worker() -> None:
    """In a worker process of the pool (one per core), torch decides on one thread. Its default, one thread
    per core in every worker, oversubscribes the cores: a learned policy's small forward passes then
    wait on each other's threads (4x slower per game on the 2 cores, measured). The calling process's own
    setting is left alone."""
    import multiprocessing as mp

    if mp.parent_process() is not None and "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)


def _play_task(task: tuple[int, int, tuple[str, ...]]) -> dict[str, Any]:
    index, seed, labels = task
    game = _WORKER["game"]
    pols = _WORKER["policies"]
    engine_seed, rngs = game_seeds(seed, index, game.num_seats)
    rec = play_game(game, [pols[lab] for lab in labels], engine_seed, rngs, keep_actions=_WORKER["keep_actions"])
    if _WORKER["keep_actions"]:
        rec["engine_seed"] = engine_seed
    rec["index"] = index
    rec["seats"] = list(labels)
    return rec


def run_games(config: dict, specs: dict[str, tuple[Any, str]], tasks: list[tuple[int, int, tuple[str, ...]]],
              workers: int = 1, progress: bool = False, desc: str = "games",
              start_method: str | None = None, keep_actions: bool = False,
              trusted: bool = False) -> list[dict[str, Any]]:
    """Play ``tasks`` (index, seed, seat labels) and return their records in task order.

    ``specs`` maps each label to ``(policy spec, role)``; policies are built in every worker.
    ``workers > 1`` uses a process pool. ``start_method`` default: ``fork`` where the platform has
    it and torch is not loaded in this process (fast, and scripts need no ``__main__`` guard),
    otherwise ``spawn`` (safe with torch's threads; the calling script must then guard its entry
    point with ``if __name__ == "__main__":``). ``keep_actions``: records also hold ``actions``,
    ``result`` and ``engine_seed`` (what a saved game needs). ``trusted``: allow pickle-based
    policy files (``necro_env.agents.registry``, "Trust").
    """
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(tasks), desc=desc, unit="game", file=sys.stderr, dynamic_ncols=True)
    out: list[dict[str, Any]] = []
    try:
        if workers <= 1 or len(tasks) <= 1:
            _init_worker(config, specs, keep_actions, trusted)
            try:
                for t in tasks:
                    out.append(_play_task(t))
                    if bar is not None:
                        bar.update(1)
            finally:
                _WORKER.clear()
        else:
            import multiprocessing as mp

            if start_method is None:
                forkable = "fork" in mp.get_all_start_methods() and "torch" not in sys.modules
                start_method = "fork" if forkable else "spawn"
            ctx = mp.get_context(start_method)
            chunk = max(1, min(16, len(tasks) // (workers * 8)))
            with ctx.Pool(workers, initializer=_init_worker, initargs=(config, specs, keep_actions, trusted)) as pool:
                for rec in pool.imap(_play_task, tasks, chunksize=chunk):
                    out.append(rec)
                    if bar is not None:
                        bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    return out


# ---------------------------------------------------------------------------------- evaluation
def spec_name(spec: Any) -> str:
    """Readable name of a policy spec (a string is itself; a policy object its ``name``)."""
    if isinstance(spec, str):
        return spec
    return str(getattr(spec, "name", type(spec).__name__))


def evaluate(players: int, necromancer_spec: Any = "heuristic", players_spec: Any = "greedy", games: int = 200,
             seed: int = 0, workers: int = 1, necromancer: bool = True, progress: bool = False,
             opponents_spec: Any = None, handicap: int = 0, config: dict | None = None,
             start_method: str | None = None, save_games: str | None = None,
             trusted: bool = False, test_seat: bool = False) -> dict[str, Any]:
    """Play ``games`` seeded games and return the evaluation summary (the JSON of ``necro-env evaluate``).

    ``players`` counts every seat (the Necromancer included). Specs are policy names
    (``random``, ``greedy``, ``heuristic``, or registered ones), paths a loader understands,
    or policy objects. ``opponents_spec``: see the module docstring (scenario default: none,
    every player seat plays ``players_spec``; base-game default: ``random``). ``config``:
    extra ``GameConfig`` options. ``save_games``: a folder that receives game ``i``'s record as
    ``game_<i>.json``; the summary then lists them under ``saved_games``. ``trusted``: allow
    policy files that can run code when loaded (SB3 ``.zip``; the CLI's ``--trust-pickle``).
    ``test_seat``: with ``opponents_spec``, one rotated test seat plays ``players_spec`` even when both
    specs name the same policy (a policy scored against copies of itself, as ``necro_env.benchmark``'s
    anchors are); by default the same name means every player seat is one group.
    Raises ``ConfigError`` on bad arguments.
    """
    from .agents.registry import check_policy
    from .game import GameConfig
    from .game.errors import ConfigError

    for name, v, low in (("games", games, 1), ("workers", workers, 1), ("seed", seed, 0)):
        if not isinstance(v, int) or isinstance(v, bool) or v < low:
            raise ConfigError(f"{name} must be an int >= {low}, got {v!r}")
    if players == 2:
        necromancer = False
    cfg = GameConfig(**{"players": players, "necromancer": bool(necromancer), "handicap": handicap, **(config or {})})
    n = cfg.players
    num_players = cfg.num_players
    if not necromancer and opponents_spec is None:
        opponents_spec = "random"
    mixed = opponents_spec is not None and (bool(test_seat) or spec_name(opponents_spec) != spec_name(players_spec))
    specs: dict[str, tuple[Any, str]] = {}
    if mixed:
        specs["test"] = (players_spec, "player")
        specs["opponents"] = (opponents_spec, "player")
    else:
        specs["players"] = (players_spec, "player")
    if necromancer:
        specs["necromancer"] = (necromancer_spec, "necromancer")
    for label, (spec, role) in specs.items():  # fail early, in this process, without loading anything
        check_policy(spec, role, trusted=trusted)

    tasks = []
    for i in range(games):
        if mixed:
            test = i % num_players
            labels = ["test" if s == test else "opponents" for s in range(num_players)]
        else:
            labels = ["players"] * num_players
        if necromancer:
            labels.append("necromancer")
        tasks.append((i, seed, tuple(labels)))

    t0 = time.perf_counter()
    records = run_games(cfg.to_dict(), specs, tasks, workers=workers, progress=progress,
                        desc=f"evaluate {n} seats", start_method=start_method, keep_actions=save_games is not None,
                        trusted=trusted)
    seconds = time.perf_counter() - t0
    summary = summarize(records, cfg, specs)
    if save_games is not None:
        summary["saved_games"] = _save_games(records, cfg, save_games)
    summary["config"].update({"games": games, "seed": seed})
    summary["run"] = {"workers": workers, "seconds": round(seconds, 3),
                      "games_per_second": round(games / seconds, 2) if seconds > 0 else None}
    return summary


def _rate(k: int, n: int) -> dict[str, Any]:
    lo, hi = wilson(k, n)
    return {"wins": k, "games": n, "win_rate": k / n if n else 0.0, "ci95": [lo, hi]}


def summarize(records: list[dict[str, Any]], cfg, specs: dict[str, tuple[Any, str]]) -> dict[str, Any]:
    """Aggregate game records (from ``run_games``) into the evaluation summary."""
    n_games = len(records)
    n = cfg.players
    necro_seat = n - 1 if cfg.necromancer else -1
    groups = []
    for label, (spec, role) in specs.items():
        wins = shared = 0
        coins: list[float] = []
        seats_per_game = 0
        for rec in records:
            seats = [s for s, lab in enumerate(rec["seats"]) if lab == label]
            seats_per_game = len(seats)
            won = [s for s in seats if s in rec["winners"]]
            if won:
                wins += 1
                if len(rec["winners"]) > 1:
                    shared += 1
            coins.extend(rec["coins"][s] for s in seats)
        g = {"group": label, "role": role, "policy": spec_name(spec), "seats": seats_per_game}
        g.update(_rate(wins, n_games))
        g["shared"] = shared
        g["mean_coins"] = float(np.mean(coins)) if coins else 0.0
        groups.append(g)
    seat_rates = []
    for s in range(n):
        k = sum(1 for rec in records if s in rec["winners"])
        seat_rates.append({"seat": s, **_rate(k, n_games)})
    out: dict[str, Any] = {
        "config": {"players": n, "necromancer": bool(cfg.necromancer), "handicap": cfg.handicap,
                   "board": cfg.board_key,
                   "policies": {label: {"spec": spec_name(spec), "role": role} for label, (spec, role) in specs.items()}},
        "games": n_games,
        "policies": groups,
        "seats": seat_rates,
        "mean_rounds": float(np.mean([r["rounds"] for r in records])) if records else 0.0,
        "mean_decisions": float(np.mean([r["decisions"] for r in records])) if records else 0.0,
    }
    if cfg.necromancer:
        k = sum(1 for r in records if r["necro_won"])
        necro = {"policy": spec_name(specs["necromancer"][0]), **_rate(k, n_games)}
        necro["players_win_rate"] = 1.0 - necro["win_rate"] if n_games else 0.0
        necro["mean_coins"] = float(np.mean([r["coins"][necro_seat] for r in records]))
        won_rounds = [r["rounds"] for r in records if r["necro_won"]]
        necro["mean_victory_round"] = float(np.mean(won_rounds)) if won_rounds else None
        necro["mean_ghosts_in_play_at_end"] = float(np.mean([r["ghosts_in_play"] for r in records]))
        necro["purchases"] = {
            "ghosts_mean": float(np.mean([r["bought_ghosts"] for r in records])),
            "powers_mean": float(np.mean([r["bought_powers"] for r in records])),
            "ghosts_total": int(sum(r["bought_ghosts"] for r in records)),
            "powers_total": int(sum(r["bought_powers"] for r in records)),
            "powers_bought": _count(p for r in records for p in r["powers_bought"]),
        }
        necro["start_powers"] = _count(r["start_power"] for r in records if r["start_power"])
        from .game.board import load_board

        turns = cfg.game_turns or load_board(cfg.board_key).game_turns
        curve, alive = [], []
        for t in range(turns):
            vals = []
            for r in records:
                c = r["ghost_curve"]
                if t < len(c):
                    vals.append(c[t])
                elif c and r["necro_won"]:
                    vals.append(c[-1])  # he won: all his Ghosts stay in play
            curve.append(float(np.mean(vals)) if vals else 0.0)
            alive.append(sum(1 for r in records if r["rounds"] >= t + 1))
        necro["ghost_curve_mean"] = curve
        necro["games_reaching_round"] = alive
        by_round = {"ghosts": [], "powers": []}
        for t in range(turns):
            rows = [r["bought_by_round"][t] for r in records if t < len(r["bought_by_round"])]
            for k, key in enumerate(("ghosts", "powers")):
                by_round[key].append(float(np.mean([row[k] for row in rows])) if rows else 0.0)
        necro["purchases"]["by_round_mean"] = by_round  # over the games that reached the round
        out["necromancer"] = necro
    return out


def _save_games(records: list[dict[str, Any]], cfg, directory: str) -> dict[str, Any]:
    """Write each game's record to ``directory`` (``saved_games``); a row per game for the summary."""
    from .saved_games import game_record, save_game

    rows = []
    for rec in records:
        path = save_game(directory, rec["index"],
                         game_record(cfg, rec["engine_seed"], rec.pop("actions"), rec.pop("result")))
        rows.append({"index": rec["index"], "file": path.name, "seats": rec["seats"], "winners": rec["winners"],
                     "rounds": rec["rounds"], "coins": rec["coins"], "ghost_curve": rec.get("ghost_curve")})
    return {"dir": str(directory), "games": rows}


def _count(items: Iterable[str]) -> dict[str, int]:
    d: dict[str, int] = {}
    for x in items:
        d[x] = d.get(x, 0) + 1
    return dict(sorted(d.items(), key=lambda kv: (-kv[1], kv[0])))


# ---------------------------------------------------------------------------------- output
def format_table(summary: dict[str, Any]) -> str:
    """The human-readable report printed by ``necro-env evaluate``."""
    c = summary["config"]
    lines = [f"{c['players']} seats, {'Necromancer Island' if c['necromancer'] else 'base game'} "
             f"(board {c['board']}), {summary['games']} games, seed {c.get('seed', '?')}"]
    head = f"{'group':<12} {'role':<12} {'policy':<16} {'seats':>5} {'wins':>6} {'win rate':>8}  {'95% CI':<16} {'mean coins':>10}"
    lines.append(head)
    lines.append("-" * len(head))
    rows = list(summary["policies"])
    for g in rows:
        lines.append(f"{g['group']:<12} {g['role']:<12} {_short(g['policy']):<16} {g['seats']:>5} {g['wins']:>6} "
                     f"{g['win_rate']:>8.3f}  {format_interval(*g['ci95']):<16} {g['mean_coins']:>10.1f}")
    necro = summary.get("necromancer")
    if necro:
        lines.append("")
        lines.append(f"Necromancer ({_short(necro['policy'])}) wins {necro['wins']}/{necro['games']} = "
                     f"{necro['win_rate']:.3f} {format_interval(*necro['ci95'])}"
                     + (f", mean victory round {necro['mean_victory_round']:.1f}" if necro["mean_victory_round"] else ""))
        p = necro["purchases"]
        lines.append(f"  purchases a game: {p['ghosts_mean']:.2f} Ghosts, {p['powers_mean']:.2f} powers; "
                     f"mean coins left {necro['mean_coins']:.1f}")
        if necro["start_powers"]:
            lines.append("  starting powers: " + _top(necro["start_powers"], summary["games"]))
        if p["powers_bought"]:
            lines.append("  powers bought:   " + _top(p["powers_bought"], summary["games"]))
        curve = " ".join(f"{v:.1f}" for v in necro["ghost_curve_mean"])
        lines.append(f"  Ghosts in play by round (mean): {curve}")
    seats = " ".join(f"{s['seat']}:{s['win_rate']:.2f}" for s in summary["seats"])
    lines.append(f"win rate by seat: {seats}; mean rounds {summary['mean_rounds']:.1f}")
    run = summary.get("run")
    if run:
        lines.append(f"{run['seconds']:.1f} s with {run['workers']} worker(s)")
    return "\n".join(lines)


def _short(text: str, width: int = 16) -> str:
    return text if len(text) <= width else "…" + text[-(width - 1):]


def _top(counts: dict[str, int], games: int, k: int = 6) -> str:
    items = list(counts.items())[:k]
    return ", ".join(f"{name} {100 * v / max(1, games):.0f}%" for name, v in items)


def write_plots(summary: dict[str, Any], directory: str) -> list[str]:
    """``win_rates.png`` (win rates with Wilson error bars) and, with a Necromancer, ``ghost_curve.png``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(directory, exist_ok=True)
    paths = []
    rows = [(f"{g['group']}\n{_short(g['policy'], 20)}", g["win_rate"], g["ci95"]) for g in summary["policies"]]
    if "necromancer" in summary and not any(g["group"] == "necromancer" for g in summary["policies"]):
        nec = summary["necromancer"]
        rows.append(("necromancer", nec["win_rate"], nec["ci95"]))
    fig, ax = plt.subplots(figsize=(1.6 + 1.4 * len(rows), 4))
    xs = np.arange(len(rows))
    rates = [r[1] for r in rows]
    err = np.array([[r[1] - r[2][0] for r in rows], [r[2][1] - r[1] for r in rows]])
    ax.bar(xs, rates, yerr=err, capsize=6, color="#4c72b0")
    ax.set_xticks(xs, [r[0] for r in rows])
    ax.set_ylim(0, 1)
    ax.set_ylabel("win rate (95% Wilson interval)")
    c = summary["config"]
    ax.set_title(f"{c['players']} seats, {summary['games']} games")
    fig.tight_layout()
    p = os.path.join(directory, "win_rates.png")
    fig.savefig(p, dpi=100)
    plt.close(fig)
    paths.append(p)
    nec = summary.get("necromancer")
    if nec and nec["ghost_curve_mean"]:
        fig, ax = plt.subplots(figsize=(6, 4))
        rounds = np.arange(1, len(nec["ghost_curve_mean"]) + 1)
        ax.plot(rounds, nec["ghost_curve_mean"], marker="o")
        ax.set_xlabel("round")
        ax.set_ylabel("Ghosts in play (mean, end of round)")
        ax.set_title(f"Necromancer: {_short(nec['policy'], 30)}")
        ax.set_xticks(rounds)
        ax.grid(alpha=0.3)
        fig.tight_layout()
        p = os.path.join(directory, "ghost_curve.png")
        fig.savefig(p, dpi=100)
        plt.close(fig)
        paths.append(p)
    return paths


# ---------------------------------------------------------------------------------- command line
def add_arguments(parser: argparse.ArgumentParser) -> None:
    from .cli_args import add_trust_argument, nonneg_int, positive_int
    from .saved_games import add_save_games_argument

    parser.add_argument("--players", type=int, default=4,
                        help="seats, the Necromancer included: 3-6 with him, 2-5 with --no-necromancer (default 4)")
    parser.add_argument("--necromancer", metavar="SPEC", default="heuristic",
                        help="the Necromancer's policy: heuristic, random, greedy (= heuristic), a file, pretrained:NAME or "
                             "rllib:CHECKPOINT#MODULE, mcts:SIMS or ismcts:SIMS (OpenSpiel search; default heuristic)")
    parser.add_argument("--no-necromancer", action="store_true",
                        help="base game (no Necromancer): one test seat vs --opponents, rotated (2 seats imply it)")
    parser.add_argument("--players-policy", metavar="SPEC", default="greedy",
                        help="policy of the player seats (or of the test seat with --opponents) (default greedy)")
    parser.add_argument("--opponents", metavar="SPEC", default=None,
                        help="policy of the other player seats: one rotated test seat plays --players-policy "
                             "(scenario default: none; base game default: random)")
    parser.add_argument("--games", type=positive_int, default=200, help="games to play (default 200)")
    parser.add_argument("--seed", type=nonneg_int, default=0, help="run seed; game i is seeded from (seed, i)")
    parser.add_argument("--workers", type=positive_int, default=1, help="parallel processes (default 1)")
    parser.add_argument("--handicap", type=int, default=0, help="Ghosts removed from his reserve, 0-2 (default 0)")
    parser.add_argument("--json", action="store_true", help="print the full summary as one JSON object on the last line")
    parser.add_argument("--plots", metavar="DIR", default=None, help="write win_rates.png and ghost_curve.png to DIR")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--report", metavar="OUT", default=None,
                        help="write an HTML report to OUT (tables, charts; with --save-games, a viewer per game)")
    add_save_games_argument(parser)
    add_trust_argument(parser)


def run(args: argparse.Namespace) -> int:
    necromancer = not args.no_necromancer and args.players != 2
    summary = evaluate(args.players, args.necromancer, args.players_policy, args.games, args.seed,
                       workers=args.workers, necromancer=necromancer, progress=not args.quiet,
                       opponents_spec=args.opponents, handicap=args.handicap, save_games=args.save_games,
                       trusted=args.trust_pickle)
    print(format_table(summary))
    if args.plots:
        for p in write_plots(summary, args.plots):
            print(f"wrote {p}")
    if args.save_games:
        print(f"wrote {summary['games']} game records to {args.save_games}")
    if args.report:
        from .viewer.report import write_report

        print(f"wrote {write_report(summary, args.report)}")
    if args.json:
        print(json.dumps(summary, sort_keys=True, default=_json_default))
    return 0


def _json_default(o: Any):
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (np.floating,)):
        return float(o) if math.isfinite(o) else None
    raise TypeError(f"not JSON serializable: {type(o).__name__}")


__all__ = ["evaluate", "play_game", "game_seeds", "run_games", "summarize", "format_table", "write_plots",
           "add_arguments", "run"]
