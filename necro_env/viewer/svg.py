"""Inline SVG for the viewer and the report: the static board and simple charts (no plotting library).

The board is drawn once per page; the page's script only changes what is on each region
(badge colour, token count, pieces, tooltips). Element ids and classes used by the script
and the tests: ``#board``, ``g.region#r<id>`` with ``.badge``, ``.tok``, ``.pc-<piece>``,
``.enc``, ``title``; ``#island``, ``#well`` with ``.count``.
"""
from __future__ import annotations

from html import escape
from typing import Sequence

from ..game import Game
from ..game.board import LAKE, SEA, TERRAIN_NAMES
from .layout import load_layout
from .palette import BACKGROUND, BORDER, PIECE_COLOURS, TERRAIN, WELL, hex_colour

SCALE = 500          # pixels per layout unit
RADIUS = 0.052       # region disc
BADGE = 0.031        # occupant disc
SYMBOLS = (("mine", "M", "#c9a227", "mine"), ("magic", "*", "#8e44ad", "magic source"),
           ("cavern", "C", "#34495e", "cavern"))
#: (class, letter, colour, name) of each piece; ``enc`` also shows a count.
PIECE_GLYPHS = tuple((cls, glyph, hex_colour(PIECE_COLOURS[cls]), name) for cls, glyph, name in (
    ("lair", "L", "troll lair"), ("fortress", "F", "fortress"), ("hole", "H", "hole-in-the-ground"),
    ("hero", "h", "hero"), ("dragon", "D", "dragon")))


def _f(v: float) -> str:
    return f"{v * SCALE:.1f}"


def board_svg(game: Game) -> str:
    """The board of ``game`` with every region at its layout point, ready for the script to fill."""
    b = game.board
    lay = load_layout(b.key)
    w, h = lay.width * SCALE, lay.height * SCALE
    out = [f'<svg id="board" viewBox="0 0 {w:.0f} {h:.0f}" xmlns="http://www.w3.org/2000/svg" '
           f'role="img" aria-label="the board">',
           f'<rect width="{w:.0f}" height="{h:.0f}" fill="{hex_colour(BACKGROUND)}"/>']
    for sea, band in lay.coasts.items():
        pts = " ".join(f"{_f(x)},{_f(y)}" for x, y in band)
        out.append(f'<polyline class="sea-band" points="{pts}" fill="none" stroke="{hex_colour(TERRAIN[SEA])}" '
                   f'stroke-width="{_f(0.1)}" stroke-linecap="round" stroke-linejoin="round" opacity="0.55"/>')
    for a, c in b.edges:
        if SEA in (b.terrain[a], b.terrain[c]):
            continue  # a sea touches its coast through its band
        (x0, y0), (x1, y1) = lay.regions[a], lay.regions[c]
        out.append(f'<line x1="{_f(x0)}" y1="{_f(y0)}" x2="{_f(x1)}" y2="{_f(y1)}" '
                   f'stroke="{hex_colour(BORDER)}" stroke-width="1.5"/>')
    for r in range(b.num_regions):
        out.append(_region(game, r, *lay.regions[r]))
    if game.necromancer:
        x, y = lay.regions[b.lake]
        out.append(f'<text class="island-label" x="{_f(x)}" y="{_f(y + RADIUS + 0.03)}" text-anchor="middle" '
                   f'font-size="11" fill="#234">Island</text>')
        wx, wy = lay.well
        out.append(f'<g id="well" transform="translate({_f(wx)},{_f(wy)})"><title>Well of Souls</title>'
                   f'<circle r="{_f(0.034)}" fill="{hex_colour(WELL)}" stroke="#000"/>'
                   f'<text class="count" y="4" text-anchor="middle" font-size="12" fill="#fff">0</text>'
                   f'<text y="{0.034 * SCALE + 11:.1f}" text-anchor="middle" font-size="10" fill="{hex_colour(WELL)}">Well</text></g>')
    out.append("</svg>")
    return "".join(out)


