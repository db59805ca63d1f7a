"""training/reference_run.py (issue 30, item 3): one command trains a library's learner on a benchmark task
for a budget of env steps or until a wall-time cap, scores it with the task's evaluation and writes one
results file that ``necro-env benchmark --results`` reads. Tiny runs here (a few hundred env steps, 2-3
evaluation games, so ``"protocol": false``); the RLlib run is slow on a shared machine (Ray's start-up) and
is marked slow (``pytest -m slow tests/test_reference_run.py``)."""
from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from necro_env.benchmark import TASKS, check_result, get_task, load_results  # noqa: E402
from necro_env.game.errors import ConfigError  # noqa: E402
from training.reference_run import (ReferenceRunError, main, parse_budget, reference_run,  # noqa: E402
                                    rllib_config, sb3_config)

#: SB3's recipe shrunk to seconds: a small MLP, a 2-game warm start, 2 envs of 64-step rollouts.
SB3_TINY = dict(policy="mlp", net_arch=[32], net={}, n_envs=2, n_steps=64, batch_size=64, n_epochs=1,
                checkpoint_every=0, warm_start={"teacher": "heuristic", "games": 2, "epochs": 1, "batch_size": 64,
                                                "learning_rate": 0.001, "workers": 1})


def check_run(res: dict, tmp_path: Path, library: str, task: str, seed: int, budget) -> dict:
    """The results file of a finished run: where it should be, accepted by the aggregation's checks."""
    f = tmp_path / f"{library}_{task}_{budget}_s{seed}.json"
    assert res["file"] == str(f) and f.is_file()
    data = json.loads(f.read_text())
    check_result(data, str(f))
    assert data["library"] == library and data["task"] == task and data["seed"] == seed and data["budget"] == budget
    assert data["budget_steps"] == (budget if isinstance(budget, int) else get_task(task).budget_steps(budget))
    assert data["protocol"] is False and data["eval_seed"] == 2024
    assert isinstance(data["capped"], bool) and data["max_minutes"] > 0
    assert 0 < data["train_seconds"] <= data["wall_seconds"] and data["eval_seconds"] >= 0
    assert all(Path(p).exists() for p in data["policy_files"]) and data["policy_files"]
    assert math.isfinite(data["score"]) and 0 <= data["win_rate"] <= 1
    assert data["games"] == data["eval_games"] * sum(len(s.opponents) for s in get_task(task).sides)
    return data


def test_sb3_tiny_run_writes_a_results_file_the_aggregation_reads(tmp_path: Path) -> None:
    res = reference_run("sb3", "necro3-greedy", 0, budget=256, games=3, out_dir=tmp_path, overrides=SB3_TINY)
    data = check_run(res, tmp_path, "sb3", "necro3-greedy", 0, 256)
    assert data["algorithm"] == "MaskablePPO" and data["env_steps"] == 256 and data["capped"] is False
    assert data["eval_games"] == 3 and data["policy"] == data["policy_files"][0]
    cfg = data["training"]["config"]
    assert cfg["total_steps"] == 256 and cfg["learner"] == "necromancer" and cfg["opponents"] == "greedy"
    assert data["training"]["overrides"]["n_envs"] == 2  # a shrunk run says so
    # the trained file is a policy of the task's learner wherever a spec is accepted
    from necro_env.agents.registry import make_policy

    make_policy(data["policy_files"][0], "necromancer")
    from necro_env.benchmark import ResultsFileError

    with pytest.raises(ResultsFileError, match="capped must be true or false"):
        check_result({**data, "capped": "yes"}, "x.json")
    (run,) = load_results(tmp_path)
    assert run["library"] == "sb3" and run["score"] == data["score"]
    pytest.importorskip("rliable", reason="rliable is not installed (the bench extra)")
    from necro_env.benchmark import aggregate

    agg = aggregate([run], reps=20)
    assert agg["budgets"]["256"]["tasks"]["necro3-greedy"]["sb3"]["runs"] == 1
    # a second run over the same file needs --force
    with pytest.raises(ReferenceRunError, match="exists: pass --force"):
        reference_run("sb3", "necro3-greedy", 0, budget=256, games=3, out_dir=tmp_path, overrides=SB3_TINY)


