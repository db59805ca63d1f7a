"""The ``necro-env`` command line: one registry of subcommands, each a module of its own.

A subcommand module exposes ``add_arguments(parser)``, ``run(args) -> int`` and a
one-line module docstring (the help text). Modules are imported when the parser is
built, so importing them must stay cheap (no torch at import time); a module that
does not exist yet is simply not listed.

Exit codes: 0 success, 1 a runtime error (bad record file, a record the replay rejects, I/O),
2 bad arguments (argparse's own errors and every :class:`ConfigError`, e.g. a policy file that
cannot or may not be loaded), 130 interrupted. Every error of the package (``NecroEnvError``)
and every I/O error is reported as one line ``necro-env COMMAND: error: ...`` on stderr, never
as a traceback.
"""
from __future__ import annotations

import argparse
import importlib
import sys
from types import ModuleType
from typing import Sequence

from . import __version__

PROG = "necro-env"

SUBCOMMANDS = {
    "simulate": "necro_env.simulate",
    "replay": "necro_env.record",
    "evaluate": "necro_env.evaluate",
    "league": "necro_env.league",
    "play": "necro_env.play",
}


# ---------------------------------------------------------------- shared argument helpers
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
                        help="allow policy files that can run code when loaded (stable-baselines3 .zip files are "
                             "pickles): only for files you made or trust like a program")


def resolve_necromancer(players: int, necromancer: bool | None) -> bool:
    """The scenario choice for ``players`` seats; ``ConfigError`` when the count does not fit it."""
    from .game.errors import ConfigError

    if necromancer is None:
        necromancer = players >= 3
    if necromancer and not 3 <= players <= 6:
        raise ConfigError(f"--players must be 3-6 with the Necromancer, got {players}"
                          + (" (use --no-necromancer for the 2-player base game)" if players == 2 else ""))
    if not necromancer and not 2 <= players <= 5:
        raise ConfigError(f"--players must be 2-5 without the Necromancer, got {players}"
                          + (" (6 seats need the Necromancer)" if players == 6 else ""))
    return necromancer


def game_config(args: argparse.Namespace, **options):
    """A ``GameConfig`` from the arguments of ``add_game_arguments``; ``ConfigError`` if out of range."""
    from .game.config import GameConfig
    from .game.errors import ConfigError

    necromancer = resolve_necromancer(args.players, args.necromancer)
    handicap = getattr(args, "handicap", 0)
    if not 0 <= handicap <= 2:
        raise ConfigError(f"--handicap must be 0, 1 or 2, got {handicap}")
    return GameConfig(players=args.players, necromancer=necromancer, handicap=handicap, **options)


# ---------------------------------------------------------------- the parser
def _load(name: str) -> ModuleType | None:
    """The subcommand module, or None while it does not exist (errors inside it are not hidden)."""
    modname = SUBCOMMANDS[name]
    try:
        return importlib.import_module(modname)
    except ModuleNotFoundError as e:
        if e.name == modname:
            return None
        raise


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with one subparser per available subcommand."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Small World with the Necromancer Island scenario: simulation and tools.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    subs = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in SUBCOMMANDS:
        module = _load(name)
        if module is None:
            continue
        doc = (module.__doc__ or "").strip().splitlines()
        summary = doc[0] if doc else name
        sp = subs.add_parser(name, help=summary.replace("%", "%%"), description=summary.replace("%", "%%"))
        module.add_arguments(sp)
        sp.set_defaults(_run=module.run, _parser=sp)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``necro-env``; returns the exit code (never raises SystemExit)."""
    from .game.errors import ConfigError, NecroEnvError

    parser = build_parser()
    try:
        args = parser.parse_args(None if argv is None else list(argv))
    except SystemExit as e:  # argparse errors (code 2), --help and --version (code 0)
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    sub: argparse.ArgumentParser = args._parser
    try:
        return int(args._run(args) or 0)
    except ConfigError as e:
        print(f"{sub.prog}: error: {_one_line(e)}", file=sys.stderr)
        return 2
    except (NecroEnvError, OSError) as e:
        print(f"{sub.prog}: error: {_one_line(e)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{sub.prog}: interrupted", file=sys.stderr)
        return 130


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split())


if __name__ == "__main__":
    sys.exit(main())
