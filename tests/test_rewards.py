"""One reward path (``necro_env.rewards.RewardTracker``) and one home for ``hide_coins`` (``GameConfig``).

The reward test plays one seeded game through the single-seat view and replays it through the AEC env:
the AEC env's opponents are driven by the same policies with the same generator the single-seat view
uses, the learner's moves are replayed, and at every learner decision the AEC env's accumulated reward
for the learner's agent (what ``last()`` returns) must equal the single-seat view's step reward.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import necro_env
from necro_env.agents.base import View
from necro_env.agents.registry import make_policy
from necro_env.game import Game, GameConfig
from necro_env.game.errors import ConfigError, StateError
from necro_env.observe import Observer
from necro_env.rewards import REWARD_SCHEMES, RewardTracker, progress_potential
from necro_env.single_seat import SingleSeatEnv


def _single_seat_game(env: SingleSeatEnv, seed: int) -> tuple[int, int, list[int], list[float]]:
    """One episode with random legal learner moves: (episode seed, learner seat, its actions, its rewards)."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    episode_seed, seat = env.privileged_info()["episode_seed"], env.seat
    actions, rewards = [], []
    done = False
    while not done:
        a = int(rng.choice(np.flatnonzero(env.action_masks())))
        _, r, done, _, _ = env.step(a)
        actions.append(a)
        rewards.append(r)
    return episode_seed, seat, actions, rewards


def _aec_rewards(players: int, opponents: str, scheme: str, shaping: float, episode_seed: int,
                 seat: int, actions: list[int]) -> list[float]:
    """The learner agent's accumulated reward at each of its decisions (and at the end) in the AEC env, the
    other seats played by fresh copies of the single-seat view's policies drawing from its generator."""
    env = necro_env.env(players=players, reward=scheme, shaping=shaping)
    env.reset(seed=episode_seed)  # the single-seat view's game of this episode
    raw = env.unwrapped
    game = raw.game
    pols = {s: make_policy(*_opponent(game, s, opponents)) for s in range(game.num_seats) if s != seat}
    rng = np.random.default_rng(episode_seed)  # SingleSeatEnv's opponents' generator for this episode
    seen: list[float] = []
    moves = iter(actions)
    for agent in env.agent_iter():
        _, reward, terminated, truncated, _ = env.last(observe=False)
        s = raw.seat_of(agent)
        if terminated or truncated:
            if s == seat:
                seen.append(reward)
            env.step(None)
            continue
        if s == seat:
            seen.append(reward)
            env.step(next(moves))
        else:
            env.step(int(pols[s].act(View(game, raw.game_state, s), rng)))
    assert next(moves, None) is None, "the AEC replay ended before the learner's moves ran out"
    return seen


def _opponent(game: Game, seat: int, opponents: str) -> tuple[str, str]:
    """The policy spec and role the single-seat view gives ``seat`` (its defaults: the heuristic Necromancer)."""
    return ("heuristic", "necromancer") if seat == game.necro_seat else (opponents, "player")


@pytest.mark.parametrize("scheme", [s for s in REWARD_SCHEMES if s != "coalition"])  # coalition: the team's
@pytest.mark.parametrize("shaping", [0.0, 0.75])                                       # (tests/test_team_learner.py)
@pytest.mark.parametrize("players,learner", [(3, "necromancer"), (4, "player")])
def test_aec_and_single_seat_pay_the_learner_the_same(scheme: str, shaping: float, players: int, learner: str):
    """Per learner decision, the AEC env's accumulated reward for the learner's seat equals the single-seat
    view's step reward, for every scheme, with and without shaping (one seeded game each)."""
    env = SingleSeatEnv(players=players, learner=learner, opponents="greedy", reward=scheme, shaping=shaping)
    for seed in (3, 11):
        episode_seed, seat, actions, single = _single_seat_game(env, seed)
        aec = _aec_rewards(players, "greedy", scheme, shaping, episode_seed, seat, actions)
        # aec[0] is what reached the seat before its first decision: nothing (no seat's coins or phi move
        # before its first decision in these rules), as the single-seat view pays nothing at reset
        assert aec[0] == 0.0
        assert len(aec) == len(single) + 1
        assert aec[1:] == pytest.approx(single, rel=1e-12, abs=1e-12), (scheme, shaping, seat)
        if shaping or scheme == "coins":
            assert any(r != 0.0 for r in single[:-1]), "dense rewards expected before the end"


def test_aec_shaping_adds_up_to_the_progress_made():
    """AEC env shaping: per agent, a game's rewards with shaping minus without equal shaping * (phi(end) - phi(start))."""
    totals = {}
    for shaping in (0.0, 2.0):
        env = necro_env.env(players=4, shaping=shaping)
        env.reset(seed=5)
        rng = np.random.default_rng(5)
        total = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            _, r, term, trunc, _ = env.last()
            total[agent] += r
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(env.last()[0]["action_mask"]))))
        totals[shaping] = total
        game, st = env.unwrapped.game, env.unwrapped.game_state
    start = game.new_state(5)
    for s, a in enumerate(env.possible_agents):
        progress = progress_potential(game, st, s) - progress_potential(game, start, s)
        assert totals[2.0][a] - totals[0.0][a] == pytest.approx(2.0 * progress, abs=1e-9)


