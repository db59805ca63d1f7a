"""necro_env as an OpenSpiel game (``necro_env/openspiel.py``, issue 31): OpenSpiel's own random-simulation
test, clone and pickle round trips, the same game as ``necro_env.env`` for the same seed, and
``resample_from_infostate`` never changing what the seat observes while it does redraw what is hidden.

Skipped when OpenSpiel is not installed (``pip install -e '.[openspiel]'``)."""
from __future__ import annotations

import pickle
from collections import Counter

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="open-spiel is not installed (the openspiel extra)")

import necro_env  # noqa: E402
from necro_env import openspiel as O  # noqa: E402
from necro_env.env import make_config  # noqa: E402
from necro_env.game import ConfigError, GameConfig  # noqa: E402
from necro_env.game.catalog import POWERS  # noqa: E402


def load(**params):
    return pyspiel.load_game(O.GAME_NAME, {"players": 3, **params})


def random_positions(game, seeds, every=7, rng_seed=0):
    """States along random games of ``game`` (one in ``every`` decisions), for each seed."""
    rng = np.random.RandomState(rng_seed)
    out = []
    for seed in seeds:
        s = game.new_initial_state_for_seed(seed)
        n = 0
        while not s.is_terminal():
            if n % every == 0:
                out.append(s.clone())
            s.apply_action(rng.choice(s.legal_actions()))
            n += 1
    return out


def test_registered_with_the_parameters_and_type():
    assert O.GAME_NAME in [g.short_name for g in pyspiel.registered_games()]
    game = load(seed=3)
    t = game.get_type()
    assert t.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
    assert t.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert t.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert game.num_players() == 3 and game.num_distinct_actions() == necro_env.game.NUM_ACTIONS
    assert game.observation_tensor_shape() == [necro_env.observe.OBS_SIZE]
    assert game.information_state_tensor_shape() == [necro_env.observe.OBS_SIZE]
    assert game.config == make_config(3)
    base = load(players=2, necromancer=False, game_turns=4, hide_coins=True)
    assert base.config == GameConfig(players=2, necromancer=False, game_turns=4, hide_coins=True, skip_forced=True)
    assert O.config_from_params(dict(O.DEFAULT_PARAMS, **O.params_from_config(base.config))) == base.config


@pytest.mark.parametrize("params, words", [
    ({"reward": "coins"}, "reward must be one of"),
    ({"players": 2}, "players must be 3-6 with the Necromancer"),
    ({"players": 2, "necromancer": False, "reward": "coalition"}, "needs the Necromancer"),
    ({"forced_combos": "Elves+Flying"}, "forced_combos must be JSON"),
    ({"seed": -1}, "seed must be a non-negative int"),
])
def test_bad_parameters_raise_config_errors(params, words):
    with pytest.raises(ConfigError, match=words):
        O.NecroIslandGame({"players": 3, **params})


def test_openspiel_random_sim_test():
    """OpenSpiel's own consistency checks of a game (legal actions and masks, clones, observations, returns,
    history) over one random game. ``serialize=True`` is not possible for a Python sampled-stochastic game:
    OpenSpiel's serializer asks the game for ``GetRNGState``, which a Python game cannot provide (pickling
    works, next test)."""
    pyspiel.random_sim_test(load(seed=5), num_sims=1, serialize=False, verbose=False)


def test_clone_and_pickle_round_trips():
    game = load(seed=9)
    for s in random_positions(game, [9], every=23):
        c = s.clone()
        assert c.engine_state == s.engine_state and c.engine_state is not s.engine_state
        p = pickle.loads(pickle.dumps(s))
        assert str(p) == str(s) and p.engine_state == s.engine_state
        assert c.history() == p.history() == s.history() and c.move_number() == len(s.history())
        assert c.history_str() == s.history_str()
        for seat in range(3):
            np.testing.assert_array_equal(p.observation_tensor(seat), s.observation_tensor(seat))
        if s.is_terminal():
            assert p.returns() == s.returns()
            continue
        a = s.legal_actions()[-1]
        before, before_hist = s.engine_state.clone(), s.history()
        c.apply_action(a)
        p.apply_action(a)
        assert s.engine_state == before and s.history() == before_hist  # the clone is independent
        assert c.history() == p.history() == before_hist + [a]
        assert c.engine_state == p.engine_state  # and draws the same outcomes as the pickled copy
    g2 = pickle.loads(pickle.dumps(game))
    assert str(g2) == str(game) and g2.new_initial_state().engine_state == game.new_initial_state().engine_state


@pytest.mark.parametrize("options", [{"players": 3}, {"players": 4, "hide_coins": True},
                                     {"players": 2, "necromancer": False}])
