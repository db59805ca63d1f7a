"""The PettingZoo AEC env (issue 5): API conformance, agents, spaces, rewards, errors, pickling.

DESIGN.md §2 (agents and turn order), §3 (one Discrete action space), §4 (observation
space), §5 (rewards).
"""
from __future__ import annotations

import pickle
import re
import warnings

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo.test import api_test, seed_test

import necro_env
from necro_env.env import (
    ENV_ID, EnvUsageError, GameOverError, InvalidActionError, NecroEnvWrapper, raw_env,
)
from necro_env.game import NUM_ACTIONS, Phase, action_table
from necro_env.game.errors import ConfigError, IllegalActionError, StateError
from necro_env.observe import OBS_SIZE, OFFSETS

CONFIGS = [(2, False), (3, False), (4, False), (5, False), (3, True), (4, True), (5, True), (6, True)]
CONFIG_IDS = [f"{p}{'n' if n else 'b'}" for p, n in CONFIGS]
TERMINAL_INFO_KEYS = {"over", "truncated", "won", "winner_mask", "coins", "final_coins", "necromancer_won",
                      "rounds_played", "ghosts_in_play", "bought_ghosts", "bought_powers"}


def pick(obs: dict, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(obs["action_mask"])))


def play_out(env, rng: np.random.Generator, limit: int = 100_000) -> int:
    """Random legal play to the end (dead steps included); returns the decisions made."""
    n = 0
    for _ in env.agent_iter(limit):
        obs, _r, term, trunc, _i = env.last()
        if term or trunc:
            env.step(None)
        else:
            env.step(pick(obs, rng))
            n += 1
    return n


# ------------------------------------------------------------------------------ PettingZoo's own tests
@pytest.mark.parametrize("players,necro", CONFIGS, ids=CONFIG_IDS)
def test_pettingzoo_api_and_seed(players: int, necro: bool) -> None:
    """PettingZoo's api_test and seed_test pass on every seat count (base 2-5, scenario 3-6)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(necro_env.env(players=players, necromancer=necro), num_cycles=400)
        seed_test(lambda: necro_env.env(players=players, necromancer=necro), num_cycles=400)
    # Only the two warnings api_test gives every Dict-observation env not on its own list.
    allowed = ("Observation is not a NumPy array", "Observation space for each agent probably")
    unexpected = {str(w.message)[:90] for w in caught if not str(w.message).startswith(allowed)}
    assert not unexpected


@pytest.mark.parametrize("players,necro", [(2, False), (6, True)], ids=["2b", "6n"])
def test_pettingzoo_api_raw_env(players: int, necro: bool) -> None:
    """The bare env passes api_test too (it is a plain AECEnv)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(necro_env.raw_env(players=players, necromancer=necro), num_cycles=400)


def test_registry() -> None:
    """PettingZoo 1.27 has a registry: the env is registered under its id when necro_env is imported."""
    import pettingzoo

    assert necro_env.REGISTERED is True
    assert ENV_ID in pettingzoo.aec_registry
    env = pettingzoo.make("aec", "necro_env/NecromancerIsland-v1", players=5)
    assert isinstance(env, NecroEnvWrapper)
    assert env.possible_agents == ["player_0", "player_1", "player_2", "player_3", "necromancer_0"]
    env.reset(seed=0)
    assert play_out(env, np.random.default_rng(0)) > 0


def test_retired_version_names_its_successor() -> None:
    """The rules changed in v1: making v0 fails with a typed error naming v1; v0 records and states are refused."""
    import pettingzoo

    with pytest.raises(ConfigError, match="NecromancerIsland-v1"):
        pettingzoo.make("aec", "necro_env/NecromancerIsland-v0", players=4)
    env = necro_env.env(players=3)
    env.reset(seed=0)
    rec = env.unwrapped.record()
    rec["env_id"] = "necro_env/NecromancerIsland-v0"
    with pytest.raises(StateError, match="retired: use necro_env/NecromancerIsland-v1"):
        necro_env.replay(rec)
    saved = env.unwrapped.get_state()
    saved["env_id"] = "necro_env/NecromancerIsland-v0"
    with pytest.raises(StateError, match="NecromancerIsland-v1"):
        env.unwrapped.set_state(saved)


