"""A vectorised env for small machines: ``n_envs`` envs split over a few worker processes.

SB3's ``SubprocVecEnv`` gives every env its own process, so on a 2-core machine 16 envs are 16
processes fighting over 2 cores, plus a pipe round trip per env per step (and MaskablePPO asks for
the action masks in a second round trip). ``ChunkedSubprocVecEnv`` gives each of ``workers``
processes a contiguous chunk of the envs, stepped one after another inside the worker as
``DummyVecEnv`` steps them (same auto-reset, same ``terminal_observation`` and
``TimeLimit.truncated`` in ``info``), and each step's reply carries the new action masks, so
``env_method("action_masks")`` is answered from that copy with no extra round trip. The learner's
process is left the policy's forward passes and the PPO update.

The envs' results are the same as ``DummyVecEnv``'s for the same seeds (a test checks it): which
process steps an env changes nothing, as every env carries its own generators.

    env = ChunkedSubprocVecEnv([make_env_fn(...) for _ in range(16)], workers=2)

``BatchedOpponentsVecEnv`` keeps every env in the learner's process, as ``DummyVecEnv`` does, and
decides the *learned* opponents of all its envs together: each step it starts every env's step with
``SingleSeatEnv.prepare_step`` (the opponents play until a seat with a batchable policy, one with
``batch_act``, must decide), then repeatedly gathers the envs waiting on such a decision, groups them
by ``necro_env.agents.base.batch_key`` (one group per network: two envs' loads of the same weights
file group together), runs one ``batch_act`` (one forward pass) per group and hands the actions back
(``resolve``), until every env waits on its learner; auto-resets go through the same batching. Then
each env's ``step``/``reset`` is called through its wrappers (Monitor) and returns the prepared
result. Against scripted opponents nothing is batched and the results are ``DummyVecEnv``'s; against
learned ones every decision follows its policy's ``act`` rule, but a row of a batched forward pass
may differ from a single one in the last float bits, so a near-tie of logits may rarely go the
other way (``tests/test_opponent_batching.py`` counts the agreement).

    env = BatchedOpponentsVecEnv([make_env_fn(...) for _ in range(16)])
"""
from __future__ import annotations

import multiprocessing as mp
from copy import deepcopy
from typing import Any, Callable, Sequence

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env import DummyVecEnv
from stable_baselines3.common.vec_env.base_vec_env import CloudpickleWrapper, VecEnv, VecEnvIndices

from necro_env.agents.base import batch_key

MASKS = "action_masks"


def _worker(remote, parent, fns_wrapper) -> None:
    import torch

    torch.set_num_threads(1)
    parent.close()
    envs = [fn() for fn in fns_wrapper.var]

    def masks():
        """The chunk's action masks: one stacked array (one pickle for the pipe), or a list with None where an
        env has no ``action_masks``."""
        ms = [e.unwrapped.action_masks() if hasattr(e.unwrapped, MASKS) else None for e in envs]
        return np.stack(ms) if all(m is not None for m in ms) else ms

    try:
        while True:
            cmd, data = remote.recv()
            if cmd == "step":  # the observations go back stacked: one array to pickle instead of one per env
                obs_list, out = [], []
                for env, action in zip(envs, data):
                    obs, rew, term, trunc, info = env.step(action)
                    done = term or trunc
                    info["TimeLimit.truncated"] = trunc and not term
                    reset_info = None
                    if done:
                        info["terminal_observation"] = obs
                        obs, reset_info = env.reset()
                    obs_list.append(obs)
                    out.append((rew, done, info, reset_info))
                remote.send((np.stack(obs_list), out, masks()))
            elif cmd == "reset":
                obs_list, infos = [], []
                for env, (seed, options) in zip(envs, data):
                    obs, info = env.reset(seed=seed, **({"options": options} if options else {}))
                    obs_list.append(obs)
                    infos.append(info)
                remote.send((np.stack(obs_list), infos, masks()))
            elif cmd == "env_method":
                name, args, kwargs, local = data
                remote.send([envs[i].get_wrapper_attr(name)(*args, **kwargs) for i in local])
            elif cmd == "get_attr":
                name, local = data
                remote.send([envs[i].get_wrapper_attr(name) for i in local])
            elif cmd == "set_attr":
                name, value, local = data
                for i in local:
                    envs[i].set_wrapper_attr(name, value)
                remote.send(None)
            elif cmd == "is_wrapped":
                cls, local = data
                from stable_baselines3.common.env_util import is_wrapped

                remote.send([is_wrapped(envs[i], cls) for i in local])
            elif cmd == "spaces":
                remote.send((envs[0].observation_space, envs[0].action_space))
            elif cmd == "close":
                for e in envs:
                    e.close()
                remote.close()
                break
            else:  # pragma: no cover - a programming error in this module
                raise RuntimeError(f"unknown command {cmd!r}")
    except KeyboardInterrupt:  # pragma: no cover
        pass


