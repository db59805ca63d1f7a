"""Batched learned opponents (``vec_env: batched``): ``SingleSeatEnv.prepare_step``/``prepare_reset``/
``resolve``, ``NetPolicy.batch_act`` and ``training.vec_env.BatchedOpponentsVecEnv``.

* Scripted opponents: nothing is batched and the vec env steps exactly as ``DummyVecEnv``.
* The protocol is exact: with a batchable policy whose ``batch_act`` is ``act`` row by row, the batched
  vec env's trajectories equal ``DummyVecEnv``'s (sampled opponents too: each env's own generator).
* ``NetPolicy.batch_act`` decides as ``act`` on thousands of decisions of real games (arg-max and
  sampling, the generators drawn alike), a near-tie of logits the only allowed difference.
* A tiny ``train.py`` run with ``vec_env: batched`` against a learned opponent resumes exactly.
"""
from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
import torch  # noqa: E402
from stable_baselines3.common.monitor import Monitor  # noqa: E402
from stable_baselines3.common.vec_env import DummyVecEnv  # noqa: E402

from necro_env.agents.base import batch_key, is_batchable  # noqa: E402
from necro_env.agents.registry import make_policy  # noqa: E402
from necro_env.env import EnvUsageError  # noqa: E402
from necro_env.single_seat import SingleSeatEnv  # noqa: E402
from training.config import TrainConfig  # noqa: E402
from training.vec_env import BatchedOpponentsVecEnv  # noqa: E402

torch.set_num_threads(1)


class RowByRow:
    """A batchable policy whose ``batch_act`` is its base policy's ``act``, one view at a time (so a batch
    decides bit for bit as unbatched play): isolates the env's and the vec env's protocol."""

    def __init__(self, base):
        self.base, self.name = base, base.name

    def act(self, view, rng):
        return self.base.act(view, rng)

    def batch_act(self, views, rngs):
        return [self.base.act(v, r) for v, r in zip(views, rngs)]

    def reset(self):
        pass


class Checking:
    """Plays ``base.batch_act`` and, before it, ``base.act`` on each view with a copy of its generator;
    records every decision's two answers, the top-two logit gap, and whether both drew alike."""

    def __init__(self, base):
        self.base, self.name = base, base.name
        self.records: list[tuple[int, int, float]] = []  # (batched, single, gap of the two best legal logits)
        self.same_draws = True

    def act(self, view, rng):  # pragma: no cover - the batched vec env never calls it
        return self.base.act(view, rng)

    def batch_key(self):
        return self.base.batch_key()

    def batch_act(self, views, rngs):
        copies = [copy.deepcopy(r) for r in rngs]
        singles = [self.base.act(v, c) for v, c in zip(views, copies)]
        out = self.base.batch_act(views, rngs)
        for v, s, b, r, c in zip(views, singles, out, rngs, copies):
            self.same_draws &= r.bit_generator.state == c.bit_generator.state
            legal = v.legal
            gap = float("inf")
            if len(legal) > 1:
                top = torch.topk(self.base.logits(v.observation, v.mask.astype(bool))[legal], 2).values
                gap = float(top[0] - top[1])
            self.records.append((b, s, gap))
        return out

    def reset(self):
        pass


def _fns(n: int, **kw):
    return [lambda: Monitor(SingleSeatEnv(**kw)) for _ in range(n)]


def _same_steps(dummy, batched, steps: int, seed: int = 0) -> int:
    """Step both vec envs with the same uniform legal learner actions; assert identical results; the episodes ended."""
    for v in (dummy, batched):
        v.seed(seed)
    assert np.array_equal(dummy.reset(), batched.reset())
    assert dummy.reset_infos == batched.reset_infos
    rng = np.random.default_rng(seed)
    dones = 0
    for t in range(steps):
        m1, m2 = np.stack(dummy.env_method("action_masks")), np.stack(batched.env_method("action_masks"))
        assert np.array_equal(m1, m2), t
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in m1])
        (o1, r1, d1, i1), (o2, r2, d2, i2) = dummy.step(acts), batched.step(acts)
        assert np.array_equal(o1, o2) and np.array_equal(r1, r2) and np.array_equal(d1, d2), t
        for a, b in zip(i1, i2):
            assert a.keys() == b.keys(), t
            for k in a:
                if k == "terminal_observation":
                    assert np.array_equal(a[k], b[k])
                elif k == "episode":  # Monitor's: return and length equal; t is the wall clock
                    assert (a[k]["r"], a[k]["l"]) == (b[k]["r"], b[k]["l"])
                else:
                    assert a[k] == b[k], (t, k)
        assert dummy.reset_infos == batched.reset_infos
        dones += int(d1.sum())
    assert dummy.env_method("get_state") == batched.env_method("get_state")
    return dones


