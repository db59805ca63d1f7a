"""Rendering: ``ansi`` text and an ``rgb_array`` picture of the board (numpy only).

The text view is a spectator's view (everything, the Necromancer's reserve included;
``ansi(..., viewer=seat)`` hides what that seat may not know):
turn and phase, every seat (coins, races, powers, hand), the combo column, the
Necromancer (reserve, Island, Well, souls, price) and every region (terrain,
symbols, owner, tokens, pieces).

The picture draws the board graph: one disc per region (ring = terrain colour, fill
= owner colour, darker when in decline, white-ish for Ghosts, brown for Lost
Tribes, a pale terrain tint when empty), lines for borders, the token count in a tiny built-in 3x5 digit font, small
squares for pieces, and a strip at the bottom with each seat's colour and coins.
Node positions come from a deterministic force-directed layout computed once per
board (fixed start, fixed iteration count), so pictures of one board are comparable.
No plotting library is imported.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from .game import Game, Phase, State
from .game.board import TERRAIN_NAMES, Board, load_board
from .game.catalog import GHOST, LOST_TRIBE, OCCUPANT_NAMES, POWERS
from .game.state import DECLINED

# ------------------------------------------------------------------------------ text
_SYMBOLS = (("mine", "mine"), ("magic", "magic"), ("cavern", "cavern"))


def _powers(mask: int) -> str:
    names = [POWERS[p].name for p in range(len(POWERS)) if (mask >> p) & 1]
    return "+".join(names) if names else "-"


def ansi(game: Game, st: State, names: list[str] | None = None, viewer: int | None = None,
         hide_coins: bool = False, hide_necro_reserve: bool = True) -> str:
    """The text view of ``st`` (see the module docstring).

    viewer: a seat to render for instead of a spectator: with ``hide_coins`` the other seats'
    coins read ``?``, and with ``hide_necro_reserve`` the Necromancer's drawn and reserve badges
    are hidden from the players (he always sees his own)."""
    b = game.board
    show_coins = viewer is None or not hide_coins
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
H_BOARD, W = 512, 512
STRIP = 40
H = H_BOARD + STRIP
MARGIN = 26
R_OUT, R_IN = 16, 12

_FONT = {  # 3x5 digits, rows top to bottom
    "0": ("111", "101", "101", "101", "111"), "1": ("010", "110", "010", "010", "111"),
    "2": ("111", "001", "111", "100", "111"), "3": ("111", "001", "111", "001", "111"),
    "4": ("101", "101", "111", "001", "001"), "5": ("111", "100", "111", "001", "111"),
    "6": ("111", "100", "111", "101", "111"), "7": ("111", "001", "001", "001", "001"),
    "8": ("111", "101", "111", "101", "111"), "9": ("111", "101", "111", "001", "111"),
}
_GLYPH = {d: np.array([[c == "1" for c in row] for row in rows], dtype=bool) for d, rows in _FONT.items()}

TERRAIN_RGB = np.array([
    (214, 205, 110),  # farmland
    (46, 110, 52),    # forest
    (150, 170, 90),   # hill
    (110, 100, 80),   # swamp
    (140, 140, 140),  # mountain
    (60, 110, 190),   # sea
    (140, 190, 230),  # lake
], dtype=np.uint8)
SEAT_RGB = np.array([
    (220, 40, 40), (40, 90, 220), (30, 170, 60), (240, 150, 20), (150, 60, 190), (90, 200, 200),
], dtype=np.uint8)
_PALE = ((TERRAIN_RGB.astype(np.int32) + 255) // 2).astype(np.uint8)  # empty regions: pale terrain
GHOST_RGB = np.array((235, 235, 250), dtype=np.uint8)
NECRO_RGB = np.array((70, 60, 90), dtype=np.uint8)
TRIBE_RGB = np.array((130, 85, 40), dtype=np.uint8)
BG_RGB = np.array((245, 242, 232), dtype=np.uint8)
EDGE_RGB = np.array((170, 165, 150), dtype=np.uint8)
PIECE_RGB = {"lair": (90, 60, 30), "fort": (60, 60, 60), "hole": (0, 0, 0), "hero": (230, 190, 0),
             "encamp": (240, 120, 0), "dragon": (200, 0, 0)}


@lru_cache(maxsize=None)
def layout(board_key: int) -> np.ndarray:
    """Deterministic node positions in [0, 1]^2 for a board (Fruchterman-Reingold from a fixed start)."""
    b = load_board(board_key)
    n = b.num_regions
    ang = 2 * np.pi * np.arange(n) / n
    rad = np.where(np.array(b.border), 1.0, 0.45) + 0.05 * ((np.arange(n) * 0.618) % 1.0)
    pos = np.stack([np.cos(ang) * rad, np.sin(ang) * rad], axis=1)
    edges = np.array(b.edges, dtype=np.intp)
    k = 1.0 / np.sqrt(n)
    iters = 400
    for it in range(iters):
        delta = pos[:, None, :] - pos[None, :, :]
        dist = np.sqrt((delta ** 2).sum(-1)) + 1e-9
        np.fill_diagonal(dist, np.inf)
        disp = (delta / dist[..., None] * (k * k / dist)[..., None]).sum(1)
        d = pos[edges[:, 0]] - pos[edges[:, 1]]
        dl = np.sqrt((d ** 2).sum(-1)) + 1e-9
        f = (d / dl[:, None]) * (dl ** 2 / k)[:, None]
        np.add.at(disp, edges[:, 0], -f)
        np.add.at(disp, edges[:, 1], f)
        temp = 0.08 * (1 - it / iters) + 0.002
        length = np.sqrt((disp ** 2).sum(-1)) + 1e-9
        pos = pos + disp / length[:, None] * np.minimum(length, temp)[:, None]
    pos -= pos.min(0)
    pos /= pos.max(0) + 1e-9
    return pos


@lru_cache(maxsize=None)
def _geometry(board_key: int):
    """Pixel centres, edge pixels and disc/ring pixel offsets of a board (static)."""
    pos = layout(board_key)
    span = np.array([W - 2 * MARGIN, H_BOARD - 2 * MARGIN])
    centres = np.rint(MARGIN + pos * span).astype(np.intp)  # (x, y)
    b = load_board(board_key)
    ys, xs = [], []
    for a, c in b.edges:
        (x0, y0), (x1, y1) = centres[a], centres[c]
        steps = int(max(abs(x1 - x0), abs(y1 - y0))) + 1
        t = np.linspace(0.0, 1.0, steps)
        x = np.rint(x0 + (x1 - x0) * t).astype(np.intp)
        y = np.rint(y0 + (y1 - y0) * t).astype(np.intp)
        for dx, dy in ((0, 0), (1, 0), (0, 1)):
            xs.append(np.clip(x + dx, 0, W - 1))
            ys.append(np.clip(y + dy, 0, H_BOARD - 1))
    edge_px = (np.concatenate(ys), np.concatenate(xs))
    oy, ox = np.mgrid[-R_OUT:R_OUT + 1, -R_OUT:R_OUT + 1]
    d2 = ox ** 2 + oy ** 2
    ring = (oy[d2 <= R_OUT ** 2], ox[d2 <= R_OUT ** 2])
    disc = (oy[d2 <= R_IN ** 2], ox[d2 <= R_IN ** 2])
    return centres, edge_px, ring, disc


def _text(img: np.ndarray, s: str, cx: int, cy: int, rgb, scale: int = 2) -> None:
    """Draw digits centred at (cx, cy) with the 3x5 font."""
    w = len(s) * 4 * scale - scale
    x0 = cx - w // 2
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
        self.centres, self.edge_px, self.ring, self.disc = _geometry(self.board.key)
        base = np.empty((H, W, 3), dtype=np.uint8)
        base[:] = BG_RGB
        base[self.edge_px] = EDGE_RGB
        base[H_BOARD:] = (225, 220, 205)
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
