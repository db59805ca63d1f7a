"""Fixed drawing positions of each board's regions (package data ``layouts.json``).

``load_layout(key)`` returns a :class:`BoardLayout` for board ``key`` (2..5). The points
were laid out once by ``tools/board_layouts.py`` so the picture resembles the printed
board: land in a rectangle, the seas as bands along their coast outside it, the Lake near
the middle and the Well of Souls in a free spot beside it. Coordinates are in a
``width x height`` frame (y grows downwards); every consumer scales them to its pixels.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from ..game.board import load_board
from ..game.errors import BoardDataError

LAYOUT_FORMAT = "necro_env/board_layouts"
LAYOUT_VERSION = 1

Point = tuple[float, float]


@dataclass(frozen=True)
class BoardLayout:
    """Where to draw one board: a point per region, a band per sea, the Well's spot."""

    key: int
    width: float
    height: float
    regions: tuple[Point, ...]       # indexed by region id
    coasts: dict[int, tuple[Point, ...]]  # sea region -> polyline of its band
    well: Point


def _point(v, where: str) -> Point:
    if not (isinstance(v, list) and len(v) == 2 and all(isinstance(c, (int, float)) and not isinstance(c, bool)
                                                         for c in v)):
        raise BoardDataError(f"layouts.json {where}: expected [x, y], got {v!r}")
    return float(v[0]), float(v[1])


def parse_layout(raw: dict, key: int) -> BoardLayout:
    """Check one board's entry of layouts.json against the board; ``BoardDataError`` naming the problem."""
    b = load_board(key)
    where = f"board {key}"
    if not isinstance(raw, dict) or set(raw) != {"width", "height", "regions", "coasts", "well"}:
        raise BoardDataError(f"layouts.json {where}: expected keys width, height, regions, coasts, well")
    width, height = _point([raw["width"], raw["height"]], f"{where} size")
    regions = raw["regions"]
    if not isinstance(regions, list) or len(regions) != b.num_regions:
        raise BoardDataError(f"layouts.json {where}: {b.num_regions} region points expected, "
                             f"got {len(regions) if isinstance(regions, list) else regions!r}")
    pts = tuple(_point(v, f"{where} region {r}") for r, v in enumerate(regions))
    for r, (x, y) in enumerate(pts + (_point(raw["well"], f"{where} well"),)):
        if not (0 <= x <= width and 0 <= y <= height):
            raise BoardDataError(f"layouts.json {where}: point {r} ({x}, {y}) is outside the {width} x {height} frame")
    coasts = raw["coasts"]
    if not isinstance(coasts, dict) or sorted(coasts) != sorted(str(s) for s in b.seas):
        raise BoardDataError(f"layouts.json {where}: coasts must be given for the seas {list(b.seas)}")
    bands = {int(s): tuple(_point(v, f"{where} coast {s}") for v in line) for s, line in coasts.items()}
    return BoardLayout(key, width, height, pts, bands, _point(raw["well"], f"{where} well"))


@lru_cache(maxsize=None)
def load_layout(key: int) -> BoardLayout:
    """The checked layout of board ``key`` (cached)."""
    text = resources.files(__package__).joinpath("layouts.json").read_text(encoding="utf-8")
    data = json.loads(text)
    if not isinstance(data, dict) or data.get("format") != LAYOUT_FORMAT or data.get("version") != LAYOUT_VERSION:
        raise BoardDataError(f"layouts.json is not a {LAYOUT_FORMAT} version {LAYOUT_VERSION} file")
    boards = data.get("boards")
    if not isinstance(boards, dict) or str(key) not in boards:
        load_board(key)  # ConfigError for a key that is no board
        raise BoardDataError(f"layouts.json has no layout for board {key}")
    return parse_layout(boards[str(key)], key)
