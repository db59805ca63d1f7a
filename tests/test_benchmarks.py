"""The benchmark scripts still run and report what their docs say (tiny budgets; no timing is asserted)."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "benchmarks" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_env_speed_json(capsys: pytest.CaptureFixture) -> None:
    """env_speed: decisions/s for every env, ratios to connect four (median and lowest round), the target flag."""
    mod = _load("env_speed")
    assert mod.main(["--decisions", "40", "--repeats", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    rates = out["decisions_per_s"]
    assert {f"necro_env {p} seats" for p in (3, 4, 5, 6)} <= set(rates)
    assert all(v > 0 for v in rates.values())
    if "connect_four_v3" in rates:  # pygame present
        assert out["ratio_to_connect_four"]["connect_four_v3"] == 1.0
        for name, lo in out["ratio_to_connect_four_min"].items():
            assert 0 < lo <= out["ratio_to_connect_four"][name]
        ratio = out["ratio_to_connect_four"]
        assert out["target_all_met"] == all(ratio[f"necro_env {p} seats"] >= out["target_ratio_all"]
                                            for p in (3, 4, 5, 6))
        assert out["target_met"] == (ratio["necro_env 6 seats"] >= out["target_ratio"] and out["target_all_met"])


def test_env_speed_plays_legal_random_games() -> None:
    """The timed loop plays whole games with legal actions only (an illegal pick would end a game early)."""
    import necro_env

    mod = _load("env_speed")
    env = necro_env.env(players=4, illegal_action="raise")
    decisions, seconds, games = mod.run(env, 300, seed=3)
    assert decisions >= 300 and games >= 1 and seconds >= 0
    assert not env.agents  # the last game ran to its end


def test_env_speed_ceiling_row_plays_the_same_games() -> None:
    """--ceiling's env differs only in its observation (one fixed vector, a fresh copy each time): the same seeded
    random play, with the same masks, takes the same decisions and games as the real env's."""
    import necro_env

    mod = _load("env_speed")
    assert "necro_env 6, obs free" in [name for name, _, _ in mod._candidates(False, ceiling=True)]
    assert "necro_env 6, obs free" not in [name for name, _, _ in mod._candidates(False)]
    free, real = mod._free_observation_env(6), necro_env.env(players=6)
    assert mod.run(free, 200, seed=5)[::2] == mod.run(real, 200, seed=5)[::2]
    free.reset(seed=1)
    first = free.observe(free.agent_selection)["observation"]
    free.step(int(free.observe(free.agent_selection)["action_mask"].nonzero()[0][0]))
    later = free.observe(free.agent_selection)["observation"]
    assert later is not first and np.array_equal(later, first)
    assert first.shape == real.observation_space(real.possible_agents[0])["observation"].shape


