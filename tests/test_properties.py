"""Property-based checks (hypothesis): the action table, the generator, the Wilson interval,
and whole random games from arbitrary seeds and configs."""
from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from necro_env.game import NUM_ACTIONS, Game, GameConfig, State, decode, encode
from necro_env.game import rng as R
from necro_env.stats import wilson


@given(st.integers(0, NUM_ACTIONS - 1))
def test_decode_then_encode_is_identity(i):
    assert encode(decode(i)) == i


@given(st.integers(0, 2**70), st.integers(1, 1000))
def test_below_stays_in_range_and_is_deterministic(seed, n):
    s = R.seed_state(seed)
    s1, x = R.below(s, n)
    s2, y = R.below(s, n)
    assert 0 <= x < n and x == y and s1 == s2


@given(st.integers(0, 500), st.integers(1, 500))
def test_wilson_interval_contains_the_rate(k, n):
    k = min(k, n)
    lo, hi = wilson(k, n)
    assert 0.0 <= lo <= k / n <= hi <= 1.0


configs = st.one_of(
    st.builds(dict, players=st.integers(2, 5), necromancer=st.just(False)),
    st.builds(dict, players=st.integers(3, 6), necromancer=st.just(True), handicap=st.integers(0, 2),
              victory_check=st.sampled_from(["end_of_turn", "anytime"]), island_redeploy=st.booleans(),
              necromancer_diplomat=st.booleans(), conversion_to_well=st.booleans(),
              necromancer_starting_coins=st.booleans()),
)


@settings(max_examples=40, deadline=None)
@given(configs, st.integers(0, 2**32), st.randoms(use_true_random=False))
def test_random_games_keep_every_invariant(options, seed, rnd):
    """Any config, any seed, any legal choices: invariants hold at every turn boundary, the game
    ends, and a JSON copy taken midway continues identically."""
    game = Game(GameConfig(**options))
    s = game.new_state(seed)
    copy = None
    seat = s.turn_seat
    steps = 0
    while not s.over:
        la = game.legal_actions(s)
        assert la
        a = la[rnd.randrange(len(la))]
        game.apply(s, a)
        if copy is not None:
            game.apply(copy, a)
        steps += 1
        if steps == 60:
            copy = State.from_dict(json.loads(json.dumps(s.to_dict())))
        if s.turn_seat != seat:
            seat = s.turn_seat
            game.check_invariants(s)
        assert steps < 5000
    game.check_invariants(s)
    if copy is not None:
        assert copy.to_dict() == s.to_dict()
