"""``necro-env replay FILE --html OUT.html``: one self-contained HTML page to watch a recorded game.

The page holds everything inline (CSS, the script, the board as SVG, the game as compact
JSON): it opens from disk in any browser, without a network. The views of every step are
computed here by replaying the record through the engine (``frames.game_frames``); the
script only shows them. What the page shows and its controls are listed in ``viewer.js``.
"""
from __future__ import annotations

import json
from html import escape
from importlib import resources
from pathlib import Path

from ..game.board import TERRAIN_NAMES
from ..game.catalog import OCCUPANT_NAMES, POWERS
from ..game.state import Phase
from .frames import PIECES, GameFrames, deltas, game_frames
from .palette import GHOST, NECRO, PIECE_COLOURS, TERRAIN, TRIBE, declined, hex_colour, seat_colour
from .svg import PIECE_GLYPHS, SYMBOLS, board_svg, line_chart


def asset(name: str) -> str:
    """The text of a file shipped next to this module (``viewer.js``, ``viewer.css``, ...)."""
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def script_json(obj) -> str:
    """Compact JSON that is safe inside a ``<script>`` element."""
    return json.dumps(obj, separators=(",", ":")).replace("</", "<\\/")


def page_data(frames: GameFrames) -> dict:
    """The JSON the page's script reads (see ``viewer.js``)."""
    game = frames.game
    n = game.num_seats
    colours = [seat_colour(s, game.necro_seat) for s in range(n)]
    return {
        "names": frames.names,
        "necroSeat": game.necro_seat,
        "lake": game.board.lake,
        "turns": game.game_turns,
        "seat": [hex_colour(c) for c in colours],
        "seatDeclined": [hex_colour(declined(c)) for c in colours],
        "ghost": hex_colour(GHOST),
        "tribe": hex_colour(TRIBE),
        "occNames": list(OCCUPANT_NAMES),
        "powerNames": [p.name for p in POWERS],
        "phaseNames": [p.name for p in Phase],
        "pieces": list(PIECES),
        "first": frames.views[0],
        "deltas": deltas(frames.views),
        "steps": [[s["seat"], s["round"], s["text"]] for s in frames.steps],
        "turnStarts": frames.turn_starts,
        "roundStarts": frames.round_starts,
        "ghostTotal": frames.ghost_total,
    }


def _legend(frames: GameFrames) -> str:
    game = frames.game
    items = []
    for t, name in enumerate(TERRAIN_NAMES):
        if name == "lake" and game.necromancer:
            name = "lake (the Island)"
        items.append(f'<span class="key"><i style="background:{hex_colour(TERRAIN[t])}"></i>{name}</span>')
    terrain = "".join(items)
    seats = "".join(f'<span class="key"><i style="background:{hex_colour(seat_colour(s, game.necro_seat))}"></i>'
                    f'{escape(name)}</span>' for s, name in enumerate(frames.names))
    others = (f'<span class="key"><i class="round" style="background:{hex_colour(GHOST)}"></i>Ghosts</span>'
              f'<span class="key"><i class="round" style="background:{hex_colour(TRIBE)}"></i>Lost Tribe</span>'
              '<span class="key"><i class="round dim"></i>darker = in decline</span>'
              '<span class="key"><i class="round lc"></i>last conquest</span>')
    marks = "".join(f'<span class="key"><b class="glyph" style="background:{c};border-radius:50%">{escape(g)}</b>'
                    f'{label}</span>' for _a, g, c, label in SYMBOLS)
    marks += "".join(f'<span class="key"><b class="glyph" style="background:{c}">{escape(g)}</b>{label}</span>'
                     for _cls, g, c, label in PIECE_GLYPHS)
    marks += (f'<span class="key"><b class="glyph" style="background:{hex_colour(PIECE_COLOURS["encampment"])};color:#000">'
              'n</b>encampments</span>')
    return (f'<div id="legend"><div>{terrain}</div><div>{seats}{others}</div><div>{marks}</div>'
            '<div class="hint">Hover a region for its occupant. Keys: &larr;/&rarr; action, '
            'Shift+&larr;/&rarr; or &uarr;/&darr; turn, PgUp/PgDn round, Home/End, Space play/pause.</div></div>')