def test_exports() -> None:
    """The package exports env, raw_env, replay and its version."""
    assert callable(necro_env.env) and callable(necro_env.raw_env) and callable(necro_env.replay)
    assert isinstance(necro_env.__version__, str) and necro_env.__version__.count(".") == 2
    import importlib
    import sys

    importlib.import_module("necro_env.env")  # importing the submodule must not shadow the function
    assert callable(necro_env.env) and sys.modules["necro_env.env"].env is necro_env.env


# ------------------------------------------------------------------------------ agents and spaces
def test_agents_names() -> None:
    """DESIGN §2: player_0 ... and necromancer_0 in the last seat; base game: players only."""
    assert necro_env.env(players=4).possible_agents == ["player_0", "player_1", "player_2", "necromancer_0"]
    assert necro_env.env(players=6).possible_agents[-1] == "necromancer_0"
    assert necro_env.env(players=3, necromancer=False).possible_agents == ["player_0", "player_1", "player_2"]
    assert necro_env.env(players=2).possible_agents == ["player_0", "player_1"]  # 2 seats: base game


def test_spaces_identical_everywhere() -> None:
    """DESIGN §3/§4: one Discrete(NUM_ACTIONS) and one Dict(Box, Box) of the same size on every board and seat."""
    seen = set()
    for players, necro in CONFIGS:
        env = necro_env.env(players=players, necromancer=necro)
        for agent in env.possible_agents:
            a = env.action_space(agent)
            o = env.observation_space(agent)
            assert a is env.action_space(agent) and o is env.observation_space(agent)
            assert isinstance(a, spaces.Discrete) and a.n == NUM_ACTIONS == sum(size for _, _, size in action_table())
            assert isinstance(o, spaces.Dict) and set(o.spaces) == {"observation", "action_mask"}
            box, mask = o["observation"], o["action_mask"]
            assert box.shape == (OBS_SIZE,) and box.dtype == np.float32 and (box.low == 0).all()
            assert mask.shape == (NUM_ACTIONS,) and mask.dtype == np.int8 and mask.high.max() == 1
            seen.add((box.shape, float(box.high.sum()), a.n))
    assert len(seen) == 1


def test_agent_selection_is_the_deciding_seat() -> None:
    """DESIGN §2: agent_selection is always the engine's decider, with a non-empty mask; others see none."""
    rng = np.random.default_rng(1)
    defenders = 0
    for players in (3, 6):
        env = necro_env.env(players=players)
        env.reset(seed=players)
        raw = env.unwrapped
        assert env.agent_selection == "necromancer_0"  # he picks his starting power first
        for _ in env.agent_iter():
            obs, _r, term, _t, _i = env.last()
            if term:
                env.step(None)
                continue
            st = raw.game_state
            assert raw.seat_of(env.agent_selection) == st.decider
            assert obs["action_mask"].any()
            other = raw.possible_agents[(st.decider + 1) % players]
            assert not raw.observe(other)["action_mask"].any()
            if st.phase == Phase.DEFEND:
                assert st.decider != st.turn_seat
                defenders += 1
            env.step(pick(obs, rng))
    assert defenders > 0  # defenders were selected for their redeployment


# ------------------------------------------------------------------------------ options
def test_game_options_reach_the_config() -> None:
    """game_options go to GameConfig; bad values or names raise ConfigError."""
    env = necro_env.env(players=3, necromancer=False)
    assert env.unwrapped.game.necromancer is False and env.unwrapped.game.board.key == 3
    env = necro_env.env(players=5, handicap=2, game_turns=3)
    assert env.unwrapped.config.handicap == 2 and env.unwrapped.game.game_turns == 3
    env.reset(seed=0)
    assert play_out(env, np.random.default_rng(0)) > 0
    assert env.unwrapped.game_state.round == 3
    with pytest.raises(ConfigError, match="players must be 3-6"):
        necro_env.env(players=7)
    with pytest.raises(ConfigError, match="handicap"):
        necro_env.env(players=4, handicap=5)
    with pytest.raises(ConfigError, match="unknown game options \\['colour'\\]"):
        necro_env.env(players=4, colour="red")
    with pytest.raises(ConfigError, match="hide_coins must be a bool"):
        necro_env.env(players=4, hide_coins="yes")
    with pytest.raises(ConfigError, match="illegal_action"):
        necro_env.env(players=4, illegal_action="ignore")


