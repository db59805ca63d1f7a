"""The benchmark scripts still run and report what their docs say (tiny budgets; no timing is asserted)."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

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


@pytest.mark.parametrize("name,args", [("engine_speed", ["--games", "1"]), ("env_speed", ["--decisions", "20"])])
def test_baseline_side_by_side(name: str, args: list[str], capsys: pytest.CaptureFixture) -> None:
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
    key = "6 necro mask dec/s" if name == "engine_speed" else "necro_env 6 seats dec/s"
    assert key in rows
    for r in rows.values():
        assert r["this_tree"] > 0 and r["baseline"] > 0 and r["ratio"] > 0
    assert _worktrees() == before  # the temporary worktree was removed
