"""Board data and loader tests; every expected number below is copied from RULES.md, not from board.py."""

from __future__ import annotations

import copy
import dataclasses
from collections import deque

import pytest

from necro_env.game.board import (
    FARMLAND,
    FOREST,
    HILL,
    LAKE,
    MAX_REGIONS,
    MOUNTAIN,
    SEA,
    SWAMP,
    TERRAIN_NAMES,
    Board,
    load_board,
    load_maps_json,
    validate_board_data,
)
from necro_env.game.errors import BoardDataError, ConfigError, NecroEnvError

KEYS = (2, 3, 4, 5)

# RULES.md §3.1 "Board-level totals": regions, farmland/forest/hill/swamp/mountain, seas, lakes,
# mine/magic/cavern, Lost Tribes, edge regions (incl. seas), first-conquest-legal land regions.
TOTALS = {
    2: dict(regions=23, land=(4, 4, 4, 4, 4), seas=2, lakes=1, symbols=(4, 4, 4), lost_tribes=9, edge=15, first=14),
    3: dict(regions=30, land=(5, 5, 5, 5, 7), seas=2, lakes=1, symbols=(5, 5, 5), lost_tribes=10, edge=16, first=16),
    4: dict(regions=39, land=(7, 7, 7, 7, 8), seas=2, lakes=1, symbols=(7, 7, 7), lost_tribes=14, edge=18, first=21),
    5: dict(regions=48, land=(9, 9, 9, 9, 9), seas=2, lakes=1, symbols=(9, 9, 9), lost_tribes=18, edge=21, first=25),
}
# RULES.md §3.3 headings: borders per board; RULES.md §1.4: game turns.
BORDERS = {2: 51, 3: 71, 4: 95, 5: 119}
GAME_TURNS = {2: 10, 3: 10, 4: 9, 5: 8}
# RULES.md §3.2: lake id, lake neighbours (Necromancer entry regions), seas.
LAKES = {
    2: (7, (2, 6, 8, 12, 13), (0, 22)),
    3: (14, (9, 10, 13, 15, 19, 20, 21), (0, 24)),
    4: (16, (8, 9, 11, 15, 17, 21, 24, 25), (0, 38)),
    5: (20, (12, 13, 19, 21, 23, 26, 27, 32, 33, 39), (0, 43)),
}


def _bits(mask: int) -> set[int]:
    return {i for i in range(mask.bit_length()) if mask >> i & 1}


def _ids(flags) -> set[int]:
    return {i for i, f in enumerate(flags) if f}


def _raw(key: int) -> dict:
    return copy.deepcopy(load_maps_json()["maps"][str(key)])


@pytest.fixture(params=KEYS, ids=lambda k: f"{k}p")
def board(request) -> Board:
    return load_board(request.param)


# --- counts -------------------------------------------------------------------------------


def test_totals_match_rules_table(board: Board) -> None:
    """RULES.md §3.1: terrain, symbol, Lost Tribe, edge and first-conquest totals per board."""
    want = TOTALS[board.key]
    assert board.num_regions == want["regions"] == len(board.terrain)
    land = tuple(board.terrain.count(t) for t in (FARMLAND, FOREST, HILL, SWAMP, MOUNTAIN))
    assert land == want["land"]
    assert board.terrain.count(SEA) == want["seas"]
    assert board.terrain.count(LAKE) == want["lakes"]
    assert (sum(board.mine), sum(board.magic), sum(board.cavern)) == want["symbols"]
    assert sum(board.lost_tribe) == want["lost_tribes"]
    assert sum(board.border) == want["edge"]
    assert sum(board.first_conquest_ok) == want["first"]


def test_game_turns_and_border_count(board: Board) -> None:
    """RULES.md §1.4 (game turns 10/10/9/8) and §3.3 headings (51/71/95/119 borders)."""
    assert board.game_turns == GAME_TURNS[board.key]
    assert len(board.edges) == BORDERS[board.key]
    assert board.num_regions <= MAX_REGIONS


def test_mountains_and_lost_tribes_fit_the_box(board: Board) -> None:
    """RULES.md §1.1/§1.2: one Mountain marker per mountain region (9 in the box), 18 Lost Tribe tokens."""
    assert len(_bits(board.mountain_mask)) == TOTALS[board.key]["land"][4] <= 9
    assert sum(board.lost_tribe) <= 18
    water = {board.lake, *board.seas}
    assert not water & _ids(board.lost_tribe)
    assert not water & (_ids(board.mine) | _ids(board.magic) | _ids(board.cavern))


# --- graph ---------------------------------------------------------------------------------


def test_adjacency_symmetric_loop_free_and_matches_edges(board: Board) -> None:
    """RULES.md §3.1: symmetric, loop-free adjacency; the edge list equals the neighbour lists."""
    for r, nb in enumerate(board.neighbors):
        assert r not in nb
        assert list(nb) == sorted(set(nb))
        for j in nb:
            assert r in board.neighbors[j], (r, j)
    from_lists = {(a, b) for a, nb in enumerate(board.neighbors) for b in nb if a < b}
    assert set(board.edges) == from_lists
    assert all(a < b for a, b in board.edges)
    assert len(set(board.edges)) == len(board.edges)


