"""Rendering: ``ansi`` text and an ``rgb_array`` picture of the board (numpy only).

The text view is a spectator's view (everything, the Necromancer's reserve included;
``ansi(..., viewer=seat)`` hides what that seat may not know):
turn and phase, every seat (coins, races, powers, hand), the combo column, the
Necromancer (reserve, Island, Well, souls, price) and every region (terrain,
symbols, owner, tokens, pieces).

The picture draws the board as the HTML viewer does (``necro_env.viewer``): every region
at the board's fixed layout point (package data; land in a rectangle, seas as bands along
their coast outside it, the Lake in the middle, the Well of Souls beside it) in the same
colours: one disc per region (ring = terrain colour, fill = owner colour, darker when in
decline, white-ish for Ghosts, brown for Lost Tribes, a pale terrain tint when empty),
lines for land borders, the token count in a tiny built-in 3x5 font, small squares for
pieces, a strip with each seat's colour and coins and a legend of the colours.
No plotting library is imported.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from .game import Game, Phase, State
from .game.board import SEA, TERRAIN_NAMES, Board, load_board
from .game.catalog import GHOST, LOST_TRIBE, OCCUPANT_NAMES, POWERS
from .game.state import DECLINED
from .viewer import palette
from .viewer.layout import load_layout

# ------------------------------------------------------------------------------ text
_SYMBOLS = (("mine", "mine"), ("magic", "magic"), ("cavern", "cavern"))


def _powers(mask: int) -> str:
    names = [POWERS[p].name for p in range(len(POWERS)) if (mask >> p) & 1]
    return "+".join(names) if names else "-"


def ansi(game: Game, st: State, names: list[str] | None = None, viewer: int | None = None,
         hide_necro_reserve: bool = True) -> str:
    """The text view of ``st`` (see the module docstring).

    viewer: a seat to render for instead of a spectator: under the game's ``hide_coins``
    (``GameConfig.hide_coins``) the other seats' coins read ``?``, and with ``hide_necro_reserve`` the Necromancer's drawn and reserve badges
    are hidden from the players (he always sees his own)."""
    b = game.board
    show_coins = viewer is None or not game.config.hide_coins
    show_badges = viewer is None or not hide_necro_reserve or viewer == game.necro_seat
    n = game.num_seats
    names = names or [f"seat {s}" for s in range(n)]
    lines = []
    title = "Necromancer Island" if game.necromancer else "Small World"
    if st.over:
        winners = ", ".join(names[s] for s in st.winners)
        lines.append(f"{title} (board {b.key}p) - game over after round {min(st.round, game.game_turns)}"
                     f"/{game.game_turns}; winner(s): {winners}")
    else:
        lines.append(f"{title} (board {b.key}p) - round {st.round}/{game.game_turns}, "
                     f"turn of {names[st.turn_seat]}, phase {Phase(st.phase).name}, "
                     f"{names[st.decider]} to decide")
    lines.append("Seats:")
    for s in range(n):
        a = st.active[s]
        mark = ">" if (s == st.decider and not st.over) else " "
        coins = f"{st.coins[s]:>3}" if show_coins or s == viewer else "  ?"
        parts = [f"{mark} {names[s]:<14} coins {coins}"]
        if s == game.necro_seat:
            parts.append(f"Ghosts, powers {_powers(st.race_power[GHOST])}, hand {st.hand[GHOST]}")
        elif a >= 0:
            parts.append(f"active {OCCUPANT_NAMES[a]} ({_powers(st.race_power[a])}), hand {st.hand[a]}, "
                         f"tray {st.tray[a]}, {st.regions[a].bit_count()} regions")
        else:
            parts.append("no active race")
        decl = [OCCUPANT_NAMES[x] + (" (Spirit)" if x == st.decl_spirit[s] else "")
                for x in (st.decl[s], st.decl_spirit[s]) if x >= 0]
        if decl:
            parts.append("in decline " + ", ".join(decl))
        if st.pact[s] >= 0:
            parts.append(f"pact: {names[st.pact[s]]} may not attack it")
        lines.append("  ".join(parts))
    lines.append("Combo column:")
    for j in range(len(st.col_race)):
        lines.append(f"  {j}: {OCCUPANT_NAMES[st.col_race[j]]} + {POWERS[st.col_power[j]].name}"
                     f"  (coins on it {st.col_coins[j]})")
    if game.necromancer:
        if show_badges:
            reserve = [POWERS[p].name for p in st.necro_reserve if p >= 0]
            drawn = [POWERS[p].name for p in st.necro_draw]
        else:
            reserve = [f"{sum(1 for p in st.necro_reserve if p >= 0)} hidden"]
            drawn = ["6 hidden"] if st.necro_draw else []
        lines.append(f"Necromancer: Reserve {st.tray[GHOST]} Ghosts, Island {st.island}, "
                     f"Well {sum(st.well)} ({st.well[GHOST]} Ghosts) + {st.souls} souls, "
                     f"in play {game.ghosts_in_play(st)}, next purchase {game.purchase_price(st)} coins")
        lines.append(f"  powers in use {_powers(st.race_power[GHOST])}; reserve powers "
                     f"{', '.join(reserve) if reserve else '-'}"
                     + (f"; drawn {', '.join(drawn)}" if drawn else ""))
    lines.append("Regions:")
    lines.append("   r  terrain   symbols        owner                      tok  pieces")
    for r in range(b.num_regions):
        sym = ",".join(name for attr, name in _SYMBOLS if getattr(b, attr)[r]) or "-"
        terrain = TERRAIN_NAMES[b.terrain[r]]
        if game.necromancer and r == b.lake:
            terrain = "island"
        x = st.occ[r]
        if x < 0:
            owner = "-"
        elif x == LOST_TRIBE:
            owner = "Lost Tribe"
        else:
            o = st.race_owner[x]
            state = " (decline)" if st.race_status[x] == DECLINED else ""
            owner = f"{names[o] if o >= 0 else '?'} {OCCUPANT_NAMES[x]}{state}"
        pieces = [name for name, lst in (("lair", st.lair), ("fortress", st.fort), ("hole", st.hole),
                                         ("hero", st.hero)) if lst[r]]
        if st.encamp[r]:
            pieces.append(f"encampment x{st.encamp[r]}")
        if st.dragon == r:
            pieces.append("dragon")
        if game.necromancer and r == b.lake and st.island:
            pieces.append(f"{st.island} Ghosts on the Island")
        lines.append(f"  {r:>2}  {terrain:<9} {sym:<14} {owner:<26} {st.tok[r]:>3}  {' '.join(pieces)}")
    return "\n".join(lines)


# ------------------------------------------------------------------------------ picture
W = 600
H_BOARD = 464   # the layouts' frame (1.74 x 1.34) at W pixels wide
STRIP = 34      # seat colours and coins
LEGEND = 18     # terrain colours and markers, with their names
H = H_BOARD + STRIP + LEGEND
R_OUT, R_IN = 15, 11

_FONT = {  # 3x5 glyphs, rows top to bottom
    "0": ("111", "101", "101", "101", "111"), "1": ("010", "110", "010", "010", "111"),
    "2": ("111", "001", "111", "100", "111"), "3": ("111", "001", "111", "001", "111"),
    "4": ("101", "101", "111", "001", "001"), "5": ("111", "100", "111", "001", "111"),
    "6": ("111", "100", "111", "101", "111"), "7": ("111", "001", "001", "001", "001"),
    "8": ("111", "101", "111", "101", "111"), "9": ("111", "101", "111", "001", "111"),
    "A": ("010", "101", "111", "101", "101"), "B": ("110", "101", "110", "101", "110"),
    "C": ("011", "100", "100", "100", "011"), "D": ("110", "101", "101", "101", "110"),
    "E": ("111", "100", "110", "100", "111"), "F": ("111", "100", "110", "100", "100"),
    "G": ("011", "100", "101", "101", "011"), "H": ("101", "101", "111", "101", "101"),
    "I": ("111", "010", "010", "010", "111"), "K": ("101", "101", "110", "101", "101"),
    "L": ("100", "100", "100", "100", "111"), "M": ("101", "111", "111", "101", "101"),
    "N": ("110", "101", "101", "101", "101"), "O": ("010", "101", "101", "101", "010"),
    "P": ("110", "101", "110", "100", "100"), "R": ("110", "101", "110", "101", "101"),
    "S": ("011", "100", "010", "001", "110"), "T": ("111", "010", "010", "010", "010"),
    "U": ("101", "101", "101", "101", "111"), "W": ("101", "101", "111", "111", "101"),
    "Y": ("101", "101", "010", "010", "010"),
}
_GLYPH = {d: np.array([[c == "1" for c in row] for row in rows], dtype=bool) for d, rows in _FONT.items()}

# The viewer's colours (necro_env.viewer.palette), as arrays.
TERRAIN_RGB = np.array(palette.TERRAIN, dtype=np.uint8)
SEAT_RGB = np.array(palette.SEATS, dtype=np.uint8)
_PALE = ((TERRAIN_RGB.astype(np.int32) + 255) // 2).astype(np.uint8)  # empty regions: pale terrain
GHOST_RGB = np.array(palette.GHOST, dtype=np.uint8)
NECRO_RGB = np.array(palette.NECRO, dtype=np.uint8)
TRIBE_RGB = np.array(palette.TRIBE, dtype=np.uint8)
BG_RGB = np.array(palette.BACKGROUND, dtype=np.uint8)
EDGE_RGB = np.array(palette.BORDER, dtype=np.uint8)
WELL_RGB = np.array(palette.WELL, dtype=np.uint8)
PIECE_RGB = {"lair": palette.PIECE_COLOURS["lair"], "fort": palette.PIECE_COLOURS["fortress"], "hole": palette.PIECE_COLOURS["hole"],
             "hero": palette.PIECE_COLOURS["hero"], "encamp": palette.PIECE_COLOURS["encampment"], "dragon": palette.PIECE_COLOURS["dragon"]}
_LEGEND = (("FARM", TERRAIN_RGB[0]), ("FOREST", TERRAIN_RGB[1]), ("HILL", TERRAIN_RGB[2]),
           ("SWAMP", TERRAIN_RGB[3]), ("MOUNT", TERRAIN_RGB[4]), ("SEA", TERRAIN_RGB[5]), ("LAKE", TERRAIN_RGB[6]),
           ("GHOST", GHOST_RGB), ("TRIBE", TRIBE_RGB))


def _scale(board_key: int) -> tuple[float, float, float]:
    """Pixels per layout unit and the offsets that centre the board's frame in the W x H_BOARD area."""
    lay = load_layout(board_key)
    k = min(W / lay.width, H_BOARD / lay.height)
    return k, (W - lay.width * k) / 2, (H_BOARD - lay.height * k) / 2


