"""League training (issue 29.2): training/league_train.py end to end on tiny budgets, its resume, the Nash
solver of the meta-game, the opponent pools drawn per episode, and the config's and state's errors."""
from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from necro_env.game.errors import ConfigError, StateError  # noqa: E402
from necro_env.single_seat import SingleSeatEnv  # noqa: E402
from training.league_train import (  # noqa: E402
    LeagueConfigError, LeagueStateError, league_config_from_dict, load_league_config, nash_zero_sum, run_league,
)
from training.policies import PoolSampler  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "configs/league_tiny.yaml"


# ---------------------------------------------------------------- the meta-game's Nash equilibrium
@pytest.mark.parametrize("payoff,row,col,value", [
    ([[1, 0], [0, 1]], [0.5, 0.5], [0.5, 0.5], 0.5),                                  # matching pennies
    ([[0.5, 0, 1], [1, 0.5, 0], [0, 1, 0.5]], [1 / 3] * 3, [1 / 3] * 3, 0.5),          # rock-paper-scissors
    ([[0.8, 0.2], [0.4, 0.6]], [0.25, 0.75], [0.5, 0.5], 0.5),                         # mixed, asymmetric
    ([[0.3, 0.6], [0.2, 0.1], [0.25, 0.9]], [1, 0, 0], [1, 0], 0.3),                   # a saddle point
])
def test_nash_solver_finds_the_known_equilibria(payoff, row, col, value):
    sol = nash_zero_sum(payoff)
    assert np.allclose(sol["row"], row, atol=0.01) and np.allclose(sol["col"], col, atol=0.01)
    assert sol["value"] == pytest.approx(value, abs=0.005) and 0 <= sol["gap"] < 0.01
    assert sum(sol["row"]) == pytest.approx(1) and sum(sol["col"]) == pytest.approx(1)


def test_nash_solver_rejects_a_bad_matrix():
    for bad in ([], [[0.5, float("nan")]], [1, 2]):
        with pytest.raises(ValueError, match="payoff must be"):
            nash_zero_sum(bad)


# ---------------------------------------------------------------- opponent pools drawn per episode
def test_players_sampler_draws_one_team_per_episode_and_restores_by_name():
    pool = PoolSampler([{"spec": "greedy", "weight": 3}, {"spec": "random", "weight": 1}], "player")
    env = SingleSeatEnv(players=4, learner="necromancer", players_sampler=pool)
    teams = []
    for ep in range(40):
        env.reset(seed=11 if ep == 0 else None)
        names = env.get_state()["policies"]
        assert names[env.game.necro_seat] is None and len(set(names[:3])) == 1  # one policy, every player seat
        teams.append(names[0])
    assert 20 <= teams.count("greedy") <= 39 and "random" in teams  # by weight (3:1), both drawn
    twin = SingleSeatEnv(players=4, learner="necromancer", players_sampler=pool)
    again = []
    for ep in range(40):
        twin.reset(seed=11 if ep == 0 else None)
        again.append(twin.get_state()["policies"][0])
    assert again == teams  # the env's own generator: the same draws from the same seed
    # a checkpointed env restores its team by name, and the game continues identically
    env.reset(seed=3)
    saved = env.get_state()
    fresh = SingleSeatEnv(players=4, learner="necromancer", players_sampler=pool)
    fresh.set_state(json.loads(json.dumps(saved)))
    assert fresh.get_state() == saved
    for _ in range(30):
        a = int(np.flatnonzero(env.action_masks())[0])
        assert env.step(a)[1:3] == fresh.step(a)[1:3]
        assert np.array_equal(env._obs(), fresh._obs())
        if env.state.over:
            break
    other = SingleSeatEnv(players=4, learner="necromancer",
                          players_sampler=PoolSampler([{"spec": "heuristic", "weight": 1}], "player"))
    with pytest.raises(StateError, match="no player policy .* in this pool"):
        other.set_state(saved)  # its pool holds neither greedy nor random
    plain = SingleSeatEnv(players=4, learner="necromancer", players_sampler=lambda rng: pool(rng))
    with pytest.raises(StateError, match="cannot restore policies by name"):
        plain.set_state(saved)