def _joined(parts: list[np.ndarray]) -> np.ndarray:
    """The workers' stacked observations as one array (a worker's own array when there is one worker: it is a
    fresh copy from the pipe)."""
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


class ChunkedSubprocVecEnv(VecEnv):
    """``len(env_fns)`` envs in ``workers`` processes (contiguous chunks, as even as possible)."""

    def __init__(self, env_fns: Sequence[Callable[[], gym.Env]], workers: int = 2, start_method: str = "spawn"):
        n = len(env_fns)
        if not 1 <= workers <= n:
            raise ValueError(f"workers must be in 1..{n} (the number of envs), got {workers}")
        bounds = [round(k * n / workers) for k in range(workers + 1)]
        self.chunks = [list(range(bounds[k], bounds[k + 1])) for k in range(workers)]
        self.where = [(k, j) for k, chunk in enumerate(self.chunks) for j in range(len(chunk))]
        ctx = mp.get_context(start_method)
        self.remotes, self.processes = [], []
        for chunk in self.chunks:
            remote, work = ctx.Pipe()
            p = ctx.Process(target=_worker, args=(work, remote, CloudpickleWrapper([env_fns[i] for i in chunk])),
                            daemon=True)
            p.start()
            work.close()
            self.remotes.append(remote)
            self.processes.append(p)
        self.remotes[0].send(("spaces", None))
        obs_space, act_space = self.remotes[0].recv()
        super().__init__(n, obs_space, act_space)
        self._masks: list | None = None
        self.waiting = False
        self.closed = False

    # ---- stepping
    def step_async(self, actions: np.ndarray) -> None:
        for remote, chunk in zip(self.remotes, self.chunks):
            remote.send(("step", [actions[i] for i in chunk]))
        self.waiting = True

    def step_wait(self):
        parts, rews, dones, infos, masks = [], [], [], [], []
        for k, remote in enumerate(self.remotes):
            o, out, m = remote.recv()
            parts.append(o)
            masks.extend(m)
            for j, (r, d, info, reset_info) in enumerate(out):
                rews.append(r)
                dones.append(d)
                infos.append(info)
                if reset_info is not None:
                    self.reset_infos[self.chunks[k][j]] = reset_info
        self.waiting = False
        self._masks = masks
        return _joined(parts), np.asarray(rews, dtype=np.float32), np.asarray(dones, dtype=bool), infos

    def reset(self):
        for remote, chunk in zip(self.remotes, self.chunks):
            remote.send(("reset", [(self._seeds[i], self._options[i]) for i in chunk]))
        parts, masks = [], []
        for k, remote in enumerate(self.remotes):
            o, infos, m = remote.recv()
            parts.append(o)
            masks.extend(m)
            for j, info in enumerate(infos):
                self.reset_infos[self.chunks[k][j]] = info
        self._masks = masks
        self._reset_seeds()
        self._reset_options()
        return _joined(parts)

    def close(self) -> None:
        if self.closed:
            return
        if self.waiting:
            for remote in self.remotes:
                remote.recv()
        for remote in self.remotes:
            remote.send(("close", None))
        for p in self.processes:
            p.join()
        self.closed = True

    # ---- per-env calls, routed to the worker holding each env
    def _route(self, indices: VecEnvIndices) -> dict[int, list[tuple[int, int]]]:
        by_worker: dict[int, list[tuple[int, int]]] = {}
        for pos, i in enumerate(self._get_indices(indices)):
            k, j = self.where[i]
            by_worker.setdefault(k, []).append((pos, j))
        return by_worker

    def _gather(self, cmd: str, make, indices: VecEnvIndices) -> list:
        by_worker = self._route(indices)
        for k, items in by_worker.items():
            self.remotes[k].send((cmd, make([j for _, j in items])))
        out: dict[int, Any] = {}
        for k, items in by_worker.items():
            for (pos, _), value in zip(items, self.remotes[k].recv()):
                out[pos] = value
        return [out[p] for p in range(len(out))]

    def env_method(self, method_name: str, *method_args, indices: VecEnvIndices = None, **method_kwargs) -> list:
        if method_name == MASKS and not method_args and not method_kwargs and self._masks is not None:
            return [self._masks[i] for i in self._get_indices(indices)]  # from the last step's reply
        self._masks = None  # any other call may change an env (set_state, ...): ask again next time
        return self._gather("env_method", lambda local: (method_name, method_args, method_kwargs, local), indices)

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list:
        return self._gather("get_attr", lambda local: (attr_name, local), indices)

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        self._masks = None
        by_worker = self._route(indices)
        for k, items in by_worker.items():
            self.remotes[k].send(("set_attr", (attr_name, deepcopy(value), [j for _, j in items])))
        for k in by_worker:
            self.remotes[k].recv()

    def env_is_wrapped(self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None) -> list[bool]:
        return self._gather("is_wrapped", lambda local: (wrapper_class, local), indices)

    def get_images(self) -> Sequence[np.ndarray | None]:  # pragma: no cover - no image rendering in training
        return [None] * self.num_envs