@lru_cache(maxsize=None)
def layout(board_key: int) -> np.ndarray:
    """Region positions in [0, 1]^2 for a board: the viewer's fixed layout (``necro_env.viewer.layout``)."""
    lay = load_layout(board_key)
    return np.array(lay.regions) / np.array([lay.width, lay.height])


def _stamp(points: np.ndarray, radius: int, height: int = H_BOARD) -> tuple[np.ndarray, np.ndarray]:
    """Pixels (ys, xs) of discs of ``radius`` centred on ``points`` (x, y), clipped to the picture."""
    oy, ox = np.mgrid[-radius:radius + 1, -radius:radius + 1]
    keep = ox ** 2 + oy ** 2 <= radius ** 2
    ys = (points[:, 1, None] + oy[keep][None]).ravel()
    xs = (points[:, 0, None] + ox[keep][None]).ravel()
    ok = (ys >= 0) & (ys < height) & (xs >= 0) & (xs < W)
    return ys[ok], xs[ok]


def _line(p0, p1, step: float = 1.0) -> np.ndarray:
    """Integer points along the segment p0-p1."""
    n = int(max(abs(p1[0] - p0[0]), abs(p1[1] - p0[1])) / step) + 1
    t = np.linspace(0.0, 1.0, n)[:, None]
    return np.rint(np.asarray(p0) + (np.asarray(p1) - np.asarray(p0)) * t).astype(np.intp)


