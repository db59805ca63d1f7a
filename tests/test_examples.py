"""Tests of the examples in examples/ (issue 14.2, issue 30 item 4): each trains a few thousand env steps
with its library's own PettingZoo wrapper and idioms, then evaluates the learner's network (the
Necromancer's) through necro_env's evaluation harness against greedy players, next to the random policy in
that seat on the same games, and counts illegal actions (training and evaluation). A library that is not
installed skips its test, saying so (all three are in the dev extra, which `make install` installs).

The slow test (``@pytest.mark.slow``; deselected by default, see pyproject's pytest options; run it with
``pytest -m slow tests/test_examples.py``) trains one example for a few minutes and asserts that its
learner beats the random policy in its seat."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
sys.path.insert(0, str(EXAMPLES))

TERMINAL_INFO_KEYS = {"over", "truncated", "won", "winner_mask", "coins", "final_coins", "necromancer_won",
                      "rounds_played", "ghosts_in_play", "bought_ghosts", "bought_powers"}
EVAL_GAMES = 4  # the smoke tests' evaluation: 4 games of the learner and 4 of the random policy


def check_report(out: dict, library: str, steps: int) -> None:
    """The fields every example reports, with values a run of ``steps`` env steps on 3 seats can have."""
    assert out["library"] == library and out["task"] == "necro3-greedy"
    assert out["steps"] == out["env_steps"] >= steps
    assert out["learner"] == "necromancer_0" and out["opponents"] == "greedy" and out["reward"] == "win"
    # the Necromancer acts in a share of the decisions; each env step is one agent's decision
    assert 0 < out["learner_steps"] < out["steps"]
    assert out["training_games"] >= 1
    assert set(out["returns"]) == {"player_0", "player_1", "necromancer_0"}
    # with reward "win" a game pays +1 to its winners and -1 to the others: every mean return is in [-1, 1]
    assert out["learner_return"] == out["returns"]["necromancer_0"] and -1 <= out["learner_return"] <= 1
    assert out["eval_games"] == EVAL_GAMES and out["eval_decisions"] > EVAL_GAMES
    for rate, (lo, hi) in ((out["win_rate"], out["ci95"]), (out["random_win_rate"], out["random_ci95"])):
        assert 0.0 <= lo <= rate <= hi <= 1.0 and hi > lo
    assert out["train_illegal_actions"] == 0 and out["eval_illegal_actions"] == 0
    assert out["illegal_actions"] == 0
    json.dumps(out)  # the --json line is this dict


def test_tianshou_example() -> None:
    pytest.importorskip("tianshou", reason="tianshou is not installed (the dev extra installs it)")
    import tianshou_dqn

    out = tianshou_dqn.run(epochs=1, steps_per_epoch=1500, verbose=False, eval_games=EVAL_GAMES)
    check_report(out, "tianshou", 1500)
    assert out["episodes"] >= 2 and out["training_games"] == out["episodes"]
    # the replay buffer stacked the end-of-game infos of several games: one structure in every game
    assert TERMINAL_INFO_KEYS <= set(out["buffer_info_keys"])
    assert "illegal_action" not in out["buffer_info_keys"]  # the env's illegal-ending info never appeared


def test_torchrl_example() -> None:
    pytest.importorskip("torchrl", reason="torchrl is not installed (the dev extra installs it)")
    import torchrl_ppo

    out = torchrl_ppo.run(frames=1500, frames_per_batch=500, verbose=False, eval_games=EVAL_GAMES)
    check_report(out, "torchrl", 1500)
    assert out["env_steps"] == 1500 and out["updates"] > 0 and out["games"] == out["training_games"]


def test_benchmarl_example(tmp_path: Path) -> None:
    pytest.importorskip("benchmarl", reason="benchmarl is not installed (the dev extra installs it)")
    import benchmarl_ippo

    out = benchmarl_ippo.run(frames=1000, out=str(tmp_path), verbose=False, eval_games=EVAL_GAMES)
    check_report(out, "benchmarl", 1000)
    assert out["env_steps"] == 1000 and out["iterations"] == 2
    assert out["groups"] == ["necromancer_0", "player_0", "player_1"]


def test_monitor_counts_illegal_actions() -> None:
    """The training count can say more than 0: an action outside the mask is counted (and the env's default
    ``illegal_action="terminate"`` ends that game), a legal one is not."""
    import numpy as np
    from _common import Monitor

    import necro_env

    monitor = Monitor()
    env = monitor.wrap(necro_env.env(players=3))
    env.reset(seed=0)
    mask = env.observe(env.agent_selection)["action_mask"]
    env.step(int(np.flatnonzero(mask)[0]))
    assert monitor.illegal_actions == 0
    mask = env.observe(env.agent_selection)["action_mask"]
    env.step(int(np.flatnonzero(mask == 0)[0]))
    assert monitor.illegal_actions == 1 and sum(monitor.steps.values()) == 2
    assert all(env.terminations[a] or env.truncations[a] for a in env.agents)
    assert monitor.games == 1  # the game the illegal action ended has its returns


def test_learned_policy_counts_illegal_choices() -> None:
    """The evaluation count: a library policy choosing outside the legal actions is counted, and the game
    goes on with a legal action."""
    from _common import LearnedPolicy, evaluate_learner

    bad = LearnedPolicy("always-0", lambda obs, mask: int((~mask).nonzero()[0][0]) if (~mask).any() else 0)
    res = evaluate_learner(bad, players=3, opponents="random", games=1)
    assert res["eval_illegal_actions"] > 0 and res["eval_decisions"] >= res["eval_illegal_actions"]


@pytest.mark.slow
def test_torchrl_example_learns() -> None:
    """A few minutes of TorchRL PPO (its command line, as a user runs it) on the 2-seat base game with the
    dense ``coins`` reward: ``player_0``'s network, evaluated in every seat against random opponents on 200
    games, beats the random policy in that seat (its 95% interval lies above the random policy's rate)."""
    pytest.importorskip("torchrl", reason="torchrl is not installed (the dev extra installs it)")
    cmd = [sys.executable, str(EXAMPLES / "torchrl_ppo.py"), "--players", "2", "--reward", "coins",
           "--opponents", "random", "--frames", "100000", "--frames-per-batch", "1000", "--eval-games", "200",
           "--json"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["task"] == "player2-random" and out["steps"] == 100000 and out["illegal_actions"] == 0
    assert out["ci95"][0] > out["random_win_rate"], out