def _region(game: Game, r: int, x: float, y: float) -> str:
    b = game.board
    t = b.terrain[r]
    name = "the Island (Lake)" if game.necromancer and t == LAKE else TERRAIN_NAMES[t]
    symbols = [label for attr, _g, _c, label in SYMBOLS if getattr(b, attr)[r]]
    desc = f"region {r}: {name}" + (f" ({', '.join(symbols)})" if symbols else "")
    rad = RADIUS
    parts = [f'<g class="region" id="r{r}" data-terrain="{TERRAIN_NAMES[t]}" transform="translate({_f(x)},{_f(y)})">',
             f'<title data-base="{escape(desc)}">{escape(desc)}</title>',
             f'<circle class="ring" r="{_f(rad)}" fill="{hex_colour(TERRAIN[t])}" stroke="#333" stroke-width="1.2"/>',
             f'<circle class="badge" r="{_f(BADGE)}" fill="none" stroke="#111" stroke-width="1" visibility="hidden"/>',
             '<text class="tok" y="4.5" text-anchor="middle" font-size="13" font-weight="bold"></text>',
             f'<text class="rid" x="{_f(-rad)}" y="{-rad * SCALE + 4:.1f}" font-size="9" fill="#222">{r}</text>']
    k = 0
    for attr, glyph, colour, label in SYMBOLS:
        if getattr(b, attr)[r]:
            sx = (-0.03 + 0.03 * k) * SCALE
            parts.append(f'<g class="sym sym-{attr}" transform="translate({sx:.1f},{_f(rad - 0.004)})">'
                         f'<title>{label}</title><circle r="6" fill="{colour}"/>'
                         f'<text y="3.5" text-anchor="middle" font-size="9" fill="#fff">{glyph}</text></g>')
            k += 1
    for i, (cls, glyph, colour, label) in enumerate(PIECE_GLYPHS):
        px, py = _f(rad + 0.006), (-0.036 + 0.018 * i) * SCALE
        parts.append(f'<g class="pc pc-{cls}" transform="translate({px},{py:.1f})" visibility="hidden">'
                     f'<title>{label}</title><rect x="-5" y="-5" width="10" height="10" fill="{colour}"/>'
                     f'<text y="3.5" text-anchor="middle" font-size="8" fill="#fff">{glyph}</text></g>')
    parts.append(f'<g class="pc enc" transform="translate({_f(-rad - 0.006)},{_f(0.02)})" visibility="hidden">'
                 f'<title>encampments</title><rect x="-6" y="-5" width="12" height="10" '
                 f'fill="{hex_colour(PIECE_COLOURS["encampment"])}"/>'
                 f'<text class="n" y="3.5" text-anchor="middle" font-size="8" fill="#000"></text></g>')
    parts.append("</g>")
    return "".join(parts)


