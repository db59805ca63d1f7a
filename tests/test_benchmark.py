"""The benchmark suite (necro_env.benchmark): frozen task definitions, normalized scores, the aggregation of
runs against rliable and by hand, and ``necro-env benchmark``'s JSON and errors."""
import dataclasses
import json
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

from necro_env import benchmark as bm
from necro_env.benchmark import (SUITE_VERSION, TASKS, MissingExtraError, ResultsFileError, aggregate, anchor_rates,
                                 check_pinned_files, get_task, load_results, normalized_score, score_policy,
                                 task_digest)
from necro_env.cli import main
from necro_env.evaluate import evaluate
from necro_env.game.errors import ConfigError

ROOT = Path(__file__).resolve().parents[1]

# The digests of every task of each suite version. A task that changes (a field, an anchor, the resolved game
# options, the env version) changes its digest: a changed task needs a new SUITE_VERSION and a new entry here,
# the old entries staying as they are.
PINNED = {
    "necro-bench-v1": {
        "necro3-greedy": "6df986f44bf7fb99f43cb7b22e6e5671456d49f1b57a957add9c30d79b68b6b5",
        "necro6-greedy": "170a7747ff4f5160d19d3243cc5b4834fd8c7810710d2b57fd15db4f99e8a21f",
        "players3-heuristic": "1772c0ba4c51c28863a31f1522a3d72f4b69d74503312247434381f2e25f2258",
        "player2-greedy": "ced286ceee9f4ec6a5fe6b791522e142a564e612f7d9e8aa4ae1bf604aa4cdac",
        "selfplay3": "e737d72fcdbaee9dbf5de7c0ef15b57f1fe3efc8bc724f8a299dd7889be267d4",
    },
}


# ------------------------------------------------------------------------------------------ the suite
def test_every_task_matches_its_pinned_digest():
    assert SUITE_VERSION in PINNED, f"a new suite version {SUITE_VERSION} needs its digests pinned here"
    assert {name: task_digest(t) for name, t in TASKS.items()} == PINNED[SUITE_VERSION]


@pytest.mark.parametrize("change", [{"eval_games": 601}, {"eval_seed": 7}, {"players": 4},
                                    {"budgets": (("small", 2_000_000), ("large", 5_000_000))},
                                    {"game_options": (("handicap", 1),)}])
def test_the_digest_sees_every_field(change):
    task = TASKS["necro3-greedy"]
    assert task_digest(dataclasses.replace(task, **change)) != task_digest(task)


def test_the_digest_sees_anchors_opponents_and_the_resolved_options(monkeypatch):
    task = TASKS["necro3-greedy"]
    side = task.sides[0]
    for s in (dataclasses.replace(side, reference_wins=(282,)), dataclasses.replace(side, opponents=("random",))):
        assert task_digest(dataclasses.replace(task, sides=(s,))) != task_digest(task)
    before = task_digest(task)
    monkeypatch.setattr(bm, "ENV_ID", "necro_env/NecromancerIsland-v2")  # a new env version
    assert task_digest(task) != before


def test_tasks_are_frozen_and_the_registry_names_them():
    assert list(TASKS) == ["necro3-greedy", "necro6-greedy", "players3-heuristic", "player2-greedy", "selfplay3"]
    task = get_task("necro3-greedy")
    with pytest.raises(dataclasses.FrozenInstanceError):
        task.eval_games = 10
    with pytest.raises(dataclasses.FrozenInstanceError):
        task.sides[0].random_wins = (0,)
    with pytest.raises(ConfigError, match="unknown task 'necro4'.*necro3-greedy, necro6-greedy, players3-heuristic"):
        get_task("necro4")