@lru_cache(maxsize=None)
def _geometry(board_key: int):
    """Pixel centres, border-line and sea-band pixels, disc/ring offsets and the Well's centre of a board."""
    lay = load_layout(board_key)
    k, dx, dy = _scale(board_key)
    centres = np.rint(np.array(lay.regions) * k + [dx, dy]).astype(np.intp)  # (x, y)
    b = load_board(board_key)
    band = [_line(*(np.array(pts[i:i + 2]) * k + [dx, dy]), step=2.0)
            for pts in lay.coasts.values() for i in range(len(pts) - 1)]
    sea_px = _stamp(np.concatenate(band), int(0.045 * k)) if band else (np.array([], np.intp),) * 2
    lines = [_line(centres[a], centres[c]) for a, c in b.edges if SEA not in (b.terrain[a], b.terrain[c])]
    pts = np.concatenate(lines)
    pts = np.concatenate([pts, pts + [1, 0], pts + [0, 1]])
    ok = (pts[:, 0] >= 0) & (pts[:, 0] < W) & (pts[:, 1] >= 0) & (pts[:, 1] < H_BOARD)
    edge_px = (pts[ok, 1], pts[ok, 0])
    oy, ox = np.mgrid[-R_OUT:R_OUT + 1, -R_OUT:R_OUT + 1]
    d2 = ox ** 2 + oy ** 2
    ring = (oy[d2 <= R_OUT ** 2], ox[d2 <= R_OUT ** 2])
    disc = (oy[d2 <= R_IN ** 2], ox[d2 <= R_IN ** 2])
    well = np.rint(np.array(lay.well) * k + [dx, dy]).astype(np.intp)
    return centres, edge_px, sea_px, ring, disc, well


