"""Play seeded games with uniformly random legal actions and print a summary (speed, wins, coins, Ghosts)."""
from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from .cli_args import add_game_arguments, game_config, nonneg_int, positive_int, resolve_necromancer
from . import loop
from .loop import RandomChooser, random_draws  # noqa: F401  (random_draws: re-exported for benchmarks)
from .saved_games import add_save_games_argument, game_record, save_game


def play_random_game(game, rng: np.random.Generator, actions: list[int] | None = None):
    """One game to the end with uniformly random legal actions; returns the final ``State``.

    The engine's own seed (deck shuffles, dice) and every action choice come from ``rng``,
    so one generator fixes the whole game (``necro_env.loop.play`` with a ``RandomChooser`` in
    every seat, all drawing from ``rng``). ``actions``: a list that receives the engine seed,
    then every action (for ``--save-games``).
    """
    seed = int(rng.integers(0, 1 << 63))
    st = game.new_state(seed)
    if actions is not None:
        actions.append(seed)
    chooser = RandomChooser(game)
    loop.play(game, st, [chooser] * game.num_seats, rng,
         on_decision=None if actions is None else (lambda _view, a: actions.append(a)), max_decisions=None)
    return st


def simulate(players: int, necromancer: bool | None, games: int, seed: int,
             handicap: int = 0, progress: bool = False, save_games: str | None = None) -> dict:
    """Play ``games`` random games; game ``i`` uses ``np.random.default_rng([seed, i])``.

    Returns the summary printed by ``necro-env simulate`` (``elapsed_s`` and
    ``decisions_per_sec`` are the only keys that vary between runs of one seed).
    ``save_games``: a folder that receives each game's record as ``game_<i>.json``.
    """
    from .game import Game, GameConfig
    from .game.errors import ConfigError

    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ConfigError(f"games must be an int >= 1, got {games!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ConfigError(f"seed must be an int >= 0, got {seed!r}")
    necromancer = resolve_necromancer(players, necromancer)
    game = Game(GameConfig(players=players, necromancer=necromancer, handicap=handicap))
    n = game.num_seats
    necro_seat = game.necro_seat

    wins = [0.0] * n
    coins = [0] * n
    decisions = rounds = 0
    necro_wins = ghosts = bought_ghosts = bought_powers = 0
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=games, desc="simulate", unit="game", file=sys.stderr, leave=False)
    elapsed = 0.0
    try:
        for i in range(games):
            rng = np.random.default_rng([seed, i])
            log = [] if save_games else None
            t0 = time.perf_counter()
            st = play_random_game(game, rng, log)
            elapsed += time.perf_counter() - t0
            res = game.result(st)
            if log:
                save_game(save_games, i, game_record(game.config, log[0], log[1:], res))
            decisions += st.decisions
            rounds += res["rounds_played"]
            share = 1.0 / len(res["winners"])
            for s in res["winners"]:
                wins[s] += share
            for s in range(n):
                coins[s] += res["coins"][s]
            if necromancer:
                necro_wins += res["necromancer_won"]
                ghosts += res["ghosts_in_play"]
                bought_ghosts += res["bought_ghosts"]
                bought_powers += res["bought_powers"]
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()

    summary = {
        "players": players,
        "necromancer": necromancer,
        "handicap": handicap,
        "seed": seed,
        "games": games,
        "decisions": decisions,
        "mean_decisions_per_game": decisions / games,
        "mean_rounds": rounds / games,
        "elapsed_s": elapsed,
        "decisions_per_sec": decisions / elapsed if elapsed > 0 else float("inf"),
        "wins_by_seat": wins,
        "win_rate_by_seat": [w / games for w in wins],
        "mean_coins": [c / games for c in coins],
    }
    if necromancer:
        summary.update({
            "necromancer_seat": necro_seat,
            "necromancer_win_rate": necro_wins / games,
            "mean_ghosts_in_play": ghosts / games,
            "mean_ghost_purchases": bought_ghosts / games,
            "mean_power_purchases": bought_powers / games,
        })
    return summary


TIMING_KEYS = ("elapsed_s", "decisions_per_sec")


def format_summary(s: dict) -> str:
    """The human-readable table of a ``simulate`` summary."""
    scenario = "Necromancer Island" if s["necromancer"] else "base game"
    lines = [
        f"{s['players']} seats, {scenario}" + (f", handicap {s['handicap']}" if s["handicap"] else "")
        + f", seed {s['seed']}",
        f"games                   {s['games']}",
        f"decisions per game      {s['mean_decisions_per_game']:.1f}",
        f"rounds per game         {s['mean_rounds']:.2f}",
        f"decisions/s             {s['decisions_per_sec']:,.0f}",
        "",
        f"{'seat':<8}{'wins':>10}{'win rate':>10}{'mean coins':>12}",
    ]
    for seat, (w, c) in enumerate(zip(s["wins_by_seat"], s["mean_coins"])):
        name = "Necro" if s["necromancer"] and seat == s["necromancer_seat"] else str(seat)
        lines.append(f"{name:<8}{w:>10.2f}{w / s['games']:>10.3f}{c:>12.2f}")
    if s["necromancer"]:
        lines += [
            "",
            f"Necromancer win rate    {s['necromancer_win_rate']:.3f}",
            f"Ghosts in play at end   {s['mean_ghosts_in_play']:.2f}",
            f"Ghosts bought per game  {s['mean_ghost_purchases']:.2f}",
            f"powers bought per game  {s['mean_power_purchases']:.2f}",
        ]
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_game_arguments(parser, players=4)
    parser.add_argument("--games", type=positive_int, default=100, help="games to play, >= 1 (default 100)")
    parser.add_argument("--seed", type=nonneg_int, default=0, help="base seed, >= 0 (default 0)")
    parser.add_argument("--json", action="store_true", help="also print the summary as one JSON object (the last line)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    add_save_games_argument(parser)


def run(args: argparse.Namespace) -> int:
    cfg = game_config(args)  # validates players / Necromancer / handicap with CLI wording
    summary = simulate(cfg.players, cfg.necromancer, args.games, args.seed,
                       handicap=cfg.handicap, progress=not args.no_progress, save_games=args.save_games)
    print(format_summary(summary))
    if args.json:
        print(json.dumps(summary, sort_keys=True))
    return 0
