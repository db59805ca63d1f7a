"""The interface every policy fits: ``act(view, rng) -> action index``.

A :class:`View` is what a policy sees at one decision: the ``Game``, the live
``State`` (read it, never mutate it), the deciding ``seat``, the ``legal`` action
indices, and lazily the int8 ``mask`` and the float32 ``observation`` (built by
``necro_env.observe.Observer``, one observer per game, imported only when a
policy asks for it). Scripted bots read the engine state; learned policies read
``observation`` and ``mask``. Every policy chooses one of ``view.legal`` and draws
all its randomness from the ``rng`` (a ``numpy.random.Generator``) it is handed,
so a seeded match replays exactly.

A policy may also decide many positions at once: ``batch_act(views, rngs) -> actions`` chooses for
each ``views[i]`` what ``act(views[i], rngs[i])`` would (drawing from ``rngs[i]`` only, in the same
way), with one forward pass for all of them. Policies with that method are *batchable*
(``is_batchable``); ``batch_key(policy)`` groups interchangeable ones (equal keys: either policy's
``batch_act`` may decide for the other's views, e.g. two loads of the same weights file). A vectorised
training env (``training/vec_env.py``, ``BatchedOpponentsVecEnv``) uses them to decide the learned
opponents of all its envs together; ``necro_env.single_seat`` pauses at such a seat.
"""
from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

from necro_env.game.errors import ConfigError, NecroEnvError

if TYPE_CHECKING:  # pragma: no cover
    from necro_env.game import Game, State

ROLES = ("player", "necromancer")


class UntrustedPolicyError(ConfigError):
    """A policy file whose format can run code when loaded (a pickle), without ``trusted=True``."""


class PolicyFileError(ConfigError):
    """A policy file that cannot be loaded (not the format its suffix says, or not a model for this env)."""


class PolicyOutputError(NecroEnvError):
    """A learned policy's network gave outputs no action can be chosen from (NaN or infinite logits of
    the legal actions): its weights are broken, and guessing a move would hide that."""

# One observer per Game object (they hold preallocated buffers sized for that game).
_OBSERVERS: "weakref.WeakKeyDictionary[Game, object]" = weakref.WeakKeyDictionary()


def observer_for(game: "Game"):
    """The cached ``necro_env.observe.Observer`` of ``game`` (imported on first use)."""
    obs = _OBSERVERS.get(game)
    if obs is None:
        from necro_env.observe import Observer  # lazy: scripted bots never need it

        obs = _OBSERVERS[game] = Observer(game)
    return obs


class View:
    """One decision as a policy sees it: ``game``, ``state``, ``seat``, ``legal``, lazy ``mask``/``observation``."""

    __slots__ = ("game", "state", "seat", "_mask", "_obs")

    def __init__(self, game: "Game", state: "State", seat: int | None = None) -> None:
        self.game = game
        self.state = state
        self.seat = game.current_seat(state) if seat is None else seat
        self._mask = None
        self._obs = None

    @property
    def legal(self) -> list[int]:
        """Sorted legal action indices (``game.legal_actions(state)``, cached by the engine)."""
        return self.game.legal_actions(self.state)

    @property
    def mask(self) -> np.ndarray:
        """int8 mask over the whole action table (1 = legal)."""
        if self._mask is None:
            self._mask = self.game.legal_action_mask(self.state)
        return self._mask

    @property
    def observation(self) -> np.ndarray:
        """The seat's float32 observation vector (a fresh array: safe to keep)."""
        if self._obs is None:
            self._obs = observer_for(self.game).observe(self.state, self.seat)
        return self._obs


@runtime_checkable
class Policy(Protocol):
    """What the evaluation tools call. ``reset()`` is called before every game."""

    name: str

    def act(self, view: View, rng: np.random.Generator) -> int: ...

    def reset(self) -> None: ...


class BasePolicy:
    """Convenience base class: a ``name``, a no-op ``reset`` and a readable ``repr``."""

    name = "policy"

    def reset(self) -> None:
        """Forget per-game memory (scripted bots keep none)."""

    def act(self, view: View, rng: np.random.Generator) -> int:  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


def is_batchable(policy: object) -> bool:
    """Whether ``policy`` decides batches of positions (has a callable ``batch_act(views, rngs)``)."""
    return callable(getattr(policy, "batch_act", None))


def batch_key(policy: object) -> object:
    """What groups batchable policies: the policy's ``batch_key`` attribute (or method's result) when it has
    one, else the object itself (a policy only batches with itself)."""
    key = getattr(policy, "batch_key", None)
    if key is None:
        return ("object", id(policy))
    return key() if callable(key) else key


def pick_best(items: list, scores: list[float], rng: np.random.Generator, eps: float = 1e-9):
    """The item with the highest score; ties (within ``eps``) broken uniformly with ``rng``."""
    best = max(scores)
    top = [it for it, s in zip(items, scores) if s >= best - eps]
    if len(top) == 1:
        return top[0]
    return top[int(rng.integers(len(top)))]


__all__ = ["ROLES", "View", "Policy", "BasePolicy", "observer_for", "pick_best", "is_batchable", "batch_key", "UntrustedPolicyError",
           "PolicyFileError", "PolicyOutputError"]
