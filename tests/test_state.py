"""``State``: clone independence, exact JSON round trip (RNG position included), corrupt-input rejection.

DESIGN.md §1: "State: only what changes during a game, flat typed data, clone() without deepcopy,
to_dict()/from_dict() (JSON) that round-trip exactly"; "Randomness lives in the state".
"""
from __future__ import annotations

import json
import random

import pytest

from necro_env.game import ConfigError, Game, GameConfig, State, StateError, Kind
from necro_env.game import actions as A
from necro_env.game.catalog import GHOST, NUM_OCCUPANTS
from necro_env.game import state as state_module
from necro_env.game.state import ALL_FIELDS, INT_FIELDS, LIST_FIELDS

from positions import die_rolls


def midgame(players: int = 4, necromancer: bool = True, seed: int = 3, steps: int = 150) -> tuple[Game, State]:
    """A state after ``steps`` random decisions (stops early if the game would end)."""
    g = Game(GameConfig(players=players, necromancer=necromancer))
    st = g.new_state(seed)
    rng = random.Random(seed)
    for _ in range(steps):
        la = g.legal_actions(st)
        a = rng.choice(la)
        probe = st.clone()
        g.apply(probe, a)
        if probe.over:
            break
        g.apply(st, a)
    assert not st.over
    return g, st


def roundtrip(st: State) -> State:
    return State.from_dict(json.loads(json.dumps(st.to_dict())))


def states_with(kind: Kind, count: int, players: int = 3) -> list[tuple[Game, State, int]]:
    """``count`` mid-game states (base game) where an action of ``kind`` is legal, with that action."""
    g = Game(GameConfig(players=players, necromancer=False))
    lo = A.OFFSET[kind]
    hi = lo + A.SIZES[kind]
    out = []
    seed = 0
    while len(out) < count:
        st = g.new_state(seed)
        rng = random.Random(seed)
        while not st.over and len(out) < count:
            la = g.legal_actions(st)
            hits = [a for a in la if lo <= a < hi]
            if hits:
                out.append((g, st.clone(), hits[0]))
                break
            g.apply(st, rng.choice(la))
        seed += 1
    return out


# ---------------------------------------------------------------------------------------------- clone

def test_fields_are_listed_once() -> None:
    """Every slot but the legal-action cache is a documented field, listed exactly once."""
    assert len(ALL_FIELDS) == len(set(ALL_FIELDS))
    assert set(State.__slots__) == set(ALL_FIELDS) | {"_legal"}
    g, st = midgame()
    for f in LIST_FIELDS:
        assert isinstance(getattr(st, f), list), f
    for f in INT_FIELDS:
        assert type(getattr(st, f)) is int, f
    for f in ALL_FIELDS:
        assert f in state_module.__doc__, f"field {f} is not documented in state.py"


@pytest.mark.parametrize("field", LIST_FIELDS)
def test_clone_list_fields_are_independent(field: str) -> None:
    """Mutating a list field of the clone never changes the original, and vice versa."""
    g, st = midgame()
    before = st.to_dict()
    c = st.clone()
    assert getattr(c, field) is not getattr(st, field)
    getattr(c, field).append(7)
    if getattr(c, field)[:-1]:
        getattr(c, field)[0] += 1
    assert st.to_dict() == before
    c2 = st.clone()
    snapshot = c2.to_dict()
    getattr(st, field).append(9)
    assert c2.to_dict() == snapshot


@pytest.mark.parametrize("field", INT_FIELDS)
def test_clone_int_fields_are_independent(field: str) -> None:
    g, st = midgame()
    before = st.to_dict()
    c = st.clone()
    setattr(c, field, getattr(c, field) + 1)
    assert st.to_dict() == before


@pytest.mark.parametrize("necro", [False, True])
def test_playing_the_clone_leaves_the_original(necro: bool) -> None:
    """Playing a clone to the end changes nothing in the original, its legal actions included."""
    g, st = midgame(necromancer=necro)
    before = st.to_dict()
    legal = list(g.legal_actions(st))
    c = st.clone()
    rng = random.Random(1)
    while not c.over:
        g.apply(c, rng.choice(g.legal_actions(c)))
    assert st.to_dict() == before
    assert g.legal_actions(st) == legal
    g.check_invariants(st)


def test_clone_is_not_deepcopy_of_the_game() -> None:
    """The clone holds only state (ints and lists of ints): no board or Game object is copied."""
    g, st = midgame()
    c = st.clone()
    for f in ALL_FIELDS:
        v = getattr(c, f)
        assert type(v) is int or (type(v) is list and all(type(x) is int for x in v)), f


# ---------------------------------------------------------------------------------------------- to_dict

