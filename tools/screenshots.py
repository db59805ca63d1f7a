"""Make the README's pictures with the browser-test tooling: ``docs/viewer.png`` and ``docs/report.png``.

    python tools/screenshots.py [--out docs]

The viewer shows a 5-seat game (greedy players against the heuristic Necromancer) in its
fifth round; the report is a 40-game evaluation of the same set-up with the games saved.
Needs headless Chromium (see ``necro_env.viewer.browser``).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from necro_env.agents.registry import make_policy  # noqa: E402
from necro_env.evaluate import evaluate, game_seeds, play_game  # noqa: E402
from necro_env.game import Game, GameConfig  # noqa: E402
from necro_env.saved_games import game_record  # noqa: E402
from necro_env.viewer import write_viewer  # noqa: E402
from necro_env.viewer.browser import headless_chromium  # noqa: E402
from necro_env.viewer.report import write_report  # noqa: E402


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=str(ROOT / "docs"), help="folder for viewer.png and report.png (default docs/)")
    args = p.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="necro_env_screens_"))
    cfg = GameConfig(players=5)
    policies = [make_policy("greedy", "player")] * 4 + [make_policy("heuristic", "necromancer")]
    engine_seed, rngs = game_seeds(1, 0, 5)
    rec = play_game(Game(cfg), policies, engine_seed, rngs, keep_actions=True)
    viewer = write_viewer(game_record(cfg, engine_seed, rec["actions"], rec["result"]), work / "game.html")
    summary = evaluate(5, "heuristic", "greedy", games=40, seed=0, save_games=str(work / "games"))
    report = write_report(summary, work / "report.html")
    with headless_chromium(width=1400, height=1150) as driver:
        driver.get(viewer.as_uri())
        driver.execute_script(  # the middle of a turn in round 5 where a conquest is highlighted
            "const v = window.necroViewer; for (let k = 1; k <= v.steps; k++) { v.show(k);"
            " if (document.querySelector('#status').textContent.startsWith('Round 5') &&"
            " document.querySelector('g.region.lc')) break; }")
        driver.save_screenshot(str(out / "viewer.png"))
        driver.set_window_size(1150, 1900)
        driver.get(report.as_uri())
        driver.save_screenshot(str(out / "report.png"))
    for name in ("viewer.png", "report.png"):
        print(f"wrote {out / name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
