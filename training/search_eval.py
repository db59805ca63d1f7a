"""Search players measured: win rates and decision times of ``mcts:``/``ismcts:`` specs on seeded games.

    python training/search_eval.py --side necromancer --specs ismcts:10,ismcts:50,mcts:10,mcts:50 \\
        --compare heuristic,pretrained:necromancer_3p --games 400 --seed 2024 --out docs/results/search
    python training/search_eval.py --side players --specs ismcts:10,ismcts:50 \\
        --compare greedy,pretrained:players_3p --games 400 --seed 2024 --out docs/results/search

``--side necromancer``: each spec plays the Necromancer against ``--opponents`` players (default greedy);
``--side players``: each spec plays **every** player seat (one policy object, so its timing covers the
team) against the ``--opponents`` Necromancer (default heuristic), and the row's win rate is the team's
(the games he loses). Every spec, and every ``--compare`` spec beside it, plays the same games: game i is
seeded from (seed, i) by ``necro_env.evaluate``, so the rows are paired and the table gives each one's
difference from the first ``--compare`` row (Newcombe's interval from the two Wilson intervals; on the
same games the outcomes are positively correlated, so it is, if anything, too wide).

The games run in this process (one core) so that the search policy's own counters give the decision
time: ``decisions`` (searched decisions; a decision with one legal action is played without a search) and
``search_seconds`` (their wall-clock time). 400 games hold every 95% Wilson interval within +/- 0.05.

Writes ``<out>/search_<side>_<players>p.json`` after every row, and skips the rows that file already
holds for the same games (so an interrupted run resumes); ``--json`` prints the rows as one JSON object
on the last line.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from necro_env.game import ConfigError  # noqa: E402

SIDES = ("necromancer", "players")
DEFAULT_OPPONENTS = {"necromancer": "greedy", "players": "heuristic"}


def parse_list(text: str, what: str) -> list[str]:
    """``"a,b,c"`` -> ["a", "b", "c"] (``ConfigError`` if empty or repeated)."""
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise ConfigError(f"--{what} names no policy")
    if len(set(items)) != len(items):
        raise ConfigError(f"--{what}: a spec appears twice in {text!r}")
    return items


def play_row(side: str, players: int, spec: str, opponents: str, games: int, seed: int,
             policy: Any = None) -> dict[str, Any]:
    """One spec on ``games`` seeded games: its side's wins, rate, interval and, for a search spec, decision time.
    ``policy``: the spec's policy if it was built already (``make_policy``)."""
    from necro_env.agents.search import SearchPolicy
    from necro_env.evaluate import evaluate

    if policy is None:
        policy = build_policy(spec, side)
    search = isinstance(policy, SearchPolicy)
    t0 = time.perf_counter()
    if side == "necromancer":
        res = evaluate(players, policy, opponents, games=games, seed=seed)
        n = res["necromancer"]
        wins, (lo, hi) = n["wins"], n["ci95"]
    else:  # the team wins the games the Necromancer loses
        res = evaluate(players, opponents, policy, games=games, seed=seed)
        n = res["necromancer"]
        wins, (lo, hi) = games - n["wins"], (1.0 - n["ci95"][1], 1.0 - n["ci95"][0])
    seconds = time.perf_counter() - t0
    row: dict[str, Any] = {"spec": spec, "search": search, "wins": wins, "games": games,
                           "win_rate": wins / games, "ci95": [lo, hi], "seconds": round(seconds, 1),
                           "seconds_per_game": round(seconds / games, 3)}
    if search:
        row["decisions"] = policy.decisions
        row["decisions_per_game"] = round(policy.decisions / games, 1)
        row["ms_per_decision"] = round(1000.0 * policy.search_seconds / max(1, policy.decisions), 1)
    return row


def build_policy(spec: str, side: str) -> Any:
    """The policy of ``spec`` in ``side``'s role (``make_policy``: search specs included); ``ConfigError`` if bad."""
    from necro_env.agents.registry import make_policy

    return make_policy(spec, "necromancer" if side == "necromancer" else "player")


