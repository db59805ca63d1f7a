"""Scripted policies and the policy registry.

Every policy has ``name``, ``act(view, rng) -> action`` and ``reset()``; a ``View`` carries the
game, the state, the deciding seat, the legal actions and (lazily) the mask and observation.
``RandomAgent`` plays uniformly, ``GreedyAgent`` is a competent one-ply player and
``NecromancerHeuristic`` a scripted Necromancer; ``make_policy("greedy", role)`` etc. build them
by name (see ``registry.py``). Nothing here imports torch.
"""
from .base import BasePolicy, Policy, View
from .greedy import GreedyAgent
from .necromancer import NecromancerHeuristic
from .random_agent import RandomAgent
from .registry import loader_suffixes, make_policy, policy_names, register_loader, register_policy

__all__ = [
    "BasePolicy", "Policy", "View", "GreedyAgent", "NecromancerHeuristic", "RandomAgent",
    "make_policy", "register_policy", "register_loader", "policy_names", "loader_suffixes",
]
