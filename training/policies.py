"""Trained-policy helpers for training: the self-play pool of snapshots and the periodic evaluation.

Snapshots are weights-only policy files (``necro_env.agents.torch_policy``: safetensors + the
network's architecture, nothing unpickled) that the run writes into its own ``snapshots/``
directory; they play by sampling from the network's masked distribution with the env's own
generator. Only names of the form ``snap_<steps>.safetensors`` inside the pool directory are
ever loaded (a saved env state cannot point elsewhere).

``PoolSampler`` is an opponent pool of fixed policies with weights (a league's mixture over one side's
pool, ``TrainConfig.opponent_pool`` / ``necromancer_pool``): it draws one policy per call with the
generator it is handed, and restores a policy by its name (its spec) from a checkpoint.

The periodic evaluation plays the network (arg-max over the legal actions) through
``necro_env.evaluate`` -- the same harness, seats and seeds as ``necro-env evaluate``.
"""
from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import numpy as np

from necro_env.agents.registry import make_policy
from necro_env.agents.torch_policy import NetPolicy, load_policy
from necro_env.evaluate import evaluate
from necro_env.game.errors import StateError
from training.config import policy_role


class SnapshotSampler:
    """Self-play opponents: each seat gets a snapshot from the pool with probability
    ``p_snapshot``, else the baseline. Snapshots are read from ``pool_dir`` (newest
    ``pool_size``) and loaded once per process."""

    SNAPSHOT = re.compile(r"snap_[0-9]{10}\.safetensors")

    def __init__(self, pool_dir: Path, baseline: str, p_snapshot: float, pool_size: int, trusted: bool = False):
        self.pool_dir = Path(pool_dir)
        self.baseline = make_policy(baseline, "player", trusted=trusted)
        self.p = p_snapshot
        self.pool_size = pool_size
        self._cache: dict[str, NetPolicy] = {}

    def __call__(self, rng: np.random.Generator, seat: int):
        snaps = sorted(self.pool_dir.glob("snap_*.safetensors"))[-self.pool_size:] if self.pool_dir.exists() else []
        if snaps and rng.random() < self.p:
            return self.restore(snaps[int(rng.integers(len(snaps)))].name)
        return self.baseline

    def restore(self, name: str):
        """The policy called ``name`` (the baseline's name or a snapshot file of the pool)."""
        if name == getattr(self.baseline, "name", None):
            return self.baseline
        if not isinstance(name, str) or not self.SNAPSHOT.fullmatch(name) or not (self.pool_dir / name).is_file():
            raise StateError(f"no opponent {name!r} here: expected the baseline "
                             f"{getattr(self.baseline, 'name', None)!r} or a snap_<10 digits>.safetensors of "
                             f"{self.pool_dir}")
        if name not in self._cache:
            self._cache[name] = load_policy(self.pool_dir / name, "player", deterministic=False)
        return self._cache[name]


#: Policies of pools, built once per process: (spec, role, trusted) -> policy. Pool members are fixed
#: policies (scripts, or learned files playing the arg-max), so the envs of a process can share them.
_POOL_CACHE: dict[tuple[str, str, bool], Any] = {}


class PoolSampler:
    """One policy per call, drawn from ``entries`` (``[{"spec": SPEC, "weight": W}, ...]``) with
    probability proportional to its weight, using the generator it is given (never global state).

    Each policy is built once per process by ``necro_env.agents.registry.make_policy`` (learned
    ``.safetensors`` files play deterministically: the arg-max over the legal actions) and is named
    by its spec, which is what an env's saved state records; ``restore(name)`` returns that policy
    again and raises ``StateError`` for a name that is not in the pool."""

    def __init__(self, entries, role: str, trusted: bool = False):
        specs = [e["spec"] for e in entries]
        weights = np.array([float(e["weight"]) for e in entries], dtype=np.float64)
        if not specs or len(set(specs)) != len(specs) or not (np.all(np.isfinite(weights)) and np.all(weights > 0)):
            raise ValueError(f"a pool needs distinct specs with positive finite weights, got {list(entries)!r}")
        self.role = role
        self.specs = specs
        self.cum = np.cumsum(weights / weights.sum())
        self.policies = {}
        for spec in specs:
            key = (spec, role, bool(trusted))
            if key not in _POOL_CACHE:
                pol = make_policy(spec, role, trusted=trusted)
                pol.name = spec
                _POOL_CACHE[key] = pol
            self.policies[spec] = _POOL_CACHE[key]

    def __call__(self, rng: np.random.Generator):
        i = int(np.searchsorted(self.cum, rng.random(), side="right"))
        return self.policies[self.specs[min(i, len(self.specs) - 1)]]

    def restore(self, name: str):
        """The pool's policy called ``name`` (its spec); ``StateError`` if the pool has none of that name."""
        if not isinstance(name, str) or name not in self.policies:
            raise StateError(f"no {self.role} policy {name!r} in this pool; it holds {self.specs}")
        return self.policies[name]


def evaluate_net(net: Any, cfg, games: int, seed: int, trusted: bool = False) -> dict:
    """Win rate of ``net`` (arg-max) in the learner's role against ``cfg``'s evaluation opponents over
    ``games`` seeded games (the same seeds every call): ``wins, games, win_rate, lo, hi``. For learner
    "players", and for learner "player" with ``eval_opponents: self``, the net plays every player seat
    and wins the games the Necromancer loses."""
    role = cfg.learner
    pol = NetPolicy(copy.deepcopy(net), name="learner", deterministic=True, role=policy_role(role))
    opponents = cfg.eval_opponents or cfg.opponents
    options = dict(cfg.game_options) or None
    if role == "necromancer":
        res = evaluate(cfg.players, pol, opponents, games=games, seed=seed, config=options, trusted=trusted)
        group = res["necromancer"]
    elif role == "players" or opponents == "self":  # the team (the net in every player seat) wins the games he loses
        res = evaluate(cfg.players, cfg.necromancer_opponent, pol, games=games, seed=seed, config=options,
                       trusted=trusted)
        necro = res["necromancer"]
        lost = games - int(necro["wins"])
        lo, hi = necro["ci95"]
        return {"wins": lost, "games": games, "win_rate": lost / games, "lo": 1.0 - hi, "hi": 1.0 - lo}
    else:
        res = evaluate(cfg.players, cfg.necromancer_opponent if cfg.necromancer else None, pol, games=games,
                       seed=seed, necromancer=cfg.necromancer, opponents_spec=opponents, config=options,
                       trusted=trusted)
        group = next(g for g in res["policies"] if g["group"] in ("test", "players"))
    lo, hi = group["ci95"]
    return {"wins": int(group["wins"]), "games": games, "win_rate": group["win_rate"], "lo": lo, "hi": hi}


__all__ = ["PoolSampler", "SnapshotSampler", "evaluate_net"]
