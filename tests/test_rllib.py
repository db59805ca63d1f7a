"""Ray RLlib, first class (issue 14.1): RLlib's stock PettingZoo wrapper and env pre-check on the default env,
and tiny multi-agent PPO runs of training/rllib_train.py (0 and 1 remote env runners) that train both modules,
checkpoint, resume and are evaluated through necro_env's harness, with no illegal action.

Skipped when ray[rllib] is not installed (``pip install -e '.[rllib]'``; ``make install`` installs it)."""
from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

import numpy as np
import pytest
from gymnasium import spaces

pytest.importorskip("ray.rllib", reason="ray[rllib] is not installed (the rllib extra)")
torch = pytest.importorskip("torch")

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import ray  # noqa: E402
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv  # noqa: E402
from ray.rllib.utils.pre_checks.env import check_multiagent_environments  # noqa: E402

import necro_env  # noqa: E402
from necro_env.agents.base import UntrustedPolicyError, View  # noqa: E402
from necro_env.agents.registry import make_policy  # noqa: E402
from necro_env.game import NUM_ACTIONS  # noqa: E402
from training.rllib_config import config_from_dict  # noqa: E402
from training.rllib_train import _callbacks_class, checkpoints, make_env, train  # noqa: E402


@pytest.fixture(scope="module")
def ray_session():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False,
             runtime_env={"env_vars": {"PYTHONPATH": str(Path(__file__).resolve().parents[1]),
                                       "OMP_NUM_THREADS": "1"}})
    yield
    ray.shutdown()


def _illegal_probe(penv: PettingZooEnv) -> PettingZooEnv:
    """Seed the first agent's action space so that RLlib's unmasked probe (reset(seed=42), one sample) is
    illegal, as it is for all but a few of the NUM_ACTIONS actions (the check does not seed the space itself)."""
    twin = necro_env.env(players=3)
    twin.reset(seed=42)
    agent = twin.agent_selection
    mask = twin.observe(agent)["action_mask"]
    seed = next(s for s in range(1000) if not mask[spaces.Discrete(mask.size, seed=s).sample()])
    penv.get_action_space(agent).seed(seed)
    return penv


def test_rllib_env_pre_check_passes_with_the_default_env() -> None:
    """RLlib's pre-check steps one unmasked ``action_space.sample()``: under the default
    ``illegal_action="terminate"`` that ends the probe's game, a well-formed step, so the check passes."""
    penv = _illegal_probe(make_env({"players": 3}))
    check_multiagent_environments(penv)
    assert penv.env.unwrapped.record()["illegal"] is not None  # the probe was illegal and ended its game
    check_multiagent_environments(make_env({"players": 3}))  # whatever the probe draws
    # the documented reason rllib_train.py always uses the default: under "raise" the probe fails the check
    with pytest.raises(ValueError):
        check_multiagent_environments(_illegal_probe(PettingZooEnv(necro_env.env(players=3, illegal_action="raise"))))


def test_rllib_wrapper_render_calls_ours() -> None:
    """RLlib's ``PettingZooEnv.render()`` calls ``env.render(self.render_mode)``."""
    env = PettingZooEnv(necro_env.env(players=3, render_mode="ansi"))
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and "round 1" in text


def test_metrics_callback_counts_illegal_actions() -> None:
    """The count that the tiny runs assert to be 0 does count an illegal ending."""
    env = necro_env.env(players=3)
    env.reset(seed=0)
    legal = set(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))
    env.step(next(a for a in range(NUM_ACTIONS) if a not in legal))
    infos = {a: env.infos[a] for a in env.agents}

    class Episode:
        def get_infos(self, index, env_steps=True):
            return infos

    logged: dict[str, list] = {}

    class Logger:
        def log_value(self, key, value, **kw):
            logged.setdefault(key, []).append(value)

    _callbacks_class()().on_episode_end(episode=Episode(), metrics_logger=Logger())
    assert logged["illegal_actions"] == [3]  # every agent's info names the illegal ending