def test_every_task_fixes_its_protocol():
    for t in TASKS.values():
        assert dict(t.budgets) == {"small": 1_000_000, "large": 5_000_000}
        assert (t.eval_seed, t.eval_games) == (2024, 600) and t.heldout_seeds and t.eval_seed not in t.heldout_seeds
        assert t.version == SUITE_VERSION
    assert [s.learner for s in TASKS["selfplay3"].sides] == ["necromancer", "players"]
    assert TASKS["selfplay3"].sides[0].opponents == ("greedy", "pretrained:players_3p")
    assert TASKS["selfplay3"].sides[1].opponents == ("heuristic", "pretrained:necromancer_3p")
    assert not TASKS["player2-greedy"].necromancer and TASKS["player2-greedy"].players == 2


def test_invalid_tasks_are_refused():
    side = TASKS["necro3-greedy"].sides[0]
    with pytest.raises(ConfigError, match="learner 'player' is for the base game"):
        dataclasses.replace(TASKS["necro3-greedy"], sides=(dataclasses.replace(side, learner="player"),))
    with pytest.raises(ConfigError, match="one win count >= 0 per opponent"):
        dataclasses.replace(side, random_wins=(1, 2))
    with pytest.raises(ConfigError, match="anchors are equal"):
        dataclasses.replace(side, random_wins=(5,), reference_wins=(5,))
    with pytest.raises(ConfigError, match="needs a pinned SHA-256"):
        dataclasses.replace(TASKS["selfplay3"], pinned_files=())


def test_shipped_opponents_are_the_pinned_files():
    check_pinned_files(TASKS["selfplay3"])  # no error: the shipped files are the ones the task was defined with
    spec, digest = TASKS["selfplay3"].pinned_files[0]
    changed = dataclasses.replace(TASKS["selfplay3"], pinned_files=((spec, "0" * 64), TASKS["selfplay3"].pinned_files[1]))
    with pytest.raises(ConfigError, match=f"{spec} of SHA-256 0{{64}}.*needs a new suite version"):
        check_pinned_files(changed)


def test_single_seat_kwargs_build_the_training_env():
    from necro_env.single_seat import SingleSeatEnv

    for name in ("necro3-greedy", "players3-heuristic", "player2-greedy"):
        kw = TASKS[name].single_seat_kwargs()
        env = SingleSeatEnv(**kw)
        assert env.learner == TASKS[name].sides[0].learner and env.config.players == TASKS[name].players
    with pytest.raises(ConfigError, match="selfplay3.*league_train"):
        TASKS["selfplay3"].single_seat_kwargs()


# ------------------------------------------------------------------------------------------ anchors and scores
def test_normalized_score_maps_the_anchors_to_0_and_1_and_extrapolates():
    assert normalized_score(0.1, 0.1, 0.5) == 0.0
    assert normalized_score(0.5, 0.1, 0.5) == 1.0
    assert normalized_score(0.3, 0.1, 0.5) == pytest.approx(0.5)
    assert normalized_score(0.0, 0.1, 0.5) == pytest.approx(-0.25)  # worse than random
    assert normalized_score(0.9, 0.1, 0.5) == pytest.approx(2.0)  # better than the reference
    with pytest.raises(ConfigError, match="anchors are equal"):
        normalized_score(0.3, 0.2, 0.2)


def test_stored_anchors_are_consistent_with_their_definition():
    necro3, players3, selfplay = TASKS["necro3-greedy"], TASKS["players3-heuristic"], TASKS["selfplay3"]
    for t in TASKS.values():
        for s in t.sides:
            assert all(0 <= k <= t.eval_games for k in s.random_wins + s.reference_wins)
            lo, hi = anchor_rates(t, s)
            assert lo < hi  # the scripted reference beats random play in every seat
    # A team wins exactly the games the Necromancer loses: the greedy team's anchor against the heuristic is
    # the games the heuristic did not win against greedy players (the same seeded games).
    assert players3.sides[0].reference_wins[0] == necro3.eval_games - necro3.sides[0].reference_wins[0]
    # selfplay3's matchups against the scripted opponents are necro3-greedy's and players3-heuristic's games.
    assert selfplay.sides[0].reference_wins[0] == necro3.sides[0].reference_wins[0]
    assert selfplay.sides[0].random_wins[0] == necro3.sides[0].random_wins[0]
    assert selfplay.sides[1].reference_wins[0] == players3.sides[0].reference_wins[0]
    assert selfplay.sides[1].random_wins[0] == players3.sides[0].random_wins[0]
    assert anchor_rates(necro3, necro3.sides[0]) == (3 / 600, 281 / 600)


