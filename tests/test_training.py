"""Training (issue 7): the single-seat view, typed configs, a tiny train.py run, exact resume,
and a saved policy loaded wherever a policy name is accepted."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from stable_baselines3.common.env_checker import check_env  # noqa: E402

from necro_env.game.errors import IllegalActionError, StateError  # noqa: E402
from necro_env.observe import OBS_SIZE  # noqa: E402
from necro_env.single_seat import SingleSeatEnv  # noqa: E402
from training.config import TrainConfig, TrainConfigError, config_from_dict, load_config  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def tiny(tmp_path: Path, **over) -> TrainConfig:
    base = dict(name="tiny", players=3, learner="necromancer", opponents="random", total_steps=256,
                n_envs=2, n_steps=64, batch_size=64, n_epochs=2, net_arch=(32, 32), checkpoint_every=128,
                seed=3, out_dir=str(tmp_path), shaping=1.0)
    base.update(over)
    return TrainConfig(**base)


# ---------------------------------------------------------------- the single-seat view
@pytest.mark.parametrize("kwargs", [
    dict(players=3, learner="necromancer", opponents="random"),
    dict(players=4, learner="player", opponents="greedy", necromancer_opponent="heuristic"),
    dict(players=3, learner="player", opponents="random", necromancer=False),
])
def test_single_seat_view_passes_sb3_check_env(kwargs):
    env = SingleSeatEnv(**kwargs)
    check_env(env)  # SB3's own checker (it also steps random, possibly illegal, actions)


def test_single_seat_view_plays_only_the_learner_seat():
    """Every observation the learner gets is for a decision of its own seat; rewards are its own."""
    env = SingleSeatEnv(players=4, learner="player", opponents="random", necromancer_opponent="random")
    env.reset(seed=5)
    seats = set()
    for _ in range(3):
        obs, info = env.reset()
        seats.add(info["seat"])
        done = False
        while not done:
            assert env.state.decider == info["seat"]
            mask = env.action_masks()
            assert mask.any() and mask.dtype == bool
            obs, reward, done, _, info2 = env.step(int(np.flatnonzero(mask)[0]))
        res = info2["result"]
        assert reward == (1.0 if info["seat"] in res["winners"] else -1.0)
    assert seats == {0, 1, 2}  # the learner's seat rotates over the player seats


def test_illegal_action_terminates_or_raises():
    env = SingleSeatEnv(players=3)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, done, _, info = env.step(illegal)
    assert done and reward == -1.0 and info["illegal_action"] == illegal
    strict = SingleSeatEnv(players=3, illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(IllegalActionError):
        strict.step(illegal)


def test_single_seat_state_round_trip_continues_identically():
    env = SingleSeatEnv(players=5, opponents="greedy")
    env.reset(seed=11)
    for _ in range(30):
        if env.step(int(np.flatnonzero(env.action_masks())[-1]))[2]:
            env.reset()
    saved = json.loads(json.dumps(env.get_state()))
    copy = SingleSeatEnv(players=5, opponents="greedy")
    copy.set_state(saved)
    for _ in range(200):
        a = int(np.flatnonzero(env.action_masks())[0])
        o1, r1, d1, _, _ = env.step(a)
        o2, r2, d2, _, _ = copy.step(a)
        assert np.array_equal(o1, o2) and r1 == r2 and d1 == d2
        if d1:
            env.reset()
            copy.reset()
    saved["state"]["tok"][0] += 3
    with pytest.raises(StateError):
        copy.set_state(saved)


def test_shaping_adds_up_to_the_progress_made():
    """With shaping, the shaping terms of a game add up to phi(end) - phi(start)."""
    plain = SingleSeatEnv(players=3, opponents="random")
    shaped = SingleSeatEnv(players=3, opponents="random", shaping=1.0)
    plain.reset(seed=2)
    shaped.reset(seed=2)
    phi0 = shaped._potential()
    total_plain = total_shaped = 0.0
    done = False
    while not done:
        a = int(np.flatnonzero(plain.action_masks())[0])
        _, r1, done, _, _ = plain.step(a)
        _, r2, _, _, _ = shaped.step(a)
        total_plain += r1
        total_shaped += r2
    assert total_shaped - total_plain == pytest.approx(shaped._potential() - phi0)
    assert shaped._potential() > 0


# ---------------------------------------------------------------- configs
def test_shipped_configs_load():
    names = {p.stem for p in (ROOT / "configs").glob("*.yaml")}
    assert {"necromancer_quick", "necromancer_3p", "necromancer_4p", "necromancer_5p", "necromancer_6p",
            "player_2p", "player_selfplay_4p"} <= names
    for p in (ROOT / "configs").glob("*.yaml"):
        if p.stem.startswith(("league", "rllib_")):  # rllib_*: tests/test_rllib_config.py
            continue
        cfg = load_config(p)
        assert cfg.name == p.stem
    for p in (ROOT / "configs/ablations").glob("*.yaml"):  # each ablation names what it changes
        cfg = load_config(p)
        assert cfg.name.startswith("abl_")
    # the recipe's configs: about an hour on the 2 cores (a wall-time cap of at most 60 minutes, or a step
    # budget with no cap, which is what makes a run reproducible), the region network, a warm start
    for name in ("necromancer_3p", "necromancer_4p", "necromancer_5p", "necromancer_6p", "player_2p", "players_3p",
                 "players_6p"):
        cfg = load_config(ROOT / f"configs/{name}.yaml")
        assert (cfg.max_minutes <= 60 if cfg.max_minutes is not None else cfg.total_steps <= 6_500_000)
        assert cfg.policy == "region"
        assert cfg.warm_start is not None and cfg.opponents == "greedy"
    assert load_config(ROOT / "configs/player_selfplay_4p.yaml").selfplay is not None
    for name in ("players_3p", "players_6p"):  # the scenario's players: one team network vs the heuristic
        cfg = load_config(ROOT / f"configs/{name}.yaml")
        assert (cfg.learner, cfg.reward, cfg.necromancer_opponent) == ("players", "coalition", "heuristic")


@pytest.mark.parametrize("data,msg", [
    ({"name": "x", "playrs": 3}, "unknown key"),
    ({"name": "x", "players": 7}, "players must be 3-6"),
    ({"name": "x", "learner": "ghost"}, "learner must be"),
    ({"name": "x", "reward": "money"}, "reward must be"),
    ({"name": "x", "learner": "players"}, "goes with reward 'coalition'"),
    ({"name": "x", "learner": "player", "reward": "coalition"}, "goes with reward 'coalition'"),
    ({"name": "x", "learner": "players", "reward": "coalition", "necromancer": False, "players": 3},
     "needs necromancer: true"),
    ({"name": "x", "learner": "players", "reward": "coalition", "selfplay": {}}, "no player seat left"),
    ({"name": "x", "selfplay": {"pool": 3}}, "unknown key"),
    ({"players": 3}, "'name' is required"),
    ({"name": "x", "n_envs": 0}, "n_envs must be"),
])
def test_bad_configs_are_named(data, msg):
    with pytest.raises(TrainConfigError, match=msg):
        config_from_dict(data)


def test_train_cli_reports_bad_config_with_exit_2(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\nplayers: 3\nlearning_rat: 0.1\n")
    proc = subprocess.run([sys.executable, str(ROOT / "training/train.py"), "--config", str(bad)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2
    assert "learning_rat" in proc.stderr


# ---------------------------------------------------------------- train.py
def _params(path: Path) -> dict:
    from sb3_contrib import MaskablePPO
    model = MaskablePPO.load(str(path), device="cpu")
    return {k: v.clone() for k, v in model.policy.state_dict().items()}


@pytest.mark.parametrize("policy", ["mlp", "region"])
def test_tiny_training_run_then_evaluate_the_saved_policy(tmp_path, policy):
    """A few hundred steps train, write TensorBoard logs (with the config's table), eval.csv (with the starting point),
    final.zip and the weights-only final.safetensors; the weights-only file plays through `necro-env evaluate
    --necromancer PATH` without --trust-pickle and acts exactly as the trained network; final.zip needs the flag."""
    from necro_env.agents.torch_policy import read_policy_file
    from training.train import train
    cfg = tiny(tmp_path, eval_every=128, eval_games=4, policy=policy, net={"d": 16, "hidden": 32} if policy == "region" else {})
    run = train(cfg, progress=False)
    assert (run / "final.zip").is_file() and (run / "final.safetensors").is_file()
    events = list((run / "tb").rglob("events.*"))
    assert events and any(b"hyperparameters" in e.read_bytes() and b"|learning_rate|" in e.read_bytes() for e in events)
    rows = (run / "eval.csv").read_text().splitlines()
    assert rows[0] == "steps,seconds,wins,games,win_rate,lo,hi" and rows[1].startswith("0,") and len(rows) >= 3
    net, role, info = read_policy_file(run / "final.safetensors")
    assert role == "necromancer" and info["steps"] == cfg.total_steps and info["config"]["policy"] == policy
    from necro_env.agents.torch_policy import policy_header
    from necro_env.fingerprint import layout_fingerprint, source_commit
    header = policy_header(run / "final.safetensors")  # issue 27.1: what it was made for and by
    assert header["fingerprint"] == layout_fingerprint() and header["commit"] == source_commit()
    from sb3_contrib import MaskablePPO
    model = MaskablePPO.load(run / "final.zip", device="cpu")
    for k, v in model.policy.net.state_dict().items():
        assert torch.equal(v, net.state_dict()[k]), k
    out = subprocess.run([sys.executable, "-m", "necro_env.cli", "evaluate", "--players", "3",
                          "--necromancer", str(run / "final.safetensors"), "--players-policy", "random",
                          "--games", "4", "--seed", "0", "--workers", "1", "--json"],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    assert summary["games"] == 4 and summary["necromancer"]["policy"].endswith("final.safetensors")
    refused = subprocess.run([sys.executable, "-m", "necro_env.cli", "evaluate", "--players", "3",
                              "--necromancer", str(run / "final.zip"), "--games", "2"],
                             capture_output=True, text=True, timeout=600)
    assert refused.returncode != 0 and "--trust-pickle" in refused.stderr


def test_run_directory_is_not_overwritten_without_resume_or_force(tmp_path):
    from training.train import train
    cfg = tiny(tmp_path, total_steps=128)
    train(cfg, progress=False)
    with pytest.raises(TrainConfigError, match="--resume"):
        train(cfg, progress=False)
    train(cfg, progress=False, force=True)


def test_resume_continues_exactly(tmp_path):
    """Stopping after 256 steps and resuming to 512 gives the same weights as 512 straight:
    the step counter, the optimizer, every random generator and the games in progress continue."""
    from training.train import train
    straight = train(tiny(tmp_path / "a", total_steps=512), progress=False)
    cfg = tiny(tmp_path / "b", total_steps=512)
    train(cfg, progress=False, stop_after=256)
    ckpts = sorted((Path(cfg.out_dir) / cfg.run_name / "checkpoints").glob("*.json"))
    assert json.loads(ckpts[-1].read_text())["num_timesteps"] == 256
    resumed = train(cfg, resume=True, progress=False)
    a, b = _params(straight / "final.zip"), _params(resumed / "final.zip")
    assert a.keys() == b.keys()
    for k in a:
        assert torch.equal(a[k], b[k]), k
    # and training did change the weights (the comparison is not vacuous)
    start = train(tiny(tmp_path / "c", total_steps=128), progress=False)
    assert any(not torch.equal(a[k], v) for k, v in _params(start / "final.zip").items())


def _tiny_policy_file(path: Path, role: str) -> str:
    """A weights-only policy file of an untrained tiny network (a learned member of a pool)."""
    from necro_env.agents.nets import build_net
    from necro_env.agents.torch_policy import save_policy

    torch.manual_seed(0)
    save_policy(build_net({"kind": "mlp", "hidden": [8]}), path, role, {})
    return str(path)


@pytest.mark.parametrize("learner", ["necromancer", "players"])
def test_pooled_training_resumes_exactly(tmp_path, learner):
    """Opponent pools (issue 29.2): the other side's policy is drawn per episode from a weighted pool (a learned
    file among scripts); stopping after 128 steps and resuming to 256 gives the weights of 256 straight, and the
    checkpointed envs name pool members (restored by name on resume)."""
    from training.train import train
    if learner == "necromancer":
        pool = {"opponent_pool": [{"spec": "greedy", "weight": 1}, {"spec": "random", "weight": 2},
                                  {"spec": _tiny_policy_file(tmp_path / "p.safetensors", "player"), "weight": 1}]}
        over = dict(learner="necromancer", **pool)
    else:
        pool = {"necromancer_pool": [{"spec": "heuristic", "weight": 1}, {"spec": "random", "weight": 1},
                                     {"spec": _tiny_policy_file(tmp_path / "n.safetensors", "necromancer"),
                                      "weight": 1}]}
        over = dict(learner="players", reward="coalition", **pool)
    straight = train(tiny(tmp_path / "a", total_steps=256, checkpoint_every=64, **over), progress=False)
    cfg = tiny(tmp_path / "b", total_steps=256, checkpoint_every=64, **over)
    train(cfg, progress=False, stop_after=128)
    ckpt = sorted((Path(cfg.out_dir) / cfg.run_name / "checkpoints").glob("*.json"))[-1]
    body = json.loads(ckpt.read_text())
    assert body["num_timesteps"] == 128
    specs = {e["spec"] for e in next(iter(pool.values()))}
    named = {n for st in body["env_states"] for n in st["policies"] if n is not None}
    assert named and named <= specs | {"heuristic", "greedy"}
    from training.train import make_env_fn  # the run's envs draw every member of the pool, the learned file too
    env = make_env_fn(cfg, Path(cfg.out_dir) / cfg.run_name)().unwrapped
    seat = env.player_seats[0] if learner == "necromancer" else env.game.necro_seat
    drawn = set()
    for ep in range(40):
        env.reset(seed=0 if ep == 0 else None)
        drawn.add(env.get_state()["policies"][seat])
    assert drawn == specs
    resumed = train(cfg, resume=True, progress=False)
    a, b = _params(straight / "final.zip"), _params(resumed / "final.zip")
    for k in a:
        assert torch.equal(a[k], b[k]), k


def test_pool_config_errors_are_named():
    good = [{"spec": "greedy", "weight": 1}]
    for data, msg in [
        ({"name": "x", "opponent_pool": "greedy"}, "opponent_pool must be null or a list"),
        ({"name": "x", "opponent_pool": [{"spec": "greedy", "wieght": 1}]}, r"opponent_pool\[0\] must be a mapping"),
        ({"name": "x", "opponent_pool": [{"spec": "greedy", "weight": 0}]}, "weight must be a number > 0"),
        ({"name": "x", "opponent_pool": [{"spec": "no_such_policy"}]}, r"opponent_pool\[0\]: unknown policy"),
        ({"name": "x", "opponent_pool": good * 2}, "names a spec twice"),
        ({"name": "x", "necromancer_pool": [{"spec": "heuristic"}]}, "necromancer_pool is for a player learner"),
        ({"name": "x", "learner": "players", "reward": "coalition", "opponent_pool": good}, "holds every player seat"),
        ({"name": "x", "learner": "player", "opponent_pool": good, "selfplay": {}}, "opponent_pool and selfplay"),
    ]:
        with pytest.raises(TrainConfigError, match=msg):
            config_from_dict(data)
    cfg = config_from_dict({"name": "x", "opponent_pool": [{"spec": "greedy"}, {"spec": "random", "weight": 3}]})
    assert cfg.opponent_pool == ({"spec": "greedy", "weight": 1.0}, {"spec": "random", "weight": 3})
    assert config_from_dict(cfg.to_dict()) == cfg  # round trip through the run's config.yaml


def test_selfplay_snapshots_join_the_opponent_pool(tmp_path):
    from training.config import SelfPlayConfig
    from training.train import train
    cfg = tiny(tmp_path, learner="player", players=3, necromancer=False, opponents="random", total_steps=384,
               selfplay=SelfPlayConfig(snapshot_every=128, pool_size=2, p_snapshot=1.0))
    run = train(cfg, progress=False)
    snaps = sorted((run / "snapshots").glob("snap_*.safetensors"))
    assert 1 <= len(snaps) <= 2
    from training.policies import SnapshotSampler
    sampler = SnapshotSampler(run / "snapshots", "random", p_snapshot=1.0, pool_size=2)
    pol = sampler(np.random.default_rng(0), 1)
    assert pol.name.startswith("snap_") and not pol.deterministic
    from necro_env.agents.base import View
    from necro_env.game import Game, GameConfig
    g = Game(GameConfig(players=3, necromancer=False))
    st = g.new_state(4)
    picks = [pol.act(View(g, st, st.decider), np.random.default_rng(9)) for _ in range(3)]
    assert len(set(picks)) == 1 and picks[0] in g.legal_actions(st)  # sampled with the given rng only
    env = SingleSeatEnv(players=3, learner="player", necromancer=False, opponent_sampler=sampler)
    env.reset(seed=0)
    done = False
    while not done:
        _, _, done, _, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))


def test_subproc_vec_env_trains(tmp_path):
    """The single-seat view works under SubprocVecEnv (envs in worker processes)."""
    from training.train import train
    run = train(tiny(tmp_path, vec_env="subproc", total_steps=128, checkpoint_every=0), progress=False)
    assert (run / "final.zip").is_file()


def test_chunked_vec_env_steps_the_envs_as_dummy_vec_env_does():
    """Five envs over two worker processes: the same observations, rewards, dones, infos (terminal observation
    included) and action masks as DummyVecEnv for the same seeds and actions, through several episodes; the
    masks come with each step's reply, and a set_state through env_method is seen by the next masks."""
    from stable_baselines3.common.vec_env import DummyVecEnv
    from training.train import make_env_fn
    from training.vec_env import ChunkedSubprocVecEnv
    cfg = tiny(Path("/nonexistent"), players=3, opponents="random", n_envs=5)
    fns = [make_env_fn(cfg, Path("/nonexistent")) for _ in range(5)]
    dummy, chunked = DummyVecEnv(fns), ChunkedSubprocVecEnv(fns, workers=2)
    try:
        assert [len(c) for c in chunked.chunks] == [2, 3] or [len(c) for c in chunked.chunks] == [3, 2]
        for v in (dummy, chunked):
            v.seed(11)
        o1, o2 = dummy.reset(), chunked.reset()
        assert np.array_equal(o1, o2)
        rng = np.random.default_rng(0)
        dones = 0
        for _ in range(400):
            m1 = np.stack(dummy.env_method("action_masks"))
            m2 = np.stack(chunked.env_method("action_masks"))
            assert np.array_equal(m1, m2)
            acts = np.array([rng.choice(np.flatnonzero(m)) for m in m1])
            (o1, r1, d1, i1), (o2, r2, d2, i2) = dummy.step(acts), chunked.step(acts)
            assert np.array_equal(o1, o2) and np.array_equal(r1, r2) and np.array_equal(d1, d2)
            for a, b in zip(i1, i2):
                assert a.keys() == b.keys()
                if "terminal_observation" in a:
                    assert np.array_equal(a["terminal_observation"], b["terminal_observation"])
            dones += int(d1.sum())
        assert dones >= 3  # episodes ended and the envs reset inside the workers
        states = dummy.env_method("get_state", indices=[0])
        chunked.env_method("set_state", states[0], indices=[4])
        assert np.array_equal(chunked.env_method("action_masks", indices=[4])[0], dummy.env_method("action_masks")[0])
        assert chunked.get_attr("seat", indices=[4]) == dummy.get_attr("seat", indices=[0])
    finally:
        dummy.close()
        chunked.close()