def test_unknown_reward_scheme() -> None:
    """An unknown reward scheme is a ValueError naming the allowed ones."""
    with pytest.raises(ValueError, match="unknown reward scheme 'score'; allowed: 'win', 'rank', 'coins'"):
        necro_env.env(players=4, reward="score")
    with pytest.raises(ValueError, match="allowed"):
        necro_env.raw_env(players=4, reward=None)


# ------------------------------------------------------------------------------ rewards
def play_collecting(env, seed: int) -> tuple[dict, dict]:
    """Random play checking that last() shows everything accumulated since the agent's step.

    Returns the per-agent total reward seen through last() and the final infos.
    """
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    pending = {a: 0.0 for a in env.possible_agents}
    total = {a: 0.0 for a in env.possible_agents}
    infos = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        assert reward == pytest.approx(pending[agent], abs=1e-9)
        total[agent] += reward
        pending[agent] = 0.0
        if term:
            infos[agent] = info
            env.step(None)
        else:
            env.step(pick(obs, rng))
        for a, r in env.rewards.items():
            pending[a] += r
    return total, infos


@pytest.mark.parametrize("players,necro", [(4, False), (4, True), (6, True)], ids=["4b", "4n", "6n"])
def test_win_reward(players: int, necro: bool) -> None:
    """DESIGN §5 win: +1 to the winner(s), -1 to the others; the Necromancer +1 iff he wins."""
    for seed in range(4):
        env = necro_env.env(players=players, necromancer=necro)
        total, infos = play_collecting(env, seed)
        res = env.unwrapped.result()
        winners = set(res["winner_agents"])
        assert winners and res["over"]
        for agent, r in total.items():
            assert r == (1.0 if agent in winners else -1.0)
            assert infos[agent]["won"] == (agent in winners)
        if necro:
            assert (total["necromancer_0"] == 1.0) == res["necromancer_won"]
        for info in infos.values():
            assert set(info) == TERMINAL_INFO_KEYS
            assert info["final_coins"] == dict(zip(env.possible_agents, res["coins"]))
            assert info["winner_mask"] == [int(a in winners) for a in env.possible_agents]
            assert info["over"] and not info["truncated"] and info["coins"] == res["coins"]
        if necro:
            assert len(res["ghost_curve"]) == res["rounds_played"] or res["necromancer_won"]


def test_rank_reward() -> None:
    """DESIGN §5 rank: terminal, by final standing scaled to [-1, 1]."""
    for seed in range(4):
        env = necro_env.env(players=5, reward="rank")
        total, infos = play_collecting(env, seed)
        res = env.unwrapped.result()
        values = sorted(total.values())
        assert values[-1] == 1.0
        assert all(-1.0 <= v <= 1.0 for v in values)
        for w in res["winner_agents"]:
            assert total[w] == 1.0
        if res["necromancer_won"]:
            # he is first, the four players share places 2-5: mean position 2.5 of 0..4
            assert {total[a] for a in env.possible_agents if a != "necromancer_0"} == {-0.25}
            continue
        assert total["necromancer_0"] == -1.0 == values[0]
        coins = res["final_coins"]
        losers = [a for a in env.possible_agents if a != "necromancer_0" and a not in res["winner_agents"]]
        for a in losers:
            assert total[a] < 1.0
            for b in losers:
                if coins[a] > coins[b]:
                    assert total[a] > total[b]