@pytest.mark.parametrize("players,necro", [(2, False), (5, False), (3, True), (6, True)])
def test_to_dict_is_json_and_exact(players: int, necro: bool) -> None:
    """to_dict() is JSON-serialisable without help and from_dict() restores an equal state."""
    g, st = midgame(players=players, necromancer=necro, seed=players)
    d = st.to_dict()
    assert set(d) == set(ALL_FIELDS)
    text = json.dumps(d)                       # no default= needed: only ints and lists of ints
    back = State.from_dict(json.loads(text))
    assert back == st
    assert back.to_dict() == d
    assert json.dumps(back.to_dict()) == text
    assert back.rng == st.rng and back.rng.bit_length() > 53   # a 64-bit int survives JSON exactly
    g.validate_state(back)
    assert g.legal_actions(back) == g.legal_actions(st)


def test_to_dict_and_from_dict_copy_their_lists() -> None:
    """The dict and the state share no list: editing one never edits the other."""
    g, st = midgame()
    d = st.to_dict()
    d["coins"].append(99)
    d["tok"][0] += 5
    assert len(st.coins) == g.num_seats
    d = st.to_dict()
    back = State.from_dict(d)
    d["coins"][0] += 100
    d["race_deck"].clear()
    assert back == st


def test_round_trip_continues_identically() -> None:
    """A restored state and the original follow the same actions to the same end."""
    g, st = midgame(players=5, necromancer=True, seed=11, steps=60)
    back = roundtrip(st)
    rng = random.Random(5)
    while not st.over:
        a = rng.choice(g.legal_actions(st))
        assert g.legal_actions(back) == g.legal_actions(st)
        g.apply(st, a)
        g.apply(back, a)
    assert back.to_dict() == st.to_dict()


@pytest.mark.parametrize("kind", [Kind.FINAL, Kind.BERSERK_ROLL])
def test_rng_position_survives_the_round_trip(kind: Kind) -> None:
    """RULES §1.1 die: after from_dict the next reinforcement/Berserk roll is the same as the original's."""
    cases = states_with(kind, 25)
    rolls = []
    for g, st, a in cases:
        back = roundtrip(st)
        c = st.clone()
        g.apply(st, a)
        g.apply(back, a)
        g.apply(c, a)
        assert back.last_die == st.last_die == c.last_die
        assert back.rng == st.rng
        assert back.to_dict() == st.to_dict() == c.to_dict()
        rolls.append(st.last_die)
    assert len(set(rolls)) > 1, f"the die never varied: {rolls}"


def test_rng_stream_survives_the_round_trip() -> None:
    """The generator's whole future survives to_dict/from_dict: 200 further rolls agree."""
    g, st = midgame()
    back = roundtrip(st)
    a = die_rolls(st.rng, 200)
    b = die_rolls(back.rng, 200)
    assert a == b
    assert sorted(set(a)) == [0, 1, 2, 3]


def test_seed_fixes_the_deck_and_the_draw() -> None:
    """Same seed -> same new state; new_state rejects a negative or non-int seed with ConfigError (a ValueError)."""
    g = Game(GameConfig(players=5, necromancer=True))
    assert g.new_state(42) == g.new_state(42)
    assert g.new_state(42) != g.new_state(43)
    assert g.new_state(2**70) != g.new_state(2**70 + 1)
    for bad in (-1, 1.5, "3", True):
        with pytest.raises(ConfigError):
            g.new_state(bad)


# ---------------------------------------------------------------------------------------------- from_dict errors

def _corrupt(edit) -> StateError:
    g, st = midgame()
    d = json.loads(json.dumps(st.to_dict()))
    edit(d)
    with pytest.raises(StateError) as ei:
        State.from_dict(d)
    assert isinstance(ei.value, ValueError)
    return ei.value


def test_from_dict_rejects_a_missing_field() -> None:
    err = _corrupt(lambda d: d.pop("well"))
    assert "well" in str(err) and "missing" in str(err)


def test_from_dict_rejects_an_extra_field() -> None:
    err = _corrupt(lambda d: d.update(mana=[1, 2]))
    assert "mana" in str(err) and "unexpected" in str(err)


@pytest.mark.parametrize("field,value", [
    ("coins", "5,5,5,5"),          # wrong type for a list field
    ("coins", [5, 5, "5", 5]),     # list of str
    ("race_deck", ["Orcs"]),
    ("tok", [1.0] * 30),           # floats are not ints
    ("hand", [True] + [0] * 15),   # bool inside a list
    ("occ", None),
    ("coins", (5, 5, 5, 5)),       # a tuple is not what to_dict writes
])
def test_from_dict_rejects_bad_list_fields(field: str, value) -> None:
    err = _corrupt(lambda d: d.__setitem__(field, value))
    assert repr(field) in str(err) and "list of ints" in str(err)


@pytest.mark.parametrize("field,value", [
    ("round", True),               # bool where an int is expected
    ("round", "3"),
    ("rng", 1.5),
    ("phase", None),
    ("over", [0]),
    ("decisions", 3.0),
])
def test_from_dict_rejects_bad_int_fields(field: str, value) -> None:
    err = _corrupt(lambda d: d.__setitem__(field, value))
    assert repr(field) in str(err) and "int" in str(err)