def test_scripted_opponents_step_exactly_as_dummy_vec_env():
    """Greedy players and the heuristic Necromancer have no batch_act: nothing is batched, and over several
    episodes every observation, reward, done, info (Monitor's episode, the terminal observation), mask and
    env state is DummyVecEnv's."""
    for kw in (dict(players=3, learner="necromancer", opponents="greedy"),
               dict(players=4, learner="players", reward="coalition", necromancer_opponent="heuristic")):
        dummy, batched = DummyVecEnv(_fns(4, **kw)), BatchedOpponentsVecEnv(_fns(4, **kw))
        assert _same_steps(dummy, batched, 150) >= 2
        assert batched.batch_stats == {"decisions": 0, "batches": 0}


@pytest.mark.parametrize("deterministic", [True, False])
def test_batched_protocol_is_exact_against_learned_opponents(deterministic):
    """A learned player team (pretrained:player_2p, arg-max or sampling from each env's own generator) and a
    learned Necromancer against a team learner: with batch_act answering row by row, the batched vec env's
    trajectories are DummyVecEnv's step for step, while many decisions were handed out and batched."""
    from necro_env.agents.torch_policy import load_policy
    from necro_env.agents.registry import PRETRAINED_DIR

    for kw, spec in ((dict(players=3, learner="necromancer"), "player_2p"),
                     (dict(players=3, learner="players", reward="coalition"), "necromancer_3p")):
        base = load_policy(PRETRAINED_DIR / f"{spec}.safetensors", deterministic=deterministic)
        pol = RowByRow(base)
        key = "opponents" if kw["learner"] == "necromancer" else "necromancer_opponent"
        dummy = DummyVecEnv(_fns(5, **kw, **{key: base}))
        batched = BatchedOpponentsVecEnv(_fns(5, **kw, **{key: pol}))
        assert _same_steps(dummy, batched, 60, seed=4) >= 1
        stats = batched.batch_stats
        assert stats["decisions"] >= 100 and stats["decisions"] > stats["batches"]  # several envs per batch


@pytest.mark.parametrize("deterministic", [True, False])
def test_net_policy_batch_act_decides_as_act(deterministic):
    """NetPolicy.batch_act on a few thousand decisions of real games (16 envs against pretrained:player_2p):
    each agrees with act on the same view (the same generator state, left in the same state), except at most
    a rare near-tie of the two best legal logits (a batched matmul rounds differently in the last bits)."""
    from necro_env.agents.torch_policy import load_policy
    from necro_env.agents.registry import PRETRAINED_DIR

    base = load_policy(PRETRAINED_DIR / "player_2p.safetensors", deterministic=deterministic)
    check = Checking(base)
    vec = BatchedOpponentsVecEnv(_fns(16, players=3, learner="necromancer", opponents=check))
    vec.seed(7)
    vec.reset()
    rng = np.random.default_rng(1)
    while len(check.records) < 2000:
        vec.step(np.array([rng.choice(np.flatnonzero(m)) for m in vec.env_method("action_masks")]))
    assert check.same_draws
    assert vec.batch_stats["decisions"] / vec.batch_stats["batches"] > 1.5
    differ = [(b, s, gap) for b, s, gap in check.records if b != s]
    assert len(differ) <= len(check.records) // 1000, differ
    if deterministic:
        assert all(gap < 1e-3 for _, _, gap in differ), differ


def test_batch_act_answers_a_single_legal_action_without_the_network_and_checks_its_input():
    pol = make_policy("pretrained:player_2p", "player")
    assert is_batchable(pol) and not is_batchable(make_policy("greedy", "player"))
    assert batch_key(pol) == batch_key(make_policy("pretrained:player_2p", "player"))  # two loads: one group
    assert batch_key(pol) != batch_key(make_policy("pretrained:player_2p", "player").__class__(
        pol.net, name=pol.name, deterministic=False))
    greedy = make_policy("greedy", "player")
    assert batch_key(greedy) == batch_key(greedy) != batch_key(make_policy("greedy", "player"))
    with pytest.raises(ValueError, match="one generator per view"):
        pol.batch_act([object()], [])

    class OneLegal:
        legal = [42]

        @property
        def observation(self):  # pragma: no cover - must not be read
            raise AssertionError("the network was asked")

    assert pol.batch_act([OneLegal(), OneLegal()], [np.random.default_rng(0)] * 2) == [42, 42]