def test_the_cap_stops_an_sb3_run_before_its_budget(tmp_path: Path) -> None:
    tiny = {**SB3_TINY, "warm_start": None}
    res = reference_run("sb3", "player2-greedy", 1, budget="small", max_minutes=0.02, games=2, out_dir=tmp_path,
                        overrides=tiny)
    data = check_run(res, tmp_path, "sb3", "player2-greedy", 1, "small")
    assert data["capped"] is True and 0 < data["env_steps"] < 1_000_000 and data["max_minutes"] == 0.02
    assert data["games"] == 2


def test_tianshou_tiny_run_and_its_cap(tmp_path: Path) -> None:
    pytest.importorskip("tianshou", reason="tianshou is not installed (the dev extra)")
    res = reference_run("tianshou", "players3-heuristic", 2, budget=300, games=2, out_dir=tmp_path)
    data = check_run(res, tmp_path, "tianshou", "players3-heuristic", 2, 300)
    assert data["algorithm"] == "DQN" and data["env_steps"] == 300 and data["capped"] is False
    assert data["sides"][0]["learner"] == "players" and data["policy"].startswith("tianshou-dqn:")
    assert data["eval_illegal_actions"] == 0  # Tianshou's masked argmax never picks an illegal action
    import torch

    assert torch.load(data["policy_files"][0], weights_only=True)  # the DQN's weights
    capped = reference_run("tianshou", "necro3-greedy", 0, budget=100_000, max_minutes=1e-4, games=2,
                           out_dir=tmp_path)
    assert capped["capped"] is True and 0 < capped["env_steps"] < 100_000
    assert {r["library"] for r in load_results(tmp_path)} == {"tianshou"} and len(load_results(tmp_path)) == 2


def test_the_tianshou_learner_is_reproducible_and_leaves_the_global_generators_alone() -> None:
    pytest.importorskip("tianshou", reason="tianshou is not installed (the dev extra)")
    import numpy as np
    import torch

    from training.reference_run import _import_example

    dqn = _import_example("tianshou_dqn")
    kw = get_task("necro3-greedy").single_seat_kwargs()
    np_before, torch_before = np.random.get_state()[1].copy(), torch.random.get_rng_state().clone()
    runs = [dqn.train_single_seat(kw, 200, seed=s)[0].policy.state_dict() for s in (5, 5, 6)]
    assert np.array_equal(np.random.get_state()[1], np_before) and torch.equal(torch.random.get_rng_state(),
                                                                                torch_before)
    same = [all(torch.equal(runs[0][k], r[k]) for k in runs[0]) for r in runs[1:]]
    assert same == [True, False]  # the same seed gives the same weights, another seed others


#: BenchMARL's batches shrunk from 6,000 frames of 10 envs to 100 of 2.
BENCHMARL_TINY = dict(on_policy_collected_frames_per_batch=100, on_policy_n_envs_per_worker=2,
                      on_policy_minibatch_size=50)


def test_benchmarl_tiny_run_and_its_cap(tmp_path: Path) -> None:
    pytest.importorskip("benchmarl", reason="benchmarl is not installed (the dev extra)")
    res = reference_run("benchmarl", "necro3-greedy", 1, budget=200, games=2, out_dir=tmp_path,
                        overrides=BENCHMARL_TINY)
    data = check_run(res, tmp_path, "benchmarl", "necro3-greedy", 1, 200)
    assert data["algorithm"] == "IPPO" and data["env_steps"] == 200 and data["capped"] is False
    assert data["training"]["iterations"] == 2 and data["training"]["overrides"] == BENCHMARL_TINY
    assert data["sides"][0]["learner"] == "necromancer" and data["policy"].startswith("benchmarl-ippo:")
    assert data["eval_illegal_actions"] == 0  # the masked categorical's mode is always legal
    import torch

    assert torch.load(data["policy_files"][0], weights_only=True)  # the policy module's state dict
    capped = reference_run("benchmarl", "player2-greedy", 0, budget=100_000, max_minutes=1e-4, games=2,
                           out_dir=tmp_path, overrides=BENCHMARL_TINY)
    assert capped["capped"] is True and capped["env_steps"] == 100  # stopped after its first batch
    with pytest.raises(ValueError, match="'n_frames' is not a field of BenchMARL's ExperimentConfig"):
        reference_run("benchmarl", "necro3-greedy", 3, budget=100, games=2, out_dir=tmp_path,
                      overrides={"n_frames": 5})


