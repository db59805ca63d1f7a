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
        assert out["target_met"] == (out["ratio_to_connect_four"]["necro_env 6 seats"] >= out["target_ratio"])


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
