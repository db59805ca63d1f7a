"""The engine's structure: one ``_do_<kind>`` method per action kind behind the dispatch table, one
``berserk_cost`` for every place that takes a Berserk roll off a cost, named turn segments."""
from __future__ import annotations

import pathlib
import re

import numpy as np
import pytest

from necro_env.agents.base import View
from necro_env.agents.greedy import GreedyAgent
from necro_env.game import Game, GameConfig, Kind, Phase, decode
from necro_env.game.catalog import RATMEN
from necro_env.game.engine import MAX_ROLL, berserk_cost

from positions import begin, empty_position, give_race, legal, play, put, rig_die

HANDLER_NAMES = {k: "_do_" + k.name.lower() for k in Kind}


# ---------------------------------------------------------------------------------------- dispatch
def test_every_kind_has_exactly_one_do_method_in_the_table():
    """The table maps every ``Kind`` to its own ``_do_<kind>`` method, bound to this game; no other
    ``_do_*`` method exists; per action index the dispatch holds its kind's method and its argument."""
    g = Game(GameConfig(players=3, necromancer=True))
    assert set(g._handlers) == set(Kind)
    for k, h in g._handlers.items():
        assert h.__self__ is g and h.__func__ is vars(Game)[HANDLER_NAMES[k]], k
    assert len({h.__func__ for h in g._handlers.values()}) == len(Kind)
    assert {n for n in vars(Game) if n.startswith("_do_")} == set(HANDLER_NAMES.values())
    for a, (do, arg) in enumerate(g._dispatch):
        d = decode(a)
        assert do == g._handlers[d.kind] and arg == d.arg, a


def _recording_game(config: GameConfig) -> tuple[Game, list]:
    """A Game whose every ``_do_<kind>`` method also records (kind, argument) before it runs."""
    calls: list[tuple[Kind, int]] = []

    def wrap(kind: Kind):
        inner = getattr(Game, HANDLER_NAMES[kind])

        def do(self, st, arg):
            calls.append((kind, arg))
            return inner(self, st, arg)
        return do

    sub = type("RecordingGame", (Game,), {HANDLER_NAMES[k]: wrap(k) for k in Kind})
    return sub(config), calls


@pytest.mark.parametrize("necromancer", [False, True])
def test_apply_changes_state_only_through_the_handler_of_the_kind(necromancer):
    """Seeded random games: every action applied (forced ones included) runs exactly one handler, its
    kind's, with its argument, and the game plays exactly as on an unrecorded ``Game``."""
    config = GameConfig(players=4, necromancer=necromancer, skip_forced=True)
    g, calls = _recording_game(config)
    plain = Game(config)
    for seed in range(3):
        st, ref = g.new_state(seed), plain.new_state(seed)
        rng = np.random.default_rng(seed)
        del calls[:]
        while not st.over:
            la = g.legal_actions(st)
            a = la[int(rng.integers(len(la)))]
            before, n = st.decisions, len(calls)
            g.apply(st, a)
            plain.apply(ref, a)
            assert calls[n] == (decode(a).kind, decode(a).arg)
            assert len(calls) - n == st.decisions - before
            assert st == ref
        assert len(calls) == st.decisions and {k for k, _ in calls} >= {Kind.CONQUER, Kind.END_REDEPLOY}


# ---------------------------------------------------------------------------------------- Berserk
def _berserk_position(hand: int = 3):
    """2-player board: seat 0 Ratmen + Berserk on region 1; Orcs 3 on the hill 6 (cost 5), 1 on 11."""
    g, st = empty_position(players=2)
    give_race(g, st, 0, "Ratmen", "Berserk", hand=hand)
    give_race(g, st, 1, "Orcs", "Alchemist")
    put(g, st, 1, "Ratmen", 1)
    put(g, st, 6, "Orcs", 3)
    put(g, st, 11, "Orcs", 1)
    begin(g, st, 0)
    return g, st


def test_berserk_cost_takes_the_roll_off_and_leaves_at_least_one():
    assert [berserk_cost(5, roll) for roll in range(4)] == [5, 4, 3, 2]
    assert [berserk_cost(2, roll) for roll in range(4)] == [2, 1, 1, 1]
    assert berserk_cost(1, 0) == 1