def _tiny(tmp_path: Path, runners: int, iterations: int = 2) -> dict:
    return {"name": "tiny", "players": 3, "hidden": [32], "iterations": iterations, "num_env_runners": runners,
            "train_batch_size": 256, "minibatch_size": 128, "num_epochs": 1, "checkpoint_every": 1,
            "eval_every": 0, "eval_games": 6, "out_dir": str(tmp_path)}


def _params(ckpt: Path, module: str) -> torch.Tensor:
    from ray.rllib.core.rl_module.rl_module import RLModule

    mod = RLModule.from_checkpoint(str(ckpt / "learner_group" / "learner" / "rl_module" / module))
    return torch.cat([p.detach().flatten() for p in mod.parameters()])


def test_tiny_run_trains_checkpoints_resumes_and_evaluates(ray_session, tmp_path: Path, capsys) -> None:
    cfg = config_from_dict(_tiny(tmp_path, runners=0))
    out = train(cfg, quiet=True)
    assert out["illegal_actions"] == 0
    run = Path(out["run_dir"])
    ckpts = checkpoints(run)
    assert [i for i, _ in ckpts] == [1, 2]
    for m in ("players", "necromancer"):  # both modules learned between the checkpoints
        assert not torch.equal(_params(ckpts[0][1], m), _params(ckpts[1][1], m))
    # the harness evaluated both modules from the final checkpoint
    evals = {r["module"]: r for r in out["evaluations"]}
    assert set(evals) == {"players", "necromancer"} and all(r["games"] == 6 for r in evals.values())
    assert evals["necromancer"]["role"] == "necromancer" and 0 <= evals["necromancer"]["lo"] <= \
        evals["necromancer"]["win_rate"] <= evals["necromancer"]["hi"] <= 1
    # resume: one more iteration from the newest checkpoint, counters carried on
    more = config_from_dict(_tiny(tmp_path, runners=0, iterations=3))
    out3 = train(more, resume=True, quiet=True)
    rows = list(csv.DictReader((run / "progress.csv").open()))
    assert [r["iteration"] for r in rows] == ["1", "2", "3"]
    steps = [float(r["env_steps"]) for r in rows]
    assert steps[0] < steps[1] < steps[2] and all(float(r["illegal_actions"]) == 0 for r in rows)
    assert out3["illegal_actions"] == 0 and (run / "tb").is_dir()
    # the checkpoint is a policy wherever a spec is accepted (trusted only)
    spec = f"rllib:{out3['checkpoint']}#necromancer"
    with pytest.raises(UntrustedPolicyError):
        make_policy(spec, "necromancer")
    pol = make_policy(spec, "necromancer", trusted=True)
    env = necro_env.env(players=3)
    env.reset(seed=4)
    while env.agent_selection != "necromancer_0":
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    view = View(env.unwrapped.game, env.unwrapped.game_state, env.unwrapped.seat_of("necromancer_0"))
    assert view.mask[pol.act(view, np.random.default_rng(0))] == 1
    from necro_env.cli import main

    capsys.readouterr()
    rc = main(["evaluate", "--players", "3", "--necromancer", spec, "--players-policy", "greedy", "--games", "4",
               "--trust-pickle", "--json", "--quiet"])
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert rc in (0, None) and summary["necromancer"]["games"] == 4


def test_tiny_run_with_one_remote_env_runner(ray_session, tmp_path: Path) -> None:
    """One remote env runner, and a YAML mapping that gives every agent the same module: it is evaluated
    in both roles."""
    one = {"player_0": "everyone", "player_1": "everyone", "necromancer_0": "everyone"}
    cfg = config_from_dict({**_tiny(tmp_path, runners=1), "eval_games": 4, "checkpoint_every": 0,
                            "policy_mapping": one})
    out = train(cfg, quiet=True)
    assert out["illegal_actions"] == 0 and out["last"]["env_steps"] >= 2 * 256
    assert sorted((r["module"], r["role"]) for r in out["evaluations"]) == [("everyone", "necromancer"),
                                                                             ("everyone", "player")]
    modules = Path(out["checkpoint"]) / "learner_group" / "learner" / "rl_module"
    assert sorted(p.name for p in modules.iterdir() if p.is_dir()) == ["everyone"]
