"""Argument helpers shared by the ``necro-env`` subcommands (argparse types and the game options).

A module of its own so that subcommand modules (``simulate``, ``evaluate``, ``league`` ...)
and ``cli.py``, which imports them by name, do not import each other.
"""
from __future__ import annotations

import argparse

from .game.config import GameConfig
from .game.errors import ConfigError


def positive_int(text: str) -> int:
    """argparse type: an int >= 1."""
    return _bounded_int(text, 1)


def nonneg_int(text: str) -> int:
    """argparse type: an int >= 0."""
    return _bounded_int(text, 0)


def _bounded_int(text: str, low: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < low:
        raise argparse.ArgumentTypeError(f"must be >= {low}, got {value}")
    return value


def add_game_arguments(parser: argparse.ArgumentParser, players: int | None = 4) -> None:
    """--players, --necromancer/--no-necromancer and --handicap (read back by ``game_config``)."""
    parser.add_argument("--players", type=int, default=players, required=players is None,
                        help="seats, the Necromancer included: 2-5 base game, 3-6 with the Necromancer"
                             + ("" if players is None else f" (default {players})"))
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--necromancer", dest="necromancer", action="store_true", default=None,
                       help="play the Necromancer Island scenario (the default for 3+ seats)")
    group.add_argument("--no-necromancer", dest="necromancer", action="store_false",
                       help="play the base game (the default for 2 seats)")
    parser.add_argument("--handicap", type=int, default=0,
                        help="Ghosts removed from the Necromancer's reserve before play, 0-2 (default 0)")


def add_trust_argument(parser: argparse.ArgumentParser) -> None:
    """--trust-pickle: allow policy files that can run code when loaded (read back as ``args.trust_pickle``)."""
    parser.add_argument("--trust-pickle", action="store_true",
                        help="allow policy files that can run code when loaded (stable-baselines3 .zip files and "
                             "rllib:PATH#MODULE checkpoints are pickles): only for files you made or trust like a program")


def resolve_necromancer(players: int, necromancer: bool | None) -> bool:
    """The scenario choice for ``players`` seats; ``ConfigError`` when the count does not fit it."""
    if necromancer is None:
        necromancer = players >= 3
    if necromancer and not 3 <= players <= 6:
        raise ConfigError(f"--players must be 3-6 with the Necromancer, got {players}"
                          + (" (use --no-necromancer for the 2-player base game)" if players == 2 else ""))
    if not necromancer and not 2 <= players <= 5:
        raise ConfigError(f"--players must be 2-5 without the Necromancer, got {players}"
                          + (" (6 seats need the Necromancer)" if players == 6 else ""))
    return necromancer


def game_config(args: argparse.Namespace, **options) -> GameConfig:
    """A ``GameConfig`` from the arguments of ``add_game_arguments``; ``ConfigError`` if out of range."""
    necromancer = resolve_necromancer(args.players, args.necromancer)
    handicap = getattr(args, "handicap", 0)
    if not 0 <= handicap <= 2:
        raise ConfigError(f"--handicap must be 0, 1 or 2, got {handicap}")
    return GameConfig(players=args.players, necromancer=necromancer, handicap=handicap, **options)


__all__ = [
    "positive_int", "nonneg_int", "add_game_arguments", "add_trust_argument", "resolve_necromancer", "game_config",
]