def test_engine_speed_json(capsys: pytest.CaptureFixture) -> None:
    """engine_speed: one row per configuration with the mask and list rates."""
    mod = _load("engine_speed")
    assert mod.main(["--games", "1", "--repeats", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    configs = {(r["players"], r["necromancer"]) for r in out["rows"]}
    assert configs == {(p, False) for p in (2, 3, 4, 5)} | {(p, True) for p in (3, 4, 5, 6)}
    for r in out["rows"]:
        assert r["mask_decisions_per_sec"] > 0 and r["list_decisions_per_sec"] > 0
    assert 0 < out["startup"]["startup_s"]


def test_viewer_speed_json(capsys: pytest.CaptureFixture) -> None:
    """viewer_speed: full-length games, page sizes under the 2 MB target; browser figures when Chromium is here."""
    mod = _load("viewer_speed")
    assert mod.main(["--repeats", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    six = out["rows"][0]
    assert six["rounds"] == 10 and six["actions"] > 100
    assert all(r["bytes"] < mod.TARGET_BYTES for r in out["rows"])
    if out["browser_missing"] is None:
        assert all(r["open_ms"] > 0 and r["step_ms"] > 0 for r in out["rows"])


def _worktrees() -> str:
    import subprocess

    return subprocess.run(["git", "-C", str(ROOT), "worktree", "list"], capture_output=True, text=True).stdout


@pytest.mark.parametrize("name,args,key", [
    ("engine_speed", ["--games", "1"], "6 necro mask dec/s"),
    ("env_speed", ["--decisions", "20"], "necro_env 6 seats dec/s"),
    ("learner_speed", ["--steps", "64", "--setups", "1"], "dummy, 1 thread steps/s"),
])
def test_baseline_side_by_side(name: str, args: list[str], key: str, capsys: pytest.CaptureFixture) -> None:
    """--baseline REV: both columns and their ratio per row, from a temporary worktree that is gone afterwards."""
    import shutil
    import subprocess

    if shutil.which("git") is None or subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"],
                                                     capture_output=True).returncode != 0:
        pytest.skip("not a git checkout: --baseline needs git")
    before = _worktrees()
    mod = _load(name)
    assert mod.main([*args, "--repeats", "1", "--baseline", "HEAD", "--json"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert "ratio" in lines[1] and "baseline HEAD" in lines[1]
    table = json.loads(lines[-1])
    assert table["baseline"] == "HEAD" and table["rounds"] == 1
    rows = {r["row"]: r for r in table["rows"]}
    assert key in rows
    for r in rows.values():
        assert r["this_tree"] > 0 and r["baseline"] > 0 and r["ratio"] > 0
    assert _worktrees() == before  # the temporary worktree was removed


# ---------------------------------------------- the opponent-speed and collection-profile benchmarks
def test_opponent_speed_side_by_side(capsys: pytest.CaptureFixture) -> None:
    """Both columns and their ratio per policy and seat count; the same tree twice plays the same games."""
    mod = _load("opponent_speed")
    assert mod.main(["--games", "1", "--repeats", "1", "--baseline-tree", str(ROOT), "--json"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    out = json.loads(lines[-1])
    keys = {f"{p} {n} seats" for p in ("greedy", "heuristic") for n in (3, 6)}
    assert set(out["median"]["current"]) == keys == set(out["median"]["baseline"])
    assert all(v > 0 for v in out["median"]["current"].values())
    assert out["same_games"] is True and "same games in both trees" in lines


def test_opponent_speed_worker_digest_follows_the_decisions(monkeypatch: pytest.MonkeyPatch) -> None:
    """The action digest changes when a policy decides differently (what ``same_games`` relies on)."""
    mod = _load("opponent_speed")
    base = mod.worker(1, 0)["digest"]
    from necro_env.agents.greedy import GreedyAgent

    monkeypatch.setattr(GreedyAgent, "FEED_PENALTY", -5.0)
    assert mod.worker(1, 0)["digest"] != base


def test_simulate_startup_row(capsys: pytest.CaptureFixture) -> None:
    mod = _load("opponent_speed")
    assert mod.main(["--startup", "--repeats", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["median"]["current"]["simulate start-up s"] > 0


def test_collection_profile_parts(capsys: pytest.CaptureFixture) -> None:
    """The split covers the collection: parts are shares in [0, 1] and the env's parts fit in the env's time."""
    mod = _load("collection_profile")
    assert mod.main(["--steps", "4", "--json"]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    share = out["share"]
    assert out["steps"] == 4 * 16
    assert all(0.0 <= v <= 1.0 for v in share.values())
    env_parts = sum(share[k] for k in ("env: observation", "env: opponents", "env: engine", "env: other"))
    assert env_parts == pytest.approx(share["env (all)"], abs=1e-6) or env_parts >= share["env (all)"]
    assert share["env: opponents"] > 0 and share["net forward"] > 0


def test_collection_timed(capsys: pytest.CaptureFixture) -> None:
    mod = _load("collection_profile")
    assert mod.main(["--steps", "2", "--timed", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["steps_per_cpu_s"] > 0 and len(out["rounds"]) == 2
