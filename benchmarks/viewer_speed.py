"""Viewer speed and size: build the HTML page of long games, open it in headless Chromium, step through it.

For each game (a 6-seat game over 10 rounds, the issue's yardstick, and a 4-seat game over
its board's 10 rounds; greedy players against the random Necromancer, so the games run their
full length) it reports:

* build: seconds to replay the record and write the page (``viewer_html``; median of ``--repeats``),
* size: the page in bytes (target < 2 MB),
* open: milliseconds from the start of navigation until the page's script has shown step 0
  (the page's own clock; median over ``--repeats`` fresh loads; target < 2 s),
* step: mean milliseconds to show one step, stepping through the whole game in the page.

    python benchmarks/viewer_speed.py [--repeats 3] [--json]

Needs Chromium, chromedriver and selenium (see ``necro_env.viewer.browser``); without them it
still reports build and size and says why the browser figures are missing.
"""
from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from necro_env.agents.registry import make_policy
from necro_env.evaluate import game_seeds, play_game
from necro_env.game import Game, GameConfig
from necro_env.saved_games import game_record
from necro_env.viewer import viewer_html
from necro_env.viewer.browser import BrowserUnavailable, headless_chromium

TARGET_BYTES = 2_000_000
TARGET_OPEN_MS = 2000.0
GAMES = (("6 seats, 10 rounds", 6, 10), ("4 seats", 4, None))


def long_game(players: int, game_turns: int | None, seed: int = 0) -> dict:
    """A record of greedy players against the random Necromancer (they hold him off: full-length games)."""
    cfg = GameConfig(players=players, game_turns=game_turns)
    policies = [make_policy("greedy", "player")] * (players - 1) + [make_policy("random", "necromancer")]
    engine_seed, rngs = game_seeds(seed, 0, players)
    rec = play_game(Game(cfg), policies, engine_seed, rngs, keep_actions=True)
    return game_record(cfg, engine_seed, rec["actions"], rec["result"])


def measure(repeats: int) -> tuple[list[dict], str | None]:
    rows = []
    pages = []
    folder = Path(tempfile.mkdtemp(prefix="necro_env_viewer_bench_"))
    for name, players, turns in GAMES:
        record = long_game(players, turns)
        builds = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            html = viewer_html(record)
            builds.append(time.perf_counter() - t0)
        path = folder / f"{players}.html"
        path.write_text(html, encoding="utf-8")
        pages.append(path)
        rows.append({"game": name, "actions": len(record["actions"]), "rounds": record["result"]["rounds_played"],
                     "build_s": statistics.median(builds), "bytes": path.stat().st_size})
    try:
        with headless_chromium() as driver:
            for row, path in zip(rows, pages):
                opens = []
                for _ in range(repeats):
                    driver.get(path.as_uri())
                    opens.append(driver.execute_script("return window.necroViewer.readyMs"))
                row["open_ms"] = statistics.median(opens)
                row["step_ms"] = driver.execute_script(
                    "const v = window.necroViewer, t0 = performance.now();"
                    "for (let k = 0; k <= v.steps; k++) v.show(k);"
                    "return (performance.now() - t0) / (v.steps + 1);")
    except BrowserUnavailable as e:
        return rows, str(e)
    return rows, None


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=3, help="builds and page loads per game (median; default 3)")
    p.add_argument("--json", action="store_true", help="also print the results as one JSON object (last line)")
    args = p.parse_args(argv)
    rows, missing = measure(max(1, args.repeats))
    print(f"{'game':<20}{'actions':>8}{'rounds':>7}{'build s':>9}{'bytes':>11}{'open ms':>9}{'step ms':>9}")
    for r in rows:
        print(f"{r['game']:<20}{r['actions']:>8}{r['rounds']:>7}{r['build_s']:>9.2f}{r['bytes']:>11,}"
              + (f"{r['open_ms']:>9.0f}{r['step_ms']:>9.2f}" if "open_ms" in r else f"{'-':>9}{'-':>9}"))
    if missing:
        print(f"no browser figures: {missing}")
    ok = all(r["bytes"] < TARGET_BYTES and r.get("open_ms", 0) < TARGET_OPEN_MS for r in rows) and not missing
    print(f"targets (< {TARGET_BYTES / 1e6:.0f} MB, open < {TARGET_OPEN_MS / 1000:.0f} s): "
          + ("met" if ok else "NOT met" if not missing else "unknown (no browser)"))
    if args.json:
        print(json.dumps({"rows": rows, "browser_missing": missing, "target_met": ok}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