def test_same_seed_same_game_as_the_aec_env(options):
    """The same seed and actions give, at every step, the env's observation and mask for every agent, and at the
    end the env's rewards as returns (``win``)."""
    env = necro_env.env(**options)
    env.reset(seed=2024)
    game = load(seed=2024, **options)
    s = game.new_initial_state()
    agents = env.possible_agents
    rng = np.random.default_rng(1)
    actions = []
    while not s.is_terminal():
        agent = env.agent_selection
        assert s.current_player() == agents.index(agent)
        for seat, a in enumerate(agents):
            np.testing.assert_array_equal(env.observe(a)["observation"], s.observation_tensor(seat))
        mask = env.observe(agent)["action_mask"]
        assert s.legal_actions() == list(np.flatnonzero(mask))
        assert s.legal_actions_mask() == list(mask)
        action = int(rng.choice(s.legal_actions()))
        env.step(action)
        s.apply_action(action)
        actions.append(action)
    assert s.current_player() == pyspiel.PlayerId.TERMINAL
    assert s.history() == actions == env.unwrapped.record()["actions"]
    assert env.unwrapped.game_state == s.engine_state
    assert s.returns() == [env._cumulative_rewards[a] for a in agents]
    assert sorted(set(s.returns())) in ([-1.0, 1.0], [1.0])


def test_returns_schemes():
    for reward in O.RETURN_SCHEMES:
        game = load(seed=4, reward=reward)
        s = random_positions(game, [4], every=10_000)[0]
        rng = np.random.RandomState(0)
        while not s.is_terminal():
            assert s.returns() == [0.0] * 3
            s.apply_action(rng.choice(s.legal_actions()))
        want = necro_env.rewards.terminal_rewards(game.engine, s.engine_state, reward)
        assert s.returns() == want and all(-1 <= r <= 1 for r in want)


def _hidden(st):
    """The parts of an engine state a player never sees (deck orders, badges, generator)."""
    return (tuple(st.race_deck), tuple(st.power_deck), tuple(st.necro_draw), tuple(st.necro_reserve), st.rng)


@pytest.mark.parametrize("options, seeds", [({"players": 3}, [5, 6]), ({"players": 4, "hide_coins": True}, [2, 4])])
def test_resample_keeps_what_the_seat_observes_and_redraws_the_hidden(options, seeds):
    game = load(**options)
    n = game.num_players()
    necro = n - 1
    rng = np.random.RandomState(7)
    positions = random_positions(game, seeds, every=9)
    changed = Counter()
    for s in positions:
        for seat in range(n):
            r = s.resample_from_infostate(seat, rng.random_sample)
            np.testing.assert_array_equal(r.observation_tensor(seat), s.observation_tensor(seat))
            assert r.observation_string(seat) == s.observation_string(seat)
            assert r.information_state_string(seat) == s.information_state_string(seat)
            assert r.current_player() == s.current_player()
            if seat == s.current_player():
                assert r.legal_actions() == s.legal_actions()
            a, b = s.engine_state, r.engine_state
            assert a.coins == b.coins and a.occ == b.occ and a.tok == b.tok and a.round == b.round
            # the same badges, only their places redrawn; his hidden slots hold badges he may draw
            assert sorted(a.power_deck + a.necro_draw + a.necro_reserve) == \
                sorted(b.power_deck + b.necro_draw + b.necro_reserve)
            assert sorted(a.race_deck) == sorted(b.race_deck)
            assert all(POWERS[p].necromancer_ok for p in b.necro_draw + b.necro_reserve if p >= 0)
            assert [p < 0 for p in a.necro_reserve] == [p < 0 for p in b.necro_reserve]
            # entries whose place the seat saw (forced combos on top, races back under the deck) stay
            for deck, head, tail in (("race_deck", s._race_head, s._race_tail),
                                     ("power_deck", s._power_head, s._power_tail)):
                da, db = getattr(a, deck), getattr(b, deck)
                assert da[:head] == db[:head] and da[len(da) - tail:] == db[len(db) - tail:]
                changed["known_tail"] += tail > 0
            if seat == necro:
                assert a.necro_draw == b.necro_draw and a.necro_reserve == b.necro_reserve
            changed["rng"] += a.rng != b.rng
            changed["race_deck"] += a.race_deck != b.race_deck
            changed["power_deck"] += a.power_deck != b.power_deck
            if seat != necro:
                changed["reserve"] += a.necro_reserve != b.necro_reserve
            # the original is untouched
        assert s.engine_state == s.clone().engine_state
    # it does redraw: the generator always, the decks and the player's view of his badges mostly
    total = len(positions) * n
    assert changed["rng"] == total
    assert changed["race_deck"] > total // 2 and changed["power_deck"] > total // 2
    assert changed["reserve"] > 0
    assert changed["known_tail"] > 0  # some race went back under the deck in these games


