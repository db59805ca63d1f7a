"""The opponent-speed and collection-profile benchmarks run and report what their docs say (tiny budgets; no
timing is asserted)."""
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