def test_prepared_steps_are_taken_once_and_misuse_is_refused():
    """prepare_step hands out the learned seats' decisions; step(action) returns the prepared result once;
    a step with another action, get_state or a second prepare while a decision is pending are refused; a plain
    reset abandons prepared work."""
    env = SingleSeatEnv(players=3, learner="necromancer", opponents="pretrained:player_2p")
    twin = SingleSeatEnv(players=3, learner="necromancer", opponents="pretrained:player_2p")
    env.reset(seed=3)
    twin.reset(seed=3)
    rng = np.random.default_rng(0)
    handed = 0
    for _ in range(40):
        a = int(rng.choice(np.flatnonzero(env.action_masks())))
        d = env.prepare_step(a)
        while d is not None:
            assert d.seat != env.game.necro_seat and d.view.seat == d.seat and d.policy.name == "pretrained:player_2p"
            with pytest.raises(EnvUsageError, match="get_state.. while a prepared step is unfinished"):
                env.get_state()
            with pytest.raises(EnvUsageError, match="waits for an opponent"):
                env.step(a)
            with pytest.raises(EnvUsageError, match="still waits"):
                env.prepare_step(a)
            d = env.resolve(d.policy.act(d.view, d.rng))
            handed += 1
        with pytest.raises(EnvUsageError, match="is waiting to be taken"):
            env.step(a + 1)
        with pytest.raises(EnvUsageError, match="is waiting to be taken"):
            env.prepare_step(a)
        got, want = env.step(a), twin.step(a)
        assert np.array_equal(got[0], want[0]) and got[1:] == want[1:]
        assert env.get_state() == twin.get_state()
        if got[2]:
            env.reset()
            twin.reset()
    assert handed >= 20
    with pytest.raises(EnvUsageError, match="no pending opponent decision"):
        env.resolve(0)
    env.prepare_step(int(np.flatnonzero(env.action_masks())[0]))
    env.reset(seed=5)  # a plain reset drops the unfinished step
    twin.reset(seed=5)
    assert env.get_state() == twin.get_state()


def _tiny(out: Path, **kw) -> TrainConfig:
    base = dict(name="batched", players=3, learner="necromancer", opponents="pretrained:player_2p",
                vec_env="batched", total_steps=192, n_envs=3, n_steps=32, batch_size=48, n_epochs=1,
                net_arch=(16,), checkpoint_every=96, out_dir=str(out), seed=2, shaping=1.0,
                game_options={"game_turns": 3})  # short games: episodes end and start after a resume
    base.update(kw)
    return TrainConfig(**base)


def _params(path: Path) -> dict:
    from sb3_contrib import MaskablePPO

    return {k: v.clone() for k, v in MaskablePPO.load(str(path), device="cpu").policy.state_dict().items()}


def test_train_with_batched_learned_opponents_resumes_exactly(tmp_path):
    """train.py with vec_env batched against a learned player team: stopped after 96 steps and resumed, it
    reaches the weights of a straight run (the env states, games in progress and generators checkpointed);
    with pipeline: true it trains too."""
    from training.train import train

    straight = train(_tiny(tmp_path / "a"), progress=False)
    cfg = _tiny(tmp_path / "b")
    train(cfg, progress=False, stop_after=96)
    ckpt = sorted((Path(cfg.out_dir) / cfg.run_name / "checkpoints").glob("*.json"))[-1]
    states = json.loads(ckpt.read_text())["env_states"]
    assert all(s["policies"][:2] == ["pretrained:player_2p"] * 2 for s in states)
    resumed = train(cfg, resume=True, progress=False)
    a, b = _params(straight / "final.zip"), _params(resumed / "final.zip")
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    start = _params(train(_tiny(tmp_path / "c", total_steps=96), progress=False) / "final.zip")
    assert any(not torch.equal(a[k], v) for k, v in start.items())  # the comparison is not vacuous
    piped = train(_tiny(tmp_path / "d", pipeline=True, checkpoint_every=0), progress=False)
    assert (piped / "final.safetensors").is_file()


def test_train_against_sampled_selfplay_snapshots_resumes_exactly(tmp_path):
    """Self-play snapshots (learned, sampling from each env's own generator) in the other player seat,
    batched: a stopped and resumed run reaches the weights of a straight run."""
    from training.config import SelfPlayConfig
    from training.train import train

    over = dict(learner="player", opponents="greedy",
                selfplay=SelfPlayConfig(snapshot_every=32, pool_size=2, p_snapshot=1.0))
    straight = train(_tiny(tmp_path / "a", **over), progress=False)
    cfg = _tiny(tmp_path / "b", **over)
    train(cfg, progress=False, stop_after=96)
    resumed = train(cfg, resume=True, progress=False)
    ckpt = sorted((Path(cfg.out_dir) / cfg.run_name / "checkpoints").glob("*.json"))[-1]
    assert any(n and n.startswith("snap_") for s in json.loads(ckpt.read_text())["env_states"]
               for n in s["policies"])  # snapshots were playing
    a, b = _params(straight / "final.zip"), _params(resumed / "final.zip")
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def test_benchmark_runs_and_prints_its_table(capsys):
    """benchmarks/opponent_batching.py on a tiny budget: both vec envs, one row per opponent spec, and against
    a script the trajectories are the same."""
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "opponent_batching.py"
    spec = importlib.util.spec_from_file_location("bench_opponent_batching", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(["--envs", "2", "--steps", "3", "--repeats", "1", "--opponents", "greedy"]) == 0
    out = capsys.readouterr().out
    assert "DummyVecEnv" in out and "greedy" in out and out.splitlines()[-1].split()[-1] == "yes"