def test_connected(board: Board) -> None:
    """RULES.md §3.1: every board's region graph is connected."""
    seen, queue = {0}, deque([0])
    while queue:
        for j in board.neighbors[queue.popleft()]:
            if j not in seen:
                seen.add(j)
                queue.append(j)
    assert seen == set(range(board.num_regions))


# --- lake, seas, special regions -------------------------------------------------------------


def test_lake_and_seas(board: Board) -> None:
    """RULES.md §3.2: one lake (never on the edge) with the listed neighbours; two seas, both on the edge."""
    lake, lake_nbrs, seas = LAKES[board.key]
    assert board.lake == lake
    assert [r for r, t in enumerate(board.terrain) if t == LAKE] == [lake]
    assert board.lake_neighbors == lake_nbrs == board.neighbors[lake]
    assert not board.border[lake]
    assert board.seas == seas
    assert [r for r, t in enumerate(board.terrain) if t == SEA] == list(seas)
    assert all(board.border[s] for s in seas)
    assert _bits(board.lake_nbr_mask) == set(lake_nbrs)
    # Every Necromancer entry region is land and therefore coastal (RULES.md §1.9).
    assert all(board.coastal[r] for r in lake_nbrs)


def test_first_conquest_regions(board: Board) -> None:
    """RULES.md §1.6: First Conquest = land region on the edge or next to a sea that touches the edge."""
    water = {board.lake, *board.seas}
    edge_seas = {s for s in board.seas if board.border[s]}
    expected = {
        r
        for r in range(board.num_regions)
        if r not in water and (board.border[r] or edge_seas & set(board.neighbors[r]))
    }
    assert _ids(board.first_conquest_ok) == expected == _bits(board.first_conquest_mask)
    assert len(expected) == TOTALS[board.key]["first"]
    # The lake never qualifies, and neither do its non-edge, non-sea-shore neighbours.
    assert board.lake not in expected


def test_first_conquest_spot_checks() -> None:
    """RULES.md §3.3 tables: shore regions off the edge are first-conquest-legal; inland edge-free ones are not."""
    b2 = load_board(2)
    assert not b2.border[21] and b2.first_conquest_ok[21]  # next to sea 22
    assert not b2.first_conquest_ok[6]  # next to the lake only
    b4 = load_board(4)
    assert {1, 2, 6, 7, 13} <= _ids(b4.first_conquest_ok) - _ids(b4.border)  # shores of sea 0
    assert not b4.first_conquest_ok[8]


def test_coastal(board: Board) -> None:
    """RULES.md §1.9: coastal = land region bordering a sea or the lake."""
    water = {board.lake, *board.seas}
    expected = {r for r in range(board.num_regions) if r not in water and water & set(board.neighbors[r])}
    assert _ids(board.coastal) == expected == _bits(board.coastal_mask)


# --- bitsets and the Board object ------------------------------------------------------------


def test_bitsets_match_tuples(board: Board) -> None:
    """RULES.md §3.3: every bitset on Board holds exactly the regions its per-region tuple marks."""
    n = board.num_regions
    assert board.all_mask == (1 << n) - 1
    assert board.all_mask.bit_length() == n
    assert board.land_mask | board.water_mask == board.all_mask
    assert board.land_mask & board.water_mask == 0
    assert board.water_mask == board.sea_mask | board.lake_mask
    assert _bits(board.sea_mask) == set(board.seas)
    assert _bits(board.lake_mask) == {board.lake}
    by_terrain = {
        FARMLAND: board.farmland_mask,
        FOREST: board.forest_mask,
        HILL: board.hill_mask,
        SWAMP: board.swamp_mask,
        MOUNTAIN: board.mountain_mask,
    }
    for code, mask in by_terrain.items():
        assert _bits(mask) == {r for r in range(n) if board.terrain[r] == code}, TERRAIN_NAMES[code]
    assert _bits(board.mine_mask) == _ids(board.mine)
    assert _bits(board.magic_mask) == _ids(board.magic)
    assert _bits(board.cavern_mask) == _ids(board.cavern)
    assert _bits(board.first_conquest_mask) == _ids(board.first_conquest_ok)
    assert _bits(board.coastal_mask) == _ids(board.coastal)
    assert _bits(board.lake_nbr_mask) == set(board.lake_neighbors)
    assert len(board.nbr_mask) == n
    for r in range(n):
        assert _bits(board.nbr_mask[r]) == set(board.neighbors[r])
    for field in ("terrain", "mine", "magic", "cavern", "lost_tribe", "border", "coastal", "first_conquest_ok"):
        assert len(getattr(board, field)) == n, field


def test_board_is_frozen(board: Board) -> None:
    """RULES.md §1.2: the board never changes during a game, so Board is immutable."""
    with pytest.raises(dataclasses.FrozenInstanceError):
        board.lake = 0  # type: ignore[misc]