def test_resample_keeps_known_badges_and_deck_places():
    # his badges are known when the config names them
    game = load(seed=3, necromancer_powers='["Flying", "Swamp", "Hill", "Forest", "Merchant", "Mounted"]')
    rng = np.random.RandomState(0)
    for s in random_positions(game, [3], every=11):
        r = s.resample_from_infostate(0, rng.random_sample)
        assert r.engine_state.necro_draw == s.engine_state.necro_draw
        assert r.engine_state.necro_reserve == s.engine_state.necro_reserve
    # forced combos still on top of the decks keep their place (8 forced, 6 in the column)
    forced = [["Amazons", "Alchemist"], ["Dwarves", "Berserk"], ["Elves", "Commando"], ["Ghouls", "Diplomat"],
              ["Giants", "Flying"], ["Halflings", "Forest"], ["Humans", "Hill"], ["Orcs", "Merchant"]]
    import json

    s = load(seed=3, forced_combos=json.dumps(forced)).new_initial_state()
    assert (s._race_head, s._power_head) == (2, 2)
    for _ in range(5):
        r = s.resample_from_infostate(0, rng.random_sample).engine_state
        assert r.race_deck[:2] == s.engine_state.race_deck[:2] == [6, 7]
        assert r.power_deck[:2] == s.engine_state.power_deck[:2]
    # races that went back under the deck keep their place
    assert O._track([1, 2, 3], [2, 3, 9], 0, 0, True) == (0, 1)
    assert O._track([1, 2, 3, 9], [3, 9, 7], 1, 1, True) == (0, 2)
    assert O._track([1, 2, 3], [3, 1, 2], 2, 1, True) == (0, 0)  # reshuffled: nothing known
    # powers never go back under their deck: a longer deck is the discards shuffled in
    assert O._track([5, 6], [6], 2, 0, False) == (1, 0)
    assert O._track([], [7, 8, 9], 0, 0, False) == (0, 0)


def test_resample_is_reproducible_from_the_sampler():
    game = load(seed=8)
    s = random_positions(game, [8], every=40)[1]
    a = s.resample_from_infostate(0, np.random.RandomState(3).random_sample)
    b = s.resample_from_infostate(0, np.random.RandomState(3).random_sample)
    assert a.engine_state == b.engine_state


def test_importing_necro_env_does_not_import_pyspiel():
    import subprocess
    import sys

    code = "import sys, necro_env, necro_env.agents, necro_env.agents.registry; print('pyspiel' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_resample_depends_only_on_what_the_seat_knows():
    """Two states the seat cannot tell apart resample to the same state for the same sampler draws."""
    game = load(seed=12)
    for s in random_positions(game, [12], every=31)[1:]:
        for seat in range(3):
            other = s.resample_from_infostate(seat, np.random.RandomState(1).random_sample)
            a = s.resample_from_infostate(seat, np.random.RandomState(2).random_sample)
            b = other.resample_from_infostate(seat, np.random.RandomState(2).random_sample)
            assert a.engine_state == b.engine_state


# ---------------------------------------------------------------------------------- search players
from necro_env.agents.base import View  # noqa: E402
from necro_env.agents.registry import check_policy, make_policy  # noqa: E402
from necro_env.agents.search import SearchPolicy, parse_search_spec  # noqa: E402


@pytest.mark.parametrize("spec, words", [
    ("mcts", "give the simulations"), ("mcts:", "give the simulations"), ("mcts:0", "SIMS must be a whole number"),
    ("ismcts:-5", "SIMS must be a whole number"), ("mcts:ten", "SIMS must be a whole number"),
    ("mcts:1000001", "SIMS must be a whole number"), ("mcts:10:rollout=smart", "rollout must be one of"),
    ("mcts:10:depth=3", "unknown or repeated option"), ("mcts:10:uct_c=-1", "uct_c must be"),
    ("ismcts:10:reward=coins", "reward must be one of"), ("mcts:10:rollout=greedy:rollout=random", "repeated"),
    ("mcts:10:prior=smart", "prior must be one of"), ("ismcts:10:prior=greedy", "for mcts: only"),
])
def test_search_spec_errors(spec, words):
    with pytest.raises(ConfigError, match=words):
        check_policy(spec, "necromancer")