def test_rank_reward_ties_share_the_mean() -> None:
    """Equal standings share the mean of their places (``necro_env.rewards``, used by both envs)."""
    from necro_env.rewards import terminal_rewards

    env = necro_env.raw_env(players=4, necromancer=False, reward="rank")
    env.reset(seed=0)
    st = env.game_state
    st.coins = [10, 10, 10, 10]
    st.winners = [0, 1, 2, 3]
    assert terminal_rewards(env.game, st, "rank") == [0.0, 0.0, 0.0, 0.0]
    st.winners = [2]
    assert terminal_rewards(env.game, st, "win") == [-1.0, -1.0, 1.0, -1.0]
    assert terminal_rewards(env.game, st, "coins") is None


def test_coins_reward_sums_to_the_coins_gained() -> None:
    """DESIGN §5 coins: dense; over a game each agent receives (final - starting coins) / 10."""
    for players in (3, 6):
        env = necro_env.env(players=players, reward="coins")
        total, infos = play_collecting(env, players)
        res = infos["player_0"]
        start = env.unwrapped.config.starting_coins
        for agent, r in total.items():
            assert r == pytest.approx((res["final_coins"][agent] - start) / 10, abs=1e-9)


def test_coins_reward_reaches_its_own_agent() -> None:
    """A scoring step credits the scoring agent, not the agent that happens to be selected next."""
    env = necro_env.raw_env(players=3, necromancer=False, reward="coins")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    while True:
        agent = env.agent_selection
        obs = env.observe(agent)
        before = list(env.game_state.coins)
        env.step(pick(obs, rng))
        after = env.game_state.coins
        seat = env.seat_of(agent)
        if after[seat] > before[seat] and env.game_state.turn_seat != seat:
            assert env.rewards[agent] == pytest.approx((after[seat] - before[seat]) / 10)
            assert env.agent_selection != agent
            assert env._cumulative_rewards[agent] == pytest.approx(env.rewards[agent])
            break


# ------------------------------------------------------------------------------ bad input
def test_bad_actions_raise_typed_errors_and_env_survives() -> None:
    """Out-of-range, wrong-typed, None-for-live and dict actions raise InvalidActionError; nothing changes."""
    env = necro_env.env(players=4)
    env.reset(seed=0)
    before = env.unwrapped.get_state()
    for bad, msg in ((NUM_ACTIONS, "out of range"), (-1, "out of range"), (3.0, "must be an int"),
                     ("5", "must be an int"), (True, "must be an int"), (None, "only for a terminated agent"),
                     ({"player_0": 1}, "not a dict"), (np.array([1, 2]), "must be an int")):
        with pytest.raises(InvalidActionError, match=msg):
            env.step(bad)
        assert env.unwrapped.get_state() == before
    assert issubclass(InvalidActionError, IllegalActionError)
    mask = env.last()[0]["action_mask"]
    legal = int(np.flatnonzero(mask)[0])
    env.step(np.int64(legal))  # numpy ints are fine
    assert env.unwrapped.record()["actions"] == [legal]
    env.reset(seed=0)
    env.step(np.array(legal, dtype=np.int32))  # so is a 0-d integer array
    assert play_out(env, np.random.default_rng(0)) > 0


def test_illegal_action_raw_env_raises() -> None:
    """The raw env raises IllegalActionError (naming the action) and stays unchanged and usable."""
    env = necro_env.raw_env(players=4)
    env.reset(seed=0)
    before = env.get_state()
    with pytest.raises(IllegalActionError, match=r"action 55 \(conquer 0\) is not legal for necromancer"):
        env.step(55)
    assert env.get_state() == before
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))