def test_the_benchmarl_learner_is_reproducible_and_leaves_the_global_generators_alone() -> None:
    pytest.importorskip("benchmarl", reason="benchmarl is not installed (the dev extra)")
    import random

    import numpy as np
    import torch
    from pettingzoo.test import parallel_api_test

    from training.reference_run import _import_example

    ippo = _import_example("benchmarl_ippo")
    kw = get_task("players3-heuristic").single_seat_kwargs()
    parallel_api_test(ippo.SingleSeatParallel(kw), num_cycles=200)  # the one-agent view keeps PettingZoo's API
    before = (random.getstate(), np.random.get_state()[1].copy(), torch.random.get_rng_state().clone())
    runs = [ippo.train_single_seat(kw, 100, seed=s, overrides=BENCHMARL_TINY)[1]["policy_state"] for s in (5, 5, 6)]
    after = (random.getstate(), np.random.get_state()[1], torch.random.get_rng_state())
    assert before[0] == after[0] and np.array_equal(before[1], after[1]) and torch.equal(before[2], after[2])
    weights = [k for k, v in runs[0].items() if isinstance(v, torch.Tensor) and v.is_floating_point()]
    assert weights
    same = [all(torch.equal(runs[0][k], r[k]) for k in weights) for r in runs[1:]]
    assert same == [True, False]  # the same seed gives the same weights, another seed others


def test_bad_requests_are_typed_errors_that_say_what_is_allowed(tmp_path: Path) -> None:
    kw = dict(out_dir=tmp_path)
    with pytest.raises(ReferenceRunError, match="unknown library 'keras'.*sb3, rllib, tianshou, benchmarl"):
        reference_run("keras", "necro3-greedy", 0, **kw)
    with pytest.raises(ConfigError, match="unknown task 'necro4'.*necro3-greedy"):
        reference_run("sb3", "necro4", 0, **kw)
    for budget in ("medium", 0, "0", -3, "1e6", None, True):
        with pytest.raises(ReferenceRunError, match=r"budgets small, large \(or a positive number of env steps\)"):
            reference_run("sb3", "necro3-greedy", 0, budget=budget, **kw)
    assert parse_budget(get_task("necro3-greedy"), "small") == ("small", 1_000_000)
    assert parse_budget(get_task("necro3-greedy"), "5000") == (5000, 5000)
    for minutes in (0, -1, float("nan"), float("inf"), True, "60"):
        with pytest.raises(ReferenceRunError, match="max_minutes must be a positive number"):
            reference_run("sb3", "necro3-greedy", 0, max_minutes=minutes, **kw)
    with pytest.raises(ReferenceRunError, match="seed must be an int >= 0"):
        reference_run("sb3", "necro3-greedy", -1, **kw)
    for library in ("sb3", "tianshou", "benchmarl"):
        with pytest.raises(ReferenceRunError, match=f"library {library} trains one learner.*'selfplay3'.*rllib"):
            reference_run(library, "selfplay3", 0, **kw)
    assert not list(tmp_path.iterdir())  # nothing was trained or written


def test_the_command_line_reports_errors_with_exit_code_2(tmp_path: Path, capsys) -> None:
    assert main(["--library", "benchmarl", "--task", "selfplay3", "--seed", "0", "--out-dir", str(tmp_path)]) == 2
    assert "library benchmarl trains one learner" in capsys.readouterr().err
    assert main(["--library", "sb3", "--task", "nope", "--seed", "0", "--out-dir", str(tmp_path)]) == 2
    assert "unknown task 'nope'" in capsys.readouterr().err
    assert main(["--library", "sb3", "--task", "necro3-greedy", "--seed", "0", "--budget", "huge",
                 "--out-dir", str(tmp_path)]) == 2
    assert "budgets small, large" in capsys.readouterr().err
    for minutes in ("0", "-5", "soon"):
        with pytest.raises(SystemExit) as e:
            main(["--library", "sb3", "--task", "necro3-greedy", "--seed", "0", "--max-minutes", minutes])
        assert e.value.code == 2
        assert "positive number of minutes" in capsys.readouterr().err


