"""``necro-env evaluate ... --report OUT.html``: an evaluation summary as one self-contained HTML page.

The page shows the summary table with 95% Wilson intervals, the win-rate chart and the
Necromancer's mean Ghost curve that ``--plots`` draws (here as inline SVG, so the page
needs no plotting library and no network), the win rate of every seat, the Necromancer's
analytics (starting powers, powers bought, purchases per round, Ghost curves with his
victory line) and, when the games were saved (``--save-games DIR``), a table of the games
with a link to each one's viewer: ``DIR/game_<i>.html`` is written next to its record.
"""
from __future__ import annotations

import json
import os
from html import escape
from pathlib import Path
from typing import Any

from ..game import Game, GameConfig
from ..stats import format_interval
from .frames import ghost_total
from .page import asset, write_viewer
from .palette import NECRO, hex_colour
from .svg import bar_chart, line_chart


class Markup(str):
    """Table cell text that is already HTML (a link)."""


def _table(head: list[str], rows: list[list[Any]], table_id: str = "") -> str:
    ident = f' id="{table_id}"' if table_id else ""
    out = [f"<table{ident}><thead><tr>" + "".join(f"<th>{escape(h)}</th>" for h in head) + "</tr></thead><tbody>"]
    for row in rows:
        out.append("<tr>" + "".join(f"<td>{c if isinstance(c, Markup) else escape(str(c))}</td>" for c in row)
                   + "</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _rate(g: dict[str, Any]) -> str:
    return f"{g['win_rate']:.3f}"


def _counts(counts: dict[str, int], games: int) -> list[list[Any]]:
    return [[name, k, f"{100 * k / max(games, 1):.0f}%"] for name, k in counts.items()]


def _necromancer(summary: dict[str, Any], saved: list[dict[str, Any]]) -> str:
    nec = summary["necromancer"]
    c = summary["config"]
    games = summary["games"]
    total = _victory_ghosts(c)
    rounds = list(range(1, len(nec["ghost_curve_mean"]) + 1))
    faint = [row["ghost_curve"] for row in saved if row.get("ghost_curve")]
    curve = line_chart("chart-ghost-curve", "Ghosts in play by round (mean" + (", grey: each game" if faint else "")
                       + ")", rounds, [("mean", hex_colour(NECRO), nec["ghost_curve_mean"])], y_label="round",
                       hline=(total, f"victory: {total}"), faint=faint)
    by_round = nec["purchases"].get("by_round_mean", {"ghosts": [], "powers": []})
    purchases = line_chart("chart-purchases", "Purchases per round (mean over games reaching it)", rounds,
                           [("Ghosts", "#2b6cb0", by_round["ghosts"]), ("powers", "#c05621", by_round["powers"])],
                           y_label="round")
    p = nec["purchases"]
    facts = _table(["", "value"], [
        ["win rate", f"{nec['win_rate']:.3f} {format_interval(*nec['ci95'])} ({nec['wins']}/{nec['games']})"],
        ["mean victory round", f"{nec['mean_victory_round']:.1f}" if nec["mean_victory_round"] else "-"],
        ["mean coins at the end", f"{nec['mean_coins']:.1f}"],
        ["Ghosts in play at the end (mean)", f"{nec['mean_ghosts_in_play_at_end']:.2f} of {total}"],
        ["Ghosts bought a game (mean)", f"{p['ghosts_mean']:.2f}"],
        ["powers bought a game (mean)", f"{p['powers_mean']:.2f}"],
        ["games reaching each round", " ".join(str(a) for a in nec["games_reaching_round"])],
    ], "necro-facts")
    start = _table(["starting power", "games", "share"], _counts(nec["start_powers"], games), "start-powers")
    bought = _table(["power bought", "times", "per game"], _counts(p["powers_bought"], games), "powers-bought")
    return (f'<h2>The Necromancer ({escape(nec["policy"])})</h2>{facts}'
            f'<div class="charts">{curve}{purchases}</div><div class="row">{start}{bought}</div>')


def _victory_ghosts(c: dict[str, Any]) -> int:
    """How many Ghosts in play win the game for the Necromancer under the summary's config."""
    game = Game(GameConfig(players=c["players"], necromancer=True, handicap=c["handicap"]))
    return ghost_total(game, game.new_state(0))


def _saved_games(summary: dict[str, Any], report_dir: Path) -> str:
    saved = summary["saved_games"]
    directory = Path(saved["dir"])
    policies = {label: p["spec"] for label, p in summary["config"]["policies"].items()}
    rows = []
    for row in saved["games"]:
        record_path = directory / row["file"]
        page = record_path.with_suffix(".html")
        seats = ", ".join(f"{s}: {policies.get(label, label)}" for s, label in enumerate(row["seats"]))
        write_viewer(json.loads(record_path.read_text(encoding="utf-8")), page,
                     title=f"Evaluation game {row['index']} ({seats})")
        link = Markup(f'<a href="{escape(os.path.relpath(page, report_dir))}">viewer</a> &middot; '
                      f'<a href="{escape(os.path.relpath(record_path, report_dir))}">record</a>')
        rows.append([row["index"], seats, ", ".join(str(s) for s in row["winners"]), row["rounds"],
                     " ".join(str(c) for c in row["coins"]), link])
    return ("<h2>Games</h2><p>Each game's record is in <code>" + escape(str(directory)) + "</code>; the viewer "
            "replays it step by step.</p>"
            + _table(["game", "seat: policy", "winner seat(s)", "rounds", "coins by seat", "watch"], rows, "games"))


def report_html(summary: dict[str, Any], report_dir: str | Path = ".") -> str:
    """The report page of an ``evaluate`` summary (viewers of saved games are written as a side effect)."""
    c = summary["config"]
    scenario = "Necromancer Island" if c["necromancer"] else "base game"
    title = f"Evaluation: {c['players']} seats, {scenario}, {summary['games']} games"
    policy_rows = [[g["group"], g["role"], g["policy"], g["seats"], g["wins"], _rate(g), format_interval(*g["ci95"]),
                    g["shared"], f"{g['mean_coins']:.1f}"] for g in summary["policies"]]
    nec = summary.get("necromancer")
    if nec and not any(g["group"] == "necromancer" for g in summary["policies"]):
        policy_rows.append(["necromancer", "necromancer", nec["policy"], 1, nec["wins"], _rate(nec),
                            format_interval(*nec["ci95"]), "-", f"{nec['mean_coins']:.1f}"])
    table = _table(["group", "role", "policy", "seats", "wins", "win rate", "95% interval", "shared wins",
                    "mean coins"], policy_rows, "summary")
    bars = [(g["group"], g["win_rate"], tuple(g["ci95"])) for g in summary["policies"]]
    win_chart = bar_chart("chart-win-rates", "Win rate by group (95% Wilson interval)", bars, ymax=1.0)
    seat_rows = [[s["seat"], s["wins"], f"{s['win_rate']:.3f}", format_interval(*s["ci95"])] for s in summary["seats"]]
    seat_chart = bar_chart("chart-seats", "Win rate by seat (95% Wilson interval)",
                           [(str(s["seat"]), s["win_rate"], tuple(s["ci95"])) for s in summary["seats"]], ymax=1.0)
    saved = summary.get("saved_games")
    games_html = _saved_games(summary, Path(report_dir)) if saved else (
        "<p>Run with <code>--save-games DIR</code> to keep every game and link a viewer for each here.</p>")
    necro_html = _necromancer(summary, saved["games"] if saved else []) if nec else ""
    run = summary.get("run") or {}
    setup = ", ".join(f"{label}: {p['spec']} ({p['role']})" for label, p in c["policies"].items())
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title><style>{asset("report.css")}</style></head><body>
<header><h1>{escape(title)}</h1>
<div class="sub">board {c['board']}p, handicap {c['handicap']}, seed {c.get('seed', '?')} &middot; {escape(setup)}
&middot; mean {summary['mean_rounds']:.1f} rounds, {summary['mean_decisions']:.0f} decisions a game
{f"&middot; {run['seconds']:.1f} s with {run['workers']} worker(s)" if run else ""}</div></header>
<main>
<h2>Summary</h2>{table}
<div class="charts">{win_chart}{seat_chart}</div>
<h2>Win rate by seat</h2>{_table(["seat", "wins", "win rate", "95% interval"], seat_rows, "seats")}
{necro_html}
{games_html}
</main></body></html>
"""


def write_report(summary: dict[str, Any], path: str | Path) -> Path:
    """Write the report of ``summary`` to ``path`` (and a viewer next to each saved game); returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(report_html(summary, path.parent), encoding="utf-8")
    return path
