"""The one game loop: every place that plays a game forward with policies runs ``play``.

    decisions = play(game, st, policies, rngs)                        # to the end of the game
    play(game, st, policies, rng, until=learner_seat)                 # until the learner must decide
    play(game, st, policies, rng, until=(0, 1))                       # until seat 0 or seat 1 must decide

``policies[seat].act(View(game, st, seat), rng) -> action`` chooses for the seat to decide
(``st.decider``) and the engine applies it; ``rngs`` is one ``numpy.random.Generator`` per seat, or
one generator that every seat draws from. Users: ``necro_env.evaluate.play_game`` (evaluations, the
warm start's demonstrations), ``necro_env.simulate.play_random_game`` (uniform random play, through
``RandomChooser``), ``necro_env.play.play_game`` (the terminal game: the human's seat is a policy
that reads the keyboard and raises ``Quit``) and the single-seat view's opponents
(``necro_env.single_seat``, ``until`` the learner's seat, or every player seat when one network plays
them all).

A policy may also offer ``choose(state, rng) -> action``: when every seat's policy has it and no hook
is given, ``play`` calls it and builds no ``View`` (``RandomChooser``: uniform random play at engine speed).

Hooks, both optional: ``on_decision(view, action)`` sees each decision before it is applied (the
state is the one the policy saw), ``after(view, action)`` right after (``view.state`` is the same
live ``State``, now changed). Nothing is substituted for an illegal action: the engine's
``IllegalActionError`` propagates with the state unchanged. ``max_decisions`` guards against a
policy/engine loop (``GameLoopError``). This module imports no RL library.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from .agents.base import View
from .game import Game, State
from .game.errors import NecroEnvError

MAX_DECISIONS = 200_000  # far above any real game; guards against a policy/engine loop
_BATCH = 1024  # random draws fetched from the generator at a time
_DRAW_LIMIT = 1 << 62  # draws are reduced modulo <= 509 actions: bias below 1e-16


class GameLoopError(NecroEnvError, RuntimeError):
    """A game went on past ``max_decisions`` decisions (a policy or engine loop)."""


class Quit(NecroEnvError):
    """Raised by a policy to stop the game where it is (the terminal player quit); ``play`` lets it through."""


def play(game: Game, st: State, policies: Sequence[Any], rngs: Sequence[np.random.Generator] | np.random.Generator,
         *, until: int | Sequence[int] | None = None, on_decision: Callable[[View, int], Any] | None = None,
         after: Callable[[View, int], Any] | None = None, max_decisions: int | None = MAX_DECISIONS) -> int:
    """Play ``st`` forward in place until the game is over or seat ``until`` (one seat or a collection of
    seats) is to decide; returns the number of decisions taken here (see the module docstring)."""
    if isinstance(rngs, np.random.Generator):
        rngs = [rngs] * game.num_seats
    stop = [False] * game.num_seats  # stop[seat]: hand the decision back to the caller
    for s in ((until,) if until is None or isinstance(until, int) else until):
        if s is not None and 0 <= s < game.num_seats:
            stop[s] = True
    apply = game.apply
    limit = -1 if max_decisions is None else max_decisions
    n = 0
    if on_decision is None and after is None and all(p is None or hasattr(p, "choose") for p in policies):
        # the fast path: every seat can choose from the state alone and no hook wants a View
        chooses = [None if p is None else p.choose for p in policies]
        while not st.over:
            seat = st.decider
            if stop[seat]:
                break
            apply(st, chooses[seat](st, rngs[seat]))
            n += 1
            if n == limit and not st.over:
                raise GameLoopError(f"game did not end within {max_decisions} decisions")
        return n
    acts = [None if p is None else p.act for p in policies]  # None: a seat this call never plays (``until``)
    while not st.over:
        seat = st.decider
        if stop[seat]:
            break
        view = View(game, st, seat)
        action = acts[seat](view, rngs[seat])
        if on_decision is not None:
            on_decision(view, action)
        apply(st, int(action))
        n += 1
        if after is not None:
            after(view, action)
        if n == limit and not st.over:
            raise GameLoopError(f"game did not end within {max_decisions} decisions")
    return n


def random_draws(rng: np.random.Generator) -> list[int]:
    """A batch of raw draws, used from the end (``pop()``); reduce each modulo the choice count."""
    d = rng.integers(0, _DRAW_LIMIT, size=_BATCH).tolist()
    d.reverse()
    return d


class RandomChooser:
    """A policy that picks uniformly among the legal actions with raw draws fetched in batches from its
    generator (``necro_env.simulate``'s fast random play; the draws are reduced modulo the choice count)."""

    name = "random_draws"

    def __init__(self, game: Game) -> None:
        self._legal_actions = game.legal_actions
        self._draws: list[int] = []

    def choose(self, st: State, rng: np.random.Generator) -> int:
        """The action for the seat deciding in ``st`` (``play``'s fast path: no ``View`` is built)."""
        draws = self._draws
        if not draws:
            draws = self._draws = random_draws(rng)
        la = self._legal_actions(st)
        return la[draws.pop() % len(la)]

    def act(self, view: View, rng: np.random.Generator) -> int:
        return self.choose(view.state, rng)


__all__ = ["play", "MAX_DECISIONS", "GameLoopError", "Quit", "RandomChooser", "random_draws"]
