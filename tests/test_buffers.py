"""training/buffers.py: the reused rollout buffer holds and yields exactly what sb3-contrib's buffer does."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from gymnasium import spaces  # noqa: E402
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer  # noqa: E402

from training.buffers import ReusedRolloutBuffer  # noqa: E402

N_STEPS, N_ENVS, OBS, ACTIONS = 5, 3, 7, 6


def _fill(buf, rng: np.random.Generator, masks: bool) -> None:
    buf.reset()
    for _ in range(N_STEPS):
        m = rng.integers(0, 2, size=(N_ENVS, ACTIONS)).astype(bool) if masks else None
        buf.add(rng.normal(size=(N_ENVS, OBS)).astype(np.float32), rng.integers(0, ACTIONS, size=N_ENVS),
                rng.normal(size=N_ENVS).astype(np.float32), rng.integers(0, 2, size=N_ENVS).astype(bool),
                torch.as_tensor(rng.normal(size=(N_ENVS, 1)), dtype=torch.float32),
                torch.as_tensor(rng.normal(size=N_ENVS), dtype=torch.float32), action_masks=m)
    buf.compute_returns_and_advantage(torch.zeros(N_ENVS, 1), np.zeros(N_ENVS, dtype=bool))


def _samples(buf) -> list[np.ndarray]:
    np.random.seed(0)  # get() permutes with NumPy's global generator: the same order for both buffers
    out = []
    for batch in buf.get(4):
        out.extend(t.numpy().copy() for t in batch)
    return out


def test_reused_buffer_yields_what_a_fresh_buffer_yields_rollout_after_rollout() -> None:
    space, act = spaces.Box(-1, 1, (OBS,), np.float32), spaces.Discrete(ACTIONS)
    ours = ReusedRolloutBuffer(N_STEPS, space, act, n_envs=N_ENVS)
    first = None
    state = np.random.get_state()
    try:
        for rollout, masks in enumerate((True, False, True)):  # a batch without masks gets all-ones masks
            ref = MaskableRolloutBuffer(N_STEPS, space, act, n_envs=N_ENVS)
            _fill(ref, np.random.default_rng(rollout), masks)
            _fill(ours, np.random.default_rng(rollout), masks)
            if first is None:
                first = ours.observations
            else:
                assert ours._kept["observations"] is first  # the arrays of the first rollout, reused
            got, want = _samples(ours), _samples(ref)
            assert len(got) == len(want) and all(np.array_equal(a, b) for a, b in zip(got, want))
    finally:
        np.random.set_state(state)