def test_chunked_vec_env_trains_and_resumes_exactly(tmp_path):
    """Training with the envs in 2 worker processes and torch on 2 threads for the update: a stop and a
    resume reach the same weights as a straight run."""
    from training.train import train
    over = dict(vec_env="chunked", env_workers=2, update_threads=2, n_envs=3, total_steps=384)
    straight = train(tiny(tmp_path / "a", **over), progress=False)
    cfg = tiny(tmp_path / "b", **over)
    train(cfg, progress=False, stop_after=192)
    resumed = train(cfg, resume=True, progress=False)
    a, b = _params(straight / "final.zip"), _params(resumed / "final.zip")
    for k in a:
        assert torch.equal(a[k], b[k]), k


def test_pipeline_with_the_envs_in_one_worker_trains_the_same_weights(tmp_path):
    """The 3-seat recipe's setting (``pipeline: true`` with every env in one worker process) is a speed setting:
    the same weights as the pipeline with the envs in the learner's process."""
    from training.train import train
    common = dict(pipeline=True, n_envs=3, total_steps=384)
    here = train(tiny(tmp_path / "a", vec_env="dummy", **common), progress=False)
    worker = train(tiny(tmp_path / "b", vec_env="chunked", env_workers=1, **common), progress=False)
    a, b = _params(here / "final.zip"), _params(worker / "final.zip")
    assert a.keys() == b.keys()
    for k in a:
        assert torch.equal(a[k], b[k]), k


