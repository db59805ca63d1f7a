"""The ``necro-env`` command line: one registry of subcommands, each a module of its own.

A subcommand module exposes ``add_arguments(parser)``, ``run(args) -> int`` and a
one-line module docstring (the help text); the argument helpers they share live in
``cli_args.py`` (so they never import this module). Modules are imported when the
parser is built, so importing them must stay cheap (no torch at import time).

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
from typing import Sequence

from . import __version__

PROG = "necro-env"

SUBCOMMANDS = {
    "simulate": "necro_env.simulate",
    "replay": "necro_env.replay_command",
    "evaluate": "necro_env.evaluate",
    "league": "necro_env.league",
    "play": "necro_env.play",
}


# ---------------------------------------------------------------- the parser
def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with one subparser per available subcommand."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Small World with the Necromancer Island scenario: simulation and tools.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    subs = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, modname in SUBCOMMANDS.items():
        module = importlib.import_module(modname)
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
    """The error's message on one line, at most ``MAX_MESSAGE`` characters (whatever data it quotes)."""
    from .game.errors import cap_message

    return cap_message(" ".join(str(e).split()))


if __name__ == "__main__":
    sys.exit(main())
