"""Rewards and illegal-action handling: one definition for the AEC env and the single-seat env.

Pure functions of the engine's ``Game``/``State`` (no env state), so ``necro_env.env`` and
``necro_env.single_seat`` give a seat the same reward for the same game.

Schemes (``REWARD_SCHEMES``):

* ``win``: terminal only; +1 to the winner(s), -1 to everyone else (the Necromancer +1 iff he
  wins, then every player -1).
* ``rank``: terminal only; the final standing scaled to [-1, 1] (``Game.rank_scores``).
* ``coins``: dense; coins gained since the seat's previous reward (payments count negative)
  times ``COINS_SCALE``; nothing at the end.

Illegal actions (``ILLEGAL_ACTION_MODES``): ``terminate`` ends the game with ``ILLEGAL_REWARD``
for the offender (PettingZoo's classic convention), ``raise`` raises ``IllegalActionError``.
"""
from __future__ import annotations

from typing import Any

from .game import Game, State
from .game.errors import ConfigError, short_repr

REWARD_SCHEMES = ("win", "rank", "coins")
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
        raise ConfigError(f"unknown {option} {mode!r}; allowed: {', '.join(map(repr, ILLEGAL_ACTION_MODES))}")
    return mode


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
    return None


__all__ = ["REWARD_SCHEMES", "ILLEGAL_ACTION_MODES", "COINS_SCALE", "ILLEGAL_REWARD", "check_reward_scheme",
           "check_illegal_mode", "coins_reward", "terminal_rewards"]