def test_killed_run_resumes_exactly(tmp_path):
    """Kill train.py mid-run (SIGKILL, no clean-up), resume with --resume: the final weights
    equal those of an uninterrupted run of the same config."""
    import time

    import yaml

    from training.train import train
    data = tiny(tmp_path / "killed", total_steps=1536, checkpoint_every=128).to_dict()
    cfg_path = tmp_path / "cfg.yaml"
    cfg_path.write_text(yaml.safe_dump(data))
    proc = subprocess.Popen([sys.executable, str(ROOT / "training/train.py"), "--config", str(cfg_path)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ckpt_dir = Path(data["out_dir"]) / "tiny__s3" / "checkpoints"
    deadline = time.time() + 240
    while time.time() < deadline and not list(ckpt_dir.glob("*.json")) and proc.poll() is None:
        time.sleep(0.05)
    proc.kill()
    proc.wait()
    done = sorted(ckpt_dir.glob("*.json"))
    assert done, "no checkpoint was written before the kill"
    killed_at = json.loads(done[-1].read_text())["num_timesteps"]
    if killed_at >= 1536:
        pytest.skip("the run finished before it could be killed")
    assert not (ckpt_dir.parent / "final.zip").exists()
    out = subprocess.run([sys.executable, str(ROOT / "training/train.py"), "--config", str(cfg_path), "--resume"],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    straight = train(tiny(tmp_path / "straight", total_steps=1536, checkpoint_every=128), progress=False)
    a, b = _params(straight / "final.zip"), _params(ckpt_dir.parent / "final.zip")
    for k in a:
        assert torch.equal(a[k], b[k]), k


def test_game_options_are_checked_when_the_config_loads():
    with pytest.raises(TrainConfigError, match="game_options"):
        config_from_dict({"name": "x", "game_options": {"handicp": 1}})
    with pytest.raises(TrainConfigError, match="handicap"):
        config_from_dict({"name": "x", "game_options": {"handicap": 5}})
    assert config_from_dict({"name": "x", "game_options": {"handicap": 1}}).game_options == {"handicap": 1}


def test_warm_start_clones_the_teacher_before_ppo(tmp_path):
    """warm_start: the teacher's games are cloned into the network before PPO (warm_start.json reports it), the starting
    point is evaluated, and a resumed run does not clone again."""
    from training.config import WarmStartConfig
    from training.train import train
    cfg = tiny(tmp_path, policy="region", net={"d": 16, "hidden": 32}, total_steps=256, eval_every=256, eval_games=4,
               warm_start=WarmStartConfig(teacher="heuristic", games=6, epochs=2, workers=1))
    run = train(cfg, progress=False, stop_after=128)
    report = json.loads((run / "warm_start.json").read_text())
    assert report["games"] == 6 and report["decisions"] > 100 and 0 < report["accuracy"] <= 1
    mtime = (run / "warm_start.json").stat().st_mtime
    train(cfg, resume=True, progress=False)
    assert (run / "warm_start.json").stat().st_mtime == mtime
    assert (run / "final.safetensors").is_file()


def test_progress_bar_and_quiet(tmp_path):
    """train.py shows a progress bar with steps/s and the latest evaluation; --quiet prints nothing."""
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"name: p\nplayers: 3\nopponents: random\ntotal_steps: 256\nn_envs: 2\nn_steps: 64\n"
                   f"batch_size: 64\nn_epochs: 1\nnet_arch: [16]\neval_every: 128\neval_games: 2\n"
                   f"checkpoint_every: 0\nout_dir: {tmp_path}\n")
    loud = subprocess.run([sys.executable, "training/train.py", "--config", str(cfg)], capture_output=True, text=True,
                          cwd=ROOT, timeout=600)
    assert loud.returncode == 0, loud.stderr
    assert "step/s" in loud.stderr and "eval " in loud.stderr and "trained p" in loud.stdout
    quiet = subprocess.run([sys.executable, "training/train.py", "--config", str(cfg), "--force", "--quiet"],
                           capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert quiet.returncode == 0 and quiet.stdout == "" and quiet.stderr == ""


@pytest.mark.parametrize("bad,match", [
    ({"policy": "transformer"}, "policy must be"),
    ({"policy": "region", "net": {"width": 3}}, "net:"),
    ({"lr_schedule": "cosine"}, "lr_schedule"),
    ({"max_minutes": 0}, "max_minutes"),
    ({"vec_env": "chunked", "n_envs": 2, "env_workers": 3}, "env_workers"),
    ({"update_threads": 0}, "update_threads"),
    ({"max_minutes": True}, "max_minutes"),
    ({"target_kl": -1}, "target_kl"),
    ({"critic_warmup_steps": -5}, "critic_warmup_steps"),
    ({"critic_warmup_steps": 1.5}, "critic_warmup_steps"),
    ({"average_last": 0}, "average_last"),
    ({"pipeline": "yes"}, "pipeline must be true or false"),
    ({"pipeline": True, "update_threads": 2}, "pipeline and update_threads"),
    ({"warm_start": {"games": 0}}, "warm_start: games"),
    ({"warm_start": {"teacher": "heuristic", "lessons": 3}}, "unknown key"),
])
def test_learning_config_keys_are_checked(bad, match):
    with pytest.raises(TrainConfigError, match=match):
        config_from_dict({"name": "x", **bad})


def test_max_minutes_stops_the_run_and_saves_the_final_policy(tmp_path):
    """A wall-time cap shorter than the run: PPO stops early, and final.safetensors records the steps
    actually taken and why it stopped; without the cap the same run goes to total_steps."""
    from necro_env.agents.torch_policy import read_policy_file
    from training.train import train
    run = train(tiny(tmp_path, total_steps=10_000_000, max_minutes=0.002, checkpoint_every=0), progress=False)
    _, _, info = read_policy_file(run / "final.safetensors")
    assert info["stopped_by"] == "max_minutes" and 0 < info["steps"] < 10_000_000
    run2 = train(tiny(tmp_path, name="tiny2", checkpoint_every=0), progress=False)
    _, _, info2 = read_policy_file(run2 / "final.safetensors")
    assert info2["stopped_by"] == "total_steps" and info2["steps"] == 256


def test_pipelined_training_overlaps_one_update_and_repeats(tmp_path):
    """pipeline: true. Rollout k is collected by the weights the model held when it started (the newest
    then), while the update on rollout k-1 runs beside it; every rollout, the last included, gets its
    update; callbacks see no update running at a rollout's start; and the same seed gives the same weights."""
    import threading

    from stable_baselines3.common.callbacks import BaseCallback

    import training.pipeline as pipeline
    from training.train import train

    seen = []

    class Watch(BaseCallback):
        def _on_rollout_start(self) -> None:
            assert not any(t.name == "ppo-update" for t in threading.enumerate())
            seen.append((self.model._n_updates, {k: v.clone() for k, v in self.model.policy.state_dict().items()}))

        def _on_step(self) -> bool:
            return True

    collected = []
    real_learn, real_collect = pipeline.learn_pipelined, None

    def learn(model, total, callback, **kw):
        nonlocal real_collect
        real_collect = model.collect_rollouts

        def collect(env, cb, buf, n, use_masking=True):
            collected.append({k: v.clone() for k, v in model.policy.state_dict().items()})
            return real_collect(env, cb, buf, n, use_masking=use_masking)
        model.collect_rollouts = collect
        callback.callbacks.append(Watch())
        try:
            return real_learn(model, total, callback, **kw)
        finally:
            del model.collect_rollouts  # an instance attribute SB3 would try to save

    pipeline.learn_pipelined = learn
    try:
        cfg = tiny(tmp_path, pipeline=True, policy="region", net={"d": 16, "hidden": 32}, total_steps=512,
                   checkpoint_every=0)
        run = train(cfg, progress=False)
    finally:
        pipeline.learn_pipelined = real_learn
    rollouts = 512 // (cfg.n_envs * cfg.n_steps)
    assert len(collected) == len(seen) == rollouts
    for k, (n_updates, weights) in enumerate(seen):
        assert n_updates == max(0, k - 1) * cfg.n_epochs  # one update behind: rollout k-1 trains during k
        assert all(torch.equal(weights[n], collected[k][n]) for n in weights)
    assert not all(torch.equal(seen[0][1][n], seen[-1][1][n]) for n in seen[0][1])

    from necro_env.agents.torch_policy import read_policy_file
    first = read_policy_file(run / "final.safetensors")[0].state_dict()
    again = read_policy_file(train(cfg, force=True, progress=False) / "final.safetensors")[0].state_dict()
    assert first.keys() == again.keys() and all(torch.equal(first[k], again[k]) for k in first)


def test_critic_warmup_leaves_the_actor_as_it_is(tmp_path):
    """CriticWarmup: during the warm-up PPO changes the critic's weights only (the actor and the shared
    trunk are frozen, exactly); from the first rollout after it, every weight trains again."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    from necro_env.agents.nets import build_net
    from training.train import CriticWarmup, build_model, make_env_fn

    cfg = tiny(tmp_path, policy="region", net={"d": 16, "hidden": 32})

    def run(warmup: int | None, steps: int):
        env = DummyVecEnv([make_env_fn(cfg, tmp_path) for _ in range(cfg.n_envs)])
        model = build_model(cfg, env, tmp_path / "tb")
        before = {k: v.detach().clone() for k, v in model.policy.net.state_dict().items()}
        model.learn(total_timesteps=steps, callback=CriticWarmup(warmup) if warmup else None)
        after = model.policy.net.state_dict()
        assert all(p.requires_grad for p in model.policy.net.parameters())  # thawed at the end
        return {k for k in before if not torch.equal(before[k], after[k])}

    critic = {k for k in build_net(cfg.net_spec).state_dict() if k.startswith(("critic.", "value_out."))}
    moved = run(10_000, 256)
    assert critic and moved == critic, moved ^ critic
    moved_after = run(128, 512)  # two rollouts of 128 steps frozen, then two that train everything
    assert moved_after - critic, "after the warm-up the trunk and the actor train"
    moved_plain = run(None, 256)
    assert moved_plain - critic


def test_final_policy_averages_the_last_checkpoints(tmp_path):
    """average_last: final.safetensors holds the mean of the weights of the newest checkpoints (the run's end
    included), its info names their steps; final.zip keeps the last weights to continue training from."""
    from necro_env.agents.torch_policy import read_policy_file
    from training.checkpoint import checkpoint_net_weights, checkpoint_step, checkpoints
    from training.train import train

    run = train(tiny(tmp_path, total_steps=512, checkpoint_every=128, average_last=3), progress=False)
    net, _, info = read_policy_file(run / "final.safetensors")
    bases = checkpoints(run / "checkpoints")[:3]
    assert info["averaged_checkpoints"] == [256, 384, 512] == sorted(checkpoint_step(b) for b in bases)
    states = [checkpoint_net_weights(b, 2, OBS_SIZE) for b in bases]
    for k, v in net.state_dict().items():
        assert torch.allclose(v, (states[0][k] + states[1][k] + states[2][k]) / 3, atol=1e-6), k
    assert not all(torch.equal(v, states[0][k]) for k, v in net.state_dict().items())  # not the last weights
    # training/average.py does the same after the fact, from the run directory
    from training.average import main as average
    assert average([str(run), "--last", "3"]) == 0
    again, _, info2 = read_policy_file(run / "final_avg3.safetensors")
    assert info2["averaged_checkpoints"] == [256, 384, 512] and info2["config"]["average_last"] == 3
    assert all(torch.equal(v, again.state_dict()[k]) for k, v in net.state_dict().items())
    assert average([str(run), "--last", "0"]) == 2
    assert average([str(tmp_path / "nope")]) == 2


# ---------------------------------------------------------------- report.py
def _report_run(tmp_path: Path, rows: str) -> Path:
    """A run directory as report.py reads it: the 3-seat config and an eval.csv with ``rows``."""
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.yaml").write_text((ROOT / "configs/necromancer_3p.yaml").read_text())
    (run / "eval.csv").write_text("steps,seconds,wins,games,win_rate,lo,hi\n" + rows)
    return run


def test_report_draws_bands_and_a_target_line_without_playing(tmp_path, capsys):
    from training import report

    run = _report_run(tmp_path, "0,10,130,300,0.4333,0.3787,0.4897\n500000,400,185,300,0.6167,0.5605,0.6698\n")
    out = tmp_path / "curve.png"
    assert report.main([str(run), "--band", "heuristic=0.468,0.429,0.508", "--band", "target=0.668,0.668,0.668",
                        "--out", str(out), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["references"] == {"heuristic": {"win_rate": 0.468, "ci95": [0.429, 0.508]},
                                     "target": {"win_rate": 0.668, "ci95": [0.668, 0.668]}}
    assert [r["steps"] for r in summary["evaluations"]] == [0, 500000]
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("band", ["heuristic=0.5,0.6,0.7", "heuristic=0.5", "=0.5,0.4,0.6", "heuristic 0.5,0.4,0.6"])
def test_report_rejects_a_malformed_band(tmp_path, band, capsys):
    from training import report

    run = _report_run(tmp_path, "0,10,130,300,0.4333,0.3787,0.4897\n")
    with pytest.raises(SystemExit) as e:
        report.main([str(run), "--band", band])
    assert e.value.code == 2
    assert "--band must be NAME=WIN,LO,HI" in capsys.readouterr().err


# ---------------------------------------------------------------- PPO from a policy file (init_policy)
def test_init_policy_is_the_runs_starting_point(tmp_path):
    from safetensors.torch import load_file

    from necro_env.agents.nets import build_net
    from necro_env.agents.torch_policy import save_policy
    from training.train import train

    torch.manual_seed(7)
    src = build_net({"kind": "mlp", "hidden": [32, 32]})
    with torch.no_grad():
        for p in src.parameters():
            p.add_(torch.randn_like(p))  # weights no fresh network has
    init = tmp_path / "init.safetensors"
    save_policy(src, init, "necromancer")
    run = train(tiny(tmp_path, init_policy=str(init)), progress=False, stop_after=128)
    start, want = load_file(run / "start.safetensors"), load_file(init)
    assert set(start) == set(want) and all(torch.equal(start[k], want[k]) for k in want)
    fresh = train(tiny(tmp_path, name="fresh"), progress=False, stop_after=128)
    other = load_file(fresh / "start.safetensors")
    assert not all(torch.equal(other[k], want[k]) for k in want)  # without it the start is a fresh network


def test_init_policy_errors_are_named(tmp_path):
    from necro_env.agents.nets import build_net
    from necro_env.agents.torch_policy import save_policy

    small = tmp_path / "small.safetensors"
    save_policy(build_net({"kind": "mlp", "hidden": [8]}), small, "necromancer")
    player = tmp_path / "player.safetensors"
    save_policy(build_net({"kind": "mlp", "hidden": [32, 32]}), player, "player")
    for over, match in [
        (dict(init_policy=str(small)), "is not the config's"),
        (dict(init_policy=str(player)), "a player policy, the learner is the necromancer"),
        (dict(init_policy="pretrained:no_such"), "no pretrained policy 'no_such'"),
        (dict(init_policy="greedy"), "pretrained:NAME or a .safetensors policy file"),
        (dict(init_policy=str(small), warm_start={"teacher": "heuristic"}), "both choose PPO's starting point"),
    ]:
        d = tiny(tmp_path).to_dict()
        d.update(over)
        with pytest.raises(TrainConfigError, match=match):
            config_from_dict(d)