def test_necromancer_pool_for_the_players_learner_and_sampler_errors():
    necro = PoolSampler([{"spec": "heuristic", "weight": 1}, {"spec": "random", "weight": 1}], "necromancer")
    env = SingleSeatEnv(players=3, learner="players", reward="coalition", necromancer_sampler=necro)
    drawn = set()
    for ep in range(12):
        env.reset(seed=0 if ep == 0 else None)
        drawn.add(env.get_state()["policies"][env.game.necro_seat])
    assert drawn == {"heuristic", "random"}
    saved = env.get_state()
    twin = SingleSeatEnv(players=3, learner="players", reward="coalition", necromancer_sampler=necro)
    twin.set_state(saved)
    assert twin.get_state() == saved
    team = PoolSampler([{"spec": "greedy", "weight": 1}], "player")
    with pytest.raises(ConfigError, match="holds every player seat"):
        SingleSeatEnv(players=3, learner="players", reward="coalition", players_sampler=team)
    with pytest.raises(ConfigError, match="do not mix"):
        SingleSeatEnv(players=4, learner="player", players_sampler=team, opponent_sampler=lambda rng, s: None)
    with pytest.raises(ValueError, match="distinct specs with positive"):
        PoolSampler([{"spec": "greedy", "weight": 0}], "player")


# ---------------------------------------------------------------- the league end to end
def _cli(*args: str, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "training/league_train.py"), *args], capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT)


