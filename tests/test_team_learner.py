"""The players as one team: the ``coalition`` reward and the single-seat view's ``learner="players"``.

One network plays every player seat against the Necromancer on one trajectory; every player seat gets the
same reward (+1 when the Necromancer loses, -1 when he wins, and with shaping minus his progress).
"""
from __future__ import annotations

import numpy as np
import pytest

import necro_env
from necro_env.agents.registry import make_policy
from necro_env.game import Game, GameConfig
from necro_env.game.errors import ConfigError, StateError
from necro_env.rewards import RewardTracker, coalition_potential, progress_potential, terminal_rewards
from necro_env.single_seat import SingleSeatEnv


def _random_game(game: Game, seed: int):
    st = game.new_state(seed)
    rng = np.random.default_rng(seed)
    while not st.over:
        la = game.legal_actions(st)
        game.apply(st, la[int(rng.integers(len(la)))])
    return st


@pytest.mark.parametrize("players", [3, 6])
def test_coalition_terminal_rewards_follow_the_necromancer(players: int):
    game = Game(GameConfig(players=players, skip_forced=True))
    seen = set()
    for seed in range(12):
        st = _random_game(game, seed)
        necro_won = game.necro_seat in st.winners
        seen.add(necro_won)
        paid = terminal_rewards(game, st, "coalition")
        assert paid[game.necro_seat] == (1.0 if necro_won else -1.0)
        assert {paid[s] for s in range(players) if s != game.necro_seat} == {-1.0 if necro_won else 1.0}
    assert seen == {True, False}, "both outcomes should occur in 12 random games"


def test_coalition_needs_a_necromancer_game():
    with pytest.raises(ConfigError, match="coalition"):
        RewardTracker(Game(GameConfig(players=3, necromancer=False)), "coalition")
    with pytest.raises(ConfigError, match="coalition"):
        necro_env.env(players=3, necromancer=False, reward="coalition")


def test_aec_coalition_pays_every_player_the_same():
    """AEC env, reward coalition with shaping: each player's game total is the team's terminal reward minus
    shaping * the Necromancer's progress; the Necromancer's total is his win reward plus his own progress."""
    shaping = 0.75
    env = necro_env.env(players=4, reward="coalition", shaping=shaping)
    env.reset(seed=9)
    rng = np.random.default_rng(9)
    total = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        _, r, term, trunc, _ = env.last()
        total[agent] += r
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(env.last()[0]["action_mask"]))))
    raw = env.unwrapped
    game, st = raw.game, raw.game_state
    necro = game.necro_seat
    progress = progress_potential(game, st, necro) - progress_potential(game, game.new_state(9), necro)
    won = necro in st.winners
    for s, a in enumerate(env.possible_agents):
        if s == necro:
            assert total[a] == pytest.approx((1.0 if won else -1.0) + shaping * progress, abs=1e-9)
        else:
            assert total[a] == pytest.approx((-1.0 if won else 1.0) - shaping * progress, abs=1e-9)
    assert coalition_potential(game, st, 0) == -coalition_potential(game, st, necro)


def _team_episode(env: SingleSeatEnv, seed: int):
    """Random legal moves for the team: (seats that decided, rewards, phi of the Necromancer at the team's first
    decision, the final state)."""
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    game = env.game
    phi0 = progress_potential(game, env.state, game.necro_seat)
    seats, rewards = [], []
    done = False
    while not done:
        assert env.state.decider == info["seat"] == env.seat
        seats.append(info["seat"])
        _, r, done, _, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        rewards.append(r)
    return seats, rewards, phi0, env.state


@pytest.mark.parametrize("players", [3, 5])
def test_players_learner_plays_every_player_seat_for_the_team_reward(players: int):
    env = SingleSeatEnv(players=players, learner="players", reward="coalition", shaping=0.5)
    game = env.game
    for seed in (1, 2):
        seats, rewards, phi0, st = _team_episode(env, seed)
        assert set(seats) == set(env.player_seats), "every player seat is the learner's"
        assert game.necro_seat not in seats
        won = game.necro_seat in st.winners
        progress = progress_potential(game, st, game.necro_seat) - phi0
        assert sum(rewards) == pytest.approx((-1.0 if won else 1.0) - 0.5 * progress, abs=1e-9)