def test_the_cheapest_anchor_is_measured_again():
    """player2-greedy's random anchor: the random policy in the rotated seat, 600 games of seed 2024."""
    t = TASKS["player2-greedy"]
    side = t.sides[0]
    assert bm.matchup_wins(t, side, "random", "greedy", t.eval_games, t.eval_seed) == side.random_wins[0]


def test_a_score_is_its_win_rate_normalized_by_the_anchors():
    res = score_policy("necro3-greedy", ["heuristic"], games=6, seed=3)
    (side,) = res["sides"]
    assert res["games"] == side["games"] == 6 and res["wins"] == side["wins"] == side["matchups"][0]["wins"]
    lo, hi = anchor_rates(TASKS["necro3-greedy"], TASKS["necro3-greedy"].sides[0])
    assert res["score"] == pytest.approx((res["win_rate"] - lo) / (hi - lo))
    direct = evaluate(3, "heuristic", "greedy", games=6, seed=3)
    assert side["wins"] == direct["necromancer"]["wins"]
    assert res["protocol"] is False  # 6 games is not the task's evaluation
    with pytest.raises(ConfigError, match="needs 1 policy"):
        score_policy("necro3-greedy", ["heuristic", "greedy"], games=2)


def test_a_team_wins_when_the_necromancer_loses():
    res = score_policy("players3-heuristic", ["greedy"], games=6, seed=3)
    direct = evaluate(3, "heuristic", "greedy", games=6, seed=3)
    assert res["wins"] == 6 - direct["necromancer"]["wins"]


def test_the_player_seat_rotates_even_against_a_copy_of_itself():
    """greedy vs greedy in player2-greedy: one rotated test seat (not both seats as one group, which always wins)."""
    res = score_policy("player2-greedy", ["greedy"], games=8, seed=1)
    s = evaluate(2, players_spec="greedy", opponents_spec="greedy", games=8, seed=1, necromancer=False, test_seat=True)
    groups = {g["group"]: g for g in s["policies"]}
    assert set(groups) == {"test", "opponents"} and groups["test"]["seats"] == 1
    assert res["wins"] == groups["test"]["wins"] < 8
    merged = evaluate(2, players_spec="greedy", opponents_spec="greedy", games=8, seed=1, necromancer=False)
    assert [g["group"] for g in merged["policies"]] == ["players"]  # the default is unchanged


def test_selfplay3_pools_both_sides_and_averages_their_scores():
    res = score_policy("selfplay3", ["heuristic", "greedy"], games=2, seed=5)
    necro, team = res["sides"]
    assert [m["opponent"] for m in necro["matchups"]] == ["greedy", "pretrained:players_3p"]
    assert [m["opponent"] for m in team["matchups"]] == ["heuristic", "pretrained:necromancer_3p"]
    assert necro["games"] == team["games"] == 4 and res["games"] == 8
    assert res["wins"] == necro["wins"] + team["wins"]
    assert res["score"] == pytest.approx((necro["score"] + team["score"]) / 2)
    t = TASKS["selfplay3"]
    assert necro["anchors"]["reference"] == pytest.approx(sum(t.sides[0].reference_wins) / 1200)


# ------------------------------------------------------------------------------------------ aggregation
def _run(task, library, seed, score, win_rate=0.5, budget="small", **extra):
    return {"benchmark": SUITE_VERSION, "task": task, "library": library, "seed": seed, "budget": budget,
            "win_rate": win_rate, "score": score, **extra}


def _write(directory, runs):
    directory.mkdir(parents=True, exist_ok=True)
    for i, r in enumerate(runs):
        (directory / f"run{i:02d}.json").write_text(json.dumps(r))
    return directory


