"""Rendering (issue 5): ansi text, human printing, rgb_array pictures; no plotting library at import."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import necro_env
from necro_env import render as R
from necro_env.env import EnvUsageError
from necro_env.game import Game, GameConfig
from necro_env.game.catalog import OCCUPANT_NAMES, POWERS
from necro_env.game.errors import ConfigError


def advance(env, steps: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        obs, _r, term, _t, _i = env.last()
        if term:
            return
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_ansi_contents() -> None:
    """ansi: turn and phase, every seat, the combo column, the Necromancer's Reserve/Island/Well, the regions."""
    env = necro_env.env(players=5, render_mode="ansi")
    env.reset(seed=3)
    advance(env, 40)
    text = env.render()
    assert isinstance(text, str)
    st = env.unwrapped.game_state
    for needle in ("Necromancer Island (board 4p)", f"round {st.round}/9", "Seats:", "Combo column:",
                   "Necromancer: Reserve", "Island", "Well", "souls", "next purchase", "reserve powers",
                   "Regions:", "terrain", "island", *env.possible_agents):
        assert needle in text, needle
    for race, power in zip(st.col_race, st.col_power):
        assert f"{OCCUPANT_NAMES[race]} + {POWERS[power].name}" in text
    for r in range(env.unwrapped.game.num_regions):
        assert f"\n  {r:>2}  " in text
    reserve = [POWERS[p].name for p in st.necro_reserve if p >= 0]
    assert all(name in text for name in reserve)  # a spectator view shows everything
    held = [r for r in range(env.unwrapped.game.num_regions) if st.occ[r] >= 0 and st.tok[r] > 0]
    r = held[0]
    row = next(line for line in text.splitlines() if line.startswith(f"  {r:>2}  "))
    assert OCCUPANT_NAMES[st.occ[r]] in row and f" {st.tok[r]:>3}" in row


def test_ansi_base_game_and_game_over() -> None:
    """The base game has no Necromancer section; after the end the header names the winner(s)."""
    env = necro_env.env(players=3, necromancer=False, render_mode="ansi")
    env.reset(seed=1)
    assert "Necromancer:" not in env.render() and "Small World (board 3p)" in env.render()
    advance(env, 10_000)
    text = env.render()
    assert "game over" in text and "winner(s)" in text


def test_human_prints(capsys) -> None:
    """human: prints the text view on reset, after each step and on render(); render() returns None."""
    env = necro_env.env(players=3, render_mode="human")
    env.reset(seed=0)
    assert "Seats:" in capsys.readouterr().out
    advance(env, 1)
    assert "Seats:" in capsys.readouterr().out
    assert env.render() is None
    assert "Combo column:" in capsys.readouterr().out


def test_rgb_array() -> None:
    """rgb_array: an H x W x 3 uint8 picture that changes after moves and is the same for the same state."""
    env = necro_env.env(players=6, render_mode="rgb_array")
    env.reset(seed=2)
    first = env.render()
    assert first.shape == (R.H, R.W, 3) and first.dtype == np.uint8
    advance(env, 30)
    later = env.render()
    assert later.shape == first.shape and not np.array_equal(first, later)
    twin = necro_env.env(players=6, render_mode="rgb_array")
    twin.reset(seed=2)
    advance(twin, 30)
    assert np.array_equal(twin.render(), later)
    # Occupied regions take their owner's colour: the picture has every seat colour in use.
    st = env.unwrapped.game_state
    owners = {st.race_owner[x] for x in st.occ if x >= 0 and st.race_owner[x] >= 0 and x < 14}
    flat = later[:R.H_BOARD].reshape(-1, 3)
    for o in owners:
        rgb = R.SEAT_RGB[o]
        declined = (rgb.astype(np.int32) * 55 // 100).astype(np.uint8)
        assert (flat == rgb).all(1).any() or (flat == declined).all(1).any()


def test_layout_deterministic_and_spread() -> None:
    """The board layout is computed once per board, deterministically, with regions kept apart."""
    for key in (2, 3, 4, 5):
        pos = R.layout(key)
        R.layout.cache_clear()
        again = R.layout(key)
        assert np.array_equal(pos, again)
        assert pos.min() >= 0 and pos.max() <= 1
        d = np.sqrt(((pos[:, None] - pos[None]) ** 2).sum(-1)) + np.eye(len(pos))
        assert d.min() > 0.03  # no two regions on top of each other


def test_render_errors() -> None:
    """No render mode: a warning and None; before reset: EnvUsageError; unknown mode: ConfigError."""
    env = necro_env.env(players=3)
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="without specifying any render mode"):
        assert env.render() is None
    with pytest.raises(EnvUsageError):
        necro_env.env(players=3, render_mode="ansi").render()
    with pytest.raises(ConfigError, match="render_mode"):
        necro_env.env(players=3, render_mode="video")


def test_render_module_does_not_import_matplotlib() -> None:
    """Rendering never imports a plotting library."""
    code = ("import sys, necro_env; e = necro_env.env(players=4, render_mode='rgb_array'); e.reset(seed=0); "
            "e.render(); print('matplotlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_one_off_helpers() -> None:
    """render.ansi / render.rgb_array work on an engine state directly."""
    g = Game(GameConfig(players=2, necromancer=False))
    st = g.new_state(0)
    assert "seat 0" in R.ansi(g, st)
    assert R.rgb_array(g, st).shape == (R.H, R.W, 3)
