"""The one game loop (``necro_env.loop.play``): its contract, and that every game-playing entry point runs it."""
from __future__ import annotations

import io

import numpy as np
import pytest

import necro_env.loop as loop
from necro_env.agents.registry import make_policy
from necro_env.evaluate import game_seeds, play_game
from necro_env.game import Game, GameConfig
from necro_env.game.errors import IllegalActionError
from necro_env.play import play_game as play_terminal
from necro_env.simulate import play_random_game
from necro_env.single_seat import SingleSeatEnv


@pytest.fixture
def counted(monkeypatch):
    """``loop.play`` wrapped to count its calls (every user calls it through the module)."""
    calls = []
    real = loop.play

    def play(*args, **kwargs):
        calls.append(kwargs.get("until"))
        return real(*args, **kwargs)

    monkeypatch.setattr(loop, "play", play)
    return calls


def test_every_entry_point_plays_through_the_one_loop(counted):
    """evaluate.play_game, simulate.play_random_game, play.play_game and the single-seat view's opponents."""
    game = Game(GameConfig(players=3, skip_forced=True))
    pols = [make_policy("greedy", "player"), make_policy("greedy", "player"), make_policy("heuristic", "necromancer")]
    engine_seed, rngs = game_seeds(0, 0, 3)
    play_game(game, pols, engine_seed, rngs)
    assert counted == [None]
    play_random_game(Game(GameConfig(players=4)), np.random.default_rng(0))
    assert len(counted) == 2
    play_terminal(game, 0, 0, {1: pols[1], 2: pols[2]}, input_fn=lambda _: "q", out=io.StringIO())
    assert len(counted) == 3
    env = SingleSeatEnv(players=3)
    env.reset(seed=0)
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert counted[3:] and set(counted[3:]) == {game.necro_seat}  # until the learner (the Necromancer) decides


def test_play_stops_at_until_and_calls_the_hooks_in_order():
    game = Game(GameConfig(players=4, skip_forced=True))
    st = game.new_state(1)
    pols = [make_policy("random", "player")] * 3 + [make_policy("heuristic", "necromancer")]
    seen = []
    n = loop.play(game, st, pols, np.random.default_rng(1), until=2,
                  on_decision=lambda v, a: seen.append(("before", v.seat, a, v.state.decisions)),
                  after=lambda v, a: seen.append(("after", v.seat, a)))
    assert st.decider == 2 and not st.over and n >= 1
    assert [s[0] for s in seen] == ["before", "after"] * n
    assert all(b[1:3] == a[1:3] for b, a in zip(seen[::2], seen[1::2]))
    assert loop.play(game, st, pols, np.random.default_rng(1), until=2) == 0  # already there: nothing played


def test_play_propagates_illegal_actions_and_quit_and_guards_loops():
    game = Game(GameConfig(players=3, skip_forced=True))

    class Bad:
        def act(self, view, rng):
            return next(a for a in range(509) if a not in view.legal)

    class Quitter:
        def act(self, view, rng):
            raise loop.Quit("bye")

    st = game.new_state(0)
    before = st.to_dict()
    with pytest.raises(IllegalActionError):
        loop.play(game, st, [Bad()] * 3, np.random.default_rng(0))
    assert st.to_dict() == before  # nothing substituted, nothing changed
    with pytest.raises(loop.Quit):
        loop.play(game, st, [Quitter()] * 3, np.random.default_rng(0))
    rand = make_policy("random", "player"), make_policy("random", "necromancer")
    with pytest.raises(loop.GameLoopError, match="within 5 decisions"):
        loop.play(game, st, [rand[0], rand[0], rand[1]], np.random.default_rng(0), max_decisions=5)
    assert isinstance(loop.GameLoopError("x"), RuntimeError)


def test_random_chooser_fast_path_plays_the_same_game():
    """``choose`` (no View, no hooks) and ``act`` (a hook forces the View path) give the same game."""
    game = Game(GameConfig(players=5))
    fast = play_random_game(game, np.random.default_rng(7))
    log: list[int] = []
    slow = play_random_game(game, np.random.default_rng(7), log)
    assert fast.to_dict() == slow.to_dict() and len(log) == fast.decisions + 1
