"""One registry of policies: ``make_policy(spec, role)`` turns a name or a file path into a policy.

Specs, tried in this order:

1. a policy object (anything with ``act``): returned as it is;
2. a registered name (case-insensitive): ``random``, ``greedy``, ``heuristic``, or one added
   with ``register_policy(name, factory)``; the factory is called as ``factory(role)``;
3. ``pretrained:NAME``: a policy shipped with the package (``necro_env/pretrained/NAME.safetensors``,
   e.g. ``pretrained:necromancer_3p``; ``pretrained_names()`` lists them), loaded like 4.'s
   ``.safetensors`` files;
4. an existing file: handed to the loader registered for its suffix with
   ``register_loader(suffix, fn, pickle=...)`` (``fn(path, role)``); two are built in:
   ``.safetensors`` (necro_env's own weights-only policy files, ``torch_policy.load_policy``;
   no pickle, so no trust needed) and ``.zip`` (a MaskablePPO model saved by sb3-contrib, see
   ``sb3_policy.py``; a pickle);
5. ``rllib:PATH#MODULE``: module ``MODULE`` (e.g. ``necromancer``, ``players``) of an RLlib checkpoint
   written by ``training/rllib_train.py`` (``rllib_policy.py``; ray is imported only then; a pickle).
6. ``mcts:SIMS`` and ``ismcts:SIMS`` (options ``:rollout=random|greedy``, ``:uct_c=FLOAT``,
   ``:reward=win|rank|coalition``): OpenSpiel's Python MCTS / information-set MCTS bots with SIMS
   simulations per decision (``search.py``; the ``openspiel`` extra; ``mcts:`` sees the whole game
   state, hidden parts included, ``ismcts:`` only what the seat observes).

**Trust.** A loader registered with ``pickle=True`` reads files that can run code when loaded:
stable-baselines3's ``.zip`` holds cloudpickled Python objects, and unpickling one runs whatever
its author put there; so do RLlib checkpoints (``rllib:`` specs). ``make_policy`` refuses such a file unless the caller passes
``trusted=True`` (the ``--trust-pickle`` flag of ``necro-env evaluate|league|play`` and
``training/train.py``), raising :class:`UntrustedPolicyError`; pass it only for files you made or
trust like a program you run. A loader for a format that cannot run code (weights only, with a
JSON architecture) registers with ``pickle=False`` and needs no trust, as necro_env's own
weights-only ``.safetensors`` policy files do.

``greedy`` and ``heuristic`` both name the scripted baseline of the role: ``GreedyAgent`` in a
player seat, ``NecromancerHeuristic`` in the Necromancer's seat (so ``--players-policy heuristic``
and ``--necromancer greedy`` work and mean the obvious thing). ``heuristic_bold`` is the heuristic
Necromancer with a smaller exposure penalty, a warm-start teacher rather than a baseline
(``GreedyAgent`` in a player seat). ``role`` is ``"player"`` or
``"necromancer"``. Unknown names and missing files raise ``ConfigError`` listing what exists.

Factories registered at run time exist only in the process that registered them: evaluations with
``workers > 1`` start fresh processes, so register in a module those processes import, or pass a
(picklable) policy object instead of a name.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable

from necro_env.game.errors import ConfigError

from .base import ROLES, Policy, PolicyFileError, PolicyOutputError, UntrustedPolicyError  # errors: re-exported

PolicyFactory = Callable[[str], Policy]
Loader = Callable[[str, str], Policy]

_POLICIES: dict[str, PolicyFactory] = {}
_LOADERS: dict[str, tuple[Loader, bool]] = {}  # suffix -> (loader, its files can run code when loaded)


def register_policy(name: str, factory: PolicyFactory, *, replace: bool = False) -> None:
    """Make ``factory(role) -> policy`` available as ``name`` (``ValueError`` if taken, unless ``replace``)."""
    key = name.strip().lower()
    if not key:
        raise ValueError("a policy name must not be empty")
    if key in _POLICIES and not replace:
        raise ValueError(f"policy {name!r} is already registered")
    _POLICIES[key] = factory


def register_loader(suffix: str, loader: Loader, *, pickle: bool = True, replace: bool = False) -> None:
    """Load files ending in ``suffix`` (e.g. ``".zip"``) with ``loader(path, role) -> policy``.

    pickle: whether loading such a file can run code (a pickle inside); those files load only
    with ``trusted=True``. The default assumes so; say ``False`` only for a format that holds
    data alone (and a loader that never unpickles)."""
    key = suffix.lower() if suffix.startswith(".") else "." + suffix.lower()
    if key in _LOADERS and not replace:
        raise ValueError(f"a loader for {key!r} is already registered")
    if not isinstance(pickle, bool):
        raise ValueError(f"pickle must be True or False, got {pickle!r}")
    _LOADERS[key] = (loader, pickle)


def policy_names() -> list[str]:
    """Registered policy names, sorted."""
    return sorted(_POLICIES)


def loader_suffixes() -> list[str]:
    """File suffixes with a registered loader, sorted."""
    return sorted(_LOADERS)


def _resolve(spec: Any, role: str, trusted: bool) -> Callable[[], Policy]:
    """How ``spec`` would be built for ``role`` (nothing is loaded yet); ``ConfigError`` if unknown,
    ``UntrustedPolicyError`` for a pickle-based file without ``trusted``."""
    if role not in ROLES:
        raise ConfigError(f"role must be one of {ROLES}, got {role!r}")
    if not isinstance(spec, str):
        if callable(getattr(spec, "act", None)):
            return lambda: spec
        raise ConfigError(f"a policy spec must be a name, a file path or a policy object, got {spec!r}")
    key = spec.strip().lower()
    if key in _POLICIES:
        return lambda: _POLICIES[key](role)
    if key.startswith(PRETRAINED_PREFIX):
        name = spec.strip()[len(PRETRAINED_PREFIX):]
        path = PRETRAINED_DIR / f"{name}.safetensors"
        if name not in pretrained_names():
            raise ConfigError(f"no pretrained policy {name!r}; shipped: {', '.join(pretrained_names()) or 'none'}")
        return lambda: _load_pretrained(path, role, spec.strip())
    if key.startswith(RLLIB_PREFIX):
        from .rllib_policy import check_spec, load_rllib_policy

        check_spec(spec, trusted)  # syntax, directory, module, then trust: nothing is loaded yet
        return lambda: load_rllib_policy(spec.strip(), role, trusted=True)
    if key.startswith(SEARCH_PREFIXES) or key in ("mcts", "ismcts"):  # bare: say SIMS is missing
        from .search import check_openspiel, make_search_policy, parse_search_spec

        parse_search_spec(spec)  # the syntax first, then whether OpenSpiel is there: nothing is built yet
        check_openspiel()
        return lambda: make_search_policy(spec)
    if os.path.isfile(spec):
        suffix = os.path.splitext(spec)[1].lower()
        entry = _LOADERS.get(suffix)
        if entry is None:
            raise ConfigError(f"no loader for {suffix or 'files without a suffix'} ({spec}); "
                              f"loaders exist for: {', '.join(loader_suffixes()) or 'none'}")
        loader, pickled = entry
        if pickled and not trusted:
            raise UntrustedPolicyError(
                f"refusing to load {spec}: {suffix} policy files are pickles (an SB3 .zip holds cloudpickled "
                f"Python objects) and loading one runs any code its author put in it. Load only files you made "
                f"or trust, with --trust-pickle (trusted=True in the API)")
        return lambda: loader(spec, role)
    raise ConfigError(f"unknown policy {spec!r}: not a registered name ({', '.join(policy_names())}) "
                      f"nor an existing file")


PRETRAINED_PREFIX = "pretrained:"
RLLIB_PREFIX = "rllib:"
SEARCH_PREFIXES = ("mcts:", "ismcts:")
#: The policies shipped as package data (weights-only files; see ``torch_policy``).
PRETRAINED_DIR = Path(__file__).resolve().parents[1] / "pretrained"


def pretrained_names() -> list[str]:
    """Names of the shipped policies (``pretrained:NAME`` specs), sorted."""
    return sorted(p.stem for p in PRETRAINED_DIR.glob("*.safetensors")) if PRETRAINED_DIR.is_dir() else []


def _load_pretrained(path: Path, role: str, name: str) -> Policy:
    from .torch_policy import load_policy

    pol = load_policy(path, role)
    pol.name = name
    return pol


def check_policy(spec: Any, role: str = "player", *, trusted: bool = False) -> None:
    """Raise ``ConfigError`` if ``make_policy(spec, role, trusted=trusted)`` cannot work, without building
    (or loading) it."""
    _resolve(spec, role, trusted)


def make_policy(spec: Any, role: str = "player", *, trusted: bool = False) -> Policy:
    """A policy for ``role`` from ``spec`` (see the module docstring); ``ConfigError`` if unknown.

    trusted: allow policy files whose format can run code when loaded (SB3 ``.zip``); see "Trust"."""
    return _resolve(spec, role, trusted)()


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


def _bold(role: str) -> Policy:
    if role == "necromancer":
        from .necromancer import BoldNecromancerHeuristic

        return BoldNecromancerHeuristic()
    return _scripted(role)


def _load_safetensors(path: str, role: str) -> Policy:
    try:
        from .torch_policy import load_policy
    except ImportError as e:  # pragma: no cover - depends on the install
        raise ConfigError(f"loading {path} needs torch and safetensors (pip install necro_env[train]): {e}") from None
    return load_policy(path, role)


def _load_zip(path: str, role: str) -> Policy:
    from .sb3_policy import load_sb3_policy

    return load_sb3_policy(path, role, trusted=True)  # _resolve checked the caller's trust


register_policy("random", _random)
register_policy("greedy", _scripted)
register_policy("heuristic", _scripted)
register_policy("heuristic_bold", _bold)  # a warm-start teacher, not a baseline (agents/necromancer.py)
register_loader(".safetensors", _load_safetensors, pickle=False)  # data only: safe from anyone
register_loader(".zip", _load_zip, pickle=True)

__all__ = ["pretrained_names", "PRETRAINED_DIR", "make_policy", "check_policy", "register_policy", "register_loader", "policy_names", "loader_suffixes",
           "UntrustedPolicyError", "PolicyFileError", "PolicyOutputError"]
