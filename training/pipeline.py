"""Pipelined PPO: collect the next rollout while the last one trains, so both cores work.

MaskablePPO alternates: collect a rollout (the envs, in Python, on one core), then update on it
(torch). On the 2-core machines the update leaves the env idle and the collection leaves the
second core idle. ``learn_pipelined`` overlaps them with a thread: while the update runs on rollout
k, the main thread collects rollout k+1 with a frozen copy of the weights the update started from.
torch releases the GIL inside its kernels, so with one torch thread each side gets a core of its own.

The price is one update of staleness: rollout k+1 was collected by the policy before update k, and
update k+1 starts from the weights after it. PPO's ratio is taken against the stored log-probabilities
of the policy that acted (the collector), so the clipped objective stays correct; only the first
epoch's ratios no longer start at exactly 1 (asynchronous PPO variants run with far staler data).

What stays as in ``MaskablePPO.learn``: the callbacks (each rollout's ``on_rollout_start`` is fired at
a point where no update is running and the model holds its newest weights, so evaluations and
checkpoints see consistent weights and optimizer state), the learning-rate and clip schedules, the
logs. Random streams: the update draws minibatches from numpy's global generator in its thread, the
collector samples actions from torch's in the main thread, and the envs carry their own generators,
so a run is still repeatable from its seed. A checkpoint does not hold the rollout waiting for its
update: a resumed run collects a fresh one.
"""
from __future__ import annotations

import copy
import sys
import threading

from stable_baselines3.common.callbacks import BaseCallback


class _StepsOnly(BaseCallback):
    """Forwards ``on_step`` (the wall clock, the progress bar) from inside a collection; the rollout's
    start and end are fired by ``learn_pipelined`` itself, at points where no update is running."""

    def __init__(self, inner: BaseCallback):
        super().__init__()
        self.inner = inner

    def on_rollout_start(self) -> None:
        pass

    def on_rollout_end(self) -> None:
        pass

    def update_locals(self, locals_) -> None:
        self.inner.update_locals(locals_)

    def on_step(self) -> bool:
        return self.inner.on_step()

    def _on_step(self) -> bool:  # required by BaseCallback; on_step is overridden
        return True


class _Update(threading.Thread):
    """Runs ``trainer.train()`` (a shallow copy of the model holding the live policy and the rollout
    to learn from) and keeps any exception for the main thread."""

    def __init__(self, trainer):
        super().__init__(name="ppo-update", daemon=True)
        self.trainer = trainer
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.trainer.train()
        except BaseException as e:  # re-raised by the main thread after join()
            self.error = e


def learn_pipelined(model, total_timesteps: int, callback=None, tb_log_name: str = "ppo",
                    reset_num_timesteps: bool = True, log_interval: int = 1,
                    switch_interval: float | None = 0.0005):
    """``model.learn(...)`` for a MaskablePPO ``model``, with collection and update overlapped.

    ``switch_interval``: Python's thread switch interval while it runs (seconds; None leaves it).
    The env thread runs Python almost all the time; with the default 5 ms the update thread waits
    up to that long for the interpreter between two torch calls."""
    total_timesteps, callback = model._setup_learn(total_timesteps, callback, reset_num_timesteps, tb_log_name,
                                                   False)
    callback.on_training_start(locals(), globals())
    steps_only = _StepsOnly(callback)
    steps_only.init_callback(model)
    live = model.policy
    collector = copy.deepcopy(live)
    buffers = [model.rollout_buffer, copy.deepcopy(model.rollout_buffer)]  # collect_rollouts resets each
    pending = None  # the rollout collected last, waiting for its update
    iteration = 0
    old_interval = sys.getswitchinterval()
    if switch_interval is not None:
        sys.setswitchinterval(switch_interval)
    try:
        while model.num_timesteps < total_timesteps:
            callback.on_rollout_start()  # no update running: the model holds its newest weights
            collector.load_state_dict(live.state_dict())
            update = None
            if pending is not None:
                model._update_current_progress_remaining(model.num_timesteps, total_timesteps)
                trainer = copy.copy(model)
                trainer.policy, trainer.rollout_buffer = live, pending
                update = _Update(trainer)
                update.start()
            target = buffers[1] if pending is buffers[0] else buffers[0]
            model.policy = collector
            try:
                more = model.collect_rollouts(model.env, steps_only, target, model.n_steps, use_masking=True)
            finally:
                model.policy = live
                if update is not None:
                    update.join()
            if update is not None:
                if update.error is not None:
                    raise update.error
                model._n_updates = trainer._n_updates
                iteration += 1
                if log_interval is not None and iteration % log_interval == 0:
                    model.dump_logs(iteration)
            callback.on_rollout_end()
            if not more:
                pending = None  # stopped inside the collection: that rollout is incomplete
                break
            pending = target
        if pending is not None:  # the last complete rollout still gets its update
            model._update_current_progress_remaining(model.num_timesteps, total_timesteps)
            model.rollout_buffer = pending
            model.train()
    finally:
        sys.setswitchinterval(old_interval)
        model.policy = live
        model.rollout_buffer = buffers[0]
    callback.on_training_end()
    return model


__all__ = ["learn_pipelined"]