def test_search_specs_parse_and_build():
    assert parse_search_spec("MCTS:50") == {"kind": "mcts", "sims": 50, "rollout": "random", "uct_c": 2.0,
                                             "reward": "win", "prior": "uniform"}
    assert parse_search_spec("ismcts:7:rollout=greedy:uct_c=1.5:reward=coalition")["rollout"] == "greedy"
    pol = make_policy("ismcts:7:rollout=greedy", "player")
    assert isinstance(pol, SearchPolicy) and (pol.kind, pol.sims, pol.rollout) == ("ismcts", 7, "greedy")
    assert pol.name == "ismcts:7:rollout=greedy"
    assert pickle.loads(pickle.dumps(pol)).sims == 7  # evaluate's worker processes get the spec or a copy
    assert parse_search_spec("mcts:9:prior=greedy")["prior"] == "greedy"
    assert make_policy("mcts:9:prior=greedy", "necromancer").prior == "greedy"
    assert parse_search_spec("ismcts:9:prior=uniform")["prior"] == "uniform"


def test_greedy_prior_makes_a_two_simulation_search_play_the_scripted_move():
    """mcts:2:prior=greedy tries the script's move first (PUCT; the first simulation expands the root), so it
    plays it; a uniform prior plays some other move in some of the same positions."""
    from necro_env.agents.greedy import GreedyAgent
    from necro_env.agents.necromancer import NecromancerHeuristic

    game = load(seed=12)
    eng = game.engine
    lean, flat = make_policy("mcts:2:prior=greedy", "player"), make_policy("mcts:2", "player")
    same = differ = 0
    for s in random_positions(game, [12, 13], every=11)[:24]:
        if s.is_terminal() or len(s.legal_actions()) < 3:
            continue
        st = s.engine_state
        script = NecromancerHeuristic() if st.decider == eng.necro_seat else GreedyAgent()
        choices = {script.act(View(eng, st, st.decider), np.random.default_rng(k)) for k in range(4)}
        if len(choices) > 1:
            continue  # the script breaks a tie at random here
        assert lean.act(View(eng, st), np.random.default_rng(3)) in choices
        same += 1
        differ += flat.act(View(eng, st), np.random.default_rng(3)) not in choices
    assert same >= 5 and differ >= 1


@pytest.mark.parametrize("spec", ["mcts:6", "ismcts:6", "mcts:3:rollout=greedy", "ismcts:3:rollout=greedy",
                                  "mcts:4:prior=greedy"])
def test_search_players_choose_legal_moves_deterministically(spec):
    game = load(seed=21)
    eng = game.engine
    pol = make_policy(spec, "player")
    for s in random_positions(game, [21], every=37)[:4]:
        if s.is_terminal():
            continue
        view = View(eng, s.engine_state)
        before = s.engine_state.clone()
        a = pol.act(view, np.random.default_rng(5))
        assert a in view.legal
        assert a == pol.act(View(eng, s.engine_state), np.random.default_rng(5))
        assert s.engine_state == before  # the search works on copies
    assert pol.decisions > 0


def test_search_players_in_the_base_game():
    game = load(players=2, necromancer=False, seed=3)
    for spec in ("mcts:4", "ismcts:4:rollout=greedy"):
        pol = make_policy(spec, "player")
        for s in random_positions(game, [3], every=41)[1:3]:
            view = View(game.engine, s.engine_state)
            assert pol.act(view, np.random.default_rng(0)) in view.legal


def test_ismcts_uses_only_what_the_seat_observes():
    """ismcts: decides the same in every state its seat cannot tell from the real one (same rng)."""
    game = load(seed=30)
    eng = game.engine
    pol = make_policy("ismcts:8", "player")
    checked = 0
    for s in random_positions(game, [30], every=29)[1:5]:
        if s.is_terminal():
            continue
        seat = s.current_player()
        twin = s.resample_from_infostate(seat, np.random.RandomState(4).random_sample)
        assert twin.engine_state != s.engine_state
        a = pol.act(View(eng, s.engine_state), np.random.default_rng(9))
        b = pol.act(View(eng, twin.engine_state), np.random.default_rng(9))
        assert a == b
        checked += 1
    assert checked >= 2


def test_evaluate_runs_search_players(capsys):
    from necro_env.cli import main

    code = main(["evaluate", "--players", "3", "--necromancer", "mcts:4", "--players-policy", "ismcts:3",
                 "--games", "2", "--seed", "2024", "--json", "--quiet"])
    assert code == 0
    import json

    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["necromancer"]["policy"] == "mcts:4" and summary["necromancer"]["games"] == 2
    assert {p["policy"] for p in summary["policies"]} == {"mcts:4", "ismcts:3"}