def run(side: str, players: int, specs: list[str], compare: list[str], opponents: str, games: int, seed: int,
        out: Path | None = None, progress: bool = True) -> dict[str, Any]:
    """Every row of ``compare + specs`` on the same games, resumed from ``out``'s file when it has them."""
    if side not in SIDES:
        raise ConfigError(f"--side must be one of {', '.join(SIDES)}, got {side!r}")
    for name, v, low in (("games", games, 1), ("seed", seed, 0), ("players", players, 3)):
        if not isinstance(v, int) or isinstance(v, bool) or v < low:
            raise ConfigError(f"--{name} must be an int >= {low}, got {v!r}")
    if players > 6:
        raise ConfigError(f"--players must be 3-6 (the scenario's seats), got {players}")
    policies = {spec: build_policy(spec, side) for spec in compare + specs}  # all checked before any game
    path = out / f"search_{side}_{players}p.json" if out is not None else None
    done: dict[str, dict] = {}
    if path is not None and path.exists():
        old = json.loads(path.read_text())
        if (old.get("games"), old.get("seed"), old.get("opponents")) == (games, seed, opponents):
            done = {r["spec"]: r for r in old.get("rows", [])}
    res: dict[str, Any] = {"side": side, "players": players, "opponents": opponents, "games": games, "seed": seed,
                           "rows": []}
    for spec in compare + specs:
        row = done.get(spec)
        if row is None:
            if progress:
                print(f"{spec} ({side}) against {opponents}: {games} games of seed {seed} ...", flush=True)
            row = play_row(side, players, spec, opponents, games, seed, policies[spec])
        res["rows"].append(row)
        _add_differences(res)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(res, indent=1, sort_keys=True) + "\n")
        if progress:
            print("  " + format_row(row), flush=True)
    return res


def _add_differences(res: dict[str, Any]) -> None:
    """Each row's difference from the first row, with Newcombe's interval."""
    from training.demo import difference_interval

    base = res["rows"][0]
    for row in res["rows"][1:]:
        row["vs"] = base["spec"]
        row["difference"] = row["win_rate"] - base["win_rate"]
        row["difference_ci95"] = difference_interval(row, base)


def format_row(row: dict[str, Any]) -> str:
    lo, hi = row["ci95"]
    text = f"{row['spec']:<36} {row['win_rate']:.3f} [{lo:.3f}, {hi:.3f}]"
    if "difference" in row:
        dl, dh = row["difference_ci95"]
        text += f"  {row['difference']:+.3f} [{dl:+.3f}, {dh:+.3f}]"
    else:
        text += " " * 26
    if row["search"]:
        text += f"  {row['decisions_per_game']:>8.1f} {row['ms_per_decision']:>8.1f}"
    else:
        text += " " * 19
    text += f"  {row['seconds_per_game']:>7.2f}"
    return text


def format_table(res: dict[str, Any]) -> str:
    who = "his" if res["side"] == "necromancer" else "the team's"
    head = (f"{res['side']} ({who} win rate against {res['opponents']}; {res['games']} games of seed {res['seed']}, "
            f"{res['players']} seats)\n"
            f"{'spec':<36} {'win rate [95%]':<20}  {'vs ' + res['rows'][0]['spec'] + ' [95%]':<24}"
            f"  {'dec/game':>8} {'ms/dec':>8}  {'s/game':>7}")
    return "\n".join([head] + [format_row(r) for r in res["rows"]])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--side", required=True, choices=SIDES,
                    help="necromancer: each spec plays him; players: each spec plays every player seat")
    ap.add_argument("--players", type=int, default=3, help="seats, the Necromancer included (3-6)")
    ap.add_argument("--specs", required=True, help="search specs, comma-separated (mcts:SIMS, ismcts:SIMS[:opt=v])")
    ap.add_argument("--compare", default=None,
                    help="specs played on the same games first (default: heuristic for the Necromancer, greedy "
                         "for the players); the differences are from the first")
    ap.add_argument("--opponents", default=None, help="the other side (default: greedy players / the heuristic "
                                                      "Necromancer)")
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--out", default=None, help="folder for search_<side>_<players>p.json (resumes from it)")
    ap.add_argument("--json", action="store_true", help="print the rows as one JSON object on the last line")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    try:
        compare = parse_list(args.compare or ("heuristic" if args.side == "necromancer" else "greedy"), "compare")
        specs = parse_list(args.specs, "specs")
        if set(compare) & set(specs):
            raise ConfigError(f"--compare and --specs share {sorted(set(compare) & set(specs))}")
        res = run(args.side, args.players, specs, compare, args.opponents or DEFAULT_OPPONENTS[args.side],
                  args.games, args.seed, Path(args.out) if args.out else None, progress=not args.quiet)
    except ConfigError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(format_table(res))
    if args.json:
        print(json.dumps(res, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
