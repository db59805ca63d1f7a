"""Smoke tests of the examples in examples/ (issue 14.2): each runs a few thousand env steps with its
library's own PettingZoo wrapper and idioms, and plays no illegal action. A library that is not installed
skips its test, saying so (all three are in the dev extra, which `make install` installs)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
sys.path.insert(0, str(EXAMPLES))

TERMINAL_INFO_KEYS = {"over", "truncated", "won", "winner_mask", "coins", "final_coins", "necromancer_won",
                      "rounds_played", "ghosts_in_play", "bought_ghosts", "bought_powers"}


def test_tianshou_example() -> None:
    pytest.importorskip("tianshou", reason="tianshou is not installed (the dev extra installs it)")
    import tianshou_dqn

    out = tianshou_dqn.run(epochs=1, steps_per_epoch=1500, verbose=False)
    assert out["env_steps"] >= 1500 and out["episodes"] >= 2
    # the replay buffer stacked the end-of-game infos of several games: one structure in every game
    assert TERMINAL_INFO_KEYS <= set(out["buffer_info_keys"])
    assert out["illegal_actions"] == 0


def test_torchrl_example() -> None:
    pytest.importorskip("torchrl", reason="torchrl is not installed (the dev extra installs it)")
    import torchrl_ppo

    out = torchrl_ppo.run(frames=1500, frames_per_batch=500, verbose=False)
    assert out["env_steps"] == 1500 and out["updates"] > 0 and out["games"] >= 1
    assert out["illegal_actions"] == 0


def test_benchmarl_example(tmp_path: Path) -> None:
    pytest.importorskip("benchmarl", reason="benchmarl is not installed (the dev extra installs it)")
    import benchmarl_ippo

    out = benchmarl_ippo.run(frames=1000, out=str(tmp_path), verbose=False)
    assert out["env_steps"] == 1000 and out["iterations"] == 2
    assert out["groups"] == ["necromancer_0", "player_0", "player_1"]
    assert out["rollout_steps"] == 200 and out["illegal_actions"] == 0