def test_illegal_action_terminate() -> None:
    """illegal_action='terminate' (default): the offender gets -1, the others 0, the game ends."""
    env = necro_env.env(players=4)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(30):
        env.step(pick(env.last()[0], rng))
    offender = env.agent_selection
    mask = env.last()[0]["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    env.step(illegal)
    assert all(env.terminations.values())
    assert env.rewards[offender] == -1.0
    assert all(r == 0.0 for a, r in env.rewards.items() if a != offender)
    note = env.infos[offender]["illegal_action"]
    assert note["agent"] == offender and note["action"] == illegal and "not legal" in note["message"]
    rec = env.unwrapped.record()
    assert rec["illegal"] == note and len(rec["actions"]) == 30
    seen = {}
    for agent in env.agent_iter():
        obs, reward, term, _t, _i = env.last()
        assert term and not obs["action_mask"].any()
        seen[agent] = reward
        env.step(None)
    assert seen[offender] == -1.0 and sum(seen.values()) == -1.0
    with pytest.raises(GameOverError):
        env.step(0)
    env.reset(seed=1)  # usable again
    assert play_out(env, rng) > 0


def test_illegal_action_raise_mode() -> None:
    """illegal_action='raise': IllegalActionError, nothing changes, play continues."""
    env = necro_env.env(players=3, illegal_action="raise")
    env.reset(seed=0)
    mask = env.last()[0]["action_mask"]
    before = env.unwrapped.get_state()
    with pytest.raises(IllegalActionError):
        env.step(int(np.flatnonzero(mask == 0)[0]))
    assert env.unwrapped.get_state() == before
    assert play_out(env, np.random.default_rng(0)) > 0


def test_step_after_the_end_and_before_reset() -> None:
    """Stepping after the end raises GameOverError (except the dead-step protocol); before reset: EnvUsageError."""
    env = necro_env.env(players=3)
    with pytest.raises(AttributeError, match="before reset"):
        _ = env.agent_selection
    with pytest.raises(EnvUsageError):
        env.step(0)
    raw = necro_env.raw_env(players=3)
    with pytest.raises(EnvUsageError):
        raw.step(0)
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    while not env.terminations[env.agent_selection]:
        env.step(pick(env.last()[0], rng))
    with pytest.raises(GameOverError, match="only valid action is None"):
        env.step(0)
    while env.agents:
        env.step(None)  # the dead-step protocol
    with pytest.raises(GameOverError, match="call reset"):
        env.step(None)
    env.reset()
    assert env.agents == env.possible_agents


# ------------------------------------------------------------------------------ seeding and pickling
def test_seeding() -> None:
    """reset(seed) replays the same game; reset() afterwards continues a deterministic seed chain."""
    def run(env, seed):
        env.reset(seed=seed)
        play_out(env, np.random.default_rng(7))
        first = env.unwrapped.record()
        env.reset()
        play_out(env, np.random.default_rng(8))
        return first, env.unwrapped.record()

    a1, a2 = run(necro_env.env(players=5), 11)
    b1, b2 = run(necro_env.env(players=5), 11)
    assert a1 == b1 and a2 == b2 and a1["seed"] == 11 and a2["seed"] != 11
    c1, _ = run(necro_env.env(players=5), 12)
    assert c1["actions"] != a1["actions"] or c1["result"] != a1["result"]
    with pytest.raises(ValueError, match="seed"):
        necro_env.env(players=5).reset(seed=-3)


@pytest.mark.parametrize("make", [necro_env.env, necro_env.raw_env], ids=["env", "raw_env"])
def test_pickle_fresh_env(make) -> None:
    """Envs pickle by their constructor arguments; the copy resets and plays."""
    env = make(players=5, reward="coins", handicap=1, hide_coins=True)
    clone = pickle.loads(pickle.dumps(env))
    assert type(clone) is type(env)
    u = clone.unwrapped
    assert u.reward_scheme == "coins" and u.config.handicap == 1 and u.hide_coins is True
    assert clone.possible_agents == env.possible_agents
    clone.reset(seed=3)
    env.reset(seed=3)
    rng1, rng2 = np.random.default_rng(0), np.random.default_rng(0)
    play_out(clone, rng1)
    play_out(env, rng2)
    assert clone.unwrapped.record() == env.unwrapped.record()
    if make is necro_env.env:
        assert pickle.loads(pickle.dumps(necro_env.env(players=3, illegal_action="raise"))).illegal_action == "raise"


# ------------------------------------------------------------------------------ the spec card
def _table_rows(doc: str, first_header: str) -> list[list[str]]:
    """The cells of the markdown table whose header row starts with ``| first_header``."""
    lines = doc.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {first_header} "))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def test_docstring_is_a_spec_card() -> None:
    """The env docstring lists the action table, the observation blocks, the rewards and the version history;
    its numbers and tables are generated from the action table and OFFSETS, row for row."""
    doc = necro_env.env.__doc__
    actions = [(kind, int(offset), int(size)) for kind, offset, size, _ in _table_rows(doc, "kind")]
    assert actions == [tuple(row) for row in action_table()]
    assert sum(size for _, _, size in actions) == NUM_ACTIONS
    blocks = [(b, int(start), int(length)) for b, start, length, _ in _table_rows(doc, "block")]
    assert blocks == [(b, s, n) for b, (s, n) in OFFSETS.items() if "." not in b]
    assert blocks[0][1] == 0 and all(s + n == s2 for (_, s, n), (_, s2, _) in zip(blocks, blocks[1:]))
    assert blocks[-1][1] + blocks[-1][2] == OBS_SIZE
    assert f"({OBS_SIZE},)" in doc and f"Discrete({NUM_ACTIONS})" in doc and "{" + "OBS_SIZE}" not in doc
    # every size the text names is the code's: Box shapes, Discrete sizes, the feature count
    assert {int(n) for n in re.findall(r"Box\(0, (?:high|1), \((\d+),\)", doc)} == {OBS_SIZE, NUM_ACTIONS}
    assert {int(n) for n in re.findall(r"Discrete\((\d+)\)", doc)} == {NUM_ACTIONS}
    assert {int(n) for n in re.findall(r"``observation``: (\d+) float32", doc)} == {OBS_SIZE}
    for word in ("``win``", "``rank``", "``coins``", "Version history", "v0", "necromancer_0"):
        assert word in doc
    assert raw_env.__doc__ and necro_env.env.__module__ == "necro_env.env"


def test_spec_card_describes_every_block_and_action_kind() -> None:
    """A new block or action kind needs its line of prose in the spec card (the numbers are generated)."""
    import sys

    env_module = sys.modules["necro_env.env"]  # the attribute necro_env.env is the function
    assert set(env_module.ACTION_MEANINGS) == {kind for kind, _, _ in action_table()}
    assert set(env_module.BLOCK_CONTENTS) == {b for b in OFFSETS if "." not in b}
    assert all(_table_rows(necro_env.env.__doc__, "kind")[i][3] for i in range(len(action_table())))


def test_spec_card_file_is_current() -> None:
    """docs/SPEC.md is the generated docstring: changing the layout or the actions without
    ``python tools/spec_card.py`` fails here."""
    import importlib.util
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location("spec_card_tool", root / "tools" / "spec_card.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    assert (root / "docs" / "SPEC.md").read_text(encoding="utf-8") == tool.render(), \
        "docs/SPEC.md is not current: run python tools/spec_card.py"


def test_deepcopy_copies_the_game_in_progress() -> None:
    """copy.deepcopy gives an independent env in the same position (unlike pickling)."""
    import copy

    env = necro_env.env(players=4, reward="coins")
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    for _ in range(25):
        env.step(pick(env.last()[0], rng))
    twin = copy.deepcopy(env)
    assert twin.unwrapped.get_state() == env.unwrapped.get_state()
    assert twin.agent_selection == env.agent_selection
    play_out(twin, np.random.default_rng(5))
    assert len(env.unwrapped.record()["actions"]) == 25  # the original is untouched
    play_out(env, np.random.default_rng(5))
    assert env.unwrapped.record() == twin.unwrapped.record()


@pytest.mark.parametrize("players,necro", [(2, False), (5, True)])
def test_agent_selection_always_has_a_real_choice(players, necro):
    """DESIGN §2: the env applies single-option decisions itself (skip_forced on by default),
    so every live agent_selection has at least two legal actions; records still replay exactly."""
    env = necro_env.env(players=players, necromancer=necro)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal) >= 2
        env.step(int(rng.choice(legal)))
    rec = env.unwrapped.record()
    assert rec["config"]["skip_forced"] is True
    again = necro_env.replay(rec)
    assert again.game_state.to_dict() == env.unwrapped.game_state.to_dict()
    assert necro_env.env(players=3, skip_forced=False).unwrapped.config.skip_forced is False


def _shape(x):
    """The structure of an info value: keys and list lengths, with the leaf types."""
    if isinstance(x, dict):
        return {k: _shape(v) for k, v in sorted(x.items())}
    if isinstance(x, list):
        return ("list", len(x), tuple(sorted({type(v).__name__ for v in x})))
    return type(x).__name__


def test_terminal_info_has_the_same_keys_and_shapes_in_every_game() -> None:
    """Learners that stack infos into arrays (Tianshou, TorchRL) need one structure in every game: the lists
    whose length varies (winners, winner_agents, ghost_curve) are only in ``result()``."""
    shapes, curve_lengths, winner_counts = set(), set(), set()
    for seed in range(12):
        env = necro_env.env(players=3, game_turns=3 + seed % 4)
        _total, infos = play_collecting(env, seed)
        res = env.unwrapped.result()
        curve_lengths.add(len(res["ghost_curve"]))
        winner_counts.add(len(res["winners"]))
        assert set(infos) == set(env.possible_agents)
        for info in infos.values():
            shapes.add(repr(_shape(info)))
    assert len(curve_lengths) > 1  # games of different lengths were played ...
    assert len(shapes) == 1        # ... and every info had one structure
    assert "ghost_curve" not in infos["player_0"] and "winner_agents" not in infos["player_0"]


def test_max_cycles_truncates_after_n_agent_steps() -> None:
    """max_cycles=N: after N agent steps every agent is truncated (not terminated), with no reward, each
    gets one last() with truncated=True and is removed by step(None); the info has the terminal keys."""
    for n in (1, 4, 37):
        env = necro_env.env(players=4, max_cycles=n)
        env.reset(seed=3)
        rng = np.random.default_rng(0)
        steps, seen_done = 0, []
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if term or trunc:
                assert trunc and not term and reward == 0.0
                assert set(info) == TERMINAL_INFO_KEYS and info["truncated"] and not info["over"]
                seen_done.append(agent)
                env.step(None)
            else:
                assert steps < n
                env.step(pick(obs, rng))
                steps += 1
        assert steps == n and sorted(seen_done) == sorted(env.possible_agents) and env.agents == []
        assert not env.unwrapped.result()["over"] and len(env.unwrapped.record()["actions"]) == n


def test_max_cycles_default_off_and_bad_values() -> None:
    env = necro_env.env(players=3)
    assert env.unwrapped.max_cycles is None
    env.reset(seed=1)
    assert play_out(env, np.random.default_rng(1)) > 0 and env.unwrapped.result()["over"]
    for bad in (0, -3, 2.5, True, "10"):
        with pytest.raises(ConfigError, match="max_cycles"):
            necro_env.env(players=3, max_cycles=bad)


def test_max_cycles_snapshot_round_trips() -> None:
    """A truncated env's snapshot loads (verified by replay) into an env with the same max_cycles only."""
    env = necro_env.env(players=3, max_cycles=5)
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    while not env.truncations[env.agent_selection]:
        env.step(pick(env.observe(env.agent_selection), rng))
    saved = env.unwrapped.get_state()
    twin = necro_env.env(players=3, max_cycles=5)
    twin.set_state(saved)
    assert twin.truncations == env.truncations and twin.infos == env.infos
    with pytest.raises(StateError, match="options"):
        necro_env.env(players=3).set_state(saved)
    # pickling keeps the option
    assert pickle.loads(pickle.dumps(env)).unwrapped.max_cycles == 5


def test_render_takes_the_mode_argument() -> None:
    """RLlib's PettingZooEnv.render() calls ``env.render(self.render_mode)``."""
    env = necro_env.env(players=3, render_mode="ansi")
    env.reset(seed=0)
    assert env.render("ansi") == env.render() and "player_0" in env.render()
    assert env.render("rgb_array").ndim == 3
    with pytest.raises(ConfigError, match="render mode"):
        env.render("video")
