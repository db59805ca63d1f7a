"""The four official Small World boards, loaded from package data and validated at load.

Region ids are the ids of ``data/maps.json`` (RULES.md §3.3). A :class:`Board` is immutable
and holds every static table the engine needs: per-region tuples and Python-int bitsets
(bit ``r`` set = region ``r``), so set algebra on regions is a couple of integer operations.

``load_board(key)`` returns the board for ``key`` = 2..5 players (the Necromancer Island
scenario with N seats uses board ``N - 1``; choosing the key is the caller's business).
Validation re-derives everything that can be derived (adjacency from the edge list,
coastal and first-conquest flags, the lake's neighbours) and compares the totals with the
table in RULES.md §3.1, so a bad edit of maps.json fails loudly with a
:class:`BoardDataError` naming the board, the region and the problem.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any, NamedTuple

from .errors import BoardDataError, ConfigError

FARMLAND, FOREST, HILL, SWAMP, MOUNTAIN, SEA, LAKE = range(7)
TERRAIN_NAMES = ("farmland", "forest", "hill", "swamp", "mountain", "sea", "lake")
_TERRAIN_CODE = {name: code for code, name in enumerate(TERRAIN_NAMES)}
_WATER = (SEA, LAKE)

#: Largest board (5 players); observation buffers are sized for it.
MAX_REGIONS = 48

#: Spellings of the region symbols in maps.json.
FEATURE_NAMES = ("mine", "magic_source", "cavern")

BOARD_KEYS = (2, 3, 4, 5)


class BoardTotals(NamedTuple):
    """Board-level totals every board must match (RULES.md §1.4, §3.1, §3.3 headings)."""

    num_regions: int
    num_edges: int  # borders between regions (undirected)
    game_turns: int
    farmland: int
    forest: int
    hill: int
    swamp: int
    mountain: int
    seas: int
    lakes: int
    mine: int
    magic: int
    cavern: int
    lost_tribes: int
    border_regions: int  # regions touching the board edge, seas included
    first_conquest: int  # land regions legal for a First Conquest


#: RULES.md §3.1 "Board-level totals (after corrections)", with the game-turn track of §1.4
#: and the border counts of the §3.3 headings.
BOARD_TOTALS: dict[int, BoardTotals] = {
    2: BoardTotals(23, 51, 10, 4, 4, 4, 4, 4, 2, 1, 4, 4, 4, 9, 15, 14),
    3: BoardTotals(30, 71, 10, 5, 5, 5, 5, 7, 2, 1, 5, 5, 5, 10, 16, 16),
    4: BoardTotals(39, 95, 9, 7, 7, 7, 7, 8, 2, 1, 7, 7, 7, 14, 18, 21),
    5: BoardTotals(48, 119, 8, 9, 9, 9, 9, 9, 2, 1, 9, 9, 9, 18, 21, 25),
}


@dataclass(frozen=True)
class Board:
    """One validated board. Tuples are indexed by region id; ``*_mask`` fields are bitsets."""

    key: int  # 2..5: the board's player count
    game_turns: int
    num_regions: int
    lake: int
    lake_neighbors: tuple[int, ...]
    seas: tuple[int, ...]
    terrain: tuple[int, ...]  # per region, one of FARMLAND..LAKE
    mine: tuple[bool, ...]
    magic: tuple[bool, ...]
    cavern: tuple[bool, ...]
    lost_tribe: tuple[bool, ...]
    border: tuple[bool, ...]  # touches the outer edge of the board (seas do, the lake never)
    coastal: tuple[bool, ...]  # land region next to a sea or the lake (RULES.md §1.9)
    first_conquest_ok: tuple[bool, ...]  # RULES.md §1.6 First Conquest rule
    neighbors: tuple[tuple[int, ...], ...]  # sorted
    nbr_mask: tuple[int, ...]  # per region: bitset of its neighbours
    all_mask: int
    land_mask: int
    water_mask: int  # seas + lake
    sea_mask: int
    lake_mask: int
    first_conquest_mask: int
    cavern_mask: int
    mountain_mask: int
    lake_nbr_mask: int
    coastal_mask: int
    hill_mask: int
    farmland_mask: int
    forest_mask: int
    swamp_mask: int
    mine_mask: int
    magic_mask: int
    edges: tuple[tuple[int, int], ...]  # undirected, a < b, sorted


def load_maps_json() -> dict:
    """Return the raw content of the packaged ``maps.json`` (a fresh dict on every call)."""
    text = resources.files(__package__).joinpath("data", "maps.json").read_text(encoding="utf-8")
    return json.loads(text)


def _mask(regions: Any) -> int:
    m = 0
    for r in regions:
        m |= 1 << r
    return m


def _fail(key: int, problem: str, region: int | None = None) -> BoardDataError:
    where = f"board {key}p" if region is None else f"board {key}p, region {region}"
    return BoardDataError(f"{where}: {problem}")


def _field(d: Any, name: str, kind: type | tuple[type, ...], key: int, region: int | None = None) -> Any:
    if not isinstance(d, dict) or name not in d:
        raise _fail(key, f"missing field {name!r}", region)
    value = d[name]
    # bool is an int subclass: never accept it where a number is expected.
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise _fail(key, f"field {name!r} has type {type(value).__name__}", region)
    return value


def _int_list(d: Any, name: str, key: int, region: int | None = None) -> list[int]:
    value = _field(d, name, list, key, region)
    if not all(isinstance(x, int) and not isinstance(x, bool) for x in value):
        raise _fail(key, f"field {name!r} must be a list of integers, got {value!r}", region)
    return value


def validate_board_data(raw_board: dict, key: int) -> None:
    """Check one board of maps.json (``maps[str(key)]``) against RULES.md §1.4, §1.6, §1.9, §3.

    Raises :class:`BoardDataError` naming the board, the region and the problem.
    """
    if key not in BOARD_TOTALS:
        raise ConfigError(f"board key must be one of {BOARD_KEYS}, got {key!r}")
    want = BOARD_TOTALS[key]
    if not isinstance(raw_board, dict):
        raise _fail(key, f"board data must be an object, got {type(raw_board).__name__}")

    players = _field(raw_board, "players", int, key)
    if players != key:
        raise _fail(key, f"'players' is {players}, expected {key}")
    turns = _field(raw_board, "game_turns", int, key)
    if turns != want.game_turns:
        raise _fail(key, f"game_turns is {turns}, expected {want.game_turns} (RULES.md §1.4)")
    n = _field(raw_board, "num_regions", int, key)
    if n != want.num_regions:
        raise _fail(key, f"num_regions is {n}, expected {want.num_regions} (RULES.md §3.1)")
    if n > MAX_REGIONS:
        raise _fail(key, f"num_regions {n} exceeds MAX_REGIONS={MAX_REGIONS}")
    regions = _field(raw_board, "regions", list, key)
    if len(regions) != n:
        raise _fail(key, f"{len(regions)} region entries but num_regions is {n}")

    # --- per-region fields -------------------------------------------------------------
    terrain: list[int] = []
    features: list[set[str]] = []
    lost_tribe: list[bool] = []
    border: list[bool] = []
    neighbors: list[list[int]] = []
    for i, reg in enumerate(regions):
        rid = _field(reg, "id", int, key, i)
        if rid != i:
            raise _fail(key, f"entry {i} has id {rid}; ids must be 0..{n - 1} in order", i)
        t = _field(reg, "terrain", str, key, i)
        if t not in _TERRAIN_CODE:
            raise _fail(key, f"unknown terrain {t!r}", i)
        terrain.append(_TERRAIN_CODE[t])
        feats = _field(reg, "features", list, key, i)
        unknown = [f for f in feats if f not in FEATURE_NAMES]
        if unknown:
            raise _fail(key, f"unknown features {unknown!r}", i)
        if len(set(feats)) != len(feats):
            raise _fail(key, f"duplicate features {feats!r}", i)
        features.append(set(feats))
        lost_tribe.append(_field(reg, "lost_tribe", bool, key, i))
        border.append(_field(reg, "border", bool, key, i))
        _field(reg, "coastal", bool, key, i)
        _field(reg, "first_conquest_ok", bool, key, i)
        nb = _int_list(reg, "neighbors", key, i)
        for j in nb:
            if not 0 <= j < n:
                raise _fail(key, f"neighbour {j} is not a region id (0..{n - 1})", i)
        if i in nb:
            raise _fail(key, "lists itself as a neighbour (loop)", i)
        if nb != sorted(set(nb)):
            raise _fail(key, f"neighbours {nb} are not sorted and distinct", i)
        neighbors.append(nb)
        if terrain[i] in _WATER and (feats or lost_tribe[i]):
            raise _fail(key, f"{t} region carries symbols or a Lost Tribe", i)

    # --- adjacency: symmetric, equal to the edge list ----------------------------------
    for i, nb in enumerate(neighbors):
        for j in nb:
            if i not in neighbors[j]:
                raise _fail(key, f"adjacency not symmetric: {i} lists {j} but {j} does not list {i}", i)
    raw_edges = _field(raw_board, "adjacency", list, key)
    edge_set: set[tuple[int, int]] = set()
    for e in raw_edges:
        if not (isinstance(e, list) and len(e) == 2 and all(isinstance(x, int) and not isinstance(x, bool) for x in e)):
            raise _fail(key, f"adjacency entry {e!r} is not a pair of region ids")
        a, b = e
        if not (0 <= a < b < n):
            raise _fail(key, f"adjacency entry {e!r} must satisfy 0 <= a < b < {n}")
        if (a, b) in edge_set:
            raise _fail(key, f"adjacency entry {e!r} is listed twice")
        edge_set.add((a, b))
    nbr_edges = {(i, j) for i, nb in enumerate(neighbors) for j in nb if i < j}
    if nbr_edges != edge_set:
        only_nb = sorted(nbr_edges - edge_set)
        only_list = sorted(edge_set - nbr_edges)
        raise _fail(
            key,
            f"'adjacency' disagrees with the regions' neighbour lists: only in neighbours {only_nb}, "
            f"only in 'adjacency' {only_list}",
        )

    # --- connectivity ------------------------------------------------------------------
    seen = {0}
    queue = deque([0])
    while queue:
        r = queue.popleft()
        for j in neighbors[r]:
            if j not in seen:
                seen.add(j)
                queue.append(j)
    if len(seen) != n:
        missing = sorted(set(range(n)) - seen)
        raise _fail(key, f"region graph is not connected: {missing} unreachable from region 0", missing[0])

    # --- lake and seas -----------------------------------------------------------------
    lakes = [i for i in range(n) if terrain[i] == LAKE]
    lake = _field(raw_board, "lake", int, key)
    if len(lakes) != 1:
        raise _fail(key, f"expected exactly one lake region, found {lakes}")
    if lakes[0] != lake:
        raise _fail(key, f"'lake' is {lake} but the lake region is {lakes[0]}", lake if 0 <= lake < n else None)
    if border[lake]:
        raise _fail(key, "the lake must not touch the board edge (RULES.md §3.2)", lake)
    lake_nbrs = _int_list(raw_board, "lake_neighbors", key)
    if lake_nbrs != neighbors[lake]:
        raise _fail(key, f"lake_neighbors {lake_nbrs} differ from the lake's neighbours {neighbors[lake]}", lake)
    sea_regions = [i for i in range(n) if terrain[i] == SEA]
    seas = _int_list(raw_board, "seas", key)
    if seas != sea_regions:
        raise _fail(key, f"'seas' is {seas} but the sea regions are {sea_regions}")
    for s in sea_regions:
        if not border[s]:
            raise _fail(key, "sea does not touch the board edge (RULES.md §3.2)", s)

    # --- totals (RULES.md §3.1) ----------------------------------------------------------
    counts = {
        "farmland": terrain.count(FARMLAND),
        "forest": terrain.count(FOREST),
        "hill": terrain.count(HILL),
        "swamp": terrain.count(SWAMP),
        "mountain": terrain.count(MOUNTAIN),
        "seas": terrain.count(SEA),
        "lakes": terrain.count(LAKE),
        "mine": sum("mine" in f for f in features),
        "magic": sum("magic_source" in f for f in features),
        "cavern": sum("cavern" in f for f in features),
        "lost_tribes": sum(lost_tribe),
        "border_regions": sum(border),
    }
    for name, got in counts.items():
        expected = getattr(want, name)
        if got != expected:
            raise _fail(key, f"{got} {name}, expected {expected} (RULES.md §3.1)")

    if len(edge_set) != want.num_edges:
        raise _fail(key, f"{len(edge_set)} borders, expected {want.num_edges} (RULES.md §3.3)")

    # --- derived flags (RULES.md §1.6, §1.9; maps.json _schema) --------------------------
    edge_seas = {s for s in sea_regions if border[s]}
    water = {i for i in range(n) if terrain[i] in _WATER}
    n_first = 0
    for i, reg in enumerate(regions):
        land = terrain[i] not in _WATER
        coastal = land and any(j in water for j in neighbors[i])
        first_ok = land and (border[i] or any(j in edge_seas for j in neighbors[i]))
        n_first += first_ok
        if reg["coastal"] != coastal:
            raise _fail(key, f"coastal is {reg['coastal']}, but by definition (land next to sea/lake) it is {coastal}", i)
        if reg["first_conquest_ok"] != first_ok:
            raise _fail(
                key,
                f"first_conquest_ok is {reg['first_conquest_ok']}, but by definition "
                f"(land, and border or next to an edge sea) it is {first_ok}",
                i,
            )
    if n_first != want.first_conquest:
        raise _fail(key, f"{n_first} first-conquest regions, expected {want.first_conquest} (RULES.md §3.1)")


def _build_board(raw_board: dict, key: int) -> Board:
    n = raw_board["num_regions"]
    regions = raw_board["regions"]
    terrain = tuple(_TERRAIN_CODE[r["terrain"]] for r in regions)
    neighbors = tuple(tuple(r["neighbors"]) for r in regions)

    def flag(name: str) -> tuple[bool, ...]:
        return tuple(bool(r[name]) for r in regions)

    def feature(name: str) -> tuple[bool, ...]:
        return tuple(name in r["features"] for r in regions)

    def of_terrain(*codes: int) -> int:
        return _mask(i for i in range(n) if terrain[i] in codes)

    mine, magic, cavern = feature("mine"), feature("magic_source"), feature("cavern")
    coastal = flag("coastal")
    first_ok = flag("first_conquest_ok")
    lake = raw_board["lake"]
    all_mask = (1 << n) - 1
    water_mask = of_terrain(SEA, LAKE)
    return Board(
        key=key,
        game_turns=raw_board["game_turns"],
        num_regions=n,
        lake=lake,
        lake_neighbors=tuple(raw_board["lake_neighbors"]),
        seas=tuple(raw_board["seas"]),
        terrain=terrain,
        mine=mine,
        magic=magic,
        cavern=cavern,
        lost_tribe=flag("lost_tribe"),
        border=flag("border"),
        coastal=coastal,
        first_conquest_ok=first_ok,
        neighbors=neighbors,
        nbr_mask=tuple(_mask(nb) for nb in neighbors),
        all_mask=all_mask,
        land_mask=all_mask & ~water_mask,
        water_mask=water_mask,
        sea_mask=of_terrain(SEA),
        lake_mask=1 << lake,
        first_conquest_mask=_mask(i for i in range(n) if first_ok[i]),
        cavern_mask=_mask(i for i in range(n) if cavern[i]),
        mountain_mask=of_terrain(MOUNTAIN),
        lake_nbr_mask=_mask(raw_board["lake_neighbors"]),
        coastal_mask=_mask(i for i in range(n) if coastal[i]),
        hill_mask=of_terrain(HILL),
        farmland_mask=of_terrain(FARMLAND),
        forest_mask=of_terrain(FOREST),
        swamp_mask=of_terrain(SWAMP),
        mine_mask=_mask(i for i in range(n) if mine[i]),
        magic_mask=_mask(i for i in range(n) if magic[i]),
        edges=tuple(sorted((a, b) for a, b in raw_board["adjacency"])),
    )


@lru_cache(maxsize=None, typed=True)
def load_board(key: int) -> Board:
    """Return the validated board for ``key`` players (2..5); cached, so each board is built once."""
    if isinstance(key, bool) or not isinstance(key, int) or key not in BOARD_TOTALS:
        raise ConfigError(f"board key must be one of {BOARD_KEYS}, got {key!r}")
    maps = load_maps_json().get("maps")
    if not isinstance(maps, dict) or str(key) not in maps:
        raise BoardDataError(f"maps.json has no board {str(key)!r} under 'maps'")
    raw_board = maps[str(key)]
    validate_board_data(raw_board, key)
    return _build_board(raw_board, key)
