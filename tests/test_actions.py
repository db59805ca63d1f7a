"""The fixed action table (DESIGN.md §3) and the one source of legality (DESIGN.md §1).

* NUM_ACTIONS actions in contiguous sections; ``encode``/``decode`` are exact inverses;
* ``apply`` accepts exactly ``legal_actions`` and raises ``IllegalActionError`` (naming the action,
  the agent and the phase) on anything else, leaving the state untouched;
* regions a board lacks are never legal; the mask and the list always agree;
* every legal action of a sampled state applies cleanly.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from necro_env.game import (
    NUM_ACTIONS, Action, Game, GameConfig, IllegalActionError, Kind, Phase, State, action_table,
    decode, encode,
)
from necro_env.game import actions as A
from necro_env.game.board import MAX_REGIONS

REGION_KINDS = [k for k in Kind if A.SIZES[k] == MAX_REGIONS]
CONFIGS = [(2, False), (3, False), (4, False), (5, False), (3, True), (4, True), (5, True), (6, True)]


def sample_states(players: int, necro: bool, games: int, every: int = 1, seed0: int = 0):
    """Yield (game, state) for every ``every``-th decision of ``games`` random games (end states included)."""
    g = Game(GameConfig(players=players, necromancer=necro))
    for seed in range(seed0, seed0 + games):
        st = g.new_state(seed)
        rng = random.Random(seed)
        i = 0
        while not st.over:
            if i % every == 0:
                yield g, st
            g.apply(st, rng.choice(g.legal_actions(st)))
            i += 1
        yield g, st


# ---------------------------------------------------------------------------------------------- table

def test_module_docstring_table_matches_the_code() -> None:
    """actions.py's hand-written table (kinds, sizes, total) is checked against the code's table."""
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in A.__doc__.splitlines()
            if line.startswith("| ") and not line.startswith("| kind")]
    sizes = {"R": MAX_REGIONS}
    assert [(kind, sizes.get(size) or int(size)) for kind, size, *_ in rows] == [(k, n) for k, _, n in action_table()]
    assert A.__doc__.rstrip().endswith(f"= {NUM_ACTIONS}.")


def test_table_size_and_contiguity() -> None:
    """DESIGN.md §3: one Discrete(NUM_ACTIONS); sections contiguous, offsets computed from the sizes."""
    assert NUM_ACTIONS == sum(A.SIZES[k] for k in Kind if k not in REGION_KINDS) + len(REGION_KINDS) * MAX_REGIONS
    assert MAX_REGIONS == 48
    rows = action_table()
    assert [r[0] for r in rows] == [k.name for k in Kind]
    pos = 0
    for name, offset, size in rows:
        assert offset == pos, f"{name} starts at {offset}, expected {pos}"
        assert size >= 1
        assert A.OFFSET[Kind[name]] == offset and A.SIZES[Kind[name]] == size
        pos += size
    assert pos == NUM_ACTIONS
    assert len(REGION_KINDS) == 10
    assert A.SIZES[Kind.PICK] == 6 and A.SIZES[Kind.DIPLOMAT] == 5
    assert A.SIZES[Kind.NECRO_START] == 6 and A.SIZES[Kind.BUY_POWER] == 5


def test_plain_offsets_match_the_table() -> None:
    """The module's int constants (used on the hot paths) equal the table's offsets."""
    for k in Kind:
        assert getattr(A, k.name) == A.OFFSET[k], k.name


def test_round_trip_every_index() -> None:
    seen = set()
    for i in range(NUM_ACTIONS):
        act = decode(i)
        assert isinstance(act, Action)
        assert encode(act) == i
        assert encode((act.kind, act.arg)) == i
        assert encode((int(act.kind), act.arg)) == i
        seen.add(act)
    assert len(seen) == NUM_ACTIONS


def test_round_trip_every_action() -> None:
    """decode(encode(kind, arg)) == (kind, arg) for every argument of every section."""
    n = 0
    for k in Kind:
        lo = A.ARG_BASE[k]
        for arg in range(lo, lo + A.SIZES[k]):
            assert decode(encode((k, arg))) == (k, arg)
            n += 1
    assert n == NUM_ACTIONS


def test_argument_conventions() -> None:
    """Single actions take no argument; Diplomat offsets are 1..5; region kinds 0..47."""
    assert encode((Kind.END_CONQUEST,)) == encode((Kind.END_CONQUEST, 0)) == A.END_CONQUEST
    assert decode(A.DIPLOMAT) == (Kind.DIPLOMAT, 1)
    assert decode(A.DIPLOMAT + 4) == (Kind.DIPLOMAT, 5)
    for k in REGION_KINDS:
        assert decode(A.OFFSET[k]) == (k, 0)
        assert decode(A.OFFSET[k] + 47) == (k, 47)
    assert str(decode(A.CONQUER + 7)) == "conquer 7"
    assert str(decode(A.END_BUY)) == "end_buy"


@pytest.mark.parametrize("bad", [-1, NUM_ACTIONS, 10_000, "x", None, [3], 2.5e9])
def test_decode_rejects_out_of_range(bad) -> None:
    with pytest.raises(ValueError) as ei:
        decode(bad)
    assert "0..508" in str(ei.value)


def test_decode_accepts_numpy_ints() -> None:
    """Policies hand back numpy integers."""
    for i in (0, 77, NUM_ACTIONS - 1):
        assert decode(np.int64(i)) == decode(i)
        assert decode(np.int32(i)) == decode(i)


@pytest.mark.parametrize("kind,arg,allowed", [
    (Kind.PICK, 6, "0..5"), (Kind.PICK, -1, "0..5"),
    (Kind.CONQUER, 48, "0..47"), (Kind.PLACE, -1, "0..47"), (Kind.CONVERT, 100, "0..47"),
    (Kind.DIPLOMAT, 0, "1..5"), (Kind.DIPLOMAT, 6, "1..5"),
    (Kind.NECRO_START, 6, "0..5"), (Kind.BUY_POWER, 5, "0..4"),
    (Kind.DECLINE, 1, "no argument"), (Kind.END_BUY, 3, "no argument"),
])
def test_encode_rejects_out_of_range(kind: Kind, arg: int, allowed: str) -> None:
    with pytest.raises(ValueError) as ei:
        encode((kind, arg))
    assert allowed in str(ei.value) and kind.name in str(ei.value)


def test_encode_rejects_unknown_kinds() -> None:
    with pytest.raises(ValueError):
        encode((21, 0))
    with pytest.raises(ValueError):
        encode((-1, 0))


# ---------------------------------------------------------------------------------------------- illegal actions

def _illegal_of(g: Game, st: State) -> list[int]:
    legal = set(g.legal_actions(st))
    return [a for a in range(NUM_ACTIONS) if a not in legal]


@pytest.mark.parametrize("players,necro", CONFIGS)
def test_illegal_action_raises_and_changes_nothing(players: int, necro: bool) -> None:
    """DESIGN.md §1: apply(illegal) raises IllegalActionError naming action, agent and phase; state untouched."""
    rng = random.Random(players)
    phases_seen = set()
    common = (Phase.CONQUER, Phase.REDEPLOY)
    for k, (g, st) in enumerate(sample_states(players, necro, games=3)):
        if st.over or (k % 7 and st.phase in common):   # every rare phase, 1 in 7 of the common ones
            continue
        before = st.to_dict()
        legal = list(g.legal_actions(st))
        illegal = _illegal_of(g, st)
        for a in rng.sample(illegal, 6) + [-1, NUM_ACTIONS, "x", None]:
            with pytest.raises(IllegalActionError) as ei:
                g.apply(st, a)
            assert isinstance(ei.value, ValueError)
            msg = str(ei.value)
            if isinstance(a, int) and 0 <= a < NUM_ACTIONS:
                assert f"action {a} ({decode(a)})" in msg
                assert f"phase {Phase(st.phase).name}" in msg
                who = "necromancer" if st.decider == g.necro_seat else f"seat {st.decider}"
                assert who in msg
                phases_seen.add(Phase(st.phase).name)
            else:
                assert "0..508" in msg
            assert st.to_dict() == before
            assert g.legal_actions(st) == legal
    assert {"PICK", "CONQUER", "REDEPLOY"} <= phases_seen
    if necro:
        assert "NECRO_START" in phases_seen


def test_illegal_after_the_game_is_over() -> None:
    g = Game(GameConfig(players=2, necromancer=False))
    st = g.new_state(1)
    rng = random.Random(1)
    while not st.over:
        g.apply(st, rng.choice(g.legal_actions(st)))
    before = st.to_dict()
    assert g.legal_actions(st) == []
    for a in (A.END_REDEPLOY, A.PICK, A.CONQUER + 3):
        with pytest.raises(IllegalActionError, match="game is over"):
            g.apply(st, a)
    assert st.to_dict() == before


def test_apply_accepts_numpy_ints() -> None:
    g = Game(GameConfig(players=3, necromancer=False))
    a, b = g.new_state(4), g.new_state(4)
    rng = random.Random(4)
    for _ in range(40):
        x = rng.choice(g.legal_actions(a))
        g.apply(a, x)
        g.apply(b, np.int64(x))
    assert a == b


@pytest.mark.parametrize("players", [2, 3, 4])
def test_missing_regions_are_never_legal(players: int) -> None:
    """DESIGN.md §3: the table is sized for 48 regions; regions a board lacks are always illegal."""
    g = Game(GameConfig(players=players, necromancer=False))
    nr = g.num_regions
    assert nr < MAX_REGIONS
    missing = {A.OFFSET[k] + r for k in REGION_KINDS for r in range(nr, MAX_REGIONS)}
    n = 0
    for g, st in sample_states(players, False, games=20, every=1, seed0=100):
        assert not missing & set(g.legal_actions(st))
        n += 1
    assert n > 1_000
    st = g.new_state(0)
    for k in (Kind.CONQUER, Kind.PLACE, Kind.ABANDON):
        with pytest.raises(IllegalActionError):
            g.apply(st, encode((k, 40)))


def test_missing_regions_with_the_necromancer() -> None:
    """3 seats with the Necromancer use the 2-player board: regions 23..47 never legal."""
    g = Game(GameConfig(players=3, necromancer=True))
    assert g.num_regions == 23
    missing = {A.OFFSET[k] + r for k in REGION_KINDS for r in range(23, MAX_REGIONS)}
    for g, st in sample_states(3, True, games=15, every=1, seed0=200):
        assert not missing & set(g.legal_actions(st))
    st = g.new_state(0)
    with pytest.raises(IllegalActionError, match="region|not legal"):
        g.apply(st, encode((Kind.CONQUER, 40)))


# ---------------------------------------------------------------------------------------------- mask

@pytest.mark.parametrize("players,necro", CONFIGS)
def test_mask_agrees_with_legal_actions(players: int, necro: bool) -> None:
    """The int8 mask marks exactly legal_actions (thousands of random states), also into a reused buffer."""
    buf = np.ones(NUM_ACTIONS, dtype=np.int8)
    n = 0
    for g, st in sample_states(players, necro, games=12, every=1, seed0=300):
        legal = g.legal_actions(st)
        assert legal == sorted(set(legal))
        assert all(0 <= a < NUM_ACTIONS for a in legal)
        m = g.legal_action_mask(st)
        assert m.dtype == np.int8 and m.shape == (NUM_ACTIONS,)
        assert np.flatnonzero(m).tolist() == legal
        out = g.legal_action_mask(st, out=buf)
        assert out is buf and np.array_equal(buf, m)
        assert bool(legal) == (not st.over)
        for a in legal[:3]:
            assert g.is_legal(st, a)
        n += 1
    assert n >= 1_000


# ---------------------------------------------------------------------------------------------- every legal action

@pytest.mark.parametrize("players,necro", CONFIGS)
def test_every_legal_action_applies(players: int, necro: bool) -> None:
    """On sampled states, every legal action applies to a clone without error and keeps the invariants."""
    n = 0
    common = (Phase.CONQUER, Phase.REDEPLOY)
    for k, (g, st) in enumerate(sample_states(players, necro, games=4, seed0=400)):
        if st.over or (k % 5 and st.phase in common):   # every rare phase, 1 in 5 of the common ones
            continue
        before = st.to_dict()
        for a in g.legal_actions(st):
            c = st.clone()
            g.apply(c, a)
            assert c.decisions == st.decisions + 1
            g.check_invariants(c)
            n += 1
        assert st.to_dict() == before
    assert n > 500


@pytest.mark.parametrize("bad", [0.0, np.float32(0), np.float64(0), True, False, "0", [0]])
def test_apply_rejects_non_integers(bad) -> None:
    """Floats, bools and strings are never actions, even when they compare equal to a legal index."""
    g = Game(GameConfig(players=3, necromancer=False))
    st = g.new_state(0)
    assert g.legal_actions(st) == [A.PICK + k for k in range(6)]   # 0 == False == 0.0 is legal
    before = st.to_dict()
    with pytest.raises(IllegalActionError, match="must be an int in 0..508"):
        g.apply(st, bad)
    assert st.to_dict() == before
