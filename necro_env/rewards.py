"""Rewards and illegal-action handling: one definition, one bookkeeping object, for every consumer.

``RewardTracker`` holds all reward bookkeeping of one game: the terminal schemes (``win``,
``rank``), the dense ``coins`` scheme's memory of the coins last paid, and the progress shaping's
memory of phi. The AEC env (``necro_env.env``), the single-seat view (``necro_env.single_seat``)
and the warm start's critic targets (``training/bc.py``) all compute rewards with it, so a seat
gets the same reward for the same game everywhere.

Schemes (``REWARD_SCHEMES``):

* ``win``: terminal only; +1 to the winner(s), -1 to everyone else (the Necromancer +1 iff he
  wins, then every player -1).
* ``rank``: terminal only; the final standing scaled to [-1, 1] (``Game.rank_scores``).
* ``coins``: dense; coins gained since the seat's previous reward (payments count negative)
  times ``COINS_SCALE``; nothing at the end.
* ``coalition`` (Necromancer games only): terminal only; the players are one team against the
  Necromancer: every player +1 if he loses, -1 if he wins (he gets +1 / -1, as under ``win``).
  Its shaping potential for a player is minus the Necromancer's (the team gains when he loses
  progress), so every player seat gets the same reward for the same stretch of the game; that is
  what lets one network act for all player seats on one trajectory (the single-seat view's
  ``learner="players"``) and the coalition best response of ``necro-env exploit``.

Shaping (``shaping`` >= 0, default 0, for every scheme): a dense progress reward
``shaping * (phi(s') - phi(s))`` added to a seat's reward for what happened between two of its
rewards, so a game's shaping terms add up to ``shaping * (phi(end) - phi(start))``. phi
(``progress_potential``) is the Necromancer's progress toward his victory (Ghosts in play + a
quarter per token in the Well, over the Ghosts he can field) or a player's coins / 100. It is
aligned with the goal (all Ghosts in play / most coins) but is not potential-based with
phi(end) = 0: that variant cancels out when gamma is close to 1 and did not speed up learning here.

How the tracker is read: ``reset(st)`` at the game's start remembers every tracked seat's coins
and phi; ``advance(st)`` after any number of actions returns, per seat, the reward for what
happened since the previous ``reset``/``advance`` (the terminal reward included once the game is
over) and remembers the new values. The AEC env advances after every step and adds each seat's
share to that seat's ``_cumulative_rewards``; the single-seat view advances once per learner
step (after the opponents' moves). Because the dense terms are differences, the two agree per
seat at each of the seat's decisions: the AEC env's accumulated reward when a seat is selected
again equals the single-seat view's step reward (up to float rounding of the summed terms).

Illegal actions (``ILLEGAL_ACTION_MODES``): ``terminate`` ends the game with ``ILLEGAL_REWARD``
for the offender (PettingZoo's classic convention), ``raise`` raises ``IllegalActionError``.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

from .game import Game, State
from .game.catalog import GHOST_BOX
from .game.errors import ConfigError, short_repr

REWARD_SCHEMES = ("win", "rank", "coins", "coalition")
ILLEGAL_ACTION_MODES = ("terminate", "raise")
COINS_SCALE = 0.1
ILLEGAL_REWARD = -1.0


def check_reward_scheme(reward: Any) -> str:
    """``reward`` if it names a scheme; ``ConfigError`` (a ``ValueError``) naming the allowed ones."""
    if reward not in REWARD_SCHEMES:
        raise ConfigError(f"unknown reward scheme {short_repr(reward)}; allowed: {', '.join(map(repr, REWARD_SCHEMES))}")
    return reward


def check_illegal_mode(mode: Any, option: str = "illegal_action") -> str:
    """``mode`` if it is an illegal-action mode; ``ConfigError`` naming the option and the allowed modes."""
    if mode not in ILLEGAL_ACTION_MODES:
        raise ConfigError(f"unknown {option} {short_repr(mode)}; allowed: {', '.join(map(repr, ILLEGAL_ACTION_MODES))}")
    return mode


def check_shaping(shaping: Any) -> float:
    """``shaping`` as a float if it is a finite number >= 0; ``ConfigError`` otherwise."""
    if isinstance(shaping, bool) or not isinstance(shaping, (int, float)) or not math.isfinite(shaping) \
            or shaping < 0:
        raise ConfigError(f"shaping must be a number >= 0, got {short_repr(shaping)}")
    return float(shaping)


def coins_reward(gain: int) -> float:
    """The ``coins`` scheme's reward for ``gain`` coins won (negative: paid) since the last reward."""
    return gain * COINS_SCALE


def terminal_rewards(game: Game, st: State, scheme: str) -> list[float] | None:
    """Per seat, what the end of the game (``st`` over) pays under ``scheme``; None for ``coins``
    (a dense scheme: the last coins won are paid by ``coins_reward`` like any others)."""
    if scheme == "win":
        return [1.0 if s in st.winners else -1.0 for s in range(game.num_seats)]
    if scheme == "rank":
        return game.rank_scores(st)
    if scheme == "coalition":
        necro_won = game.necro_seat in st.winners
        return [(1.0 if necro_won else -1.0) if s == game.necro_seat else (-1.0 if necro_won else 1.0)
                for s in range(game.num_seats)]
    return None


