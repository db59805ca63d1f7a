"""Colours shared by the HTML viewer, the evaluation report and the ``rgb_array`` picture (RGB triples)."""
from __future__ import annotations

#: One colour per terrain, in ``necro_env.game.board.TERRAIN_NAMES`` order.
TERRAIN = (
    (214, 205, 110),  # farmland
    (46, 110, 52),    # forest
    (150, 170, 90),   # hill
    (110, 100, 80),   # swamp
    (140, 140, 140),  # mountain
    (60, 110, 190),   # sea
    (140, 190, 230),  # lake
)
#: Seat colours (players in seat order; the Necromancer has ``NECRO``).
SEATS = ((220, 40, 40), (40, 90, 220), (30, 170, 60), (240, 150, 20), (150, 60, 190), (90, 200, 200))
GHOST = (235, 235, 250)
NECRO = (70, 60, 90)
TRIBE = (130, 85, 40)
WELL = (43, 34, 56)
#: Pieces on regions.
PIECE_COLOURS = {"lair": (90, 60, 30), "fortress": (60, 60, 60), "hole": (0, 0, 0), "hero": (230, 190, 0),
          "dragon": (200, 0, 0), "encampment": (240, 120, 0)}
BACKGROUND = (245, 242, 232)
BORDER = (170, 165, 150)
#: In-decline races are their seat colour darkened by this factor (percent).
DECLINE_PERCENT = 55



def hex_colour(rgb: tuple[int, int, int]) -> str:
    """``#rrggbb`` of an RGB triple."""
    return "#%02x%02x%02x" % tuple(rgb)


def seat_colour(seat: int, necro_seat: int) -> tuple[int, int, int]:
    """The colour of ``seat`` (the Necromancer's own colour for his seat)."""
    return NECRO if seat == necro_seat else SEATS[seat % len(SEATS)]


def declined(rgb: tuple[int, int, int]) -> tuple[int, int, int]:
    """The darker shade an in-decline race is drawn with."""
    return tuple(c * DECLINE_PERCENT // 100 for c in rgb)