def _text(img: np.ndarray, s: str, cx: int, cy: int, rgb, scale: int = 2, left: bool = False) -> None:
    """Draw digits and capitals centred at (cx, cy) with the 3x5 font (``left``: starting at cx)."""
    w = len(s) * 4 * scale - scale
    x0 = cx if left else cx - w // 2
    y0 = cy - (5 * scale) // 2
    for i, ch in enumerate(s):
        g = _GLYPH.get(ch)
        if g is None:
            continue
        big = np.kron(g, np.ones((scale, scale), dtype=bool))
        ys, xs = np.nonzero(big)
        ys = ys + y0
        xs = xs + x0 + i * 4 * scale
        ok = (ys >= 0) & (ys < img.shape[0]) & (xs >= 0) & (xs < img.shape[1])
        img[ys[ok], xs[ok]] = rgb


class BoardPainter:
    """Draws ``State``s of one ``Game`` as ``H x W x 3`` uint8 pictures."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.board: Board = game.board
        self.centres, edge_px, sea_px, self.ring, self.disc, self.well = _geometry(self.board.key)
        base = np.empty((H, W, 3), dtype=np.uint8)
        base[:] = BG_RGB
        base[sea_px] = (TERRAIN_RGB[SEA].astype(np.int32) + BG_RGB) // 2
        base[edge_px] = EDGE_RGB
        base[H_BOARD:] = (225, 220, 205)
        x = 6
        for name, rgb in _LEGEND:  # the legend: a swatch and the name of each colour
            base[H - LEGEND + 5:H - 5, x:x + 8] = rgb
            _text(base, name, x + 11, H - LEGEND // 2, (40, 40, 40), scale=1, left=True)
            x += 11 + 4 * len(name) + 10
        self._base = base

    def _owner_rgb(self, st: State, r: int):
        x = st.occ[r]
        b = self.board
        if x < 0:
            return _PALE[b.terrain[r]]
        if x == LOST_TRIBE:
            return TRIBE_RGB
        if x == GHOST:
            return GHOST_RGB
        o = st.race_owner[x]
        rgb = SEAT_RGB[o % len(SEAT_RGB)] if o >= 0 else TRIBE_RGB
        if st.race_status[x] == DECLINED:
            rgb = (rgb.astype(np.int32) * 55 // 100).astype(np.uint8)
        return rgb

    def draw(self, st: State) -> np.ndarray:
        img = self._base.copy()
        b = self.board
        ring_y, ring_x = self.ring
        disc_y, disc_x = self.disc
        for r in range(b.num_regions):
            cx, cy = self.centres[r]
            img[np.clip(ring_y + cy, 0, H_BOARD - 1), np.clip(ring_x + cx, 0, W - 1)] = TERRAIN_RGB[b.terrain[r]]
            fill = self._owner_rgb(st, r)
            img[np.clip(disc_y + cy, 0, H_BOARD - 1), np.clip(disc_x + cx, 0, W - 1)] = fill
            count = st.tok[r]
            if self.game.necromancer and r == b.lake:
                count = st.island
                if count:
                    img[np.clip(disc_y + cy, 0, H_BOARD - 1), np.clip(disc_x + cx, 0, W - 1)] = GHOST_RGB
            if count:
                bright = int(fill[0]) * 3 + int(fill[1]) * 6 + int(fill[2]) if not (
                    self.game.necromancer and r == b.lake) else 2550
                _text(img, str(count), int(cx), int(cy), (0, 0, 0) if bright > 1200 else (255, 255, 255))
            k = 0
            for name, lst in (("lair", st.lair), ("fort", st.fort), ("hole", st.hole), ("hero", st.hero),
                              ("encamp", st.encamp)):
                if lst[r]:
                    self._square(img, cx + R_OUT - 4 - 5 * k, cy + R_OUT - 3, PIECE_RGB[name])
                    k += 1
            if st.dragon == r:
                self._square(img, cx - R_OUT + 1, cy - R_OUT + 1, PIECE_RGB["dragon"])
        if self.game.necromancer:  # the Well of Souls beside the Lake, with its token count
            wx, wy = self.well
            img[np.clip(disc_y + wy, 0, H_BOARD - 1), np.clip(disc_x + wx, 0, W - 1)] = WELL_RGB
            _text(img, str(sum(st.well)), int(wx), int(wy), (255, 255, 255))
        # seat strip: colour swatch + coins
        n = self.game.num_seats
        slot = W // max(n, 1)
        for s in range(n):
            x0 = s * slot + 6
            rgb = NECRO_RGB if s == self.game.necro_seat else SEAT_RGB[s % len(SEAT_RGB)]
            img[H_BOARD + 8:H_BOARD + STRIP - 8, x0:x0 + 16] = rgb
            if s == st.decider and not st.over:
                img[H_BOARD + 4:H_BOARD + 6, x0:x0 + 16] = (0, 0, 0)
            _text(img, str(st.coins[s]), x0 + 40, H_BOARD + STRIP // 2, (20, 20, 20))
        return img

    @staticmethod
    def _square(img: np.ndarray, x: int, y: int, rgb) -> None:
        y0, x0 = max(int(y), 0), max(int(x), 0)
        img[y0:min(y0 + 4, H_BOARD), x0:min(x0 + 4, W)] = rgb


def rgb_array(game: Game, st: State) -> np.ndarray:
    """One-off picture (builds a ``BoardPainter``; the env keeps one)."""
    return BoardPainter(game).draw(st)


__all__ = ["ansi", "BoardPainter", "rgb_array", "layout", "H", "W"]