@pytest.mark.parametrize("value", [None, [], "state", 3])
def test_from_dict_rejects_non_dicts(value) -> None:
    with pytest.raises(StateError, match="dict"):
        State.from_dict(value)


# ---------------------------------------------------------------------------------------------- validate_state

def _tampered(edit, players: int = 4, necro: bool = True) -> str:
    g, st = midgame(players=players, necromancer=necro)
    g.validate_state(roundtrip(st))            # the untouched state passes
    back = roundtrip(st)
    edit(g, back)
    with pytest.raises(StateError) as ei:
        g.validate_state(back)
    return str(ei.value)


@pytest.mark.parametrize("field", ["coins", "active", "occ", "tok", "encamp", "tray", "well", "regions"])
def test_validate_rejects_wrong_lengths(field: str) -> None:
    msg = _tampered(lambda g, s: getattr(s, field).append(0))
    assert repr(field) in msg and "length" in msg
    msg = _tampered(lambda g, s: getattr(s, field).pop())
    assert repr(field) in msg and "length" in msg


def test_validate_rejects_a_state_of_another_board() -> None:
    """A 3-seat base state does not fit a 4-seat base game (seat and region counts differ)."""
    g3 = Game(GameConfig(players=3, necromancer=False))
    g4 = Game(GameConfig(players=4, necromancer=False))
    st = g3.new_state(0)
    g3.validate_state(st)
    with pytest.raises(StateError, match="length"):
        g4.validate_state(roundtrip(st))


def _held(g: Game, st: State) -> int:
    return next(r for r in range(g.num_regions) if st.occ[r] >= 0 and st.occ[r] != GHOST)


def test_validate_rejects_an_extra_token_on_the_map() -> None:
    """RULES §2.1 box counts: one token too many on a region breaks conservation."""
    def edit(g, s):
        s.tok[_held(g, s)] += 1
    msg = _tampered(edit)
    assert "tokens accounted" in msg and "box holds" in msg


def test_validate_rejects_a_missing_tray_token() -> None:
    def edit(g, s):
        x = next(i for i in range(NUM_OCCUPANTS) if s.tray[i] > 0 and i != GHOST)
        s.tray[x] -= 1
    assert "box holds" in _tampered(edit)


def test_validate_rejects_a_lost_ghost() -> None:
    """RULES §4.1 A27: 14 Ghosts in all; one vanishing from the Reserve is caught."""
    def edit(g, s):
        if s.tray[GHOST]:
            s.tray[GHOST] -= 1
        else:
            s.ghosts_removed += 1
    msg = _tampered(edit)
    assert f"occupant {GHOST}" in msg


def test_validate_rejects_a_stale_region_bitset() -> None:
    def edit(g, s):
        r = _held(g, s)
        s.regions[s.occ[r]] &= ~(1 << r)
    assert "stale" in _tampered(edit)


def test_validate_rejects_negative_coins_and_duplicate_banners() -> None:
    assert "'coins' has values [-1] outside 0.." in _tampered(lambda g, s: s.coins.__setitem__(0, -1))
    assert "banners" in _tampered(lambda g, s: s.race_deck.append(s.race_deck[0] if s.race_deck else s.col_race[0]))


def test_validate_rejects_bad_phase_and_decider() -> None:
    assert "phase" in _tampered(lambda g, s: setattr(s, "phase", 42))
    assert "decider" in _tampered(lambda g, s: setattr(s, "decider", 9))


@pytest.mark.parametrize("field,value", [
    ("occ", 99), ("occ", -5), ("active", 99), ("race_deck", 99), ("col_power", 99),
    ("race_owner", 9), ("pact", 9),
])
def test_validate_rejects_out_of_range_ids(field: str, value: int) -> None:
    """Ids outside their ranges are a StateError naming the field, never an IndexError."""
    msg = _tampered(lambda g, s: getattr(s, field).__setitem__(0, value))
    assert repr(field) in msg


@pytest.mark.parametrize("field,value", [("cur_race", 99), ("defend_race", 99), ("turn_seat", 7), ("dragon", 60)])
def test_validate_rejects_out_of_range_scalars(field: str, value: int) -> None:
    msg = _tampered(lambda g, s: setattr(s, field, value))
    assert repr(field) in msg


# ---------------------------------------------------------------------------------------------- equality

def test_state_equality() -> None:
    """Equality compares every field (not the legal-action cache); other types compare unequal."""
    g, st = midgame()
    c = st.clone()
    assert c == st and not (c != st)
    g.invalidate(c)  # drops the legal-action cache
    assert c == st
    c.well[0] += 1
    assert c != st
    c = st.clone()
    c.rng += 1
    assert c != st
    c = st.clone()
    c.power_discard.append(0)
    assert c != st
    assert (st == 5) is False and st != "state"
    assert st.__eq__(5) is NotImplemented


def test_repr_names_round_seat_and_phase() -> None:
    g, st = midgame()
    text = repr(st)
    assert f"round={st.round}" in text and "phase=" in text and f"decider={st.decider}" in text
