"""RLlib throughput on this machine: env steps/s of multi-agent PPO with 0, 1, 2 remote env runners.

    python benchmarks/rllib_speed.py [--runners 0 1 2] [--iterations 4] [--batch 2000] [--json]

For each runner count: the shipped masking module (``hidden`` 256x256, players sharing ``players``, the
Necromancer ``necromancer``, 3 seats), ``train_batch_size`` = ``--batch`` env steps per iteration, one
epoch of minibatches of 500; the first iteration is a warm-up and is not counted. Two figures per row:
env steps per second of whole iterations (sampling + learning, what a run gets) and of sampling alone
(RLlib's ``env_runner_sampling_timer``). Needs the rllib extra.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def measure(runners: int, iterations: int, batch: int) -> dict:
    import ray

    from training.rllib_config import RLlibConfig
    from training.rllib_train import algo_config, start_ray

    cfg = RLlibConfig(name="bench", players=3, num_env_runners=runners, train_batch_size=batch,
                      minibatch_size=min(500, batch), num_epochs=1, iterations=iterations + 1)
    start_ray(cfg, None)
    algo = algo_config(cfg).build_algo()
    try:
        algo.train()  # warm-up
        steps = 0.0
        sample_s = 0.0
        t0 = time.perf_counter()
        for _ in range(iterations):
            r = algo.train()
            steps += r["env_runners"]["num_env_steps_sampled"]
            sample_s += r["timers"]["env_runner_sampling_timer"]
        wall = time.perf_counter() - t0
    finally:
        algo.stop()
        ray.shutdown()
    return {"runners": runners, "env_steps": int(steps), "seconds": round(wall, 2),
            "env_steps_per_s": round(steps / wall, 1), "sampling_env_steps_per_s": round(steps / sample_s, 1)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runners", type=int, nargs="+", default=[0, 1, 2])
    p.add_argument("--iterations", type=int, default=4)
    p.add_argument("--batch", type=int, default=2000)
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    rows = [measure(n, args.iterations, args.batch) for n in args.runners]
    print(f"{'env runners':>11} {'env steps':>9} {'seconds':>8} {'env steps/s':>11} {'sampling only':>13}")
    for r in rows:
        print(f"{r['runners']:>11} {r['env_steps']:>9} {r['seconds']:>8} {r['env_steps_per_s']:>11} "
              f"{r['sampling_env_steps_per_s']:>13}")
    if args.json:
        print(json.dumps(rows))


if __name__ == "__main__":
    main()