def test_the_recipes_take_the_tasks_seats_opponents_and_budget(tmp_path: Path) -> None:
    for name in ("necro3-greedy", "necro6-greedy", "players3-heuristic", "player2-greedy"):
        task = TASKS[name]
        kw = task.single_seat_kwargs()
        cfg = sb3_config(task, 1, 1_000_000, 60.0, tmp_path, f"sb3_{name}_small")
        assert (cfg.players, cfg.learner, cfg.reward, cfg.necromancer) == (kw["players"], kw["learner"], kw["reward"],
                                                                        task.necromancer)
        assert cfg.opponents == kw.get("opponents", cfg.opponents)
        assert cfg.necromancer_opponent == kw.get("necromancer_opponent", cfg.necromancer_opponent)
        assert (cfg.total_steps, cfg.max_minutes, cfg.seed, cfg.eval_every) == (1_000_000, 60.0, 1, 0)
        assert cfg.warm_start is not None and cfg.policy == "region"  # the recipe
    for name in TASKS:
        task = TASKS[name]
        rc = rllib_config(task, 2, 1_000_000, 60.0, tmp_path, f"rllib_{name}_small")
        assert (rc.players, rc.necromancer, rc.max_env_steps, rc.max_minutes, rc.seed) == (
            task.players, task.necromancer, 1_000_000, 60.0, 2)
        assert rc.iterations * rc.train_batch_size >= 1_000_000 and rc.eval_games == 0
        assert set(rc.modules()) == ({"players", "necromancer"} if task.necromancer else {"players"})


def test_rllib_stops_at_its_env_steps_or_its_minutes() -> None:
    pytest.importorskip("yaml")
    from training.rllib_config import config_from_dict
    from training.rllib_train import stop_reason

    cfg = config_from_dict({"name": "t", "max_env_steps": 1000, "max_minutes": 2})
    assert stop_reason(cfg, 999, 119.0) is None
    assert stop_reason(cfg, 1000, 0.0) == "max_env_steps"
    assert stop_reason(cfg, 10, 120.0) == "max_minutes"
    assert stop_reason(cfg, float("nan"), 1.0) is None
    assert stop_reason(config_from_dict({"name": "t"}), 10**9, 10**9) is None
    for bad in ({"max_env_steps": 0}, {"max_minutes": 0}, {"max_minutes": -1}, {"max_env_steps": 1.5}):
        with pytest.raises(ConfigError, match="must be null or"):
            config_from_dict({"name": "t", **bad})


@pytest.mark.slow
def test_rllib_tiny_run(tmp_path: Path) -> None:
    pytest.importorskip("ray.rllib", reason="ray[rllib] is not installed (the rllib extra)")
    tiny = dict(num_env_runners=0, train_batch_size=128, minibatch_size=64, num_epochs=1, hidden=[32],
                checkpoint_every=0)
    res = reference_run("rllib", "player2-greedy", 0, budget=200, games=2, out_dir=tmp_path, overrides=tiny)
    data = check_run(res, tmp_path, "rllib", "player2-greedy", 0, 200)
    assert data["algorithm"] == "PPO" and data["capped"] is False
    assert 200 <= data["env_steps"] < 200 + 2 * 128  # stopped by max_env_steps after the iteration that reached it
    assert data["policy"].startswith("rllib:") and data["policy"].endswith("#players")


def _results_file(folder: Path, library: str, task: str, seed: int, score: float, budget: str = "small") -> None:
    """A results file as reference_run writes one (the fields the report reads)."""
    data = {"benchmark": "necro-bench-v1", "task": task, "library": library, "seed": seed, "budget": budget,
            "win_rate": 0.5, "score": score, "env_steps": 1000, "capped": seed == 1, "train_seconds": 90.0,
            "algorithm": "x", "protocol": True}
    (folder / f"{library}_{task}_{budget}_s{seed}.json").write_text(json.dumps(data))


def test_the_report_tables_every_run_the_aggregate_and_the_missing_grid(tmp_path: Path) -> None:
    pytest.importorskip("rliable", reason="rliable is not installed (the bench extra)")
    from training import reference_report

    runs = tmp_path / "runs"
    runs.mkdir()
    for seed, score in ((0, 0.25), (1, 0.75), (2, 0.5)):
        _results_file(runs, "sb3", "necro3-greedy", seed, score)
    _results_file(runs, "tianshou", "player2-greedy", 0, -0.5)
    out = tmp_path / "out"
    assert reference_report.main(["--results", str(runs), "--out", str(out), "--reps", "50"]) == 0
    data = json.loads((out / "results.json").read_text())
    assert len(data["runs"]) == 4 and {r["file"] for r in data["runs"]} == {p.name for p in runs.glob("*.json")}
    cell = data["aggregate"]["budgets"]["small"]["tasks"]["necro3-greedy"]["sb3"]
    assert cell["seeds"] == [0, 1, 2] and cell["mean"] == pytest.approx(0.5)
    assert (out / "results.png").stat().st_size > 0
    md = (out / "RESULTS.md").read_text()
    assert "| `necro3-greedy` | sb3 | MaskablePPO | 0, 1, 2 | 0.500 | 0.500 [" in md
    assert "| sb3 | `necro3-greedy` | small | 1 | 1,000 | yes | 1.5 | 0.500 | 0.750 |" in md  # one row per run
    # the grid: complete, missing seeds with the command that makes one, and what a library cannot make
    assert "| sb3 | `necro3-greedy` | 0, 1, 2 | - | complete |" in md
    assert "| tianshou | `player2-greedy` | 0 | 1, 2 | `make reference LIBRARY=tianshou TASK=player2-greedy SEED=1` |" in md
    assert "| benchmarl | `necro3-greedy` | - | 0, 1, 2 | `make reference LIBRARY=benchmarl TASK=necro3-greedy SEED=0` |" in md
    rows = reference_report.grid(load_results(runs))
    assert len(rows) == 4 * 3 and not any(r["cannot"] for r in rows)