def progress_potential(game: Game, st: State, seat: int) -> float:
    """phi of the progress shaping for ``seat``: the Necromancer's (Ghosts in play + a quarter per token
    in the Well) / Ghosts he can field; a player's coins / 100."""
    if seat == game.necro_seat:
        fieldable = GHOST_BOX - st.ghosts_removed
        return (game.ghosts_in_play(st) + (sum(st.well) + st.souls) / 4.0) / fieldable
    return st.coins[seat] / 100.0


def coalition_potential(game: Game, st: State, seat: int) -> float:
    """phi under the ``coalition`` scheme: the Necromancer's own; minus his for every player."""
    necro = progress_potential(game, st, game.necro_seat)
    return necro if seat == game.necro_seat else -necro


class RewardTracker:
    """All reward bookkeeping of one game under one scheme and shaping weight (see the module docstring).

    seats: the seats whose rewards are wanted (default: every seat); the others read 0.
    After ``reset``/``advance``: ``last_coins`` (every seat's coins when last paid: the game's start
    under ``win``/``rank``, which pay no coins) and ``last_phi`` (per tracked seat, phi when last
    paid; measured at ``reset`` even without shaping, updated only with shaping) are the memory.
    ``per_step``: whether anything can be paid before the end (the ``coins`` scheme or shaping); when
    False, ``advance`` returns None until the game is over, so a caller may skip it until then.
    """

    __slots__ = ("game", "scheme", "shaping", "seats", "last_coins", "last_phi", "per_step", "_dense", "_zero",
                 "_phi")

    def __init__(self, game: Game, scheme: str = "win", shaping: float = 0.0,
                 seats: Sequence[int] | None = None) -> None:
        self.game = game
        self.scheme = check_reward_scheme(scheme)
        if scheme == "coalition" and not game.necromancer:
            raise ConfigError("reward 'coalition' (the players against the Necromancer) needs a Necromancer game")
        self._phi = coalition_potential if scheme == "coalition" else progress_potential
        self.shaping = check_shaping(shaping)
        self._dense = scheme == "coins"
        self.per_step = self._dense or bool(self.shaping)  # False: ``advance`` pays nothing before the end
        self._zero = [0.0] * game.num_seats
        self.seats: tuple[int, ...] = ()
        self._set_seats(seats)
        self.last_coins: list[int] = []
        self.last_phi: dict[int, float] = {}

    def _set_seats(self, seats: Sequence[int] | None) -> None:
        n = self.game.num_seats
        seats = tuple(range(n)) if seats is None else tuple(seats)
        if not all(isinstance(s, int) and 0 <= s < n for s in seats):
            raise ConfigError(f"reward seats must be seats in 0..{n - 1}, got {short_repr(seats)}")
        self.seats = seats

    def reset(self, st: State, seats: Sequence[int] | None = None) -> None:
        """Start counting from ``st`` (``seats``: change the tracked seats, e.g. a new learner seat)."""
        if seats is not None:
            self._set_seats(seats)
        self.last_coins = st.coins[:]
        self.last_phi = {s: self._phi(self.game, st, s) for s in self.seats}

    def restore(self, last_coins: Sequence[int], last_phi: dict[int, float],
                seats: Sequence[int] | None = None) -> None:
        """Set the memory directly (a checkpoint's; the caller has validated it)."""
        if seats is not None:
            self._set_seats(seats)
        self.last_coins = list(last_coins)
        self.last_phi = {s: float(last_phi[s]) for s in self.seats}

    def advance(self, st: State) -> list[float] | None:
        """Per seat (a list over every seat, untracked seats 0.0), the reward for what happened since
        the previous ``reset``/``advance``, the terminal reward included if ``st`` is over; None when
        no tracked seat's reward can be nonzero (no coins changed, no shaping, the game not over)."""
        out = None
        if self._dense:
            coins, prev = st.coins, self.last_coins
            if coins != prev:
                out = self._zero[:]
                for s in self.seats:
                    out[s] = coins_reward(coins[s] - prev[s])
                self.last_coins = coins[:]
        if self.shaping:
            if out is None:
                out = self._zero[:]
            last, shaping, game, potential = self.last_phi, self.shaping, self.game, self._phi
            for s in self.seats:
                phi = potential(game, st, s)
                out[s] += shaping * (phi - last[s])
                last[s] = phi
        if st.over:
            final = terminal_rewards(self.game, st, self.scheme)
            if final is not None:
                if out is None:
                    out = self._zero[:]
                for s in self.seats:
                    out[s] += final[s]
        return out

    def advance_seat(self, st: State, seat: int) -> float:
        """``advance(st)[seat]`` (0.0 when nothing was paid)."""
        out = self.advance(st)
        return 0.0 if out is None else out[seat]


__all__ = ["REWARD_SCHEMES", "ILLEGAL_ACTION_MODES", "COINS_SCALE", "ILLEGAL_REWARD", "check_reward_scheme",
           "check_illegal_mode", "check_shaping", "coins_reward", "terminal_rewards", "progress_potential",
           "coalition_potential",
           "RewardTracker"]