# 4 seeds x 2 tasks of one library (a score below 0 and one above 1 among them). The IQM drops the 2 lowest and
# the 2 highest of the 8 scores: mean(0.2, 0.35, 0.5, 0.9) = 0.4875; the mean is 0.60625, the median 0.425.
MATRIX = np.array([[-0.2, 0.9], [0.35, 0.5], [0.2, 2.0], [1.0, 0.1]])


def _matrix_runs():
    return [_run(task, "lib", seed, float(MATRIX[seed, j]))
            for seed in range(4) for j, task in enumerate(("necro3-greedy", "player2-greedy"))]


def _need_rliable():
    """The aggregation's tests need the bench extra (rliable); they skip, saying so, without it."""
    pytest.importorskip("rliable", reason="rliable (the bench extra: pip install -e '.[bench]') is not installed")


def test_aggregate_iqm_and_mean_by_hand_and_against_rliable(tmp_path):
    _need_rliable()
    import scipy.stats
    from rliable import library as rly, metrics

    agg = aggregate(load_results(_write(tmp_path / "r", _matrix_runs())), reps=500, seed=0)
    overall = agg["budgets"]["small"]["overall"]
    assert overall["tasks"] == ["necro3-greedy", "player2-greedy"]
    e = overall["libraries"]["lib"]
    assert e["iqm"] == pytest.approx((0.2 + 0.35 + 0.5 + 0.9) / 4)  # by hand
    assert e["mean"] == pytest.approx(0.60625)
    assert e["iqm"] == pytest.approx(scipy.stats.trim_mean(MATRIX, 0.25, axis=None))
    assert e["mean"] == pytest.approx(MATRIX.mean())
    assert e["iqm_ci95"][0] <= e["iqm"] <= e["iqm_ci95"][1] and e["runs"] == 4 and e["seeds"] == [0, 1, 2, 3]
    # the same numbers as rliable itself, seeded the same way
    func = lambda x: np.array([metrics.aggregate_mean(x), metrics.aggregate_iqm(x)])  # noqa: E731
    np.random.seed(0)
    points, cis = rly.get_interval_estimates({"lib": MATRIX}, func, reps=500)
    assert [e["mean"], e["iqm"]] == pytest.approx(list(points["lib"]))
    assert e["mean_ci95"] == pytest.approx(list(cis["lib"][:, 0]))
    assert e["iqm_ci95"] == pytest.approx(list(cis["lib"][:, 1]))
    per_task = agg["budgets"]["small"]["tasks"]["necro3-greedy"]["lib"]
    assert per_task["mean"] == pytest.approx(MATRIX[:, 0].mean()) and per_task["runs"] == 4
    assert per_task["iqm"] == pytest.approx(scipy.stats.trim_mean(MATRIX[:, 0], 0.25))
    # performance profile: the fraction of the 8 runs' scores above tau
    prof = overall["profiles"]
    taus = np.array(prof["tau"])
    assert prof["libraries"]["lib"]["fraction"] == pytest.approx([(MATRIX > t).mean() for t in taus])
    assert taus[0] == pytest.approx(-0.2) and taus[-1] == pytest.approx(2.0)  # the scores' range, 0 and 1 included


def test_aggregation_is_reproducible_and_leaves_numpy_global_state_alone(tmp_path):
    _need_rliable()
    runs = load_results(_write(tmp_path / "r", _matrix_runs()))
    np.random.seed(123)
    before = np.random.get_state()[1].copy()
    a = aggregate(runs, reps=300, seed=4)
    assert (np.random.get_state()[1] == before).all()
    assert aggregate(runs, reps=300, seed=4) == a
    assert aggregate(runs, reps=300, seed=5)["budgets"]["small"]["overall"]["libraries"]["lib"]["iqm_ci95"] != \
        a["budgets"]["small"]["overall"]["libraries"]["lib"]["iqm_ci95"]