class BatchedOpponentsVecEnv(DummyVecEnv):
    """``DummyVecEnv`` whose envs' batchable opponents decide in one forward pass per network (see the
    module docstring). Envs without ``prepare_step`` (not a ``SingleSeatEnv``) are stepped as
    ``DummyVecEnv`` steps them. ``batch_stats``: ``decisions`` handed out and ``batches`` (``batch_act``
    calls) so far."""

    def __init__(self, env_fns: Sequence[Callable[[], gym.Env]]):
        super().__init__(list(env_fns))
        self._defer = [callable(getattr(e.unwrapped, "prepare_step", None)) for e in self.envs]
        self._reset_args: list[tuple | None] = [None] * self.num_envs  # (seed, options) of a VecEnv reset
        self.batch_stats = {"decisions": 0, "batches": 0}

    def step_wait(self):
        pending: dict[int, Any] = {}
        for i in range(self.num_envs):
            d = self.envs[i].unwrapped.prepare_step(self.actions[i]) if self._defer[i] else None
            if d is None:
                self._finish_step(i, pending)
            else:
                pending[i] = ("step", d)
        self._decide(pending)
        return (self._obs_from_buf(), np.copy(self.buf_rews), np.copy(self.buf_dones), deepcopy(self.buf_infos))

    def reset(self):
        pending: dict[int, Any] = {}
        for i in range(self.num_envs):
            seed, options = self._seeds[i], self._options[i]
            self._reset_args[i] = (seed, options)
            d = self.envs[i].unwrapped.prepare_reset(seed, options or None) if self._defer[i] else None
            if d is None:
                self._finish_reset(i)
            else:
                pending[i] = ("reset", d)
        self._decide(pending)
        self._reset_seeds()
        self._reset_options()
        return self._obs_from_buf()

    # ---- internals
    def _decide(self, pending: dict[int, Any]) -> None:
        """Decide the pending opponents' decisions, one ``batch_act`` per group of interchangeable policies,
        until no env waits on one; each env whose prepared step or reset completes is finished."""
        while pending:
            groups: dict[Any, list[int]] = {}
            for i, (_, d) in pending.items():
                groups.setdefault(batch_key(d.policy), []).append(i)
            following: dict[int, Any] = {}
            for idx in groups.values():
                decisions = [pending[i][1] for i in idx]
                actions = decisions[0].policy.batch_act([d.view for d in decisions], [d.rng for d in decisions])
                if len(actions) != len(idx):
                    raise RuntimeError(f"{decisions[0].policy!r}.batch_act returned {len(actions)} actions for "
                                       f"{len(idx)} views")
                self.batch_stats["batches"] += 1
                self.batch_stats["decisions"] += len(idx)
                for i, a in zip(idx, actions):
                    kind = pending[i][0]
                    d = self.envs[i].unwrapped.resolve(a)
                    if d is not None:
                        following[i] = (kind, d)
                    elif kind == "step":
                        self._finish_step(i, following)
                    else:
                        self._finish_reset(i)
            pending = following

    def _finish_step(self, i: int, pending: dict[int, Any]) -> None:
        """``DummyVecEnv.step_wait``'s work for env ``i`` (its step prepared, or not deferrable); an
        auto-reset is prepared and joins ``pending`` when an opponent must decide in it."""
        obs, self.buf_rews[i], terminated, truncated, self.buf_infos[i] = self.envs[i].step(self.actions[i])
        self.buf_dones[i] = terminated or truncated
        self.buf_infos[i]["TimeLimit.truncated"] = truncated and not terminated
        if not self.buf_dones[i]:
            self._save_obs(i, obs)
            return
        self.buf_infos[i]["terminal_observation"] = obs
        self._reset_args[i] = None
        d = self.envs[i].unwrapped.prepare_reset() if self._defer[i] else None
        if d is None:
            self._finish_reset(i)
        else:
            pending[i] = ("reset", d)

    def _finish_reset(self, i: int) -> None:
        """``DummyVecEnv``'s reset of env ``i`` (an auto-reset, or a VecEnv reset with its seed and options)."""
        args = self._reset_args[i]
        if args is None:
            obs, self.reset_infos[i] = self.envs[i].reset()
        else:
            seed, options = args
            obs, self.reset_infos[i] = self.envs[i].reset(seed=seed, **({"options": options} if options else {}))
        self._save_obs(i, obs)


__all__ = ["ChunkedSubprocVecEnv", "BatchedOpponentsVecEnv"]
