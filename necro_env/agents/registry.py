"""One registry of policies: ``make_policy(spec, role)`` turns a name or a file path into a policy.

Specs, tried in this order:

1. a policy object (anything with ``act``): returned as it is;
2. a registered name (case-insensitive): ``random``, ``greedy``, ``heuristic``, or one added
   with ``register_policy(name, factory)``; the factory is called as ``factory(role)``;
3. an existing file: handed to the loader registered for its suffix with
   ``register_loader(suffix, fn)`` (``fn(path, role)``); ``.zip`` is built in
   (a MaskablePPO model saved by sb3-contrib, see ``sb3_policy.py``).

``greedy`` and ``heuristic`` both name the scripted baseline of the role: ``GreedyAgent`` in a
player seat, ``NecromancerHeuristic`` in the Necromancer's seat (so ``--players-policy heuristic``
and ``--necromancer greedy`` work and mean the obvious thing). ``role`` is ``"player"`` or
``"necromancer"``. Unknown names and missing files raise ``ConfigError`` listing what exists.

Factories registered at run time exist only in the process that registered them: evaluations with
``workers > 1`` start fresh processes, so register in a module those processes import, or pass a
(picklable) policy object instead of a name.
"""
from __future__ import annotations

import os
from typing import Any, Callable

from necro_env.game.errors import ConfigError

from .base import ROLES, Policy

PolicyFactory = Callable[[str], Policy]
Loader = Callable[[str, str], Policy]

_POLICIES: dict[str, PolicyFactory] = {}
_LOADERS: dict[str, Loader] = {}


def register_policy(name: str, factory: PolicyFactory, *, replace: bool = False) -> None:
    """Make ``factory(role) -> policy`` available as ``name`` (``ValueError`` if taken, unless ``replace``)."""
    key = name.strip().lower()
    if not key:
        raise ValueError("a policy name must not be empty")
    if key in _POLICIES and not replace:
        raise ValueError(f"policy {name!r} is already registered")
    _POLICIES[key] = factory


def register_loader(suffix: str, loader: Loader, *, replace: bool = False) -> None:
    """Load files ending in ``suffix`` (e.g. ``".zip"``) with ``loader(path, role) -> policy``."""
    key = suffix.lower() if suffix.startswith(".") else "." + suffix.lower()
    if key in _LOADERS and not replace:
        raise ValueError(f"a loader for {key!r} is already registered")
    _LOADERS[key] = loader


def policy_names() -> list[str]:
    """Registered policy names, sorted."""
    return sorted(_POLICIES)


def loader_suffixes() -> list[str]:
    """File suffixes with a registered loader, sorted."""
    return sorted(_LOADERS)


def _resolve(spec: Any, role: str) -> Callable[[], Policy]:
    """How ``spec`` would be built for ``role`` (nothing is loaded yet); ``ConfigError`` if unknown."""
    if role not in ROLES:
        raise ConfigError(f"role must be one of {ROLES}, got {role!r}")
    if not isinstance(spec, str):
        if callable(getattr(spec, "act", None)):
            return lambda: spec
        raise ConfigError(f"a policy spec must be a name, a file path or a policy object, got {spec!r}")
    key = spec.strip().lower()
    if key in _POLICIES:
        return lambda: _POLICIES[key](role)
    if os.path.isfile(spec):
        suffix = os.path.splitext(spec)[1].lower()
        loader = _LOADERS.get(suffix)
        if loader is None:
            raise ConfigError(f"no loader for {suffix or 'files without a suffix'} ({spec}); "
                              f"loaders exist for: {', '.join(loader_suffixes()) or 'none'}")
        return lambda: loader(spec, role)
    raise ConfigError(f"unknown policy {spec!r}: not a registered name ({', '.join(policy_names())}) "
                      f"nor an existing file")


def check_policy(spec: Any, role: str = "player") -> None:
    """Raise ``ConfigError`` if ``make_policy(spec, role)`` cannot work, without building (or loading) it."""
    _resolve(spec, role)


def make_policy(spec: Any, role: str = "player") -> Policy:
    """A policy for ``role`` from ``spec`` (see the module docstring); ``ConfigError`` if unknown."""
    return _resolve(spec, role)()


# ---------------------------------------------------------------------------------- built-ins
def _random(role: str) -> Policy:
    from .random_agent import RandomAgent

    return RandomAgent()


def _scripted(role: str) -> Policy:
    if role == "necromancer":
        from .necromancer import NecromancerHeuristic

        return NecromancerHeuristic()
    from .greedy import GreedyAgent

    return GreedyAgent()


def _load_zip(path: str, role: str) -> Policy:
    from .sb3_policy import load_sb3_policy

    return load_sb3_policy(path, role)


register_policy("random", _random)
register_policy("greedy", _scripted)
register_policy("heuristic", _scripted)
register_loader(".zip", _load_zip)

__all__ = ["make_policy", "register_policy", "register_loader", "policy_names", "loader_suffixes"]