def test_a_librarys_intervals_do_not_move_when_another_librarys_runs_change(tmp_path):
    """Each library's bootstrap is its own: adding or changing another library's runs leaves its intervals and
    profile as they were (rliable alone would draw them all from one stream, in
    the order of the names: "another" comes before "lib")."""
    _need_rliable()
    alone = aggregate(load_results(_write(tmp_path / "a", _matrix_runs())), reps=300, seed=2)["budgets"]["small"]
    for i, extra in enumerate(([0.1, 0.3], [0.1, 0.3, 0.8, 0.05, 0.6])):
        runs = _matrix_runs() + [_run(t, "another", s, v) for s, v in enumerate(extra) for t in ("necro3-greedy",
                                                                                                  "player2-greedy")]
        both = aggregate(load_results(_write(tmp_path / f"b{i}", runs)), reps=300, seed=2)["budgets"]["small"]
        assert both["overall"]["libraries"]["lib"] == alone["overall"]["libraries"]["lib"]
        assert both["overall"]["profiles"]["tau"] == alone["overall"]["profiles"]["tau"]  # within lib's range
        assert both["overall"]["profiles"]["libraries"]["lib"] == alone["overall"]["profiles"]["libraries"]["lib"]
        assert both["tasks"]["necro3-greedy"]["lib"] == alone["tasks"]["necro3-greedy"]["lib"]


def test_aggregation_compares_libraries_on_common_tasks_and_seeds(tmp_path):
    _need_rliable()
    runs = _matrix_runs() + [_run("necro3-greedy", "other", s, 0.1 * s) for s in range(3)]
    runs += [_run("necro3-greedy", "lib", 0, 0.9, budget="large")]
    agg = aggregate(load_results(_write(tmp_path / "r", runs)), reps=200)
    small = agg["budgets"]["small"]
    assert small["overall"]["tasks"] == ["necro3-greedy"]  # "other" did not run player2-greedy
    assert small["overall"]["libraries"]["other"]["mean"] == pytest.approx(0.1)
    assert small["tasks"]["player2-greedy"].keys() == {"lib"}
    assert agg["budgets"]["large"]["overall"]["libraries"]["lib"]["runs"] == 1


def test_results_plot_and_json(tmp_path, capsys):
    _need_rliable()
    d = _write(tmp_path / "r", _matrix_runs())
    out = tmp_path / "plots" / "agg.png"
    assert main(["benchmark", "--results", str(d), "--plot", str(out), "--json", "--reps", "200"]) == 0
    assert out.stat().st_size > 10_000
    agg = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert agg["budgets"]["small"]["overall"]["libraries"]["lib"]["iqm"] == pytest.approx(0.4875)


@pytest.mark.parametrize("content,message", [
    ("{not json", "not a JSON file"),
    ("[1, 2]", "expected one JSON object"),
    (json.dumps({"benchmark": SUITE_VERSION, "task": "necro3-greedy"}), r"missing field\(s\) library, seed, budget"),
    (json.dumps(_run("necro9", "lib", 0, 0.5)), "unknown task 'necro9'; the tasks are: necro3-greedy"),
    (json.dumps({**_run("necro3-greedy", "lib", 0, 0.5), "benchmark": "necro-bench-v0"}), "not this suite's"),
    (json.dumps(_run("necro3-greedy", "lib", 0, 0.5, win_rate=1.5)), r"win_rate must be a number in \[0, 1\]"),
    (json.dumps(_run("necro3-greedy", "lib", 0, float("nan"))), "score must be a finite number"),
    (json.dumps(_run("necro3-greedy", "", 0, 0.5)), "library must be a non-empty string"),
    (json.dumps(_run("necro3-greedy", "lib", "0", 0.5)), "seed must be an int"),
])
def test_malformed_results_files_are_named(tmp_path, capsys, content, message):
    _need_rliable()  # the command line checks for rliable before it reads the folder
    d = _write(tmp_path / "r", _matrix_runs())
    (d / "zz_bad.json").write_text(content)
    with pytest.raises(ResultsFileError, match=message):
        load_results(d)
    assert main(["benchmark", "--results", str(d)]) == 2
    err = capsys.readouterr().err
    assert "zz_bad.json" in err and err.startswith("necro-env benchmark: error:")


