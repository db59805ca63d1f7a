"""``RandomAgent``: a uniformly random legal action (the reference every baseline must beat)."""
from __future__ import annotations

import numpy as np

from .base import BasePolicy, View


class RandomAgent(BasePolicy):
    """Chooses uniformly among ``view.legal`` with the injected generator; fits any seat and role."""

    name = "random"

    def act(self, view: View, rng: np.random.Generator) -> int:
        legal = view.legal
        return legal[int(rng.integers(len(legal)))]