def test_load_board_is_cached() -> None:
    """RULES.md §5 (several board sizes side by side): each board is built once and shared."""
    for k in KEYS:
        assert load_board(k) is load_board(k)
    assert len({id(load_board(k)) for k in KEYS}) == 4
    assert load_board.cache_info().hits >= 4


@pytest.mark.parametrize("bad", [1, 6, 0, -2, True, "2", 2.0, None])
def test_load_board_rejects_bad_key(bad) -> None:
    """RULES.md §1.4: boards exist for 2, 3, 4 and 5 players only."""
    with pytest.raises(ConfigError):
        load_board(bad)


def test_error_hierarchy() -> None:
    """RULES.md §3.1: data and config errors are ValueErrors under the package's base class."""
    assert issubclass(BoardDataError, NecroEnvError) and issubclass(BoardDataError, ValueError)
    assert issubclass(ConfigError, NecroEnvError) and issubclass(ConfigError, ValueError)


# --- validation of tampered data ---------------------------------------------------------------


@pytest.mark.parametrize("key", KEYS)
def test_shipped_data_validates(key: int) -> None:
    """RULES.md §3.1: the packaged maps.json passes every check."""
    validate_board_data(_raw(key), key)


def _drop_edge(raw: dict, a: int, b: int, *, both_sides: bool = True) -> None:
    raw["regions"][a]["neighbors"].remove(b)
    if both_sides:
        raw["regions"][b]["neighbors"].remove(a)
        raw["adjacency"].remove([min(a, b), max(a, b)])


@pytest.mark.parametrize("key", KEYS)
def test_tampered_asymmetric_neighbour(key: int) -> None:
    """RULES.md §3.1: adjacency must be symmetric."""
    raw = _raw(key)
    a, b = raw["adjacency"][0]
    _drop_edge(raw, b, a, both_sides=False)
    with pytest.raises(BoardDataError, match=rf"board {key}p, region {a}: adjacency not symmetric"):
        validate_board_data(raw, key)


@pytest.mark.parametrize("key", KEYS)
def test_tampered_second_lake(key: int) -> None:
    """RULES.md §3.2: each board has exactly one lake."""
    raw = _raw(key)
    inland = next(
        r for r in raw["regions"] if r["terrain"] == "farmland" and not r["features"] and not r["lost_tribe"]
    )
    inland["terrain"] = "lake"
    with pytest.raises(BoardDataError, match=rf"board {key}p: expected exactly one lake"):
        validate_board_data(raw, key)


@pytest.mark.parametrize("key", KEYS)
def test_tampered_lost_tribe_count(key: int) -> None:
    """RULES.md §3.1: the Lost Tribe count per board is fixed."""
    raw = _raw(key)
    next(r for r in raw["regions"] if r["lost_tribe"])["lost_tribe"] = False
    with pytest.raises(BoardDataError, match=rf"board {key}p: {TOTALS[key]['lost_tribes'] - 1} lost_tribes"):
        validate_board_data(raw, key)


@pytest.mark.parametrize("key", KEYS)
def test_tampered_disconnected_region(key: int) -> None:
    """RULES.md §3.1: the region graph must be connected."""
    raw = _raw(key)
    # Cut off the highest-numbered land region that stays otherwise consistent.
    victim = max(r["id"] for r in raw["regions"] if r["terrain"] not in ("sea", "lake") and r["id"] != 0)
    for other in list(raw["regions"][victim]["neighbors"]):
        _drop_edge(raw, victim, other)
    with pytest.raises(BoardDataError, match=rf"board {key}p, region {victim}: region graph is not connected"):
        validate_board_data(raw, key)


@pytest.mark.parametrize(
    ("tamper", "message"),
    [
        (lambda raw: raw["regions"][3].update(id=4), r"region 3: entry 3 has id 4"),
        (lambda raw: raw.update(num_regions=24), r"num_regions is 24"),
        (lambda raw: raw.update(game_turns=9), r"game_turns is 9"),
        (lambda raw: raw["adjacency"].append([0, 22]), r"'adjacency' disagrees"),
        (lambda raw: raw["regions"][7].update(border=True), r"region 7: the lake must not touch"),
        (lambda raw: raw.update(lake_neighbors=[2, 6, 8, 12]), r"lake_neighbors"),
        (lambda raw: raw.update(seas=[0]), r"'seas' is \[0\]"),
        (lambda raw: raw["regions"][9].update(coastal=True), r"region 9: coastal"),
        (lambda raw: raw["regions"][21].update(first_conquest_ok=False), r"region 21: first_conquest_ok"),
        (lambda raw: raw["regions"][1].update(terrain="tundra"), r"region 1: unknown terrain"),
        (lambda raw: raw["regions"][1]["neighbors"].append(1), r"region 1: lists itself"),
        (lambda raw: raw["regions"][4]["features"].append("mine"), r"5 mine, expected 4"),
    ],
)
def test_tampered_2p_other_fields(tamper, message: str) -> None:
    """RULES.md §3.1-3.3 and the maps.json _schema: each broken field is reported by name."""
    raw = _raw(2)
    tamper(raw)
    with pytest.raises(BoardDataError, match=message):
        validate_board_data(raw, 2)
