"""``ReusedRolloutBuffer``: sb3-contrib's ``MaskableRolloutBuffer`` without the per-rollout allocations.

SB3's rollout buffer allocates every array afresh with ``numpy.zeros`` at each ``reset()`` (once per
rollout): for the 3-seat recipe about 110 MB, whose pages the first write of each rollout then faults
in again; ``add()`` copies each observation batch twice (``numpy.array(obs)``, then into the buffer);
and the first ``get()`` of an update copies every array into env-major order (``swap_and_flatten``)
before the minibatches are gathered from it. This subclass keeps the arrays of its first ``reset()``
and reuses them, copies each batch once, and gathers each minibatch straight from the
``(steps, envs, ...)`` arrays: flat sample ``i`` (env-major, as there) is step ``i % steps`` of env
``i // steps``. The samples are the same, in the same order (the same ``numpy.random.permutation``
draw per ``get()``): a rollout writes every slot of every array before ``get()`` or
``compute_returns_and_advantage`` reads it (``add()`` fills ``pos``, and a rollout runs until the buffer
is full), so what the zeros held is never read; a batch without masks gets all-ones masks, as a fresh
buffer held. ``tests/test_buffers.py`` compares it with sb3-contrib's buffer.
"""
from __future__ import annotations

import numpy as np
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer, MaskableRolloutBufferSamples

# The arrays ``reset()`` allocates (``get()`` replaces them by flattened copies, so they are kept aside).
_ARRAYS = ("observations", "actions", "rewards", "returns", "episode_starts", "values", "log_probs", "advantages",
           "action_masks")


class ReusedRolloutBuffer(MaskableRolloutBuffer):
    """A ``MaskableRolloutBuffer`` whose arrays are allocated once (see the module docstring)."""

    def reset(self) -> None:
        kept = getattr(self, "_kept", None)
        if kept is None:
            super().reset()  # allocates every array, then sets pos = 0, full = False, generator_ready = False
            self._kept = {name: getattr(self, name) for name in _ARRAYS}
            return
        for name, arr in kept.items():
            setattr(self, name, arr)
        self.generator_ready = False
        self.pos = 0
        self.full = False

    def add(self, obs, action, reward, episode_start, value, log_prob, action_masks=None) -> None:
        """``MaskableRolloutBuffer.add`` with one copy of ``obs`` (the same values)."""
        pos = self.pos
        if action_masks is not None:
            self.action_masks[pos] = action_masks.reshape((self.n_envs, self.mask_dims))
        else:
            self.action_masks[pos] = 1.0
        if len(log_prob.shape) == 0:
            log_prob = log_prob.reshape(-1, 1)
        self.observations[pos] = obs
        self.actions[pos] = np.asarray(action).reshape((self.n_envs, self.action_dim))
        self.rewards[pos] = reward
        self.episode_starts[pos] = episode_start
        self.values[pos] = value.cpu().numpy().flatten()
        self.log_probs[pos] = log_prob.cpu().numpy()
        self.pos += 1
        if self.pos == self.buffer_size:
            self.full = True

    def get(self, batch_size: int | None = None):
        """Minibatches of ``batch_size`` samples (all of them if None) in a random order, as
        ``MaskableRolloutBuffer.get`` yields them, without the env-major copy of the buffer."""
        assert self.full, "get() needs a full buffer"
        total = self.buffer_size * self.n_envs
        indices = np.random.permutation(total)  # the same draw as sb3-contrib's get()
        if batch_size is None:
            batch_size = total
        for start in range(0, total, batch_size):
            yield self._get_samples(indices[start:start + batch_size])

    def _get_samples(self, batch_inds: np.ndarray, env=None) -> MaskableRolloutBufferSamples:
        """The samples of env-major flat indices ``batch_inds`` (step ``i % steps`` of env ``i // steps``)."""
        step, env_i = batch_inds % self.buffer_size, batch_inds // self.buffer_size
        data = (self.observations[step, env_i], self.actions[step, env_i], self.values[step, env_i],
                self.log_probs[step, env_i], self.advantages[step, env_i], self.returns[step, env_i],
                self.action_masks[step, env_i])
        return MaskableRolloutBufferSamples(*map(self.to_torch, data))


__all__ = ["ReusedRolloutBuffer"]
