"""make reproduce (training/reproduce.py): the plan that retrains a shipped policy from its config and
recorded seed, then evaluates it as docs/results/LEARNING.md does. Nothing is trained here."""
from __future__ import annotations

import pytest

pytest.importorskip("torch")

from necro_env.agents.registry import pretrained_names  # noqa: E402
from necro_env.game.errors import ConfigError  # noqa: E402
from training import reproduce  # noqa: E402


@pytest.mark.parametrize("name", [n for n in pretrained_names() if not n.startswith(("league_", "exploiter_"))])
def test_plan_trains_the_config_with_the_recorded_seed_and_evaluates_as_the_docs_do(name, tmp_path):
    role, info = reproduce.recorded(name)
    todo = reproduce.plan(name, str(tmp_path))
    if info["config"].get("learner") == "players":
        role = "players"  # a team network (a player policy file) is evaluated in every player seat
    assert todo["seed"] == info["config"]["seed"] and todo["role"] == role
    train = todo["train"]
    assert train[train.index("--config") + 1].endswith(f"configs/{name}.yaml")
    assert train[train.index("--seed") + 1] == str(info["config"]["seed"])
    assert train[train.index("--out-dir") + 1] == str(tmp_path)
    assert todo["run_dir"] == str(tmp_path / f"{name}__s{todo['seed']}")
    for label, spec in (("retrained", f"{todo['run_dir']}/final.safetensors"), ("shipped", f"pretrained:{name}")):
        cmd = " ".join(todo["evaluate"][label])
        assert "--games 600 --seed 2024" in cmd and f"--players {todo['players']}" in cmd
        if role == "necromancer":
            assert f"--necromancer {spec} --players-policy greedy" in cmd
        elif role == "players":
            assert f"--necromancer heuristic --players-policy {spec} --games" in cmd
        else:
            assert f"--no-necromancer --players-policy {spec} --opponents greedy" in cmd
    # Today's configs learn as the shipped runs did: every difference is a key added later with its default.
    assert all("not recorded (added later)" in line for line in todo["differences"])


def test_a_wall_time_cap_is_a_learning_key_only_where_it_stopped_the_run():
    rec, now = {"max_minutes": 58, "seed": 0}, {"max_minutes": None, "seed": 0}
    assert reproduce.config_differences(rec, now, cap_bound=True) == ["max_minutes: recorded 58, now None"]
    assert reproduce.config_differences(rec, now, cap_bound=False) == []


def test_a_key_added_later_at_its_default_is_no_difference():
    rec, now = {"seed": 0}, {"seed": 0, "opponent_pool": None, "pipeline": True}
    assert reproduce.config_differences(rec, now, defaults={"opponent_pool": None, "pipeline": False}) == [
        "pipeline: not recorded (added later), now True"]


def test_config_differences_name_changed_added_and_dropped_keys_but_not_where_a_run_goes():
    rec = {"name": "abl", "out_dir": "runs/x", "learning_rate": 3e-4, "gone": 1, "same": 2}
    now = {"name": "n", "out_dir": "runs", "learning_rate": 5e-4, "new": True, "same": 2}
    assert reproduce.config_differences(rec, now) == [
        "gone: recorded 1, no longer a key", "learning_rate: recorded 0.0003, now 0.0005",
        "new: not recorded (added later), now True"]


def test_stepping_the_same_envs_elsewhere_is_no_learning_difference():
    """dummy <-> chunked (any worker count) give the same weights; the batched vec env does not (float bits)."""
    rec = {"vec_env": "dummy", "env_workers": 2, "seed": 0}
    assert reproduce.config_differences(rec, {"vec_env": "chunked", "env_workers": 1, "seed": 0}) == []
    assert reproduce.config_differences(rec, {"vec_env": "batched", "env_workers": 2, "seed": 0}) == [
        "vec_env: recorded 'dummy', now 'batched'"]


def test_unknown_names_are_refused(capsys):
    with pytest.raises(ConfigError, match="shipped: .*necromancer_3p"):
        reproduce.recorded("nope")
    assert reproduce.main(["nope", "--dry-run"]) == 2
    assert "no shipped policy 'nope'" in capsys.readouterr().err


def test_dry_run_prints_the_plan_and_runs_nothing(tmp_path, capsys):
    assert reproduce.main(["necromancer_3p", "--dry-run", "--out-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "the same learning keys" in out and "train:" in out and "--seed 0" in out
    assert not any(tmp_path.iterdir())


def test_a_league_file_names_the_league_that_rebuilds_it(monkeypatch, capsys):
    monkeypatch.setattr(reproduce, "recorded", lambda name: ("necromancer", {"config": {"seed": 3, "learner": "necromancer"}}))
    with pytest.raises(ConfigError, match=r"league_train.py configs/league_3p.yaml.*runs/league_3p/league_necromancer_3p"):
        reproduce.plan("league_necromancer_3p", "runs/x")
    with pytest.raises(ConfigError, match="no training config configs/elsewhere_3p.yaml"):
        reproduce.plan("elsewhere_3p", "runs/x")
    monkeypatch.setattr(reproduce, "recorded", lambda name: ("player", {"config": {"seed": 0, "name": "exploit_coalition"}}))
    with pytest.raises(ConfigError, match="best response of a `necro-env exploit` run"):
        reproduce.plan("exploiter_players_3p", "runs/x")
    monkeypatch.undo()
    assert reproduce.main(["exploiter_players_3p", "--dry-run"]) == 2
    assert "necro-env exploit" in capsys.readouterr().err
    assert reproduce.main(["league_players_3p", "--dry-run"]) == 2
    assert "configs/league_3p.yaml" in capsys.readouterr().err
