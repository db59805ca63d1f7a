"""Where the learner's rollout collection spends its time: a cProfile of MaskablePPO's ``collect_rollouts``
in a training recipe's setup (default ``configs/necromancer_3p.yaml``: 16 single-seat envs against greedy
players, the region net, torch on 1 thread), split into parts by the functions' cumulative time:

* ``env: observation``   ``Observer.observe`` (the learner's observation vector);
* ``env: opponents``     the other seats' policies (``act`` / ``choose`` of the scripted agents);
* ``env: engine``        the rules engine (``necro_env/game``), outside the opponents' own calls;
* ``env: other``         the rest of the env steps (rewards, masks, wrappers, the vector env);
* ``net forward``        the policy network's forward pass (``policy.forward`` without sampling);
* ``sampling``           the masked distribution and the action draw;
* ``rest``               everything else (the rollout buffer, tensors, SB3's loop).

    python benchmarks/collection_profile.py [--config configs/necromancer_3p.yaml] [--steps 128] [--timed N] [--json]

``--timed N`` times N rollouts without the profiler instead (collection steps per CPU second, the median).

``--steps`` is the rollout length per env (16 envs: 128 gives 2048 steps). The profiler slows Python
code more than the C inside torch, so the split overstates the env's part somewhat; compare splits of two
trees (run this script with each tree first on ``PYTHONPATH``), not absolute figures.
"""
from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.append(str(Path(__file__).resolve().parents[1]))  # after PYTHONPATH: the tree asked for wins


def _cum(stats: pstats.Stats, match) -> float:
    """Sum of the cumulative time of the functions ``match(filename, name)`` picks, not counting a picked
    function's time inside another picked one (recursion-safe: only outermost calls count)."""
    total = 0.0
    picked = {k for k in stats.stats if match(k[0], k[2])}
    for k in picked:
        cc, nc, tt, ct, callers = stats.stats[k]
        # the time reached from callers that are not themselves picked
        outer = sum(v[3] for c, v in callers.items() if c not in picked)
        total += outer
    return total


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--config", default="configs/necromancer_3p.yaml")
    p.add_argument("--steps", type=int, default=128, help="rollout steps per env")
    p.add_argument("--top", type=int, default=0, help="also print the top N functions by own time")
    p.add_argument("--timed", type=int, default=0, metavar="N",
                   help="instead of the profile: N unprofiled rollouts, collection steps per CPU second (median)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)

    import torch
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import DummyVecEnv

    from training.config import TrainConfig, load_config
    from training.train import build_model, make_env_fn

    torch.set_num_threads(1)
    cfg = load_config(args.config)
    cfg = TrainConfig(**{**cfg.__dict__, "n_steps": args.steps, "torch_threads": 1})
    with tempfile.TemporaryDirectory() as tmp:
        venv = DummyVecEnv([make_env_fn(cfg, Path(tmp)) for _ in range(cfg.n_envs)])
        venv.seed(cfg.seed)
        model = build_model(cfg, venv, Path(tmp) / "tb")

        class Nop(BaseCallback):
            def _on_step(self) -> bool:
                return True

        cb = Nop()
        model._setup_learn(args.steps * cfg.n_envs * 2, cb)
        cb.init_callback(model)
        model.collect_rollouts(model.env, cb, model.rollout_buffer, n_rollout_steps=args.steps)  # warm-up
        if args.timed:
            rates = []
            for _ in range(args.timed):
                t0 = time.process_time()
                model.collect_rollouts(model.env, cb, model.rollout_buffer, n_rollout_steps=args.steps)
                rates.append(args.steps * cfg.n_envs / (time.process_time() - t0))
            med = sorted(rates)[len(rates) // 2]
            print(f"collect_rollouts, {cfg.name}: {med:,.0f} steps per CPU second (median of {args.timed}: "
                  + ", ".join(f"{r:,.0f}" for r in rates) + ")")
            if args.json:
                print(json.dumps({"steps_per_cpu_s": med, "rounds": rates}))
            return 0
        prof = cProfile.Profile(time.process_time)  # CPU time: other processes disturb it less
        prof.enable()
        model.collect_rollouts(model.env, cb, model.rollout_buffer, n_rollout_steps=args.steps)
        prof.disable()
    stats = pstats.Stats(prof)
    total = stats.total_tt

    def agents(f: str, name: str) -> bool:
        return "necro_env/agents/" in f and name in ("act", "choose")

    def observe(f: str, name: str) -> bool:
        return f.endswith("necro_env/observe.py") and name == "observe"

    def engine(f: str, name: str) -> bool:
        return "necro_env/game/" in f

    def env_step(f: str, name: str) -> bool:
        return "stable_baselines3/common/vec_env/" in f and name in ("step_wait", "reset", "env_method")

    def sampling(f: str, name: str) -> bool:
        return "distributions" in f and name in ("proba_distribution", "sample", "mode", "get_actions",
                                                  "log_prob", "apply_masking")

    def forward(f: str, name: str) -> bool:
        return name in ("extract_features", "forward_actor", "forward_critic", "mlp_extractor") or (
            "necro_env/agents/nets.py" in f and name == "forward") or name == "predict_values"

    env_t = _cum(stats, env_step)
    opp = _cum(stats, agents)
    obs = _cum(stats, observe)
    eng_all = _cum(stats, engine)
    # the engine's time inside the opponents' calls is theirs (their legal-action reads), inside the
    # observer the observation's
    eng = max(0.0, _cum(stats, lambda f, n: engine(f, n) or agents(f, n) or observe(f, n)) - opp - obs)
    fwd = _cum(stats, forward)
    smp = _cum(stats, sampling)
    parts = {
        "env (all)": env_t,
        "env: observation": obs,
        "env: opponents": opp,
        "env: engine": eng,
        "env: other": max(0.0, env_t - obs - opp - eng),
        "net forward": fwd,
        "sampling": smp,
        "rest": max(0.0, total - env_t - fwd - smp),
    }
    steps = args.steps * cfg.n_envs
    print(f"collect_rollouts, {cfg.name}: {cfg.n_envs} envs x {args.steps} steps, {total:.2f} s profiled "
          f"({steps / total:,.0f} steps/s under the profiler); engine time all told {eng_all / total:.1%}")
    for k, v in parts.items():
        print(f"{k:<20}{v:>8.2f} s{v / total:>8.1%}")
    if args.top:
        stats.sort_stats("tottime").print_stats(args.top)
    if args.json:
        print(json.dumps({"total_s": total, "steps": steps, "share": {k: v / total for k, v in parts.items()}}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
