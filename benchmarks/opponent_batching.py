"""Opponent batching: collection speed of a training run's envs, ``DummyVecEnv`` beside
``BatchedOpponentsVecEnv`` (``training/vec_env.py``), against learned and against scripted opponents.

PPO-less collection: ``--envs`` single-seat envs (``SingleSeatEnv`` in SB3's ``Monitor``, as
``training/train.py`` builds them) of a Necromancer learner in a ``--players``-seat game, every player
seat played by one opponent spec (default: the shipped ``pretrained:player_2p``, a learned player policy,
and ``greedy`` for reference). The learner's actions are uniform among its legal ones (drawn from a
generator of the benchmark; its masks are asked for each step with ``env_method("action_masks")``, as
MaskablePPO asks), so only the envs and their opponents are timed. Each repeat times ``--steps`` vec-env
steps of each vec env (the order alternating repeat by repeat) by CPU time (``time.process_time``) after an
untimed reset; the table shows the median steps per CPU second (one step = one env's learner decision,
so a vec-env step counts ``--envs``), the ratio, and for the batched env the mean number of opponent
decisions per ``batch_act`` call. Both vec envs are seeded alike, and the table says whether their
trajectories (observations, rewards, dones) were identical: they are with scripted opponents, and with
learned ones unless float rounding of a batched forward pass flipped a near-tie.

    nice -n 10 python benchmarks/opponent_batching.py [--envs 16] [--steps 200] [--repeats 3]
        [--players 3] [--opponents pretrained:player_2p,greedy] [--seed 0] [--json]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

KINDS = ("dummy", "batched")


def make_vec(kind: str, envs: int, players: int, opponents: str):
    """``envs`` Monitor-wrapped Necromancer-learner envs in a ``kind`` vec env."""
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv

    from necro_env.single_seat import SingleSeatEnv
    from training.vec_env import BatchedOpponentsVecEnv

    def fn():
        return Monitor(SingleSeatEnv(players=players, learner="necromancer", opponents=opponents))

    fns = [fn for _ in range(envs)]
    return BatchedOpponentsVecEnv(fns) if kind == "batched" else DummyVecEnv(fns)


def collect(vec, steps: int, seed: int) -> tuple[float, str]:
    """CPU seconds of ``steps`` vec-env steps with uniform legal learner actions, and a digest of the
    trajectory (observations, rewards, dones)."""
    import numpy as np

    vec.seed(seed)
    obs = vec.reset()
    rng = np.random.default_rng(seed)
    digest = hashlib.sha256(obs.tobytes())
    t0 = time.process_time()
    for _ in range(steps):
        masks = vec.env_method("action_masks")
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rew, done, _ = vec.step(acts)
        digest.update(obs.tobytes())
        digest.update(rew.tobytes())
        digest.update(done.tobytes())
    return time.process_time() - t0, digest.hexdigest()[:16]


def run(envs: int, steps: int, repeats: int, players: int, opponents: list[str], seed: int) -> list[dict]:
    import torch

    torch.set_num_threads(1)
    rows = []
    for opp in opponents:
        vecs = {k: make_vec(k, envs, players, opp) for k in KINDS}
        secs: dict[str, list[float]] = {k: [] for k in KINDS}
        digests: dict[str, set] = {k: set() for k in KINDS}
        stats = vecs["batched"].batch_stats
        for r in range(repeats):
            for k in (KINDS if r % 2 == 0 else KINDS[::-1]):
                s, d = collect(vecs[k], steps, seed)
                secs[k].append(s)
                digests[k].add(d)
        for v in vecs.values():
            v.close()
        rate = {k: envs * steps / statistics.median(secs[k]) for k in KINDS}
        rows.append({"opponents": opp, "dummy_steps_per_s": rate["dummy"], "batched_steps_per_s": rate["batched"],
                     "ratio": rate["batched"] / rate["dummy"],
                     "decisions_per_batch": stats["decisions"] / stats["batches"] if stats["batches"] else 0.0,
                     "same_trajectories": digests["dummy"] == digests["batched"] and len(digests["dummy"]) == 1})
    return rows


def table(rows: list[dict], envs: int, players: int) -> str:
    head = (f"collection steps per CPU second, {envs} envs, Necromancer learner (uniform legal actions), "
            f"{players} seats\n")
    lines = [f"{'opponents':<24} {'DummyVecEnv':>12} {'batched':>12} {'ratio':>7} {'per batch':>10} {'same':>5}"]
    for r in rows:
        lines.append(f"{r['opponents']:<24} {r['dummy_steps_per_s']:>12,.0f} {r['batched_steps_per_s']:>12,.0f} "
                     f"{r['ratio']:>6.2f}x {r['decisions_per_batch']:>10.1f} {'yes' if r['same_trajectories'] else 'no':>5}")
    return head + "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--envs", type=int, default=16)
    p.add_argument("--steps", type=int, default=200, help="vec-env steps per repeat and vec env")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--players", type=int, default=3, help="seats, the Necromancer included")
    p.add_argument("--opponents", default="pretrained:player_2p,greedy", help="comma-separated player policy specs")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print the rows as JSON instead of the table")
    args = p.parse_args(argv)
    for k in ("envs", "steps", "repeats"):
        if getattr(args, k) < 1:
            p.error(f"--{k} must be >= 1")
    rows = run(args.envs, args.steps, args.repeats, args.players, [o for o in args.opponents.split(",") if o],
               args.seed)
    print(json.dumps(rows) if args.json else table(rows, args.envs, args.players))
    return 0


if __name__ == "__main__":
    sys.exit(main())