@pytest.mark.parametrize("face", [0, 1, 2, 3])
def test_engine_offers_and_charges_berserk_cost(face):
    """RULES §2.2 Berserk: after the roll the targets are those whose ``berserk_cost`` the hand covers,
    and conquering one places exactly ``berserk_cost`` tokens."""
    g, st = _berserk_position(hand=3)
    rig_die(g, st, face)
    play(g, st, (Kind.BERSERK_ROLL, 0))
    assert st.phase == Phase.BERSERK and st.berserk == face
    hand = st.hand[RATMEN]
    reach = [r for r in range(g.num_regions) if (g.targets(st, RATMEN) >> r) & 1]
    cost = {r: berserk_cost(g.conquest_cost(st, r), face) for r in reach}
    targets = {a for k, a in legal(g, st) if k == "CONQUER"}
    assert targets == {r for r in reach if cost[r] <= hand}
    assert 6 in targets or face < 2  # the 3-Orc hill (cost 5) needs a roll of 2 or 3
    for r in targets:
        s = st.clone()
        play(g, s, (Kind.CONQUER, r))
        assert s.tok[r] == cost[r] and s.hand[RATMEN] == hand - cost[r], r
        assert s.phase == Phase.CONQUER and s.berserk == -1


@pytest.mark.parametrize("hand", [1, 2])
def test_berserk_roll_offered_when_the_best_face_makes_a_target_affordable(hand):
    """Region 1's land neighbours 2, 5, 6 each hold 3 Orcs (cost 5 or more): a roll of 3 makes the
    cheapest cost 2, so the roll is offered with 2 tokens in hand and not with 1."""
    g, st = empty_position(players=2)
    give_race(g, st, 0, "Ratmen", "Berserk", hand=hand)
    give_race(g, st, 1, "Orcs", "Alchemist")
    put(g, st, 1, "Ratmen", 1)
    for r in (2, 5, 6):
        put(g, st, r, "Orcs", 3)
    begin(g, st, 0)
    cheapest = min(g.conquest_cost(st, r) for r in (2, 5, 6))
    assert cheapest == 5
    offered = ("BERSERK_ROLL", 0) in legal(g, st)
    assert offered == (berserk_cost(cheapest, MAX_ROLL) <= hand) == (hand == 2)


def test_greedy_chooses_its_berserk_target_by_berserk_cost():
    """Greedy after a roll of 3: value per token with ``berserk_cost``. The 2-Orc region 9 (cost 4, the most
    value) is the cheapest per value only once the roll comes off (4 - 3 = 1); without it an empty
    region (cost 2) would win."""
    g, st = empty_position(players=3)
    give_race(g, st, 0, "Ratmen", "Berserk", hand=3)
    give_race(g, st, 1, "Orcs", "Alchemist")
    put(g, st, 8, "Ratmen", 1)
    put(g, st, 9, "Orcs", 2)
    put(g, st, 20, "Orcs", 1)
    begin(g, st, 0)
    rig_die(g, st, 3)
    play(g, st, (Kind.BERSERK_ROLL, 0))
    agent, view = GreedyAgent(), View(g, st)
    ctx = agent._context(view, RATMEN)
    targets = sorted(a for k, a in legal(g, st) if k == "CONQUER")
    value = {r: agent.region_value(view, RATMEN, r, ctx) for r in targets}
    per_token = {r: value[r] / berserk_cost(g.conquest_cost(st, r), st.berserk) for r in targets}
    best = max(per_token, key=per_token.get)
    assert best == 9 and sorted(per_token.values())[-2] < per_token[9]
    assert max(targets, key=lambda r: value[r] / g.conquest_cost(st, r)) != 9   # the roll matters here
    a = agent.act(view, np.random.default_rng(0))
    assert (decode(a).kind, decode(a).arg) == (Kind.CONQUER, best)


# ---------------------------------------------------------------------------------------- segments
def test_turn_segments_are_named_not_numbered():
    """No module compares ``segment`` with a bare number: GHOUL_SEGMENT / MAIN_SEGMENT (state.py)."""
    root = pathlib.Path(__file__).resolve().parents[1]
    bare = re.compile(r"segment\s*(==|!=)\s*\d|\(\s*\"segment\"\s*,\s*-?\d")
    hits = [f"{p.relative_to(root)}:{i}" for p in sorted((root / "necro_env").rglob("*.py")) + [
        root / "tests" / "reference_observer.py"]
            for i, line in enumerate(p.read_text().splitlines(), 1) if bare.search(line)]
    assert hits == []
