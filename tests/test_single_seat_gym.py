"""The single-seat view as a Gymnasium env (issue 14.3): registered, bounded like the AEC env, the mask
inside the observation on request, render_mode honoured."""
from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import necro_env
from necro_env.game import NUM_ACTIONS
from necro_env.game.errors import ConfigError
from necro_env.single_seat import SingleSeatEnv


def test_registered_with_the_aec_envs_version() -> None:
    assert necro_env.SINGLE_SEAT_ENV_ID == "necro_env/NecromancerIslandSingleSeat-v1"
    assert necro_env.ENV_ID.rsplit("-", 1)[1] == necro_env.SINGLE_SEAT_ENV_ID.rsplit("-", 1)[1]
    env = gymnasium.make(necro_env.SINGLE_SEAT_ENV_ID, players=4, learner="player", opponents="greedy")
    assert isinstance(env.unwrapped, SingleSeatEnv) and env.unwrapped.learner == "player"
    obs, info = env.reset(seed=0)
    assert obs.shape == env.observation_space.shape and "seat" in info


def test_observation_space_is_the_aec_envs() -> None:
    aec = necro_env.env(players=3).observation_space("necromancer_0")
    for mask_in_obs in (False, True):
        env = SingleSeatEnv(players=3, mask_in_obs=mask_in_obs)
        box = env.observation_space["observation"] if mask_in_obs else env.observation_space
        assert box == aec["observation"] and np.isfinite(box.high).all() and (box.low == 0).all()
        if mask_in_obs:
            assert env.observation_space == aec
    # every observation of a few random games lies in the space
    env = SingleSeatEnv(players=4, learner="player", opponents="random", mask_in_obs=True)
    rng = np.random.default_rng(0)
    for ep in range(3):
        obs, _ = env.reset(seed=ep)
        done = False
        while not done:
            assert env.observation_space.contains(obs)
            assert np.array_equal(obs["action_mask"].astype(bool), env.action_masks())
            obs, _r, done, _t, _i = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert env.observation_space.contains(obs) and not obs["action_mask"].any()


def test_gymnasium_env_checker_passes_with_and_without_the_mask() -> None:
    for mask_in_obs in (False, True):
        check_env(SingleSeatEnv(players=3, mask_in_obs=mask_in_obs, render_mode="ansi"))


def test_render_mode_is_honoured() -> None:
    env = gymnasium.make(necro_env.SINGLE_SEAT_ENV_ID, players=3, render_mode="ansi")
    env.reset(seed=1)
    assert "round 1" in env.render()
    pic = SingleSeatEnv(players=3, render_mode="rgb_array")
    pic.reset(seed=1)
    frame = pic.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    silent = SingleSeatEnv(players=3)
    silent.reset(seed=1)
    with pytest.warns(UserWarning, match="render mode"):
        assert silent.render() is None


def test_human_mode_prints_on_reset_and_step(capsys) -> None:
    env = SingleSeatEnv(players=3, render_mode="human")
    env.reset(seed=2)
    assert "round 1" in capsys.readouterr().out
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert "Necromancer" in capsys.readouterr().out


def test_bad_options_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="render_mode"):
        SingleSeatEnv(players=3, render_mode="video")
    with pytest.raises(ConfigError, match="mask_in_obs"):
        SingleSeatEnv(players=3, mask_in_obs="yes")
    assert NUM_ACTIONS == SingleSeatEnv(players=3).action_space.n


def test_maskable_ppo_trains_on_the_registered_env() -> None:
    """sb3-contrib finds action_masks() through gymnasium.make's wrappers (a few updates, masked)."""
    pytest.importorskip("sb3_contrib", reason="sb3-contrib is not installed (the train extra)")
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env

    torch.set_num_threads(1)
    venv = make_vec_env(lambda: gymnasium.make(necro_env.SINGLE_SEAT_ENV_ID, players=3), n_envs=2, seed=0)
    model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=64, n_epochs=1, policy_kwargs={"net_arch": [32]},
                        seed=0)
    model.learn(128)
    assert model.num_timesteps == 128
    masks = np.stack(venv.env_method("action_masks"))
    assert masks.shape == (2, NUM_ACTIONS) and masks.any(axis=1).all()