def test_restore_writes_the_published_runs_back_as_their_results_files(tmp_path: Path, capsys) -> None:
    """--restore: the runs of a report's results.json come back as the files they were made from (a file there is
    kept), so a new run is reported with the published ones; a report that is not one, or a run whose library,
    task or budget is not a reference run's, is a ResultsFileError naming the run, and nothing is written."""
    pytest.importorskip("rliable", reason="rliable is not installed (the bench extra)")
    from necro_env.benchmark import ResultsFileError
    from training import reference_report

    made = tmp_path / "made"
    made.mkdir()
    for seed, score in ((0, 0.25), (1, 0.75)):
        _results_file(made, "sb3", "necro3-greedy", seed, score)
    _results_file(made, "rllib", "player2-greedy", 0, 0.5, budget=5000)
    out = tmp_path / "out"
    assert reference_report.main(["--results", str(made), "--out", str(out), "--reps", "50"]) == 0
    published = json.loads((out / "results.json").read_text())

    fresh = tmp_path / "fresh"  # a clone: no results files, one new run, and a file of a published name kept
    fresh.mkdir()
    _results_file(fresh, "tianshou", "player2-greedy", 2, 0.1)
    _results_file(fresh, "sb3", "necro3-greedy", 1, 0.9)
    assert reference_report.main(["--results", str(fresh), "--out", str(out), "--reps", "50", "--restore"]) == 0
    assert "restored 2 results files" in capsys.readouterr().out
    assert sorted(p.name for p in fresh.glob("*.json")) == sorted(
        [p.name for p in made.glob("*.json")] + ["tianshou_player2-greedy_small_s2.json"])
    for p in made.glob("*.json"):
        if p.name != "sb3_necro3-greedy_small_s1.json":
            assert json.loads((fresh / p.name).read_text()) == json.loads(p.read_text())
    assert json.loads((fresh / "sb3_necro3-greedy_small_s1.json").read_text())["score"] == 0.9
    runs = json.loads((out / "results.json").read_text())["runs"]
    assert len(runs) == 4 and {(r["library"], r["seed"]) for r in runs} == {("sb3", 0), ("sb3", 1), ("rllib", 0),
                                                                            ("tianshou", 2)}

    def bad(change, match: str) -> None:
        data = json.loads(json.dumps(published))
        change(data)
        path = tmp_path / "bad.json"
        path.write_text(json.dumps(data))
        target = tmp_path / "target"
        with pytest.raises(ResultsFileError, match=match):
            reference_report.restore_published(path, target)
        assert not target.exists() or not any(target.iterdir())

    bad(lambda d: d["runs"][1].update(library="../../elsewhere"), r"runs\[1\]: library '../../elsewhere' has no ref")
    bad(lambda d: d["runs"][0].update(budget="huge"), r"runs\[0\]: task 'player2-greedy' has the budgets")
    bad(lambda d: d["runs"][2].update(seed=-1), r"runs\[2\]: seed must be >= 0")
    bad(lambda d: d["runs"][2].pop("score"), r"runs\[2\]: missing field\(s\) score")
    bad(lambda d: d["runs"].append(dict(d["runs"][0])), r"runs\[3\]: the same run as another one")
    bad(lambda d: d.update(benchmark="necro-bench-v0"), "not a report of necro-bench-v1")
    bad(lambda d: d.pop("runs"), "not a report of necro-bench-v1")
