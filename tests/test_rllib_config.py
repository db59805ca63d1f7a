"""The RLlib side that needs no ray: the typed YAML config (training/rllib_config.py) and the
``rllib:PATH#MODULE`` policy specs' checks (syntax, directory, module, trust) before anything loads."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from necro_env.agents.registry import check_policy, make_policy  # noqa: E402
from necro_env.game.errors import ConfigError  # noqa: E402
from necro_env.agents.base import UntrustedPolicyError  # noqa: E402
from training.config import TrainConfigError  # noqa: E402
from training.rllib_config import config_from_dict, load_config  # noqa: E402

CONFIGS = Path(__file__).resolve().parents[1] / "configs"


def test_shipped_rllib_configs_load() -> None:
    paths = sorted(CONFIGS.glob("rllib_*.yaml"))
    assert paths
    for p in paths:
        cfg = load_config(p)
        assert cfg.name == p.stem and set(cfg.mapping()) == set(cfg.agents())


def test_policy_mappings() -> None:
    shared = config_from_dict({"name": "x", "players": 4})
    assert shared.mapping() == {"player_0": "players", "player_1": "players", "player_2": "players",
                                "necromancer_0": "necromancer"}
    assert shared.modules() == ["players", "necromancer"]
    per = config_from_dict({"name": "x", "players": 3, "policy_mapping": "per_agent"})
    assert per.modules() == ["player_0", "player_1", "necromancer_0"]
    custom = config_from_dict({"name": "x", "players": 3, "policy_mapping": {
        "player_0": "a", "player_1": "b", "necromancer_0": "necro"}})
    assert custom.modules() == ["a", "b", "necro"]
    base = config_from_dict({"name": "x", "players": 3, "necromancer": False})
    assert base.modules() == ["players"] and "necromancer_0" not in base.mapping()
    assert config_from_dict({"name": "x", "max_cycles": 50}).env_config()["max_cycles"] == 50


@pytest.mark.parametrize("data,match", [
    ({"name": "x", "bogus": 1}, "unknown key"),
    ({"players": 3}, "name"),
    ({"name": "x", "policy_mapping": "each"}, "policy_mapping"),
    ({"name": "x", "policy_mapping": {"player_0": "a", "player_1": "a"}}, "missing"),
    ({"name": "x", "policy_mapping": {"player_0": "a", "player_1": "a", "necromancer_0": "b", "player_9": "c"}},
     "unknown"),
    ({"name": "x", "policy_mapping": {"player_0": "a", "player_1": "a", "necromancer_0": "b/c"}}, "module id"),
    ({"name": "x", "minibatch_size": 5000, "train_batch_size": 1000}, "minibatch_size"),
    ({"name": "x", "num_env_runners": -1}, "num_env_runners"),
    ({"name": "x", "hidden": 64}, "hidden"),
    ({"name": "x", "hidden": [0]}, "hidden"),
    ({"name": "x", "players": 9}, "game_options"),
    ({"name": "x", "game_options": {"players": 4}}, "game_options"),
    ({"name": "x", "lr": float("nan")}, "lr"),
    ({"name": "x", "max_cycles": 0}, "max_cycles"),
    ({"name": "x", "iterations": True}, "iterations"),
])
def test_bad_configs_are_typed_errors(data: dict, match: str) -> None:
    with pytest.raises(TrainConfigError, match=match):
        config_from_dict(data)


def test_bad_yaml_file(tmp_path: Path) -> None:
    p = tmp_path / "c.yaml"
    p.write_text("name: [unclosed\n")
    with pytest.raises(TrainConfigError, match="not a valid YAML"):
        load_config(p)
    with pytest.raises(TrainConfigError, match="does not exist"):
        load_config(tmp_path / "missing.yaml")


def _fake_checkpoint(root: Path, modules: list[str]) -> Path:
    for m in modules:
        d = root / "learner_group" / "learner" / "rl_module" / m
        d.mkdir(parents=True)
        (d / "module_state.pkl").write_bytes(b"not loaded by the checks")
    return root


def test_rllib_specs_are_checked_before_loading(tmp_path: Path) -> None:
    ckpt = _fake_checkpoint(tmp_path / "ckpt", ["necromancer", "players"])
    with pytest.raises(ConfigError, match="not a directory"):
        check_policy(f"rllib:{tmp_path / 'nope'}#necromancer", "necromancer", trusted=True)
    with pytest.raises(ConfigError, match="no module 'ghosts'"):
        check_policy(f"rllib:{ckpt}#ghosts", "necromancer", trusted=True)
    with pytest.raises(ConfigError, match="name one"):
        check_policy(f"rllib:{ckpt}", "necromancer", trusted=True)
    with pytest.raises(ConfigError, match="RLlib checkpoint"):
        check_policy(f"rllib:{tmp_path}#necromancer", "necromancer", trusted=True)
    with pytest.raises(ConfigError, match="rllib:PATH#MODULE"):
        check_policy("rllib:", "necromancer", trusted=True)
    with pytest.raises(ConfigError, match="names no module"):
        check_policy(f"rllib:{ckpt}#", "necromancer", trusted=True)
    # a well-formed spec passes the checks only with trust: RLlib checkpoints are pickles
    check_policy(f"rllib:{ckpt}#necromancer", "necromancer", trusted=True)
    with pytest.raises(UntrustedPolicyError, match="pickles"):
        check_policy(f"rllib:{ckpt}#necromancer", "necromancer")
    with pytest.raises(UntrustedPolicyError):
        make_policy(f"rllib:{ckpt}#necromancer", "necromancer")


def test_rllib_train_command_line_errors(tmp_path: Path, capsys) -> None:
    """Bad input: one line on stderr and exit code 2, before Ray starts."""
    from training.rllib_train import main

    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nnum_env_runners: many\n")
    assert main(["--config", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rllib_train: error:") and "num_env_runners" in err and len(err.strip().splitlines()) == 1
    assert main(["--config", str(tmp_path / "missing.yaml")]) == 2
    ok = tmp_path / "ok.yaml"
    ok.write_text(f"name: x\nout_dir: {tmp_path}\n")
    assert main(["--config", str(ok), "--resume"]) == 2  # nothing to resume
    assert "no run to resume" in capsys.readouterr().err


# ------------------------------------------------------------------ joining a cluster with token authentication
def test_ray_auth_settings_turn_token_mode_on_for_an_explicit_address(tmp_path, monkeypatch) -> None:
    from training.rllib_train import ray_auth_settings

    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.ray/auth_token
    assert ray_auth_settings(None, None, {}) == {}  # a local Ray sets itself up
    assert ray_auth_settings("10.0.0.1:6379", None, {}) == {}  # no token anywhere: join without one
    assert ray_auth_settings("10.0.0.1:6379", None, {"RAY_AUTH_TOKEN": "abc"}) == {"RAY_AUTH_MODE": "token"}
    assert ray_auth_settings("10.0.0.1:6379", None, {"RAY_AUTH_TOKEN_PATH": "/t"}) == {"RAY_AUTH_MODE": "token"}
    assert ray_auth_settings("10.0.0.1:6379", None, {"RAY_AUTH_MODE": "disabled", "RAY_AUTH_TOKEN": "x"}) == {}
    (tmp_path / ".ray").mkdir()
    (tmp_path / ".ray" / "auth_token").write_text("0123abcd")
    assert ray_auth_settings("10.0.0.1:6379", None, {}) == {"RAY_AUTH_MODE": "token"}
    token = tmp_path / "cluster_token"
    token.write_text("feedbeef\n")
    assert ray_auth_settings("10.0.0.1:6379", str(token), {}) == {"RAY_AUTH_MODE": "token",
                                                                  "RAY_AUTH_TOKEN_PATH": str(token.resolve())}


def test_a_missing_token_file_or_one_without_an_address_exits_2(tmp_path, capsys) -> None:
    from training.rllib_train import main

    cfg = str(CONFIGS / "rllib_necro_3p.yaml")
    assert main(["--config", cfg, "--address", "10.0.0.1:6379", "--auth-token-file", str(tmp_path / "none")]) == 2
    assert "no token there" in capsys.readouterr().err
    (tmp_path / "empty").write_text("  \n")
    assert main(["--config", cfg, "--address", "10.0.0.1:6379", "--auth-token-file", str(tmp_path / "empty")]) == 2
    assert "no token there" in capsys.readouterr().err
    (tmp_path / "tok").write_text("abc")
    assert main(["--config", cfg, "--auth-token-file", str(tmp_path / "tok")]) == 2
    assert "pass --address HOST:PORT too" in capsys.readouterr().err


def test_a_refused_join_says_what_to_copy_to_each_node(monkeypatch) -> None:
    """A fake ``ray`` whose ``init`` fails as Ray 2.60's does without the token: one typed error that names
    the token, where it comes from and what each node needs (no Ray cluster is started)."""
    import types

    from training.rllib_config import config_from_dict
    from training.rllib_train import start_ray

    class RayError(Exception):
        pass

    def init(**kwargs):
        raise ConnectionError("Failed to connect to GCS at address 10.0.0.1:6379 within 20 seconds")

    fake = types.ModuleType("ray")
    fake.is_initialized, fake.init = (lambda: False), init
    fake.exceptions = types.SimpleNamespace(RayError=RayError)
    monkeypatch.setitem(sys.modules, "ray", fake)
    monkeypatch.delenv("RAY_AUTH_MODE", raising=False)
    with pytest.raises(TrainConfigError) as info:
        start_ray(config_from_dict({"name": "x", "players": 3}), "10.0.0.1:6379", {"RAY_AUTH_MODE": "token"})
    msg = str(info.value)
    for part in ("could not join the Ray cluster at 10.0.0.1:6379", "ConnectionError", "token mode on",
                 "ray get-auth-token", "~/.ray/auth_token", "--auth-token-file", "RAY_AUTH_MODE=token ray start --address"):
        assert part in msg, part
    import os

    assert os.environ["RAY_AUTH_MODE"] == "token"  # the driver's environment was set before joining


@pytest.mark.parametrize("value", [0, -1, True, "10", float("nan"), float("inf"), 1e6, 2.5e6, [5]])
def test_every_wall_time_cap_rejects_what_is_not_a_positive_number_of_minutes(value) -> None:
    """``max_minutes`` means the same in the SB3 recipe, the RLlib config, a reference run and an exploit run's
    ``--minutes``: one check."""
    from necro_env.game.errors import ConfigError
    from training.config import config_from_dict as sb3_config_from_dict
    from training.exploit import build_config
    from training.reference_run import ReferenceRunError, check_minutes

    with pytest.raises(TrainConfigError, match="max_minutes must be null or a positive number of minutes below 1e"):
        config_from_dict({"name": "x", "max_minutes": value})
    with pytest.raises(TrainConfigError, match="max_minutes must be null or a positive number of minutes below 1e"):
        sb3_config_from_dict({"name": "x", "max_minutes": value})
    with pytest.raises(ReferenceRunError, match="max_minutes must be a positive number of minutes below 1e"):
        check_minutes(value)
    with pytest.raises(ConfigError, match="--minutes must be a positive number of minutes below 1e"):
        build_config("coalition", 3, "heuristic", value, None, 0, None, "runs")


@pytest.mark.parametrize("value", [1e-4, 1, 60, 999_999.5])
def test_every_wall_time_cap_takes_a_positive_number_of_minutes(value) -> None:
    from training.config import config_from_dict as sb3_config_from_dict
    from training.reference_run import check_minutes

    assert config_from_dict({"name": "x", "max_minutes": value}).max_minutes == value
    assert sb3_config_from_dict({"name": "x", "max_minutes": value}).max_minutes == value
    assert check_minutes(value) == value