@pytest.fixture(scope="module")
def league(tmp_path_factory):
    """The tiny 2-generation league, in one go, through the command line."""
    out = tmp_path_factory.mktemp("league")
    proc = _cli(str(TINY), "--out-dir", str(out), "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""  # --quiet
    return out / "league_tiny"


def _read_csv(path: Path) -> list[dict]:
    with path.open() as f:
        return list(csv.DictReader(f))


def test_league_writes_every_output(league):
    from necro_env.agents.registry import make_policy
    from necro_env.evaluate import evaluate

    for name in ("state.json", "payoff.csv", "payoff.json", "payoff.png", "eval.csv", "ratings.csv", "ratings.json",
                 "league_necromancer_3p.safetensors", "league_players_3p.safetensors"):
        assert (league / name).is_file() and (league / name).stat().st_size > 0, name
    state = json.loads((league / "state.json").read_text())
    assert [g["side"] for g in state["generations"]] == ["necromancer", "players"]
    assert all(g["done"] for g in state["generations"])
    pools = {s: [e["name"] for e in state["pools"][s]] for s in ("necromancer", "players")}
    assert pools == {"necromancer": ["heuristic", "random", "necromancer_g1"], "players": ["greedy", "random", "players_g2"]}
    # the matrix: every pair, the Necromancer's win rate over the seeded games of necro-env evaluate
    payoff = _read_csv(league / "payoff.csv")
    assert len(payoff) == 9 and all(r["games"] == "6" for r in payoff)
    cell = {(r["necromancer"], r["players"]): r for r in payoff}
    ref = evaluate(3, "heuristic", "greedy", games=6, seed=5)["necromancer"]
    assert int(cell[("heuristic", "greedy")]["wins"]) == ref["wins"]
    assert float(cell[("heuristic", "greedy")]["lo"]) == pytest.approx(ref["ci95"][0], abs=1e-4)
    learned = evaluate(3, str(league / "league_necromancer_3p.safetensors"), "random", games=6, seed=5)["necromancer"]
    assert int(cell[("necromancer_g1", "random")]["wins"]) == learned["wins"]
    grid = json.loads((league / "payoff.json").read_text())
    assert grid["necromancer"] == pools["necromancer"] and np.array(grid["win_rate"]).shape == (3, 3)
    # generation 1's mixture is the Nash of the scripts' 2x2 matrix (the players' half)
    a = np.array(grid["win_rate"])[:2, :2]
    sol = nash_zero_sum(a)
    expect = {n: w for n, w in zip(["greedy", "random"], sol["col"]) if w > 0}
    assert state["generations"][0]["mixture"] == expect
    assert state["generations"][0]["nash_gap"] == pytest.approx(sol["gap"])
    # the uniform rule weighs the other side's whole pool alike
    import dataclasses

    from training.league_train import League

    uniform = League(dataclasses.replace(load_league_config(TINY), mixture="uniform", out_dir=str(league.parent)))
    uniform.state = state
    assert uniform.mixture("necromancer") == ({"greedy": 1 / 3, "random": 1 / 3, "players_g2": 1 / 3}, None, None)
    # eval.csv: each generation against every member of the other side's pool, and the mixture
    rows = _read_csv(league / "eval.csv")
    g1 = [r for r in rows if r["generation"] == "1"]
    assert [r["opponent"] for r in g1] == ["greedy", "random", "players_g2", "mixture"]
    g2 = {r["opponent"]: r for r in rows if r["generation"] == "2"}
    assert float(g2["heuristic"]["win_rate"]) == pytest.approx(1 - float(cell[("heuristic", "players_g2")]["win_rate"]),
                                                              abs=1e-4)  # the players' win rate
    ratings = _read_csv(league / "ratings.csv")
    assert len(ratings) == 6 and {r["side"] for r in ratings} == {"necromancer", "players"}
    assert [float(r["ordinal"]) for r in ratings] == sorted((float(r["ordinal"]) for r in ratings), reverse=True)
    # the shipped copies are the last generations, loadable by path in their roles
    for side, role, gen in (("necromancer", "necromancer", "g01_necromancer__s6"), ("players", "player",
                                                                                    "g02_players__s7")):
        shipped = league / f"league_{side}_3p.safetensors"
        assert shipped.read_bytes() == (league / "runs" / gen / "final.safetensors").read_bytes()
        make_policy(str(shipped), role)
    # the generation's train config drew from the pool of the mixture
    cfg = (league / "runs/g02_players__s7/config.yaml").read_text()
    assert "necromancer_pool" in cfg and "heuristic" in cfg


def _summary(d: Path) -> dict:
    state = json.loads((d / "state.json").read_text())
    for g in state["generations"]:
        g.pop("train_seconds", None)
    return state


def test_stopped_league_resumes_to_the_same_state(league, tmp_path):
    """Stopped after generation 1's training (before its matrix entries), then inside generation 2's PPO run
    (after 128 of its 256 steps): each --resume continues, and the end is the one-go league's pools, matrix and
    mixtures, weights included."""
    cfg = load_league_config(TINY)
    import dataclasses

    cfg = dataclasses.replace(cfg, out_dir=str(tmp_path))
    d = tmp_path / "league_tiny"
    run_league(cfg, progress=False, stop=(1, None))
    state = json.loads((d / "state.json").read_text())
    assert [e["name"] for e in state["pools"]["necromancer"]] == ["heuristic", "random", "necromancer_g1"]
    assert not state["generations"][0]["done"] and len(state["matrix"]) == 4
    with pytest.raises(LeagueConfigError, match="--resume"):
        run_league(cfg, progress=False)
    g1 = (d / "runs/g01_necromancer__s6/final.safetensors").stat().st_mtime_ns
    run_league(cfg, resume=True, progress=False, stop=(2, 128))
    ckpts = sorted((d / "runs/g02_players__s7/checkpoints").glob("*.json"))
    assert json.loads(ckpts[-1].read_text())["num_timesteps"] == 128
    assert not (d / "runs/g02_players__s7/final.safetensors").exists()
    warm = (d / "runs/g02_players__s7/warm_start.json").stat().st_mtime_ns
    run_league(cfg, resume=True, progress=False)
    # generation 1 was not retrained, generation 2's run resumed from its checkpoint (no second warm start)
    assert (d / "runs/g01_necromancer__s6/final.safetensors").stat().st_mtime_ns == g1
    assert (d / "runs/g02_players__s7/warm_start.json").stat().st_mtime_ns == warm
    assert _summary(d) == _summary(league)
    for name in ("payoff.csv", "eval.csv", "ratings.csv"):
        assert (d / name).read_bytes() == (league / name).read_bytes(), name
    from safetensors.torch import load_file

    for side in ("necromancer", "players"):  # the same weights (the headers hold the runs' seconds)
        a, b = load_file(d / f"league_{side}_3p.safetensors"), load_file(league / f"league_{side}_3p.safetensors")
        assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def test_a_finished_league_resumes_without_replaying_a_game(league, tmp_path, monkeypatch):
    import dataclasses

    import necro_env.evaluate

    shutil.copytree(league, tmp_path / "league_tiny")
    monkeypatch.setattr(necro_env.evaluate, "run_games", lambda *a, **k: pytest.fail("a matrix entry was replayed"))
    done = run_league(dataclasses.replace(load_league_config(TINY), out_dir=str(tmp_path)), resume=True,
                      progress=False)
    assert done.matrix().shape == (3, 3)


def test_league_state_is_checked_on_resume(league, tmp_path):
    d = tmp_path / "league_tiny"
    shutil.copytree(league, d)
    state = json.loads((d / "state.json").read_text())
    state["config"]["eval_games"] = 7
    (d / "state.json").write_text(json.dumps(state))
    proc = _cli(str(TINY), "--out-dir", str(tmp_path), "--resume", "--quiet")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "started with another config" in proc.stderr
    (d / "state.json").write_text("{not json")
    with pytest.raises(LeagueStateError, match="cannot read the league state"):
        run_league(league_config_from_dict({**_tiny_dict(), "out_dir": str(tmp_path)}), resume=True, progress=False)
    state["config"]["eval_games"] = 6
    state["matrix"][0]["necromancer"] = "nobody"
    (d / "state.json").write_text(json.dumps(state))
    with pytest.raises(LeagueStateError, match="matrix entries"):
        run_league(league_config_from_dict({**_tiny_dict(), "out_dir": str(tmp_path)}), resume=True, progress=False)
    assert issubclass(LeagueStateError, StateError)


# ---------------------------------------------------------------- config errors
def _tiny_dict() -> dict:
    import yaml

    return yaml.safe_load(TINY.read_text())


def _side(side: str, **over) -> dict:
    d = _tiny_dict()
    d[f"{side}_side"] = {**d[f"{side}_side"], **over}
    return d


@pytest.mark.parametrize("data,match", [
    ({**_tiny_dict(), "generatons": 2}, "unknown key"),
    ({k: v for k, v in _tiny_dict().items() if k != "players_side"}, "'players_side' is required"),
    ({**_tiny_dict(), "mixture": "alpha"}, "mixture must be 'uniform' or 'nash'"),
    ({**_tiny_dict(), "first": "ghosts"}, "first must be"),
    ({**_tiny_dict(), "generations": 0}, "generations must be an int >= 1"),
    ({**_tiny_dict(), "players": 4}, "plays 3 seats, the league 4"),
    (_side("necromancer", recipe="configs/players_3p.yaml"), "trains learner 'players', not 'necromancer'"),
    (_side("players", recipe="configs/no_such.yaml"), "recipe must be the path of a train config"),
    (_side("players", pool=["greedy", "greedy"]), "names a spec twice"),
    (_side("players", pool=["no_such_policy"]), "players_side pool: unknown policy"),
    (_side("necromancer", total_steps=[256, 256]), "one int >= 1 per generation of this side"),
    (_side("necromancer", overrides={"name": "x"}), r"may not set \['name'\]"),
    (_side("necromancer", overrides={"n_envs": 0}), "n_envs must be"),
    (_side("necromancer", extra=1), "unknown key"),
])
def test_league_config_errors_are_named(data, match):
    with pytest.raises(LeagueConfigError, match=match):
        league_config_from_dict(data)


def test_generations_alternate_from_the_first_side_with_their_own_budgets(tmp_path):
    d = _tiny_dict()
    d.update(first="players", generations=3)
    d["players_side"] = {**d["players_side"], "total_steps": [128, 384]}
    cfg = league_config_from_dict(d)
    assert [cfg.side_of(g) for g in (1, 2, 3)] == ["players", "necromancer", "players"]
    assert [cfg.steps_of(g) for g in (1, 2, 3)] == [128, 256, 384]
    pool = [{"spec": "heuristic", "weight": 0.25}, {"spec": "random", "weight": 0.75}]
    tc = cfg.train_config(3, tmp_path, pool)
    assert (tc.name, tc.learner, tc.reward, tc.seed, tc.total_steps) == ("g03_players", "players", "coalition", 8, 384)
    assert tc.necromancer_pool == tuple(pool) and tc.opponent_pool is None and tc.net_arch == (16,)
    assert tc.out_dir == str(tmp_path / "runs")


def test_league_cli_reports_a_bad_config_in_one_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(json.dumps({**_tiny_dict(), "mixture": "alpha"}))
    proc = _cli(str(bad), "--out-dir", str(tmp_path))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "mixture must be" in proc.stderr
    shipped = load_league_config(ROOT / "configs/league_3p.yaml")
    assert shipped.steps_of(2) == 1_200_000 and shipped.necromancer_side.carry_on


# ---------------------------------------------------------------- where generations start; the mixture's floor
def test_sides_start_from_init_and_carry_on_from_their_previous_generation(tmp_path):
    from training.league_train import League

    d = _tiny_dict()
    d.update(generations=4, out_dir=str(tmp_path))
    d["necromancer_side"] = {**d["necromancer_side"], "init": "pretrained:necromancer_3p", "carry_on": True,
                             "overrides": {}}
    cfg = league_config_from_dict(d)
    league = League(cfg, progress=False)
    league.state = {"pools": {"necromancer": [{"name": "heuristic", "spec": "heuristic", "generation": 0}],
                              "players": [{"name": "greedy", "spec": "greedy", "generation": 0}]}}
    assert league.init_of(1) == "pretrained:necromancer_3p"  # the side's first generation: its init
    assert league.init_of(2) is None  # the players' side has none: the recipe's warm start
    league.state["pools"]["necromancer"].append({"name": "necromancer_g1", "spec": "runs/g1.safetensors",
                                                 "generation": 1})
    assert league.init_of(3) == str((league.dir / "runs/g1.safetensors").resolve())  # carry_on
    tc = cfg.train_config(3, league.dir, [{"spec": "greedy", "weight": 1.0}], "pretrained:necromancer_3p")
    assert tc.init_policy == "pretrained:necromancer_3p" and tc.warm_start is None
    assert cfg.train_config(2, league.dir, None).warm_start is not None and cfg.train_config(2, league.dir, None).init_policy is None
    d["necromancer_side"]["carry_on"] = False
    league = League(league_config_from_dict(d), progress=False)
    league.state = {"pools": {"necromancer": [{"name": "necromancer_g1", "spec": "x.safetensors", "generation": 1}]}}
    assert league.init_of(3) == "pretrained:necromancer_3p"  # without carry_on every generation starts at init


def test_uniform_share_mixes_the_uniform_mixture_into_the_nash_one(tmp_path, monkeypatch):
    from training.league_train import League

    d = {**_tiny_dict(), "out_dir": str(tmp_path)}
    for share, want in ((0.0, {"greedy": 1.0}), (0.4, {"greedy": 0.8, "random": 0.2})):
        league = League(league_config_from_dict({**d, "uniform_share": share}), progress=False)
        league.state = {"pools": {"necromancer": [{"name": "heuristic", "spec": "heuristic", "generation": 0}],
                                  "players": [{"name": "greedy", "spec": "greedy", "generation": 0},
                                              {"name": "random", "spec": "random", "generation": 0}]}}
        monkeypatch.setattr(League, "matrix", lambda self: np.array([[0.4, 0.9]]))  # greedy is the players' best
        mix, value, _ = league.mixture("necromancer")
        assert mix.keys() == want.keys() and all(mix[k] == pytest.approx(w, abs=0.01) for k, w in want.items())
        assert value == pytest.approx(0.4, abs=0.01)


@pytest.mark.parametrize("data,match", [
    ({**_tiny_dict(), "uniform_share": 1.0}, r"uniform_share must be a number in \[0, 1\)"),
    (_side("players", init="greedy"), "init must be null or a policy file"),
    (_side("players", carry_on="yes"), "carry_on must be true or false"),
    (_side("players", overrides={"init_policy": "pretrained:players_3p"}), r"may not set \['init_policy'\]"),
    (_side("players", init="pretrained:necromancer_3p"), "a necromancer policy, the learner is the player"),
    (_side("players", init="pretrained:players_3p"), "is not the config's"),  # the tiny recipe's MLP
])
def test_league_start_errors_are_named(data, match):
    with pytest.raises(LeagueConfigError, match=match):
        league_config_from_dict(data)