def test_a_repeated_run_and_an_empty_folder_are_refused(tmp_path):
    runs = _matrix_runs()
    d = _write(tmp_path / "r", runs + [runs[0]])
    with pytest.raises(ResultsFileError, match="the same run .*library lib, task necro3-greedy, budget small, seed 0"):
        load_results(d)
    (tmp_path / "empty").mkdir()
    with pytest.raises(ResultsFileError, match="no \\*.json"):
        load_results(tmp_path / "empty")


def test_without_rliable_the_aggregation_says_what_to_install(tmp_path, capsys, monkeypatch):
    d = _write(tmp_path / "r", _matrix_runs())
    monkeypatch.setitem(sys.modules, "rliable", None)  # import rliable now fails
    with pytest.raises(MissingExtraError, match=r"necro_env\[bench\]"):
        aggregate(load_results(d))
    assert main(["benchmark", "--results", str(d)]) == 2
    assert "needs rliable" in capsys.readouterr().err


def test_the_bench_extra_holds_rliable():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert any(req.startswith("rliable") for req in extras["bench"])


# ------------------------------------------------------------------------------------------ the command line
def test_cli_json_is_a_results_file(tmp_path, capsys):
    out = tmp_path / "runs" / "sb3_necro3_s0.json"
    code = main(["benchmark", "--task", "necro3-greedy", "--policy", "heuristic", "--games", "4", "--quiet", "--json",
                 "--library", "sb3", "--algorithm", "MaskablePPO", "--train-seed", "0", "--budget", "small",
                 "--out", str(out)])
    assert code == 0
    printed = capsys.readouterr().out.strip().splitlines()
    res = json.loads(printed[-1])
    assert json.loads(out.read_text()) == res
    for key in ("benchmark", "task", "task_digest", "library", "algorithm", "seed", "budget", "env_steps", "policy",
                "win_rate", "ci95", "score", "wins", "games", "eval_seed", "eval_games", "protocol", "sides"):
        assert key in res, key
    assert (res["benchmark"], res["task"], res["library"], res["seed"], res["budget"], res["env_steps"]) == \
        (SUITE_VERSION, "necro3-greedy", "sb3", 0, "small", 1_000_000)
    assert res["task_digest"] == task_digest(TASKS["necro3-greedy"]) and res["eval_seed"] == 2024
    assert any(line.startswith("win rate ") and "normalized score" in line for line in printed)
    (run,) = load_results(out.parent)  # directly usable by --results
    assert run["score"] == res["score"]


def test_cli_list(capsys):
    assert main(["benchmark", "--list", "--json"]) == 0
    out = capsys.readouterr().out
    for name in TASKS:
        assert name in out
    listed = json.loads(out.strip().splitlines()[-1])
    assert {n: t["digest"] for n, t in listed["tasks"].items()} == {n: task_digest(t) for n, t in TASKS.items()}


@pytest.mark.parametrize("argv,message", [
    (["--task", "necro9", "--policy", "greedy"], "unknown task 'necro9'.*selfplay3"),
    (["--task", "necro3-greedy"], "needs --policy"),
    (["--task", "selfplay3", "--policy", "heuristic"], "--players-policy the team's"),
    (["--task", "necro3-greedy", "--policy", "heuristic", "--players-policy", "greedy"], "only for|is for the two-sided"),
    (["--task", "necro3-greedy", "--policy", "heuristic", "--budget", "huge"], "budgets small, large, got 'huge'"),
    (["--task", "necro3-greedy", "--policy", "nosuchpolicy"], "nosuchpolicy"),
    (["--results", "/nonexistent/dir"], "not a folder"),
])
def test_cli_errors_exit_2_with_one_line(capsys, argv, message):
    assert main(["benchmark", *argv, "--quiet"] if "--task" in argv else ["benchmark", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("necro-env benchmark: error:")
    import re

    assert re.search(message, err), err


def test_cli_needs_one_mode(capsys):
    assert main(["benchmark"]) == 2
    assert "one of the arguments --list --task --results is required" in capsys.readouterr().err