def test_shaping_option_is_checked_and_kept_in_records_and_snapshots():
    """shaping: a number >= 0 (ConfigError otherwise, as in the single-seat view); recorded only when set."""
    for bad in (-0.5, "1", True, float("nan"), float("inf")):
        with pytest.raises(ConfigError, match="shaping"):
            necro_env.env(players=3, shaping=bad)
        with pytest.raises(ConfigError, match="shaping"):
            SingleSeatEnv(players=3, shaping=bad)
    env = necro_env.env(players=3, shaping=0.5)
    env.reset(seed=1)
    for _ in range(20):
        env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
    rec = env.unwrapped.record()
    assert rec["options"]["shaping"] == 0.5
    assert necro_env.replay(rec).shaping == 0.5
    twin = necro_env.env(players=3, shaping=0.5)
    twin.set_state(env.unwrapped.get_state())
    assert twin.unwrapped._cumulative_rewards == env.unwrapped._cumulative_rewards
    with pytest.raises(StateError, match="options"):
        necro_env.env(players=3).set_state(env.unwrapped.get_state())
    assert "shaping" not in necro_env.env(players=3).unwrapped._options()


def test_reward_tracker_terminal_and_dense_parts():
    """RewardTracker: nothing before the end under win/rank without shaping; the terminal reward once over."""
    game = Game(GameConfig(players=3, skip_forced=True))
    st = game.new_state(0)
    rng = np.random.default_rng(0)
    trackers = {s: RewardTracker(game, s) for s in REWARD_SCHEMES}
    for t in trackers.values():
        t.reset(st)
    sums = dict.fromkeys(REWARD_SCHEMES, np.zeros(3))
    while not st.over:
        la = game.legal_actions(st)
        game.apply(st, la[int(rng.integers(len(la)))])
        for name, t in trackers.items():
            paid = t.advance(st)
            if name != "coins" and not st.over:
                assert paid is None
            if paid is not None:
                sums[name] = sums[name] + np.asarray(paid)
    assert list(sums["win"]) == [1.0 if s in st.winners else -1.0 for s in range(3)]
    assert list(sums["rank"]) == pytest.approx(game.rank_scores(st))
    assert list(sums["coins"]) == pytest.approx([0.1 * (c - c0) for c, c0 in zip(st.coins, game.new_state(0).coins)])
    with pytest.raises(ConfigError, match="reward scheme"):
        RewardTracker(game, "glory")


# ------------------------------------------------------------------------------ illegal_action in the single seat
def test_single_seat_illegal_action_name_and_its_deprecated_alias():
    """SingleSeatEnv takes the AEC env's illegal_action; illegal= still works with a DeprecationWarning."""
    env = SingleSeatEnv(players=3, illegal_action="raise")
    assert env.illegal_action == "raise"
    with pytest.warns(DeprecationWarning, match="illegal_action"):
        old = SingleSeatEnv(players=3, illegal="raise")
    assert old.illegal_action == "raise" and old.illegal == "raise"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(ConfigError, match="illegal_action"):
            SingleSeatEnv(players=3, illegal="raise", illegal_action="terminate_please")
        with pytest.raises(ConfigError, match="pass illegal_action only"):
            SingleSeatEnv(players=3, illegal="terminate", illegal_action="raise")
    with pytest.raises(ConfigError, match="unknown illegal_action"):
        SingleSeatEnv(players=3, illegal_action="ignore")


# ------------------------------------------------------------------------------ hide_coins: one home
@pytest.mark.parametrize("hide", [False, True])
def test_hide_coins_is_read_from_the_game_config_everywhere(hide: bool):
    """The env, its observer, the single-seat view and a record all report GameConfig.hide_coins."""
    env = necro_env.env(players=3, hide_coins=hide)
    raw = env.unwrapped
    assert raw.config.hide_coins is hide and raw.game.config.hide_coins is hide
    assert raw.hide_coins is hide and raw.observer.hide_coins is hide and raw.game.hide_coins is hide
    single = SingleSeatEnv(players=3, hide_coins=hide)
    assert single.config.hide_coins is hide and single.hide_coins is hide and single.observer.hide_coins is hide
    env.reset(seed=2)
    for _ in range(10):
        env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
    rec = raw.record()
    assert rec["config"]["hide_coins"] is hide and "hide_coins" not in rec["options"]
    assert necro_env.replay(rec).hide_coins is hide
    state = raw.get_state()
    assert state["config"]["hide_coins"] is hide and "hide_coins" not in state["options"]


def test_contradicting_hide_coins_is_impossible_or_refused():
    """No second copy can disagree: the env's is read-only, an Observer or a record that contradicts the game's
    config is refused, and an older record that repeats the config's value is still read."""
    raw = necro_env.raw_env(players=3, hide_coins=True)
    with pytest.raises(AttributeError):
        raw.hide_coins = False
    with pytest.raises(AttributeError):
        raw.observer.hide_coins = False
    plain = Game(GameConfig(players=3))
    with pytest.raises(ConfigError, match="hide_coins"):
        Observer(plain, hide_coins=True)
    assert Observer(plain, hide_coins=False).hide_coins is False  # the same value is accepted
    raw.reset(seed=4)
    rec = raw.record()
    older = {**rec, "options": {**rec["options"], "hide_coins": True}}  # as records repeated it before
    assert necro_env.replay(older).hide_coins is True
    with pytest.raises(StateError, match="hide_coins"):
        necro_env.replay({**rec, "options": {**rec["options"], "hide_coins": False}})
    saved = raw.get_state()
    older_state = {**saved, "options": {**saved["options"], "hide_coins": True}}
    twin = necro_env.raw_env(players=3, hide_coins=True)
    twin.set_state(older_state)
    with pytest.raises(StateError, match="hide_coins"):
        twin.set_state({**saved, "options": {**saved["options"], "hide_coins": False}})
