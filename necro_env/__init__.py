"""necro_env: Small World with the Necromancer Island scenario as a PettingZoo multi-agent environment.

    import necro_env
    env = necro_env.env(players=4)          # the wrapped AEC env (see necro_env.env's docstring)
    raw = necro_env.raw_env(players=4)      # the bare one
    env2 = necro_env.replay(record)         # a raw env rebuilt from env.unwrapped.record()

Importing the package registers ``necro_env/NecromancerIsland-v1`` with PettingZoo's
registry (PettingZoo >= 1.27 has one): ``pettingzoo.make("aec", "necro_env/NecromancerIsland-v1", players=5)``.
Retired versions stay registered only to fail with a message naming their successor.
The single-seat view is registered with Gymnasium under the same version:
``gymnasium.make("necro_env/NecromancerIslandSingleSeat-v1", players=3, learner="necromancer")``
(``necro_env.single_seat.SingleSeatEnv``; ``mask_in_obs=True`` puts the mask in the observation).
Without ``import necro_env``: ``gymnasium.make("necro_env:necro_env/NecromancerIslandSingleSeat-v1")``
(Gymnasium imports the module named before the colon); Gymnasium < 1.0 also finds the id through the
package's ``gymnasium.envs`` entry point (``register_gymnasium_envs``). PettingZoo has neither
mechanism: ``import necro_env`` before ``pettingzoo.make``.

Importing the package imports neither PettingZoo nor Gymnasium (the rules engine, the scripted
policies and ``necro-env simulate`` need neither): ``env``, ``raw_env``, ``replay`` and
``REGISTERED`` are loaded on first use, and the registrations are made when PettingZoo or Gymnasium
is imported (at once if it already is).
"""
from __future__ import annotations

import importlib.abc
import sys
import types

__version__ = "0.1.0"

from .versions import ENV_ID, RETIRED_ENV_IDS, SINGLE_SEAT_ENV_ID  # noqa: E402

_LAZY = {"env": "necro_env.env", "raw_env": "necro_env.env", "replay": "necro_env.env"}


def _register_gymnasium() -> None:
    """Register the single-seat view with Gymnasium (imported lazily by its entry point). Through
    ``gymnasium.envs.registration``: Gymnasium < 1.0 calls its plugins while ``gymnasium`` itself is still
    being imported, before the package binds ``register`` and ``registry``."""
    from gymnasium.envs.registration import register, registry

    if SINGLE_SEAT_ENV_ID not in registry:
        register(SINGLE_SEAT_ENV_ID, entry_point="necro_env.single_seat:SingleSeatEnv")


def register_gymnasium_envs() -> None:
    """Register ``SINGLE_SEAT_ENV_ID`` with Gymnasium (once; importing the package does it anyway).

    The target of the package's ``gymnasium.envs`` entry point: Gymnasium 0.26-0.29 calls the functions of
    that group when it is imported, so ``gymnasium.make("necro_env/NecromancerIslandSingleSeat-v1")`` works
    without importing necro_env first. Gymnasium 1.x dropped that plugin system: there, name the module in
    the id (``gymnasium.make("necro_env:necro_env/NecromancerIslandSingleSeat-v1")``, which imports it) or
    import necro_env first. PettingZoo has no plugin system: import necro_env before
    ``pettingzoo.make("aec", "necro_env/NecromancerIsland-v1")``.
    """
    _register_gymnasium()
    _registered("gymnasium")


def _register() -> bool:
    """Register the env with PettingZoo's registry when the installed version has one."""
    try:
        from pettingzoo import aec_registry, register
    except ImportError:  # PettingZoo < 1.27: no registry; necro_env.env() works all the same
        return False
    if ENV_ID not in aec_registry:
        register("aec", ENV_ID, entry_point="necro_env:env")
    for old_id in RETIRED_ENV_IDS:  # asking for a retired version says what replaced it
        if old_id not in aec_registry:
            register("aec", old_id, entry_point="necro_env.versions:retired_env")
    return True


# What to do once a package is imported: register with its registry.
_ON_IMPORT = {"pettingzoo": _register, "gymnasium": _register_gymnasium}


class _Registrar(importlib.abc.MetaPathFinder):
    """Makes the registrations of ``_ON_IMPORT`` right after PettingZoo / Gymnasium is imported: it finds their
    spec with the other finders and runs the registration after their loader has executed the module."""

    def find_spec(self, fullname, path, target=None):
        if fullname not in _ON_IMPORT:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        spec.loader = _RegisteringLoader(spec.loader, fullname)
        return spec


class _RegisteringLoader(importlib.abc.Loader):
    """Wraps a package's loader for its one import: executes the module, then registers (``_Registrar``)."""

    def __init__(self, loader, name: str) -> None:
        self.loader, self.name = loader, name

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module) -> None:
        module.__loader__ = self.loader  # the module keeps its own loader (resources, reloads)
        if module.__spec__ is not None:
            module.__spec__.loader = self.loader
        self.loader.exec_module(module)
        _registered(self.name)


_STATE: dict[str, bool] = {}


def _registered(name: str) -> bool:
    """Make ``name``'s registration once (PettingZoo's result is ``REGISTERED``); the hook goes when both are made."""
    if name not in _STATE:
        _STATE[name] = bool(_ON_IMPORT[name]())
        if len(_STATE) == len(_ON_IMPORT) and _REGISTRAR in sys.meta_path:
            sys.meta_path.remove(_REGISTRAR)
    return _STATE[name]


_REGISTRAR = _Registrar()
sys.meta_path.insert(0, _REGISTRAR)
for _name in _ON_IMPORT:
    if _name in sys.modules:  # already imported: register now
        _registered(_name)


class _Package(types.ModuleType):
    """The package module: ``env`` stays the function even after ``import necro_env.env`` (the import
    system binds a submodule to its parent's attribute of the same name)."""

    def __setattr__(self, name: str, value) -> None:
        if name == "env" and isinstance(value, types.ModuleType) and value.__name__ == "necro_env.env":
            value = value.env
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def __getattr__(name: str):
    """The names that need PettingZoo, loaded on first use."""
    if name in _LAZY:
        import importlib

        module = importlib.import_module(_LAZY[name])
        value = getattr(module, name)
        globals()[name] = value
        return value
    if name == "REGISTERED":
        import pettingzoo  # noqa: F401  (importing it makes the registration)

        return _registered("pettingzoo")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | {"REGISTERED"})


__all__ = ["__version__", "env", "raw_env", "replay", "ENV_ID", "SINGLE_SEAT_ENV_ID", "REGISTERED", "register_gymnasium_envs"]