def test_players_learner_resumes_exactly_from_a_saved_state():
    kw = dict(players=4, learner="players", reward="coalition", shaping=1.0)
    env = SingleSeatEnv(**kw)
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    for _ in range(60):
        env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
    twin = SingleSeatEnv(**kw)
    twin.set_state(env.get_state())
    assert twin.seat == env.seat
    while not env.state.over:
        a = int(rng.choice(np.flatnonzero(env.action_masks())))
        o1, r1, d1, _, i1 = env.step(a)
        o2, r2, d2, _, i2 = twin.step(a)
        assert (o1 == o2).all() and r1 == r2 and d1 == d2 and i1["seat"] == i2["seat"]
    bad = env.get_state()
    bad["policies"] = ["greedy"] + bad["policies"][1:]  # seat 0 is the learner's: no policy may be named there
    with pytest.raises(StateError, match="policies"):
        SingleSeatEnv(**kw).set_state(bad)


class _Pick:
    """A Necromancer sampler over two scripts, restorable by name."""

    def __init__(self):
        self.pols = {p.name: p for p in (make_policy("heuristic", "necromancer"), make_policy("random", "necromancer"))}
        self.calls = 0

    def __call__(self, rng):
        self.calls += 1
        return list(self.pols.values())[int(rng.integers(2))]

    def restore(self, name):
        if name not in self.pols:
            raise StateError(f"no Necromancer {name!r}")
        return self.pols[name]


def test_necromancer_sampler_picks_per_episode_and_restores_by_name():
    pick = _Pick()
    env = SingleSeatEnv(players=3, learner="players", reward="coalition", necromancer_sampler=pick)
    names = set()
    for seed in range(8):
        env.reset(seed=seed)
        names.add(env.get_state()["policies"][env.game.necro_seat])
    assert pick.calls == 8 and names == set(pick.pols)
    state = env.get_state()
    twin = SingleSeatEnv(players=3, learner="players", reward="coalition", necromancer_sampler=_Pick())
    twin.set_state(state)
    assert twin.get_state()["policies"] == state["policies"]
    state["policies"][env.game.necro_seat] = "stranger"
    with pytest.raises(StateError, match="stranger"):
        twin.set_state(state)
    with pytest.raises(ConfigError, match="necromancer_sampler"):
        SingleSeatEnv(players=3, learner="necromancer", necromancer_sampler=pick)


@pytest.mark.parametrize("bad,match", [
    (dict(learner="players"), "coalition"),
    (dict(learner="player", reward="coalition"), "coalition"),
    (dict(learner="players", reward="coalition", learner_seat=0), "learner_seat"),
    (dict(learner="players", reward="coalition", necromancer=False), "Necromancer game"),
    (dict(learner="team"), "learner must be one of"),
])
def test_players_learner_options_are_checked(bad, match):
    with pytest.raises(ConfigError, match=match):
        SingleSeatEnv(players=3, **bad)


def test_warm_start_demos_of_the_team_cover_every_player_seat():
    pytest.importorskip("torch")
    from training.bc import DemoSpec, collect_demos

    spec = DemoSpec(players=4, necromancer=True, learner="players", teacher="greedy", opponents="greedy",
                    reward="coalition", shaping=1.0, gamma=1.0)
    demos = collect_demos(spec, games=3, seed=0)
    game = Game(GameConfig(players=4, skip_forced=True))
    # with gamma 1 a game's first return is its whole team reward: the terminal +-1 minus the Necromancer's progress
    firsts = [np.flatnonzero(demos["game"] == g)[0] for g in range(3)]
    for g, i in enumerate(firsts):
        won = demos["won"][g]  # the team's: the Necromancer lost
        # the shaping total is minus his progress, a change of phi (within 1.25 in any game)
        assert abs(demos["ret"][i] - (1.0 if won else -1.0)) <= 1.25 + 1e-6
    # the team plays 3 player seats: far more decisions per game than one seat would have
    single = collect_demos(DemoSpec(players=4, necromancer=True, learner="player", teacher="greedy",
                                    opponents="greedy"), games=3, seed=0)
    assert len(demos["action"]) > 2 * len(single["action"])
    assert game.num_seats == 4 and set(demos["won"]) <= {True, False}