def _seat_panels(frames: GameFrames) -> str:
    game = frames.game
    out = []
    for s, name in enumerate(frames.names):
        colour = hex_colour(seat_colour(s, game.necro_seat))
        head = (f'<div class="seat-head"><i style="background:{colour}"></i><span class="name">{escape(name)}</span>'
                f'<span class="mark"></span></div><div>coins <b class="coins"></b></div>')
        if s == game.necro_seat:
            body = ('<div>powers in use: <span class="powers" id="necro-powers"></span></div>'
                    '<div>Reserve <b id="necro-reserve"></b> Ghosts &middot; Island <b id="necro-island"></b>'
                    ' &middot; Well <b id="necro-well"></b> (<span id="necro-well-ghosts"></span> Ghosts, '
                    '<span id="necro-souls"></span> souls)</div>'
                    '<div>Ghosts in play <b id="necro-gip"></b> / <span id="necro-total"></span> to win'
                    ' &middot; next purchase <b id="necro-price"></b> coins</div>'
                    '<div>reserve powers: <span id="necro-reserve-powers"></span></div>'
                    '<div class="draw">drawn: <span id="necro-draw"></span></div>')
            out.append(f'<div class="seat necro" id="seat-{s}" style="border-color:{colour}">{head}{body}</div>')
        else:
            body = ('<div class="active">active: <span class="race"></span> <span class="powers"></span>'
                    ' &middot; <span class="hand"></span> in hand</div>'
                    '<div class="decline">in decline: <span class="declined"></span></div>'
                    '<div class="pact"></div>')
            out.append(f'<div class="seat" id="seat-{s}" style="border-color:{colour}">{head}{body}</div>')
    return "".join(out)


def viewer_html(record: dict, title: str | None = None) -> str:
    """The viewer page of ``record`` as a string; ``StateError`` if the record does not replay."""
    frames = game_frames(record)
    game = frames.game
    cfg = game.config
    scenario = "Necromancer Island" if game.necromancer else "Small World, base game"
    res = game.result(frames.final)
    if res["over"]:
        outcome = "won by " + ", ".join(frames.names[s] for s in res["winners"])
        outcome += f" after {res['rounds_played']} rounds"
    else:
        outcome = "unfinished"
    heading = title or f"{scenario}, {cfg.players} seats, seed {frames.seed}"
    rounds = list(range(1, game.game_turns + 1))
    coins = line_chart("chart-coins", "Coins per seat (end of round)", rounds,
                       [(name, hex_colour(seat_colour(s, game.necro_seat)), frames.coins_by_round[s])
                        for s, name in enumerate(frames.names)], y_label="round", cursor=True)
    charts = [coins]
    if game.necromancer:
        charts.append(line_chart("chart-ghosts", "Ghosts in play (end of round)", rounds,
                                 [("Ghosts in play", hex_colour(NECRO), frames.ghost_curve)],
                                 y_label="round", hline=(frames.ghost_total, f"victory: {frames.ghost_total}"),
                                 cursor=True))
    n_actions = len(frames.steps)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(heading)}</title>
<style>{asset("viewer.css")}</style>
</head><body>
<header><h1>{escape(heading)}</h1>
<div class="sub">board {game.board.key}p, {game.game_turns} rounds, {n_actions} actions &middot; {escape(outcome)}</div></header>
<main>
<section id="board-col">{board_svg(game)}{_legend(frames)}</section>
<section id="side">
<div id="status"></div>
<div id="seats">{_seat_panels(frames)}</div>
<div id="column-box"><h2>Combo column</h2><ol id="column" start="0"></ol></div>
</section>
</main>
<section id="timeline">
<div class="buttons">
<button id="first" title="start (Home)">|&lsaquo;</button>
<button id="prev-round" title="previous round (PgUp)">&laquo; round</button>
<button id="prev-turn" title="previous turn (Shift+&larr;)">&lsaquo; turn</button>
<button id="prev" title="previous action (&larr;)">&lsaquo; action</button>
<button id="play" title="play / pause (Space)">play</button>
<button id="next" title="next action (&rarr;)">action &rsaquo;</button>
<button id="next-turn" title="next turn (Shift+&rarr;)">turn &rsaquo;</button>
<button id="next-round" title="next round (PgDn)">round &raquo;</button>
<button id="last" title="end (End)">&rsaquo;|</button>
<label>speed <select id="speed"><option value="2">2/s</option><option value="5" selected>5/s</option>
<option value="15">15/s</option><option value="50">50/s</option></select></label>
<span id="stepno"></span>
</div>
<input type="range" id="slider" min="0" max="{n_actions}" value="0" aria-label="action">
<div id="action"></div>
</section>
<section id="charts">{"".join(charts)}</section>
<script id="game-data" type="application/json">{script_json(page_data(frames))}</script>
<script>{asset("viewer.js")}</script>
</body></html>
"""


def write_viewer(record: dict, path: str | Path, title: str | None = None) -> Path:
    """Write the viewer page of ``record`` to ``path`` (folders created); returns the path."""
    path = Path(path)
    text = viewer_html(record, title)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