def line_chart(chart_id: str, title: str, xs: Sequence[int], series: Sequence[tuple[str, str, Sequence[float]]],
               y_label: str = "", hline: tuple[float, str] | None = None, cursor: bool = False,
               width: int = 460, height: int = 220, faint: Sequence[Sequence[float]] = ()) -> str:
    """A line chart over ``xs`` (e.g. rounds): ``series`` = (label, css colour, values; shorter is fine).

    ``hline``: a dashed horizontal line (value, label). ``cursor``: a vertical line the page's script
    moves (its x for ``xs[i]`` is ``data-x0 + i * data-dx``). ``faint``: extra grey lines drawn first.
    """
    values = [v for _l, _c, vals in series for v in vals] + [v for vals in faint for v in vals]
    plot = _Plot(width, height, 34, _nice(max(values + ([hline[0]] if hline else []) + [1])))
    left, top, pw, ph, py = plot.left, plot.top, plot.pw, plot.ph, plot.y
    dx = pw / (max(len(xs), 2) - 1)

    def px(i: int) -> float:
        return left + i * dx

    out = plot.open(chart_id, title, f' data-x0="{left}" data-dx="{dx:.3f}"')
    for i, x in enumerate(xs):
        out.append(f'<text x="{px(i):.1f}" y="{top + ph + 14}" font-size="10" text-anchor="middle">{x}</text>')
    if y_label:
        out.append(f'<text x="{left + pw / 2:.0f}" y="{height - 4}" font-size="10" text-anchor="middle">'
                   f'{escape(y_label)}</text>')
    for vals in faint:
        out.append(_polyline([(px(i), py(v)) for i, v in enumerate(vals)], "#bbb", 1, opacity=0.6))
    if hline:
        out.append(f'<line class="hline" x1="{left}" x2="{left + pw}" y1="{py(hline[0]):.1f}" y2="{py(hline[0]):.1f}" '
                   f'stroke="#a00" stroke-dasharray="5 4"/>'
                   f'<text x="{left + pw}" y="{py(hline[0]) - 4:.1f}" font-size="10" text-anchor="end" fill="#a00">'
                   f'{escape(hline[1])}</text>')
    for label, colour, vals in series:
        pts = [(px(i), py(v)) for i, v in enumerate(vals)]
        out.append(f'<g class="series" data-label="{escape(label)}"><title>{escape(label)}</title>'
                   + _polyline(pts, colour, 2.2)
                   + "".join(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.5" fill="{colour}"/>' for x, y in pts) + "</g>")
    if cursor:
        out.append(f'<line class="cursor" x1="{left}" x2="{left}" y1="{top}" y2="{top + ph}" stroke="#000" '
                   f'stroke-width="1" opacity="0.45"/>')
    legend_x = left + 4
    for label, colour, _vals in series[:8] if len(series) > 1 else ():
        out.append(f'<rect x="{legend_x}" y="{top + 2}" width="9" height="9" fill="{colour}"/>'
                   f'<text x="{legend_x + 12}" y="{top + 10}" font-size="9">{escape(label)}</text>')
        legend_x += 14 + 6 * len(label)
    out.append("</svg>")
    return "".join(out)


def bar_chart(chart_id: str, title: str, bars: Sequence[tuple[str, float, tuple[float, float] | None]],
              width: int = 460, height: int = 220, ymax: float | None = None, colour: str = "#4c72b0") -> str:
    """Vertical bars (label, value, optional (low, high) interval drawn as an error bar)."""
    ymax = ymax or _nice(max([v for _l, v, _i in bars] + [hi for _l, _v, i in bars if i for hi in i[1:]] + [1e-9]))
    plot = _Plot(width, height, 44, ymax)
    left, top, pw, ph, py = plot.left, plot.top, plot.pw, plot.ph, plot.y
    slot = pw / max(len(bars), 1)
    out = plot.open(chart_id, title)
    for i, (label, v, interval) in enumerate(bars):
        x = left + slot * i + slot * 0.2
        bw = slot * 0.6
        tip = f"{label}: {v:.3f}" + (f" [{interval[0]:.3f}, {interval[1]:.3f}]" if interval else "")
        out.append(f'<g class="bar"><title>{escape(tip)}</title><rect x="{x:.1f}" y="{py(v):.1f}" width="{bw:.1f}" '
                   f'height="{max(py(0) - py(v), 0):.1f}" fill="{colour}"/></g>')
        if interval:
            cx = x + bw / 2
            lo, hi = py(interval[0]), py(interval[1])
            out.append(f'<path d="M{cx:.1f},{lo:.1f}V{hi:.1f}M{cx - 6:.1f},{lo:.1f}h12M{cx - 6:.1f},{hi:.1f}h12" '
                       f'stroke="#222" fill="none"/>')
        out.append(f'<text x="{x + bw / 2:.1f}" y="{top + ph + 14}" font-size="10" text-anchor="middle">'
                   f'{escape(label)}</text>')
    out.append("</svg>")
    return "".join(out)


class _Plot:
    """A chart's frame: the plot area, the y scale (0 at the bottom, ``ymax`` at the top), title and grid."""

    left, right, top = 44, 12, 26

    def __init__(self, width: int, height: int, bottom: int, ymax: float) -> None:
        self.width, self.height, self.ymax = width, height, ymax
        self.pw, self.ph = width - self.left - self.right, height - self.top - bottom

    def y(self, v: float) -> float:
        return self.top + self.ph - v / self.ymax * self.ph

    def open(self, chart_id: str, title: str, attrs: str = "") -> list[str]:
        """The opening ``<svg>``, the title and five horizontal grid lines with their values."""
        w, h = self.width, self.height
        out = [f'<svg id="{chart_id}" class="chart" viewBox="0 0 {w} {h}" width="{w}" height="{h}" '
               f'xmlns="http://www.w3.org/2000/svg"{attrs}>',
               f'<text x="{self.left}" y="15" font-size="13" font-weight="bold">{escape(title)}</text>']
        for k in range(5):
            v = self.ymax * k / 4
            out.append(f'<line x1="{self.left}" x2="{self.left + self.pw}" y1="{self.y(v):.1f}" y2="{self.y(v):.1f}" '
                       f'stroke="#ddd"/><text x="{self.left - 5}" y="{self.y(v) + 4:.1f}" font-size="10" '
                       f'text-anchor="end">{_tick(v)}</text>')
        return out


def _polyline(pts: Sequence[tuple[float, float]], colour: str, width: float, opacity: float = 1.0) -> str:
    if not pts:
        return ""
    p = " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)
    return (f'<polyline points="{p}" fill="none" stroke="{colour}" stroke-width="{width}" '
            f'stroke-linejoin="round" opacity="{opacity}"/>')


def _nice(v: float) -> float:
    """A round upper bound >= v (1, 2, 2.5, 5 times a power of ten)."""
    import math

    if v <= 0:
        return 1.0
    e = 10 ** math.floor(math.log10(v))
    for m in (1, 2, 2.5, 5, 10):
        if v <= m * e:
            return m * e
    return 10 * e


def _tick(v: float) -> str:
    return f"{v:.0f}" if abs(v - round(v)) < 1e-9 else f"{v:.2f}".rstrip("0")
